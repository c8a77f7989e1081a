"""Every notice the app shows (the bar over the foot of the board, or at the bottom of the lobby)
has a severity. News that asks nothing of the user (a second window plays as another player,
the server gave a new identity) used to be drawn in the same red as a failure; now it is drawn
in the theme's calm colours, while a lost connection and the problems keep the warning ones."""

from __future__ import annotations

from typing import Any

import pytest

from client.app import RENEWED, SECOND_WINDOW, Severity
from client.config import Config
from client.demo import demo_room, demo_welcome
from client.net import NetEvent
from client.screenshot import save
from client.ui import theme
from tests.client.conftest import SHOTS

URL = "ws://192.168.1.20:8765/"
"""Where ``ui.open_lobby`` says the app is connected."""


def notice_colors(app: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(fill, border) of the notice as drawn on the logical surface."""
    app.render()
    rect = app.visible_scenes()[0].notice_rect()
    fill = app.surface.get_at((rect.left + 4, rect.centery))[:3]
    border = app.surface.get_at((rect.centerx, rect.top))[:3]
    return fill, border


def test_news_is_information_and_failures_are_problems(ui: Any) -> None:
    """Each notice the app raises, through the path that raises it, has its severity."""
    Config(path=ui.tmp_path / "config.json").claim(URL, "Alice")  # another window holds it
    ui.open_lobby()
    assert ui.app.notice == SECOND_WINDOW and ui.app.notice_severity is Severity.INFO
    ui.open_room(demo_room("chess", plies=4))

    ui.app._renewed = True  # the server refused the saved token: welcomed as someone new
    ui.message(demo_welcome())
    assert ui.app.notice == RENEWED and ui.app.notice_severity is Severity.INFO

    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.app.dispatch_net(NetEvent("reconnecting", text="Reconnecting in 2 s (attempt 1)…"))
    assert ui.app.notice_severity is Severity.WARNING
    ui.app.dispatch_net(NetEvent("failed", text="Could not reconnect (tried for 90 s): gone"))
    assert ui.app.notice_severity is Severity.ERROR
    ui.app.dispatch_net(NetEvent("reconnecting", text="Reconnecting in 2 s (attempt 1)…"))
    ui.app.dispatch_net(NetEvent("closed", code=4001, text="connected again elsewhere"))
    assert "Another window took over" in ui.app.notice
    assert ui.app.notice_severity is Severity.ERROR

    def choke(message: dict[str, Any]) -> None:
        raise ValueError("no such field")

    ui.app.top.on_message = choke
    ui.message({"type": "chat", "room": "K7QD", "text": "hi"})
    assert ui.app.notice.startswith("Ignored") and ui.app.notice_severity is Severity.ERROR


def test_a_notice_set_without_a_severity_counts_as_a_problem(ui: Any) -> None:
    """Text put in ``notice`` directly (no severity said) is shown as a problem, never as
    news: a notice nobody classified must not look harmless."""
    ui.open_room(demo_room("chess", plies=4))
    ui.app.tell(RENEWED, Severity.INFO)
    ui.app.notice = "Something went wrong"
    assert ui.app.notice_severity is Severity.ERROR


@pytest.mark.parametrize(("severity", "fill", "border"), [
    (Severity.INFO, theme.PANEL_HI, theme.ACCENT_DIM),
    (Severity.WARNING, theme.WARN_BG, theme.WARN),
    (Severity.ERROR, theme.BAD_BG, theme.BAD),
])
def test_each_severity_has_its_own_look(ui: Any, severity: Severity,
                                        fill: theme.Color, border: theme.Color) -> None:
    """Information in the theme's calm panel colours; a lost connection amber; problems red.
    Shot in a room at 1280x800 and 640x480 (under /tmp/boardhall-shots)."""
    ui.open_room(demo_room("chess", plies=4))
    text = {Severity.INFO: SECOND_WINDOW,
            Severity.WARNING: "Reconnecting in 8 s (attempt 5)… Cannot reach ws://192.168.1.20:8765/",
            Severity.ERROR: "Could not reconnect (tried for 2 min): Cannot reach "
                            "ws://192.168.1.20:8765/: Connection refused"}[severity]
    ui.app.tell(text, severity)
    assert notice_colors(ui.app) == (fill, border)
    for size in ((1280, 800), (640, 480)):
        save(ui.app, SHOTS / f"notice-{severity.value}-{size[0]}x{size[1]}.png", size)


def test_information_in_the_lobby_is_calm_too(ui: Any) -> None:
    """The lobby's notice (bottom centre) wears the same colours."""
    Config(path=ui.tmp_path / "config.json").claim(URL, "Alice")
    ui.open_lobby()
    assert notice_colors(ui.app) == (theme.PANEL_HI, theme.ACCENT_DIM)
    for size in ((1280, 800), (640, 480)):
        save(ui.app, SHOTS / f"notice-lobby-info-{size[0]}x{size[1]}.png", size)


def test_a_notice_too_long_for_a_small_window_takes_two_lines(ui: Any) -> None:
    """At 640x480 the second window's notice read "... this one pl…": what it says was cut. It
    now takes more lines there (over the room's side panel: up to three), each whole, and
    fewer in a big window; the lobby's wide notice takes one line at 1280x800, two at 640x480."""
    from client.app import _notice_lines

    ui.open_room(demo_room("chess", plies=4))
    scene = ui.app.visible_scenes()[0]
    width = scene.notice_rect().width - 24
    big = _notice_lines(SECOND_WINDOW, width, 1.0, scene.notice_lines)
    small = _notice_lines(SECOND_WINDOW, width, 0.5, scene.notice_lines)
    assert len(big) < len(small) <= 3 and " ".join(small) == " ".join(big) == SECOND_WINDOW
    assert _notice_lines(SECOND_WINDOW, 736, 1.0) == [SECOND_WINDOW]
    lines = _notice_lines(SECOND_WINDOW, 736, 0.5)
    assert len(lines) == 2 and " ".join(lines) == SECOND_WINDOW, lines
    ui.app.tell(SECOND_WINDOW, Severity.INFO)
    save(ui.app, SHOTS / "notice-info-two-lines-640x480.png", (640, 480))
