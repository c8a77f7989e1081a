"""Computer analysis in the replay: the A key (or the button) analyses the game on a thread,
the bar, the graph, the best-move arrow, the marked move list and the summary show it; a click
on the graph moves there; A again or leaving the replay stops it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

import engines
from client import screenshot
from client.scenes import analysis_panel
from client.scenes import replay as replay_module
from client.scenes.replay import ReplayScene
from client.ui import theme
from engines.custom import CustomEngine
from tests.client.conftest import UI
from tests.client.helpers import pump, replay_lines

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
NAMES = {"first": "Alice", "second": "Bob"}


def analysed(ui: UI, game: str, moves: list[str], nodes: int = 400) -> ReplayScene:
    """A replay of ``moves`` analysed to the end with ``nodes`` per position, started by A."""
    scene = ReplayScene(ui.app, game, None, None, moves, NAMES, result="second",
                        reason="checkmate")
    assert not scene.error
    scene.analysis_nodes = nodes
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    assert scene.analysis is not None
    pump(ui.app, lambda: scene.analysis is not None and scene.analysis.complete, 60)
    ui.app.step(0.0)
    return scene


def test_the_a_key_analyses_and_the_replay_shows_bar_graph_marks_and_summary(
        ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = analysed(ui, "chess", FOOLS_MATE)
    assert scene.analysis is not None and len(scene.analysis.evals) == 5
    assert scene.bar_rect() is not None and scene.graph_rect() is not None
    assert not scene.bar_rect().colliderect(scene.view.rect)  # type: ignore[union-attr]
    lines = replay_lines(scene, monkeypatch)
    assert "g4??" in lines, lines  # the move that allowed the mate
    assert "Qh4#" in lines
    alice = lines.index(next(line for line in lines if line.startswith("Alice:")))
    bob = lines.index(next(line for line in lines if line.startswith("Bob:")))
    assert lines[alice].endswith("% accuracy") and lines[bob].endswith("% accuracy")
    assert lines[alice + 1:alice + 4] == ["0 inaccuracies", "0 mistakes", "1 blunder"]
    assert lines[bob + 1:bob + 4] == ["0 inaccuracies", "0 mistakes", "0 blunders"]
    assert "Bob won" in " ".join(lines)  # the last position, the game over
    ui.key(pygame.K_LEFT)
    assert scene.index == 3
    assert any("Bob mates in 1" in line for line in lines + replay_lines(scene, monkeypatch))
    assert any("best Qh4#" in line for line in replay_lines(scene, monkeypatch))


def test_pressing_a_leaves_the_board_where_it_is(ui: UI) -> None:
    """The evaluation bar has its slot beside the board from the start, so pressing A neither
    moves nor resizes the board (nothing jumps under the pointer, and the frame in which A is
    pressed draws no board, piece or label at a new size)."""
    scene = ReplayScene(ui.app, "chess", None, None, FOOLS_MATE, NAMES)
    scene.analysis_nodes = 400
    ui.app.push(scene)
    assert scene.view is not None
    ui.shoot("replay-not-analysed")
    place = (scene.view.rect.copy(), scene.view.pixel_of("h8"))
    ui.key(pygame.K_a, "a")
    assert (scene.view.rect, scene.view.pixel_of("h8")) == place
    bar = scene.bar_rect()
    assert bar is not None and not bar.colliderect(scene.view.rect)
    pump(ui.app, lambda: scene.analysis is not None and scene.analysis.complete, 60)
    ui.app.step(0.0)
    ui.shoot("replay-analysed")
    assert (scene.view.rect, scene.view.pixel_of("h8")) == place


def test_the_best_move_is_drawn_on_the_board(ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = analysed(ui, "chess", FOOLS_MATE)
    scene.index = 3
    shown: list[str | None] = []
    real = analysis_panel.draw_best

    def spy(surface: Any, view: Any, game: str, best: str | None) -> None:
        shown.append(best)
        real(surface, view, game, best)

    monkeypatch.setattr(replay_module.analysis_panel, "draw_best", spy)
    assert scene.view is not None
    h4 = scene.view.pixel_of("g5")  # on the arrow's way from d8 to h4
    surface = pygame.Surface((1280, 800))
    scene.draw(surface)
    assert shown == ["d8h4"]
    before = pygame.Surface((1280, 800))
    scene.analysis = None
    scene.draw(before)
    assert surface.get_at(h4) != before.get_at(h4)


def test_a_click_on_the_graph_moves_to_that_ply(ui: UI) -> None:
    scene = analysed(ui, "chess", FOOLS_MATE)
    graph = scene.graph_rect()
    assert graph is not None
    ui.click((analysis_panel.graph_x(graph, 1, 4), graph.centery))
    assert scene.index == 1
    ui.click((graph.left + 1, graph.centery))
    assert scene.index == 0
    ui.click((graph.right - 1, graph.centery))
    assert scene.index == 4


def test_progress_shows_and_a_second_a_stops_it_and_a_third_goes_on(
        ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = ReplayScene(ui.app, "chess", None, None, FOOLS_MATE, NAMES)
    scene.analysis_nodes = 10**9  # would run for ever
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    run = scene.analysis
    assert run is not None and run.running
    assert "Analysing… 0/5" in replay_lines(scene, monkeypatch)
    ui.key(pygame.K_a, "a")
    run.wait(5)
    assert not run.running and run.evals == []
    assert not any(line.startswith("Analysing") for line in replay_lines(scene, monkeypatch))
    scene.analysis_nodes = 300
    run.nodes = 300
    ui.key(pygame.K_a, "a")
    pump(ui.app, lambda: run.complete, 30)
    assert scene.analysis is run and len(run.evals) == 5


def test_leaving_the_replay_stops_the_analysis(ui: UI) -> None:
    scene = ReplayScene(ui.app, "chess", None, None, FOOLS_MATE, NAMES)
    scene.analysis_nodes = 10**9
    ui.app.push(scene)
    ui.click(next(b for b in scene.buttons if b.action == "analyse").rect.center)
    run = scene.analysis
    assert run is not None and run.running
    ui.key(pygame.K_ESCAPE)
    assert scene not in ui.app.stack
    run.wait(5)
    assert not run.running and run.evals == []


@pytest.mark.parametrize(("game", "moves"), [
    ("hexgomoku", ["5,0", "1,0", "-3,3", "2,0", "3,-6", "3,0", "-5,2", "4,0", "-4,4", "0,0"]),
    ("draughts", ["32-28", "19-23", "28x19", "14x23", "37-32", "17-21"]),
])
def test_other_games_are_analysed_and_marked(ui: UI, monkeypatch: pytest.MonkeyPatch,
                                             game: str, moves: list[str]) -> None:
    scene = analysed(ui, game, moves, nodes=600)
    assert scene.analysis is not None and scene.analysis.complete
    lines = replay_lines(scene, monkeypatch)
    assert any(line.startswith("Alice:") for line in lines)
    if game == "hexgomoku":
        assert "-4,4??" in lines, lines  # the four left open


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_analysis_pictures(ui: UI, size: tuple[int, int]) -> None:
    """The analysed replay at both window sizes, kept as /tmp/analysis-*.png to look at."""
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "f3g5", "d7d5", "e4d5", "f6d5",
             "g5f7", "e8f7", "d1f3", "f7e6", "b1c3", "c6b4"]
    scene = analysed(ui, "chess", moves, nodes=800)
    scene.index = 11  # after Nxf7, marked
    out = ui.tmp_path / f"analysis-{size[0]}x{size[1]}.png"
    screenshot.save(ui.app, out, size)
    assert out.stat().st_size > 10_000
    shutil.copy(out, Path("/tmp") / out.name)


MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
CUSTOM_LINE = ["4,1-3,1", "1,7-2,6", "3,1-3,2", "2,2-3,3", "6,1-4,1", "1,1-2,2"]


@pytest.mark.skipif(not (MAPS / "standard(7x7).xlsx").exists(), reason="JBQ maps not available")
def test_a_custom_map_game_is_analysed(ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = engines.get("custom")
    assert isinstance(engine, CustomEngine)
    variant = engine.load_file(MAPS / "standard(7x7).xlsx")
    scene = ReplayScene(ui.app, "custom", variant, None, CUSTOM_LINE, NAMES,
                        variant_info=engine.variant_info(variant))
    scene.analysis_nodes = 400
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    pump(ui.app, lambda: scene.analysis is not None and scene.analysis.complete, 60)
    assert scene.analysis is not None and not scene.analysis.error
    assert scene.analysis.where == "process"  # its states (board-dependent rules) pickle
    scene.index = 2
    assert any("best " in line for line in replay_lines(scene, monkeypatch))
    ui.shoot("replay-custom-map-analysed")


def test_the_verdict_colours_stand_apart_from_the_shown_move() -> None:
    """An inaccuracy in lichess's blue read as the shown move (the accent) in the move list."""
    for color in analysis_panel.VERDICT_COLORS.values():
        assert sum(abs(a - b) for a, b in zip(color, theme.ACCENT, strict=True)) > 100


BACK_RANK = "6k1/5ppp/8/8/8/2n5/5PPP/R5K1 w - - 0 1"


def test_a_missed_mate_is_called_a_missed_win(ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = ReplayScene(ui.app, "chess", None, BACK_RANK, ["h2h3"], NAMES)
    scene.analysis_nodes = 400
    ui.app.push(scene)
    ui.key(pygame.K_a, "a")
    pump(ui.app, lambda: scene.analysis is not None and scene.analysis.complete, 60)
    scene.index = 1
    line = next((x for x in replay_lines(scene, monkeypatch) if x.startswith("h3")), "")
    assert line == "h3?? Missed win: Ra8# was best", line


def test_the_bar_and_graph_show_the_first_players_winning_chances() -> None:
    from engines.search.analysis import SCALES, PositionEval

    chess = SCALES["chess"]
    assert analysis_panel.share(PositionEval(0, None, "e2e4", "first"), chess) == 0.5
    assert analysis_panel.share(PositionEval(300, None, "e2e4", "first"), chess) == \
        pytest.approx(0.751, abs=0.001)
    assert analysis_panel.share(PositionEval(-1000, -2, "d8h4", "second"), chess) == 0.0
    assert analysis_panel.share(None, chess) == 0.5


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_the_summary_fits_its_row_at_both_sizes(ui: UI, size: tuple[int, int]) -> None:
    """Long names and every count: the row's texts stay inside the graph's width and apart."""
    from client.ui import draw

    scale = size[0] / 1280
    rect = pygame.Rect(800, 600, 464, 20)
    spans = analysis_panel.summary_spans(
        rect, "Maximilian-Alexander the Third", 87.4, {"inaccuracy": 12, "mistake": 3,
                                                      "blunder": 10}, scale)
    texts = [text for text, _, _ in spans]
    assert texts[0].startswith("Maximilian") and texts[0].endswith("87% accuracy")
    right = rect.left
    for text, x, _ in spans:
        assert x >= right, spans
        right = x + draw.text_extent(text, analysis_panel.SUMMARY_SIZE, scale)
    assert right <= rect.right, spans


def test_the_shown_moves_verdict_says_what_was_best(ui: UI,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    scene = analysed(ui, "chess", FOOLS_MATE)
    scene.index = 3  # after g4, the move that let the queen mate
    line = next((x for x in replay_lines(scene, monkeypatch) if x.startswith("g4??")), "")
    assert line.startswith("g4?? Blunder: ") and line.endswith(" was best"), line
    scene.index = 4  # after the mate: the best move, nothing to say
    assert not any(" was best" in x for x in replay_lines(scene, monkeypatch))


def test_a_stopped_analysis_says_so_and_claims_no_accuracy(
        ui: UI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopped after a few positions, the replay said "Alice: 100% accuracy, 0 blunders" from
    the moves judged so far, as if the game had been analysed. It says where the analysis
    stopped and that A goes on; once complete, the summary shows."""
    scene = analysed(ui, "chess", FOOLS_MATE, nodes=300)
    run = scene.analysis
    assert run is not None
    run.wait(10)
    whole = list(run.evals)
    run.evals[:] = whole[:2]  # as a search stopped after two positions leaves it
    assert not run.running and not run.complete
    lines = replay_lines(scene, monkeypatch)
    assert "Stopped at 2/5" in lines and "A goes on" in lines, lines
    assert not any("accuracy" in line or "blunder" in line for line in lines), lines
    run.evals[:] = whole
    assert any(line.endswith("% accuracy") for line in replay_lines(scene, monkeypatch))
