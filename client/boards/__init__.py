"""Board renderers, one per game: ``make_view("hexgomoku")``."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from client.boards.base import BoardView, Marks

__all__ = ["BoardView", "Marks", "make_view"]


def make_view(
    game: str, variant: str | None = None, variant_info: Mapping[str, Any] | None = None
) -> BoardView:
    """Return a renderer for ``game`` (module ``client.boards.<game>`` defines ``VIEW_CLASS``)."""
    module = importlib.import_module(f"client.boards.{game}")
    view: BoardView = module.VIEW_CLASS(variant=variant, variant_info=variant_info)
    return view
