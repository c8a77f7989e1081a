"""The common interface of every Boardhall game engine.

An engine is a stateless object (one per game, registered in :mod:`engines.registry`) whose methods
take and return immutable *states*. Engines are pure and deterministic: no clocks, no I/O, no
globals that change. The server only ever sees values: ``play`` returns a new state and never
changes the one it was given.

Every error an engine raises is an :class:`EngineError` subclass with a message a player can act
on (it is sent to the client verbatim).
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

Side = Literal["first", "second"]
"""A seat: ``first`` moves first in the standard start position."""

SIDES: tuple[Side, Side] = ("first", "second")

Result = Literal["first", "second", "draw"]


def other(side: Side) -> Side:
    """Return the opposing side."""
    return "second" if side == "first" else "first"


class EngineError(ValueError):
    """Base of every error an engine raises; ``str(error)`` is the human reason."""

    code: ClassVar[str] = "illegal_move"


class IllegalMove(EngineError):
    """A move text the engine refuses: bad syntax, not legal here, or ambiguous."""

    code = "illegal_move"


class BadPosition(EngineError):
    """A position string, record or setup that is not valid for this game."""

    code = "bad_position"


class BadOption(EngineError):
    """An unknown option, or an option value out of range."""

    code = "bad_option"


class UnknownVariant(EngineError):
    """A variant id this game does not have."""

    code = "unknown_variant"


class ClaimRefused(EngineError):
    """A claim (``stop``, ``report``, ...) that does not hold now; the game goes on."""

    code = "not_allowed"


@dataclass(frozen=True)
class Outcome:
    """How a game ended.

    ``winner`` is the winning side or ``None`` for a draw or an aborted game. ``reason`` is one of
    the result reasons of DESIGN.md (``checkmate``, ``five``, ``stop``, ...). ``scores`` is set
    where the game has scores (number chess). ``highlight`` names points/squares in the game's own
    notation that a client may emphasise (the winning five, the checkmated king).
    """

    winner: Side | None
    reason: str
    scores: Mapping[Side, int] | None = None
    highlight: tuple[str, ...] = ()

    @property
    def result(self) -> Result | None:
        """``first``/``second``/``draw``; ``None`` only for an aborted game."""
        if self.winner is not None:
            return self.winner
        return None if self.reason == "aborted" else "draw"


class State(Protocol):
    """What every engine state exposes; engines add their own fields.

    States are immutable values (frozen dataclasses or equivalent) and hashable where practical.
    """

    @property
    def turn(self) -> Side:
        """The side to move."""
        ...

    @property
    def ply(self) -> int:
        """Number of moves made since the game's start position."""
        ...

    @property
    def last_move(self) -> str | None:
        """Canonical notation of the move that led to this state (``None`` at the start)."""
        ...


@dataclass(frozen=True)
class VariantInfo:
    """A variant as listed to players."""

    id: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class RecordInfo:
    """Everything an engine needs to write a game record (PGN, PDN, JSON)."""

    variant: str
    start: str
    """Start position string."""
    moves: tuple[str, ...]
    """Canonical moves in order."""
    first_name: str = "?"
    second_name: str = "?"
    first_rating: int | None = None
    """The first player's rating before a rated game (PGN ``WhiteElo``)."""
    second_rating: int | None = None
    result: Result | None = None
    reason: str | None = None
    event: str = "Boardhall game"
    site: str = "Boardhall"
    date: str | None = None
    """``YYYY.MM.DD`` (PGN style) or ``None`` for unknown."""
    time_control: str | None = None
    """PGN TimeControl value, e.g. ``300+3``."""
    clocks_ms: tuple[int, ...] | None = None
    """Remaining clock time of the mover after each move, for ``[%clk]`` comments."""
    options: Mapping[str, Any] = field(default_factory=dict)


class Engine(abc.ABC):
    """One game's rules. Subclasses set the class metadata and implement the abstract methods."""

    game: ClassVar[str]
    """Wire id of the game (``chess``, ``draughts``, ``shuqi``, ``hexgomoku``, ``custom``)."""
    name: ClassVar[str]
    """Human name."""
    default_options: ClassVar[Mapping[str, Any]] = {}
    """Every option this game accepts with its default; anything else is ``bad_option``."""

    # ---- variants and options ----------------------------------------------------------------

    @abc.abstractmethod
    def variants(self) -> list[VariantInfo]:
        """The variants this game offers; the first is the default."""

    def default_variant(self) -> str:
        """Id of the default variant."""
        return self.variants()[0].id

    def resolve_variant(self, variant: str | None) -> str:
        """Return the variant id to use, raising :class:`UnknownVariant` for an unknown one."""
        if variant is None or variant == "":
            return self.default_variant()
        known = [v.id for v in self.variants()]
        if variant not in known:
            raise UnknownVariant(
                f"{self.game} has no variant {variant!r}; known: {', '.join(known)}"
            )
        return variant

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Merge ``options`` over the defaults, refusing unknown names and wrong types."""
        merged = dict(self.default_options)
        for key, value in (options or {}).items():
            if key not in self.default_options:
                known = ", ".join(sorted(self.default_options)) or "none"
                raise BadOption(f"{self.game} has no option {key!r} (options: {known})")
            default = self.default_options[key]
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise BadOption(f"option {key!r} must be true or false, not {value!r}")
            elif isinstance(default, int):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise BadOption(f"option {key!r} must be a whole number, not {value!r}")
                if value < 0 or value > 1_000_000:
                    raise BadOption(f"option {key!r} must be between 0 and 1000000, not {value}")
            elif not isinstance(value, type(default)):
                raise BadOption(f"option {key!r} must be a {type(default).__name__}")
            merged[key] = value
        return merged

    def variant_info(self, variant: str) -> dict[str, Any] | None:
        """The variant definition as JSON data for clients (custom variants only)."""
        return None

    # ---- the game ------------------------------------------------------------------------------

    @abc.abstractmethod
    def start(
        self,
        variant: str | None = None,
        position: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Return the start state of ``variant`` (default variant when ``None``).

        ``position`` is a position string of this game (RULES.md); it is validated and refused with
        :class:`BadPosition` naming what is wrong. Raises :class:`UnknownVariant`,
        :class:`BadOption`, :class:`BadPosition`.
        """

    @abc.abstractmethod
    def legal_moves(self, state: Any) -> list[str]:
        """Every legal move in canonical notation; empty when the game is over."""

    @abc.abstractmethod
    def play(self, state: Any, move: str) -> Any:
        """Return the state after ``move``; the new state's ``last_move`` is the canonical text.

        Raises :class:`IllegalMove` with a human reason (bad syntax, not legal, ambiguous, game
        over). The given state is never changed.
        """

    @abc.abstractmethod
    def outcome(self, state: Any) -> Outcome | None:
        """The result if the rules have ended the game in ``state``, else ``None``."""

    @abc.abstractmethod
    def position(self, state: Any) -> str:
        """The position string of ``state`` (RULES.md); ``start(position=...)`` reads it back."""

    def claim(self, state: Any, kind: str, side: Side) -> Outcome:
        """Judge a claim by ``side`` (``stop``, ``report``); raises :class:`ClaimRefused`."""
        raise ClaimRefused(f"{kind} is not a claim in {self.name}")

    def timeout_outcome(self, state: Any, loser: Side) -> Outcome:
        """The result when ``loser``'s time runs out (chess overrides for insufficient material)."""
        return Outcome(winner=other(loser), reason="timeout")

    def record(self, info: RecordInfo) -> str:
        """The game's record in the game's standard format (default: JSON)."""
        import json

        return json.dumps(
            {
                "game": self.game,
                "variant": info.variant,
                "start": info.start,
                "options": {k: v for k, v in info.options.items() if k in self.default_options},
                "moves": list(info.moves),
                "first": info.first_name,
                "second": info.second_name,
                "result": info.result,
                "reason": info.reason,
            },
            ensure_ascii=False,
        )

    def from_record(
        self,
        text: str,
        variant: str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Any:
        """Return the final state of a record (or position string); raises :class:`BadPosition`,
        :class:`BadOption`.

        A JSON record is replayed under its own ``options`` when it has them (the options its
        game was played with), else under ``options``; a position string is read with
        ``options``.
        """
        import json

        if not isinstance(text, str):
            raise BadPosition(f"a record must be text, not {type(text).__name__}")
        try:
            data = json.loads(text)
        except ValueError:
            return self.start(variant, position=text, options=options)
        if not isinstance(data, dict) or not isinstance(data.get("moves", []), list):
            raise BadPosition("a JSON record must be an object with a 'moves' list")
        own = data.get("options")
        if own is not None and not isinstance(own, dict):
            raise BadPosition("a JSON record's 'options' must be an object of game options")
        state = self.start(
            data.get("variant") or variant,
            position=data.get("start") or None,
            options=options if own is None else own,
        )
        for i, move in enumerate(data.get("moves", [])):
            try:
                state = self.play(state, str(move))
            except IllegalMove as exc:
                raise BadPosition(f"record move {i + 1} ({move!r}) is illegal: {exc}") from exc
        return state

    # ---- helpers with generic implementations -------------------------------------------------

    def perft(self, state: Any, depth: int) -> int:
        """Count the positions at exactly ``depth`` plies (finished positions have no moves)."""
        if depth == 0:
            return 1
        moves = self.legal_moves(state)
        if depth == 1:
            return len(moves)
        return sum(self.perft(self.play(state, m), depth - 1) for m in moves)

    def info(self) -> dict[str, Any]:
        """GameInfo of DESIGN.md: ``{game, name, variants, options}``."""
        return {
            "game": self.game,
            "name": self.name,
            "variants": [
                {"id": v.id, "name": v.name, "description": v.description}
                for v in self.variants()
            ],
            "options": dict(self.default_options),
        }
