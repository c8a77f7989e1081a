"""The round trip to the server is measured with ``ping``/``pong`` and shown to the user."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from client.app import PING_EVERY_S, App
from client.config import Config
from client.local import EmbeddedServer
from client.scenes.connect import ConnectScene
from client.scenes.lobby import LobbyScene


class Clock:
    """The app's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now






def test_ping_measures_the_round_trip_and_the_lobby_shows_it(
    embedded: EmbeddedServer, tmp_path: Path, pump_until: Callable[..., None]
) -> None:
    """A ping goes out when the lobby opens and every PING_EVERY_S after; the pong's echo of our
    clock gives the round trip, shown in the lobby header."""
    clock = Clock()
    app = App(Config(path=tmp_path / "c.json"), headless=True, clock=clock)
    scene = ConnectScene(app, embedded.url, "Pinger")
    app.push(scene)
    scene.submit()
    try:
        pump_until(app, lambda: any(m.get("type") == "ping" for m in app.sent))
        assert isinstance(app.top, LobbyScene)
        pings = [m for m in app.sent if m.get("type") == "ping"]
        assert len(pings) == 1 and pings[0]["t"] == 500_000
        clock.now += 0.042  # the pong arrives 42 ms later by the app's clock
        pump_until(app, lambda: app.rtt_ms is not None)
        assert app.rtt_ms == 42
        app.step(0.0)
        assert len([m for m in app.sent if m.get("type") == "ping"]) == 1, "pinged too often"
        clock.now += PING_EVERY_S
        app.step(0.0)
        assert len([m for m in app.sent if m.get("type") == "ping"]) == 2
        from client.ui import draw

        with draw.collect_text() as texts:
            app.top.draw(app.surface)
        assert any("ping 42 ms" in t.value for t in texts)
    finally:
        app.disconnect()


def test_a_pong_with_a_strange_stamp_is_ignored(tmp_path: Path) -> None:
    """A pong without our stamp, or with a nonsense one, changes nothing."""
    from client.net import NetEvent

    app = App(Config(path=tmp_path / "c.json"), headless=True, clock=Clock())
    for t in (None, "soon", True, 10**15, -5):
        app.dispatch_net(NetEvent("message", data={"type": "pong", "t": t, "server_time": 1}))
    assert app.rtt_ms is None
