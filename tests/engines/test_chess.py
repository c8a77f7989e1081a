"""Chess engine: rules, notation, FEN checks, outcomes and timeouts (RULES.md section 1)."""

from __future__ import annotations

import dataclasses
import random

import chess
import pytest

from engines import registry
from engines.base import BadOption, BadPosition, IllegalMove, UnknownVariant
from engines.chess import ENGINE, ChessState
from engines.chess.position import fen_of

START = chess.STARTING_FEN
CASTLE_FEN = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


def play_all(moves: list[str], fen: str | None = None) -> ChessState:
    """Play ``moves`` from ``fen`` (default the standard start)."""
    state = ENGINE.start(position=fen)
    for move in moves:
        state = ENGINE.play(state, move)
    return state


def illegal_reason(fen: str | None, move: str) -> str:
    """The message of the IllegalMove that playing ``move`` raises."""
    with pytest.raises(IllegalMove) as info:
        ENGINE.play(ENGINE.start(position=fen), move)
    return str(info.value)


# ---- interface -------------------------------------------------------------------------------


def test_registry_serves_the_chess_engine_built_on_python_chess() -> None:
    """engines.get('chess') is this engine, and `import chess` inside it is python-chess."""
    assert registry.get("chess") is ENGINE
    assert ENGINE.game == "chess"
    assert [v.id for v in ENGINE.variants()] == ["standard"]
    assert hasattr(chess, "Board") and chess.__name__ == "chess"


def test_start_state_fields() -> None:
    """The start state is White to move, ply 0, no last move, standard FEN."""
    state = ENGINE.start()
    assert (state.turn, state.ply, state.last_move) == ("first", 0, None)
    assert ENGINE.position(state) == START
    assert len(ENGINE.legal_moves(state)) == 20


def test_unknown_variant_and_options_are_refused() -> None:
    """Only the standard variant exists and chess has no options."""
    with pytest.raises(UnknownVariant, match="chess960"):
        ENGINE.start("chess960")
    with pytest.raises(BadOption, match="speed"):
        ENGINE.start(options={"speed": 1})
    assert ENGINE.start("standard") == ENGINE.start("")


def test_play_returns_a_new_state_and_leaves_the_old_one_alone() -> None:
    """States are frozen values: play never changes the state it was given."""
    state = ENGINE.start()
    before = dataclasses.replace(state)
    after = ENGINE.play(state, "e2e4")
    assert state == before and ENGINE.position(state) == START
    assert (after.turn, after.ply, after.last_move) == ("second", 1, "e2e4")
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.ply = 5  # type: ignore[misc]
    assert hash(after) == hash(ENGINE.play(ENGINE.start(), "e4"))


def test_board_copies_are_private() -> None:
    """Mutating the board a state hands out does not change the state."""
    state = ENGINE.play(ENGINE.start(), "e4")
    board = state.board()
    board.push_san("e5")
    assert ENGINE.position(state) == state.board().fen() != board.fen()


# ---- notation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fen", "text", "uci"),
    [
        (START, "e2e4", "e2e4"),
        (START, "Nf3", "g1f3"),
        (START, " g1f3 ", "g1f3"),
        (CASTLE_FEN, "O-O", "e1g1"),
        (CASTLE_FEN, "0-0-0", "e1c1"),
        (CASTLE_FEN, "e1g1", "e1g1"),
        (CASTLE_FEN, "e1h1", "e1g1"),  # python-chess accepts king-takes-rook in standard too
        ("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1", "exd8=Q+", "e7d8q"),
        ("3r3k/4P3/8/8/8/8/8/K7 w - - 0 1", "e7d8n", "e7d8n"),
        ("k7/8/8/3pP3/8/8/8/K7 w - d6 0 2", "exd6", "e5d6"),
    ],
)
def test_uci_and_san_are_accepted_and_canonical_output_is_uci(
    fen: str, text: str, uci: str
) -> None:
    """UCI and SAN both work; last_move is always UCI with castling as the king's move."""
    assert ENGINE.play(ENGINE.start(position=fen), text).last_move == uci


def test_bad_syntax_says_how_to_write_a_move() -> None:
    """Text that is no move names the notations."""
    for text in ("hello", "e9e4", "", "Nc3x", "P@e4", "e2e4e5e6e7e8e9e1e2"):
        assert "is not a chess move" in illegal_reason(None, text)
    assert "write UCI like e2e4" in illegal_reason(None, "xyz")


@pytest.mark.parametrize("text", ["0000", "--", "Z0", "@@@@", "a1a1"])
def test_null_moves_are_refused(text: str) -> None:
    """python-chess's null-move spellings are not moves in a game."""
    assert "not a chess move" in illegal_reason(None, text)


@pytest.mark.parametrize(
    ("fen", "text", "why"),
    [
        (START, "e2e5", "the pawn on e2 cannot move there"),
        (START, "e7e5", "it is White's move"),
        (START, "e3e4", "there is no piece on e3"),
        (START, "e1g1", "castling is not possible now"),
        (START, "Qh5", "no legal move fits it"),
        ("k7/4P3/8/8/8/8/8/5K2 w - - 0 1", "e7e8", "must promote"),
        ("k7/8/8/8/8/8/8/1R2K3 w - - 0 1", "b1b2q", "only a pawn reaching the last rank promotes"),
        ("k7/8/8/8/8/8/8/4K2r w - - 0 1", "e1f1", "in check and this move does not parry it"),
        ("k7/8/8/8/4r3/8/4B3/4K3 w - - 0 1", "e2d3", "leave White's king in check"),
    ],
)
def test_illegal_moves_say_why_and_name_the_position(fen: str, text: str, why: str) -> None:
    """An illegal move names the reason and the position's FEN."""
    reason = illegal_reason(fen, text)
    assert why in reason
    assert "not legal here" in reason and chess.Board(fen).fen() in reason


def test_ambiguous_san_lists_the_candidates() -> None:
    """Nc3 with knights on b1 and d1 is ambiguous; the message lists both UCI moves."""
    fen = "k7/8/8/8/8/8/8/1N1N1K2 w - - 0 1"
    reason = illegal_reason(fen, "Nc3")
    assert "ambiguous" in reason and "b1c3, d1c3" in reason and fen in reason
    assert ENGINE.play(ENGINE.start(position=fen), "Nbc3").last_move == "b1c3"


def test_san_helper() -> None:
    """ENGINE.san gives the SAN of a legal move, for move lists."""
    assert ENGINE.san(ENGINE.start(), "g1f3") == "Nf3"
    assert ENGINE.san(ENGINE.start(position=CASTLE_FEN), "e1c1") == "O-O-O"


def test_en_passant_and_castling_rights() -> None:
    """En passant works right after the double step only; moving a rook loses that right."""
    state = play_all(["e4", "a6", "e5", "d5"])
    assert "e5d6" in ENGINE.legal_moves(state)
    later = play_all(["e4", "a6", "e5", "d5", "Nf3", "Nf6"])
    assert "e5d6" not in ENGINE.legal_moves(later)
    rook_moved = play_all(["Rh2", "Rh7", "Rh1", "Rh8"], CASTLE_FEN)
    assert "e1g1" not in ENGINE.legal_moves(rook_moved)
    assert "e1c1" in ENGINE.legal_moves(rook_moved)


# ---- positions -------------------------------------------------------------------------------


def test_fen_round_trips() -> None:
    """A valid FEN comes back unchanged from position()."""
    for fen in (
        START,
        CASTLE_FEN,
        "k7/8/8/3pP3/8/8/8/K7 w - d6 0 2",
        "8/8/8/8/8/8/8/K6k b - - 7 40",
    ):
        assert ENGINE.position(ENGINE.start(position=fen)) == fen


@pytest.mark.parametrize(
    ("fen", "problems"),
    [
        ("8/8/8/8/8/8/8/8 w - - 0 1", ["White has no king", "Black has no king", "empty"]),
        ("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", ["pawns stand on the first or eighth rank"]),
        ("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", ["the side not to move is in check"]),
        ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", ["castling rights"]),
        ("4k3/8/8/8/8/8/8/4KK2 w - - 0 1", ["more than one king"]),
        ("4k3/8/8/8/8/8/8/4K3 w - e3 0 1", ["en passant"]),
    ],
)
def test_impossible_positions_name_every_problem(fen: str, problems: list[str]) -> None:
    """A set-up position that python-chess finds invalid is refused with each problem named."""
    with pytest.raises(BadPosition) as info:
        ENGINE.start(position=fen)
    for problem in problems:
        assert problem in str(info.value)


@pytest.mark.parametrize(
    "fen",
    [
        "garbage",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
        "rnbqkbnr/ppppXppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "x" * 500,
    ],
)
def test_garbage_fen_is_a_bad_position(fen: str) -> None:
    """Unreadable FEN raises BadPosition quoting the problem."""
    with pytest.raises(BadPosition, match="FEN"):
        ENGINE.start(position=fen)


@pytest.mark.parametrize(
    ("fen", "missing"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "side to move, castling, en passant"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b", "castling, en passant"),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KQkq", "en passant"),
    ],
)
def test_a_fen_without_side_castling_or_en_passant_is_refused(fen: str, missing: str) -> None:
    """Nothing is guessed: a FEN cut short was read as White to move without castling rights.
    Only the two move counters may be left out (EPD style: 0 and 1)."""
    with pytest.raises(BadPosition, match=f"FEN .*missing: {missing}"):
        ENGINE.start(position=fen)
    epd = ENGINE.start(position="r3k2r/8/8/8/8/8/8/R3K2R b KQkq -")
    assert ENGINE.position(epd) == "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"


# ---- outcomes --------------------------------------------------------------------------------


def test_checkmate_highlights_the_mated_king() -> None:
    """Fool's mate: Black wins, the White king on e1 is highlighted, nothing more to play."""
    state = play_all(["f3", "e5", "g4", "Qh4#"])
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.highlight) == ("second", "checkmate", ("e1",))
    assert ENGINE.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="game is over"):
        ENGINE.play(state, "a3")


def test_stalemate_and_insufficient_material() -> None:
    """Stalemate and insufficient material end the game as draws."""
    stalemate = ENGINE.outcome(ENGINE.start(position="k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"))
    assert stalemate is not None and (stalemate.result, stalemate.reason) == ("draw", "stalemate")
    bare = play_all(["Kxb2"], "8/8/8/8/8/8/1r6/K6k w - - 0 1")
    outcome = ENGINE.outcome(bare)
    assert outcome is not None and (outcome.winner, outcome.reason) == (None, "insufficient")
    assert ENGINE.legal_moves(bare) == []
    assert ENGINE.outcome(ENGINE.start(position="8/8/8/8/8/8/1N6/K6k w - - 0 1")) is not None
    assert ENGINE.outcome(ENGINE.start(position="8/8/8/8/8/8/1R6/K6k w - - 0 1")) is None


def test_threefold_repetition_is_automatic() -> None:
    """Knights out and back: when the start position occurs a third time, it is a draw."""
    moves = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]
    state = play_all(moves)
    assert ENGINE.outcome(state) is None  # Ng8 would repeat, but Black may play on
    assert "f6g8" in ENGINE.legal_moves(state)
    state = ENGINE.play(state, "Ng8")
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason == "repetition" and outcome.winner is None
    board = chess.Board()
    for move in [*moves, "Ng8"]:
        board.push_san(move)
    assert board.is_repetition(3)  # the same judgement as python-chess


def test_repetition_history_is_cut_at_irreversible_moves() -> None:
    """A pawn move forgets earlier positions, as python-chess's repetition count does."""
    state = play_all(["Nf3", "Nf6", "Ng1", "Ng8", "e4"])
    assert state.tail == () and state.root == ENGINE.position(state)
    state = ENGINE.play(state, "Nf6")
    assert state.tail == ("g8f6",)


def test_fifty_move_rule_is_automatic() -> None:
    """The hundredth reversible half-move draws the game (not the 99th, whatever comes next)."""
    fen = "8/8/8/8/8/8/1R6/K6k w - - 98 80"
    assert ENGINE.outcome(ENGINE.start(position=fen)) is None
    state = play_all(["Rb3"], fen)
    assert ENGINE.outcome(state) is None and ENGINE.legal_moves(state)
    state = ENGINE.play(state, "Kh2")
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason == "fifty_moves"
    assert chess.Board(state.fen).is_fifty_moves()  # python-chess agrees
    assert ENGINE.outcome(ENGINE.start(position="8/8/8/8/8/8/1R6/K6k w - - 150 80")) is not None


def test_mate_on_the_hundredth_half_move_is_checkmate() -> None:
    """A mate that makes the half-move clock 100 is checkmate (FIDE 9.6.2), not a draw."""
    state = play_all(["Ra8#"], "7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason == "checkmate" and outcome.winner == "first"


def test_mate_beats_the_fifty_move_rule() -> None:
    """A mate that makes the half-move clock 99 is checkmate, not a fifty-move draw."""
    state = play_all(["Ra8#"], "7k/8/6K1/8/8/8/8/R7 w - - 98 80")
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.reason == "checkmate" and outcome.highlight == ("h8",)


@pytest.mark.parametrize(
    ("fen", "loser", "winner", "reason"),
    [
        (START, "first", "second", "timeout"),
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "second", "first", "timeout"),
        ("4k3/8/8/8/8/8/8/3QK3 w - - 0 1", "first", None, "timeout_vs_insufficient"),
        ("4k3/8/8/8/8/8/8/2N1K3 w - - 0 1", "second", None, "timeout_vs_insufficient"),
        ("4k3/7p/8/8/8/8/8/2N1K3 w - - 0 1", "second", "first", "timeout"),
    ],
)
def test_timeout_outcome(fen: str, loser: str, winner: str | None, reason: str) -> None:
    """The flagged side loses unless the other side has no mating material."""
    outcome = ENGINE.timeout_outcome(ENGINE.start(position=fen), loser)  # type: ignore[arg-type]
    assert (outcome.winner, outcome.reason) == (winner, reason)


def test_fen_of_matches_python_chess_on_random_games() -> None:
    """The fast FEN writer agrees with ``Board.fen()``: castling, legal en passant, counters."""
    rng = random.Random(11)
    seen_ep = False
    for _ in range(20):
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 200:
            assert fen_of(board) == board.fen()
            seen_ep = seen_ep or board.has_legal_en_passant()
            board.push(rng.choice(list(board.legal_moves)))
    assert seen_ep
    for fen in (CASTLE_FEN, "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"):
        board = chess.Board(fen)
        assert fen_of(board) == board.fen() == fen


def test_private_boards_are_never_shared_between_states() -> None:
    """Two moves from one state, and a rebuilt copy, each see their own history."""
    state = play_all(["Nf3", "Nf6", "Ng1"])
    a = ENGINE.play(state, "Ng8")
    b = ENGINE.play(state, "e6")
    assert state.board().move_stack == [chess.Move.from_uci(u) for u in state.tail]
    assert (a.tail, b.tail, b.root) == (("g1f3", "g8f6", "f3g1", "f6g8"), (), b.fen)
    assert a.board().fen() == a.fen and b.board().fen() == b.fen
    assert len(b.board().move_stack) == 0
    rebuilt = dataclasses.replace(a)
    assert rebuilt == a and rebuilt._board is not a._board
    assert rebuilt.board().move_stack == a.board().move_stack
    assert ENGINE.outcome(rebuilt) == ENGINE.outcome(a) is None


def test_repetition_is_seen_through_the_kept_board() -> None:
    """The third occurrence ends the game, as when the board was rebuilt from the record."""
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    state = play_all(shuffle * 2)
    assert ENGINE.outcome(state) is not None
    assert ENGINE.outcome(state) == ENGINE.outcome(dataclasses.replace(state))
    assert ENGINE.outcome(state).reason == "repetition"  # type: ignore[union-attr]
    assert ENGINE.legal_moves(state) == []


def test_from_record_builds_the_same_state_as_playing_the_moves() -> None:
    """A PGN replayed at once gives the state (root, tail, history) that playing its moves gives."""
    rng = random.Random(4)
    for _ in range(5):
        state = ENGINE.start()
        sans: list[str] = []
        while ENGINE.outcome(state) is None and state.ply < 160:
            uci = rng.choice(ENGINE.legal_moves(state))
            sans.append(ENGINE.san(state, uci))
            state = ENGINE.play(state, uci)
        numbered = [f"{i // 2 + 1}. {san}" if i % 2 == 0 else san for i, san in enumerate(sans)]
        replayed = ENGINE.from_record(" ".join(numbered) + " *")
        assert replayed == state and replayed.tail == state.tail
        assert replayed.board().move_stack == state.board().move_stack
        assert ENGINE.outcome(replayed) == ENGINE.outcome(state)
