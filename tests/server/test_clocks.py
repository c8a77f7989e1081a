"""Every clock rule, on the sans-I/O core with an injected clock (no sockets, no sleeping)."""

from __future__ import annotations

from server.config import ServerConfig
from server.testing import HallDriver


def _opening(d: HallDriver, a: int, b: int, code: str) -> None:
    """Both sides make their first move (which is untimed, under the abort deadline)."""
    d.move(a, code, "0,0")
    d.move(b, code, "0,1")


def test_per_move_limit_flags_the_player_at_the_deadline() -> None:
    """20 s per move: the server flags the side to move itself, after the lag grace."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 20})
    _opening(d, a, b, code)
    d.advance(20.4)
    assert not d.take(b, "over")
    d.advance(0.2)
    over = d.last(b, "over")
    assert (over["result"], over["reason"]) == ("second", "timeout")
    assert d.hall.rooms[code].status == "over"


def test_per_move_limit_resets_every_move() -> None:
    """Each move gets the full per-move time again."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 20})
    _opening(d, a, b, code)
    for i, (mover, move) in enumerate([(a, "1,0"), (b, "1,1"), (a, "2,0"), (b, "2,1")]):
        d.advance(15)
        reply = d.move(mover, code, move)
        assert reply["type"] == "moved", (i, reply)
        assert reply["clocks"]["move"] == 20000
    assert d.hall.rooms[code].status == "playing"


def test_first_move_abort_deadline() -> None:
    """A side that does not make its first move within 30 s: the game is aborted, no result."""
    d = HallDriver()
    a, _b, code = d.table(clock={"initial": 300})
    snapshot = d.hall.rooms[code].view("first", d.now)
    assert snapshot.clocks is not None and snapshot.clocks.move == 30000
    d.advance(29.9)
    assert not d.take(a, "over")
    d.advance(0.2)
    over = d.last(a, "over")
    assert over["result"] is None and over["reason"] == "aborted"


def test_second_players_first_move_has_its_own_abort_deadline() -> None:
    """The abort deadline applies to each side's first move."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 300})
    d.advance(25)
    d.move(a, code, "0,0")
    d.advance(29)
    assert not d.take(b, "over")
    d.advance(1.1)
    assert d.last(b, "over")["reason"] == "aborted"


def test_fischer_increment_and_clock_start_after_own_first_move() -> None:
    """First moves cost nothing; later moves are charged and get the increment."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 60, "increment": 5})
    d.advance(10)
    first = d.move(a, code, "0,0")
    assert first["clocks"]["first"] == 60000
    d.advance(4)
    d.move(b, code, "0,1")
    d.advance(10)
    reply = d.move(a, code, "1,0")
    assert reply["clocks"]["first"] == 60000 - 10000 + 5000
    assert reply["clocks"]["running"] == "second"
    assert reply["lag_ms"] == 0


def test_lag_credit_is_bounded_and_recorded() -> None:
    """A move is credited its lag up to the per-move cap and the side's quota."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 60})
    _opening(d, a, b, code)
    d.advance(10)
    reply = d.move(a, code, "1,0", lag_ms=300)
    assert reply["lag_ms"] == 300
    assert reply["clocks"]["first"] == 60000 - 10000 + 300
    d.advance(5)
    greedy = d.move(b, code, "1,1", lag_ms=5000)
    assert greedy["lag_ms"] == 500
    d.advance(1)
    d.move(a, code, "2,0", lag_ms=5000)
    d.advance(1)
    # second used 500 of its 500 quota, then gained 100: at most 100 now
    assert d.move(b, code, "2,1", lag_ms=5000)["lag_ms"] == 100
    moves = [w for w in d.writes if type(w).__name__ == "SaveMove"]
    assert [m.lag_ms for m in moves][-4:] == [300, 500, 300, 100]


def test_main_time_runs_out() -> None:
    """Fischer without enough time left: flagged by the server's timer."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 30})
    _opening(d, a, b, code)
    d.advance(30.6)
    over = d.last(a, "over")
    assert (over["result"], over["reason"]) == ("second", "timeout")
    room = d.hall.rooms[code].view("first", d.now)
    assert room.clocks is not None and room.clocks.first == 0


def test_both_limits_at_once_the_per_move_limit_bites_first() -> None:
    """With 300 s main time and 10 s per move, 10 s on one move loses."""
    d = HallDriver()
    a, b, code = d.table(clock={"initial": 300, "per_move": 10})
    _opening(d, a, b, code)
    d.advance(10.6)
    assert d.last(a, "over")["reason"] == "timeout"


def test_untimed_room_never_flags() -> None:
    """No clock: no deadline, no abort, however long a move takes."""
    d = HallDriver()
    a, _b, code = d.table()
    assert d.hall.rooms[code].wake() is None
    d.advance(100_000)
    assert d.hall.rooms[code].status == "playing"
    assert d.move(a, code, "0,0")["clocks"] is None


def test_timeout_claim_is_checked_on_the_server_clock() -> None:
    """A claim before the opponent's time is out is refused; after it, it wins."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 20})
    _opening(d, a, b, code)
    d.move(a, code, "1,0")
    d.advance(19)
    early = d.request(a, type="timeout", room=code)
    assert early["code"] == "not_allowed"
    assert d.request(b, type="timeout", room=code)["code"] == "not_allowed"
    d.now += 1.2  # past the limit, inside the lag grace, before the timer fired
    over = d.request(a, type="timeout", room=code)
    assert (over["type"], over["result"], over["reason"]) == ("over", "first", "timeout")


def test_untimed_absence_claim_after_the_grace_period() -> None:
    """Untimed: the opponent may claim once a player has been away for the grace period."""
    d = HallDriver(ServerConfig(absence_grace_s=60))
    a, b, code = d.table()
    d.move(a, code, "0,0")
    d.drop(b)
    presence = d.last(a, "presence")
    assert (presence["seat"], presence["connected"]) == ("second", False)
    d.advance(59)
    refused = d.request(a, type="timeout", room=code)
    assert refused["code"] == "not_allowed" and "60" in refused["message"]
    d.advance(2)
    over = d.request(a, type="timeout", room=code)
    assert (over["result"], over["reason"]) == ("first", "abandoned")


def test_absent_player_in_a_timed_game_loses_on_time() -> None:
    """A player who left keeps the seat; the clock runs out normally."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 20})
    _opening(d, a, b, code)
    d.drop(a)
    d.advance(21)
    assert d.last(b, "over")["result"] == "second"


def test_flag_against_insufficient_material_is_a_draw() -> None:
    """Chess: Black flags while White has a bare king: draw (timeout_vs_insufficient)."""
    d = HallDriver()
    a, b, code = d.table(
        game="chess", clock={"per_move": 10}, position="k7/8/8/8/8/8/1q6/7K w - - 0 1"
    )
    for conn, move in [(a, "h1g1"), (b, "b2b3"), (a, "g1h1")]:
        assert d.move(conn, code, move)["type"] == "moved"
    d.advance(11)
    over = d.last(a, "over")
    assert (over["result"], over["reason"]) == ("draw", "timeout_vs_insufficient")


def test_move_after_the_flag_is_refused() -> None:
    """A move arriving after the deadline (the timer not yet run) ends the game instead."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 5})
    _opening(d, a, b, code)
    d.now += 6
    refused = d.move(a, code, "1,0")
    assert refused["code"] == "game_over"
    assert d.last(a, "over")["reason"] == "timeout"


def test_after_a_storage_failure_only_the_turns_after_held_moves_begin_again() -> None:
    driver = HallDriver()
    a1, _, seen = driver.table("chess", {"initial": 300})
    a2, _, held = driver.table("chess", {"initial": 300})
    driver.move(a1, seen, "e4")
    driver.move(a2, held, "d4")
    began = driver.hall.rooms[seen].clock.turn_start
    driver.advance(20)
    driver.hall.restart_turns_of({driver.hall.rooms[held].game_id}, driver.now)
    assert driver.hall.rooms[seen].clock.turn_start == began
    assert driver.hall.rooms[held].clock.turn_start == driver.now


def test_the_room_after_the_end_keeps_what_was_left_of_the_move() -> None:
    """20 s per move: the room snapshot after the end says what was left of the move it ended
    in (0 for a flag, 12 s for a resignation 8 s into the move), not nothing (clients then
    showed both faces at the whole limit beside "ran out of time"); it stays so later on."""
    d = HallDriver()
    a, b, code = d.table(clock={"per_move": 20})
    _opening(d, a, b, code)
    d.advance(21)
    flagged = d.last(b, "room")
    assert flagged["status"] == "over" and flagged["reason"] == "timeout"
    assert flagged["clocks"]["move"] == 0 and flagged["clocks"]["running"] is None

    d2 = HallDriver()
    a, b, code = d2.table(clock={"per_move": 20})
    _opening(d2, a, b, code)
    d2.advance(8)
    d2.request(a, type="resign", room=code)
    d2.advance(30)
    watcher = d2.player("wat")
    again = d2.request(watcher, type="join", room=code, role="spectator")
    assert again["status"] == "over" and again["clocks"]["move"] == 12_000, again["clocks"]
