"""The JSON record of a game (``GET /games/ID?format=json``), the same for every game."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from protocol.messages import Clock, RatingChanges, Reason, Result, Side


class RecordMove(BaseModel):
    """One accepted move."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    move: str
    """Canonical notation."""
    by: Side
    clock_ms: int | None = None
    """The mover's main time left after the move (``None`` without a main time)."""
    lag_ms: int = 0
    """Lag compensation credited to this move."""
    at: str | None = None
    """When the server accepted it (ISO 8601, UTC)."""


class RecordPlayer(BaseModel):
    """A seat of a recorded game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str | None = None
    """Public identity id."""
    name: str = "?"
    bot: bool = False
    rating: int | None = None
    """The player's rating before the game, when the game was rated."""


class RecordPlayers(BaseModel):
    """Both seats of a recorded game."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: RecordPlayer = Field(default_factory=RecordPlayer)
    second: RecordPlayer = Field(default_factory=RecordPlayer)


class GameRecord(BaseModel):
    """A game as stored and exported."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """The ``game_id``."""
    room: str | None = None
    game: str
    variant: str
    start: str
    """Start position string."""
    moves: list[RecordMove] = Field(default_factory=list)
    players: RecordPlayers = Field(default_factory=RecordPlayers)
    result: Result | None = None
    reason: Reason | None = None
    scores: dict[Side, int] | None = None
    created: str | None = None
    """ISO 8601 UTC."""
    ended: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    clock: Clock | None = None
    private: bool = False
    variant_info: dict[str, Any] | None = None
    ratings: RatingChanges | None = None
    """Both players' rating changes, when the game was rated."""


game_record_adapter: TypeAdapter[GameRecord] = TypeAdapter(GameRecord)
"""Validates a JSON record."""
