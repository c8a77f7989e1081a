"""A custom variant is labelled by its own name, never by 精班棋 (the name of one source of maps):
the room's header had 精班棋 under "Custom" for every variant. Now the line under the title is
the variant's name from its ``variant_info`` (the JBQ Chinese-chess map: "Xiangqi (JBQ rules)",
a map named by its file: "standard(7x7)", a shipped one: "River Stones"); the lobby's custom row
has no fixed subtitle (its variants are listed under it); the replay says the game and the
variant's name. The other games keep their Chinese names. A real server on loopback loads the
JBQ maps from /work/shared/jbq-maps (copied into the test's own folder, never into the repo)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.lobby import LobbyScene
from client.scenes.replay import ReplayScene
from client.scenes.room import RoomScene
from client.screenshot import save
from client.ui import draw, fonts
from tests.client.conftest import SHOTS
from tests.client.helpers import open_app, pump, room_of

MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
MAP_FILES = ("中国象棋.xlsx", "standard(7x7).xlsx")
JBQ = "精班棋"
needs_maps = pytest.mark.skipif(
    not all((MAPS / f).exists() for f in MAP_FILES), reason="the shared JBQ maps are not here"
)
needs_cjk = pytest.mark.skipif(not fonts.has_cjk(), reason="no CJK font: no Chinese names")


def texts_drawn(app: App, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, int]]]:
    """Every text ``app`` draws in one frame, with where."""
    seen: list[tuple[str, tuple[int, int]]] = []
    real = draw.text

    def recording(
        surface: pygame.Surface, value: str, pos: tuple[int, int], *args: Any, **kwargs: Any
    ) -> pygame.Rect:
        seen.append((value, pos))
        return real(surface, value, pos, *args, **kwargs)

    app.step(0.0)
    with monkeypatch.context() as patch:
        patch.setattr(draw, "text", recording)
        app.render()
    return seen


@pytest.fixture
def maps_server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A real server whose custom variants include two JBQ maps."""
    variants = tmp_path / "variants"
    variants.mkdir()
    for name in MAP_FILES:
        shutil.copy(MAPS / name, variants / name)
    server = EmbeddedServer(db=tmp_path / "db.sqlite", variants=variants).start()
    yield server
    server.stop()


@needs_maps
@needs_cjk
@pytest.mark.parametrize(
    ("variant", "name"),
    [
        ("xiangqi-jbq", "Xiangqi (JBQ rules)"),
        ("standard-7x7", "standard(7x7)"),
        ("stones", "River Stones"),
    ],
)
def test_a_custom_variant_is_labelled_by_its_own_name(
    tmp_path: Path,
    maps_server: EmbeddedServer,
    monkeypatch: pytest.MonkeyPatch,
    variant: str,
    name: str,
) -> None:
    """The lobby draws no 精班棋 (chess keeps 国际象棋); Alice's room of ``variant`` has the
    variant's name under "Custom" and no 精班棋; its replay says "Custom · NAME"."""
    alice = open_app(tmp_path, "Alice", maps_server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = [t for t, _ in texts_drawn(alice, monkeypatch)]
        assert "国际象棋" in lobby and JBQ not in lobby
        save(alice, SHOTS / "subtitle-lobby-800x600.png", (800, 600))

        alice.send({"type": "create", "game": "custom", "variant": variant, "color": "first"})
        pump(alice, lambda: bool(alice.find(RoomScene)))
        room = room_of(alice)
        assert room.model.variant == variant and room.model.variant_info is not None
        header = texts_drawn(alice, monkeypatch)
        assert (name, (800, 58)) in header, header[:12]
        assert ("Custom", (800, 18)) in header, "the name is not said twice"
        assert not any(JBQ in t for t, _ in header)
        save(alice, SHOTS / f"subtitle-room-{variant}-800x600.png", (800, 600))

        m = room.model
        alice.push(
            ReplayScene(
                alice, m.game, m.variant, m.start, list(m.moves), variant_info=m.variant_info
            )
        )
        replay = [t for t, _ in texts_drawn(alice, monkeypatch)]
        assert f"Custom · {name}" in replay and not any(JBQ in t for t in replay)
        save(alice, SHOTS / f"subtitle-replay-{variant}-800x600.png", (800, 600))
    finally:
        alice.disconnect()


@needs_cjk
def test_the_other_games_keep_their_chinese_names(ui: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Number chess's room has 国际数棋 under its title, and its replay says so beside it."""
    from client.demo import demo_room

    room = ui.open_room(demo_room("shuqi", plies=2))
    assert ("国际数棋", (800, 58)) in texts_drawn(ui.app, monkeypatch)
    m = room.model
    ui.app.push(ReplayScene(ui.app, m.game, m.variant, m.start, list(m.moves)))
    assert "Number chess · 国际数棋" in [t for t, _ in texts_drawn(ui.app, monkeypatch)]
