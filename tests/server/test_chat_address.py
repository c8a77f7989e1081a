"""The chat guard per client address: every identity and connection of one address shares one
budget of lines (``--chat-address-lines``) and one repeat rule, so a spammer who reconnects
without a token, or opens several identities, is still held; another address is not. The hall
with an injected clock first, then a real server on loopback port 0 with real WebSocket
clients."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from protocol import limits
from server.config import ServerConfig
from server.outputs import SaveChat
from server.testing import HallDriver, WireClient
from tests.server.chat_tools import settled, table
from tests.server.helpers import LoopClock
from tests.server.tables import serving

HOME, CAFE = "198.51.100.7", "203.0.113.9"


def _hall(**config: Any) -> tuple[HallDriver, str]:
    """A hall where each player may say 2 lines in 10 s and each address 3, and the room of
    two players from :data:`CAFE` that everyone else watches; its code."""
    settings: dict[str, Any] = {"chat_lines": 2, "chat_address_lines": 3, "chat_window_s": 10}
    d = HallDriver(ServerConfig(**(settings | config)))
    first, second = d.player("cid", CAFE), d.player("dan", CAFE)
    code = d.request(first, type="create", game="hexgomoku", color="first")["room"]
    assert d.request(second, type="join", room=code)["status"] == "playing"
    return d, code


def _watcher(d: HallDriver, code: str, name: str, address: str) -> int:
    conn = d.player(name, address)
    assert d.request(conn, type="join", room=code, role="spectator")["type"] == "room"
    return conn


def _say(d: HallDriver, conn: int, code: str, text: str) -> dict[str, Any]:
    return d.request(conn, type="chat", room=code, text=text)


def _heard(d: HallDriver, conn: int) -> list[str]:
    return [line["text"] for line in d.take(conn, "chat")]


def test_two_identities_of_one_address_share_its_budget() -> None:
    """ann says her 2 lines, bob (same address, his own identity) 1: the address's 3. bob's
    second line is refused by the address (not by his own rate: he said one), naming the
    address and the wait; it reaches nobody and the room does not keep it. eve, from another
    address, still speaks."""
    d, code = _hall()
    ann, bob = _watcher(d, code, "ann", HOME), _watcher(d, code, "bob", HOME)
    eve = _watcher(d, code, "eve", "192.0.2.1")
    d.advance(1)
    assert _say(d, ann, code, "hello")["type"] == "ok"
    assert _say(d, ann, code, "anyone here")["type"] == "ok"
    d.advance(2)
    assert _say(d, bob, code, "hi ann")["type"] == "ok"
    refused = _say(d, bob, code, "buy gold")
    assert (refused["type"], refused["code"], refused["room"]) == ("error", "rate_limited", code)
    assert refused["message"] == (
        "too many chat lines from your address (at most 3 in 10 s): wait 8 s"
    )
    assert _say(d, eve, code, "hi all")["type"] == "ok"
    said = ["hello", "anyone here", "hi ann", "hi all"]
    assert _heard(d, eve) == said
    assert [kept.line.text for kept in d.hall.rooms[code].chat_lines] == said
    assert [w.text for w in d.writes if isinstance(w, SaveChat)] == said
    assert d.request(bob, type="ping")["type"] == "pong"  # still connected


def test_a_new_identity_is_not_a_new_budget() -> None:
    """ann is at her own rate; she reconnects without a token (a new player, a fresh rate of
    her own) and may say 1 line, the address's third, then no more until the window passes."""
    d, code = _hall()
    ann = _watcher(d, code, "ann", HOME)
    first = d.hall.sessions[ann].identity
    for text in ("one", "two"):
        assert _say(d, ann, code, text)["type"] == "ok"
    assert _say(d, ann, code, "three")["message"].startswith("at most 2 chat lines in 10 s")
    d.drop(ann)
    again = _watcher(d, code, "ann", HOME)
    assert first is not None and d.hall.sessions[again].identity not in (None, first)
    assert _say(d, again, code, "three")["type"] == "ok"
    refused = _say(d, again, code, "four")
    assert refused["message"].startswith("too many chat lines from your address"), refused
    d.advance(10)  # every line is out of the window: the address speaks again
    assert _say(d, again, code, "four")["type"] == "ok"


def test_the_window_passing_restores_the_address_line_by_line() -> None:
    """Lines at 0, 4 and 8 s fill the address; at 9.9 s it waits, at 10 s the first is out
    and one more passes (and not two)."""
    d, code = _hall(chat_lines=3)
    ann, bob = _watcher(d, code, "ann", HOME), _watcher(d, code, "bob", HOME)
    for n, conn in enumerate((ann, bob, ann)):
        d.advance(4 if n else 0)
        assert _say(d, conn, code, f"line {n}")["type"] == "ok"
    d.advance(1.9)  # 9.9 s after the first line
    assert _say(d, bob, code, "early")["message"].endswith("wait 1 s")
    d.advance(0.1)
    assert _say(d, bob, code, "on time")["type"] == "ok"
    assert _say(d, bob, code, "too soon")["message"].endswith("wait 4 s")


def test_the_same_line_from_another_identity_of_the_address_is_refused() -> None:
    """What ann said (the same words, whatever the case and spacing), bob from her address may
    not say within the repeat time, though his own rate and the address's allow a line; eve
    from elsewhere may, and so may bob once the time is over."""
    d, code = _hall(chat_address_lines=10)
    ann, bob = _watcher(d, code, "ann", HOME), _watcher(d, code, "bob", HOME)
    eve = _watcher(d, code, "eve", "192.0.2.1")
    assert _say(d, ann, code, "Visit spam.example")["type"] == "ok"
    d.advance(limits.CHAT_WINDOW_S)
    refused = _say(d, bob, code, "  visit SPAM.example ")
    assert (refused["code"], refused["message"]) == (
        "rate_limited",
        f"that was said from your address within {limits.CHAT_REPEAT_S} s: say something else",
    )
    assert _say(d, eve, code, "visit spam.example")["type"] == "ok"
    assert _say(d, bob, code, "something else")["type"] == "ok"
    d.advance(limits.CHAT_REPEAT_S - limits.CHAT_WINDOW_S)
    assert _say(d, bob, code, "visit spam.example")["type"] == "ok"


def test_the_addresses_of_one_ipv6_network_share_its_budget() -> None:
    """ann (2001:db8::1) and bob (2001:db8::2) are two addresses of one /64, which one
    subscriber gets whole (and may hop inside): they share the address's 3 lines and its repeat
    rule as if they were one address. eve (2001:db8:0:1::1), in the next /64, is another
    address. Each session still names its own address."""
    d, code = _hall()
    ann, bob = _watcher(d, code, "ann", "2001:db8::1"), _watcher(d, code, "bob", "2001:db8::2")
    eve = _watcher(d, code, "eve", "2001:db8:0:1::1")
    assert _say(d, ann, code, "Visit spam.example")["type"] == "ok"
    refused = _say(d, bob, code, "visit SPAM.example")
    assert refused["message"].startswith("that was said from your address"), refused
    assert _say(d, bob, code, "hello")["type"] == "ok"
    assert _say(d, ann, code, "anyone")["type"] == "ok"
    refused = _say(d, bob, code, "buy gold")
    assert refused["message"].startswith("too many chat lines from your address"), refused
    assert _say(d, eve, code, "visit spam.example")["type"] == "ok"
    assert _heard(d, eve) == ["Visit spam.example", "hello", "anyone", "visit spam.example"]
    assert [d.hall.sessions[c].address for c in (ann, bob, eve)] == [
        "2001:db8::1",
        "2001:db8::2",
        "2001:db8:0:1::1",
    ]


def test_an_ipv6_prefix_of_128_gives_each_address_its_own_budget() -> None:
    """With ``ipv6_prefix=128`` ann (2001:db8::1) and bob (2001:db8::2) are two addresses:
    each says 2 lines (4 in all, over one address's 3), bob the same long line as ann too."""
    d, code = _hall(ipv6_prefix=128)
    ann, bob = _watcher(d, code, "ann", "2001:db8::1"), _watcher(d, code, "bob", "2001:db8::2")
    for conn in (ann, bob):
        assert _say(d, conn, code, "Visit spam.example")["type"] == "ok"
        assert _say(d, conn, code, "hello")["type"] == "ok"
    assert _say(d, bob, code, "more")["message"].startswith("at most 2 chat lines"), "his own"


def test_an_ipv4_mapped_address_is_its_ipv4_address() -> None:
    """``::ffff:198.51.100.7`` (an IPv4 peer of a dual-stack socket) and ``198.51.100.7`` are
    one address: their players share its 3 lines."""
    d, code = _hall()
    ann, bob = _watcher(d, code, "ann", f"::ffff:{HOME}"), _watcher(d, code, "bob", HOME)
    for text in ("one", "two"):
        assert _say(d, ann, code, text)["type"] == "ok"
    assert _say(d, bob, code, "three")["type"] == "ok"
    refused = _say(d, bob, code, "four")
    assert refused["message"].startswith("too many chat lines from your address"), refused


def test_short_courtesies_may_be_said_by_each_player_of_an_address() -> None:
    """Two people at one address both say "gg" and "Good luck!" (under 12 characters), one
    after the other; a longer line bob repeats after ann is still refused."""
    d, code = _hall(chat_address_lines=10)
    ann, bob = _watcher(d, code, "ann", HOME), _watcher(d, code, "bob", HOME)
    for text in ("gg", "Good luck!"):
        assert _say(d, ann, code, text)["type"] == "ok"
        assert _say(d, bob, code, text)["type"] == "ok"
    d.advance(limits.CHAT_WINDOW_S)
    assert _say(d, ann, code, "thanks, well played")["type"] == "ok"
    refused = _say(d, bob, code, "Thanks, well played")
    assert refused["message"].startswith("that was said from your address"), refused
    assert _heard(d, bob)[-1] == "thanks, well played"


def test_zero_turns_the_address_guard_off() -> None:
    """With ``chat_address_lines=0`` three players of one address each say their own 2 lines,
    the same words too, and the hall keeps nothing per address; welcome says 0."""
    d, code = _hall(chat_address_lines=0)
    conns = [_watcher(d, code, name, HOME) for name in ("ann", "bob", "cat")]
    for conn in conns:
        assert _say(d, conn, code, "gg")["type"] == "ok"
        assert _say(d, conn, code, "well played")["type"] == "ok"
    assert _say(d, conns[0], code, "more")["message"].startswith("at most 2 chat lines")
    assert len(d.hall.address_lines) == 0
    welcome = d.request(d.open(HOME), type="hello", name="fay", protocol=1)
    assert welcome["limits"]["chat_address_lines"] == 0


def test_addresses_gone_quiet_are_forgotten() -> None:
    """300 addresses say a line each: the hall keeps 300; once they have been quiet longer
    than the window and the repeat time, the next line (from anyone) leaves only its own."""
    d, code = _hall()
    horizon = max(limits.CHAT_WINDOW_S, limits.CHAT_REPEAT_S)
    for n in range(300):
        conn = _watcher(d, code, f"p{n}", f"10.1.{n // 256}.{n % 256}")
        assert _say(d, conn, code, "hi")["type"] == "ok"
        d.drop(conn)  # the table outlives connections: a reconnect must not reset it
    assert len(d.hall.address_lines) == 300
    d.advance(horizon - 0.5)
    late = _watcher(d, code, "late", HOME)
    assert _say(d, late, code, "hi")["type"] == "ok"
    assert len(d.hall.address_lines) == 301  # the first ones are not yet quiet for long enough
    d.advance(0.5)
    assert _say(d, late, code, "still here")["type"] == "ok"
    assert len(d.hall.address_lines) == 1


def test_welcome_names_the_address_limit() -> None:
    d = HallDriver()
    welcome = d.request(d.open(), type="hello", name="ann", protocol=1)
    assert welcome["limits"]["chat_address_lines"] == limits.CHAT_ADDRESS_LINES == 15


async def test_two_clients_of_one_loopback_address_share_its_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a real server, ann and bob (their own tokens, both from 127.0.0.1) share the address's
    3 lines: bob's second is ``rate_limited`` naming the address and never reaches ann; bob
    reconnecting without a token gets no new budget; after the window he speaks again."""
    clock = LoopClock(asyncio.get_running_loop(), monkeypatch)
    config = ServerConfig(chat_lines=2, chat_address_lines=3)
    async with serving(tmp_path / "hall.db", config=config) as server:
        ann = await WireClient.connect(server.url, "ann")
        bob = await WireClient.connect(server.url, "bob")
        wires = [ann, bob]
        try:
            assert ann.welcome["token"] != bob.welcome["token"]
            assert ann.welcome["limits"]["chat_address_lines"] == 3
            code = await table(ann, bob)
            for text in ("hi", "gl"):
                assert (await ann.request(type="chat", room=code, text=text))["type"] == "ok"
            assert (await bob.request(type="chat", room=code, text="hf"))["type"] == "ok"
            refused = await bob.request(type="chat", room=code, text="spam")
            assert (refused["type"], refused["code"]) == ("error", "rate_limited"), refused
            assert "from your address" in refused["message"], refused
            fresh = await WireClient.connect(server.url, "bob")  # a new identity, same address
            wires.append(fresh)
            assert fresh.welcome["player"] != bob.welcome["player"]
            assert (await fresh.request(type="join", room=code, role="spectator"))["room"] == code
            refused = await fresh.request(type="chat", room=code, text="spam")
            assert "from your address" in refused.get("message", ""), refused
            clock.advance(limits.CHAT_WINDOW_S)
            assert (await bob.request(type="chat", room=code, text="sorry"))["type"] == "ok"
            await settled(ann)
            heard = [m["text"] for m in ann.inbox if m["type"] == "chat"]
            assert heard == ["hi", "gl", "hf", "sorry"]
        finally:
            for wire in wires:
                await wire.close()
