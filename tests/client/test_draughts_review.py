"""A review by an international draughts player (lidraughts, PlayOK) of Boardhall's draughts,
played through the real client against a real server, and what it found wrong:

- Russian and Brazilian games drawn by their kings-only rule (15 moves each, RULES.md section 2)
  said "25 king moves without capture", the international count; each variant's result names
  its own rule now, in the words draughts players use ("the 25-move rule", "the 15-move rule").
- A Russian or Brazilian game's replay was labelled "Draughts · 国际跳棋" (international
  draughts), and the room's Chinese subtitle said 国际跳棋 too: the replay names the variant
  ("Russian draughts · 俄罗斯跳棋") and both give each 8 x 8 variant its own Chinese name.
- The majority rule was never named: a click on a man whose capture is shorter than another
  piece's said "33 cannot move: a capture is compulsory" (it can capture), and the server
  refused the typed capture with a bare "not a legal capture here". Both say now that the
  most pieces must be taken, how many that is and with which piece. The right piece taken to
  the end of its shorter capture (28 to 17 when 28x8 takes two) dropped the selection without a
  word; it keeps it and says the same.
- A capture written with its full path (two captures with the same start and end) was cut in
  the move list to '16x49x40x12x…', hiding the square it ended on; the middle landings are
  left out instead ('16x…x40x12x21', '16x…x21' in a small window).
- The last move's captured pieces left no mark (only a multi-capture's path line crossed their
  squares; a single capture showed nothing of what it took): they stay faded where they stood
  until the next move, in the room, a browsed position and the replay.
- A capture entered landing square by landing square did not show which men that path takes
  (two captures from 16 to 21 take different men): the men jumped so far are faded now. The
  piece stayed drawn on its origin meanwhile, so a capture could not be dragged leg by leg (a
  drag from the origin took the capture back); it stands on its last landing square now and is
  dragged on from there.
- Nothing showed which pieces had to capture: with a capture compulsory, the pieces that can
  make it are ringed in green for the player to move.
- A game won by taking the opponent's last piece said the loser "had no move left"; it says
  they had no pieces left now (a side blocked with pieces on the board still had no move).
- A replay could not hand the game on: lidraughts has 'Copy PDN'; Ctrl+C in a replay copies the
  game's PDN (PGN for chess, JSON otherwise), and the foot of its move list says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

import engines
from client.app import App
from client.boards.draughts import DARK_SQUARE, DraughtsView
from client.local import EmbeddedServer
from client.scenes.replay import ReplayScene, parse_record
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene, result_lines, result_text
from client.screenshot import save
from client.ui import theme, widgets
from tests.client.helpers import click, drag, key, pump, px, replay_lines, room_of
from tests.client.test_playthrough_audit import play, two_players
from tests.client.window_tools import render_at

SHOTS = Path("/tmp/draughts-review")
SIZES = ((800, 600), (1280, 800))


def shot(app: App, name: str) -> None:
    """Save what the app shows as windows of 800x600 and 1280x800 under /tmp/draughts-review
    (a room's sliding move landed: a picture of where things end up)."""
    for room in app.find(RoomScene):
        room.slides.stop()
    for size in SIZES:
        save(app, SHOTS / f"{name}-{size[0]}x{size[1]}.png", size)


@pytest.fixture
def server() -> Any:
    """A real server on a loopback port."""
    embedded = EmbeddedServer().start()
    yield embedded
    embedded.stop()


def fresh_king_move(engine: Any, state: Any, seen: set[str]) -> str:
    """A king move to a position not seen before that leaves the opponent no capture (so the
    kings-only count, not repetition or a capture, ends the game)."""
    for move in engine.legal_moves(state):
        after = engine.play(state, move)
        position = engine.position(after)
        if position not in seen and not any("x" in m for m in engine.legal_moves(after)):
            return move
    raise AssertionError(f"no fresh quiet king move in {engine.position(state)} {len(seen)}")


@pytest.mark.parametrize(
    "variant, words",
    [
        ("russian", "The 15-move rule (kings only)"),
        ("international", "The 25-move rule (kings only)"),
    ],
)
def test_a_kings_only_draw_names_its_variants_rule(
    tmp_path: Path, server: EmbeddedServer, variant: str, words: str
) -> None:
    """Two kings move about without capture until the variant's kings-only rule draws: the
    result panel names that rule with its own count (Russian draughts: 15 moves each)."""
    start = "W:WK29,K32:BK1,K4" if variant == "russian" else "W:WK46,K47:BK4,K5"
    alice, bob = two_players(tmp_path, server, "draughts", variant=variant, position=start)
    apps = [alice, bob]
    model = room_of(alice).model
    engine = engines.get("draughts")
    state: Any = engine.start(variant, position=start)
    seen = {engine.position(state)}
    while engine.outcome(state) is None:
        mover = alice if state.turn == "first" else bob
        move = fresh_king_move(engine, state, seen)
        play(apps, mover, *move.split("-"))
        assert model.moves[-1] == move, (model.moves, move)
        state = engine.play(state, move)
        seen.add(engine.position(state))
    pump(apps, lambda: all(room_of(a).model.reason for a in apps))
    assert model.reason == "kings_only"
    assert len(model.moves) == (30 if variant == "russian" else 50)
    assert result_lines(model) == ("Draw", words)
    assert result_text(room_of(bob).model) == f"Draw: {words[0].lower()}{words[1:]}"
    panel = alice.top
    assert isinstance(panel, ResultPanel)
    shot(alice, f"kings-only-draw-{variant}")
    panel.act("replay")
    replay = alice.top
    assert isinstance(replay, ReplayScene)
    assert replay.result_line() == f"Draw: {words[0].lower()}{words[1:]}"
    label, cjk = (
        ("Russian draughts", "俄罗斯跳棋") if variant == "russian" else ("Draughts", "国际跳棋")
    )
    assert replay.game_label().startswith(label), replay.game_label()
    assert theme.game_subtitle("draughts", None, variant) == cjk
    shot(alice, f"kings-only-replay-{variant}")
    for app in apps:
        app.disconnect()


def test_a_shorter_capture_says_the_most_pieces_must_be_taken(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """33 could take one man, 47 takes two: a click on 33 (or a drag from it) says that 33
    takes only one piece and the most pieces must be taken (two, from 47), not that 33 cannot
    move; the same capture typed (/33x22) is refused by the server saying so too. A man that
    cannot capture at all is told which piece must."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:W33,47,49:B28,42,32,5")
    apps = [alice, bob]
    room = room_of(alice)
    click(alice, px(alice, "33"))
    assert room.message == "33 takes only 1 piece: take the most pieces (2, from 47)."
    assert room.picker.selected is None
    drag(alice, px(alice, "33"), px(alice, "22"))
    assert room.message == "33 takes only 1 piece: take the most pieces (2, from 47)."
    shot(alice, "majority-short-capture")
    click(alice, px(alice, "49"))
    assert room.message == "49 cannot move: a capture is compulsory (from 47)."
    click(alice, px(alice, "39"))  # an empty square: no piece there to say 'cannot move' of
    assert room.message == "A capture is compulsory (from 47)."
    room.chat_field.value = "/33x22"
    room.send_chat()
    pump(apps, lambda: room.pending_move is None and "most pieces" in room.message)
    assert "33x22 takes 1 piece" in room.message and "47x27" in room.message, room.message
    shot(alice, "majority-short-capture-typed")
    play(apps, alice, "47", "38", "27")
    assert room.model.moves == ["47x27"]
    for app in apps:
        app.disconnect()


def test_the_shorter_capture_of_the_right_piece_says_why(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """28 can take 22 (one man, landing on 17) or 23 and 13 (two, landing on 8): dragging 28 to
    17, or clicking 28 then 17, dropped the selection without a word. It keeps the selection
    and says the most pieces must be taken; the longer capture then plays."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:W28,45:B22,23,13")
    apps = [alice, bob]
    room = room_of(alice)
    why = "28x17 takes only 1 piece: take the most pieces (2, from 28)."
    drag(alice, px(alice, "28"), px(alice, "17"))
    assert room.message == why and room.picker.selected == "28"
    click(alice, px(alice, "17"))
    assert room.message == why and room.picker.selected == "28"
    shot(alice, "majority-shorter-path")
    play(apps, alice, "19", "8")
    assert room.model.moves == ["28x8"]
    for app in apps:
        app.disconnect()


def test_a_long_capture_path_in_the_move_list_keeps_its_end(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """A king's two captures from 16 to 21 take different men, so the move is written with its
    full path (16x49x40x12x21), wider than a move list cell: the list read '16x49x40x12x…', the
    square it ended on cut off. It keeps the start and the end now, leaving out landings from
    the middle: 16x…x12x21 where that fits (the last landing tells the two paths apart), and
    at least 16x…x21."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:WK16:B23,17,13,44,38")
    apps = [alice, bob]
    play(apps, alice, "16", "49", "40", "12", "21")
    assert room_of(bob).model.moves == ["16x49x40x12x21"]
    for size in SIZES:
        for app, name in ((alice, "white"), (bob, "black")):
            room = room_of(app)
            room.slides.stop()
            shown = [
                value
                for item, value, _ in render_at(app, size, f"long-path-{name}")
                if item.size == 15 and value.startswith("16x")
            ]
            ending = "x12x21" if size == (1280, 800) else "x21"
            assert shown and shown[0].startswith("16x…x") and shown[0].endswith(ending), (
                size,
                shown,
            )
        shot(bob, "long-capture-path-black")
    for app in apps:
        app.disconnect()


def board_image(app: App) -> pygame.Surface:
    """The room's board as drawn now, on the logical surface, at rest."""
    room = room_of(app)
    room.slides.stop()
    assert room.view is not None
    surface = pygame.Surface((1280, 800))
    room.view.draw(surface, room.board_state(), room.marks())
    return surface


def beside(app: App, square: str, direction: tuple[int, int]) -> tuple[int, int]:
    """A pixel of ``square`` a fifth of a square from its centre in screen ``direction`` (off
    the capture's path line through the centre, inside where a piece is drawn)."""
    view = room_of(app).view
    assert isinstance(view, DraughtsView)
    x, y = view.pixel_of(square)
    step = view.square // 5
    return (x + direction[0] * step, y + direction[1] * step)


def test_the_last_capture_shows_the_pieces_it_took(tmp_path: Path, server: EmbeddedServer) -> None:
    """47x27 takes the men on 42 and 32: after the move both players' boards show them faded
    where they stood (their squares were plain, only crossed by the path line), as in a replay
    and a browsed position; a quiet move leaves no such mark."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:W47:B42,32,5")
    apps = [alice, bob]
    play(apps, alice, "47", "38", "27")
    for app in apps:
        flip = -1 if room_of(app).view.flipped else 1  # type: ignore[union-attr]
        image = board_image(app)
        for square, direction in (("42", (flip, flip)), ("32", (flip, -flip))):
            colour = image.get_at(beside(app, square, direction))[:3]
            assert colour != DARK_SQUARE and sum(colour) < sum(DARK_SQUARE), (square, colour)
    shot(alice, "capture-taken-white")
    shot(bob, "capture-taken-black")
    play(apps, bob, "5", "10")
    for app in apps:
        image = board_image(app)
        assert all(image.get_at(beside(app, s, (1, 1)))[:3] == DARK_SQUARE for s in ("42", "32"))
    room = room_of(alice)
    key(alice, pygame.K_LEFT)  # back to the position after 47x27
    assert room.browse.active
    assert board_image(alice).get_at(beside(alice, "42", (1, 1)))[:3] != DARK_SQUARE
    m = room.model
    replay = ReplayScene(
        alice, m.game, m.variant, m.start, list(m.moves), {}, m.options, m.variant_info, None, None
    )
    replay.act("home")
    replay.act("forward")
    replay.slides.stop()
    assert isinstance(replay.view, DraughtsView)
    surface = pygame.Surface((1280, 800))
    replay.draw(surface)
    x, y = replay.view.pixel_of("42")
    step = replay.view.square // 5
    assert surface.get_at((x + step, y + step))[:3] != DARK_SQUARE
    for app in apps:
        app.disconnect()


def ring_pixel(app: App, square: str) -> tuple[int, int, int]:
    """The colour just outside the edge of the piece on ``square`` (above it), where a ring
    around the piece shows."""
    view = room_of(app).view
    assert isinstance(view, DraughtsView)
    x, y = view.pixel_of(square)
    colour = board_image(app).get_at((x, y - view.piece_radius() - 3))
    return (colour.r, colour.g, colour.b)


def test_the_pieces_that_must_capture_are_ringed(tmp_path: Path, server: EmbeddedServer) -> None:
    """With a capture compulsory the player to move sees which pieces must capture (47 takes
    two; 33 could take one, 49 none): a ring round 47 only, gone once 47 is picked up and when
    the opponent, waiting, sees none. Black's reply then must capture with 28: its ring."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:W33,47,49:B28,42,32,5")
    apps = [alice, bob]
    assert ring_pixel(alice, "47") != DARK_SQUARE
    assert ring_pixel(alice, "33") == DARK_SQUARE and ring_pixel(alice, "49") == DARK_SQUARE
    assert ring_pixel(bob, "47") == DARK_SQUARE
    shot(alice, "must-capture-ring")
    click(alice, px(alice, "47"))
    assert ring_pixel(alice, "47") != DARK_SQUARE  # the selected square's tint
    assert room_of(alice).marks().extra.get("must_capture", ()) == ()
    click(alice, px(alice, "47"))  # put back
    play(apps, alice, "47", "38", "27")
    assert ring_pixel(bob, "28") != DARK_SQUARE and ring_pixel(alice, "28") == DARK_SQUARE
    shot(bob, "must-capture-ring-black")
    for app in apps:
        app.disconnect()


def test_taking_the_last_piece_says_so(tmp_path: Path, server: EmbeddedServer) -> None:
    """White takes Black's last man: the result says Black has no pieces left (a draughts
    player's words for it), not that Black 'had no move left'; the replay's line too. A side
    left with pieces but no move still reads 'had no move left'."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:W28,45:B23")
    apps = [alice, bob]
    play(apps, alice, "28", "19")
    pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
    assert result_lines(room_of(alice).model) == ("You win", "Bob had no pieces left")
    assert result_lines(room_of(bob).model) == ("You had no pieces left", "Alice won")
    assert result_text(room_of(bob).model) == "You had no pieces left: Alice won"
    shot(alice, "no-pieces-left")
    panel = alice.top
    assert isinstance(panel, ResultPanel)
    panel.act("replay")
    replay = alice.top
    assert isinstance(replay, ReplayScene)
    assert replay.result_line() == "Bob had no pieces left: Alice won"
    for app in apps:
        app.disconnect()
    blocked = two_players(tmp_path, server, "draughts", position="W:W41,47,50:B36")
    play(list(blocked), blocked[0], "50", "44")
    model = room_of(blocked[1]).model
    pump(list(blocked), lambda: model.status == "over")
    assert result_text(model) == "You had no move left: Alice won"
    for app in blocked:
        app.disconnect()


def test_the_replay_copies_the_games_pdn(
    tmp_path: Path, server: EmbeddedServer, monkeypatch: Any
) -> None:
    """A finished game's replay had no way to take the game elsewhere (lidraughts' 'Copy PDN'):
    Ctrl+C copies its PDN now (the players, the result, GameType 20, the moves), which reads
    back through the engine to the same final position and through the replay's own reader to
    the same moves; without a clipboard it says so."""
    alice, bob = two_players(tmp_path, server, "draughts")
    apps = [alice, bob]
    model = room_of(alice).model
    for n, move in enumerate(("32-28", "19-23", "28x19", "14x23")):
        play(apps, alice if n % 2 == 0 else bob, *move.replace("x", "-").split("-"))
    room = room_of(alice)
    room.act("resign")
    room.act("resign")
    pump(apps, lambda: room_of(bob).model.status == "over")
    panel = bob.top
    assert isinstance(panel, ResultPanel)
    panel.act("replay")
    replay = bob.top
    assert isinstance(replay, ReplayScene)
    copied: list[str] = []

    def copy(text: str) -> bool:
        copied.append(text)
        return True

    monkeypatch.setattr(widgets, "copy_text", copy)
    assert "Ctrl+C: copy the PDN" in replay_lines(replay, monkeypatch)
    key(bob, pygame.K_c, "c", pygame.KMOD_CTRL)
    assert len(copied) == 1, copied
    pdn = copied[0]
    for tag in ('[White "Alice"]', '[Black "Bob"]', '[Result "0-2"]', '[GameType "20"]'):
        assert tag in pdn, pdn
    assert "1. 32-28 19-23 2. 28x19 14x23 0-2" in pdn
    engine = engines.get("draughts")
    assert engine.position(engine.from_record(pdn)) == engine.position(model.state)
    assert parse_record(pdn)["moves"] == ["32-28", "19-23", "28x19", "14x23"]
    assert replay.notice == "PDN copied: paste it into lidraughts or any PDN reader."
    assert replay.view is not None and replay.view.flipped  # Bob's side at the bottom
    shot(bob, "replay-pdn-copied")
    monkeypatch.setattr(widgets, "copy_text", lambda text: False)
    key(bob, pygame.K_c, "c", pygame.KMOD_CTRL)
    assert replay.notice.startswith("No clipboard here")
    for app in apps:
        app.disconnect()


def test_a_capture_being_entered_fades_the_pieces_it_jumps(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """The king on 16 has two ways to 21 taking different men. Clicking its landing squares one
    by one (16, 49, 40) showed only the squares: which men this path takes was not shown. The
    men jumped so far (38, then 44) are drawn faded as on lidraughts, the others (23) stay whole,
    so the player sees which of the two captures is being entered."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:WK16:B23,17,13,44,38")
    off_path = {"23": (1, 1), "38": (1, -1), "44": (1, 1)}  # off the path line drawn
    before = board_image(alice)
    solid = {s: before.get_at(beside(alice, s, d)) for s, d in off_path.items()}
    for point in ("16", "49", "40"):
        click(alice, px(alice, point))
    image = board_image(alice)
    assert image.get_at(beside(alice, "23", off_path["23"])) == solid["23"]
    for square in ("38", "44"):
        faded = image.get_at(beside(alice, square, off_path[square]))
        assert sum(faded[:3]) > sum(solid[square][:3]) + 60, (square, faded, solid[square])
    shot(alice, "capture-entry-faded")
    click(alice, px(alice, "12"))
    click(alice, px(alice, "21"))
    pump([alice, bob], lambda: room_of(bob).model.moves == ["16x49x40x12x21"])
    for app in (alice, bob):
        app.disconnect()


def test_a_capture_is_dragged_through_its_landing_squares(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """Dragging the king 16 to 49 entered the first landing, but the king stayed drawn on 16
    and a drag from there took the capture back; a drag from 49 did nothing. The king now stands
    on each landing square as it is entered, and is dragged on from there, leg by leg, to 21:
    the capture through 40 and 12 is played."""
    alice, bob = two_players(tmp_path, server, "draughts", position="W:WK16:B23,17,13,44,38")
    room = room_of(alice)
    drag(alice, px(alice, "16"), px(alice, "49"))
    assert room.picker.partial == ["49"]
    image = board_image(alice)
    king = image.get_at(beside(alice, "49", (1, 1)))
    assert sum(king[:3]) > 600, king  # the white king stands on 49
    assert sum(image.get_at(beside(alice, "16", (1, -1)))[:3]) < 600  # not on 16 any more
    shot(alice, "capture-dragged-49")
    for start, end in (("49", "40"), ("40", "12")):
        drag(alice, px(alice, start), px(alice, end))
        assert room.picker.partial[-1] == end, (room.picker.partial, room.message)
    drag(alice, px(alice, "12"), px(alice, "21"))
    pump([alice, bob], lambda: room_of(bob).model.moves == ["16x49x40x12x21"])
    for app in (alice, bob):
        app.disconnect()
