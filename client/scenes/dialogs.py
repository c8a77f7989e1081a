"""Modal dialogs drawn over the room: a choice (chess promotion) and the number chess expression."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

import pygame

from client.scenes.base import Scene
from client.ui import draw, theme
from client.ui.widgets import Button, TextField, plain_key, pressed

if TYPE_CHECKING:
    from client.app import App


PICTURE = 52
"""How big a choice's picture is (a promotion's piece), in logical pixels."""


@lru_cache(maxsize=4)
def _shade(size: tuple[int, int]) -> pygame.Surface:
    shade = pygame.Surface(size, pygame.SRCALPHA)
    shade.fill(theme.OVERLAY)
    return shade


class Dialog(Scene):
    """A card over a dimmed scene; Esc cancels. Centred, or over ``area`` with only that area
    dimmed (what is beside it, the board, stays in view)."""

    transparent = True

    def __init__(self, app: App, title: str, size: tuple[int, int],
                 area: pygame.Rect | None = None) -> None:
        super().__init__(app)
        self.title = title
        self.area = area
        self.card = pygame.Rect(0, 0, *size)
        self.card.center = area.center if area is not None else (theme.LOGICAL_SIZE[0] // 2,
                                                                 theme.LOGICAL_SIZE[1] // 2)

    def close(self) -> None:
        """Remove the dialog."""
        self.app.pop(self)

    def shade_bars(self, swatch: pygame.Surface) -> None:
        """A dialog that dims the whole scene dims the window's bars beside it too."""
        if self.area is None:
            swatch.blit(_shade(swatch.get_size()), (0, 0))

    def draw(self, surface: pygame.Surface) -> None:
        """Dim what is below (the area only, when given) and draw the card with its title."""
        if self.area is None:
            surface.blit(_shade(surface.get_size()), (0, 0))
        else:
            surface.blit(_shade(self.area.size), self.area.topleft)
        draw.panel(surface, self.card, theme.PANEL, theme.ACCENT)
        draw.text(surface, self.title, (self.card.left + 24, self.card.top + 20), 22)


class ChoiceDialog(Dialog):
    """Pick one of a few options (button or its key)."""

    def __init__(self, app: App, title: str, options: list[tuple[str, str, str]],
                 on_choose: Callable[[str], None], area: pygame.Rect | None = None,
                 footer: str = "Esc: cancel",
                 pictures: Mapping[str, pygame.Surface] | None = None) -> None:
        """``options`` are (label, key letter, value); ``on_choose(value)`` runs on a pick.
        ``area``: where the card goes, undimmed around it (a premove's promotion: over the side
        panel, the board in view); centred over a dimmed window when ``None``. ``footer``
        says what Esc does. ``pictures`` (by value, about :data:`PICTURE` px): drawn above
        their buttons (a promotion's pieces), and a click on one picks it too."""
        self.pictures = dict(pictures or {})
        self.pointed: str | None = None
        """The value whose picture the pointer is over."""
        raised = PICTURE + 8 if self.pictures else 0
        width = max(360, 48 + len(options) * 118)
        if area is not None:
            width = min(width, area.width)
        super().__init__(app, title, (width, 190 + raised), area)
        self.footer = footer
        self.on_choose = on_choose
        self.buttons: list[tuple[Button, str, str]] = []
        step = min(118, (width - 48 + 10) // max(1, len(options)))
        for i, (label, key, value) in enumerate(options):
            rect = pygame.Rect(self.card.left + 24 + i * step, self.card.top + 70 + raised,
                               step - 10, 64)
            self.buttons.append((Button(rect, label, value, key.upper(), size=17), key, value))

    def picture_rect(self, button: Button) -> pygame.Rect:
        """Where a button's picture goes: just above it, as wide."""
        return pygame.Rect(button.rect.left, button.rect.top - PICTURE - 8, button.rect.width,
                           PICTURE + 4)

    def handle_event(self, event: pygame.event.Event) -> None:
        """A click on a button, its picture or its key chooses; Esc cancels."""
        if event.type == pygame.MOUSEMOTION:
            self.pointed = next((value for button, _, value in self.buttons
                                 if self.picture_rect(button).collidepoint(event.pos)), None)
        for button, key, value in self.buttons:
            if button.handle_event(event) or (
                    event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
                    and value in self.pictures
                    and self.picture_rect(button).collidepoint(event.pos)):
                self.choose(value)
                return
            if (event.type == pygame.KEYDOWN and plain_key(event)
                    and event.unicode.lower() == key.lower()):
                self.choose(value)
                return
        if event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE:
            self.close()

    def choose(self, value: str) -> None:
        """Close and report the choice."""
        self.close()
        self.on_choose(value)

    def draw(self, surface: pygame.Surface) -> None:
        """The card with its buttons."""
        super().draw(surface)
        for button, _, value in self.buttons:
            button.draw(surface)
            picture = self.pictures.get(value)
            if picture is not None:
                spot = self.picture_rect(button)
                pointed = button.hover or value == self.pointed
                draw.panel(surface, spot, theme.PICTURE_TILE_HI if pointed else theme.PICTURE_TILE,
                           theme.ACCENT if pointed else theme.BORDER)
                surface.blit(picture, picture.get_rect(center=spot.center))
        draw.text(surface, self.footer, (self.card.centerx, self.card.bottom - 28), 13,
                  theme.FAINT, "midtop")


class ExpressionDialog(Dialog):
    """Number chess span: type the expression over the spanned pieces' numbers.

    ``check(expression)`` returns an error text (or ``None`` when the engine accepts it);
    ``on_send(expression)`` runs when it is accepted. ``hint`` is a valid expression.
    ``area``: where the card goes (the room puts it over its side panel, beside the board, so
    the span stays in view, undimmed, while the expression is typed); centred when ``None``.
    """

    def __init__(self, app: App, span: str, numbers_text: str, target: int | None, hint: str,
                 check: Callable[[str], str | None], on_send: Callable[[str], None],
                 area: pygame.Rect | None = None) -> None:
        width = min(560, area.width) if area is not None else 560
        super().__init__(app, f"Span {span}", (width, 420), area)
        self.numbers_text = numbers_text
        self.target = target
        self.hint = hint
        self.check = check
        self.on_send = on_send
        left, top, inner = self.card.left + 24, self.card.top, self.card.width - 48
        self.field = TextField(pygame.Rect(left, top + 150, inner, 44), "Expression", "",
                               "e.g. 6+3  (+ - * / and parentheses)", 60, focused=True)
        step = (inner + 16) // 3
        self.hint_button = Button(pygame.Rect(left, top + 214, step - 16, 48), "Hint", "hint",
                                  "Ctrl+H")
        self.send_button = Button(pygame.Rect(left + step, top + 214, step - 16, 48), "Play",
                                  "send", "Enter", primary=True)
        self.cancel_button = Button(pygame.Rect(left + 2 * step, top + 214, step - 16, 48),
                                    "Cancel", "cancel", "Esc")
        self.error = ""

    def handle_event(self, event: pygame.event.Event) -> None:
        """Typing, Hint, Play and Cancel."""
        action = pressed((self.hint_button, self.send_button, self.cancel_button), event)
        if action:
            self.act(action)
            return
        if event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                self.act("send")
                return
            if event.key == pygame.K_ESCAPE:
                self.act("cancel")
                return
            if event.key == pygame.K_h and event.mod & pygame.KMOD_CTRL:
                self.act("hint")
                return
        if event.type == pygame.TEXTINPUT:
            event = pygame.event.Event(pygame.TEXTINPUT, text="".join(
                ch for ch in event.text if ch in "0123456789+-*/() "))
        self.field.focused = True
        before = self.field.value
        self.field.handle_event(event)
        if self.field.value != before:
            self.error = ""  # it was about the expression as it stood

    def act(self, action: str) -> None:
        """Fill the hint, send the expression, or cancel."""
        if action == "hint":
            self.field.value = self.hint
            self.error = ""
        elif action == "cancel":
            self.close()
        elif action == "send":
            expression = self.field.value.replace(" ", "")
            if not expression:
                self.error = "Type an expression (or press Hint)."
                return
            problem = self.check(expression)
            if problem:
                self.error = problem
                return
            self.close()
            self.on_send(expression)

    def draw(self, surface: pygame.Surface) -> None:
        """Numbers to combine, the field, the buttons and any error (over the side panel the
        board is not dimmed: the span marked on it is what the expression is about)."""
        super().draw(surface)
        goal = f" to make {self.target}" if self.target is not None else ""
        draw.paragraph(surface,
                       f"Combine the spanned numbers {self.numbers_text}{goal}, each once.",
                       pygame.Rect(self.card.left + 24, self.card.top + 58, self.card.width - 48,
                                   62), 16, theme.MUTED)
        self.field.draw(surface)
        for button in (self.hint_button, self.send_button, self.cancel_button):
            button.draw(surface)
        if self.error:  # the engine's reason, wrapped: a small window must not cut it
            top = self.hint_button.rect.bottom + 10
            draw.paragraph(surface, self.error, pygame.Rect(
                self.card.left + 24, top, self.card.width - 48, self.card.bottom - top - 6), 15,
                theme.BAD)
