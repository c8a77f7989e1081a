"""Pure, deterministic rules of every Boardhall game (imports nothing else of Boardhall)."""

from engines.base import (
    SIDES,
    BadOption,
    BadPosition,
    ClaimRefused,
    Engine,
    EngineError,
    IllegalMove,
    Outcome,
    RecordInfo,
    Side,
    UnknownVariant,
    VariantInfo,
    other,
)
from engines.registry import UnknownGame, available, get, variant_or_file

__all__ = [
    "SIDES",
    "BadOption",
    "BadPosition",
    "ClaimRefused",
    "Engine",
    "EngineError",
    "IllegalMove",
    "Outcome",
    "RecordInfo",
    "Side",
    "UnknownGame",
    "UnknownVariant",
    "VariantInfo",
    "available",
    "get",
    "other",
    "variant_or_file",
]
