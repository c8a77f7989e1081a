"""docs/protocol-additions.md keeps up with the models: whatever the server sends or accepts beyond
DESIGN.md's protocol v1 is listed there, and what it lists as a field is one.

A field of a message or shape that DESIGN.md's tables do not name must appear in the document as
`type.field` (`room.highlight`) or `Shape.field` (`SeatInfo.rating`); every ``welcome.limits``
field, every field of the LAN discovery answer, every word value of a message field and every
error code DESIGN.md does not list must appear in backticks. Close codes and HTTP paths go both
ways: what the server uses beyond DESIGN.md is listed, and what is listed is used; so do the
keys of the HTTP answers and the code the document cites by name.
"""

from __future__ import annotations

import inspect
import itertools
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
from pydantic import BaseModel
from websockets.frames import CloseCode

from protocol import ErrorCode, discovery, messages
from protocol.messages import ClientMessage, ServerMessage
from server import leaderboard, listing, net, profiles
from server.glicko2 import Rating
from tests.server.http_tools import http_request

DESIGN = Path(os.environ["BOARDHALL_SHARED"], "DESIGN.md")
ADDITIONS = Path(__file__).resolve().parents[2] / "docs" / "protocol-additions.md"

needs_design = pytest.mark.skipif(
    not DESIGN.exists(),
    reason=f"{DESIGN} is absent (DESIGN.md lives in ../shared beside the repository; "
    "a clone without it cannot tell what is an addition)",
)

SHAPES: dict[type[BaseModel], str] = {
    messages.Clock: "- `clock`: ",
    messages.Clocks: "- `clocks`: ",
    messages.Seats: "seats{",
    messages.SeatInfo: "`seats.first` / `seats.second`: ",
    messages.OfferInfo: "`offers`: ",
    messages.GameInfo: "- GameInfo: ",
    messages.VariantEntry: "variants: [",
    messages.RoomSummary: "- RoomSummary: ",
}
"""The shapes DESIGN.md describes, each with the text just before its ``{fields}``."""

NEW_SHAPES: tuple[type[BaseModel], ...] = (
    messages.Limits,
    messages.RatingChange,
    messages.RatingChanges,
)
"""Shapes DESIGN.md does not describe at all."""


def _wire_names(model: type[BaseModel]) -> list[str]:
    """The field names of ``model`` as they are on the wire (aliases), without the envelope."""
    names = [info.alias or name for name, info in model.model_fields.items()]
    return [name for name in names if name not in ("type", "id", "re")]


def _wire_type(model: type[BaseModel]) -> str:
    return str(get_args(model.model_fields["type"].annotation)[0])


MESSAGE_MODELS: dict[str, dict[str, type[BaseModel]]] = {
    direction: {_wire_type(model): model for model in get_args(get_args(union)[0])}
    for direction, union in (("client", ClientMessage), ("server", ServerMessage))
}
"""Each direction's message models by their ``type``."""


def _names_in(fields: str) -> set[str]:
    """The field names of a DESIGN.md field list (``name, protocol=1, token?``,
    ``{first: ms, move: ms or null}``), nested shapes and parenthesised notes left out."""
    flat = re.sub(r"\([^()]*\)", "", fields)
    while re.search(r"\{[^{}]*\}|\[[^\[\]]*\]", flat):
        flat = re.sub(r"\{[^{}]*\}|\[[^\[\]]*\]", "", flat)
    found = (re.match(r"\s*`?([a-z_]+)", item) for item in flat.split(","))
    return {match.group(1) for match in found if match}


def _design_table(text: str, heading: str) -> dict[str, set[str]]:
    """The message types of DESIGN.md's table under ``heading`` with the fields it names."""
    lines = text[text.index(heading) :].splitlines()[1:]
    rows = list(itertools.takewhile(lambda line: line.startswith("|"), lines))[2:]
    table = {}
    for row in rows:
        cells = [cell.strip() for cell in row.split("|")[1:-1]]
        table[cells[0]] = _names_in(cells[1])
    return table


def _design_shape(text: str, label: str) -> set[str]:
    """The fields of the ``{...}`` DESIGN.md gives after ``label``."""
    start = text.index("{", text.index(label))
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return _names_in(text[start + 1 : end])
    raise AssertionError(f"no closing brace after {label!r} in DESIGN.md")


def _documented() -> str:
    return ADDITIONS.read_text(encoding="utf-8")


def _section(document: str, heading: str) -> str:
    start = document.index(heading)
    end = document.find("\n## ", start + len(heading))
    return document[start : end if end != -1 else len(document)]


@needs_design
@pytest.mark.parametrize("direction", ["client", "server"])
def test_message_fields_beyond_design_are_documented(direction: str) -> None:
    """A message field DESIGN.md's table does not name is listed as `type.field`."""
    heading = {"client": "### Client to server", "server": "### Server to client"}[direction]
    table = _design_table(DESIGN.read_text(encoding="utf-8"), heading)
    document = _documented()
    models = MESSAGE_MODELS[direction]
    assert set(models) == set(table), "DESIGN.md and the models have different message types"
    missing = [
        f"{kind}.{name}"
        for kind, model in models.items()
        for name in _wire_names(model)
        if name not in table[kind] and f"`{kind}.{name}`" not in document
    ]
    assert not missing, f"docs/protocol-additions.md does not list {missing}"


@needs_design
def test_shape_fields_beyond_design_are_documented() -> None:
    """A field of a shared shape that DESIGN.md does not give is listed as `Shape.field`."""
    text = DESIGN.read_text(encoding="utf-8")
    document = _documented()
    missing = [
        f"{shape.__name__}.{name}"
        for shape, label in SHAPES.items()
        for name in _wire_names(shape)
        if name not in _design_shape(text, label) and f"`{shape.__name__}.{name}`" not in document
    ]
    assert not missing, f"docs/protocol-additions.md does not list {missing}"


def test_every_model_is_a_message_or_a_known_shape() -> None:
    """A new model in protocol/messages.py must be placed here (so the tests above see it)."""
    bases: set[type[BaseModel]] = {messages.Inbound, messages.Outbound}
    placed = {model for models in MESSAGE_MODELS.values() for model in models.values()}
    placed |= set(SHAPES) | set(NEW_SHAPES) | bases
    models = {
        model
        for model in vars(messages).values()
        if inspect.isclass(model) and issubclass(model, BaseModel)
        if model.__module__ == messages.__name__
    }
    assert models - placed == set(), "add the new model to SHAPES or NEW_SHAPES above"


@pytest.mark.parametrize("shape", NEW_SHAPES, ids=lambda shape: shape.__name__)
def test_shapes_design_lacks_are_documented(shape: type[BaseModel]) -> None:
    """Every field of a shape DESIGN.md does not describe (`welcome.limits` among them)
    appears in the document."""
    document = _documented()
    missing = [name for name in _wire_names(shape) if not re.search(rf"\b{name}\b", document)]
    if shape is messages.Limits:
        missing = [name for name in _wire_names(shape) if f"`{name}`" not in document]
    assert not missing, f"docs/protocol-additions.md does not name {shape.__name__} {missing}"


def test_discovery_answer_fields_are_documented() -> None:
    """DESIGN.md has no LAN discovery: every field of its answer is in the document."""
    section = _section(_documented(), "## LAN discovery")
    missing = [name for name in _wire_names(discovery.Answer) if f"| `{name}` |" not in section]
    assert not missing, f"the LAN discovery table does not list {missing}"


@needs_design
def test_error_codes_beyond_design_are_documented() -> None:
    """An error code DESIGN.md does not list appears in the document."""
    text = DESIGN.read_text(encoding="utf-8")
    document = _documented()
    missing = [
        code.value
        for code in ErrorCode
        if f"`{code.value}`" not in text and f"`{code.value}`" not in document
    ]
    assert not missing, f"docs/protocol-additions.md does not list {missing}"


def test_documented_message_fields_exist() -> None:
    """Every `type.field` or `Shape.field` in the messages section is a field of that model,
    so the document lists nothing the server no longer has."""
    section = _section(_documented(), "## WebSocket messages and fields")
    models = {**MESSAGE_MODELS["client"], **MESSAGE_MODELS["server"]}
    models |= {shape.__name__: shape for shape in (*SHAPES, *NEW_SHAPES)}
    named = re.findall(r"`(\w+)\.(\w+)", section)
    assert named, "no `type.field` found in the messages section"
    unknown = [
        f"{kind}.{name}"
        for kind, name in named
        if kind in models and name not in _wire_names(models[kind])
    ]
    assert not unknown, f"docs/protocol-additions.md lists fields that do not exist: {unknown}"


def test_profile_fields_are_documented() -> None:
    """Every field of a ``GET /players/ID`` answer (:func:`server.profiles.answer`) is named
    in backticks in the document's row for it."""
    row = next(
        (line for line in _documented().splitlines() if line.startswith("| `GET /players/ID`")),
        "",
    )
    assert row, "docs/protocol-additions.md has no row for GET /players/ID"
    fields = profiles.answer(profiles.Profile("p1", "Ann", {}), online=False)
    missing = [name for name in fields if f"`{name}`" not in row]
    assert not missing, f"the GET /players/ID row does not name {missing}"


ROOT = Path(__file__).resolve().parents[2]


def _words(annotation: Any) -> set[str]:
    """The string values of every ``Literal`` inside ``annotation`` (``Side | None``,
    ``list[OfferKind]``, ``dict[Side, int]``)."""
    if get_origin(annotation) is Literal:
        return {value for value in get_args(annotation) if isinstance(value, str)}
    return set().union(*(_words(arg) for arg in get_args(annotation)))


@needs_design
def test_word_values_beyond_design_are_documented() -> None:
    """Every word a message field may hold (result reasons, seats, statuses, roles, offer
    kinds) is in backticks in DESIGN.md or in the document."""
    text = DESIGN.read_text(encoding="utf-8")
    document = _documented()
    models = {model for models in MESSAGE_MODELS.values() for model in models.values()}
    models |= set(SHAPES) | set(NEW_SHAPES)
    words = {
        word
        for model in models
        for name, info in model.model_fields.items()
        if name != "type"
        for word in _words(info.annotation)
    }
    assert {"checkmate", "aborted", "spectator", "swap", "random"} <= words  # the control
    missing = sorted(w for w in words if f"`{w}`" not in text and f"`{w}`" not in document)
    assert not missing, f"docs/protocol-additions.md does not list {missing}"


LIBRARY_CLOSE_CODES = {1002}
"""Close codes ``websockets`` itself sends (a frame against RFC 6455), which no line of ours
names; tests/server/test_frames_beyond_design.py sees the server send them."""


def _close_codes_in_code() -> set[int]:
    """The WebSocket close codes the server's code closes with: the numbers it appends to an
    output's ``closes`` and the ``CloseCode`` members it names."""
    codes = set()
    for path in (ROOT / "server").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        codes |= {int(n) for n in re.findall(r"closes\.append\(\([^,]+, (\d{4}),", source)}
        codes |= {int(CloseCode[name]) for name in re.findall(r"CloseCode\.([A-Z_]+)", source)}
    return codes


def _close_code_table() -> set[int]:
    section = _section(_documented(), "### WebSocket close codes")
    return {int(code) for code in re.findall(r"^\| (\d{4}) \|", section, re.M)}


@needs_design
def test_close_codes_beyond_design_are_documented_and_exist() -> None:
    """Every close code the server uses is in DESIGN.md or in the document's close code table,
    and every code in that table is one the server uses (so a code gone from the server goes
    from the document too)."""
    design = DESIGN.read_text(encoding="utf-8")
    used = _close_codes_in_code() | LIBRARY_CLOSE_CODES
    assert {1000, 1001, 1007, 1008, 1009, 1011, 4001} <= used  # the control
    table = _close_code_table()
    missing = sorted(code for code in used if str(code) not in design and code not in table)
    assert not missing, f"docs/protocol-additions.md does not list close codes {missing}"
    assert table <= used, f"the document lists close codes nothing sends: {table - used}"


def _routed_paths() -> set[str]:
    """Every path ``_route`` serves, written as ``HTTP_ROUTES`` writes them (``/games/ID``): its
    words tried alone and with an id."""
    words = set(re.findall(r'"(\w*)"', inspect.getsource(net._route)))
    paths = set()
    for word in words:
        if net._route([word]) is not None:
            paths.add(f"/{word}")
        if net._route([word, "ID"]) is not None:
            paths.add(f"/{word}/ID")
    return paths


def _endpoint_cells() -> list[str]:
    """The first cell of each row of the document's HTTP endpoints table."""
    section = _section(_documented(), "## HTTP endpoints")
    return [row.split("|")[1].strip() for row in section.splitlines() if row.startswith("| `")]


@needs_design
def test_http_paths_beyond_design_are_documented_and_exist() -> None:
    """Every path the server answers (``_route``, listed by ``HTTP_ROUTES``) is in DESIGN.md or
    the document's HTTP table, and every ``GET /path`` in that table is served."""
    design = DESIGN.read_text(encoding="utf-8")
    routed = _routed_paths()
    bare = {route.partition("?")[0] for route in net.HTTP_ROUTES}
    assert routed == bare | {"/"}, "a path served is missing from HTTP_ROUTES, or the reverse"
    cells = " ".join(_endpoint_cells())
    missing = [
        route
        for route in (*net.HTTP_ROUTES, "/")
        if f"GET {route}`" not in design
        and f"`GET {route}`" not in cells
        and f"`GET {route}[" not in cells
        and f"`GET {route}?" not in cells
    ]
    assert not missing, f"docs/protocol-additions.md does not list {missing}"
    listed = re.findall(r"`GET (/[^`?\[ ]*)", cells)
    assert listed, "no `GET /path` in the HTTP table"
    for path in listed:
        parts = ["ID" if part.isupper() else part for part in path.split("/")[1:]]
        assert net._route(parts) is not None, f"the document lists {path}, which is not served"


@pytest.mark.parametrize(
    ("path", "parameters"),
    [("/games/ID", net._GAME_QUERY), ("/games", net._GAMES_QUERY),
     ("/ratings", leaderboard.QUERY)],
)  # fmt: skip
def test_query_parameters_are_documented(path: str, parameters: frozenset[str]) -> None:
    """Each query parameter a path takes is written ``name=`` in a row of that path."""
    cells = [cell for cell in _endpoint_cells() if re.match(rf"`GET {re.escape(path)}[?`\[]", cell)]
    assert cells, f"no row for GET {path}"
    missing = [name for name in parameters if not any(f"{name}=" in cell for cell in cells)]
    assert not missing, f"the rows of GET {path} do not name {missing}"


def _row(endpoint: str) -> str:
    """The document's HTTP table row whose first cell is ``endpoint``."""
    section = _section(_documented(), "## HTTP endpoints")
    found = [row for row in section.splitlines() if row.startswith(f"| {endpoint} |")]
    assert found, f"no row for {endpoint}"
    return found[0]


def _missing_in_row(endpoint: str, names: Iterable[str]) -> list[str]:
    """The ``names`` the row of ``endpoint`` does not name as words after its first cell (alone
    in backticks, or in a shape such as `{game, variant, key}`)."""
    answer = _row(endpoint).split("|", 2)[2]
    return [name for name in names if not re.search(rf"[`{{\[,] ?{name}\b", answer)]


async def test_the_answers_of_root_and_healthz_are_documented() -> None:
    """A real server's ``GET /`` and ``GET /healthz``: every key of each answer is named in its
    row."""
    async with net.running_server(host="127.0.0.1", port=0, db=":memory:") as server:
        root = (await http_request(server.port, "/")).json()
        health = (await http_request(server.port, "/healthz")).json()
    assert "http" in root and health["status"] == "ok"
    assert _missing_in_row("`GET /`", root) == []
    assert _missing_in_row("`GET /healthz` body", health) == []


def test_the_answers_of_games_and_ratings_are_documented() -> None:
    """Every key of a ``GET /games?player=`` entry and of a ``GET /ratings`` answer (and of its
    players) is named in its row."""
    entry = listing.listed_game({"status": "over", "seats": {}}, "p1")
    assert _missing_in_row("`GET /games?player=ID[&token=T]`", entry) == []
    pool = leaderboard.Pool("chess", "standard", 20)
    board = leaderboard.answer(pool, [leaderboard.Standing("p1", "Ann", Rating())])
    row = "`GET /ratings?game=G[&variant=V][&limit=N]`"
    assert _missing_in_row(row, board) == []
    assert _missing_in_row(row, board["players"][0]) == []


CITED = re.compile(r"((?:`[\w.]+`(?: \(`[\w.]+`\))?,\s+)+)((?:protocol|server)/[\w/]+\.py)")
"""Code the document cites: one or more "`name`," then the file (``Hall._hello``, a function;
``ID_CHARS``, a constant)."""


def test_the_code_the_document_cites_exists() -> None:
    """Each name cited with its file is defined or assigned in that file, and no line numbers
    are cited (they went stale with every change)."""
    document = _documented()
    assert not re.search(r"\.py:\d", document), "cite code by name, not by line number"
    cited = CITED.findall(document)
    assert len(cited) > 30, "the document cites little code: has the citation form changed?"
    gone = []
    for names, file in cited:
        path = ROOT / file
        assert path.is_file(), f"the document cites {file}, which does not exist"
        source = path.read_text(encoding="utf-8")
        for name in re.findall(r"`([\w.]+)`", names):
            last = re.escape(name.rsplit(".", 1)[-1])
            if not re.search(rf"^\s*(?:async def |def |class )?{last}\b\s*[(:=]", source, re.M):
                gone.append(f"{name} ({file})")
    assert not gone, f"the document cites code that does not exist: {gone}"
