"""Chess records: PGN export (tags, SAN, clocks) and import of PGN or FEN (strict)."""

from __future__ import annotations

import io
import json

import chess
import chess.pgn
import pytest

from engines.base import BadPosition, RecordInfo
from engines.chess import ENGINE

FOOLS_MATE = ("f2f3", "e7e5", "g2g4", "d8h4")
CASTLE_FEN = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"
CHESS960_FEN = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"


def parse(pgn: str) -> chess.pgn.Game:
    """Read ``pgn`` with python-chess, insisting on no errors."""
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None and game.errors == []
    return game


def test_finished_game_pgn_has_the_tags_san_and_clocks() -> None:
    """Seven tag roster, Termination, TimeControl, SAN moves and [%clk] comments."""
    info = RecordInfo(
        variant="standard",
        start=chess.STARTING_FEN,
        moves=FOOLS_MATE,
        first_name="Ann",
        second_name="Bob",
        result="second",
        reason="checkmate",
        date="2026.11.22",
        time_control="300+3",
        clocks_ms=(299_000, 3_599_999, 61_000, 5_400),
    )
    pgn = ENGINE.record(info)
    game = parse(pgn)
    assert dict(game.headers) == {
        "Event": "Boardhall game",
        "Site": "Boardhall",
        "Date": "2026.11.22",
        "Round": "?",
        "White": "Ann",
        "Black": "Bob",
        "Result": "0-1",
        "Termination": "normal",
        "TimeControl": "300+3",
    }
    assert "1. f3 { [%clk 0:04:59] } 1... e5 { [%clk 0:59:59] } 2. g4" in pgn
    assert "Qh4#" in pgn and pgn.rstrip().endswith("0-1")
    assert [node.clock() for node in game.mainline()] == [299, 3599, 61, 5]
    assert [m.uci() for m in game.mainline_moves()] == list(FOOLS_MATE)
    assert "checkmate" in game.end().comment


@pytest.mark.parametrize(
    ("result", "reason", "tag_result", "termination"),
    [
        ("first", "timeout", "1-0", "time forfeit"),
        ("draw", "timeout_vs_insufficient", "1/2-1/2", "time forfeit"),
        ("draw", "agreement", "1/2-1/2", "normal"),
        ("second", "resign", "0-1", "normal"),
        ("first", "abandoned", "1-0", "abandoned"),
        (None, "aborted", "*", "unterminated"),
        (None, None, "*", "unterminated"),
    ],
)
def test_result_and_termination_tags(
    result: str | None, reason: str | None, tag_result: str, termination: str
) -> None:
    """Result and the PGN-standard Termination value follow the outcome."""
    info = RecordInfo(
        variant="standard",
        start=chess.STARTING_FEN,
        moves=("e2e4",),
        result=result,  # type: ignore[arg-type]
        reason=reason,
    )
    game = parse(ENGINE.record(info))
    assert game.headers["Result"] == tag_result
    assert game.headers["Termination"] == termination
    assert "TimeControl" not in game.headers and "FEN" not in game.headers
    assert game.headers["Date"] == "????.??.??"


def test_non_standard_start_writes_fen_and_setup() -> None:
    """A game from a set-up position carries FEN and SetUp, and replays from it."""
    info = RecordInfo(variant="standard", start=CASTLE_FEN, moves=("e8c8", "e1g1"))
    pgn = ENGINE.record(info)
    game = parse(pgn)
    assert game.headers["FEN"] == CASTLE_FEN and game.headers["SetUp"] == "1"
    assert "1... O-O-O 2. O-O" in pgn
    assert ENGINE.position(ENGINE.from_record(pgn)) == game.end().board().fen()


def test_record_refuses_an_illegal_move() -> None:
    """A record whose moves do not replay is refused, naming the move."""
    info = RecordInfo(variant="standard", start="", moves=("e2e4", "e2e4"))
    with pytest.raises(BadPosition, match=r"record move 2 \('e2e4'\)"):
        ENGINE.record(info)


def test_pgn_round_trip_gives_the_final_state() -> None:
    """from_record(record(game)) is the game's final state, outcome included."""
    state = ENGINE.start()
    for move in FOOLS_MATE:
        state = ENGINE.play(state, move)
    info = RecordInfo(variant="standard", start="", moves=FOOLS_MATE, result="second")
    loaded = ENGINE.from_record(ENGINE.record(info))
    assert loaded == state
    outcome = ENGINE.outcome(loaded)
    assert outcome is not None and outcome.reason == "checkmate"


def test_pgn_import_keeps_repetition_history() -> None:
    """An imported game knows its recent positions: the next repetition is recognised."""
    pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 *"
    state = ENGINE.from_record(pgn)
    assert state.ply == 6 and state.tail == ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6")
    assert ENGINE.outcome(ENGINE.play(state, "Ng1")) is None
    outcome = ENGINE.outcome(ENGINE.play(ENGINE.play(state, "Ng1"), "Ng8"))
    assert outcome is not None and outcome.reason == "repetition"


def test_pgn_import_goes_past_unclaimed_draws() -> None:
    """Over-the-board games continue after an unclaimed repetition; import follows them."""
    pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 *"
    state = ENGINE.from_record(pgn)
    assert state.last_move == "e2e4" and ENGINE.outcome(state) is None


def test_from_record_reads_a_fen_and_a_json_record() -> None:
    """A bare FEN or the generic JSON record is accepted as well."""
    assert ENGINE.position(ENGINE.from_record(f"  {CASTLE_FEN}\n")) == CASTLE_FEN
    record = json.dumps({"game": "chess", "moves": ["e2e4", "e7e5"]})
    assert ENGINE.from_record(record).last_move == "e7e5"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1. e4 e5 2. Qxf7 *", "illegal san: 'Qxf7'"),
        ("hello world", "no PGN game found"),
        ("", "no PGN game found"),
        ('[Variant "Crazyhouse"]\n\n1. e4 *', "not standard chess"),
        ('[Variant "Chess960"]\n[FEN "' + CHESS960_FEN + '"]\n\n*', "not standard chess"),
        ('[SetUp "1"]\n[FEN "8/8/8/8/8/8/8/8 w - - 0 1"]\n\n1. e4 *', "FEN tag: impossible"),
        ('[SetUp "1"]\n[FEN "not a fen"]\n\n*', "FEN tag: expected 'w' or 'b'"),
        ("1. e4 " * 10_000, "at most"),
        # python-chess passes over what its token pattern does not match: named, not dropped
        ("1. e4 zz5", "'zz5' is not a move"),
        ("1. e4 e5 2. zz5 Nc6 *", "'zz5' is not a move"),  # not "illegal san: 'Nc6'"
        ("1. e4 e5 2. Nf3x Nc6 *", "'Nf3x' is not a move"),
        ('[White "a"]\n\n1. e4 { a comment } e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. 0-0 k1 *',
         "'k1' is not a move"),
    ],
)
def test_bad_pgn_is_refused_with_the_reason(text: str, why: str) -> None:
    """Any problem python-chess collects, or no game at all, is a BadPosition naming it."""
    with pytest.raises(BadPosition) as info:
        ENGINE.from_record(text)
    assert why.lower() in str(info.value).lower()
    assert str(info.value).startswith(("bad PGN", "no PGN", "a record"))


def test_lichess_style_pgn_is_read() -> None:
    """A typical exported PGN with comments, NAGs, clocks and a result reads cleanly."""
    pgn = """[Event "Rated Blitz game"]
[Site "https://lichess.org/abcdefgh"]
[White "a"]
[Black "b"]
[Result "1-0"]

1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] } 2. Bc4 $1 Nc6 3. Qh5 Nf6?? 4. Qxf7# 1-0
"""
    state = ENGINE.from_record(pgn)
    outcome = ENGINE.outcome(state)
    assert state.ply == 7 and outcome is not None and outcome.winner == "first"


@pytest.mark.parametrize(
    ("text", "plies"),
    [
        ("1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Bxc6+ dxc6 1/2-1/2", 8),  # move numbers without spaces
        ("1. e4 { a comment\nover two lines } 1... e5 2. Nf3 (2. Nc3 Nf6 (2... d6)) Nc6 $1 *", 4),
        ("1. e4 d5 2. e5 f5 3. exf6 e.p. *", 5),
        ("%an escaped line\n1. e4 e5 ; the rest is a comment, zz5 included\n2. Nf3 *", 3),
        ("1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0", 7),
        ("1. e4 e5 2. Nf3 +- Nc6 = 3. Bb5 ± ½-½", 5),  # evaluation signs some programs write
        ('\ufeff[Event "x"]\n[Site "?"]\n\n1. e4 e5 *', 2),  # a byte-order mark
        ('[Event "x"]\n\n1. e4 *\n\n[Event "y"]\n\n1. d4 zz5 *', 1),  # only the first game
    ],
)
def test_pgn_as_programs_write_it_is_read_whole(text: str, plies: int) -> None:
    """Move numbers, comments, variations, NAGs, e.p., check signs and evaluation signs are
    PGN, not mistakes: the strict reading takes them."""
    assert ENGINE.from_record(text).ply == plies


@pytest.mark.parametrize(
    ("text", "why"),
    [
        # python-chess ignores a ')' that closes no variation: ')f3' was read as the move f3
        ("1. e4 e5 2. )f3 *", "')' closes no variation"),
        ("1. e4 ) e5 *", "')' closes no variation"),
        # and a '(' before any move: the 'variation' was read as the main line
        ("( 1. e4 ) e5 *", "'(' before the first move"),
        # the same inside a variation: '( (' made python-chess read e5 into the main line
        ("1. e4 ( ( 1. d4 ) e5 ) 2. Nf3 *", "'(' before the first move of its line"),
        ("1. e4 e5 2. Nf3 ( 2. Nc3 Nf6", "'(' is never closed"),
        # after an illegal move its reader closed the main line itself, then crashed (IndexError)
        ('[Event "x"]\n\n1. 4 e5 2. )f3*', "bad PGN"),
        ("1. e4 e5 2. Qxf7 ) Nc6 *", "illegal san: 'Qxf7'"),
    ],
)
def test_unbalanced_variations_are_refused(text: str, why: str) -> None:
    """Parentheses that do not pair up are garbled movetext, refused by name, never a crash."""
    with pytest.raises(BadPosition) as info:
        ENGINE.from_record(text)
    assert why.lower() in str(info.value).lower()


def test_a_fen_tag_cut_short_is_refused() -> None:
    """The FEN tag is read like a position string: no side to move is guessed."""
    with pytest.raises(BadPosition, match=r"FEN tag: .*missing: side to move"):
        ENGINE.from_record('[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/R3K3"]\n\n*')
    state = ENGINE.from_record('[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/8/R3K3 b - -"]\n\n*')
    assert state.fen == "4k3/8/8/8/8/8/8/R3K3 b - - 0 1"


def test_move_numbers_in_other_digits_are_not_passed_over() -> None:
    """``١.`` (an Arabic-Indic one) is no PGN move number: named, not read past."""
    with pytest.raises(BadPosition, match=r"'١\.' is not a move"):
        ENGINE.from_record("١. e4 e5 *")
