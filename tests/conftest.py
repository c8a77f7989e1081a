"""Shared test settings: pygame never opens a real window or sound device."""

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# ../shared beside the repository (DESIGN.md, RULES.md, the JBQ maps): read there, never copied.
os.environ.setdefault(
    "BOARDHALL_SHARED",
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared"),
)
