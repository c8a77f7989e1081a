"""The sounds made in code (length, level, no clicks), the mixer failing gracefully, the
on/off and volume settings in the config file."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pygame
import pytest

from client import sounds
from client.config import DEFAULT_VOLUME, Config
from client.sounds import FULL_SCALE, PEAK, RATE, SOUND_NAMES, Mixer, Sounds, duration, pcm

EDGE = 0.01 * FULL_SCALE
"""A sample this close to zero at a sound's first or last frame makes no click."""


class Recorder:
    """A backend that records what it is asked to play."""

    def __init__(self) -> None:
        self.played: list[tuple[str, float]] = []

    def play(self, name: str, volume: float) -> None:
        self.played.append((name, volume))


def test_every_event_has_a_sound() -> None:
    assert set(SOUND_NAMES) == {"move", "capture", "check", "start", "end", "low_time", "notify"}


@pytest.mark.parametrize("name", SOUND_NAMES)
@pytest.mark.parametrize("rate", [RATE, 44_100, 48_000])
def test_synthesis_is_short_soft_and_click_free(name: str, rate: int) -> None:
    samples = pcm(name, rate)
    assert samples.typecode == "h" and samples.itemsize == 2
    assert 0.05 <= duration(name) <= 0.4
    assert len(samples) == round(duration(name) * rate)
    peak = max(abs(s) for s in samples)
    assert PEAK * FULL_SCALE * 0.98 <= peak <= PEAK * FULL_SCALE + 1 < FULL_SCALE
    assert abs(samples[0]) < EDGE and abs(samples[-1]) < EDGE
    # the first and last 2 ms ramp: no sudden jump from silence
    edge = rate // 500
    assert max(abs(s) for s in samples[:edge]) < 0.25 * FULL_SCALE
    assert max(abs(s) for s in samples[-edge:]) < 0.05 * FULL_SCALE


def test_sounds_differ_and_capture_is_lower_than_a_move() -> None:
    buffers = {name: pcm(name).tobytes() for name in SOUND_NAMES}
    assert len(set(buffers.values())) == len(SOUND_NAMES)

    def crossings(name: str) -> float:
        s = pcm(name)
        return sum(1 for a, b in itertools.pairwise(s) if (a < 0) != (b < 0)) / len(s)

    assert crossings("capture") < crossings("move")


def test_interleaved_channels_repeat_the_mono_samples() -> None:
    mono, stereo = pcm("move"), pcm("move", RATE, 2)
    assert len(stereo) == 2 * len(mono)
    assert stereo[0::2] == mono and stereo[1::2] == mono


@pytest.mark.parametrize(("args", "words"), [
    (("bleep",), "unknown sound 'bleep'"),
    (("move", 100), "sample rate 100"),
    (("move", 22_050.0), "sample rate 22050.0"),
    (("move", RATE, 3), "channels 3"),
])
def test_bad_requests_name_what_is_wrong(args: tuple[object, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        pcm(*args)  # type: ignore[arg-type]


def test_play_follows_the_settings(tmp_path: Path) -> None:
    config = Config(path=tmp_path / "c.json")
    recorder = Recorder()
    player = Sounds(config, recorder)
    player.play("move")
    assert recorder.played == [("move", DEFAULT_VOLUME / 100)]
    config.volume = 35
    player.play("capture")
    config.sound = False
    player.play("end")
    config.sound, config.volume = True, 0
    player.play("end")
    assert recorder.played == [("move", DEFAULT_VOLUME / 100), ("capture", 0.35)]
    with pytest.raises(ValueError, match="unknown sound 'boom'"):
        player.play("boom")
    assert len(recorder.played) == 2


def test_no_audio_device_plays_nothing_and_never_raises(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    pygame.mixer.quit()

    def refuse(*args: object, **kwargs: object) -> None:
        raise pygame.error("No available audio device")

    monkeypatch.setattr(pygame.mixer, "init", refuse)
    player = Sounds(Config(path=tmp_path / "c.json"))
    assert player.start() is False
    assert "No available audio device" in player.problem
    for name in SOUND_NAMES:
        player.play(name)  # silently nothing


def test_a_mixer_that_cannot_make_sounds_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    pygame.mixer.quit()

    def broken(*args: object, **kwargs: object) -> None:
        raise pygame.error("Unable to create sound")

    monkeypatch.setattr(pygame.mixer, "Sound", broken)
    mixer, why = Mixer.open()
    assert mixer is None and "Unable to create sound" in why
    pygame.mixer.quit()


def test_the_dummy_audio_driver_plays_every_sound(tmp_path: Path) -> None:
    """SDL_AUDIODRIVER=dummy (tests/conftest.py): a real mixer opens and plays each sound."""
    pygame.mixer.quit()
    try:
        player = Sounds(Config(path=tmp_path / "c.json"))
        assert player.start() is True and player.problem == ""
        assert isinstance(player.backend, Mixer)
        found = pygame.mixer.get_init()
        assert found is not None
        rate, _, channels = found
        for name in SOUND_NAMES:
            sound = player.backend.sounds[name]
            assert sound.get_raw() == pcm(name, rate, channels).tobytes()
            player.play(name)
        player.backend.play("move", 0.5)
    finally:
        pygame.mixer.quit()


def test_the_settings_are_kept_in_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    config = Config.load(path)
    assert (config.sound, config.volume) == (True, DEFAULT_VOLUME)
    saved, words = sounds.toggle(config)
    assert saved and words == "Sound off"
    assert json.loads(path.read_text())["sound"] is False
    assert Config.load(path).sound is False
    saved, words = sounds.toggle(config)
    assert saved and words == "Sound on" and Config.load(path).sound is True


@pytest.mark.parametrize(("stored", "sound", "volume"), [
    ({"sound": False, "volume": 30}, False, 30),
    ({"sound": "no", "volume": 0}, True, 0),
    ({"volume": 100}, True, 100),
    ({"volume": 101}, True, DEFAULT_VOLUME),
    ({"volume": -1}, True, DEFAULT_VOLUME),
    ({"volume": True}, True, DEFAULT_VOLUME),
    ({"volume": "loud"}, True, DEFAULT_VOLUME),
    ({"volume": 50.5}, True, DEFAULT_VOLUME),
])
def test_odd_sound_settings_in_the_file_read_as_defaults(
        tmp_path: Path, stored: dict[str, object], sound: bool, volume: int) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(stored))
    config = Config.load(path)
    assert (config.sound, config.volume, config.problem) == (sound, volume, "")


def test_a_toggle_that_cannot_be_saved_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "config.json"
    folder.mkdir()  # the file's name is a folder: nothing can be written there
    config = Config(path=folder)
    saved, words = sounds.toggle(config)
    assert not saved and "Could not save your settings" in words
    assert config.sound is False  # this run stays as asked


def test_the_lobby_and_the_room_switch_sound_off_and_on(ui: Any, tmp_path: Path) -> None:
    """The lobby's Sound button and the room's V (also offline) flip the same saved setting;
    each shows it."""
    from client.demo import demo_room
    from client.net import NetEvent

    lobby = ui.open_lobby()
    assert lobby.sound_button.label == "Sound on"
    ui.click(lobby.sound_button.rect.center)
    assert ui.app.config.sound is False and lobby.sound_button.label == "Sound off"
    assert json.loads((tmp_path / "config.json").read_text())["sound"] is False
    assert lobby.status.startswith("Sound off")
    ui.shoot("sound-lobby-off")

    room = ui.open_room(demo_room("chess", plies=3))
    button = next(b for b in room.buttons() if b.action == "sound")
    assert (button.label, button.hint, button.enabled) == ("Sound off", "V", True)
    ui.app.dispatch_net(NetEvent("reconnecting", text="Connection lost; reconnecting…"))
    ui.key(pygame.K_v)
    assert ui.app.config.sound is True and button.label == "Sound 80%"
    assert room.message == "Sound on, volume 80% (- and + change it) (V turns it off)."
    assert json.loads((tmp_path / "config.json").read_text())["sound"] is True
    ui.shoot("sound-room-on")
    ui.app.pop(room)
    assert lobby.sound_button.label == "Sound on"  # the lobby shows what the room set


START_THE_CLIENT = """
import sys
from pathlib import Path

import pygame

from client.app import App
from client.config import Config
from client.sounds import SOUND_NAMES

app = App(Config(path=Path(sys.argv[1])))
for name in SOUND_NAMES:
    app.sounds.play(name)
app.step(0.0)
print(app.sounds.backend is not None)
print(app.sounds.problem)
pygame.quit()
"""
"""A client with a (dummy-driver) window: it opens the mixer as the real one does, plays every
sound, draws a frame and quits."""


def start_the_client(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run :data:`START_THE_CLIENT` in a fresh Python whose environment has no audio driver
    chosen and no sound server (``env`` adds to it), capturing its file descriptors 1 and 2."""
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items()
             if k not in {"SDL_AUDIODRIVER", "PULSE_SERVER", "PIPEWIRE_REMOTE", "AUDIODEV"}}
    clean |= {"SDL_VIDEODRIVER": "dummy", "XDG_RUNTIME_DIR": str(run),
              "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
              "PYGAME_HIDE_SUPPORT_PROMPT": "1", **env}
    return subprocess.run([sys.executable, "-c", START_THE_CLIENT, str(tmp_path / "c.json")],
                          env=clean, capture_output=True, text=True, timeout=60)


NO_SOUND_CARD = not any(Path("/dev/snd").glob("pcmC*D*p")) and not Path("/dev/dsp").exists()


@pytest.mark.skipif(not NO_SOUND_CARD, reason="this machine has a sound card")
def test_a_client_without_an_audio_device_starts_quietly_and_stays_silent(
        tmp_path: Path) -> None:
    """No sound card, no sound server (this machine, a headless box): the client starts
    without a line on stderr (no "ALSA lib ..." from SDL's probing), says why there is no
    sound, and playing every sound is harmless."""
    done = start_the_client(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    heard, problem = done.stdout.splitlines()
    assert heard == "False" and problem == "no sound (no audio device found)"


@pytest.mark.skipif(not NO_SOUND_CARD, reason="this machine has a sound card")
def test_a_sound_server_that_is_not_there_is_probed_quietly(tmp_path: Path) -> None:
    """A PulseAudio socket left behind (a file, no server): SDL is let try its drivers, and
    what they print while failing (ALSA's complaints) does not reach stderr."""
    (tmp_path / "run" / "pulse").mkdir(parents=True)
    (tmp_path / "run" / "pulse" / "native").write_text("")
    done = start_the_client(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    heard, problem = done.stdout.splitlines()
    assert heard == "False" and problem.startswith("no sound (")


def test_an_audio_driver_the_user_chose_is_used(tmp_path: Path) -> None:
    """SDL_AUDIODRIVER set (here the dummy driver, which always opens): the client asks for no
    device of its own and the mixer opens with it, quietly."""
    done = start_the_client(tmp_path, SDL_AUDIODRIVER="dummy")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines() == ["True", ""]


@pytest.mark.skipif(not NO_SOUND_CARD, reason="this machine has a sound card")
@pytest.mark.parametrize(("env", "socket", "found"), [
    ({}, "", False),
    ({"SDL_AUDIODRIVER": "alsa"}, "", True),  # the user's choice is tried
    ({"PULSE_SERVER": "tcp:10.0.0.2"}, "", True),
    ({}, "pulse/native", True),
    ({}, "pipewire-0", True),
])
def test_where_an_audio_device_may_be(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      env: dict[str, str], socket: str, found: bool) -> None:
    """The mixer is opened only where there may be somewhere to play: a driver chosen, a sound
    server's address or socket, a sound card."""
    for name in ("SDL_AUDIODRIVER", "PULSE_SERVER", "PIPEWIRE_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    if socket:
        (tmp_path / socket).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / socket).touch()
    assert sounds.audio_device_found() is found
