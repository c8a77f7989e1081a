"""The connect screen's "Servers on your network" card: what a :class:`client.discovery.Finder`
has found, picked with the mouse or the arrow keys to fill in the address field."""

from __future__ import annotations

import pygame

from client.address import BadAddress, to_url
from client.discovery import Finder, Found
from client.ui import draw, theme

ROW_TOP = 108
"""Where the first row starts, below the card's top."""
ROW_HEIGHT = 64
ROW_GAP = 8


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class LanPanel:
    """The list of servers found on the local network, in ``rect``."""

    def __init__(self, rect: pygame.Rect, finder: Finder) -> None:
        self.rect = rect
        self.finder = finder
        self.found: list[Found] = []
        self.searching = True
        self.hover: int | None = None

    def capacity(self) -> int:
        """How many rows fit (one line at the bottom says how many more there are)."""
        room = self.rect.height - ROW_TOP - 40
        return max(1, room // (ROW_HEIGHT + ROW_GAP))

    def update(self) -> bool:
        """Take the finder's list now; True when what is shown changed."""
        found = self.finder.servers()
        searching = self.finder.searching()
        shown = [(f.id, f.name, f.where, f.players, f.rooms) for f in found]
        before = [(f.id, f.name, f.where, f.players, f.rooms) for f in self.found]
        changed = shown != before or searching != self.searching
        self.found, self.searching = found, searching
        return changed

    def row_rect(self, index: int) -> pygame.Rect:
        """Where row ``index`` is drawn."""
        top = self.rect.top + ROW_TOP + index * (ROW_HEIGHT + ROW_GAP)
        return pygame.Rect(self.rect.left + 24, top, self.rect.width - 48, ROW_HEIGHT)

    def visible(self) -> list[Found]:
        """The servers with a row (the first :meth:`capacity`)."""
        return self.found[: self.capacity()]

    def chosen(self, address: str) -> int | None:
        """The row whose server ``address`` (the address field) names, if any (``host`` names
        ``host:8765``)."""
        try:
            typed = to_url(address)
        except BadAddress:
            return None
        return next((i for i, f in enumerate(self.visible()) if to_url(f.address) == typed), None)

    def step(self, address: str, delta: int) -> str | None:
        """The address of the server ``delta`` rows from the one ``address`` names (the first
        or last when it names none); ``None`` when nothing is listed."""
        rows = self.visible()
        if not rows:
            return None
        at = self.chosen(address)
        if at is None:
            at = 0 if delta > 0 else len(rows) - 1
        else:
            at = max(0, min(len(rows) - 1, at + delta))
        return rows[at].address

    def handle_event(self, event: pygame.event.Event) -> str | None:
        """The address of a row clicked; tracks the pointer for the hover highlight."""
        if event.type == pygame.MOUSEMOTION:
            self.hover = next((i for i in range(len(self.visible()))
                               if self.row_rect(i).collidepoint(event.pos)), None)
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for i, found in enumerate(self.visible()):
                if self.row_rect(i).collidepoint(event.pos):
                    return found.address
        return None

    def draw(self, surface: pygame.Surface, address: str) -> None:
        """The card: its title, then a row per server (the one ``address`` names
        highlighted), or a calm line while there is none."""
        draw.panel(surface, self.rect)
        left = self.rect.left + 24
        width = self.rect.width - 48
        draw.text(surface, "Servers on your network", (left, self.rect.top + 36), 22,
                  max_width=width)
        if not self.found:
            line = ("Searching the local network…" if self.searching
                    else "None found: type the server's address.")
            draw.text(surface, line, (left, self.rect.top + 74), 15, theme.MUTED,
                      max_width=width)
            if not self.searching:
                note = pygame.Rect(left, self.rect.top + 104, width, 120)
                draw.paragraph(surface, "A server on this network shows here when it runs "
                               "with discovery on (the default).", note, 14, theme.FAINT)
            return
        draw.text(surface, "Click one, or press Up/Down, to pick it.",
                  (left, self.rect.top + 74), 14, theme.MUTED, max_width=width)
        chosen = self.chosen(address)
        for i, found in enumerate(self.visible()):
            row = self.row_rect(i)
            picked = i == chosen
            fill = theme.ACCENT_DIM if picked else (theme.PANEL_HI if i == self.hover
                                                    else theme.INPUT_BG)
            draw.panel(surface, row, fill, theme.ACCENT if picked else theme.BORDER)
            counts = f"{_plural(found.players, 'player')} · {_plural(found.rooms, 'game')}"
            right = draw.text(surface, counts, (row.right - 12, row.top + 12), 14,
                              theme.TEXT if picked else theme.MUTED, "topright")
            draw.text(surface, found.name, (row.left + 12, row.top + 10), 17,
                      max_width=max(40, right.left - row.left - 24))
            secure = "  · secure (wss)" if found.scheme == "wss" else ""
            draw.text(surface, found.where + secure, (row.left + 12, row.bottom - 26), 14,
                      theme.TEXT if picked else theme.MUTED, max_width=row.width - 24)
        more = len(self.found) - len(self.visible())
        if more > 0:
            draw.text(surface, f"and {more} more", (left, self.rect.bottom - 30), 14,
                      theme.FAINT)
