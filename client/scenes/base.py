"""Scene: one screen of the client, kept on the app's scene stack.

A scene reacts to input in ``handle_event``, to server messages in ``on_message`` and to connection
changes in ``on_net``; ``update(dt)`` advances it; ``draw(surface)`` paints it and changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent

NOTICE_LINE_STEP = 20
"""Logical pixels between the lines of a notice too long for one."""
SIDE_HEADER = pygame.Rect(800, 8, 464, 40)
"""The top of the side panel beside a board (the room's and the replay's titles)."""


class Scene:
    """Base class: every hook does nothing."""

    transparent = False
    """When True the scene below is drawn first (dialogs and overlays)."""

    def __init__(self, app: App) -> None:
        self.app = app

    def handle_event(self, event: pygame.event.Event) -> None:
        """React to one pygame event (mouse positions are in logical coordinates)."""

    def on_message(self, message: dict[str, Any]) -> None:
        """React to a server message (a dict with a ``type``). Must never raise on odd input."""

    def on_net(self, event: NetEvent) -> None:
        """React to a connection change (``open``, ``closed``, ``reconnecting``, ``failed``)."""

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

    def notice_box(self, lines: int) -> pygame.Rect:
        """Where a notice of ``lines`` lines goes: :meth:`notice_rect` grown upwards, clear of
        what lies under it."""
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

    def notice_box(self, lines: int) -> pygame.Rect:
        """:meth:`notice_rect` grown downwards, over the panel (never the board)."""
        rect = self.notice_rect()
        rect.height += NOTICE_LINE_STEP * (lines - 1)
        return rect
