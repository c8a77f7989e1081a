"""The result panel waits for the last move to land: a move that ends the game slides to its
square in full view, and only then is the board dimmed under the panel. The panel takes its keys
from the moment the end arrives (a real server on loopback; time is the apps' injected clock).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame

from client.scenes.lobby import LobbyScene
from client.scenes.result import ResultPanel
from client.scenes.room import BOARD_RECT, RoomScene
from tests.client.conftest import FakeClock, shoot
from tests.client.helpers import key, open_app, pump, room_of
from tests.client.slide_tools import finish_slide, step_slide

CORNER = (BOARD_RECT.left + 20, BOARD_RECT.top + 20)
"""A point of the board far from the panel's card: dimmed only under the panel's shade."""


def test_the_mating_move_lands_before_the_result_panel_dims_the_board(
    tmp_path: Path, embedded: Any
) -> None:
    """Fool's mate: Bob's 2...Qh4# reaches Carol (watching) and Alice (mated) with the end. On
    Carol's screen the queen slides in an undimmed board, the panel on the stack but not drawn;
    once the queen lands the board is dimmed and the panel shows. Alice presses M (Rematch) the
    instant the end arrives, mid-slide: the panel takes it (the offer is sent, the panel goes)."""
    clock_a, clock_c = FakeClock(), FakeClock()
    alice = open_app(tmp_path, "Alice", embedded.url, clock=clock_a)
    bob = open_app(tmp_path, "Bob", embedded.url)
    carol = open_app(tmp_path, "Carol", embedded.url, clock=clock_c)
    apps = [alice, bob, carol]
    try:
        pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
        alice.send({"type": "create", "game": "chess", "color": "first"})
        pump(apps, lambda: bool(alice.find(RoomScene)))
        code = room_of(alice).model.room
        bob.send({"type": "join", "room": code})
        carol.send({"type": "join", "room": code, "role": "spectator"})
        pump(
            apps,
            lambda: (
                all(a.find(RoomScene) for a in apps)
                and all(room_of(a).model.status == "playing" for a in apps)
            ),
        )
        for n, move in enumerate(("f2f3", "e7e5", "g2g4"), 1):
            room_of(alice if n % 2 else bob).send_move(move)
            pump(apps, lambda: all(len(room_of(a).model.moves) == n for a in apps))  # noqa: B023
        finish_slide(carol, clock_c, room_of(carol).slides)
        finish_slide(alice, clock_a, room_of(alice).slides)
        before = shoot(carol, tmp_path, "result-wait-before-the-mate").get_at(CORNER)

        room_of(bob).send_move("d8h4")
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
        a, c = room_of(alice), room_of(carol)
        assert c.model.reason == "checkmate" and c.move_landing()
        panels = carol.find(ResultPanel)
        assert panels and carol.top is panels[0], "the panel is there at once, taking keys"
        assert carol.visible_scenes() == [c], "but not drawn while the queen slides"
        step_slide(carol, clock_c, c.slides, 0.5)
        sliding = shoot(carol, tmp_path, "result-wait-queen-sliding")
        assert sliding.get_at(CORNER) == before, "the board is not dimmed during the slide"

        finish_slide(carol, clock_c, c.slides)
        assert not c.move_landing()
        assert carol.visible_scenes() == [c, panels[0]]
        landed = shoot(carol, tmp_path, "result-wait-panel-after-landing")
        assert sum(landed.get_at(CORNER)[:3]) < sum(before[:3]) - 30, "dimmed under the panel"

        assert a.move_landing() and isinstance(alice.top, ResultPanel)
        key(alice, pygame.K_m, "m")
        assert [m["kind"] for m in alice.sent if m.get("type") == "offer"] == ["rematch"]
        assert not alice.find(ResultPanel) and alice.top is a
    finally:
        for app in apps:
            app.disconnect()
