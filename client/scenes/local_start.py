"""The first scene of local play: waits for the embedded server, then opens the room."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame

from client.room_model import game_label
from client.scenes.base import Scene
from client.ui import draw, theme

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent


class LocalStartScene(Scene):
    """Creates the room once both seats are connected; the second seat joins it."""

    def __init__(self, app: App, game: str, variant: str | None, bot: str | None) -> None:
        super().__init__(app)
        self.game, self.variant, self.bot = game, variant, bot
        self.created = False
        self.welcomed = 0
        self.error = ""
        self.joined = False
        self.room_seen = False

    def enter(self) -> None:
        """Back here after the room closed: the local game is over, so is the window."""
        if self.room_seen:
            self.app.running = False
    def on_message(self, message: dict[str, Any]) -> None:
        """``welcome`` -> create; ``room`` -> the helper seat joins."""
        kind = message.get("type")
        if kind == "welcome" and not self.created:
            self.created = True
            create: dict[str, Any] = {"type": "create", "game": self.game, "color": "first",
                                      "private": True}
            if self.variant:
                create["variant"] = self.variant
            if self.bot:
                create["opponent"] = f"bot:{self.bot}"
            self.app.send(create)
        if kind == "room":
            self.room_seen = True
        if kind == "room" and not self.joined and self.app.seat_connections:
            code = message.get("room")
            if isinstance(code, str):
                self.joined = True
                self.app.send({"type": "join", "room": code}, "second")
        elif kind == "error":
            self.error = str(message.get("message") or message.get("code"))

    def on_net(self, event: NetEvent) -> None:
        """Show a failure to reach the embedded server."""
        if event.kind == "failed":
            self.error = event.text

    def handle_event(self, event: pygame.event.Event) -> None:
        """Esc quits."""
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.app.running = False

    def draw(self, surface: pygame.Surface) -> None:
        """A short waiting line (or the error)."""
        w, h = theme.LOGICAL_SIZE
        if not self.error:
            game = game_label(self.game, self.variant, self.app.games)
            draw.text(surface, f"Starting a local {game} game…", (w // 2, h // 2), 20,
                      theme.MUTED, "center", w - 80)
            return
        # the whole reason, wrapped, and how to get out of here
        draw.paragraph(surface, self.error, pygame.Rect(160, h // 2 - 120, w - 320, 200), 20,
                       theme.BAD)
        draw.text(surface, "Esc: quit", (w // 2, h // 2 + 110), 16, theme.FAINT, "midtop")
