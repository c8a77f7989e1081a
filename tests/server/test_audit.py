"""Contract checks from the server audit: error order, scores on every ending, hostile records,
restart clocks, and the draughts short form over the wire."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from protocol import Create, decode_client
from server.config import ServerConfig
from server.hall import Hall, PreparedStart
from server.outputs import SaveGame, SaveMove, TruncateMoves
from server.room import Room
from server.storage import Storage
from server.testing import BoardhallServer, HallDriver, WireClient, running_server
from tests.server.helpers import Factory

# ---- error codes in DESIGN.md's order -----------------------------------------------------------


def test_move_errors_come_in_the_documented_order() -> None:
    """stale, then not_your_turn, then illegal_move, then not_allowed (a seat is still free)."""
    d = HallDriver()
    a, b = d.player("ann"), d.player("bob")
    code = d.request(a, type="create", game="hexgomoku", color="second")["room"]
    move = {"type": "move", "room": code}
    assert d.request(a, **move, ply=3, move="0,0")["code"] == "stale"
    assert d.request(a, **move, ply=0, move="0,0")["code"] == "not_your_turn"
    d.request(a, type="leave", room=code)
    code = d.request(a, type="create", game="hexgomoku", color="first")["room"]
    move["room"] = code
    assert d.request(a, **move, ply=0, move="99,99")["code"] == "illegal_move"
    refused = d.request(a, **move, ply=0, move="0,0")
    assert refused["code"] == "not_allowed" and "not started" in refused["message"]
    assert d.request(b, **move, ply=0, move="0,0")["code"] == "not_a_player"
    assert d.hall.rooms[code].moves == []


def test_game_over_comes_before_stale_and_before_an_offer_backoff() -> None:
    """After the end: a stale move, an offer during a backoff and an answer are all game_over."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    d.request(b, type="answer", room=code, kind="draw", accept=False)
    d.request(a, type="resign", room=code)
    assert d.request(a, type="move", room=code, ply=7, move="0,0")["code"] == "game_over"
    assert d.request(a, type="offer", room=code, kind="draw")["code"] == "game_over"
    assert d.request(b, type="offer", room=code, kind="undo")["code"] == "game_over"
    assert d.request(b, type="answer", room=code, kind="draw", accept=True)["code"] == "game_over"
    assert d.request(b, type="offer", room=code, kind="rematch")["type"] == "ok"


def test_hello_errors_come_in_the_documented_order() -> None:
    """A second hello: unsupported_protocol and bad_token are named before not_allowed."""
    d = HallDriver()
    a = d.player("ann")
    assert d.request(a, type="hello", name="x", protocol=9)["code"] == "unsupported_protocol"
    assert d.request(a, type="hello", name="x", protocol=1, token="nope")["code"] == "bad_token"
    assert d.request(a, type="hello", name="x", protocol=1)["code"] == "not_allowed"


def test_bad_position_comes_before_bots_unavailable() -> None:
    """create with a bot and a broken position: bad_position, then not_allowed once it is fine."""
    d = HallDriver(ServerConfig(bots_available=False))
    a = d.player("ann")
    bot: dict[str, Any] = {"type": "create", "game": "chess", "opponent": "bot:2"}
    assert d.request(a, **bot, position="nonsense")["code"] == "bad_position"
    assert d.request(a, **bot)["code"] == "not_allowed"
    assert d.request(a, **{**bot, "opponent": "bot:99"})["code"] == "bad_option"
    assert d.hall.rooms == {}


# ---- scores on every ending of a game that has them ---------------------------------------------


@pytest.mark.parametrize(
    ("ending", "reason"),
    [("resign", "resign"), ("abort", "aborted"), ("draw", "agreement"), ("flag", "timeout")],
)
def test_number_chess_endings_carry_both_scores(ending: str, reason: str) -> None:
    """Resign, abort, agreed draw and a flag in number chess send both scores and store them."""
    d = HallDriver()
    a, b, code = d.table(game="shuqi", clock={"per_move": 30})
    room = d.hall.rooms[code]
    if ending != "abort":
        d.move(a, code, room.engine.legal_moves(room.state)[0])
        d.move(b, code, room.engine.legal_moves(room.state)[0])
    overs = []
    if ending == "resign":
        overs.append(d.request(b, type="resign", room=code))
    elif ending == "abort":
        overs.append(d.request(a, type="abort", room=code))
    elif ending == "draw":
        d.request(a, type="offer", room=code, kind="draw")
        d.request(b, type="answer", room=code, kind="draw", accept=True)
    else:
        d.advance(31)
    overs += d.take(a, "over") + d.take(b, "over")
    expected = room.engine.scores(room.state)  # type: ignore[attr-defined]
    assert len(overs) == 2 and set(expected) == {"first", "second"}
    for over in overs:
        assert over["type"] == "over" and over["reason"] == reason
        assert over["scores"] == expected
    saved = [w.meta for w in d.writes if isinstance(w, SaveGame)][-1]
    assert saved["reason"] == reason and saved["scores"] == expected


def test_games_without_scores_send_none() -> None:
    """Chess has no scores: over.scores stays null."""
    d = HallDriver()
    a, b, code = d.table(game="chess")
    d.request(a, type="resign", room=code)
    assert d.last(b, "over")["scores"] is None


# ---- hostile records and positions --------------------------------------------------------------


@pytest.mark.parametrize("game", engines.available())
def test_deeply_nested_record_is_bad_position(game: str) -> None:
    """A record of 40,000 nested brackets is refused as bad_position (never internal)."""
    d = HallDriver()
    a = d.player("ann")
    for record in ("[" * 40_000, '{"moves":' * 5_000):
        reply = d.request(a, type="create", game=game, record=record)
        assert reply["code"] == "bad_position", reply
    assert d.hall.rooms == {}


def test_prepared_start_is_used_and_its_error_raised_in_order() -> None:
    """A record parsed by Hall.prepare (another thread in the server) gives the same answers."""
    d = HallDriver()
    a = d.player("ann")
    hall = d.hall

    def create(**fields: Any) -> dict[str, Any]:
        message = decode_client(json.dumps({"type": "create", "id": "c", **fields}))
        assert isinstance(message, Create) and hall.wants_preparing(a, message)
        prepared = hall.prepare(message)
        out = hall.handle(a, message, d.now, 0, prepared)
        (reply,) = [json.loads(m.model_dump_json()) for _, m in out.sends]
        return reply

    room = create(game="chess", record="1. e4 e5 2. Nf3 *")
    assert room["type"] == "room" and room["start"].split()[1] == "b"
    assert create(game="chess", record="1. e4 e4 *")["code"] == "bad_position"
    assert create(game="nope", record="1. e4 *")["code"] == "unknown_game"
    assert create(game="chess", record="1. e4 *", options={"zz": 1})["code"] == "bad_option"


async def test_a_long_record_does_not_stall_other_connections(
    server: BoardhallServer, client: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one create replays a 48 KiB chess record, another connection is answered at once.

    The replay is held once it has begun until bob has been answered three times: answered on
    the event loop, it would hold the loop too, and bob would not be."""
    ann, bob = await client("ann"), await client("bob")
    cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    parts: list[str] = []
    while len(" ".join(parts)) < 47 * 1024:
        n = len(parts)
        parts.append(f"{n // 2 + 1}. {cycle[n % 4]}" if n % 2 == 0 else cycle[n % 4])
    loop = asyncio.get_running_loop()
    begun = asyncio.Event()
    release = threading.Event()
    prepare = server.hall.prepare

    def held_prepare(message: Create) -> PreparedStart:
        loop.call_soon_threadsafe(begun.set)
        release.wait(20)
        return prepare(message)

    monkeypatch.setattr(server.hall, "prepare", held_prepare)
    await ann.send(id="big", type="create", game="chess", record=" ".join(parts) + " *")
    await asyncio.wait_for(begun.wait(), 10)
    try:
        for _ in range(3):
            assert (await bob.request(type="ping", timeout=5))["type"] == "pong"
        assert not [m for m in ann.inbox if m.get("re") == "big"], "answered while held"
    finally:
        release.set()
    reply = await ann.expect(None, timeout=60, re="big")
    # the knights' dance repeats the position: the replayed record ends a drawn game
    assert (reply["type"], reply["code"]) == ("error", "bad_position"), reply
    assert "already over" in reply["message"], reply


# ---- restart: the downtime and the restoring are charged to nobody ------------------------------


def test_restored_clocks_restart_when_the_server_is_back() -> None:
    """A game restored at t and served from t + 5 charges the mover only from t + 5."""
    d = HallDriver()
    a, b, code = d.table(game="hexgomoku", clock={"initial": 60})
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    d.advance(2)
    d.move(a, code, "1,0")
    d.advance(3)
    d.move(b, code, "1,1")
    d.advance(4)  # first has used 4 s of the turn when the server dies
    storage = Storage(":memory:")
    storage.apply(w for w in d.writes if isinstance(w, (SaveGame, SaveMove, TruncateMoves)))
    hall = Hall(ServerConfig(), wall_offset=1.7e9)
    ((meta, moves),) = storage.unfinished()
    room = hall.restore(meta, moves, 5000.0)
    assert room.moves == ["0,0", "0,1", "1,0", "1,1"]
    assert room.clock.remaining == {"first": 58000, "second": 57000}
    hall.restart_clocks(5005.0)  # restoring took 5 s
    clocks = room.clock.snapshot(5006.0)
    assert clocks is not None
    assert (clocks.first, clocks.second, clocks.running) == (57000, 57000, "first")
    assert room.wake() == pytest.approx(5005.0 + 58.0 + 0.5)  # main time + lag grace
    hall.tick(5060.0)  # the wake-up planned at restore time flags nobody
    assert room.status == "playing"
    hall.tick(5063.6)
    assert room.status == "over" and room.outcome is not None
    assert (room.outcome.winner, room.outcome.reason) == ("second", "timeout")


# ---- sanitised names and chat -------------------------------------------------------------------


def test_names_and_chat_lose_bidi_overrides_and_controls() -> None:
    """U+202E and friends, zero-width and control characters are dropped; whitespace collapses."""
    d = HallDriver()
    a = d.player("\u202eeve\u2066 \t x\u200f")
    code = d.request(a, type="create", game="hexgomoku")["room"]
    seats = d.hall.rooms[code].view(None, d.now).seats
    assert "eve x" in (seats.first.name if seats.first else seats.second.name)  # type: ignore[union-attr]
    spectator = d.player("sue")
    d.request(spectator, type="join", room=code, role="spectator")
    d.request(a, type="chat", room=code, text="hi\u202e\x1b[31m  there\r\n")
    assert d.last(a, "chat")["text"] == "hi[31m there"
    assert d.request(a, type="chat", room=code, text="\u202e\u200b \n")["code"] == "bad_message"


# ---- draughts over the wire ---------------------------------------------------------------------


async def test_draughts_ambiguous_short_form_lists_the_choices(client: Factory) -> None:
    """45x16 with two capture paths: illegal_move naming both; the full path is then played."""
    ann, bob = await client("ann"), await client("bob")
    room = await ann.request(
        type="create", game="draughts", position="W:WK45,K44:B33,K34,K28,21,5", color="first"
    )
    code = room["room"]
    await bob.request(type="join", room=code)
    refused = await ann.request(type="move", room=code, ply=0, move="45x16")
    assert refused["code"] == "illegal_move"
    assert "45x23x32x16" in refused["message"] and "45x29x38x16" in refused["message"]
    moved = await ann.request(type="move", room=code, ply=0, move="45x29x38x16")
    assert moved["type"] == "moved" and moved["position"] == "B:WK16,K44:B5,K28"
    assert (await bob.expect("moved"))["move"] == moved["move"]


# ---- offers, leave and quotas ----------------------------------------------------------------


def test_crossing_undo_offers_are_not_an_acceptance() -> None:
    """Each side's undo takes back its own move: a second undo offer does not accept the first."""
    d = HallDriver()
    a, b, code = d.table()
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")
    assert d.request(a, type="offer", room=code, kind="undo")["type"] == "ok"
    crossing = d.request(b, type="offer", room=code, kind="undo")
    assert crossing["code"] == "not_allowed" and "answer" in crossing["message"]
    assert d.hall.rooms[code].moves == ["0,0", "0,1"]
    assert d.request(b, type="answer", room=code, kind="undo", accept=True)["type"] == "ok"
    assert d.hall.rooms[code].moves == []
    clocks_free = d.last(a, "room")
    assert clocks_free["moves"] == [] and clocks_free["turn"] == "first"


def test_crossing_draw_offers_agree() -> None:
    """Both offer a draw: the second offer accepts the first (one reply each)."""
    d = HallDriver()
    a, b, code = d.table()
    d.request(a, type="offer", room=code, kind="draw")
    assert d.request(b, type="offer", room=code, kind="draw")["type"] == "ok"
    assert d.last(a, "over")["reason"] == "agreement"


def test_leave_during_a_game_is_not_allowed_and_changes_nothing() -> None:
    """A seated player cannot leave a game in progress; spectators can."""
    d = HallDriver()
    a, b, code = d.table()
    refused = d.request(a, type="leave", room=code)
    assert refused["code"] == "not_allowed" and "resign" in refused["message"]
    room = d.hall.rooms[code]
    assert room.status == "playing" and room.seat_of(d.hall.sessions[a].identity.player)  # type: ignore[union-attr]
    assert d.request(b, type="leave")["code"] == "not_allowed"  # no seek to cancel


def test_rooms_per_identity_also_bounds_seeks() -> None:
    """An identity at its room quota may not queue for another game either."""
    d = HallDriver(ServerConfig(rooms_per_identity=1))
    a = d.player("ann")
    d.request(a, type="create", game="hexgomoku")
    assert d.request(a, type="join", game="chess")["code"] == "not_allowed"
    assert d.hall.seeks == {}


def test_the_bot_seat_follows_a_swap_and_a_rematch() -> None:
    """A room made to play the computer keeps knowing which seat is the bot's."""
    d = HallDriver()
    a = d.player("ann")
    room = d.request(a, type="create", game="hexgomoku", color="first", opponent="bot:1")
    code = room["room"]
    (launch,) = d.bots
    bot = d.player("bot", client="bot/1", token=launch.token)
    assert d.request(bot, type="join", room=code)["you"] == "second"
    d.request(a, type="offer", room=code, kind="swap")
    d.request(bot, type="answer", room=code, kind="swap", accept=True)
    assert d.hall.rooms[code].bot_seat == "first"
    d.request(a, type="resign", room=code)
    d.request(bot, type="offer", room=code, kind="rematch")
    d.request(a, type="answer", room=code, kind="rematch", accept=True)
    new = d.last(bot, "room")
    assert new["room"] != code and new["you"] == "second"
    assert d.hall.rooms[new["room"]].bot_seat == "second"
    assert d.hall.rooms[new["room"]].bot_level == 1


def test_nobody_but_the_started_bot_sits_in_a_bot_seat() -> None:
    """Calling oneself a bot gains nothing: the bot's seat belongs to the identity whose token
    the server gave the process it started, also after a restart mints a new one."""
    d = HallDriver()
    a = d.player("ann")
    code = d.request(a, type="create", game="hexgomoku", color="first", opponent="bot:2")["room"]
    seats = d.hall.rooms[code].seats
    assert seats["second"] is not None and seats["second"].bot and not seats["second"].connected
    impostor = d.player("mallory", client="bot boardhall")
    reply = d.request(impostor, type="join", room=code)
    assert (reply["type"], reply["code"]) == ("error", "room_full")
    with pytest.raises(AssertionError):  # a guessed token is refused at hello
        d.player("mallory", token="not-the-bots-token")
    (launch,) = d.bots
    bot = d.player("Computer", client="bot boardhall", token=launch.token)
    assert d.request(bot, type="join", room=code)["you"] == "second"
    d.drop(bot)
    (relaunch,) = d.hall.bot_launches()
    assert relaunch.room == code and relaunch.token != launch.token
    with pytest.raises(AssertionError):  # the old token died with the relaunch
        d.player("stale", token=launch.token)
    again = d.player("Computer", client="bot boardhall", token=relaunch.token)
    assert d.request(again, type="join", room=code)["you"] == "second"


# ---- the server's own timers over real sockets ------------------------------------------------


async def test_the_server_fires_abort_and_flag_deadlines_itself() -> None:
    """No client claim: the abort deadline and then the flag end games on the server's timer."""
    async with running_server(port=0, config=ServerConfig(abort_after_s=0.3)) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        try:
            clock = {"per_move": 1}
            room = await ann.request(type="create", game="hexgomoku", color="first", clock=clock)
            await bob.request(type="join", room=room["room"])
            over = await bob.expect("over", room=room["room"])
            assert (over["result"], over["reason"]) == (None, "aborted")
            room = await ann.request(type="create", game="hexgomoku", color="first", clock=clock)
            code = room["room"]
            await bob.request(type="join", room=code)
            await ann.request(type="move", room=code, ply=0, move="0,0")
            await bob.request(type="move", room=code, ply=1, move="0,1")
            await ann.request(type="move", room=code, ply=2, move="1,0")
            over = await ann.expect("over", room=code)  # bob never moves again
            assert (over["result"], over["reason"]) == ("first", "timeout")
            assert (await bob.expect("over", room=code))["reason"] == "timeout"
        finally:
            await ann.close()
            await bob.close()


def test_a_custom_game_stores_its_variant_definition() -> None:
    """The room snapshot carries variant_info; the stored game and its JSON record keep it."""
    from server.records import export

    d = HallDriver()
    a, _b, code = d.table(game="custom", variant="stones")
    snap = d.hall.rooms[code].view("first", d.now)
    assert snap.variant_info is not None and snap.variant_info["id"] == "stones"
    d.request(a, type="resign", room=code)
    meta = [w.meta for w in d.writes if isinstance(w, SaveGame)][-1]
    assert meta["variant_info"] == snap.variant_info
    content_type, body = export(meta, [], "json")
    assert content_type == "application/json"
    assert json.loads(body)["variant_info"] == snap.variant_info


def test_an_empty_chat_line_is_bad_message_before_the_room_is_looked_up() -> None:
    """A line that is empty once cleaned is bad_message, even to an unknown room."""
    d = HallDriver()
    a = d.player("ann")
    assert d.request(a, type="chat", room="nope", text="\u200b\x07")["code"] == "bad_message"
    assert d.request(a, type="chat", room="nope", text="hi")["code"] == "unknown_room"


# ---- property: every game, real legal moves -----------------------------------------------------

MOVE = st.tuples(st.just("move"), st.integers(0, 10_000), st.integers(0, 7))
ACTION = st.one_of(
    MOVE,
    MOVE,
    MOVE,
    MOVE,
    MOVE,
    st.tuples(st.just("offer"), st.sampled_from(["draw", "undo", "rematch", "swap"])),
    st.tuples(st.just("answer"), st.sampled_from(["draw", "undo", "rematch", "swap"])),
    st.tuples(st.just("claim"), st.sampled_from(["resign", "abort", "timeout", "stop", "report"])),
    st.tuples(st.just("wait"), st.sampled_from([0.5, 3.0, 40.0])),
    st.tuples(st.just("drop")),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(engines.available()),
    clock=st.sampled_from([None, {"per_move": 20}, {"initial": 30, "increment": 2}]),
    actions=st.lists(ACTION, min_size=10, max_size=40),
)
def test_games_driven_by_legal_moves_keep_the_rules(
    game: str, clock: dict[str, int] | None, actions: list[Any]
) -> None:
    """Legal moves, offers, answers, claims, waits and drops in every game: one reply each, never
    internal; the room replays to its position; every ending of a scored game carries scores."""
    d = HallDriver()
    issued = iter(["token-a", "token-b"])
    d.hall.token_factory = lambda: next(issued)
    a, b, code = d.table(game=game, clock=clock)
    players = {a: "token-a", b: "token-b"}

    def side(conn: int, room: Room) -> str | None:
        identity = d.hall.sessions[conn].identity
        assert identity is not None
        return room.seat_of(identity.player)

    for kind, *args in actions:
        room = d.hall.rooms.get(code)
        if room is None:
            break
        if kind == "wait":
            d.advance(args[0])
            continue
        conns = list(players)
        if kind == "drop":  # and come back with the token
            token = players.pop(conns[0])
            d.drop(conns[0])
            back = d.player("back", token=token)
            players[back] = token
            if room.status != "over":  # welcome.resumed and a snapshot of the unfinished game
                assert d.last(back, "room")["room"] == code
            continue
        turn_conn = next((c for c in conns if side(c, room) == room.state.turn), conns[0])
        other_conn = conns[1] if turn_conn == conns[0] else conns[0]
        if kind == "move":
            legal = room.engine.legal_moves(room.state) if room.status == "playing" else []
            text = legal[args[0] % len(legal)] if legal and args[1] else "zz9"
            fields: dict[str, Any] = {"type": "move", "ply": len(room.moves), "move": text}
            conn = turn_conn
        elif kind == "offer":
            fields, conn = {"type": "offer", "kind": args[0]}, turn_conn
        elif kind == "answer":
            fields = {"type": "answer", "kind": args[0], "accept": True}
            conn = other_conn
        else:
            fields, conn = {"type": args[0]}, turn_conn
        reply = d.request(conn, room=code, **fields)
        assert reply.get("code") != "internal", (fields, reply)
        for each in d.hall.rooms.values():
            replayed = each.states[0]
            for move in each.moves:
                replayed = each.engine.play(replayed, move)
            assert each.engine.position(replayed) == each.engine.position(each.state)
            if each.outcome is not None and hasattr(each.engine, "scores"):
                assert each.outcome.scores is not None


class _FlagBug:
    """The real engine, except that ``timeout_outcome`` fails (a bug in a rules module)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def timeout_outcome(self, state: Any, loser: str) -> Any:
        raise RuntimeError("bug in the rules")


def test_a_failing_timer_in_one_room_does_not_stop_the_others() -> None:
    """The broken room's flag is logged; the next room's flag still fires on time."""
    d = HallDriver()
    a, b, broken = d.table(clock={"per_move": 5})
    c, e, fine = d.table(clock={"per_move": 5})
    for code, first, second in ((broken, a, b), (fine, c, e)):
        d.move(first, code, "0,0")
        d.move(second, code, "0,1")
    d.hall.rooms[broken].engine = _FlagBug(d.hall.rooms[broken].engine)  # type: ignore[assignment]
    d.advance(6)
    assert d.hall.rooms[broken].status == "playing"
    over = d.last(e, "over")
    assert (over["room"], over["reason"], over["result"]) == (fine, "timeout", "second")
    assert d.move(b, broken, "5,5")["code"] == "not_your_turn"


def test_spectators_see_a_player_drop_and_return() -> None:
    """presence goes to the opponent and to spectators; the returning player gets a snapshot."""
    d = HallDriver()
    issued = iter(["token-a", "token-b", "token-s"])
    d.hall.token_factory = lambda: next(issued)
    a, b, code = d.table(clock={"initial": 60})
    s = d.player("sue")
    d.request(s, type="join", room=code, role="spectator")
    d.move(a, code, "0,0")
    d.drop(b)
    for conn in (a, s):
        gone = d.last(conn, "presence")
        assert (gone["seat"], gone["connected"], gone["spectators"]) == ("second", False, 1)
    back = d.player("bob", token="token-b")
    for conn in (a, s):
        assert d.last(conn, "presence")["connected"] is True
    snap = d.last(back, "room")
    assert (snap["you"], snap["moves"], snap["seats"]["second"]["connected"]) == (
        "second",
        ["0,0"],
        True,
    )
    assert d.move(back, code, "0,1")["type"] == "moved"


def test_an_increment_alone_is_untimed_and_matches_untimed_seeks() -> None:
    """{increment: 3} without a main time or a per-move limit is an untimed game."""
    d = HallDriver()
    a, b = d.player("ann"), d.player("bob")
    assert d.request(a, type="join", game="hexgomoku", clock={"increment": 3})["type"] == "queued"
    room = d.request(b, type="join", game="hexgomoku")
    assert room["type"] == "room" and room["clock"] is None and room["clocks"] is None


def test_a_seated_player_watching_its_own_room_is_not_a_spectator() -> None:
    """join role spectator by a seated player: the snapshot again, the count unchanged."""
    d = HallDriver()
    a, _b, code = d.table()
    again = d.request(a, type="join", room=code, role="spectator")
    assert (again["type"], again["you"], again["spectators"]) == ("room", "first", 0)
    assert d.hall.rooms[code].spectators == set()
    assert d.request(a, type="leave", room=code)["code"] == "not_allowed"


@pytest.mark.parametrize("game", engines.available())
def test_every_game_starts_from_its_own_saved_record(game: str) -> None:
    """A record the server exports (PGN, PDN, its JSON record) opens a room where it ended; a
    JSON record of another game is bad_position."""
    from server.records import export

    d = HallDriver()
    a, b, code = d.table(game=game)
    room = d.hall.rooms[code]
    for ply in range(4):
        d.move((a, b)[ply % 2], code, room.engine.legal_moves(room.state)[0])
    meta = room.meta()
    stored = [
        {"move": m, "by": n.by, "at": n.at} for m, n in zip(room.moves, room.notes, strict=True)
    ]
    fresh = d.player("cat")
    for fmt in (None, "json"):
        _, record = export(meta, stored, fmt)
        opened = d.request(fresh, type="create", game=game, variant=room.variant, record=record)
        assert opened["type"] == "room", opened
        assert opened["start"] == room.engine.position(room.state)
        assert opened["moves"] == []
    other = "chess" if game != "chess" else "draughts"
    refused = d.request(fresh, type="create", game=other, record=export(meta, stored, "json")[1])
    assert refused["code"] == "bad_position" and f"record of {game!r}" in refused["message"]


def test_a_finished_game_keeps_players_moves_clock_times_result_and_reason() -> None:
    """What storage holds of a finished timed game, and what its JSON record shows."""
    from server.records import export

    d = HallDriver()
    a, b, code = d.table(clock={"initial": 60, "increment": 1})
    for ply, move in enumerate(["0,0", "0,1", "1,0", "1,1"]):
        d.advance(2)
        d.move((a, b)[ply % 2], code, move, lag_ms=100)
    d.advance(3)
    d.request(b, type="resign", room=code)
    storage = Storage(":memory:")
    storage.apply(w for w in d.writes if isinstance(w, (SaveGame, SaveMove, TruncateMoves)))
    game_id = d.hall.rooms[code].game_id
    found = storage.game(game_id)
    assert found is not None
    meta, moves = found
    assert (meta["status"], meta["result"], meta["reason"]) == ("over", "first", "resign")
    assert [meta["seats"][s]["name"] for s in ("first", "second")] == ["ann", "bob"]
    assert [m["move"] for m in moves] == ["0,0", "0,1", "1,0", "1,1"]
    assert [m["clock_ms"] for m in moves] == [
        60000,
        60000,
        60000 - 1900 + 1000,
        60000 - 1900 + 1000,
    ]
    assert [m["lag_ms"] for m in moves] == [0, 0, 100, 100]
    assert meta["remaining"] == {"first": 59100 - 3000, "second": 59100}  # first was to move
    record = json.loads(export(meta, moves, "json")[1])
    assert record["moves"][2]["clock_ms"] == 59100 and record["reason"] == "resign"


def test_games_against_the_computer_are_bounded() -> None:
    """Each bot is a process: --bot-games bounds how many bot games run at once."""
    from server.cli import build_parser, config_from

    assert config_from(build_parser().parse_args(["--bot-games", "3"])).bot_games == 3
    d = HallDriver(ServerConfig(bot_games=2))
    a, b = d.player("ann"), d.player("bob")
    bot: dict[str, Any] = {"type": "create", "game": "hexgomoku", "opponent": "bot:1"}
    first = d.request(a, **bot)
    assert first["type"] == "room" and d.request(b, **bot)["type"] == "room"
    refused = d.request(b, **bot)
    assert refused["code"] == "not_allowed" and "computer" in refused["message"]
    d.request(a, type="abort", room=first["room"])
    assert d.request(b, **bot)["type"] == "room"


def test_a_server_without_bot_games_says_so_rather_than_try_later() -> None:
    """--bot-games 0: a room against the computer can never be had, so "try later" was wrong."""
    d = HallDriver(ServerConfig(bot_games=0))
    refused = d.request(d.player("ann"), type="create", game="hexgomoku", opponent="bot:1")
    assert refused["code"] == "not_allowed"
    assert refused["message"] == (
        "this server does not play against the computer (started with --bot-games 0)"
    )
