"""Bad input: a hypothesis-driven protocol fuzzer against one real server, with a game beside it.

Every frame is followed by a ``ping`` barrier; everything the server sent in between is checked
against DESIGN.md by :mod:`bench.fuzzlib` (an ``error`` with the right code and ``re`` and the
connection stays open; exactly one reply for a valid message with an ``id``; 1009 only for a
frame over the limit; standard JSON in the protocol's shapes; never ``internal``). A scripted
chess game advances every few frames and must see each of its moves reach the opponent and the
spectator intact. The server runs with the flood rule opened up (one fuzzing connection sends
thousands of bad frames); the flood rule itself is tested with the default limits below.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from bench.fuzzlib import (
    ALL_FIELDS,
    FIELDS,
    ROOM,
    Fuzzer,
    Generator,
    LiveServer,
    Prober,
    Violation,
    expect,
)
from protocol import CLIENT_TYPES, limits
from server.testing import WireClient, running_server

pytestmark = pytest.mark.filterwarnings(
    # websockets draws its frame masks from the global ``random``; hypothesis notices and warns.
    "ignore::hypothesis.errors.HypothesisDeprecationWarning"
)


def fast(examples: int) -> settings:
    """Hypothesis settings of one fuzz test: no deadline (the server is real), no database."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )


# ---- strategies --------------------------------------------------------------------------------

leaves = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
GOOD: dict[str, st.SearchStrategy[Any]] = {
    "name": st.text(max_size=40),
    "protocol": st.sampled_from([1, 0, 2]),
    "token": st.text(max_size=130),
    "client": st.text(max_size=70),
    "game": st.sampled_from(["chess", "draughts", "shuqi", "hexgomoku", "custom", "go"]),
    "variant": st.sampled_from(["standard", "international", "russian", "xiangqi", "stones", "x"]),
    "clock": st.fixed_dictionaries(
        {},
        optional={
            "initial": st.integers(-5, 90_000),
            "increment": st.integers(-5, 100),
            "per_move": st.integers(-5, 100),
        },
    ),
    "options": st.dictionaries(
        st.sampled_from(["exact5", "max_plies", "home_limit", "bogus"]),
        st.booleans() | st.integers(-3, 500),
        max_size=3,
    ),
    "position": st.text(max_size=200) | st.just("x" * (limits.POSITION_BYTES + 1)),
    "record": st.text(max_size=200),
    "color": st.sampled_from(["first", "second", "random", "red"]),
    "private": st.booleans(),
    "opponent": st.sampled_from(["bot:1", "bot:0", "bot:x", "human"]),
    "room": st.sampled_from([ROOM, ROOM, "zzzzz", ""]) | st.text(max_size=70),
    "role": st.sampled_from(["player", "spectator", "judge"]),
    "watch": st.booleans(),
    "ply": st.integers(-2, 400),
    "move": st.sampled_from(["e2e4", "e4", "0,0", "32-28", "x" * 201]) | st.text(max_size=20),
    "reason": st.text(max_size=30) | st.just("r" * (limits.CHAT_CHARS + 1)),
    "kind": st.sampled_from(["draw", "undo", "rematch", "swap", "hug"]),
    "accept": st.booleans(),
    "text": st.text(max_size=30) | st.just("t" * (limits.CHAT_CHARS + 1)),
    "t": st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.none(),
}
ids = st.one_of(
    st.integers(),
    st.text(max_size=70),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(), max_size=2),
)


def _message_of(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    optional = {name: GOOD[name] | json_values for name in FIELDS[kind]}
    optional["id"] = ids
    return st.fixed_dictionaries({"type": st.just(kind)}, optional=optional)


messages = st.sampled_from(CLIENT_TYPES).flatmap(_message_of)


def _valid_of(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"type": st.just(kind), "id": st.integers(0, 10**9)},
        optional={name: GOOD[name] for name in FIELDS[kind]},
    )


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    """A plausible message with one mutation: a field dropped, retyped, unknown, or a new type."""
    data = dict(draw(st.sampled_from(CLIENT_TYPES).flatmap(_valid_of)))
    how = draw(st.sampled_from(["drop", "retype", "unknown", "type", "nest"]))
    keys = sorted(data)
    if how == "drop":
        del data[draw(st.sampled_from(keys))]
    elif how == "retype":
        data[draw(st.sampled_from(keys))] = draw(json_values)
    elif how == "unknown":
        data[draw(st.sampled_from([*ALL_FIELDS, "colour", "re", "__proto__"]))] = draw(json_values)
    elif how == "type":
        data["type"] = draw(st.sampled_from([*CLIENT_TYPES, "moved", "welcome", "MOVE", ""]))
    else:
        depth = draw(st.integers(1, 40))
        data[draw(st.sampled_from(keys))] = json.loads("[" * depth + "]" * depth)
    return data


@pytest.fixture(scope="module")
def fuzzer(live: LiveServer) -> Iterator[Fuzzer]:
    """The module's fuzzer; at the end the side game must have moved on untouched."""
    found = Fuzzer(live)
    yield found
    assert found.side.moves_seen >= found.sent // 10
    assert live.internal_errors() == 0
    found.prober.close()


# ---- the fuzz tests ------------------------------------------------------------------------------


@fast(1500)
@given(message=messages)
def test_random_messages_get_the_answer_design_md_names(fuzzer: Fuzzer, message: dict) -> None:
    """Random messages of every type with right and wrong fields: error or reply, never a close."""
    fuzzer.send_message(message)


@fast(1000)
@given(message=mutated())
def test_mutated_messages_get_one_error_naming_the_problem(fuzzer: Fuzzer, message: dict) -> None:
    """Valid-looking messages with one thing broken; the error names the field when it can."""
    got = fuzzer.send_message(message)
    wanted = expect(json.dumps(message))
    if wanted.error in {"bad_message", "too_large"} and "type" in message:
        errors = [d for d in got if d.get("type") == "error" and d.get("code") == wanted.error]
        assert errors and errors[0]["message"], got


def _nested(depth: int, opener: str) -> str:
    closer = "]" if opener == "[" else "}"
    return '{"type":"ping","id":"deep","t":' + opener * depth + "1" + closer * depth + "}"


@fast(600)
@given(
    frame=st.one_of(
        st.text(max_size=200),
        st.binary(max_size=200).map(lambda b: (b, False)),
        st.binary(min_size=1, max_size=50).map(lambda b: (b"\xff" + b, True)),
        st.builds(_nested, st.integers(1, 30_000), st.sampled_from(["[", '{"a":'])),
        st.builds(lambda m, cut: json.dumps(m)[:cut], messages, st.integers(0, 60)),
        st.builds(lambda m: json.dumps(m).encode(), messages).map(lambda b: (b, False)),
    )
)
def test_raw_frames_text_binary_bad_utf8_deep_nesting_and_truncation(
    fuzzer: Fuzzer, frame: str | tuple[bytes, bool]
) -> None:
    """Not JSON, binary, nested, cut short: errors; bad UTF-8 text: 1007 (RFC 6455)."""
    if isinstance(frame, tuple):
        fuzzer.send(frame[0], text=frame[1])
    else:
        fuzzer.send(frame)


@pytest.mark.parametrize(("opener", "depth"), [("[", 30_000), ('{"a":', 10_000)])
def test_deeply_nested_json_under_the_limit_is_a_bad_message(
    fuzzer: Fuzzer, opener: str, depth: int
) -> None:
    """A frame under the limit nested thousands deep gets ``bad_message``; the connection stays."""
    frame = _nested(depth, opener)
    assert len(frame) <= limits.FRAME_BYTES
    got = fuzzer.send(frame)
    assert [d["code"] for d in got if d.get("type") == "error"] == ["bad_message"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_refused(fuzzer: Fuzzer, number: str) -> None:
    """JSON has no NaN or Infinity: the frame is a bad_message and nothing non-standard returns."""
    got = fuzzer.send('{"type":"ping","id":"nan","t":' + number + "}")
    assert [d["code"] for d in got if d.get("type") == "error"] == ["bad_message"]


def test_frame_size_limit_is_exact(fuzzer: Fuzzer) -> None:
    """A frame of exactly 64 KiB gets an error (a field too long); one byte more closes 1009."""
    head = '{"type":"chat","room":"' + fuzzer.side.room + '","id":"big","text":"'
    exact = head + "x" * (limits.FRAME_BYTES - len(head) - 2) + '"}'
    assert len(exact.encode()) == limits.FRAME_BYTES
    got = fuzzer.send(exact)
    assert [d["code"] for d in got if d.get("re") == "big"] == ["too_large"]
    closes = dict(fuzzer.prober.closes)
    fuzzer.send(exact[:-2] + 'x"}')
    assert fuzzer.prober.closes.get(1009, 0) == closes.get(1009, 0) + 1
    assert fuzzer.send_message({"type": "ping", "id": "after"})[0:0] == []


def test_every_message_type_out_of_order(fuzzer: Fuzzer) -> None:
    """Before hello each type is hello_first; in a finished or unknown room each is refused."""
    early = Prober(fuzzer.live.url, hello=False)
    try:
        for kind in CLIENT_TYPES:
            if kind == "hello":
                continue
            message: dict[str, Any] = {"type": kind, "id": kind, "room": fuzzer.side.room}
            message = {k: v for k, v in message.items() if k in {"type", "id", *FIELDS[kind]}}
            message.update({"move": "e2e4", "ply": 0} if kind == "move" else {})
            message.update({"kind": "draw"} if kind in {"offer", "answer"} else {})
            message.update({"accept": True} if kind == "answer" else {})
            message.update({"text": "hi"} if kind == "chat" else {})
            message.update({"game": "chess"} if kind == "create" else {})
            got = early.exchange_message(message)
            assert [d["code"] for d in got if d.get("type") == "error"] == ["hello_first"], got
        hello = {"type": "hello", "name": "late", "protocol": 1, "id": "h"}
        assert early.exchange_message(hello)[0]["type"] == "welcome"
        again = early.exchange_message(hello)
        assert [d["code"] for d in again] == ["not_allowed"], again
        for kind in ("move", "abort", "stop", "resign", "report", "timeout", "offer", "answer"):
            message = {"type": kind, "id": kind, "room": fuzzer.side.room}
            message.update({"move": "e2e4", "ply": 0} if kind == "move" else {})
            message.update({"kind": "draw"} if kind in {"offer", "answer"} else {})
            message.update({"accept": True} if kind == "answer" else {})
            got = early.exchange_message(message)
            assert [d["code"] for d in got] == ["not_a_player"], (kind, got)
            got = early.exchange_message({**message, "room": "qqqqq"})
            assert [d["code"] for d in got] == ["unknown_room"], (kind, got)
        left = early.exchange_message({"type": "leave", "id": "l", "room": fuzzer.side.room})
        assert [d["code"] for d in left] == ["not_allowed"], left
    finally:
        early.close()


def test_oracle_catches_a_wrong_answer() -> None:
    """The checker itself refuses a missing error, a wrong code and an internal error."""
    from bench.fuzzlib import Expect, check

    with pytest.raises(Violation):
        check(Expect(error="bad_message"), [], "x")
    with pytest.raises(Violation):
        check(Expect(error="bad_message"), [{"type": "error", "code": "stale"}], "x")
    with pytest.raises(Violation):
        check(Expect(re=1), [{"type": "error", "code": "internal", "re": 1}], "x")
    check(Expect(re=1), [{"type": "pong", "re": 1}], "x")


# ---- floods with the default limits --------------------------------------------------------------


async def test_an_error_flood_closes_1008_after_50_errors() -> None:
    """50 errors in 10 s are answered; the 51st closes the connection with 1008."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        wire = await WireClient.connect(server.url, "flood")
        for i in range(limits.FLOOD_ERRORS):
            await wire.send(id=i, type="move", room="nope", ply=0, move="x")
        for i in range(limits.FLOOD_ERRORS):
            assert (await wire.expect("error", re=i))["code"] in {"unknown_room", "rate_limited"}
        assert wire.closed_code is None
        await wire.send(id="last", type="move", room="nope", ply=0, move="x")
        assert await wire.wait_closed() == 1008
        other = await WireClient.connect(server.url, "calm")
        assert (await other.request(type="ping"))["type"] == "pong"
        await other.close()


async def test_a_message_flood_is_rate_limited_then_closed_1008() -> None:
    """A burst past the rate limit is answered rate_limited; past 50 such errors it closes 1008."""
    async with running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        wire = await WireClient.connect(server.url, "fast")
        rate = wire.welcome["limits"]["messages_per_second"]
        sent = 0
        with contextlib.suppress(ConnectionClosed):
            for i in range(4 * rate + limits.FLOOD_ERRORS + 10):
                await wire.send(id=i, type="ping")
                sent += 1
        assert await wire.wait_closed() == 1008
        replies = [d for d in wire.inbox if "re" in d]
        assert replies[0]["type"] == "pong"
        limited = [d for d in replies if d.get("code") == "rate_limited"]
        assert len(limited) == limits.FLOOD_ERRORS + 1, (sent, len(replies))
        assert all(d["type"] == "pong" for d in replies[: len(replies) - len(limited)])


def test_the_bench_generator_frames_meet_the_oracle(fuzzer: Fuzzer) -> None:
    """2,000 frames of ``bench/fuzz.py``'s seeded generator, aimed at the side game's room."""
    generator = Generator(seed=11, room=fuzzer.side.room, moves=("e2e4", "e4", "Nf3"))
    for _ in range(2000):
        frame, text = generator.frame()
        fuzzer.send(frame, text)
    assert fuzzer.prober.closes.get(1009, 0) > 0 and fuzzer.prober.closes.get(1007, 0) > 0
