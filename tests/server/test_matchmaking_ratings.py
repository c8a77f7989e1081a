"""Rating-aware matchmaking (``join`` without ``room``), driven through the sans-I/O hall with
its injected clock: the closest rating among the compatible seeks, a rating window that widens
with the waiting time (on the server's timer, with no message arriving), and first-come
pairing for bots and unrated pools (:mod:`server.matchmaking`)."""

from __future__ import annotations

from typing import Any

from server.glicko2 import Rating
from server.matchmaking import WINDOW_OPEN_AFTER_S, WINDOW_STEP_S
from server.testing import HallDriver

BLITZ = {"initial": 300, "increment": 3}
SETTLED = 60.0
"""A deviation well under 110: the window starts at 150."""


def _rated(
    d: HallDriver, name: str, rating: float, rd: float = SETTLED, key: str = "chess"
) -> int:
    """A connection that said hello as ``name``, whose rating ``key`` is ``rating``."""
    conn = d.player(name)
    identity = d.hall.sessions[conn].identity
    assert identity is not None
    d.hall.ratings.load(identity.player, {key: Rating(rating, rd, 0.06, 20)})
    return conn


def _seek(d: HallDriver, conn: int, **fields: Any) -> dict[str, Any]:
    """``conn`` asks for a blitz chess game (or what ``fields`` say); the reply."""
    return d.request(conn, **{"type": "join", "game": "chess", "clock": BLITZ, **fields})


def _opponent(d: HallDriver, conn: int, reply: dict[str, Any] | None = None) -> str:
    """The name of the player ``conn`` was matched with: from the ``room`` ``reply`` to its
    join, or else from the latest room snapshot it got."""
    room = reply if reply is not None else d.last(conn, "room")
    assert room["type"] == "room", room
    seats = [room["seats"]["first"]["name"], room["seats"]["second"]["name"]]
    mine = seats[0] if room["you"] == "first" else seats[1]
    (other,) = [name for name in seats if name != mine]
    return other


def _seeking(d: HallDriver) -> list[str]:
    """Names of the players whose seeks are waiting, oldest first."""
    return [d.hall.identities[s.player].name for s in d.hall.seeks.values()]


def test_a_seeker_is_paired_with_the_closest_rating_not_the_oldest_seek() -> None:
    """Two seeks (1800, then 1500) wait for 10 s (300 apart: windows of 250 by then); a
    provisional newcomer rated 1620 is within both their windows and its own, and takes the
    closer (1500), not the oldest."""
    d = HallDriver()
    for name, rating in (("old", 1800), ("mid", 1500)):
        assert _seek(d, _rated(d, name, rating))["type"] == "queued"
    d.advance(10)
    assert _seeking(d) == ["old", "mid"]
    me = _rated(d, "me", 1620, rd=350)
    reply = _seek(d, me)
    assert reply["type"] == "room" and reply["status"] == "playing"
    assert _opponent(d, me, reply) == "mid"
    assert _seeking(d) == ["old"]


def test_two_seeks_too_far_apart_wait_until_both_windows_reach_them() -> None:
    """1500 and 1800 (300 apart, settled: windows of 150 growing 50 every 5 s) are not paired at
    once; the server's timer pairs them when the later seek's window reaches 300 (15 s after
    it), with no message arriving; both get the room."""
    d = HallDriver()
    low, high = _rated(d, "low", 1500), _rated(d, "high", 1800)
    assert _seek(d, low)["type"] == "queued"
    d.advance(2)
    assert _seek(d, high)["type"] == "queued"
    assert d.hall.next_wake() == d.now + 3 * WINDOW_STEP_S  # not before: nothing to do
    d.advance(3 * WINDOW_STEP_S - 0.01)
    assert _seeking(d) == ["low", "high"] and not d.take(low, "room")
    d.advance(0.01)
    assert _seeking(d) == []
    assert _opponent(d, low) == "high" and _opponent(d, high) == "low"
    (room,) = d.hall.rooms.values()
    assert room.status == "playing"


def test_provisional_players_start_with_a_wider_window() -> None:
    """Two new players (deviation 350: provisional) 250 apart are paired at once; two settled
    players 250 apart are not."""
    d = HallDriver()
    assert _seek(d, _rated(d, "new1", 1500, rd=350))["type"] == "queued"
    assert _seek(d, _rated(d, "new2", 1750, rd=350))["type"] == "room"
    assert _seek(d, _rated(d, "old1", 1500))["type"] == "queued"
    assert _seek(d, _rated(d, "old2", 1750))["type"] == "queued"


def test_after_thirty_seconds_anyone_compatible_is_taken() -> None:
    """Ratings 1000 and 2400 (far beyond any window) are paired once both have waited long
    enough, and not a step before."""
    d = HallDriver()
    weak, strong = _rated(d, "weak", 1000), _rated(d, "strong", 2400)
    _seek(d, weak)
    _seek(d, strong)
    d.advance(WINDOW_OPEN_AFTER_S - 0.1)
    assert _seeking(d) == ["weak", "strong"]
    d.advance(0.1)
    assert _seeking(d) == [] and _opponent(d, weak) == "strong"


def test_a_newcomer_is_taken_when_both_windows_reach_it() -> None:
    """A seek that has widened its window does not take a newcomer outside the newcomer's own
    window; the timer pairs them when that one widens too, and the rest keep waiting."""
    d = HallDriver()
    _seek(d, _rated(d, "far", 1900))
    d.advance(10)  # far's window: 250
    _seek(d, _rated(d, "other", 1300))
    newcomer = _rated(d, "newcomer", 1700)  # 200 from far: inside far's 250, not its own 150
    assert _seek(d, newcomer)["type"] == "queued"
    d.advance(WINDOW_STEP_S)  # newcomer's window 200: far (200 away) is in both
    assert _opponent(d, newcomer) == "far"
    assert _seeking(d) == ["other"]


def test_one_seek_alone_sets_no_timer() -> None:
    """A pool with a single seek has nothing to re-check: no wake-up is planned for it, and
    a partner that leaves leaves at most one wake-up that finds nothing to do."""
    d = HallDriver()
    lone = _rated(d, "lone", 1500)
    _seek(d, lone)
    assert d.hall.next_wake() is None
    other = _rated(d, "other", 2000)
    _seek(d, other)
    assert d.hall.next_wake() is not None
    assert d.request(other, type="leave")["type"] == "ok"
    d.advance(WINDOW_OPEN_AFTER_S + 1)
    assert _seeking(d) == ["lone"] and d.hall.next_wake() is None
    assert not d.take(lone, "room")


def test_a_bot_seeking_is_paired_at_once_whatever_the_ratings() -> None:
    """A program that says hello as ``Bot ...`` pairs first come, with no window, both when it
    seeks and when a human seeks while it waits."""
    d = HallDriver()
    _seek(d, _rated(d, "strong", 2400))
    _seek(d, _rated(d, "weaker", 2100))
    bot = d.player("Crafty", client="Bot crafty 1.0")
    assert _opponent(d, bot, _seek(d, bot)) == "strong"  # the oldest, not the closest to 1500
    bot2 = d.player("Crafty2", client="Bot crafty 1.0")
    assert _opponent(d, bot2, _seek(d, bot2)) == "weaker"
    bot3 = d.player("Crafty3", client="Bot crafty 1.0")
    assert _seek(d, bot3)["type"] == "queued"
    human = _rated(d, "human", 2600)
    assert _opponent(d, human, _seek(d, human)) == "Crafty3"


def test_unrated_pools_pair_at_once_whatever_the_ratings() -> None:
    """Untimed games and games with options other than the defaults would not be rated: they
    pair first come, whatever the ratings."""
    d = HallDriver()
    _seek(d, _rated(d, "weak", 1000), clock=None)
    strong = _rated(d, "strong", 2400)
    assert _seek(d, strong, clock=None)["type"] == "room"
    opts = {"game": "draughts", "options": {"max_plies": 80}}
    _seek(d, _rated(d, "weak2", 1000, key="draughts"), **opts)
    assert _seek(d, _rated(d, "strong2", 2400, key="draughts"), **opts)["type"] == "room"


def test_a_seek_withdrawn_by_sitting_elsewhere_is_never_matched_by_the_timer() -> None:
    """A waiting seek is withdrawn when its player sits down in a room; the timer that would
    have paired it finds it gone."""
    d = HallDriver()
    a, b = _rated(d, "a", 1500), _rated(d, "b", 1800)
    _seek(d, a)
    _seek(d, b)
    host = d.player("host")
    code = d.request(host, type="create", game="hexgomoku", color="first")["room"]
    assert d.request(b, type="join", room=code)["status"] == "playing"
    assert _seeking(d) == ["a"]
    d.advance(WINDOW_OPEN_AFTER_S + 1)
    assert _seeking(d) == ["a"] and not d.take(a, "room")


def test_a_player_matched_by_the_timer_in_one_pool_leaves_its_other_pools() -> None:
    """A player seeking in two pools is matched in one by the re-check: its seek in the other
    is withdrawn before that pool is looked at, so it is never seated twice."""
    d = HallDriver()
    both, far = _rated(d, "both", 1500), _rated(d, "far", 1800)
    rapid = {"initial": 600, "increment": 5}
    _seek(d, both)
    _seek(d, both, clock=rapid)
    _seek(d, far)
    _seek(d, _rated(d, "other", 1800), clock=rapid)  # due with far
    d.advance(WINDOW_OPEN_AFTER_S)
    assert _opponent(d, both) == "far"
    assert _seeking(d) == ["other"]
    assert len(d.hall.rooms) == 1
