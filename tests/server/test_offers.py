"""Offers (draw, undo, rematch, swap), claims, leave, lobby and limits on the sans-I/O core."""

from __future__ import annotations

from typing import Any

from server.config import ServerConfig
from server.testing import HallDriver


def test_draw_offer_accepted() -> None:
    """The opponent gets the offer, accepts it, and the game is drawn by agreement."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    assert d.request(a, type="offer", room=code, kind="draw")["type"] == "ok"
    offer = d.last(b, "offer")
    assert (offer["kind"], offer["by"]) == ("draw", "first")
    assert d.hall.rooms[code].view("first", d.now).offers[0].kind == "draw"
    assert d.request(b, type="answer", room=code, kind="draw", accept=True)["type"] == "ok"
    assert d.last(a, "answer")["accept"] is True
    over = d.last(a, "over")
    assert (over["result"], over["reason"]) == ("draw", "agreement")


def test_refused_offers_back_off_10s_times_n_squared() -> None:
    """After n refusals the same player waits 10 s x n^2 before offering again."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    d.request(b, type="answer", room=code, kind="draw", accept=False)
    assert d.last(a, "answer")["accept"] is False
    early = d.request(a, type="offer", room=code, kind="draw")
    assert early["code"] == "not_allowed" and "10 s" in early["message"]
    d.advance(10)
    assert d.request(a, type="offer", room=code, kind="draw")["type"] == "ok"
    d.request(b, type="answer", room=code, kind="draw", accept=False)
    d.advance(39)
    assert d.request(a, type="offer", room=code, kind="undo")["code"] == "not_allowed"
    d.advance(1)
    assert d.request(a, type="offer", room=code, kind="draw")["type"] == "ok"
    assert d.request(b, type="offer", room=code, kind="swap")["type"] == "ok"


def test_backoff_is_capped_at_ten_minutes() -> None:
    """10 s x n^2 never exceeds 600 s."""
    d = HallDriver()
    a, b, code = d.table()
    room = d.hall.rooms[code]
    room.refusals["first"] = 20
    d.request(a, type="offer", room=code, kind="draw")
    d.request(b, type="answer", room=code, kind="draw", accept=False)
    d.advance(600)
    assert d.request(a, type="offer", room=code, kind="draw")["type"] == "ok"


def test_any_move_cancels_pending_offers() -> None:
    """A move clears the offers; answering afterwards is refused."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    d.request(a, type="offer", room=code, kind="draw")
    d.move(b, code, "0,1")
    assert d.hall.rooms[code].offers == {}
    refused = d.request(b, type="answer", room=code, kind="draw", accept=True)
    assert refused["code"] == "not_allowed"


def test_undo_goes_back_before_the_offerers_last_move_with_its_clocks() -> None:
    """Undo after the opponent replied takes back two moves and restores the clocks then."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 60, "increment": 2})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.advance(5)
    d.move(a, code, "1,0")
    d.advance(7)
    d.move(b, code, "1,1")
    d.advance(3)
    after_two = d.hall.rooms[code].history[2][0]
    d.move(a, code, "2,0")
    d.advance(4)
    d.move(b, code, "2,1")
    d.take(a, "room")
    d.take(b, "room")
    assert d.request(a, type="offer", room=code, kind="undo")["type"] == "ok"
    assert d.request(b, type="answer", room=code, kind="undo", accept=True)["type"] == "ok"
    snap = d.last(a, "room")
    assert snap["moves"] == ["0,0", "0,1", "1,0", "1,1"]
    assert snap["turn"] == "first"
    room = d.hall.rooms[code]
    assert room.clock.remaining == after_two | room.history[4][0]
    assert room.clock.remaining["first"] == 60000 - 5000 + 2000
    assert d.last(b, "room")["moves"] == snap["moves"]
    assert [type(w).__name__ for w in d.writes[-2:]] == ["TruncateMoves", "SaveGame"]


def test_undo_of_own_last_move_takes_back_one() -> None:
    """Undo offered right after one's own move takes back just that move."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.request(b, type="offer", room=code, kind="undo")
    d.request(a, type="answer", room=code, kind="undo", accept=True)
    assert d.hall.rooms[code].moves == ["0,0"]
    assert d.move(b, code, "5,0")["ply"] == 1


def test_undo_without_a_move_is_refused() -> None:
    """Nothing to take back: not_allowed."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    assert d.request(b, type="offer", room=code, kind="undo")["code"] == "not_allowed"


def test_swap_before_the_first_move_only() -> None:
    """Swap exchanges the seats before any move; after a move it is refused."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(b, type="offer", room=code, kind="swap")
    d.request(a, type="answer", room=code, kind="swap", accept=True)
    assert d.last(a, "room")["you"] == "second"
    assert d.last(b, "room")["you"] == "first"
    assert d.move(b, code, "0,0")["type"] == "moved"
    assert d.request(a, type="offer", room=code, kind="swap")["code"] == "not_allowed"


def test_rematch_opens_a_new_room_with_colours_swapped() -> None:
    """After the game, an accepted rematch seats both players, colours swapped, new game id."""
    d = HallDriver()
    a, b, code = d.table()
    assert d.request(a, type="offer", room=code, kind="rematch")["code"] == "not_allowed"
    d.request(a, type="resign", room=code)
    old_game = d.hall.rooms[code].game_id
    d.take(a, "room")
    d.take(b, "room")
    assert d.request(b, type="offer", room=code, kind="rematch")["type"] == "ok"
    assert d.request(a, type="answer", room=code, kind="rematch", accept=True)["type"] == "ok"
    new_a, new_b = d.last(a, "room"), d.last(b, "room")
    assert new_a["room"] == new_b["room"] != code
    assert (new_a["you"], new_b["you"]) == ("second", "first")
    assert new_a["status"] == "playing" and new_a["game_id"] != old_game
    assert d.request(a, type="offer", room=code, kind="rematch")["code"] == "not_allowed"


def test_abort_only_before_both_sides_moved() -> None:
    """Abort works while a side has not moved; afterwards it is refused."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    over = d.request(b, type="abort", room=code)
    assert (over["type"], over["result"], over["reason"]) == ("over", None, "aborted")
    a2, b2, code2 = d.table()
    d.move(a2, code2, "0,0")
    d.move(b2, code2, "0,1")
    assert d.request(a2, type="abort", room=code2)["code"] == "not_allowed"


def test_stop_and_report_go_to_the_engine() -> None:
    """A claim the engine refuses is not_allowed with its reason; the game goes on."""
    d = HallDriver()
    a, _b, code = d.table()
    refused = d.request(a, type="stop", room=code)
    assert refused["code"] == "not_allowed" and refused["message"]
    assert d.request(a, type="report", room=code, reason="x")["code"] == "not_allowed"
    assert d.hall.rooms[code].status == "playing"


def test_leave_and_cleanup() -> None:
    """Leaving a waiting room frees the seat; an empty room is closed; spectators may leave."""
    d = HallDriver()
    a = d.player("ann")
    code = d.request(a, type="create", game="hexgomoku")["room"]
    s = d.player("sue")
    d.request(s, type="join", room=code, role="spectator")
    assert d.request(s, type="leave", room=code)["type"] == "ok"
    assert d.request(a, type="leave", room=code)["type"] == "ok"
    assert code not in d.hall.rooms
    assert d.request(a, type="join", room=code)["code"] == "unknown_room"


def test_finished_rooms_are_cleaned_up() -> None:
    """A finished room closes after its time to live, or once everyone has gone."""
    d = HallDriver(ServerConfig(finished_room_ttl_s=60))
    a, _b, code = d.table()
    d.request(a, type="resign", room=code)
    d.advance(59)
    assert code in d.hall.rooms
    d.advance(2)
    assert code not in d.hall.rooms
    a2, b2, code2 = d.table()
    d.request(a2, type="resign", room=code2)
    for conn in (a2, b2):
        assert d.request(conn, type="leave", room=code2)["type"] == "ok"
    d.drop(a2)
    d.drop(b2)
    d.advance(0.001)
    assert code2 not in d.hall.rooms


def test_a_player_away_at_the_end_comes_back_to_the_result() -> None:
    """Everyone gone right after the end: the room waits ``finished_room_return_s`` after the
    end for a player whose connection dropped, who joins it again and sees the result."""
    d = HallDriver(ServerConfig(finished_room_return_s=60))
    a, b = d.player("ann"), d.open()
    token = d.request(b, type="hello", name="bob", protocol=1)["token"]
    code = d.request(a, type="create", game="hexgomoku", color="first")["room"]
    d.request(b, type="join", room=code)
    d.move(a, code, "0,0")
    d.drop(b)
    d.request(a, type="resign", room=code)
    d.drop(a)
    d.advance(59)
    assert code in d.hall.rooms
    back = d.open()
    welcome = d.request(back, type="hello", name="bob", protocol=1, token=token)
    assert welcome["resumed"] == []  # only unfinished games are resumed
    room = d.request(back, type="join", room=code)
    assert (room["type"], room["status"], room["you"]) == ("room", "over", "second")
    assert (room["moves"], room["result"]) == (["0,0"], "second")
    d.drop(back)  # the end is more than a minute old: nobody is waited for any more
    d.advance(2)
    assert code not in d.hall.rooms


def test_a_finished_room_without_its_players_closes_when_the_wait_is_over() -> None:
    """The players dropped at the end and never came back: closed a minute after the end,
    long before the finished room's time to live; a spectator leaving changes nothing."""
    d = HallDriver(ServerConfig(finished_room_return_s=60, finished_room_ttl_s=600))
    a, b, code = d.table()
    s = d.player("sue")
    d.request(s, type="join", room=code, role="spectator")
    d.request(a, type="resign", room=code)
    d.drop(a)
    d.drop(b)
    d.advance(30)
    assert d.request(s, type="leave", room=code)["type"] == "ok"
    d.advance(29)
    assert code in d.hall.rooms
    d.advance(2)
    assert code not in d.hall.rooms
    assert d.request(s, type="join", room=code, role="spectator")["code"] == "unknown_room"


def test_max_plies_ends_the_game_in_a_draw() -> None:
    """The max_plies room option draws a game that goes on too long."""
    d = HallDriver()
    a, b, code = d.table(options={"max_plies": 3})
    for conn, move in [(a, "0,0"), (b, "0,1"), (a, "5,0")]:
        d.move(conn, code, move)
    over = d.last(b, "over")
    assert (over["result"], over["reason"]) == ("draw", "move_limit")
    bad = d.request(a, type="create", game="hexgomoku", options={"max_plies": -1})
    assert bad["code"] == "bad_option"


def test_create_options_position_record_private_colour() -> None:
    """create honours colour, options, a position, a record, and private rooms stay unlisted."""
    d = HallDriver()
    a = d.player("ann")
    room = d.request(
        a,
        type="create",
        game="hexgomoku",
        color="second",
        private=True,
        options={"exact5": True},
        position="first;0,0;1,1",
    )
    assert (room["you"], room["options"]["exact5"], room["start"]) == (
        "second",
        True,
        "first;0,0;1,1",
    )
    assert d.request(a, type="list")["rooms"] == []
    record = '{"moves": ["0,0", "1,0", "2,2"]}'
    from_record = d.request(a, type="create", game="hexgomoku", record=record)
    assert from_record["start"].startswith("second;")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"options": {"colour": 1}}, "bad_option"),
        ({"variant": "huge"}, "unknown_variant"),
        ({"position": "first;0,0;"}, "bad_position"),
        ({"position": "x", "record": "y"}, "bad_position"),
        ({"opponent": "human"}, "bad_option"),
    ]
    for bad, code in cases:
        assert d.request(a, type="create", game="hexgomoku", **bad)["code"] == code, bad


def test_bots_unavailable_is_not_allowed() -> None:
    """Without the bot launcher, opponent bot:N is refused with a clear reason."""
    d = HallDriver(ServerConfig(bots_available=False))
    a = d.player("ann")
    reply = d.request(a, type="create", game="hexgomoku", opponent="bot:2")
    assert reply["code"] == "not_allowed" and "bots" in reply["message"]


def test_fair_colours_alternate_in_matchmaking() -> None:
    """Two players matched twice get the other colour the second time."""
    d = HallDriver()
    a, b = d.player("ann"), d.player("bob")
    d.request(a, type="join", game="hexgomoku")
    first = d.request(b, type="join", game="hexgomoku")
    d.request(b, type="resign", room=first["room"])
    d.request(a, type="join", game="hexgomoku")
    second = d.request(b, type="join", game="hexgomoku")
    assert {first["you"], second["you"]} == {"first", "second"}


def test_lobby_watch_pushes_changes() -> None:
    """A watcher gets a new rooms list when a room opens, fills or closes (at most 2 per s)."""
    d = HallDriver()
    w = d.player("wat")
    d.request(w, type="list", watch=True, game="hexgomoku")
    a = d.player("ann")
    code = d.request(a, type="create", game="hexgomoku")["room"]
    assert [r["room"] for r in d.last(w, "rooms")["rooms"]] == [code]
    d.request(a, type="create", game="chess")
    d.request(a, type="leave", room=code)
    assert d.take(w, "rooms") == []  # throttled: the next push comes at most 0.5 s later
    d.advance(0.5)
    pushed = d.take(w, "rooms")
    assert len(pushed) == 1 and pushed[0]["rooms"] == []
    d.advance(5)
    assert d.take(w, "rooms") == []
    d.request(w, type="list", watch=False)
    d.request(a, type="create", game="hexgomoku")
    d.advance(1)
    assert d.take(w, "rooms") == []


def test_lobby_lists_seeks_first_and_is_bounded() -> None:
    """Seeks and open rooms come before games being played; the list has at most 200 entries."""
    d = HallDriver()
    a, _b, _code = d.table()
    players = [d.player(f"p{i}") for i in range(205)]
    for i, conn in enumerate(players[:3]):
        d.request(conn, type="join", game="chess", clock={"per_move": 10 + i})
    for conn in players[3:]:
        d.request(conn, type="create", game="hexgomoku")
    rooms = d.request(a, type="list")["rooms"]
    assert len(rooms) == 200
    assert [r["seek"] for r in rooms[:3]] == [True] * 3
    assert all(r["status"] == "waiting" for r in rooms)


def test_spectator_chat_stays_with_spectators_until_the_end() -> None:
    """Players' and spectators' channels are separate while playing."""
    d = HallDriver()
    a, b, code = d.table()
    s = d.player("sue")
    d.request(s, type="join", room=code, role="spectator")
    d.request(s, type="chat", room=code, text="go ann")
    assert d.take(a, "chat") == [] and d.take(s, "chat")[0]["role"] == "spectator"
    d.request(a, type="chat", room=code, text="hi")
    assert d.take(b, "chat")[0]["text"] == "hi" and d.take(s, "chat") == []
    d.take(a, "chat")
    d.request(a, type="resign", room=code)
    d.request(s, type="chat", room=code, text="gg")
    assert d.take(a, "chat")[0]["text"] == "gg"


def test_limits_rooms_per_identity_and_spectators() -> None:
    """Per-identity room and per-room spectator limits refuse politely."""
    d = HallDriver(ServerConfig(rooms_per_identity=1, spectators_per_room=1))
    a = d.player("ann")
    code = d.request(a, type="create", game="hexgomoku")["room"]
    assert d.request(a, type="create", game="hexgomoku")["code"] == "not_allowed"
    s1, s2 = d.player("s1"), d.player("s2")
    d.request(s1, type="join", room=code, role="spectator")
    assert d.request(s2, type="join", room=code, role="spectator")["code"] == "room_full"


def test_rate_limit_then_flood_close() -> None:
    """Over the rate: rate_limited errors; a flood of errors closes with 1008."""
    d = HallDriver(ServerConfig(messages_per_second=5, flood_errors=10))
    a = d.player("ann")
    codes = [d.request(a, type="ping").get("code") for _ in range(12)]
    assert codes[:9] == [None] * 9  # a burst of two seconds' worth (hello took one)
    assert codes[9:] == ["rate_limited"] * 3
    d.advance(1.0)
    assert [d.request(a, type="ping")["type"] for _ in range(5)] == ["pong"] * 5
    assert d.request(a, type="ping")["code"] == "rate_limited"
    for _ in range(12):
        d.send(a, type="nonsense")
    assert d.closed[a] == 1008


def test_hello_rules() -> None:
    """Unknown protocol, unknown token, second hello; names are sanitised."""
    d = HallDriver()
    c = d.open()
    assert d.request(c, type="hello", name="x", protocol=2)["code"] == "unsupported_protocol"
    assert d.request(c, type="hello", name="x", protocol=1, token="nope")["code"] == "bad_token"
    welcome = d.request(c, type="hello", name=" a\u200bnn\n\x00 ", protocol=1)
    assert welcome["name"] == "ann" and welcome["resumed"] == []
    assert d.request(c, type="hello", name="x", protocol=1)["code"] == "not_allowed"


def test_token_resumes_seat_and_closes_older_connection() -> None:
    """hello with the token: resumed rooms, a full snapshot, presence; old connection 4001."""
    d = HallDriver()
    a = d.open()
    token = d.request(a, type="hello", name="ann", protocol=1)["token"]
    b = d.player("bob")
    code = d.request(a, type="create", game="hexgomoku", color="first")["room"]
    d.request(b, type="join", room=code)
    d.move(a, code, "0,0")
    a2 = d.open()
    welcome = d.request(a2, type="hello", name="ann", protocol=1, token=token)
    assert welcome["resumed"] == [code] and welcome["token"] == token
    assert d.closed[a] == 4001
    snap = d.last(a2, "room")
    assert snap["moves"] == ["0,0"] and snap["you"] == "first"
    assert d.last(b, "presence")["connected"] is True
    d.drop(a)  # the old connection's close must not unseat the new one
    assert d.hall.rooms[code].seats["first"].connected  # type: ignore[union-attr]
    assert d.move(b, code, "0,1")["type"] == "moved"
    assert d.last(a2, "moved")["move"] == "0,1"


def test_waiting_room_closes_only_while_its_creator_is_away() -> None:
    """An open room waits for an opponent as long as its creator is here."""
    d = HallDriver(ServerConfig(waiting_room_ttl_s=100))
    a = d.player("ann")
    code = d.request(a, type="create", game="hexgomoku")["room"]
    d.advance(1000)
    assert code in d.hall.rooms
    d.drop(a)
    d.advance(99)
    assert code in d.hall.rooms
    d.advance(2)
    assert code not in d.hall.rooms
    closed = [w for w in d.writes if type(w).__name__ == "SaveGame"][-1]
    assert closed.meta["status"] == "closed"


def test_identities_without_rooms_are_forgotten_on_disconnect() -> None:
    """Memory holds only identities that are connected or seated; storage keeps the rest."""
    d = HallDriver()
    a, b, code = d.table()
    c = d.player("cid")
    d.drop(c)
    assert len(d.hall.identities) == 2
    d.drop(a)
    assert len(d.hall.identities) == 2  # ann is still seated
    d.request(b, type="resign", room=code)
    d.advance(10_000)
    d.drop(b)
    assert d.hall.identities == {} and d.hall.rooms == {}


def test_a_finished_room_closes_once_its_players_have_left_it_though_still_online() -> None:
    """Both players left the finished room and stay connected for their next game: it closes
    then, not ten minutes later; while one of them is still in it (or a spectator), it stays."""
    d = HallDriver(ServerConfig(finished_room_ttl_s=600))
    a, b, code = d.table()
    s = d.player("sue")
    d.request(s, type="join", room=code, role="spectator")
    d.request(a, type="resign", room=code)
    assert d.request(a, type="leave", room=code)["type"] == "ok"
    d.advance(0.001)
    assert code in d.hall.rooms  # Bob is still in it
    assert d.request(b, type="leave", room=code)["type"] == "ok"
    d.advance(0.001)
    assert code in d.hall.rooms  # and Sue watches
    assert d.request(s, type="leave", room=code)["type"] == "ok"
    d.advance(0.001)
    assert code not in d.hall.rooms
    assert d.request(a, type="create", game="hexgomoku")["type"] == "room"  # online all along


def test_a_player_back_in_a_finished_room_keeps_it_open_for_its_full_time() -> None:
    """The room waited for Bob after everyone dropped at the end; once he is back it stays open
    for chat and rematch until ``finished_room_ttl_s`` after the end, not the shorter wait."""
    d = HallDriver(ServerConfig(finished_room_return_s=60, finished_room_ttl_s=600))
    a, b = d.player("ann"), d.open()
    token = d.request(b, type="hello", name="bob", protocol=1)["token"]
    code = d.request(a, type="create", game="hexgomoku", color="first")["room"]
    d.request(b, type="join", room=code)
    d.request(a, type="resign", room=code)
    d.drop(a)
    d.drop(b)
    d.advance(30)
    back = d.open()
    d.request(back, type="hello", name="bob", protocol=1, token=token)
    assert d.request(back, type="join", room=code)["status"] == "over"
    d.advance(500)
    assert code in d.hall.rooms
    d.advance(80)
    assert code not in d.hall.rooms
