"""docs/protocol-additions.md keeps up with the models: whatever the server sends or accepts beyond
DESIGN.md's protocol v1 is listed there, and what it lists as a field is one.

A field of a message or shape that DESIGN.md's tables do not name must appear in the document as
`type.field` (`room.highlight`) or `Shape.field` (`SeatInfo.rating`); every ``welcome.limits``
field, every field of the LAN discovery answer and every error code DESIGN.md does not list must
appear in backticks.
"""

from __future__ import annotations

import inspect
import itertools
import os
import re
from pathlib import Path
from typing import get_args

import pytest
from pydantic import BaseModel

from protocol import ErrorCode, discovery, messages
from protocol.messages import ClientMessage, ServerMessage
from server import profiles

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
