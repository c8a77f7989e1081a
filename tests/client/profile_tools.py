"""Helpers shared by the profile card tests: the card once read, the card reading a fixed
server's answer, and the card rendered at window sizes with its lines checked."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from client.app import App
from client.local import EmbeddedServer
from client.profile import ProfileFetch
from client.scenes.lobby import LobbyScene
from client.scenes.profile_card import ProfileCard
from tests.client.helpers import FixedAnswer, open_app, pump
from tests.client.window_tools import on_window, render_at


@contextmanager
def seeded_server_app(tmp_path: Path, seed: Callable[[Path], None]) -> Iterator[App]:
    """Alice's app in the lobby of a real server whose database ``seed`` filled first."""
    db = tmp_path / "games.db"
    seed(db)
    embedded = EmbeddedServer(db=db).start()
    alice = open_app(tmp_path, "Alice", embedded.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        yield alice
    finally:
        alice.disconnect()
        embedded.stop()


def card_of(app: App) -> ProfileCard:
    """The profile card on top, once its profile has been read."""
    card = app.top
    assert isinstance(card, ProfileCard), card
    pump(app, lambda: not card.loading)
    assert card.summary is not None, card.error
    return card


def look(
    app: App,
    card: ProfileCard,
    name: str,
    tmp_path: Path,
    sizes: tuple[tuple[int, int], ...] | list[tuple[int, int]] = ((1280, 800), (640, 480)),
) -> None:
    """Render the card at ``sizes`` (PNGs kept in ``tmp_path`` and /tmp/polish): every line
    drawn inside the card stays inside it and overlaps no other (but for a button's label and
    key, whose boxes the shared button draws a pixel apart or so at 640x480: they stay inside
    the button)."""
    for size in sizes:
        lines = render_at(app, size, name)
        shutil.copy(
            Path("/tmp/polish") / f"{name}-{size[0]}x{size[1]}.png",
            tmp_path / f"{name}-{size[0]}x{size[1]}.png",
        )
        area = on_window(card.card, size)
        buttons = [on_window(card.back.rect, size), on_window(card.replay.rect, size)]
        inside = [(value, rect) for _, value, rect in lines if area.colliderect(rect)]
        assert inside, size
        for value, rect in inside:
            assert area.contains(rect), (size, value, rect, area)
        assert [v for v, r in inside if buttons[0].contains(r)] == ["Back", "Esc"], size
        assert [v for v, r in inside if buttons[1].contains(r)] == ["Replay", "Enter"], size
        for i, (a_value, a) in enumerate(inside):
            for b_value, b in inside[i + 1 :]:
                if not any(box.contains(a) and box.contains(b) for box in buttons):
                    assert not a.colliderect(b), (size, a_value, b_value)


def card_answering(app: App, lobby: LobbyScene, answer: FixedAnswer) -> ProfileCard:
    """p-x's card over ``lobby``, its profile read from the fixed server of ``answer`` (the
    game records from the app's real server)."""
    lobby.open_profile("p-x", "?")
    card = app.top
    assert isinstance(card, ProfileCard)
    card.fetch = ProfileFetch(f"ws://127.0.0.1:{answer.port}/", "p-x", None)
    return card_of(app)
