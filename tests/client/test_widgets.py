"""Text fields edit at the caret; choosers and lists react to their input."""

from __future__ import annotations

import pygame

from client.ui.widgets import Button, Chooser, ListView, TextField
from tests.client.helpers import contrast


def key(field: TextField, code: int, mod: int = 0) -> None:
    """A key press on ``field``."""
    field.handle_event(pygame.event.Event(pygame.KEYDOWN, key=code, mod=mod, unicode=""))


def test_text_field_edits_at_the_caret() -> None:
    """Typing, moving the caret and deleting behave like any text box."""
    field = TextField(pygame.Rect(0, 0, 200, 40), "Server", focused=True)
    field.handle_event(pygame.event.Event(pygame.TEXTINPUT, text="host:8765"))
    key(field, pygame.K_HOME)
    field.handle_event(pygame.event.Event(pygame.TEXTINPUT, text="my"))
    assert field.value == "myhost:8765"
    key(field, pygame.K_END)
    key(field, pygame.K_BACKSPACE)
    key(field, pygame.K_LEFT)
    key(field, pygame.K_DELETE)
    assert field.value == "myhost:87"
    field.value = "reset"  # assigned from outside: the caret goes to the end
    field.insert("!")
    assert field.value == "reset!"
    key(field, pygame.K_u, pygame.KMOD_CTRL)
    assert field.value == ""


def test_text_field_keeps_its_limit_and_drops_control_characters() -> None:
    """Nothing beyond ``max_length``; no newlines or tabs."""
    field = TextField(pygame.Rect(0, 0, 200, 40), "Name", max_length=5, focused=True)
    field.insert("ab\ncd\tefgh")
    assert field.value == "abcde"


def test_unfocused_field_ignores_typing() -> None:
    """Only the focused field takes text."""
    field = TextField(pygame.Rect(0, 0, 200, 40), "Code")
    assert not field.handle_event(pygame.event.Event(pygame.TEXTINPUT, text="x"))
    assert field.value == ""


def test_chooser_and_list() -> None:
    """A click steps the chooser; a click on a row selects it."""
    chooser = Chooser(pygame.Rect(0, 0, 300, 40), "Clock", [("a", "A"), ("b", "B"), ("c", "C")])
    chooser.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(250, 20), button=1))
    assert chooser.value == "b"
    chooser.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 20), button=1))
    assert chooser.value == "a"
    rows = ListView(pygame.Rect(0, 0, 300, 200), header=("x",))
    rows.set_rows([["one"], ["two"], ["three"]])
    rows.handle_event(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 34 * 2 + 5), button=1))
    assert rows.selected == 1


def test_text_takes_relatively_more_room_in_a_small_window() -> None:
    """Text keeps a readable pixel size in a small window, so its logical extent grows there;
    at full size the extent is the plain width."""
    from client.ui import draw, fonts

    assert draw.text_extent("online · score 12", 14) == fonts.text_width("online · score 12", 14)
    small = draw.text_extent("online · score 12", 14, 900 / 1280)
    assert small > fonts.text_width("online · score 12", 14)
    assert draw.window_px(14, 0.5) == draw.MIN_WINDOW_PX


def _key(key: int, mod: int = 0) -> pygame.event.Event:
    return pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode="")


def test_a_number_field_steps_with_the_arrow_keys() -> None:
    """Up and Down step a number field by one (Page Up and Page Down by ten), from its
    default (the placeholder) when it is empty, never below zero; a text field ignores them."""
    field = TextField(pygame.Rect(0, 0, 100, 30), "Home limit", placeholder="30", digits=True,
                      focused=True)
    assert field.handle_event(_key(pygame.K_UP))
    assert field.value == "31"
    assert field.handle_event(_key(pygame.K_PAGEDOWN))
    assert field.value == "21"
    field.value = "3"
    field.handle_event(_key(pygame.K_PAGEDOWN))
    assert field.value == "0"
    field.handle_event(_key(pygame.K_DOWN))
    assert field.value == "0"
    text = TextField(pygame.Rect(0, 0, 100, 30), "Name", value="ann", focused=True)
    assert not text.handle_event(_key(pygame.K_UP))
    assert text.value == "ann"


def test_a_buttons_key_hint_is_readable_on_a_plain_and_a_primary_button() -> None:
    """The key under a button's label (Create room's Ctrl+N, the draw offer's Accept Y, the
    result's Rematch M) was drawn grey on the primary buttons' blue at 2.4:1 and hard to read;
    every enabled button's hint now stands at least 4.5:1 against its button (WCAG AA)."""
    pygame.init()
    for primary in (False, True):
        surface = pygame.Surface((200, 60))
        button = Button(pygame.Rect(0, 0, 200, 60), "Accept", "accept", "Ctrl+W",
                        primary=primary)
        button.draw(surface)
        background = tuple(surface.get_at((8, 52)))[:3]
        hint_band = [tuple(surface.get_at((x, y)))[:3]
                     for x in range(60, 140) for y in range(34, 50)]
        best = max(contrast(c, background) for c in hint_band)  # the glyphs' own colour
        assert best >= 4.5, (primary, background, best)
