"""Protocol v1 models: round trips, decode errors, and agreement with DESIGN.md."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from protocol import (
    ERROR_ORDER,
    RESULT_REASONS,
    ChatLine,
    Clock,
    Clocks,
    Error,
    ErrorCode,
    GameInfo,
    Moved,
    Over,
    ProtocolError,
    RoomState,
    SeatInfo,
    Seats,
    Welcome,
    client_message_adapter,
    decode_client,
    decode_server,
    encode,
    limits,
)
from protocol.codec import to_data
from protocol.messages import CLIENT_TYPES

DESIGN = Path(os.environ["BOARDHALL_SHARED"], "DESIGN.md")

CLIENT_SAMPLES: list[dict[str, object]] = [
    {"type": "hello", "name": "ann", "protocol": 1, "id": 1},
    {"type": "hello", "name": "ann", "protocol": 1, "token": "t", "client": "pygame"},
    {
        "type": "create",
        "game": "chess",
        "variant": "standard",
        "clock": {"initial": 300, "increment": 3},
        "options": {"exact5": True, "max_plies": 10},
        "color": "first",
        "private": True,
        "opponent": "bot:2",
        "id": "c1",
    },
    {"type": "create", "game": "hexgomoku", "position": "first;;"},
    {"type": "join", "room": "ab12"},
    {"type": "join", "room": "ab12", "role": "spectator"},
    {"type": "join", "game": "hexgomoku", "clock": {"per_move": 20}},
    {"type": "leave"},
    {"type": "leave", "room": "ab12"},
    {"type": "list", "game": "chess", "watch": True},
    {"type": "move", "room": "ab12", "ply": 0, "move": "0,0", "id": 7},
    {"type": "abort", "room": "ab12"},
    {"type": "stop", "room": "ab12"},
    {"type": "resign", "room": "ab12"},
    {"type": "report", "room": "ab12", "reason": "home"},
    {"type": "timeout", "room": "ab12"},
    {"type": "offer", "room": "ab12", "kind": "undo"},
    {"type": "answer", "room": "ab12", "kind": "draw", "accept": False},
    {"type": "chat", "room": "ab12", "text": "hi"},
    {"type": "ping", "t": 12.5},
]


@pytest.mark.parametrize("data", CLIENT_SAMPLES, ids=lambda d: str(d["type"]))
def test_client_message_round_trip(data: dict[str, object]) -> None:
    """Every client message decodes and encodes back to the same JSON object."""
    message = decode_client(json.dumps(data))
    assert message.type == data["type"]
    encoded = json.loads(encode(message))
    assert {k: encoded[k] for k in data if k != "clock"} == {
        k: v for k, v in data.items() if k != "clock"
    }
    assert decode_client(encode(message)) == message


def test_every_client_type_has_a_sample() -> None:
    """The samples cover the whole client union."""
    assert {d["type"] for d in CLIENT_SAMPLES} == set(CLIENT_TYPES)


def _seat(name: str) -> SeatInfo:
    return SeatInfo(player="p" + name, name=name, connected=True)


SERVER_SAMPLES = [
    Welcome(
        player="p1",
        name="ann",
        token="secret",
        protocol=1,
        server="boardhall/0.1",
        games=[GameInfo(game="hexgomoku", name="Hex", variants=[], options={"exact5": False})],
        resumed=["ab12"],
        re=1,
    ),
    RoomState(
        room="ab12",
        game_id="g1",
        game="hexgomoku",
        variant="standard",
        options={},
        status="playing",
        seats=Seats(first=_seat("ann")),
        spectators=2,
        you="first",
        start="first;;",
        position="second;0,0;",
        moves=["0,0"],
        turn="second",
        clock=Clock(per_move=20),
        clocks=Clocks(first=None, second=None, move=20000, running="second"),
    ),
    Moved(room="ab12", ply=0, move="0,0", by="first", position="p", turn="second", lag_ms=12),
    Over(room="ab12", game_id="g1", result=None, reason="aborted", position="p"),
    Over(
        room="ab12", game_id="g1", result="first", reason="stop", scores={"first": 1}, position="p"
    ),
    ChatLine.model_validate({"room": "ab12", "from": "ann", "role": "spectator", "text": "hi"}),
    Error(code=ErrorCode.STALE, message="stale", re="x", room="ab12"),
]


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_server_message_round_trip(message: object) -> None:
    """Every server message survives encode then decode unchanged."""
    text = encode(message)  # type: ignore[arg-type]
    assert decode_server(text) == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_encode_writes_exactly_the_compact_json_of_to_data(message: BaseModel) -> None:
    """pydantic's serializer gives the same text as ``json.dumps`` of :func:`to_data`."""
    expected = json.dumps(to_data(message), ensure_ascii=False, separators=(",", ":"))
    assert encode(message) == expected


def test_encode_keeps_unicode_and_escapes_what_json_must() -> None:
    line = ChatLine.model_validate(
        {"room": "ab12", "from": "棋手", "role": "first", "text": 'say "hi"\n\t\u2028 象'}
    )
    text = encode(line)
    assert "棋手" in text and "象" in text
    assert text == json.dumps(to_data(line), ensure_ascii=False, separators=(",", ":"))
    assert json.loads(text)["text"] == 'say "hi"\n\t\u2028 象'


def test_re_left_out_when_absent_and_chat_uses_from() -> None:
    """``re`` is omitted when unset; the chat speaker is sent as ``from``."""
    data = json.loads(encode(SERVER_SAMPLES[6]))
    assert data["re"] == "x"
    chat = json.loads(encode(SERVER_SAMPLES[5]))
    assert "re" not in chat and chat["from"] == "ann"
    assert json.loads(encode(SERVER_SAMPLES[3]))["result"] is None


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("not json", ErrorCode.BAD_MESSAGE, "not JSON"),
        ("[1, 2]", ErrorCode.BAD_MESSAGE, "not a JSON object"),
        ('{"id": 3}', ErrorCode.BAD_MESSAGE, "missing field 'type'"),
        ('{"type": "fly"}', ErrorCode.BAD_MESSAGE, "unknown type 'fly'"),
        ('{"type": 5}', ErrorCode.BAD_MESSAGE, "unknown type 5"),
        ('{"type": "leave", "colour": 1}', ErrorCode.BAD_MESSAGE, "unknown field 'colour'"),
        ('{"type": "move", "room": "a", "ply": "3", "move": "x"}', ErrorCode.BAD_MESSAGE, "'ply'"),
        (
            '{"type": "move", "room": "a", "move": "x"}',
            ErrorCode.BAD_MESSAGE,
            "missing field 'ply'",
        ),
        ('{"type": "join", "role": "king"}', ErrorCode.BAD_MESSAGE, "'role'"),
        (
            '{"type": "create", "game": "x", "clock": {"per_move": 2.5}}',
            ErrorCode.BAD_MESSAGE,
            "clock.per_move",
        ),
        (
            '{"type": "create", "game": "x", "clock": {"moves": 2}}',
            ErrorCode.BAD_MESSAGE,
            "clock.moves",
        ),
        (
            '{"type": "chat", "room": "a", "text": "' + "x" * 501 + '"}',
            ErrorCode.TOO_LARGE,
            "'text'",
        ),
        (
            '{"type": "move", "room": "a", "ply": 0, "move": "' + "x" * 201 + '"}',
            ErrorCode.TOO_LARGE,
            "'move'",
        ),
        (
            '{"type": "hello", "protocol": 1, "name": "' + "n" * 33 + '"}',
            ErrorCode.TOO_LARGE,
            "'name'",
        ),
        # a string too long for a union (an id is a string or an integer, an option value a
        # bool, number or string): too long, not "should be a valid integer"
        ('{"type": "ping", "id": "' + "i" * 65 + '"}', ErrorCode.TOO_LARGE, "'id' is too long"),
        (
            '{"type": "create", "game": "x", "options": {"o": "' + "v" * 201 + '"}}',
            ErrorCode.TOO_LARGE,
            "'options.o' is too long (at most 200)",
        ),
        ('{"type": "ping", "id": [1]}', ErrorCode.BAD_MESSAGE, "'id'"),
        (
            '{"type": "create", "game": "x", "options": {"o": [1]}}',
            ErrorCode.BAD_MESSAGE,
            "'options.o'",
        ),
    ],
)
def test_decode_errors_name_the_problem(text: str, code: ErrorCode, fragment: str) -> None:
    """Bad frames raise a ProtocolError with the right code and a message naming the problem."""
    with pytest.raises(ProtocolError) as info:
        decode_client(text)
    assert info.value.code == code
    assert fragment in info.value.message


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_non_finite_numbers_are_not_json(number: str) -> None:
    """JSON has no NaN or Infinity, and 1e400 is out of range: bad_message."""
    with pytest.raises(ProtocolError) as info:
        decode_client('{"type": "ping", "t": ' + number + "}")
    assert info.value.code == ErrorCode.BAD_MESSAGE and "not JSON" in info.value.message


def test_nesting_limit_is_exact_and_independent_of_the_stack() -> None:
    """33 levels are refused before parsing (no ``re``); 32 are parsed (and the type checked)."""
    deep = '{"type": "ping", "id": 1, "t": ' + "[" * 32 + "]" * 32 + "}"
    with pytest.raises(ProtocolError) as info:
        decode_client(deep)
    assert info.value.re is None and "nested deeper than 32" in info.value.message
    ok_depth = '{"type": "ping", "id": 1, "t": ' + "[" * 31 + "]" * 31 + "}"
    with pytest.raises(ProtocolError) as info:
        decode_client(ok_depth)
    assert info.value.re == 1 and "'t'" in info.value.message
    text = '{"type": "chat", "room": "a", "text": "' + "[" * 100 + '"}'
    assert decode_client(text).type == "chat"


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deep_nesting_is_a_bad_message(opener: str) -> None:
    """A frame nested 30,000 deep is refused as bad_message, not a crash."""
    with pytest.raises(ProtocolError) as info:
        decode_client(opener * 30_000)
    assert info.value.code == ErrorCode.BAD_MESSAGE


def test_decode_error_keeps_the_id() -> None:
    """A refused message's id is kept so the error reply can carry it as ``re``."""
    with pytest.raises(ProtocolError) as info:
        decode_client('{"type": "move", "id": "m9", "room": "a", "ply": -1, "move": "x"}')
    assert info.value.re == "m9"


def test_bool_is_not_an_id_or_a_ply() -> None:
    """JSON true is not an integer anywhere in the protocol."""
    with pytest.raises(ProtocolError):
        decode_client('{"type": "move", "room": "a", "ply": true, "move": "x"}')


def test_limits_match_design() -> None:
    """The limit constants are those of DESIGN.md."""
    assert limits.FRAME_BYTES == 65536
    assert (limits.NAME_CHARS, limits.CHAT_CHARS, limits.MOVE_CHARS) == (32, 500, 200)
    assert (limits.POSITION_BYTES, limits.RECORD_BYTES) == (4096, 49152)
    assert limits.MESSAGES_PER_SECOND == 20


def _design_list(heading: str) -> list[str]:
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.index(".\n", start)
    return re.findall(r"`([a-z_0-9]+)`", text[start:end])


@pytest.mark.skipif(not DESIGN.exists(), reason="DESIGN.md not available")
def test_error_codes_and_reasons_follow_design_order() -> None:
    """ErrorCode lists DESIGN.md's codes in its order; RESULT_REASONS lists its reasons."""
    assert [c.value for c in ERROR_ORDER] == _design_list("Error codes, checked in this order")
    assert list(RESULT_REASONS) == _design_list("Result reasons:")


@given(st.text(max_size=300))
def test_no_text_crashes_the_decoder(text: str) -> None:
    """Any text either decodes or raises ProtocolError, never anything else."""
    try:
        decode_client(text)
    except ProtocolError as exc:
        assert exc.code in (ErrorCode.BAD_MESSAGE, ErrorCode.TOO_LARGE)


@given(
    st.dictionaries(
        st.sampled_from(["type", "room", "ply", "move", "id", "name", "protocol", "kind"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=5), st.booleans()),
    )
)
def test_no_object_crashes_the_decoder(data: dict[str, object]) -> None:
    """Arbitrary objects decode or raise ProtocolError."""
    try:
        message = decode_client(json.dumps(data))
    except ProtocolError:
        return
    assert client_message_adapter.validate_python(message.model_dump()) == message
