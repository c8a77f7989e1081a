"""The connect scene: server address and player name, with clear messages when it fails, and
the servers found on the local network beside them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame

from client.address import BadAddress, to_url
from client.discovery import Finder
from client.net import NO_RECONNECT_CODES
from client.scenes.base import Scene
from client.scenes.lan_panel import LanPanel
from client.ui import draw, fonts, theme
from client.ui.widgets import Button, TextField
from protocol import limits

if TYPE_CHECKING:
    from client.app import App
    from client.net import NetEvent

NAME_LIMIT = limits.NAME_CHARS
LAN_WIDTH = 420
"""Width of the "Servers on your network" card, right of the form."""
LAN_GAP = 24


STEPS = {pygame.K_DOWN: 1, pygame.K_UP: -1}
"""Keys that move through the servers found on the network."""


class ConnectScene(Scene):
    """Type a server (or pick one found on the network) and a name, then Connect (Enter).

    ``finder`` looks for servers on the local network while this scene is on top (tests give
    one with their own targets); by default one probing the broadcast addresses.
    """

    def __init__(self, app: App, address: str = "", name: str = "",
                 finder: Finder | None = None) -> None:
        super().__init__(app)
        cx = theme.LOGICAL_SIZE[0] // 2
        self.card = pygame.Rect(0, 0, 560, 480)
        self.card.center = (cx - (LAN_WIDTH + LAN_GAP) // 2, theme.LOGICAL_SIZE[1] // 2 + 40)
        self.lan = LanPanel(pygame.Rect(self.card.right + LAN_GAP, self.card.top, LAN_WIDTH,
                                        self.card.height), finder or Finder())
        left = self.card.left + 40
        width = self.card.width - 80
        self.address = TextField(pygame.Rect(left, self.card.top + 150, width, 44),
                                 "Server  (host or host:port; wss:// for a secure one)",
                                 address or app.config.server,
                                 "host, host:port or ws://… (port 8765 by default)", 200)
        self.name = TextField(pygame.Rect(left, self.card.top + 230, width, 44), "Your name",
                              name or app.config.name, f"up to {NAME_LIMIT} characters", NAME_LIMIT)
        self.fields = [self.address, self.name]
        (self.name if self.address.value and not self.name.value else self.address).focused = True
        self.connect_button = Button(pygame.Rect(left, self.card.top + 300, width - 196, 48),
                                     "Connect", "connect", "Enter", primary=True, size=18)
        self.offline_button = Button(pygame.Rect(left + width - 184, self.card.top + 300, 184, 48),
                                     "Play offline", "offline", "F2", size=16)
        self.message = ""
        self.message_color = theme.MUTED
        self.busy = False

    def handle_event(self, event: pygame.event.Event) -> None:
        """Typing, Tab between fields, Up and Down or a click to pick a server found on the
        network, Enter or the button to connect."""
        picked = self.lan.handle_event(event)
        if picked is None and event.type == pygame.KEYDOWN and event.key in STEPS:
            picked = self.lan.step(self.address.value, STEPS[event.key])
            if picked is None:
                return
        if picked is not None:
            self.pick(picked)
            return
        if self.connect_button.handle_event(event):
            self.submit()
            return
        if self.offline_button.handle_event(event) or (
            event.type == pygame.KEYDOWN and event.key == pygame.K_F2
        ):
            self.play_offline()
            return
        if event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.submit()
                return
            if event.key == pygame.K_TAB:
                i = next((i for i, f in enumerate(self.fields) if f.focused), -1)
                for f in self.fields:
                    f.focused = False
                self.fields[(i + 1) % len(self.fields)].focused = True
                return
            if event.key == pygame.K_ESCAPE:
                self.app.running = False
                return
        for f in self.fields:
            f.handle_event(event)

    def pick(self, address: str) -> None:
        """Put a found server's ``address`` in the field (Enter then connects to it)."""
        self.address.value, self.address.caret = address, None
        for f in self.fields:
            f.focused = False
        (self.address if self.name.value.strip() else self.name).focused = True

    def submit(self) -> None:
        """Validate the inputs and start connecting."""
        name = self.name.value.strip()
        try:
            url = to_url(self.address.value)
        except BadAddress as exc:
            self.show(str(exc), theme.BAD)
            return
        if not name:
            self.show("Type a name others will see.", theme.BAD)
            return
        self.busy = True
        self.show(f"Connecting to {url} …", theme.MUTED)
        self.app.connect(url, name, self.address.value.strip())

    def play_offline(self) -> None:
        """Start a server inside this program and connect to it (play the computer, replay)."""
        from client.local import EmbeddedServer

        name = self.name.value.strip() or "Player"
        if self.app.local_server is None:
            try:
                self.app.local_server = EmbeddedServer().start()
            except Exception as exc:  # the server could not start: say why, stay here
                self.show(f"Cannot start a local server: {exc}", theme.BAD)
                return
        self.busy = True
        self.show("Starting a game server on this computer…", theme.MUTED)
        url = self.app.local_server.url
        self.app.connect(url, name, "this computer")

    def enter(self) -> None:
        """Back here after the connection failed under a room: the reason is shown once, here
        (not also as the app's notice), and Enter connects again."""
        if self.app.net_status == "offline" and self.message and self.app.notice:
            self.app.notice = ""

    def update(self, dt: float) -> None:
        """The button is off while a connection attempt runs; the network is searched while
        this scene is on top and not connecting."""
        self.connect_button.enabled = not self.busy
        self.offline_button.enabled = not self.busy
        searching = self.app.top is self and not self.busy
        if searching and not self.lan.finder.running:
            self.lan.finder.start()
        elif not searching and self.lan.finder.running:
            self.lan.finder.stop()
        if self.lan.update():
            self.app.invalidate()

    def exit(self) -> None:
        """Stop searching the network."""
        self.lan.finder.stop()

    def show(self, text: str, color: theme.Color) -> None:
        """Set the message under the button (as a sentence)."""
        if "://" not in text.split(" ", 1)[0]:  # never capitalise an address (ws://, wss://)
            text = text[:1].upper() + text[1:]
        self.message, self.message_color = text, color

    def on_net(self, event: NetEvent) -> None:
        """Show why connecting failed."""
        if event.kind == "failed":
            self.busy = False
            if self.app.top is self:  # shown here; over a room the app's notice says it
                self.app.notice = ""
            self.show(event.text, theme.BAD)
        elif event.kind == "closed" and event.code in NO_RECONNECT_CODES:
            self.busy = False
            self.show(self.app.notice or "The server closed the connection.", theme.BAD)
        elif event.kind == "closed" and self.busy and not self.app.welcome:
            self.busy = False
            reason = f" ({event.text})" if event.text else ""
            self.show(f"The server closed the connection{reason}.", theme.BAD)
            self.app.disconnect()

    def on_message(self, message: dict[str, Any]) -> None:
        """Go to the lobby on ``welcome``; explain a refused ``hello``."""
        if message.get("type") == "welcome" and self.app.top is self:
            from client.scenes.lobby import LobbyScene

            self.busy = False
            self.show("", theme.MUTED)
            self.app.push(LobbyScene(self.app))
        elif message.get("type") == "error" and not self.app.welcome:
            code = message.get("code")
            text = str(message.get("message") or code)
            if code == "unsupported_protocol":
                text = f"Wrong protocol version: {text}. Update the client or the server."
            elif code == "bad_token":
                return  # the app reconnects as a new identity by itself
            self.busy = False
            self.show(text, theme.BAD)
            self.app.disconnect()

    @property
    def settings_note(self) -> str:
        """What is wrong with the config file (damaged, cannot be saved), or ""."""
        return self.app.config.problem

    def message_rect(self) -> pygame.Rect:
        """Where the message (a failure's reason) goes: under the buttons, inside the card."""
        top = self.connect_button.rect.bottom + 16
        return pygame.Rect(self.card.left + 40, top, self.card.width - 80,
                           self.card.bottom - 12 - top)

    def draw(self, surface: pygame.Surface) -> None:
        """The title card with the two fields, the button and the message."""
        w = theme.LOGICAL_SIZE[0]
        draw.text(surface, "Boardhall", (w // 2, self.card.top - 124), 56, theme.TEXT, "midtop")
        draw.text(surface, fonts.label("chess · draughts · number chess · hex five · custom",
                                       "国际象棋 · 国际跳棋 · 国际数棋 · 五子棋 · 精班棋"),
                  (w // 2, self.card.top - 52), 20 if fonts.has_cjk() else 16, theme.MUTED,
                  "midtop")
        draw.panel(surface, self.card)
        draw.text(surface, "Connect to a server", (self.card.left + 40, self.card.top + 36), 26)
        draw.text(surface, "Ask the host for the address; others see your name.",
                  (self.card.left + 40, self.card.top + 76), 15, theme.MUTED,
                  max_width=self.card.width - 80)
        for f in self.fields:
            f.draw(surface)
        self.connect_button.draw(surface)
        self.offline_button.draw(surface)
        if self.message:
            draw.paragraph(surface, self.message, self.message_rect(), 16, self.message_color)
        self.lan.draw(surface, self.address.value)
        draw.text(surface, "Tab: next field   Up/Down: pick a server   Enter: connect   "
                  "F2: play offline   Esc: quit", (w // 2, self.card.bottom + 18), 14,
                  theme.FAINT, "midtop")
        if self.settings_note:
            note = pygame.Rect(0, self.card.bottom + 44, self.card.width + 160,
                               theme.LOGICAL_SIZE[1] - self.card.bottom - 50)
            note.centerx = w // 2
            draw.paragraph(surface, self.settings_note, note, 14, theme.WARN)
