"""The client's sounds: made in code at start-up (no audio files) and played through pygame's mixer.

Each sound is a few soft notes (sine partials under a smooth attack and an exponential decay,
faded to silence at both ends, so it never clicks), rendered as 16-bit PCM with :mod:`array` and
:mod:`math` (:func:`pcm`) and handed to ``pygame.mixer.Sound(buffer=...)``.

:class:`Sounds` is what the rest of the client calls: :meth:`Sounds.play` by name, on or off and
at the volume the config file says. Without an audio device (no sound card, a mixer that cannot
open) it plays nothing and never raises; tests put a recorder in place of the mixer
(:class:`Backend`), or use ``SDL_AUDIODRIVER=dummy``, a mixer that opens and plays into nothing.

Quiet without a device: on Linux, when the user has chosen no SDL audio driver and there is
neither a sound card nor a sound server's socket (:func:`audio_device_found`: a headless box, a
container, a machine reached over SSH), the mixer is not opened at all, so SDL does not probe
its drivers, whose libraries (ALSA's above all) print complaints on stderr. Where there may be
a device, the mixer opens with file descriptor 2 sent elsewhere meanwhile
(:func:`quiet_stderr`): a driver that fails on the way to one that works, or a socket left
behind by a sound server that is gone, prints nothing either.
"""

from __future__ import annotations

import array
import contextlib
import math
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from client.config import Config

RATE = 22_050
"""Samples per second the mixer is asked for (the sounds are made at the rate it gives)."""
PEAK = 0.5
"""The loudest sample of every sound, as a fraction of full scale (room to mix two at once)."""
FADE_S = 0.004
"""Each note fades in and out over at least this long: no click at its edges."""
FULL_SCALE = 32_767


@dataclass(frozen=True)
class Note:
    """One note of a sound: a tone with a soft attack and an exponential decay."""

    at: float
    """When it starts, in seconds from the sound's start."""
    freq: float
    """Its pitch in Hz."""
    length: float
    """How long it sounds, in seconds (it has faded to silence at the end)."""
    level: float = 1.0
    partials: tuple[float, ...] = (1.0, 0.25, 0.08)
    """Amplitudes of the harmonics (the pitch, twice it, three times...): a little of the upper
    ones makes a mellow, wooden tone rather than a bare beep."""
    attack: float = 0.006
    decay: float = 5.0
    """How fast it dies away: the level falls to e**-decay by the end."""
    glide: float = 0.0
    """Pitch change over the note, as a fraction (negative: it drops, like a knock)."""


VOICES: dict[str, tuple[Note, ...]] = {
    # a piece put down: one short knock
    "move": (Note(0.0, 540.0, 0.09, attack=0.003, decay=6.0, glide=-0.12),),
    # a piece taken: a lower, fuller double knock
    "capture": (Note(0.0, 300.0, 0.1, attack=0.003, decay=6.0, glide=-0.15,
                     partials=(1.0, 0.45, 0.2)),
                Note(0.05, 410.0, 0.11, level=0.8, attack=0.003, decay=6.0, glide=-0.12)),
    # a chess check: two quick rising notes
    "check": (Note(0.0, 740.0, 0.11, decay=4.0), Note(0.09, 988.0, 0.15, decay=4.5)),
    # the game begins: a rising C major arpeggio
    "start": (Note(0.0, 523.25, 0.14, level=0.8), Note(0.09, 659.25, 0.14, level=0.8),
              Note(0.18, 783.99, 0.2, level=0.9)),
    # the game ends: the same arpeggio falling
    "end": (Note(0.0, 783.99, 0.15, level=0.8), Note(0.1, 659.25, 0.15, level=0.8),
            Note(0.2, 523.25, 0.2, level=0.9)),
    # our clock runs low: two soft beeps
    "low_time": (Note(0.0, 880.0, 0.08, partials=(1.0, 0.1), decay=3.0),
                 Note(0.13, 880.0, 0.08, partials=(1.0, 0.1), decay=3.0)),
    # a chat line or an offer: a small bell
    "notify": (Note(0.0, 1046.5, 0.28, partials=(1.0, 0.0, 0.12), decay=5.5),
               Note(0.0, 1568.0, 0.2, level=0.35, partials=(1.0,), decay=6.0)),
}
"""Every sound by name, as the notes it is made of."""
SOUND_NAMES = tuple(VOICES)


def duration(name: str) -> float:
    """How long sound ``name`` lasts, in seconds."""
    return max(note.at + note.length for note in _voice(name))


def _voice(name: str) -> tuple[Note, ...]:
    try:
        return VOICES[name]
    except KeyError:
        raise ValueError(f"unknown sound {name!r}: the sounds are "
                         f"{', '.join(SOUND_NAMES)}") from None


def pcm(name: str, rate: int = RATE, channels: int = 1) -> array.array[int]:
    """Sound ``name`` as signed 16-bit samples at ``rate`` per second, ``channels`` interleaved
    (the same in each): ``round(duration(name) * rate)`` frames, the loudest at :data:`PEAK` of
    full scale, starting and ending at silence."""
    if not isinstance(rate, int) or isinstance(rate, bool) or not 4_000 <= rate <= 192_000:
        raise ValueError(f"sample rate {rate!r}: expected a whole number of Hz, 4000 to 192000")
    if channels not in (1, 2, 4, 6):
        raise ValueError(f"channels {channels!r}: expected 1, 2, 4 or 6")
    mono = array.array("h", _mono(name, rate))
    if channels == 1:
        return mono
    out = array.array("h", bytes(2 * len(mono) * channels))
    for c in range(channels):
        out[c::channels] = mono
    return out


@lru_cache(maxsize=64)
def _mono(name: str, rate: int) -> bytes:
    """The rendered mono samples (made once per sound and rate)."""
    notes = _voice(name)
    frames = round(duration(name) * rate)
    mix = [0.0] * frames
    for note in notes:
        _add(mix, note, rate)
    loudest = max(abs(v) for v in mix) or 1.0
    scale = PEAK * FULL_SCALE / loudest
    return array.array("h", (round(v * scale) for v in mix)).tobytes()


def _add(mix: list[float], note: Note, rate: int) -> None:
    """Add ``note`` into ``mix`` (its samples only: silence before and after)."""
    start = round(note.at * rate)
    count = min(round(note.length * rate), len(mix) - start)
    attack = max(note.attack, FADE_S) * rate
    fade = FADE_S * rate
    phase = 0.0
    for i in range(count):
        t = i / count
        freq = note.freq * (1.0 + note.glide * t)
        phase += 2.0 * math.pi * freq / rate
        envelope = math.exp(-note.decay * t)
        if i < attack:
            envelope *= math.sin(0.5 * math.pi * i / attack) ** 2
        tail = count - 1 - i
        if tail < fade:
            envelope *= math.sin(0.5 * math.pi * tail / fade) ** 2
        wave = sum(a * math.sin(k * phase) for k, a in enumerate(note.partials, 1) if a)
        mix[start + i] += note.level * envelope * wave


NO_DEVICE = "no sound (no audio device found)"
"""Why there is no sound when :func:`audio_device_found` finds nothing to play on."""


def audio_device_found() -> bool:
    """Whether SDL may find somewhere to play sound: always outside Linux (the platform's own
    audio) and when the user has chosen a driver (``SDL_AUDIODRIVER``); on Linux, a sound
    server (PulseAudio or PipeWire: its address in the environment or its socket) or a sound
    card's playback device (ALSA's ``/dev/snd/pcmC*D*p``, OSS's ``/dev/dsp``)."""
    if sys.platform != "linux" or os.environ.get("SDL_AUDIODRIVER"):
        return True
    if os.environ.get("PULSE_SERVER") or os.environ.get("PIPEWIRE_REMOTE"):
        return True
    runtime = Path(os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}")
    sockets = (runtime / "pulse" / "native", runtime / "pipewire-0", Path("/run/pulse/native"),
               Path("/var/run/pulse/native"))
    if any(path.exists() for path in sockets):
        return True
    return any(Path("/dev/snd").glob("pcmC*D*p")) or Path("/dev/dsp").exists()


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Send what is written to file descriptor 2 (C libraries included) to a discarded file
    meanwhile. The whole process's stderr: keep it short, at start-up (the client opens the
    mixer before any network or analysis thread runs)."""
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no descriptor 2 at all: nothing to keep quiet
        yield
        return
    try:
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield
            finally:
                with contextlib.suppress(Exception):
                    sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


class Backend(Protocol):
    """Where sounds go: the real mixer (:class:`Mixer`), or a test's recorder."""

    def play(self, name: str, volume: float) -> None:
        """Start sound ``name`` at ``volume`` (0 to 1)."""


class Mixer:
    """pygame's mixer with every sound made for the format it opened in."""

    def __init__(self, sounds: dict[str, Any]) -> None:
        self.sounds = sounds

    @classmethod
    def open(cls) -> tuple[Mixer | None, str]:
        """Open the mixer (unless something already did) and make the sounds; ``(None, why)``
        when there is no audio (the client then runs silently). Quiet on stderr either way (see
        the module's docstring)."""
        import pygame

        try:
            if not pygame.mixer.get_init():
                if not audio_device_found():
                    return None, NO_DEVICE
                # allowedchanges=0: SDL converts to whatever the device wants, so the buffers
                # keep the format asked for here
                with quiet_stderr():
                    pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=512,
                                      allowedchanges=0)
            found = pygame.mixer.get_init()
            if not found:
                return None, "the audio mixer did not open"
            rate, size, channels = found
            if size != -16:
                return None, f"the audio mixer opened with samples of format {size}, not 16-bit"
            sounds = {name: pygame.mixer.Sound(buffer=pcm(name, rate, channels).tobytes())
                      for name in SOUND_NAMES}
        except Exception as exc:  # no device, no driver, a broken mixer: play nothing
            return None, f"no sound ({exc or type(exc).__name__})"
        return cls(sounds), ""

    def play(self, name: str, volume: float) -> None:
        """Start ``name`` at ``volume``; a mixer that fails now stays silent."""
        sound = self.sounds.get(name)
        if sound is None:
            return
        with contextlib.suppress(Exception):
            sound.set_volume(volume)
            sound.play()


class Sounds:
    """The client's sounds: :meth:`play` by name, as the config's ``sound`` and ``volume``
    settings say. Silent until :meth:`start` finds an audio device (or a backend is given)."""

    def __init__(self, config: Config, backend: Backend | None = None) -> None:
        self.config = config
        self.backend = backend
        self.problem = ""
        """Why there is no sound ("" when there is, or before :meth:`start`)."""

    def start(self) -> bool:
        """Open the mixer and make the sounds, once; returns whether sounds can be heard."""
        if self.backend is None:
            self.backend, self.problem = Mixer.open()
        return self.backend is not None

    def play(self, name: str) -> None:
        """Play sound ``name`` (one of :data:`SOUND_NAMES`; another name is a ``ValueError``)
        unless sound is off, the volume is zero or there is no audio."""
        _voice(name)
        if self.backend is None or not self.config.sound or self.config.volume <= 0:
            return
        self.backend.play(name, min(self.config.volume, 100) / 100)


VOLUME_STEP = 10
"""How much one press of ``-`` or ``+`` in a room changes the volume (0 to 100)."""


def label(on: bool) -> str:
    """The setting in words (a toggle button's label): ``Sound on`` or ``Sound off``."""
    return f"Sound {'on' if on else 'off'}"


def change_volume(config: Config, steps: int) -> tuple[bool, str]:
    """Make the sounds ``steps`` times :data:`VOLUME_STEP` louder (negative: softer), within 0
    to 100, and save it in the config file; returns whether it was saved and what to tell the
    user (the new level, or why it was not saved)."""
    config.volume = max(0, min(100, config.volume + steps * VOLUME_STEP))
    if not config.save():
        return False, config.problem
    if not config.sound:
        return True, f"Volume {config.volume}% (sound is off: V turns it on)."
    return True, f"Volume {config.volume}% (- and + change it)."


def toggle(config: Config) -> tuple[bool, str]:
    """Turn sound off, or on again, and save it in the config file; returns whether it was
    saved and what to tell the user (:func:`label`, or why it was not saved)."""
    config.sound = not config.sound
    if not config.save():
        return False, config.problem
    return True, label(config.sound)
