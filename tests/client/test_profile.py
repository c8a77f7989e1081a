"""A player's profile card, opened from the lobby's "Top players" (Enter, or a click on a row)
and from "Your games" (I, for the picked game's opponent), read over HTTP from a real server
whose players have played rated games (or from a fixed answer: long and CJK names, garbage
rows, no games); driven by real input events, drawn at 1280x800 and 640x480; its recent games
open as replays, and Esc goes back to the list it was opened from."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.local import EmbeddedServer
from client.my_games import game_row
from client.profile import KindRow, PoolRow, totals_text
from client.scenes.lobby import TAB_HINTS, LobbyScene
from client.scenes.profile_card import ProfileCard, recent_cells
from client.scenes.replay import ReplayScene
from client.ui import theme
from server.glicko2 import Rating
from server.outputs import SaveGame, SaveIdentity, SaveRatings, StorageOp
from server.ratings import NewRating
from server.storage import Storage
from tests.client.helpers import FixedAnswer, click, fixed_http, key, open_app, pump
from tests.client.lobby_tools import a_game, back_to_lobby, games_tab, row_rect, top_tab
from tests.client.profile_tools import card_answering, card_of, look, seeded_server_app
from tests.client.window_tools import on_window, render_at

BLITZ = {"initial": 300, "increment": 3}


@pytest.fixture
def server(tmp_path: Path) -> Any:
    """A real server on a loopback port with its database in ``tmp_path``."""
    embedded = EmbeddedServer(db=tmp_path / "games.db").start()
    yield embedded
    embedded.stop()


def test_profiles_from_top_players_and_your_games(tmp_path: Path,
                                                  server: EmbeddedServer) -> None:
    """Alice beats Bob at rated chess, Bob beats her at rated five in a row, and they abort a
    game. In Top players (chess), Down picks Bob and Enter opens his card: his name, both pools
    with "?" (one rated game each), won 1 lost 1; Esc is back on Top players with Bob still
    picked. A click on Alice's row opens hers, marked "(you)". In Your games, I on the
    picked game opens Bob's card; Esc is back on Your games."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob, clock=BLITZ)
    a_game(bob, alice, "hexgomoku", ["0,0", "0,1"], "resign", by=alice, clock=BLITZ)
    a_game(alice, bob, "chess", [], "abort", by=alice)
    back_to_lobby(apps)

    lobby = top_tab(alice)
    assert [(r.name, r.mine) for r in lobby.top_rows] == [("Alice", True), ("Bob", False)]
    assert lobby.top_view.selected == 0  # the user's own row, picked
    key(alice, pygame.K_DOWN)
    assert lobby.top_view.selected == 1
    key(alice, pygame.K_RETURN)
    card = card_of(alice)
    assert card.player == bob.player_id
    summary = card.summary
    assert summary is not None and summary.name == "Bob"
    pools = {p.label: (p.rating, p.games) for p in summary.pools}
    assert set(pools) == {"Chess", "Hexagonal five-in-a-row"}, pools
    assert all(rating.endswith("?") and games == "1 game" for rating, games in pools.values())
    assert int(pools["Chess"][0][:-1]) < 1500 < int(pools["Hexagonal five-in-a-row"][0][:-1])
    assert (summary.totals.games, summary.totals.won, summary.totals.lost,
            summary.totals.drawn, summary.totals.aborted) == (2, 1, 1, 0, 1)
    assert totals_text(summary.totals) == "2 games: won 1 · lost 1 · drawn 0 · 1 aborted"
    assert [(k.label, k.games, k.won, k.lost, k.aborted) for k in summary.kinds] == [
        ("Chess", 1, 0, 1, 1), ("Hexagonal five-in-a-row", 1, 1, 0, 0)]
    assert summary.seen.startswith("Last game ")  # all within a minute: one time said
    assert [(r.outcome, r.label, r.opponent, r.moves, r.seat) for r in summary.recent] == [
        ("aborted", "Chess", "Alice", "0 moves", "second"),
        ("won", "Hex five", "Alice", "2 stones", "first"),
        ("lost", "Chess", "Alice", "1 move", "second")]
    assert [recent_cells(r)[0] for r in summary.recent] == ["–", "W", "L"]
    assert card.recent.selected is None and not card.replay.enabled
    look(alice, card, "profile-bob", tmp_path)

    # Up/Down pick a recent game (stopping at the ends), Enter opens its replay from Bob's
    # side; Esc comes back to the card with the game still picked
    for code in (pygame.K_DOWN, pygame.K_DOWN, pygame.K_DOWN, pygame.K_DOWN):
        key(alice, code)
    assert card.recent.selected == 2
    key(alice, pygame.K_UP)
    assert card.recent.selected == 1
    click(alice, card.recent.row_rect(2).center)
    assert card.recent.selected == 2
    alice.step(0.0)
    assert card.replay.enabled
    look(alice, card, "profile-bob-picked", tmp_path)
    key(alice, pygame.K_RETURN)
    pump(alice, lambda: isinstance(alice.top, ReplayScene))
    replay = alice.top
    assert isinstance(replay, ReplayScene)
    assert (replay.moves, replay.result, replay.reason) == (["e2e4", "e7e5"], "first", "resign")
    assert replay.view is not None and replay.view.flipped  # Bob sat second
    key(alice, pygame.K_ESCAPE)
    assert alice.top is card and card.recent.selected == 2 and card.status == ""
    click(alice, card.recent.row_rect(1).center)
    click(alice, card.replay.rect.center)  # the button opens it too
    pump(alice, lambda: isinstance(alice.top, ReplayScene))
    replay = alice.top
    assert isinstance(replay, ReplayScene) and replay.moves == ["0,0", "0,1"]
    assert replay.view is not None and not replay.view.flipped  # Bob sat first
    key(alice, pygame.K_ESCAPE)
    assert alice.top is card
    # the pick moved while the record is on its way: the replay is still the opened game's,
    # from Bob's side in it (he sat second), not the side of the row picked since
    click(alice, card.recent.row_rect(2).center)
    key(alice, pygame.K_RETURN)
    assert card.record is not None and card.record.wait(10)
    key(alice, pygame.K_UP)
    pump(alice, lambda: isinstance(alice.top, ReplayScene))
    replay = alice.top
    assert isinstance(replay, ReplayScene) and replay.moves == ["e2e4", "e7e5"]
    assert replay.view is not None and replay.view.flipped
    key(alice, pygame.K_ESCAPE)
    assert alice.top is card

    key(alice, pygame.K_ESCAPE)
    assert alice.top is lobby and lobby.tab == "top"
    pump(alice, lambda: not lobby.top_players.loading)
    assert lobby.top_view.selected == 1  # read again, Bob still picked
    for size in ((1280, 800), (640, 480)):  # Bob's row picked, Alice's marked by a bar
        lines = render_at(alice, size, "profile-top-picked")
        hint = next(value for _, value, _ in lines if value.startswith("T: rooms"))
        assert hint == "T: rooms · G: your games · Up/Down · Enter", hint  # not cut
        picture = pygame.image.load(f"/tmp/polish/profile-top-picked-{size[0]}x{size[1]}.png")
        mine, bobs = on_window(row_rect(lobby, 0), size), on_window(row_rect(lobby, 1), size)
        assert picture.get_at((mine.left + 1, mine.centery))[:3] == theme.ACCENT
        assert picture.get_at((mine.right - 4, mine.centery))[:3] != theme.ACCENT_DIM
        assert picture.get_at((bobs.right - 4, bobs.centery))[:3] == theme.ACCENT_DIM

    click(alice, row_rect(lobby, 0).center)
    card = card_of(alice)
    assert card.player == alice.player_id and card.summary is not None
    assert card.summary.name == "Alice"
    lines = render_at(alice, (1280, 800), "profile-alice")
    assert "Alice (you)" in [value for _, value, _ in lines]
    key(alice, pygame.K_ESCAPE)
    assert alice.top is lobby and lobby.tab == "top"

    games = games_tab(alice)
    key(alice, pygame.K_DOWN)
    picked = games.my_rows[games.games_view.selected or 0]
    assert picked.opponent == "Bob" and picked.opponent_id == bob.player_id
    key(alice, pygame.K_i, "i")
    card = card_of(alice)
    assert card.player == bob.player_id
    key(alice, pygame.K_ESCAPE)
    assert alice.top is games and games.tab == "games"
    for size in ((1280, 800), (640, 480)):  # the lists' buttons, their labels whole
        for tab, buttons in (("games", [games.open_game, games.opponent_profile,
                                        games.refresh_games]),
                             ("top", [games.top_profile, games.refresh_top])):
            games.show_tab(tab)
            lines = render_at(alice, size, f"profile-lobby-{tab}")
            shutil.copy(Path("/tmp/polish") / f"profile-lobby-{tab}-{size[0]}x{size[1]}.png",
                        tmp_path / f"profile-lobby-{tab}-{size[0]}x{size[1]}.png")
            hint = next(value for _, value, _ in lines if value.startswith(("G: ", "T: ")))
            assert hint == TAB_HINTS[tab], (size, hint)  # the keys hint is not cut
            for button in buttons:
                area = on_window(button.rect, size)
                labels = [value for _, value, rect in lines if area.contains(rect)]
                assert button.label in labels and button.hint in labels, (size, labels)
    for app in apps:
        app.disconnect()


POOLS = ["chess", "draughts/international", "draughts/brazilian", "draughts/russian", "shuqi",
         "hexgomoku", "custom/xiangqi", "custom/stones", "custom/guards"]
LONG = "WOLFGANG-MAXIMILIAN VON HOHENZOLLERN"[:32]


def _seed_long_career(db: Path) -> None:
    """A player of a long name with a rating in every pool (the chess one established, the
    others provisional) and finished games of every game, stored as the server stores them."""
    storage = Storage(db)
    ops: list[StorageOp] = [SaveIdentity("p-long", "hash-long", LONG),
                            SaveIdentity("p-other", "hash-other", "Other")]
    for n, pool in enumerate(POOLS):
        rd = 60.0 if n == 0 else 150.0
        rating = Rating(2000 - 25 * n, rd, 0.06, 40 - n, updated=time.time())
        ops.append(SaveRatings(f"r{n}", pool, (NewRating("p-long", Rating(), rating),)))
    for n, game in enumerate(["chess", "draughts", "shuqi", "hexgomoku", "custom"] * 3):
        result = ["first", "second", "draw"][n % 3]
        seats = {"first": {"player": "p-long", "name": LONG, "bot": False},
                 "second": {"player": "p-other", "name": "Other", "bot": False}}
        ops.append(SaveGame({"id": f"g{n}", "room": f"R{n}", "game": game, "status": "over",
                             "private": n == 4, "seats": seats, "result": result,
                             "created": f"2025-03-{n + 1:02d}T18:05:09Z",
                             "ended": f"2026-11-{n + 1:02d}T18:30:00Z"}))
    storage.apply(ops)
    storage.close()


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_a_long_profile_scrolls_and_reads_at_both_sizes(tmp_path: Path,
                                                        size: tuple[int, int]) -> None:
    """A player of a long name with nine pools and fifteen games of five kinds (one private):
    the card shows five pools and scrolls the rest with PgDn (never past the end), every game's
    totals, the ten most recent public games, and every line inside the card without overlap
    at 1280x800 and 640x480; Up/Down pick a game and leave the pools as they are."""
    with seeded_server_app(tmp_path, _seed_long_career) as alice:
        lobby = top_tab(alice)
        assert [r.name for r in lobby.top_rows] == [LONG]
        key(alice, pygame.K_DOWN)
        key(alice, pygame.K_KP_ENTER)
        card = card_of(alice)
        summary = card.summary
        assert summary is not None and summary.name == LONG
        assert [p.rating for p in summary.pools][:2] == ["2000", "1975?"]
        assert summary.pools[0] == PoolRow("Chess", "2000", "40 games")
        assert len(summary.pools) == 9 and len(summary.kinds) == 5
        assert totals_text(summary.totals) == "15 games: won 5 · lost 5 · drawn 5"
        assert all((k.games, k.won, k.lost, k.drawn) == (3, 1, 1, 1) for k in summary.kinds)
        assert [r.game_id for r in summary.recent] == [f"g{n}" for n in range(14, 4, -1)]
        assert card.recent.visible_rows() == 10  # no scrolling
        view = card.pools
        assert view.visible_rows() == 5 and view.scroll == 0
        look(alice, card, "profile-long", tmp_path, [size])
        key(alice, pygame.K_PAGEDOWN)
        assert view.scroll == 4  # the last five
        key(alice, pygame.K_PAGEDOWN)
        assert view.scroll == 4
        key(alice, pygame.K_UP)  # from no pick, Up picks the last game
        assert card.recent.selected == 9 and view.scroll == 4
        key(alice, pygame.K_PAGEUP)
        assert view.scroll == 0
        key(alice, pygame.K_ESCAPE)
        assert alice.top is lobby


def test_opponents_without_a_profile() -> None:
    """The server's computer player (the game's ``bot_seat``) and an empty seat have no
    profile to open; a person has their id."""
    seats = {"first": {"player": "p-me", "name": "Me"},
             "second": {"player": "p-bot", "name": "Computer L3", "bot": True}}
    entry = {"id": "g1", "game": "chess", "status": "over", "result": "first",
             "seats": seats, "bot_seat": "second"}
    assert game_row(entry, "p-me", [], None).opponent_id is None
    assert game_row({**entry, "bot_seat": None}, "p-me", [], None).opponent_id == "p-bot"
    waiting = {**entry, "status": "waiting", "seats": {"first": seats["first"],
                                                       "second": None}}
    assert game_row(waiting, "p-me", [], None).opponent_id is None
    assert totals_text(KindRow("All", 1, 1, 0, 0, 0)) == "1 game: won 1 · lost 0 · drawn 0"


def test_a_profile_that_cannot_be_read_says_why(tmp_path: Path, server: EmbeddedServer) -> None:
    """A player the server does not know (its 404 names the id) is said in the card, the
    reason before the address asked; Ctrl+R asks again; Backspace goes back too; the card
    goes with the lobby it was opened over."""
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        lobby.open_profile("p-nobody", "Ghost")
        card = alice.top
        assert isinstance(card, ProfileCard)
        pump(alice, lambda: not card.loading)
        assert card.summary is None
        assert card.error.startswith("no player 'p-nobody' (HTTP 404), asking "), card.error
        look(alice, card, "profile-missing", tmp_path)
        key(alice, pygame.K_r, mod=pygame.KMOD_CTRL)
        assert card.loading
        pump(alice, lambda: not card.loading)
        assert "p-nobody" in card.error
        key(alice, pygame.K_BACKSPACE)
        assert alice.top is lobby
        lobby.open_profile("p-nobody", "Ghost")
        again = alice.top
        assert isinstance(again, ProfileCard)
        alice.pop(lobby)  # as a connection given up takes the lobby away
        alice.step(0.0)
        assert again not in alice.stack
    finally:
        alice.disconnect()


CJK_NAME = "欧阳娜娜欧阳娜娜欧阳娜娜欧阳娜娜"
LONG_OPPONENT = "Bartholomew-Maximilian Featherstonehaugh-Worthington"


def _seats(me: str, other: Any, me_first: bool = True) -> dict[str, Any]:
    mine = {"player": "p-x", "name": me}
    return {"first": mine, "second": other} if me_first else {"first": other, "second": mine}


def _fixed_profile(recent: Any) -> bytes:
    """A ``/players/p-x`` answer of a player with a long CJK name and ``recent``."""
    return json.dumps({
        "player": "p-x", "name": CJK_NAME, "first_seen": "2026-11-01T10:00:00Z",
        "last_seen": "2026-11-20T10:00:00Z", "ratings": [],
        "totals": {"games": 3, "wins": 1, "losses": 1, "draws": 1, "aborted": 0},
        "by_game": {"chess": {"games": 3, "wins": 1, "losses": 1, "draws": 1, "aborted": 0}},
        "recent": recent}).encode()


GARBAGE_RECENT: list[Any] = [
    {"id": "g-cjk", "game": "chess", "status": "over", "result": "first", "plies": 81,
     "seats": _seats(CJK_NAME, {"player": "p-y", "name": CJK_NAME}),
     "ended": "2026-11-20T10:00:00Z"},
    {"id": "g-long", "game": "draughts", "variant": "russian", "status": "over",
     "result": "first", "plies": 7, "ended": "2026-11-19T10:00:00Z",
     "seats": _seats(CJK_NAME, {"player": "p-z", "name": LONG_OPPONENT}, me_first=False)},
    {"id": "g-bad", "game": 5, "variant": ["x"], "status": "over", "result": 7,
     "seats": "nope", "plies": "12", "ended": {"at": 1}, "created": None},
    {"id": "g-worse", "game": None, "status": ["over"], "seats": {"first": {"player": [1]},
                                                                  "second": 3},
     "plies": True, "start": 4, "ended": "yesterday"},
    {"id": "g-float", "game": "hexgomoku", "status": "over", "result": "draw", "plies": 1e9,
     "seats": _seats(CJK_NAME, {"player": None, "name": None})},
    {"id": 12, "game": "chess"}, {"id": ""}, "not a game", None, [1, 2],
]


def test_long_cjk_and_garbage_rows_and_no_games(tmp_path: Path,
                                                server: EmbeddedServer) -> None:
    """A fake server's profile: a long CJK name, recent games against a CJK-named and a
    long-named opponent, rows of garbage fields (kept, each unreadable field "?" or blank),
    and entries with no game id (left out). The card draws them inside itself at both sizes;
    Enter on a garbage row asks the real server for that game and says it could not be read.
    Then a profile with no recent games (and one whose ``recent`` is not a list) says so."""
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        answer = FixedAnswer(200, _fixed_profile(GARBAGE_RECENT), "application/json")
        with fixed_http(answer):
            card = card_answering(alice, lobby, answer)
            summary = card.summary
            assert summary is not None and summary.name == CJK_NAME
            assert answer.asked == ["/players/p-x"]
            rows = [(r.game_id, r.outcome, r.label, r.opponent, r.moves, r.seat)
                    for r in summary.recent]
            assert rows == [
                ("g-cjk", "won", "Chess", CJK_NAME, "41 moves", "first"),
                ("g-long", "lost", "Russian draughts", LONG_OPPONENT, "4 moves", "second"),
                ("g-bad", "ended", "5", "—", "?", None),  # as Your games reads it
                ("g-worse", "playing", "?", "—", "?", None),
                ("g-float", "draw", "Hex five", "?", "?", "first"),
            ]
            assert [recent_cells(r)[0] for r in summary.recent] == ["W", "L", "?", "?", "D"]
            assert summary.recent[2].when == "" and summary.recent[3].when == ""
            look(alice, card, "profile-garbage", tmp_path)
            for size in ((1280, 800), (640, 480)):  # the long names cut inside their column
                lines = render_at(alice, size, "profile-garbage-names")
                shown = [value for _, value, _ in lines]
                assert CJK_NAME in shown  # the card's title: the whole name
                assert any(v.startswith("Bartholomew") and v.endswith("…") for v in shown)
                column = on_window(card.recent.row_rect(1), size)
                cut = next(rect for _, value, rect in lines if value.startswith("Bartholomew"))
                assert column.contains(cut), (size, cut, column)

            key(alice, pygame.K_DOWN)
            key(alice, pygame.K_DOWN)
            key(alice, pygame.K_DOWN)
            assert card.picked_game() is not None and card.recent.selected == 2
            key(alice, pygame.K_RETURN)
            assert card.status == "Reading game g-bad…" and not card.replay.enabled
            pump(alice, lambda: card.record is None)
            alice.step(0.0)
            assert alice.top is card
            assert card.status.startswith("Cannot open that game: no game with that id"), (
                card.status)  # why first: a small window shows only the start
            assert card.status.endswith("/games/g-bad?format=json"), card.status
            look(alice, card, "profile-garbage-open", tmp_path)

            answer.body = _fixed_profile([])
            key(alice, pygame.K_ESCAPE)
            empty = card_answering(alice, lobby, answer)
            assert empty.summary is not None and empty.summary.recent == []
            key(alice, pygame.K_DOWN)
            key(alice, pygame.K_RETURN)
            assert empty.record is None and empty.status.startswith("Pick a game first")
            empty.say("")
            look(alice, empty, "profile-no-games", tmp_path)
            lines = render_at(alice, (640, 480), "profile-no-games")
            assert "No finished public games yet." in [value for _, value, _ in lines]

            answer.body = _fixed_profile("not a list")
            key(alice, pygame.K_ESCAPE)
            odd = card_answering(alice, lobby, answer)
            assert odd.summary is not None and odd.summary.recent == []
    finally:
        alice.disconnect()


def test_a_fake_servers_long_lists_keep_the_card_in_the_window(
        tmp_path: Path, server: EmbeddedServer) -> None:
    """A server that lists more recent games (30) and more games' totals (12, two of them with
    their variants' under them: 17 rows) than this one does: the card still fits the window
    (its buttons on screen), the recent games scroll to the one picked with Up/Down, and the
    totals by game scroll with the wheel and with Shift+PgUp/PgDn (the pools stay)."""
    recent = [{"id": f"g{n}", "game": "chess", "status": "over", "result": "first",
               "plies": n, "seats": _seats("X", {"player": "p-y", "name": "Y"}),
               "ended": "2026-11-20T10:00:00Z"} for n in range(30)]
    body = json.loads(_fixed_profile(recent))
    body["by_game"] = {f"game{n}": {"games": 1, "wins": 1, "losses": 0, "draws": 0,
                                    "aborted": 0} for n in range(12)}
    body["by_variant"] = [{"game": f"game{n}", "variant": f"v{v}", "games": 1, "wins": 1}
                          for n, variants in ((0, 3), (1, 2)) for v in range(variants)]
    alice = open_app(tmp_path, "Alice", server.url)
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        answer = FixedAnswer(200, json.dumps(body).encode(), "application/json")
        with fixed_http(answer):
            card = card_answering(alice, lobby, answer)
            assert card.summary is not None and len(card.summary.recent) == 30
            assert len(card.kinds.rows) == 17 and sum(k.nested for k in card.summary.kinds) == 5
            window = pygame.Rect((0, 0), theme.LOGICAL_SIZE)
            assert window.contains(card.card), card.card
            assert card.card.contains(card.recent.rect) and card.card.contains(card.kinds.rect)
            assert card.card.contains(card.back.rect)
            look(alice, card, "profile-fake-long", tmp_path)
            for _ in range(20):
                key(alice, pygame.K_DOWN)
            assert card.recent.selected == 19
            assert card.recent.scroll <= 19 < card.recent.scroll + card.recent.visible_rows()
            assert card.recent.scroll > 0
            card.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=card.kinds.rect.center,
                                                 rel=(0, 0), buttons=(0, 0, 0)))
            card.handle_event(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False))
            assert card.kinds.scroll == 1
            pools = card.pools.scroll
            key(alice, pygame.K_PAGEDOWN, mod=pygame.KMOD_SHIFT)
            assert card.kinds.scroll == 1 + card.kinds.visible_rows() and card.pools.scroll == pools
            key(alice, pygame.K_PAGEUP, mod=pygame.KMOD_SHIFT)
            key(alice, pygame.K_PAGEUP, mod=pygame.KMOD_SHIFT)
            assert card.kinds.scroll == 0
    finally:
        alice.disconnect()
