"""Scene: one screen of the client, kept on the app's scene stack.

A scene reacts to input in ``handle_event``, to server messages in ``on_message`` and to connection
changes in ``on_net``; ``update(dt)`` advances it; ``draw(surface)`` paints it and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pygame

from client.ui import draw, fonts, theme

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent

NOTICE_LINE_STEP = 20
"""Logical pixels between the lines of a notice too long for one."""
SIDE_HEADER = pygame.Rect(800, 8, 464, 40)
"""The top of the side panel beside a board (the room's and the replay's titles)."""
NOTICE_CLEARANCE = 2
"""Logical pixels a notice keeps past the foot of a header line it covers (or off its top):
the window rounds both to its own pixels."""


@dataclass(frozen=True)
class HeaderLine:
    """One line of text in the header of a side panel, as the scene draws it."""

    value: str
    pos: tuple[int, int]
    size: int
    color: theme.Color = theme.TEXT
    anchor: draw.Anchor = "topleft"
    max_width: int | None = None

    def draw(self, surface: pygame.Surface) -> pygame.Rect:
        """Draw the line; returns the rectangle it covers."""
        return draw.text(
            surface, self.value, self.pos, self.size, self.color, self.anchor, self.max_width
        )

    def span(self, scale: float) -> tuple[int, int]:
        """Its top and foot, in logical pixels, as a window of ``scale`` shows it."""
        with fonts.displayed_at(scale):
            rect = pygame.Rect((0, 0), fonts.displayed_size(self.value, self.size))
        setattr(rect, self.anchor, self.pos)
        return rect.top, rect.bottom


class Scene:
    """Base class: every hook does nothing."""

    transparent = False
    """When True the scene below is drawn first (dialogs and overlays)."""

    def __init__(self, app: App) -> None:
        self.app = app

    def shade_bars(self, swatch: pygame.Surface) -> None:
        """Shade ``swatch`` (the colour of the window's bars beside a layout of another shape) as
        this scene shades what is drawn below it: not at all, unless it dims everything."""

    def handle_event(self, event: pygame.event.Event) -> None:
        """React to one pygame event (mouse positions are in logical coordinates)."""

    def on_message(self, message: dict[str, Any]) -> None:
        """React to a server message (a dict with a ``type``). Must never raise on odd input."""

    def on_net(self, event: NetEvent) -> None:
        """React to a connection change (``open``, ``closed``, ``reconnecting``, ``failed``)."""

    def on_wake(self, slept_at: float) -> None:
        """Catch up after a sleep: no frame ran since ``slept_at`` (the app's clock), so what
        was counted across the gap is a guess."""

    def update(self, dt: float) -> None:
        """Advance by ``dt`` seconds."""

    def draw(self, surface: pygame.Surface) -> None:
        """Paint the scene on the logical surface; must not change any state."""

    def waiting_to_show(self) -> bool:
        """Whether this scene (a dialog) is on the stack, taking input, but not drawn yet: it
        waits for what is under it to finish (the result panel for the last move to land)."""
        return False

    notice_lines = 2
    """The most lines the app's notice takes over this scene (the last one is cut to fit)."""

    def notice_rect(self) -> pygame.Rect:
        """Where the app's connection notice goes over this scene (bottom centre by default),
        when it takes one line."""
        rect = pygame.Rect(0, 0, 760, 40)
        rect.midbottom = (640, 788)
        return rect

    def notice_box(self, lines: int, scale: float = 1.0) -> pygame.Rect:
        """Where a notice of ``lines`` lines goes in a window of ``scale``: :meth:`notice_rect`
        grown upwards, clear of what lies under it."""
        rect = self.notice_rect()
        grown = rect.inflate(0, NOTICE_LINE_STEP * (lines - 1))
        grown.bottom = rect.bottom
        return grown

    def caption(self) -> str:
        """The window title while this scene is on top."""
        return "Boardhall"

    def enter(self) -> None:
        """Called when the scene becomes the top of the stack."""

    def exit(self) -> None:
        """Called when the scene is removed from the stack."""


class BesideBoard(Scene):
    """A scene with a board on the left and a panel beside it (the room, the replay): the notice
    (a lost connection being retried) goes over the panel's header, where it hides no square of
    any game's board, and grows downwards, up to three lines in a small window."""

    notice_lines = 3

    def notice_rect(self) -> pygame.Rect:
        """Over the side panel's header."""
        return SIDE_HEADER.copy()

    def header_lines(self) -> list[HeaderLine]:
        """The lines of text in the panel's header, which a notice covers whole or not at all
        (none by default)."""
        return []

    def notice_box(self, lines: int, scale: float = 1.0) -> pygame.Rect:
        """:meth:`notice_rect` grown downwards, over the panel (never the board), and on past
        the foot of any header line it reaches, so that no line shows half covered (text takes
        relatively more room in a small window: ``scale``)."""
        rect = self.notice_rect()
        rect.height += NOTICE_LINE_STEP * (lines - 1)
        for top, foot in sorted(line.span(scale) for line in self.header_lines()):
            if top - NOTICE_CLEARANCE < rect.bottom < foot + NOTICE_CLEARANCE:
                rect.height = foot + NOTICE_CLEARANCE - rect.top
        return rect
