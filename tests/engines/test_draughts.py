"""Draughts engine: rules of RULES.md section 2, notation, positions, records, perft."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from engines import registry
from engines.__main__ import main as engines_cli
from engines.base import BadPosition, IllegalMove, RecordInfo, UnknownVariant
from engines.draughts import ENGINE, DraughtsState
from engines.draughts.fen import format_position, parse_position

DATA = Path(__file__).parent / "data" / "draughts_perft.txt"
NORMAL_RUN_NODES = 200_000
"""Depths with more leaves than this run only in the slow test."""


def perft_cases() -> list[tuple[str, str, list[int]]]:
    """The rows of the perft data file."""
    cases = []
    for line in DATA.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        variant, fen, counts = (part.strip() for part in line.split(";"))
        cases.append((variant, fen, [int(n) for n in counts.split()]))
    return cases


def play_all(state: DraughtsState, *moves: str) -> DraughtsState:
    """Play the moves in order."""
    for move in moves:
        state = ENGINE.play(state, move)
    return state


# ---- registry, variants, start ----------------------------------------------------------------


def test_registry_returns_the_draughts_engine() -> None:
    """engines.get("draughts") is this package's ENGINE."""
    assert registry.get("draughts") is ENGINE
    assert [v.id for v in ENGINE.variants()] == ["international", "brazilian", "russian"]
    assert ENGINE.default_variant() == "international"


def test_start_positions() -> None:
    """Black on 1-20 (1-12), White on 31-50 (21-32), White to move."""
    state = ENGINE.start()
    assert (state.variant, state.turn, state.ply, state.last_move) == (
        "international",
        "first",
        0,
        None,
    )
    assert ENGINE.position(state) == "W:W31-50:B1-20"
    for variant in ("brazilian", "russian"):
        assert ENGINE.position(ENGINE.start(variant)) == "W:W21-32:B1-12"
    assert ENGINE.legal_moves(state)[:3] == ["31-26", "31-27", "32-27"]


def test_unknown_variant_is_refused() -> None:
    """An unknown variant names the known ones."""
    with pytest.raises(UnknownVariant, match="international, brazilian, russian"):
        ENGINE.start("frisian")


def test_state_is_an_immutable_value() -> None:
    """play returns a new state and leaves the old one as it was."""
    state = ENGINE.start()
    after = ENGINE.play(state, "32-28")
    assert ENGINE.position(state) == "W:W31-50:B1-20"
    assert (after.turn, after.ply, after.last_move) == ("second", 1, "32-28")
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.ply = 3  # type: ignore[misc]
    assert hash(after) == hash(ENGINE.play(state, "32-28"))


# ---- movement and capture rules ---------------------------------------------------------------


def test_men_move_forward_only_and_kings_fly() -> None:
    """A man has its two forward steps; a king reaches every empty square on its diagonals."""
    man = ENGINE.start(None, "W:W28:B1")
    assert ENGINE.legal_moves(man) == ["28-22", "28-23"]
    black_man = ENGINE.start(None, "B:W50:B23")
    assert ENGINE.legal_moves(black_man) == ["23-28", "23-29"]
    king = ENGINE.start(None, "W:WK46:B3")
    assert ENGINE.legal_moves(king) == [f"46-{s}" for s in (5, 10, 14, 19, 23, 28, 32, 37, 41)]


def test_capture_is_compulsory() -> None:
    """With a capture on the board, a quiet move is refused and the error names the capture."""
    state = ENGINE.start(None, "W:W28,45:B23")
    assert ENGINE.legal_moves(state) == ["28x19"]
    with pytest.raises(IllegalMove, match=r"compulsory.*28x19"):
        ENGINE.play(state, "45-40")


def test_men_capture_backwards() -> None:
    """A man captures backwards too."""
    state = ENGINE.start(None, "W:W23:B28")
    assert ENGINE.legal_moves(state) == ["23x32"]


def test_king_captures_at_a_distance_and_lands_anywhere_beyond() -> None:
    """A flying king takes a far piece and may stop on any empty square behind it."""
    state = ENGINE.start(None, "W:WK46:B28")
    assert ENGINE.legal_moves(state) == ["46x5", "46x10", "46x14", "46x19", "46x23"]


def test_majority_capture_international_and_brazilian_not_russian() -> None:
    """The longest sequence is compulsory except in russian draughts."""
    assert ENGINE.legal_moves(ENGINE.start(None, "W:W28:B22,23,13")) == ["28x8"]
    assert ENGINE.legal_moves(ENGINE.start("brazilian", "W:W23:B18,19,11")) == ["23x7"]
    assert ENGINE.legal_moves(ENGINE.start("russian", "W:W23:B18,19,11")) == ["23x7", "23x14"]


def test_a_shorter_capture_is_refused_naming_the_majority_rule() -> None:
    """A capture the movement rules allow but the majority rule forbids is refused saying how
    many pieces it takes and that the most pieces must be taken, with the legal captures;
    shorter_captures lists such captures (none in russian draughts, where any capture goes)."""
    state = ENGINE.start(None, "W:W33,47:B28,42,32,5")
    assert ENGINE.legal_moves(state) == ["47x27"]
    assert [(m.text, m.captured) for m in ENGINE.shorter_captures(state)] == [
        ("33x22", (28,))
    ]  # not 47x38: a capture goes on while it can, majority rule or not
    refused = r"33x22 takes 1 piece: the most pieces must be taken, 2 \(47x27\)"
    with pytest.raises(IllegalMove, match=refused):
        ENGINE.play(state, "33x22")
    with pytest.raises(IllegalMove, match=r"28x17 takes 1 piece.*most pieces.*2.*28x8"):
        ENGINE.play(ENGINE.start(None, "W:W28:B22,23,13"), "28x17")
    with pytest.raises(IllegalMove, match="not a legal capture here"):
        ENGINE.play(state, "33x24")  # no capture at all: the plain refusal
    assert ENGINE.shorter_captures(ENGINE.start("russian", "W:W23:B18,19,11")) == ()


def test_majority_counts_pieces_so_a_king_counts_as_one() -> None:
    """Three men outweigh two kings; two kings and two men tie, and the player chooses."""
    more_men = ENGINE.start(None, "W:W33,36:BK28,K17,31,21,11")
    assert [(m.text, m.captured) for m in ENGINE.moves(more_men)] == [("36x7", (11, 21, 31))]
    tie = ENGINE.start(None, "W:W33,36:BK28,K17,31,21,12")
    assert ENGINE.legal_moves(tie) == ["33x11", "36x16"]


def test_a_flying_king_lands_only_where_it_can_capture_on() -> None:
    """After taking 38 the king may stop on 32, 27, 21 or 16; only from 27 can it take 13, so the
    sequence goes on from there and ends on either square beyond 13."""
    state = ENGINE.start(None, "W:WK49:B38,24,13")
    assert ENGINE.legal_moves(state) == ["49x4", "49x9"]
    assert {m.paths for m in ENGINE.moves(state)} == {((49, 27, 4),), ((49, 27, 9),)}


def test_circular_capture_is_one_move_that_ends_where_it_began() -> None:
    """Turkish strike: four pieces taken round a square, the start square crossed again.

    The clockwise and anticlockwise paths take the same pieces from 27 to 27: one move.
    """
    state = ENGINE.start(None, "W:W27:B22,23,32,33")
    (move,) = ENGINE.moves(state)
    assert move.text == "27x27"
    assert move.paths == ((27, 18, 29, 38, 27), (27, 38, 29, 18, 27))
    assert ENGINE.position(ENGINE.play(state, "27x27")) == "B:W27:B"
    # Full paths in either direction name the same move.
    assert ENGINE.play(state, "27x38x29x18x27") == ENGINE.play(state, "27x27")


def test_captured_pieces_stay_until_the_end_and_block() -> None:
    """A king that went round the same four pieces stops after four: none is jumped twice."""
    state = ENGINE.start(None, "W:WK27:B22,23,32,33")
    moves = ENGINE.moves(state)
    assert {m.captured for m in moves} == {(22, 23, 32, 33)}
    assert [m.text for m in moves] == ["27x16", "27x21", "27x27", "27x31", "27x36"]


def test_a_captured_piece_blocks_the_way_back() -> None:
    """After 37x46 (taking 41) the king may not fly back over 41 to take 19: 41 is still there.

    Were pieces removed at once, 37x46x14 would take two and be compulsory.
    """
    state = ENGINE.start(None, "W:WK37:B41,19")
    assert ENGINE.legal_moves(state) == ["37x5", "37x10", "37x14", "37x46"]
    assert all(len(m.captured) == 1 for m in ENGINE.moves(state))


def test_no_promotion_in_passing_international_and_brazilian() -> None:
    """A man that crosses the far row mid-capture stays a man; one ending there is crowned."""
    passing = ENGINE.start(None, "W:W12:B8,9")
    assert ENGINE.position(ENGINE.play(passing, "12x14")) == "B:W14:B"
    ending = ENGINE.start(None, "W:W12:B8")
    assert ENGINE.position(ENGINE.play(ending, "12x3")) == "B:WK3:B"
    brazil = ENGINE.start("brazilian", "W:W10:B7,8")
    assert ENGINE.position(ENGINE.play(brazil, "10x12")) == "B:W12:B"


def test_russian_promotion_in_passing_continues_as_king() -> None:
    """Russian: crowned on reaching the far row, the piece goes on capturing as a king."""
    state = ENGINE.start("russian", "W:W10:B7,8")
    assert ENGINE.position(ENGINE.play(state, "10x12")) == "B:WK12:B"
    # As a king it flies: after 9x2 (crowned) it takes 11 from afar and may land on 16 or 20.
    flying = ENGINE.start("russian", "W:W9:B6,11")
    assert ENGINE.legal_moves(flying) == ["9x16", "9x20"]
    assert ENGINE.position(ENGINE.play(flying, "9x2x16")) == "B:WK16:B"
    # Where crowning waits for the end, the man stops on 2 and is crowned there.
    assert ENGINE.legal_moves(ENGINE.start("brazilian", "W:W9:B6,11")) == ["9x2"]


def test_quiet_move_onto_the_far_row_crowns() -> None:
    """A man stepping onto the far row becomes a king."""
    state = ENGINE.start(None, "W:W7:B45")
    assert ENGINE.position(ENGINE.play(state, "7-1")) == "B:WK1:B45"
    black = ENGINE.start("russian", "B:W5:B27")
    assert ENGINE.position(ENGINE.play(black, "27-31")) == "W:W5:BK31"


# ---- notation -----------------------------------------------------------------------------------

AMBIGUOUS = "W:WK45,K44:B33,K34,K28,21,5"


def test_ambiguous_short_form_is_refused_with_the_choices() -> None:
    """Two captures 45 -> 16 taking different pieces: the short form is refused."""
    state = ENGINE.start(None, AMBIGUOUS)
    assert ENGINE.legal_moves(state) == ["45x23x32x16", "45x29x38x16"]
    with pytest.raises(IllegalMove, match=r"ambiguous.*45x23x32x16, 45x29x38x16"):
        ENGINE.play(state, "45x16")
    after = ENGINE.play(state, "45x29x38x16")
    assert after.last_move == "45x29x38x16"
    assert ENGINE.position(after) == "B:WK16,K44:B5,K28"


def test_full_path_is_always_accepted_and_canonical_is_short() -> None:
    """A full path of an unambiguous capture plays it; last_move is the short form."""
    state = ENGINE.start(None, "W:W28:B22,23,13")
    after = ENGINE.play(state, "28x19x8")
    assert after.last_move == "28x8"
    assert after == ENGINE.play(state, "28x8")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a draughts move"),
        ("e3-d4", "not a draughts move"),
        ("32--28", "not a draughts move"),
        ("51-46", "off the board"),
        ("0-5", "off the board"),
        ("32x28", "no capture here"),
        ("32-27-21", "write a move as from-to"),
        ("28-22", "not legal here"),
        ("x" * 300, "too long"),
    ],
)
def test_bad_move_texts_are_refused_with_a_reason(text: str, reason: str) -> None:
    """Bad syntax, squares off the board and illegal moves raise IllegalMove naming why."""
    with pytest.raises(IllegalMove, match=reason):
        ENGINE.play(ENGINE.start(), text)


def test_wrong_capture_path_is_refused() -> None:
    """A path that is not a legal capture lists the legal ones."""
    state = ENGINE.start(None, "W:W28:B22,23,13")
    with pytest.raises(IllegalMove, match=r"not a legal capture path.*28x8"):
        ENGINE.play(state, "28x17x8")
    with pytest.raises(IllegalMove, match="not a legal capture here"):
        ENGINE.play(state, "28x26")


def test_move_text_is_case_and_space_tolerant() -> None:
    """Surrounding spaces and an upper-case X are read."""
    state = ENGINE.start(None, "W:W28:B23")
    assert ENGINE.play(state, " 28X19 ").last_move == "28x19"


# ---- positions ----------------------------------------------------------------------------------


def test_position_string_reads_both_orders_ranges_kings_and_empty_lists() -> None:
    """Lists in either order, ranges, K prefixes and an empty list all parse."""
    state = ENGINE.start(None, "B:B1-3,K10:WK45,31-33")
    assert state.turn == "second"
    assert ENGINE.position(state) == "B:W31-33,K45:B1-3,K10"
    assert ENGINE.position(ENGINE.start(None, "W:W:B1")) == "W:W:B1"
    assert ENGINE.position(ENGINE.start(None, "W:W31,32,33,34:B5")) == "W:W31-34:B5"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a PDN FEN"),
        ("X:W31:B1", "not a PDN FEN"),
        ("W:W31", "not a PDN FEN"),
        ("W:W31:X1", "must start with W or B"),
        ("W:W31:W32", "listed twice"),
        ("W:W31:H0", "black list is missing"),
        ("W:W31,31:B1", "listed twice in the white list"),
        ("W:W31:B31", "listed for both sides"),
        ("W:W51:B1", "off the board"),
        ("W:W0:B1", "off the board"),
        ("W:W40-31:B1", "runs backwards"),
        ("W:W3:B40", "white man on 3 stands on its crowning row"),
        ("W:W30:B47", "black man on 47 stands on its crowning row"),
        ("W:Wa1:B1", "not a square"),
        ("W:W:B", "no pieces"),
        ("W:W31:B1" + "," * 2000, "too long"),
        ("W:W3 1:B1", "'3 1' in the white list is not a square"),
        ("W:W31-4 0:B1", "'31-4 0' in the white list is not a square"),
    ],
)
def test_bad_positions_are_refused_with_a_reason(text: str, reason: str) -> None:
    """Garbage position strings raise BadPosition naming what is wrong."""
    with pytest.raises(BadPosition, match=reason):
        ENGINE.start(None, text)


def test_spaces_around_squares_are_read_but_never_glue_digits() -> None:
    """Spaces beside separators and after K are harmless; '3 1' is no square (not 31)."""
    state = ENGINE.start(None, " W : W 31 , 32 ,K 33 : B 1 - 3 ")
    assert ENGINE.position(state) == "W:W31-32,K33:B1-3"


def test_eight_by_eight_squares() -> None:
    """On 8 x 8 the squares are 1-32."""
    with pytest.raises(BadPosition, match="off the board"):
        ENGINE.start("russian", "W:W33:B1")
    with pytest.raises(IllegalMove, match=r"off the board \(1-32\)"):
        ENGINE.play(ENGINE.start("russian"), "33-29")


# ---- the end of the game ------------------------------------------------------------------------


def test_no_pieces_or_no_moves_loses() -> None:
    """The side to move with no piece or no move loses (reason no_moves)."""
    gone = ENGINE.play(ENGINE.start(None, "W:W28:B23"), "28x19")
    over = ENGINE.outcome(gone)
    assert over is not None and (over.winner, over.reason) == ("first", "no_moves")
    assert ENGINE.legal_moves(gone) == []
    blocked = ENGINE.start(None, "W:W46:B41,37")
    over = ENGINE.outcome(blocked)
    assert over is not None and (over.winner, over.reason) == ("second", "no_moves")
    with pytest.raises(IllegalMove, match="game is over"):
        ENGINE.play(gone, "19-14")


@pytest.mark.parametrize(
    ("variant", "position", "winner"),
    [
        ("international", "W:W31:B", "first"),
        ("international", "B:W:BK1", "second"),
        ("russian", "W:WK29:B", "first"),
    ],
)
def test_a_side_without_pieces_has_lost_even_when_not_to_move(
    variant: str, position: str, winner: str
) -> None:
    """A player with no pieces loses: the game does not go on for the side to move."""
    state = ENGINE.start(variant, position)
    over = ENGINE.outcome(state)
    assert over is not None and (over.winner, over.reason) == (winner, "no_moves")
    assert ENGINE.legal_moves(state) == [] and ENGINE.perft(state, 1) == 0
    with pytest.raises(IllegalMove, match="game is over"):
        ENGINE.play(state, "31-26")


def wander(state: DraughtsState, plies: int) -> DraughtsState:
    """Play ``plies`` quiet king moves, each to a position not seen before and leaving the
    opponent no capture (a depth-first search over the legal moves)."""
    found = _walk(state, plies, set(state.history))
    if found is None:
        raise AssertionError(f"no {plies}-ply king walk from {ENGINE.position(state)}")
    return found


def _walk(
    state: DraughtsState, plies: int, seen: set[tuple[int, int, int, bool]]
) -> DraughtsState | None:
    if plies == 0:
        return state
    setup = ENGINE.setup(state)
    kings = setup.white_kings | setup.black_kings
    for move in ENGINE.moves(state):
        if move.is_capture or move.frm not in kings:
            continue
        after = ENGINE.apply(state, move)
        if after.key in seen or any(m.is_capture for m in ENGINE.moves(after)):
            continue
        seen.add(after.key)
        found = _walk(after, plies - 1, seen)
        if found is not None:
            return found
        seen.discard(after.key)
    return None


def test_threefold_repetition_draws() -> None:
    """The same position with the same side to move a third time is a draw."""
    state = ENGINE.start(None, "W:WK46,K50,31:BK1,K3,20")
    shuffle = ("46-41", "1-7", "41-46", "7-1")
    state = play_all(state, *shuffle)
    assert ENGINE.outcome(state) is None
    state = play_all(state, *shuffle[:3])
    assert ENGINE.outcome(state) is None
    state = ENGINE.play(state, shuffle[3])
    over = ENGINE.outcome(state)
    assert over is not None and (over.result, over.reason) == ("draw", "repetition")
    assert ENGINE.legal_moves(state) == []


def test_repetition_counts_only_with_the_same_side_to_move() -> None:
    """White's king cycles 46-37-28 (three moves), Black's 3-9 (two): the start placement stands
    again at plies 5, 12 and 17, twice with each side to move, and is no draw; at ply 24 it
    stands a third time with White to move, and that is the threefold repetition."""
    state = ENGINE.start(None, "W:WK46,35,45:BK3,6,16")
    placement = (state.white, state.black, state.kings)
    white, black = ("46-37", "37-28", "28-46"), ("3-9", "9-3")
    seen = []
    for ply in range(1, 25):
        assert ENGINE.outcome(state) is None, ply
        move = white[(ply - 1) // 2 % 3] if ply % 2 else black[(ply // 2 - 1) % 2]
        state = ENGINE.play(state, move)
        if (state.white, state.black, state.kings) == placement:
            seen.append((ply, state.turn))
    assert seen == [(5, "second"), (12, "first"), (17, "second"), (24, "first")]
    over = ENGINE.outcome(state)
    assert over is not None and (over.result, over.reason) == ("draw", "repetition")


def test_man_move_clears_the_repetition_history() -> None:
    """Positions before a man move cannot repeat: the history restarts."""
    state = play_all(ENGINE.start(None, "W:WK46,K50,31:BK1,K3,20"), "46-41", "1-7", "31-27")
    assert state.history == (state.key,)
    assert state.kings_plies == 0


def test_twenty_five_king_moves_each_draw_on_ten_by_ten() -> None:
    """50 plies of king moves without capture: kings_only (men on the board do not matter)."""
    start = ENGINE.start(None, "W:WK46,K50,31,32:BK1,K5,19,20")
    before = wander(start, 49)
    assert before.kings_plies == 49 and ENGINE.outcome(before) is None
    over = ENGINE.outcome(wander(before, 1))
    assert over is not None and (over.result, over.reason) == ("draw", "kings_only")


def test_fifteen_king_moves_each_draw_on_eight_by_eight() -> None:
    """30 plies of king moves without capture draw russian and brazilian games."""
    for variant in ("russian", "brazilian"):
        start = ENGINE.start(variant, "W:WK29,K32,21:BK1,K4,12")
        before = wander(start, 29)
        assert ENGINE.outcome(before) is None
        over = ENGINE.outcome(wander(before, 1))
        assert over is not None and over.reason == "kings_only"


@pytest.mark.parametrize(
    ("fen", "plies", "reason"),
    [
        ("W:WK47,K49,K45:BK3", 32, "endgame_16"),
        ("W:WK47,K49,33:BK3", 32, "endgame_16"),
        ("W:WK47,33,34:BK3", 32, "endgame_16"),
        ("B:WK48:BK4,K1,K6", 32, "endgame_16"),
        ("W:WK47,K49:BK3", 10, "endgame_5"),
        ("W:WK47,38:BK3", 10, "endgame_5"),
        ("W:WK47:BK3", 10, "endgame_5"),
    ],
)
def test_small_endgames_draw_on_ten_by_ten(fen: str, plies: int, reason: str) -> None:
    """16 moves each: 3 kings, 2 kings + man, king + 2 men against a lone king; 5 moves each:
    2 kings, king + man, king against a lone king."""
    before = wander(ENGINE.start(None, fen), plies - 1)
    assert ENGINE.outcome(before) is None
    over = ENGINE.outcome(wander(before, 1))
    assert over is not None and (over.result, over.reason) == ("draw", reason)


def test_small_endgames_do_not_apply_on_eight_by_eight() -> None:
    """Two kings against one on 8 x 8 play on past 5 moves each (until the 15-move rule)."""
    for variant in ("brazilian", "russian"):
        state = wander(ENGINE.start(variant, "W:WK29,K32:BK1"), 29)
        assert state.material_plies == 29 and ENGINE.outcome(state) is None


def test_endgame_count_starts_when_the_material_changes() -> None:
    """The 16-move count starts at the capture that leaves a lone king."""
    state = wander(ENGINE.start(None, "W:WK46,K50,K45:BK1,28"), 0)
    state = ENGINE.play(state, "46x19")
    assert (state.material_plies, state.kings_plies) == (0, 0)
    before = wander(state, 31)
    assert ENGINE.outcome(before) is None
    over = ENGINE.outcome(wander(before, 1))
    assert over is not None and over.reason == "endgame_16"


def test_promotion_restarts_the_endgame_count() -> None:
    """Crowning a man changes the material, so the count starts again."""
    state = ENGINE.start(None, "W:WK46,K50,7:BK35")
    state = wander(state, 4)
    assert state.material_plies == 4
    state = ENGINE.play(state, "7-1")
    assert state.material_plies == 0


# ---- records ------------------------------------------------------------------------------------

GAME = ("32-28", "19-23", "28x19", "14x23", "37-32", "10-14")


def test_record_writes_pdn_tags_and_numbered_moves() -> None:
    """A finished international game as PDN: the tag roster, GameType 20, numbered moves."""
    info = RecordInfo(
        variant="international",
        start="W:W31-50:B1-20",
        moves=GAME,
        first_name="Ann",
        second_name='Bob "B"',
        result="first",
        reason="resign",
        date="2026.11.22",
    )
    text = ENGINE.record(info)
    assert text.splitlines()[:7] == [
        '[Event "Boardhall game"]',
        '[Site "Boardhall"]',
        '[Date "2026.11.22"]',
        '[White "Ann"]',
        '[Black "Bob \\"B\\""]',
        '[Result "2-0"]',
        '[GameType "20"]',
    ]
    assert "FEN" not in text
    assert text.rstrip().endswith("1. 32-28 19-23 2. 28x19 14x23 3. 37-32 10-14 2-0")
    final = ENGINE.from_record(text)
    assert ENGINE.position(final) == ENGINE.position(play_all(ENGINE.start(), *GAME))
    assert final.ply == 6 and final.last_move == "10-14"


def test_record_from_a_position_with_black_to_move() -> None:
    """A non-standard start adds FEN; black's first move is numbered 1...; russian is 25."""
    start = "B:W21-32:B1-11,16"
    info = RecordInfo(variant="russian", start=start, moves=("16-20", "23-18"), result="draw")
    text = ENGINE.record(info)
    assert '[GameType "25"]' in text and f'[FEN "{start}"]' in text
    assert '[Date "????.??.??"]' in text
    assert text.rstrip().endswith("1... 16-20 2. 23-18 1-1")
    final = ENGINE.from_record(text)
    assert final.variant == "russian"
    assert ENGINE.position(final) == ENGINE.position(
        play_all(ENGINE.start("russian", start), "16-20", "23-18")
    )
    brazil = ENGINE.record(RecordInfo(variant="brazilian", start="W:W21-32:B1-12", moves=()))
    assert '[GameType "26"]' in brazil and brazil.rstrip().endswith("*")


def test_from_record_reads_comments_variations_and_a_bare_position() -> None:
    """Comments, variations, NAGs and move marks are skipped; a bare FEN is a position."""
    text = (
        '[GameType "20"]\n[Event "x; {y}"]\n\n'
        "1. 32-28! {good} 19-23 (1... 18-23 2. 28x19) 2.28x19 $1 14x23 * \n"
        '[Event "next game"]\n1. 31-26 *\n'
    )
    state = ENGINE.from_record(text)
    assert state.ply == 4 and state.last_move == "14x23"
    assert ENGINE.position(ENGINE.from_record("B:W28:B3", "international")) == "B:W28:B3"


@pytest.mark.parametrize("variant", ["international", "brazilian", "russian"])
def test_long_random_games_round_trip_through_pdn(variant: str) -> None:
    """A 120-ply random game, written as PDN (wrapped lines) and read back, ends the same."""
    rng = random.Random(variant)
    state = ENGINE.start(variant)
    moves: list[str] = []
    while len(moves) < 120 and ENGINE.legal_moves(state):
        move = rng.choice(ENGINE.legal_moves(state))
        moves.append(move)
        state = ENGINE.play(state, move)
    text = ENGINE.record(
        RecordInfo(
            variant=variant, start=ENGINE.position(ENGINE.start(variant)), moves=tuple(moves)
        )
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    final = ENGINE.from_record(text)
    assert final == state


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1. 32-28 19-23 2. 28-22 *", r"record move 3 \('28-22'\) is illegal"),
        ('[GameType "21"]\n1. 32-28 *', "GameType '21'"),
        ('[GameType "25"]\n1. 22-18 *', None),
        ("[Event unquoted]\n1. 32-28", "bad PDN tag"),
        ("1. 32-28 {never closed", "unclosed"),
        ("1. 32-28 (19-23", "unclosed"),
        ("   ", "empty"),
        ('[FEN "W:W:B"]\n*', "no pieces"),
    ],
)
def test_bad_records_are_refused(text: str, reason: str | None) -> None:
    """Bad records raise BadPosition naming the problem; a GameType fixes the variant."""
    if reason is None:
        assert ENGINE.from_record(text).variant == "russian"
        with pytest.raises(BadPosition, match="not international"):
            ENGINE.from_record(text, "international")
        return
    with pytest.raises(BadPosition, match=reason):
        ENGINE.from_record(text)


# ---- perft --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("variant", "fen", "counts"), perft_cases())
def test_perft_published_counts(variant: str, fen: str, counts: list[int]) -> None:
    """Published perft counts (duplicate captures removed), depths up to 200k leaves."""
    state = ENGINE.start(variant, fen)
    for depth, expected in enumerate(counts, start=1):
        if expected > NORMAL_RUN_NODES:
            break
        assert ENGINE.perft(state, depth) == expected, f"depth {depth}"


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "fen", "counts"), perft_cases())
def test_perft_published_counts_deep(variant: str, fen: str, counts: list[int]) -> None:
    """The deepest published count of each position (about 1 s each)."""
    state = ENGINE.start(variant, fen)
    assert ENGINE.perft(state, len(counts)) == counts[-1]


def test_perft_start_depths_one_to_five() -> None:
    """The start-position counts that the issue fixes, for all three variants."""
    expected = {
        "international": [9, 81, 658, 4265, 27117],
        "russian": [7, 49, 302, 1469, 7482],
        "brazilian": [7, 49, 302, 1469, 7473],
    }
    for variant, counts in expected.items():
        state = ENGINE.start(variant)
        assert [ENGINE.perft(state, d) for d in range(1, 6)] == counts


def test_fast_perft_agrees_with_the_generic_one() -> None:
    """The bitboard perft counts what legal_moves/play count, from a position with kings."""
    from engines.base import Engine

    state = ENGINE.start(None, "W:WK31,36,37,38:BK1,K20,12,13,14")
    for depth in (1, 2, 3):
        assert ENGINE.perft(state, depth) == Engine.perft(ENGINE, state, depth)
    assert ENGINE.perft(state, 0) == 1


def test_cli_perft(capsys: pytest.CaptureFixture[str]) -> None:
    """python -m engines perft draughts 4 --variant russian prints 1469 last."""
    assert engines_cli(["perft", "draughts", "4", "--variant", "russian"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1469"
    assert engines_cli(["perft", "draughts", "2", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "31-26: 9" and lines[-1] == "81"


@pytest.mark.parametrize("variant", ["international", "russian"])
def test_position_from_bitboards_matches_the_fen_writer(variant: str) -> None:
    """The hot-path position string is exactly what the PDN FEN writer makes of the setup."""
    rng = random.Random(5)
    seen_king_and_range = False
    for _ in range(6):
        state = ENGINE.start(variant)
        while ENGINE.outcome(state) is None and state.ply < 300:
            text = ENGINE.position(state)
            assert text == format_position(ENGINE.setup(state))
            squares = 50 if variant == "international" else 32
            assert format_position(parse_position(text, squares)) == text
            seen_king_and_range = seen_king_and_range or ("K" in text and "-" in text)
            state = ENGINE.play(state, rng.choice(ENGINE.legal_moves(state)))
    assert seen_king_and_range


@pytest.mark.parametrize("text", ["٣٢-٢٨", "32-٢٨", "３２-２８"])
def test_moves_are_ascii_digits_only(text: str) -> None:
    """Square numbers in other scripts' digits are not PDN: refused (``٣٢-٢٨`` was 32-28)."""
    with pytest.raises(IllegalMove, match="not a draughts move"):
        ENGINE.play(ENGINE.start(), text)


@pytest.mark.parametrize("text", ["W:W٣١-٥٠:B1-20", "W:W31-50:B1-٢٠", "W:WK٣١:B1"])
def test_positions_are_ascii_digits_only(text: str) -> None:
    """The same for the squares of a PDN FEN (``W:W٣١-٥٠:B1-20`` was the start position)."""
    with pytest.raises(BadPosition, match="not a square"):
        ENGINE.start(None, text)
