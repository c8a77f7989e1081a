"""The result panel: who won, why, and the scores, over the room."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from client.end_reasons import why_line
from client.room_model import OFFER_WORDS, RoomModel
from client.scenes.dialogs import Dialog
from client.ui import draw, fonts, theme
from client.ui.widgets import Button, plain_key, pressed

if TYPE_CHECKING:
    from client.app import App
    from client.scenes.room import RoomScene


BUTTON_GAP = 8
"""Pixels between the panel's buttons."""
SPECTATOR_ACTIONS = (("Replay", "replay", "P"), ("Close", "close", "Esc"), ("Leave", "leave", "L"))
"""What a spectator can do once the game is over: (label, action, key)."""
PLAYER_ACTIONS = (("Rematch", "rematch", "M"), *SPECTATOR_ACTIONS)
"""What a player can do: a spectator's actions after Rematch."""
WHY_LINES, WHY_SIZE, WHY_STEP = 2, 16, 22
"""Why the game ended (a number chess report or stop): at most two lines of this size, this
many pixels apart, under the line that says what happened; the card grows to hold them."""


class ResultPanel(Dialog):
    """Shown when ``over`` arrives; Rematch (players only), Replay, Close (look at the board)
    or Leave."""

    def __init__(self, app: App, room: RoomScene) -> None:
        m = room.model
        you = None if app.seat_connections else m.you  # hot-seat: both seats are the user's
        self.why = why_line(m, you, lambda seat: fonts.fit(m.name_of(seat), WHY_SIZE, 160))
        """Why the game ended, when the result alone does not say (see :func:`why_line`)."""
        self.why_room = WHY_LINES * WHY_STEP if self.why else 0
        super().__init__(app, "Game over", (520, 320 + self.why_room))
        self.room = room
        actions = PLAYER_ACTIONS if room.seated else SPECTATOR_ACTIONS
        self.buttons = button_row(self.card, actions)
        self.rematch = next((b for b in self.buttons if b.action == "rematch"), None)
        """The Rematch button (``None`` for a spectator, who cannot ask for one)."""
        if self.rematch is not None:
            self.rematch.primary = True
            self.rematch.enabled = self.can_rematch()

    def handle_event(self, event: pygame.event.Event) -> None:
        """Buttons and their keys."""
        action = pressed(self.buttons, event)
        if action:
            self.act(action)
            return
        if event.type == pygame.KEYDOWN and not plain_key(event):
            return  # Ctrl+M, Alt+L...: not the letter's shortcut
        offer = self.room.model.pending_offer()
        if offer is not None and event.type == pygame.KEYDOWN and event.key in (pygame.K_y,
                                                                                pygame.K_n):
            self.room.answer(event.key == pygame.K_y)
            return
        if event.type == pygame.KEYDOWN:
            keys = {pygame.K_m: "rematch", pygame.K_p: "replay", pygame.K_ESCAPE: "close",
                    pygame.K_RETURN: "close", pygame.K_KP_ENTER: "close", pygame.K_l: "leave"}
            action = keys.get(event.key)
            if action and (action != "rematch" or self.can_rematch()):
                self.act(action)

    def waiting_to_show(self) -> bool:
        """While the move that ended the game still slides to its square, the panel takes keys
        but is not drawn: the user sees the move land first (a slide lasts a fraction of a
        second)."""
        return self.room.move_landing()

    def can_rematch(self) -> bool:
        """As the room's own Rematch button (a seated player, a room the server still has)."""
        return self.room.can("rematch")

    def rematch_offered(self) -> bool:
        """True when the opponent offers a rematch (the Rematch button then accepts it)."""
        offer = self.room.model.pending_offer()
        return offer is not None and offer.get("kind") == "rematch"

    def act(self, action: str) -> None:
        """Do what was asked."""
        self.close()
        if action == "rematch" and self.rematch_offered():
            self.room.answer(True)
        elif action == "rematch":
            self.room.act("rematch")
        elif action == "leave":
            self.room.act("leave")
        elif action == "replay":
            from client.scenes.replay import ReplayScene

            m = self.room.model
            self.app.push(ReplayScene(self.app, m.game, m.variant, m.start, list(m.moves),
                                      {s: m.name_of(s) for s in ("first", "second")},
                                      m.options, m.variant_info, m.result, m.reason,
                                      flipped=self.room.bottom_seat() == "second"))

    def draw(self, surface: pygame.Surface) -> None:
        """Headline and the line under it (what happened and who won, as the reader reads
        them), the scores and how long the game was."""
        from client.scenes.room import moves_played, result_lines

        super().draw(surface)
        m = self.room.model
        width = self.card.width - 40
        hotseat = bool(self.app.seat_connections)  # both seats are the user's
        you = None if hotseat else m.you
        # a long name is cut, never the words that tell what happened ("won", "resigned")
        headline, _ = result_lines(m, hotseat, lambda seat: fonts.fit(m.name_of(seat), 36,
                                                                      width // 2))
        _, detail = result_lines(m, hotseat, lambda seat: fonts.fit(m.name_of(seat), 18,
                                                                    width // 3))
        color = theme.GOOD if you is not None and m.result == you else theme.TEXT
        if you is not None and m.result not in (you, "draw", None):
            color = theme.BAD
        draw.text(surface, headline, (self.card.centerx, self.card.top + 80), 36, color, "midtop",
                  self.card.width - 40)
        if detail:
            draw.text(surface, detail, (self.card.centerx, self.card.top + 128), 18, theme.MUTED,
                      "midtop", self.card.width - 40)
        whys = fonts.wrap(self.why, WHY_SIZE, width)[:WHY_LINES] if self.why else []
        for n, why in enumerate(whys):
            draw.text(surface, why, (self.card.centerx, self.card.top + 156 + n * WHY_STEP),
                      WHY_SIZE, theme.TEXT, "midtop", width)
        top = self.card.top + len(whys) * WHY_STEP  # what follows the why, moved down
        line = "" if self.app.plays_locally else ratings_line(m, width)  # forgotten on exit
        if line:
            draw.text(surface, line, (self.card.centerx, top + 154), 16, theme.TEXT,
                      "midtop", width)
        if m.scores:
            # each side gets half the line, so a long first name cannot push the other
            # side's score out of sight
            share = (width - fonts.text_width("Scores:     ·   ", 18)) // 2
            parts = []
            for s in ("first", "second"):
                score = f" {m.scores.get(s, '?')}"
                parts.append(fonts.fit_keeping(m.name_of(s), score, 18, share))
            draw.text(surface, "Scores:  " + "   ·   ".join(parts),
                      (self.card.centerx, top + (176 if line else 164)), 18,
                      theme.TEXT, "midtop",
                      self.card.width - 40)
        offer = m.pending_offer()
        if offer is not None:
            who = m.name_of(str(offer.get("by")))
            what = OFFER_WORDS.get(str(offer.get("kind")), str(offer.get("kind")))
            line = fonts.fit_keeping(who, f" offers {what}:  Y accept,  N decline", 16, width)
            draw.text(surface, line,
                      (self.card.centerx, top + 198), 16, theme.ACCENT, "midtop",
                      self.card.width - 40)
        else:
            draw.text(surface, moves_played(m.game, len(m.moves), len(self.room.move_rows())),
                      (self.card.centerx, top + 198),
                      14, theme.FAINT, "midtop")
        if self.rematch is not None:
            self.rematch.label = "Accept" if self.rematch_offered() else "Rematch"
        for b in self.buttons:
            b.draw(surface)


def button_row(card: pygame.Rect, actions: tuple[tuple[str, str, str], ...]) -> list[Button]:
    """One button per (label, action, key) of ``actions``, side by side across the bottom of
    ``card`` (24 pixels in from either side), sharing its width."""
    left, top, span = card.left + 24, card.bottom - 76, card.width - 48
    width = (span - BUTTON_GAP * (len(actions) - 1)) // len(actions)
    return [
        Button(pygame.Rect(left + n * (width + BUTTON_GAP), top, width, 52), label, action, key)
        for n, (label, action, key) in enumerate(actions)
    ]


def ratings_line(m: RoomModel, width: int | None = None) -> str:
    """"Ratings:  Alice 1512 (+12)   ·   Bob 1488 (-12)" after a rated game, else "". With
    ``width``, each name is cut so the line fits in that many pixels (never the numbers)."""
    parts = []
    for seat in ("first", "second"):
        change = m.rating_change(seat)
        after = (m.ratings or {}).get(seat, {}).get("after")
        if not change or not isinstance(after, int):
            return ""
        parts.append((m.name_of(seat), f" {after} ({change.replace('±', '+')})"))
    if width is not None:
        share = (width - fonts.text_width("Ratings:      ·   ", 16)) // 2
        return "Ratings:  " + "   ·   ".join(fonts.fit_keeping(n, s, 16, share) for n, s in parts)
    return "Ratings:  " + "   ·   ".join(n + s for n, s in parts)
