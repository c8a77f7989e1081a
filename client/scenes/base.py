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

    def notice_rect(self) -> pygame.Rect:
        """Where the app's connection notice goes over this scene (bottom centre by default)."""
        rect = pygame.Rect(0, 0, 760, 40)
        rect.midbottom = (640, 788)
        return rect

    def caption(self) -> str:
        """The window title while this scene is on top."""
        return "Boardhall"

    def enter(self) -> None:
        """Called when the scene becomes the top of the stack."""

    def exit(self) -> None:
        """Called when the scene is removed from the stack."""
