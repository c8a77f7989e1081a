"""Replay reads a draughts PDN record (what ``GET /games/ID`` serves for draughts by default) as
it reads a chess PGN: from a file, an http URL and the lobby, with the same strictness."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

import engines
from client.scenes.replay import RecordError, ReplayScene, fetch_record, parse_record
from engines.base import RecordInfo
from tests.client.helpers import FixedAnswer, fixed_http

START = "W:W21-27,29-32:B1-8,10-12"
"""A brazilian start with Black's 9 gone (so the record carries a FEN tag)."""
MOVES = ("22-18", "12-16", "18-14", "10x17", "21x14")


def pdn_record() -> str:
    """The engine's own PDN of a short brazilian game, as the server exports it."""
    info = RecordInfo(variant="brazilian", start=START, moves=MOVES, first_name="Ann",
                      second_name="Ben", result="second", reason="resign")
    return engines.get("draughts").record(info)


def test_a_pdn_record_is_read_with_its_moves_tags_variant_and_start() -> None:
    text = pdn_record()
    assert '[GameType "26"]' in text and '[FEN "' in text
    record = parse_record(text)
    assert record["game"] == "draughts" and record["variant"] == "brazilian"
    assert record["moves"] == list(MOVES)
    assert record["names"] == {"first": "Ann", "second": "Ben"}
    assert record["result"] == "second"
    engine = engines.get("draughts")
    assert record["start"] == engine.position(engine.start("brazilian", position=START))


def test_a_plain_international_pdn_and_a_draw_are_read() -> None:
    record = parse_record('[White "A"]\n[Black "B"]\n[Result "1-1"]\n\n1. 32-28 19-23 2. 28x19 '
                          "14x23 1-1\n")
    assert (record["game"], record["variant"]) == ("draughts", "international")
    assert record["moves"] == ["32-28", "19-23", "28x19", "14x23"]
    assert record["result"] == "draw"
    # moves alone, no tag: still a draughts record, not a broken PGN
    assert parse_record("1. 32-28 19-23 *")["moves"] == ["32-28", "19-23"]
    # --game draughts says what a bare record is
    assert parse_record("1. 32-28", "draughts")["moves"] == ["32-28"]


@pytest.mark.parametrize(("text", "problem"), [
    ('[GameType "26"]\n\n1. 22-18 zz5 *', "record move 2 ('zz5') is illegal"),
    ('[GameType "26"]\n\n1. 22-18 12-16 2. 18-99 *', "record move 3 ('18-99') is illegal"),
    ('[GameType "99"]\n\n1. 32-28 *', "GameType '99' is not a draughts variant"),
    ('[FEN "W:W99:B1"]\n\n1. 32-28 *', "99"),
    ('[GameType "20"]\n\n1. 32-28 {never closed', "unclosed '{' comment"),
])
def test_a_bad_pdn_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(RecordError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_record(text)


def test_the_replay_command_reads_a_pdn_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from client.app import App
    from client.cli import main

    shown: list[Any] = []
    monkeypatch.setattr(App, "run", lambda self: shown.append(self.top))
    good = tmp_path / "game.pdn"
    good.write_text(pdn_record(), encoding="utf-8")
    assert main(["replay", str(good)]) == 0
    scene = shown[0]
    assert isinstance(scene, ReplayScene)
    assert (scene.game, scene.variant, scene.moves, scene.error) == (
        "draughts", "brazilian", list(MOVES), "")
    assert scene.names == {"first": "Ann", "second": "Ben"}
    bad = tmp_path / "bad.pdn"
    bad.write_text('[GameType "26"]\n\n1. 22-18 12-16 2. 18-99 *\n', encoding="utf-8")
    assert main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: record move 3 ('18-99') is illegal" in err


def test_the_replay_help_names_pdn(capsys: pytest.CaptureFixture[str]) -> None:
    from client.cli import main

    with pytest.raises(SystemExit):
        main(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "PDN" in out and "PGN" in out and "JSON" in out


@pytest.fixture
def pdn_server() -> Iterator[str]:
    """An http server answering every GET with the PDN record, as ``GET /games/ID`` does."""
    pdn = FixedAnswer(200, pdn_record().encode(), "text/plain; charset=utf-8")
    with fixed_http(pdn):
        yield f"http://127.0.0.1:{pdn.port}/games/g1"


def test_a_pdn_served_over_http_replays(pdn_server: str) -> None:
    record = fetch_record(pdn_server)
    assert (record["game"], record["variant"], record["moves"]) == (
        "draughts", "brazilian", list(MOVES))


def test_the_lobby_replays_a_pdn_file(ui: Any, tmp_path: Path) -> None:
    path = tmp_path / "game.pdn"
    path.write_text(pdn_record(), encoding="utf-8")
    lobby = ui.open_lobby()
    ui.click(lobby.replay_source.rect.center)
    ui.type(str(path))
    ui.key(pygame.K_RETURN)
    scene = ui.app.top
    assert isinstance(scene, ReplayScene), getattr(lobby, "status", "")
    assert (scene.game, scene.moves, scene.error) == ("draughts", list(MOVES), "")
    bad = tmp_path / "bad.pdn"
    bad.write_text('[GameType "26"]\n\n1. 22-18 zz5 *\n', encoding="utf-8")
    ui.app.pop(scene)
    lobby.replay_source.value = ""
    ui.click(lobby.replay_source.rect.center)
    ui.type(str(bad))
    ui.key(pygame.K_RETURN)
    assert ui.app.top is lobby
    assert "Cannot replay bad.pdn: record move 2 ('zz5') is illegal" in lobby.status


@pytest.mark.parametrize("typed", ["/tmp/no-such-dir/game.pgn", "~/games/typo.pdn",
                                   "game.json", "ws://127.0.0.1:8765/games/g1"])
def test_the_lobby_says_a_record_file_is_missing(ui: Any, typed: str) -> None:
    """A path or URL typed into Replay that names no file is said to be no file, not sent to
    the server as a game id (which answered 'cannot fetch .../games/%2Ftmp%2F...: no game with
    that id'); game ids are letters and digits."""
    lobby = ui.open_lobby()
    ui.click(lobby.replay_source.rect.center)
    ui.type(typed)
    ui.key(pygame.K_RETURN)
    assert ui.app.top is lobby and lobby.fetch is None
    assert lobby.status == (f"No record file {typed}: type the path of a JSON, PGN or PDN "
                            "file, or a game id (letters and digits).")


def test_a_draughts_replay_calls_its_coordinates_numbers_as_the_room_does(ui: Any) -> None:
    """The room's K button reads "Numbers on" in draughts (its squares are numbered) but the
    replay's read "Coords on"; both now say "Numbers" for draughts, "Coords" for the rest."""
    ui.open_lobby()
    scene = ReplayScene.from_record(ui.app, parse_record(pdn_record()))
    ui.app.push(scene)
    button = next(b for b in scene.buttons if b.action == "coords")
    assert (button.label, button.short) == ("Numbers on", "Numbers")
    ui.key(pygame.K_k)
    assert button.label == "Numbers off" and not scene.coordinates
    chess = ReplayScene.from_record(ui.app, parse_record("1. e4 e5 2. Nf3 Nc6"))
    assert next(b for b in chess.buttons if b.action == "coords").label == "Coords on"
