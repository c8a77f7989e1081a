"""Custom variants a server knows and this process does not: learnt from ``variant_info``."""

from __future__ import annotations

from typing import Any

import engines


def learn_variant(engine: engines.Engine, variant: Any, info: Any) -> None:
    """Register ``variant`` with ``engine`` from its ``variant_info`` (a room's or a game
    record's) when the engine does not know it yet: a server started with ``--variants`` runs
    in another process. Raises the engine's error for a definition it cannot read."""
    if not isinstance(info, dict) or not isinstance(variant, str) or not variant:
        return
    if variant in {v.id for v in engine.variants()}:
        return
    load = getattr(engine, "load_data", None)
    if callable(load):
        load(info)
