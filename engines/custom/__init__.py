"""Custom variants 精班棋 (RULES.md section 5): data-defined boards, pieces and rules.

``ENGINE`` plays every variant: the shipped ones (``variants/*.toml``), directories loaded with
:func:`load_directory` (the server's ``--variants DIR``), and single ``.toml`` files or JBQ
``.xlsx`` maps named by path. FORMAT.md documents the variant file format.
"""

from __future__ import annotations

import os

from engines.custom.definition import Variant, VariantError, parse_definition, to_toml
from engines.custom.engine import CustomEngine, CustomState
from engines.custom.jbq import load_map

ENGINE = CustomEngine()


def load_directory(directory: str | os.PathLike[str]) -> list[str]:
    """Register every ``*.toml``/``*.xlsx`` variant of ``directory`` with ``ENGINE``; their ids.

    All or nothing: raises :class:`VariantError` listing every problem of every file.
    """
    return ENGINE.load_directory(directory)


__all__ = [
    "ENGINE",
    "CustomEngine",
    "CustomState",
    "Variant",
    "VariantError",
    "load_directory",
    "load_map",
    "parse_definition",
    "to_toml",
]
