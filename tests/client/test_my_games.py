"""The lobby's "Your games": a user finds their own games on the server (newest first, the
result from their side), opens a finished one as a replay and goes back to an unfinished one,
with real clients against a real server, driven by real input events."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.address import record_url
from client.local import EmbeddedServer
from client.my_games import GameRow, fetch_list, game_row, when_text
from client.scenes.lobby import TAB_X, LobbyScene
from client.scenes.replay import ReplayScene, fetch_record
from client.scenes.room import RoomScene
from client.ui import theme
from tests.client.helpers import (
    FixedAnswer,
    arrived,
    click,
    fixed_http,
    key,
    open_app,
    pump,
    room_of,
)
from tests.client.lobby_tools import a_game, back_to_lobby, games_tab, lobby_of
from tests.client.window_tools import render_at

LONG = "WOLFGANG-MAXIMILIAN VON HOHENZOLLERN"[:32]
CJK = "张伟王芳李娜刘洋陈静杨帆黄磊赵敏周杰吴"


def shown(lobby: LobbyScene) -> list[GameRow]:
    """The rows the list shows."""
    return lobby.my_rows


@pytest.fixture
def server(tmp_path: Path) -> Any:
    """A real server on a loopback port with its database in ``tmp_path``."""
    embedded = EmbeddedServer(db=tmp_path / "games.db").start()
    yield embedded
    embedded.stop()


def test_your_games_lists_opens_and_rejoins(tmp_path: Path, server: EmbeddedServer) -> None:
    """Alice plays four games with Bob: a won chess game (Bob resigns), an aborted one, a
    private one she resigns and one that goes on. Her list shows them newest first, each from
    her side; Enter on the won game opens its replay, Enter on the game that goes on takes her
    back to its room. Carol, a third identity, never sees the private game."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    won = a_game(alice, bob, "chess", ["e2e4", "e7e5", "g1f3"], "resign", by=bob)
    aborted = a_game(alice, bob, "hexgomoku", [], "abort", by=alice)
    private = a_game(alice, bob, "draughts", ["32-28", "19-23"], "resign", by=alice,
                     private=True)
    going_on = a_game(alice, bob, "hexgomoku", ["0,0", "1,0", "2,0"], None)
    back_to_lobby(apps)

    lobby = games_tab(alice)
    rows = shown(lobby)
    assert [r.game_id for r in rows] == [going_on, private, aborted, won]
    assert lobby.my_games.records == {}  # the listing counts the moves: no record was read
    assert [(r.outcome, r.opponent, r.label, r.reason, r.moves) for r in rows] == [
        ("playing", "Bob", "Hex five", "", "3 stones"),
        ("lost", "Bob", "Draughts", "resignation", "1 move"),
        ("aborted", "Bob", "Hex five", "before both sides moved", "0 stones"),
        ("won", "Bob", "Chess", "resignation", "2 moves"),
    ]
    assert all(r.when for r in rows)
    bob_lobby = games_tab(bob)
    assert [(r.game_id, r.outcome) for r in shown(bob_lobby)] == [
        (going_on, "playing"), (private, "won"), (aborted, "aborted"), (won, "lost")]

    # the keyboard, as in the rooms list: PgDn/Down to the won game, Enter opens its replay
    for code in (pygame.K_PAGEDOWN, pygame.K_DOWN, pygame.K_DOWN, pygame.K_DOWN):
        key(alice, code)
    assert lobby.games_view.selected == 3
    key(alice, pygame.K_RETURN)
    pump(alice, lambda: isinstance(alice.top, ReplayScene))
    replay = alice.top
    assert isinstance(replay, ReplayScene)
    assert (replay.moves, replay.result, replay.reason) == (["e2e4", "e7e5", "g1f3"], "first",
                                                            "resign")
    key(alice, pygame.K_ESCAPE)
    assert alice.top is lobby

    # the titles switch the column too, where they are drawn
    click(alice, (TAB_X["rooms"] + 4, 88))
    assert lobby.tab == "rooms"
    click(alice, (TAB_X["games"] + 4, 88))
    assert lobby.tab == "games"

    # a click on the game that goes on takes Alice back to its seat
    click(alice, lobby.games_view.row_rect(0).center)
    key(alice, pygame.K_RETURN)
    pump(apps, lambda: bool(alice.find(RoomScene)))
    assert room_of(alice).model.game_id == going_on
    assert room_of(alice).model.you == "first"
    assert room_of(alice).model.moves == ["0,0", "1,0", "2,0"]

    carol = open_app(tmp_path, "Carol", server.url)
    pump(carol, lambda: isinstance(carol.top, LobbyScene))
    assert carol.connection is not None and alice.player_id is not None
    seen = [g["id"] for g in fetch_list(server.url, alice.player_id, carol.connection.token)]
    assert seen == [going_on, aborted, won]  # not the private game
    assert alice.connection is not None
    listed = fetch_list(server.url, alice.player_id, alice.connection.token)
    assert [g["plies"] for g in listed] == [3, 2, 0, 3]
    assert listed[-1]["start"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    carol_lobby = games_tab(carol)
    assert shown(carol_lobby) == [] and carol_lobby.my_games.error == ""
    for app in (*apps, carol):
        app.disconnect()


def test_list_follows_a_game_that_ends_and_says_when_the_server_is_gone(
        tmp_path: Path, server: EmbeddedServer) -> None:
    """The list is read again when a game ends, while the lobby is under its room; with the
    server gone a refresh (Ctrl+R) says so in a line instead of failing."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    lobby = games_tab(alice)
    assert shown(lobby) == []
    game = a_game(alice, bob, "hexgomoku", ["0,0"], None)
    assert isinstance(alice.top, RoomScene)  # the lobby is under the room: read at the end
    bob.send({"type": "resign", "room": room_of(bob).model.room})
    pump(apps, lambda: [(r.game_id, r.outcome, r.moves) for r in shown(lobby)]
         == [(game, "won", "1 stone")])

    back_to_lobby([alice])
    server.stop()
    pump(alice, lambda: alice.net_status != "online")
    key(alice, pygame.K_r, "", pygame.KMOD_CTRL)
    pump(alice, lambda: not lobby.my_games.loading)
    assert lobby.my_games.error.startswith("cannot fetch http://127.0.0.1:"), lobby.my_games.error
    assert lobby.my_games.error.endswith("Connection refused")
    assert [r.game_id for r in shown(lobby)] == [game]  # what was read stays
    lines = render_at(alice, (1280, 800), "mygames-offline")
    assert any(value.startswith("Could not read your games: cannot fetch")
               for _, value, _ in lines), [value for _, value, _ in lines]
    for app in apps:
        app.disconnect()


def test_rows_in_words() -> None:
    """A game against the server's bot names it; a variant other than the game's first is
    named; a game nobody joined waits; a record not read yet shows "…"."""
    games = [{"game": "draughts", "variants": [{"id": "international"},
                                               {"id": "russian", "name": "Russian draughts"}]}]
    entry: dict[str, Any] = {"id": "g1", "room": "K7QD", "game": "draughts", "variant": "russian",
             "status": "over", "result": "first", "reason": "timeout",
             "created": "2026-11-27T08:00:00Z", "ended": "2026-11-27T08:20:00Z",
             "seats": {"first": {"player": "p-bot", "name": "Computer L3", "bot": True},
                       "second": {"player": "p-me", "name": "Me", "bot": False}}}
    row = game_row(entry, "p-me", games, None, now=1795771200.0, zone=None)
    assert (row.outcome, row.opponent, row.label, row.reason, row.moves, row.seat) == (
        "lost", "Computer L3", "Russian draughts", "time ran out", "…", "second")
    record = {"moves": ["22-18"] * 3, "start": "B:W21-32:B1-12"}
    assert game_row(entry, "p-me", games, record).moves == "2 moves"  # 1. … 22-18, 2. …
    listed = {**entry, "plies": 3, "start": "B:W21-32:B1-12"}  # a server that counts them
    assert game_row(listed, "p-me", games, None).moves == "2 moves"
    assert game_row({**listed, "start": None}, "p-me", games, None).moves == "2 moves"
    assert game_row({**listed, "plies": 4, "start": None}, "p-me", games, None).moves == (
        "2 moves")
    assert game_row({**listed, "plies": 0}, "p-me", games, None).moves == "0 moves"
    waiting = {**entry, "status": "waiting", "result": None, "reason": None,
               "seats": {"first": entry["seats"]["second"], "second": None}}
    assert (game_row(waiting, "p-me", games, None).outcome,
            game_row(waiting, "p-me", games, None).opponent) == ("waiting", "—")
    assert when_text("not a time") == ""


@pytest.mark.parametrize("size", [(640, 480), (1280, 800)])
def test_list_drawn_at_both_sizes(tmp_path: Path, server: EmbeddedServer,
                                  size: tuple[int, int]) -> None:
    """Long and CJK names in the list at 640x480 and 1280x800: each row's text stays inside
    the list, a long name is cut with an ellipsis, the CJK name is drawn, nothing overlaps,
    and no text of the middle column runs into the list (the replay field's label did at
    640x480)."""
    alice = open_app(tmp_path, "Alice", server.url)
    long_name = open_app(tmp_path, LONG, server.url)
    chinese = open_app(tmp_path, CJK, server.url)
    apps = [alice, long_name, chinese]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    a_game(alice, long_name, "chess", ["e2e4"], "resign", by=alice)
    a_game(chinese, alice, "shuqi", [], "abort", by=alice)
    a_game(alice, chinese, "hexgomoku", ["0,0", "1,1"], None)
    back_to_lobby(apps)
    lobby = games_tab(alice)
    assert len(shown(lobby)) == 3
    lobby.games_view.selected = 1
    lines = render_at(alice, size, "mygames")
    shot = tmp_path / f"mygames-{size[0]}x{size[1]}.png"
    shutil.copy(Path("/tmp/polish") / f"mygames-{size[0]}x{size[1]}.png", shot)
    scale = min(size[0] / theme.LOGICAL_SIZE[0], size[1] / theme.LOGICAL_SIZE[1])
    ox = int((size[0] - theme.LOGICAL_SIZE[0] * scale) / 2)
    oy = int((size[1] - theme.LOGICAL_SIZE[1] * scale) / 2)
    area = lobby.games_view.rect
    window_area = pygame.Rect(ox + round(area.left * scale), oy + round(area.top * scale),
                              round(area.width * scale), round(area.height * scale))
    inside = [(value, rect) for _, value, rect in lines if window_area.contains(rect)]
    values = [value for value, _ in inside]
    if size == (640, 480):  # a small window cuts the long name, never the time after it
        assert any(v.endswith("…") and v.startswith("vs WOLFGANG") for v in values), values
    else:
        assert f"vs {LONG}" in values, values
    assert any(CJK[:2] in v for v in values), values
    beside = [(value, rect) for item, value, rect in lines
              if item.pos[1] > 62 and item.pos[0] < area.left - 24]  # the other columns
    assert beside and all(rect.right <= window_area.left for _, rect in beside), [
        value for value, rect in beside if rect.right > window_area.left]
    for i, (a_value, a) in enumerate(inside):
        for b_value, b in inside[i + 1:]:
            assert not a.colliderect(b), (a_value, b_value)
    for app in apps:
        app.disconnect()


def test_an_answer_that_is_not_utf8_is_said_not_waited_for() -> None:
    """A record answered with bytes that are not UTF-8 (a proxy's error page, another server on
    the port) raised UnicodeDecodeError on the fetch thread, which died: the replay said
    "Fetching game…" for ever. It is a RecordError naming the URL."""

    from client.scenes.replay import RecordError, RecordFetch

    with fixed_http(FixedAnswer(200, "Spiel nicht gefunden: \xfc".encode("latin-1"))) as latin1:
        fetch = RecordFetch(f"ws://127.0.0.1:{latin1.port}/", "g1")
        found = arrived(fetch)
        assert isinstance(found, RecordError), found
        assert "not UTF-8" in str(found) and "/games/g1?format=json" in str(found)


def test_rows_show_the_rating_change_of_a_rated_game() -> None:
    """A listed game's ``rating_change`` reads "+12", "-8" or "±0"; none (unrated, an older
    server) or a value that is not a whole number shows nothing."""
    entry: dict[str, Any] = {"id": "g1", "room": "K7QD", "game": "chess", "status": "over",
                             "result": "first", "reason": "resign",
                             "seats": {"first": {"player": "p-me", "name": "Me"},
                                       "second": {"player": "p-bob", "name": "Bob"}}}
    for change, text in ((12, "+12"), (-8, "-8"), (0, "±0"), (None, ""), ("12", ""),
                         (True, "")):
        assert game_row({**entry, "rating_change": change}, "p-me", [], None).rating_change == (
            text), change
    assert game_row(entry, "p-me", [], None).rating_change == ""


@pytest.mark.parametrize("size", [(640, 480), (1280, 800)])
def test_a_rated_game_s_row_says_won_and_the_change(tmp_path: Path, server: EmbeddedServer,
                                                    size: tuple[int, int]) -> None:
    """After a rated game (a clock, from the start) Alice's row reads "won · +N" and Bob's
    "lost · -N", drawn inside the list beside the result word, at 640x480 and 1280x800."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob,
           clock={"initial": 300, "increment": 3})
    back_to_lobby(apps)
    won = shown(games_tab(alice))[0]
    lost = shown(games_tab(bob))[0]
    assert (won.outcome, lost.outcome) == ("won", "lost")
    assert won.rating_change.startswith("+") and lost.rating_change.startswith("-")
    lobby = lobby_of(alice)
    lines = render_at(alice, size, "rated-games")
    shutil.copy(Path("/tmp/polish") / f"rated-games-{size[0]}x{size[1]}.png",
                Path(f"/tmp/rate2-mygames-{size[0]}x{size[1]}.png"))
    values = {value: rect for _, value, rect in lines}
    assert "won" in values and f"· {won.rating_change}" in values, sorted(values)
    word, change = values["won"], values[f"· {won.rating_change}"]
    assert change.left > word.right and abs(change.centery - word.centery) <= 2
    scale = min(size[0] / theme.LOGICAL_SIZE[0], size[1] / theme.LOGICAL_SIZE[1])
    ox = int((size[0] - theme.LOGICAL_SIZE[0] * scale) / 2)
    assert change.right <= ox + round(lobby.games_view.rect.right * scale)  # inside the list
    opponent = next(rect for value, rect in values.items() if value.startswith("vs "))
    assert change.right < opponent.left
    for app in apps:
        app.disconnect()


def test_a_replay_is_shown_from_alice_s_seat_in_that_game(
    tmp_path: Path, server: EmbeddedServer
) -> None:
    """Alice plays chess first against Bob, then second. Enter on the game she sat second in
    opens its replay flipped (her side at the bottom) whether its record is read then or was
    read with the list (as from a server whose list does not count the moves), and Down
    while the record is on its way does not give it the seat of the game picked since; the
    game she sat first in opens unflipped."""
    alice = open_app(tmp_path, "Alice", server.url)
    bob = open_app(tmp_path, "Bob", server.url)
    apps = [alice, bob]
    pump(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    as_first = a_game(alice, bob, "chess", ["e2e4", "e7e5"], "resign", by=bob)
    as_second = a_game(bob, alice, "chess", ["d2d4", "d7d5", "c2c4"], "resign", by=bob)
    back_to_lobby(apps)
    lobby = games_tab(alice)
    assert [(r.game_id, r.seat) for r in shown(lobby)] == [
        (as_second, "second"),
        (as_first, "first"),
    ]
    assert lobby.my_games.records == {}

    def opened(row: int, move_on: int | None = None) -> tuple[list[str], bool]:
        """Enter on ``row`` (``move_on`` pressed once the record is in, before it is taken):
        the replay's moves and whether its board is flipped."""
        click(alice, lobby.games_view.row_rect(row).center)
        key(alice, pygame.K_RETURN)
        if move_on is not None:
            assert lobby.fetch is not None and lobby.fetch.wait(10)
            key(alice, move_on)
        pump(alice, lambda: isinstance(alice.top, ReplayScene))
        replay = alice.top
        assert isinstance(replay, ReplayScene) and replay.view is not None
        return replay.moves, replay.view.flipped

    # the record is read now; Down picks the other game before it is taken
    assert opened(0, move_on=pygame.K_DOWN) == (["d2d4", "d7d5", "c2c4"], True)
    assert lobby.games_view.selected == 1
    render_at(alice, (1280, 800), "mygames-replay-second")
    shutil.copy(Path("/tmp/polish") / "mygames-replay-second-1280x800.png", tmp_path)
    key(alice, pygame.K_ESCAPE)
    assert opened(1, move_on=pygame.K_UP) == (["e2e4", "e7e5"], False)
    key(alice, pygame.K_ESCAPE)

    # records read with the list open at once, from the same side
    assert alice.connection is not None
    token = alice.connection.token
    for game_id in (as_first, as_second):
        url = record_url(server.url, game_id)
        lobby.my_games.records[game_id] = fetch_record(url, token=token)
    assert opened(0) == (["d2d4", "d7d5", "c2c4"], True) and lobby.fetch is None
    key(alice, pygame.K_ESCAPE)
    assert opened(1) == (["e2e4", "e7e5"], False) and lobby.fetch is None
    for app in apps:
        app.disconnect()
