"""A spectator's result panel offers only what a spectator can do (Replay, Close, Leave: no
Rematch, which only the players can ask for), its buttons filling the row as the players' do;
the players' panel keeps its four buttons."""

from __future__ import annotations

import itertools
from typing import Any

import pygame
import pytest

from client.demo import demo_room
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from tests.client.helpers import drawn
from tests.client.window_tools import render_at

SIZES = ((1280, 800), (800, 600))


def _result_panel(ui: Any, you: str | None) -> ResultPanel:
    """The panel shown when the demo chess game in room K7QD ends in a draw, to ``you``."""
    ui.open_room(demo_room("chess", plies=2, room="K7QD", you=you))
    ui.message(drawn("K7QD"))
    panel = ui.app.top
    assert isinstance(panel, ResultPanel)
    return panel


def test_a_spectator_sees_replay_close_and_leave(ui: Any) -> None:
    """Three buttons, side by side inside the card, as wide as the players' row; no "Rematch"
    drawn at either window size; M does nothing, L leaves."""
    panel = _result_panel(ui, None)
    assert [b.label for b in panel.buttons] == ["Replay", "Close", "Leave"]
    rects = [b.rect for b in panel.buttons]
    assert all(panel.card.contains(r) for r in rects)
    assert all(a.right < b.left for a, b in itertools.pairwise(rects))
    assert rects[0].left - panel.card.left == panel.card.right - rects[-1].right  # centred
    for size in SIZES:
        values = [value for _, value, _ in render_at(ui.app, size, "result-spectator")]
        assert "Rematch" not in values and "Accept" not in values, values
        assert {"Replay", "Close", "Leave"} <= set(values), values
    ui.key(pygame.K_m, "m")
    assert ui.app.top is panel and not ui.sent("offer")
    ui.key(pygame.K_l, "l")
    assert ui.sent("leave") and not isinstance(ui.app.top, ResultPanel)


@pytest.mark.parametrize("you", ["first", "second"])
def test_a_player_still_sees_rematch_first(ui: Any, you: str) -> None:
    """Rematch, Replay, Close, Leave; Rematch works."""
    panel = _result_panel(ui, you)
    assert [b.label for b in panel.buttons] == ["Rematch", "Replay", "Close", "Leave"]
    assert panel.buttons[0].enabled
    for size in SIZES:
        values = [value for _, value, _ in render_at(ui.app, size, f"result-player-{you}")]
        assert "Rematch" in values, values
    ui.key(pygame.K_m, "m")
    assert [m.get("kind") for m in ui.sent("offer")] == ["rematch"]
    assert isinstance(ui.app.top, RoomScene)
