"""The replay says how the game ended in the same words as the room and its result panel (one
shared function), as a spectator reads them: by name, never "you"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pygame
import pytest

from client.scenes.replay import ReplayScene
from tests.client.conftest import UI, shoot
from tests.client.helpers import replay_lines

LOST = Path("/tmp/lost")
NAMES = {"first": "Alice", "second": "Bob"}


@pytest.mark.parametrize(("game", "moves", "result", "reason", "expected"), [
    ("chess", ["e2e4", "e7e5"], "second", "resign", "Alice resigned: Bob won"),
    ("chess", ["e2e4", "e7e5"], "first", "timeout", "Bob ran out of time: Alice won"),
    ("chess", ["f2f3", "e7e5", "g2g4", "d8h4"], "second", "checkmate",
     "Bob checkmated Alice: Bob won"),
    ("chess", ["e2e4"], "draw", "agreement", "Draw agreed"),
    ("chess", [], None, "aborted", "Game aborted before both sides moved"),
    ("chess", ["e2e4"], "first", None, "Alice won"),
])
def test_the_replay_says_the_end_as_the_room_does(
        ui: UI, monkeypatch: pytest.MonkeyPatch, game: str, moves: list[str],
        result: str | None, reason: str | None, expected: str) -> None:
    scene = ReplayScene(ui.app, game, None, None, moves, NAMES, result=result, reason=reason)
    lines = replay_lines(scene, monkeypatch)
    assert expected in lines, lines
    assert not any("you" in line.lower().split() for line in lines)


def test_replay_picture(ui: UI) -> None:
    """The replay of a resigned game, kept as a picture in /tmp/lost."""
    scene = ReplayScene(ui.app, "chess", None, None, ["e2e4", "e7e5"], NAMES, result="second",
                        reason="resign")
    ui.app.push(scene)
    shoot(ui.app, ui.tmp_path, "replay-resigned")
    picture = pygame.image.load(str(ui.tmp_path / "replay-resigned.png"))
    assert picture.get_size() == ui.app.surface.get_size()
    assert len({picture.get_at((x, 400))[:3] for x in range(0, 1280, 40)}) > 2  # not blank
    LOST.mkdir(parents=True, exist_ok=True)
    shutil.copy(ui.tmp_path / "replay-resigned.png", LOST / "replay-resigned.png")
