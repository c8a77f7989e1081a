"""Widgets: buttons, text fields, choosers, toggles and a scrolling list.

Each widget owns a rectangle in logical coordinates, reacts to pygame events in ``handle_event``
(returning True when it used the event) and draws itself in ``draw`` without changing anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pygame

from client.ui import draw, fonts, theme


@dataclass
class Button:
    """A clickable button; ``clicked`` is set by ``handle_event`` and read by the owner."""

    rect: pygame.Rect
    label: str
    action: str
    hint: str = ""
    """Keyboard shortcut shown under the label (e.g. ``R``)."""
    enabled: bool = True
    primary: bool = False
    size: int = 16
    hover: bool = False
    short: str = ""
    """A shorter label shown when ``label`` does not fit (a small window draws text relatively
    larger); the full label then shows as a tooltip while the pointer is on the button."""
    short_hint: str = ""
    """The hint shown with the short label (e.g. a toggle's state: ``K · on``)."""

    def shortened(self) -> bool:
        """True when the label does not fit at the current display scale and a short one is
        shown instead."""
        return bool(self.short) and fonts.text_width(self.label, self.size) > self.rect.width - 8

    def shown_label(self) -> str:
        """The label as drawn now: the full one, or the short one when the full one would be
        cut."""
        return self.short if self.shortened() else self.label

    def tooltip(self) -> str:
        """What the pointer on the button shows: the full label and its key, when the button
        shows a short label (empty otherwise)."""
        if not self.shortened():
            return ""
        return f"{self.label}  ({self.hint})" if self.hint else self.label

    def handle_event(self, event: pygame.event.Event) -> str | None:
        """Return ``action`` when the button is clicked (left button released over it)."""
        if event.type == pygame.MOUSEMOTION:
            self.hover = self.rect.collidepoint(event.pos)
        elif (
            event.type == pygame.MOUSEBUTTONDOWN
            and event.button == 1
            and self.enabled
            and self.rect.collidepoint(event.pos)
        ):
            return self.action
        return None

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the button (dimmed when disabled)."""
        if not self.enabled:
            bg, fg, border = theme.PANEL, theme.FAINT, theme.BORDER
        elif self.primary:
            bg = theme.ACCENT if self.hover else theme.ACCENT_DIM
            fg, border = theme.TEXT, theme.ACCENT
        else:
            bg = theme.PANEL_HI if self.hover else theme.PANEL
            fg, border = theme.TEXT, theme.BORDER
        draw.panel(surface, self.rect, bg, border)
        short = self.shortened()
        label = self.short if short else self.label
        if self.hint:
            hint = self.short_hint if short and self.short_hint else self.hint
            draw.text(surface, label, (self.rect.centerx, self.rect.centery - 7), self.size,
                      fg, "center", self.rect.width - 8)
            hint_color = theme.PRIMARY_HINT if self.primary else theme.MUTED
            draw.text(surface, hint, (self.rect.centerx, self.rect.centery + 11), 12,
                      hint_color if self.enabled else theme.FAINT, "center",
                      self.rect.width - 8)
        else:
            draw.text(surface, label, self.rect.center, self.size, fg, "center",
                      self.rect.width - 8)


def draw_tooltip(surface: pygame.Surface, buttons: Iterable[Button]) -> None:
    """The full label (and key) of the hovered button that shows a short label, in a box just
    above it (below it when there is no room above), kept on the screen."""
    for button in buttons:
        tip = button.tooltip() if button.hover else ""
        if not tip:
            continue
        width, height = fonts.displayed_size(tip, 15)
        box = pygame.Rect(0, 0, width + 20, height + 10)
        box.midbottom = (button.rect.centerx, button.rect.top - 4)
        if box.top < 0:
            box.midtop = (button.rect.centerx, button.rect.bottom + 4)
        box.clamp_ip(surface.get_rect())
        draw.panel(surface, box, theme.PANEL_HI, theme.ACCENT)
        draw.text(surface, tip, box.center, 15, theme.TEXT, "center")
        return


SHORTCUT_BLOCKERS = pygame.KMOD_CTRL | pygame.KMOD_ALT | pygame.KMOD_META | pygame.KMOD_GUI
"""Modifiers that make a key something else than its letter's shortcut (Ctrl+D is not D)."""


def plain_key(event: pygame.event.Event) -> bool:
    """True for a key pressed without Ctrl, Alt or Meta (Shift, Num Lock and Caps Lock are
    fine): only such a key may act as a single-key shortcut."""
    return not getattr(event, "mod", 0) & SHORTCUT_BLOCKERS


def pressed(buttons: Iterable[Button], event: pygame.event.Event) -> str | None:
    """The action of the first of ``buttons`` that ``event`` presses (each one before it sees
    the event, so hover follows the mouse)."""
    for button in buttons:
        action = button.handle_event(event)
        if action:
            return action
    return None


_STEPS = {pygame.K_UP: 1, pygame.K_DOWN: -1, pygame.K_PAGEUP: 10, pygame.K_PAGEDOWN: -10}
"""What the arrow and page keys add to a number field."""


@dataclass
class TextField:
    """A one-line text input with a label above it (caret keys: Left, Right, Home, End)."""

    rect: pygame.Rect
    label: str
    value: str = ""
    placeholder: str = ""
    max_length: int = 200
    focused: bool = False
    secret: bool = False
    caret: int | None = None
    """Insertion point; ``None`` is the end (so assigning ``value`` puts the caret after it)."""
    multiline: bool = False
    """Keep line breaks of pasted text (a PGN record); they show as ``¶`` in the one line."""
    digits: bool = False
    """A number field: only the digits of what is typed or pasted go in."""
    label_width: int | None = None
    """How wide the label may be (cut with an ellipsis past it); ``None``: as wide as it is."""

    @property
    def position(self) -> int:
        """The caret as an index into ``value``."""
        if self.caret is None or self.caret > len(self.value):
            return len(self.value)
        return max(0, self.caret)

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Focus on click; edit on key presses and text input while focused."""
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.focused = self.rect.collidepoint(event.pos)
            return self.focused
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            self.insert(event.text)
            return True
        if event.type != pygame.KEYDOWN:
            return False
        at = self.position
        ctrl = event.mod & (pygame.KMOD_CTRL | pygame.KMOD_META)
        if event.key == pygame.K_BACKSPACE and at > 0:
            self.value = self.value[: at - 1] + self.value[at:]
            self.caret = at - 1
        elif event.key == pygame.K_DELETE:
            self.value = self.value[:at] + self.value[at + 1 :]
            self.caret = at
        elif event.key == pygame.K_LEFT:
            self.caret = max(0, at - 1)
        elif event.key == pygame.K_RIGHT:
            self.caret = min(len(self.value), at + 1)
        elif event.key == pygame.K_HOME:
            self.caret = 0
        elif event.key == pygame.K_END:
            self.caret = None
        elif event.key == pygame.K_v and ctrl:
            self.insert(clipboard_text())
        elif event.key == pygame.K_u and ctrl:
            self.value, self.caret = "", None
        elif self.digits and event.key in _STEPS:
            self.step(_STEPS[event.key])
        elif event.key != pygame.K_BACKSPACE:
            return False
        return True

    def step(self, by: int) -> None:
        """Add ``by`` to a number field's value (from the placeholder's default when empty),
        never going below zero."""
        shown = self.value or self.placeholder
        start = int(shown) if shown.isdigit() and shown.isascii() else 0
        self.value, self.caret = str(max(0, start + by))[: self.max_length], None

    def insert(self, text: str) -> None:
        """Insert ``text`` at the caret (control characters dropped, line breaks kept when
        ``multiline``), within ``max_length``."""
        if self.multiline:
            text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
        clean = "".join(
            ch for ch in text if ch.isprintable() or (self.multiline and ch == "\n")
        )
        if self.digits:
            clean = "".join(ch for ch in clean if "0" <= ch <= "9")
        at = self.position
        room = max(0, self.max_length - len(self.value))
        clean = clean[:room]
        self.value = self.value[:at] + clean + self.value[at:]
        self.caret = at + len(clean) if self.caret is not None else None

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the label, the box and the value (or the placeholder) with the caret."""
        draw.text(surface, self.label, (self.rect.left, self.rect.top - 22), 14, theme.MUTED,
                  max_width=self.label_width)
        border = theme.ACCENT if self.focused else theme.BORDER
        draw.panel(surface, self.rect, theme.INPUT_BG, border)
        inner = self.rect.width - 20
        left = self.rect.left + 10
        shown = "•" * len(self.value) if self.secret else self.value.replace("\n", "¶")
        at = self.position
        if shown:
            start = 0  # scroll so that the caret stays visible
            while start < at and fonts.text_width(shown[start:at], 18) > inner:
                start += 1
            draw.text(surface, shown[start:], (left, self.rect.centery), 18, theme.TEXT,
                      "midleft", inner)
            caret_x = left + (fonts.text_width(shown[start:at], 18) if at > start else 0) + 1
        else:
            draw.text(surface, self.placeholder, (left, self.rect.centery), 18,
                      theme.FAINT, "midleft", inner)
            caret_x = left
        if self.focused:
            pygame.draw.line(surface, theme.ACCENT, (caret_x, self.rect.top + 8),
                             (caret_x, self.rect.bottom - 8), 2)


def clipboard_text() -> str:
    """The clipboard's text, or an empty string when there is no clipboard."""
    try:
        value = pygame.scrap.get_text()
    except Exception:  # no clipboard on this display (e.g. the dummy driver)
        return ""
    return value if isinstance(value, str) else ""


def copy_text(text: str) -> bool:
    """Put ``text`` on the clipboard; False when there is no clipboard to put it on."""
    try:
        pygame.scrap.put_text(text)
    except Exception:  # no clipboard on this display, or no display at all
        return False
    return True


@dataclass
class Chooser:
    """Pick one of a few options with < and > (click the halves, or Left/Right when focused)."""

    rect: pygame.Rect
    label: str
    options: list[tuple[str, str]]
    """(value, shown text) pairs."""
    index: int = 0

    @property
    def value(self) -> str:
        """The chosen value (empty when there are no options)."""
        return self.options[self.index][0] if self.options else ""

    def select(self, value: str) -> None:
        """Choose ``value`` if it is one of the options."""
        for i, (v, _) in enumerate(self.options):
            if v == value:
                self.index = i

    def set_options(self, options: list[tuple[str, str]]) -> None:
        """Replace the options, keeping the chosen value when it is still there."""
        old = self.value
        self.options = options
        self.index = 0
        self.select(old)

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Step to the previous option (left third) or the next one (elsewhere)."""
        if (
            event.type == pygame.MOUSEBUTTONDOWN
            and event.button == 1
            and self.rect.collidepoint(event.pos)
            and self.options
        ):
            step = -1 if event.pos[0] < self.rect.left + self.rect.width // 3 else 1
            self.index = (self.index + step) % len(self.options)
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the label, arrows and the chosen option."""
        draw.text(surface, self.label, (self.rect.left, self.rect.top - 22), 14, theme.MUTED)
        draw.panel(surface, self.rect, theme.INPUT_BG)
        shown = self.options[self.index][1] if self.options else "—"
        draw.text(surface, "‹", (self.rect.left + 12, self.rect.centery), 22, theme.MUTED,
                  "midleft")
        draw.text(surface, "›", (self.rect.right - 12, self.rect.centery), 22, theme.MUTED,
                  "midright")
        draw.text(surface, shown, self.rect.center, 17, theme.TEXT, "center",
                  self.rect.width - 56)


@dataclass
class Toggle:
    """An on/off switch with a label to its right."""

    rect: pygame.Rect
    label: str
    on: bool = False
    focused: bool = False
    """Reached with Tab: Space (or Enter) flips it."""

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Flip on click, or on Space / Enter while focused."""
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.focused = False
            if self.rect.collidepoint(event.pos):
                self.on = not self.on
                return True
            return False
        if (self.focused and event.type == pygame.KEYDOWN
                and event.key in (pygame.K_SPACE, pygame.K_RETURN, pygame.K_KP_ENTER)):
            self.on = not self.on
            return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the switch and its label."""
        track = pygame.Rect(self.rect.left, self.rect.centery - 11, 40, 22)
        pygame.draw.rect(surface, theme.ACCENT_DIM if self.on else theme.INPUT_BG, track,
                         border_radius=11)
        pygame.draw.rect(surface, theme.ACCENT if self.focused else theme.BORDER, track,
                         2 if self.focused else 1, border_radius=11)
        knob_x = track.right - 11 if self.on else track.left + 11
        draw.disc(surface, theme.TEXT if self.on else theme.MUTED, (knob_x, track.centery), 8)
        draw.text(surface, self.label, (track.right + 10, self.rect.centery), 16, theme.TEXT,
                  "midleft")


class Fit(str):
    """A list cell's text with shorter forms, fullest first, for a column it does not fit."""

    shorter: tuple[str, ...]

    def __new__(cls, text: str, *shorter: str) -> Fit:
        cell = super().__new__(cls, text)
        cell.shorter = shorter
        return cell


def fitting(cell: str, width: int, size: int) -> str:
    """The fullest form of ``cell`` (a :class:`Fit`'s shorter ones after it) that fits in
    ``width`` logical pixels at ``size``, or its shortest."""
    forms = (str(cell), *getattr(cell, "shorter", ()))
    for text in forms:
        if fonts.text_width(text, size) <= width:
            return text
    return forms[-1]


@dataclass
class ListView:
    """A scrolling list of rows; each row is a list of (text, width) columns."""

    rect: pygame.Rect
    rows: list[Sequence[str]] = field(default_factory=list)
    widths: list[int] = field(default_factory=list)
    header: Sequence[str] = ()
    selected: int | None = None
    scroll: int = 0
    row_height: int = 34
    empty_text: str = "Nothing here yet."
    mouse: tuple[int, int] = (-1, -1)
    """Last pointer position seen (logical coordinates), for the wheel."""

    def visible_rows(self) -> int:
        """How many rows fit."""
        top = self.row_height if self.header else 0
        return max(1, (self.rect.height - top) // self.row_height)

    def row_at(self, pos: tuple[int, int]) -> int | None:
        """Index of the row under ``pos``, or ``None``."""
        if not self.rect.collidepoint(pos):
            return None
        top = self.rect.top + (self.row_height if self.header else 0)
        if pos[1] < top:
            return None
        index = self.scroll + (pos[1] - top) // self.row_height
        return index if index < len(self.rows) else None

    def set_rows(self, rows: list[Sequence[str]]) -> None:
        """Replace the rows, keeping the selection and scroll within range."""
        self.rows = rows
        if self.selected is not None and self.selected >= len(rows):
            self.selected = None
        self.scroll = max(0, min(self.scroll, len(rows) - self.visible_rows()))

    def handle_event(self, event: pygame.event.Event) -> bool:
        """Select a row on click; scroll with the wheel."""
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.MOUSEWHEEL:
            if self.rect.collidepoint(self.mouse):
                self.scroll = max(0, min(self.scroll - event.y,
                                         len(self.rows) - self.visible_rows()))
                return True
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            index = self.row_at(event.pos)
            if index is not None:
                self.selected = index
                return True
        return False

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the header, the visible rows and a scroll hint."""
        draw.panel(surface, self.rect, theme.INPUT_BG)
        y = self.rect.top
        if self.header:
            self._row(surface, self.header, y, theme.MUTED, 14)
            pygame.draw.line(surface, theme.BORDER, (self.rect.left + 1, y + self.row_height - 1),
                             (self.rect.right - 2, y + self.row_height - 1))
            y += self.row_height
        if not self.rows:
            draw.text(surface, self.empty_text, (self.rect.centerx, y + 24), 16, theme.FAINT,
                      "midtop")
            return
        for i in range(self.scroll, min(len(self.rows), self.scroll + self.visible_rows())):
            row_rect = pygame.Rect(self.rect.left + 1, y, self.rect.width - 2, self.row_height)
            if i == self.selected:
                pygame.draw.rect(surface, theme.ACCENT_DIM, row_rect)
            elif i % 2:
                pygame.draw.rect(surface, (24, 27, 33), row_rect)
            self._row(surface, self.rows[i], y, theme.TEXT, 16)
            y += self.row_height
        hidden = len(self.rows) - self.visible_rows()
        if hidden > 0:
            draw.text(surface, f"scroll: {self.scroll + 1}-{self.scroll + self.visible_rows()}"
                      f" of {len(self.rows)}", (self.rect.right - 10, self.rect.bottom - 4), 12,
                      theme.FAINT, "bottomright")

    def _row(self, surface: pygame.Surface, cells: Sequence[str], y: int, color: theme.Color,
             size: int) -> None:
        x = self.rect.left + 12
        for i, cell in enumerate(cells):
            width = self.widths[i] if i < len(self.widths) else 120
            draw.text(surface, fitting(cell, width - 10, size), (x, y + self.row_height // 2),
                      size, color, "midleft", width - 10)
            x += width


HINT_ROOM = 24
"""Room a :class:`ScrolledList` longer than it shows keeps at its foot for its "scroll: 1-14
of 41" (a small window draws that hint taller than a row's gap)."""


@dataclass
class ScrolledList(ListView):
    """A :class:`ListView` whose rows stop above its scroll hint, scrolled by
    :meth:`scroll_by` (keys, or the wheel)."""

    def visible_rows(self) -> int:
        """How many rows fit, above the scroll hint when there are more."""
        top = self.row_height if self.header else 0
        fits = max(1, (self.rect.height - top) // self.row_height)
        if len(self.rows) <= fits:
            return fits
        return max(1, (self.rect.height - top - HINT_ROOM) // self.row_height)

    def scroll_by(self, step: int) -> None:
        """Scroll ``step`` rows down (up when negative), within the list."""
        last = max(0, len(self.rows) - self.visible_rows())
        self.scroll = max(0, min(self.scroll + step, last))

    def scroll_to(self, index: int) -> None:
        """Scroll as little as shows row ``index``."""
        visible = self.visible_rows()
        if index < self.scroll:
            self.scroll = index
        elif index >= self.scroll + visible:
            self.scroll = index - visible + 1

    def move(self, step: int) -> None:
        """Pick the row ``step`` rows down (up when negative), stopping at the ends (from no
        pick, Down picks the first row and Up the last), and scroll to it."""
        if not self.rows:
            return
        current = self.selected
        if current is None:
            current = -1 if step > 0 else len(self.rows)
        self.selected = max(0, min(current + step, len(self.rows) - 1))
        self.scroll_to(self.selected)
