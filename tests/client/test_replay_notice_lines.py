"""The connection notice over the replay's header covers each line of text whole or not at all:
a two-line notice stopped inside the players' line and left a sliver of it showing under it.

Checked in window pixels, as the app draws the scene's text and the notice, at 640x480, 800x600
and 1280x800, for notices of one, two and three lines, with and without a result line and with
names in another script."""

from __future__ import annotations

from typing import Any

import pygame
import pytest

from client.net import EventKind, NetEvent, gave_up_text, retry_text
from client.scenes.replay import ReplayScene
from client.screenshot import save
from client.ui import draw
from tests.client.conftest import SHOTS

SIZES = ((640, 480), (800, 600), (1280, 800))
NOTICES: dict[int, tuple[EventKind, str]] = {
    1: ("reconnecting", retry_text("connection refused", 2, 1)),
    2: (
        "reconnecting",
        retry_text("Cannot reach ws://192.168.1.20:8765/: Connection refused", 8, 5),
    ),
    3: (
        "failed",
        gave_up_text(
            "Cannot reach wss://boardhall.games.example.org:8765/hall: Connection refused "
            "(the server may be down or the address mistyped)",
            120,
        ),
    ),
}
"""Notice texts by the lines they take at 800x600."""
RECORDS: dict[str, dict[str, Any]] = {
    "finished": {"names": {"first": "Alice", "second": "Bob"}, "result": "first",
                 "reason": "resign"},
    "no result": {"names": {"first": "Alice", "second": "Bob"}},
    "cjk names": {"names": {"first": "米娅", "second": "王小明"}, "result": "draw",
                  "reason": "agreement"},
}  # fmt: skip


def shown(ui: Any, size: tuple[int, int]) -> tuple[pygame.Rect, list[tuple[str, pygame.Rect]]]:
    """The notice's rectangle and the top scene's lines of text, in the pixels of a window of
    ``size``."""
    app = ui.app
    previous = app.window
    app.window = pygame.Surface(size)
    try:
        scale, ox, oy = app.viewport()
        box, _ = app.notice_box()
        with draw.collect_text(scale) as items:
            app.top.draw(app.surface)
        texts = [(item.value, draw.placed(item, scale, (ox, oy))[2]) for item in items]
        return draw.window_rect(box, scale, (ox, oy)), texts
    finally:
        app.window = previous


@pytest.mark.parametrize("record", RECORDS, ids=list(RECORDS))
@pytest.mark.parametrize("count", NOTICES)
def test_the_notice_covers_each_header_line_whole_or_not_at_all(
    ui: Any, record: str, count: int
) -> None:
    replay = ReplayScene(ui.app, "chess", None, None, ["e2e4", "e7e5", "g1f3"], **RECORDS[record])
    ui.app.push(replay)
    kind, text = NOTICES[count]
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent(kind, text=text))
    for size in SIZES:
        notice, texts = shown(ui, size)
        assert texts, "the replay drew no text"
        for value, rect in texts:
            assert not rect.colliderect(notice) or notice.contains(rect), (
                size,
                value,
                rect,
                notice,
            )
        covered = [value for value, rect in texts if notice.contains(rect)]
        assert "Replay" in covered, (size, covered)  # the header's title, under the notice
    if record == "finished":
        for size in ((800, 600), (640, 480)):
            save(ui.app, SHOTS / f"replay-notice-{count}-lines-{size[0]}x{size[1]}.png", size)


def test_the_notices_take_the_lines_they_are_named_for() -> None:
    """The three notices above wrap to one, two and three lines at 800x600 (so the test
    covers each height)."""
    from client.app import _notice_lines
    from client.scenes.base import SIDE_HEADER

    scale = min(800 / 1280, 600 / 800)
    for count, (_, text) in NOTICES.items():
        assert len(_notice_lines(text, SIDE_HEADER.width - 24, scale, 3)) == count, text
