"""Chess as a lichess regular plays it, through the real client against a real server on loopback:
what such a player found missing or wrong, each pinned by a test.

- Castling by taking the king onto its own rook (lichess's default castling method, "either"):
  a click on the rook after the king, or the king dropped on the rook, reselected the rook and
  played nothing; now it castles on that side.
- Browsing back during a live game, the status line counted plies ("Move 4 of 6") beside a move
  list numbered in moves ("2. Nf3 Nc6") and a result panel counting "3 moves"; it now names the
  move shown as the list writes it ("After 2… Nc6", "Start position"), as in the replay.
- A finished game's PGN (to study it elsewhere, lichess's "Download PGN") was only at an HTTP
  address the client never showed; the replay now saves the record (S, *Save PGN*) into the
  player's Downloads folder and says where.
- The promotion chooser offered four words ("Queen", "Rook"...) in the middle of a dimmed
  board; it now shows each piece as the board draws it, in the promoting side's colour, above
  its word and key, and a click on the piece picks it as a click on its button does.
"""

from __future__ import annotations

import io
from pathlib import Path

import pygame
import pytest

from client.app import App
from client.screenshot import save
from client.ui import theme
from tests.client.helpers import click, drag, key, pump, px, room_of, seated_on_a_server

SHOTS = Path("/tmp/boardhall-shots")
CASTLES = "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 0 1"
"""Both sides may castle on either side."""


def wait_for_ply(apps: list[App], count: int) -> None:
    """Until both players have seen ``count`` plies."""
    pump(apps, lambda: all(len(room_of(a).model.moves) >= count for a in apps), timeout=5)


def shot(app: App, name: str) -> None:
    """Save what ``app`` shows at 1280x800 and 800x600 under /tmp/boardhall-shots."""
    for size in ((1280, 800), (800, 600)):
        save(app, SHOTS / f"{name}-{size[0]}x{size[1]}.png", size)


def test_the_king_taken_onto_its_rook_castles(tmp_path: Path) -> None:
    """White clicks the king, then the h1 rook (marked as a target): O-O. Black drags the king
    onto the a8 rook: O-O-O. A click on the rook alone still selects the rook."""
    with seated_on_a_server(tmp_path, "chess", position=CASTLES) as apps:
        alice, bob = apps
        click(alice, px(alice, "e1"))
        assert {"g1", "h1", "c1", "a1"} <= room_of(alice).picker.targets()
        shot(alice, "chess-castle-targets")
        click(alice, px(alice, "h1"))
        wait_for_ply(apps, 1)
        assert room_of(bob).model.moves == ["e1g1"]
        click(bob, px(bob, "h8"))
        assert room_of(bob).picker.selected == "h8"  # the rook alone: its own moves
        click(bob, px(bob, "h8"))
        drag(bob, px(bob, "e8"), px(bob, "a8"))
        wait_for_ply(apps, 2)
        assert room_of(alice).model.moves == ["e1g1", "e8c8"]
        assert room_of(alice).shown_moves() == ["O-O", "O-O-O"]
        shot(alice, "chess-castled-onto-rooks")


def test_a_premove_of_the_king_onto_its_rook_castles(tmp_path: Path) -> None:
    """Black to move; White premoves the king onto the h1 rook, and it is sent as O-O the
    moment Black's move arrives."""
    black_to_move = CASTLES.replace(" w ", " b ")
    with seated_on_a_server(tmp_path, "chess", position=black_to_move) as apps:
        alice, bob = apps
        click(alice, px(alice, "e1"))
        click(alice, px(alice, "h1"))
        assert room_of(alice).premoves.move is not None
        room_of(bob).send_move("a7a6")
        wait_for_ply(apps, 2)
        assert room_of(bob).model.moves == ["a7a6", "e1g1"]


def test_a_browsed_position_is_named_as_the_move_list_writes_it(tmp_path: Path) -> None:
    """Six plies into a live game (1. e4 e5 2. Nf3 Nc6 3. Bb5 a6), White steps back two: the
    line reads "After 2… Nc6", one more "After 2. Nf3", Home "Start position", and a move
    arriving meanwhile is said as before; the replay's header names the move the same way."""
    from client.scenes.replay import ReplayScene
    from client.scenes.room_panel import status_parts

    def line(app: App) -> str:
        room = room_of(app)
        return "".join(text for text, _ in status_parts(room, 2000, 1.0))

    with seated_on_a_server(tmp_path, "chess") as apps:
        alice, bob = apps
        for ply, move in enumerate(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"]):
            room_of(apps[ply % 2]).send_move(move)
            wait_for_ply(apps, ply + 1)
        key(alice, pygame.K_LEFT)
        key(alice, pygame.K_LEFT)
        assert line(alice) == "Your move · After 2… Nc6 · End: back to the game"
        shot(alice, "chess-browse-named")
        key(alice, pygame.K_LEFT)
        assert line(alice) == "Your move · After 2. Nf3 · End: back to the game"
        key(alice, pygame.K_HOME)
        assert line(alice) == "Your move · Start position · End: back to the game"
        key(bob, pygame.K_LEFT)
        room_of(alice).send_move("b5a4")
        wait_for_ply(apps, 7)
        assert line(bob) == "Your move · After 3. Bb5 · new move · End: back to the game"
        key(alice, pygame.K_END)
        replay = ReplayScene(
            alice,
            "chess",
            None,
            None,
            list(room_of(alice).model.moves),
            {"first": "Alice", "second": "Bob"},
        )
        replay.index = 4
        assert "After 2… Nc6" in [h.value for h in replay.header_lines()]


def test_the_replay_of_a_finished_game_saves_its_pgn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Black resigns after 1. e4 e5 2. Qh5 Nc6; White opens the replay from the result panel
    and presses S: a PGN file lands in ~/Downloads that python-chess reads back without
    errors, with the players, the result and every move; the replay says where it is."""
    import chess.pgn

    from client.scenes.replay import ReplayScene

    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    with seated_on_a_server(tmp_path, "chess") as apps:
        alice, bob = apps
        for ply, move in enumerate(["e2e4", "e7e5", "d1h5", "b8c6"]):
            room_of(apps[ply % 2]).send_move(move)
            wait_for_ply(apps, ply + 1)
        key(bob, pygame.K_r, "r")
        key(bob, pygame.K_r, "r")
        pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))
        pump(apps, lambda: not room_of(alice).move_landing())
        key(alice, pygame.K_p, "p")
        replay = alice.top
        assert isinstance(replay, ReplayScene)
        assert "Save PGN" in [b.label for b in replay.buttons]
        key(alice, pygame.K_s, "s")
        saved = list((home / "Downloads").iterdir())
        assert len(saved) == 1 and saved[0].suffix == ".pgn"
        game = chess.pgn.read_game(io.StringIO(saved[0].read_text(encoding="utf-8")))
        assert game is not None and not game.errors
        assert (game.headers["White"], game.headers["Black"]) == ("Alice", "Bob")
        assert game.headers["Result"] == "1-0"
        assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "e7e5", "d1h5", "b8c6"]
        assert replay.note == f"Saved the PGN: ~/Downloads/{saved[0].name}"
        shot(alice, "chess-replay-saved-pgn")


def test_the_promotion_chooser_shows_the_pieces_and_a_click_on_one_picks_it(
    tmp_path: Path,
) -> None:
    """White's e7 pawn goes to e8: the chooser draws a white piece above each button (its
    middle is not the card's colour); a click on the knight's picture plays e8=N. Black, on
    b2, sees black pieces."""
    from client.scenes.dialogs import ChoiceDialog

    with seated_on_a_server(tmp_path, "chess", position="8/4P3/8/8/8/8/1p5k/4K3 w - - 0 1") as apps:
        alice, bob = apps
        click(alice, px(alice, "e7"))
        click(alice, px(alice, "e8"))
        chooser = alice.top
        assert isinstance(chooser, ChoiceDialog)
        image = pygame.Surface((1280, 800))
        chooser.draw(image)
        shot(alice, "chess-promotion-pieces-white")
        above = {value: (b.rect.centerx, b.rect.top - 30) for b, _, value in chooser.buttons}
        assert set(chooser.pictures) == set(above) == {"e7e8q", "e7e8r", "e7e8b", "e7e8n"}
        queen = next(chooser.picture_rect(b) for b, _, value in chooser.buttons if value == "e7e8q")
        assert tuple(image.get_at(queen.center))[:3] not in (theme.PANEL, theme.PICTURE_TILE)
        click(alice, above["e7e8n"])
        wait_for_ply(apps, 1)
        assert room_of(bob).model.moves == ["e7e8n"]
        click(bob, px(bob, "b2"))
        click(bob, px(bob, "b1"))
        chooser = bob.top
        assert isinstance(chooser, ChoiceDialog)
        shot(bob, "chess-promotion-pieces-black")
        white, black = (
            pygame.Color(s.get_at((s.get_width() // 2, s.get_height() * 3 // 4)))
            for s in (chooser_white_queen(), chooser.pictures["b2b1q"])
        )
        assert sum(black[:3]) < sum(white[:3])  # a black queen, darker than a white one


def chooser_white_queen() -> pygame.Surface:
    """The white queen as the board draws it, to compare the black chooser's with."""
    from client.boards.chess import piece_sprite

    return piece_sprite("Q", 52)
