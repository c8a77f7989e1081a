"""Adds ``boardhall bot`` to the client's command line (no pygame is imported)."""

from __future__ import annotations

from client.bot import add_arguments, run_from_args
from client.cli import register

register(
    "bot",
    "run a headless bot player on a server (seek or --room)",
    add_arguments,
    run_from_args,
)
