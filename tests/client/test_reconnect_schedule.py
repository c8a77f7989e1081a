"""How often a dropped connection tries again, read on an injected clock: the connection's own
pauses are recorded and advance that clock instead of waiting, so a schedule of minutes is
checked at once against a real server (stopped for good) or a server that hangs up on us."""

from __future__ import annotations

import contextlib
import json
import queue
from pathlib import Path

from websockets.sync.server import ServerConnection

from client.local import EmbeddedServer
from client.net import Connection, NetEvent, Patience
from tests.client.helpers import websocket_server


class ManualTime:
    """The connection's clock and pause: a pause is recorded and moves the clock on at once."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pauses: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def pause(self, seconds: float) -> None:
        """Pass ``seconds`` without waiting."""
        self.pauses.append(seconds)
        self.now += seconds


def next_event(conn: Connection, kind: str, timeout: float = 15.0) -> NetEvent:
    """The next event of ``kind`` (the ones before it are skipped)."""
    while True:
        event = conn.inbox.get(timeout=timeout)
        if event.kind == kind:
            return event


def events_until(conn: Connection, kind: str, timeout: float = 15.0) -> list[NetEvent]:
    """Every event up to and with the first of ``kind``."""
    seen: list[NetEvent] = []
    while not seen or seen[-1].kind != kind:
        seen.append(conn.inbox.get(timeout=timeout))
    return seen


def test_a_server_gone_for_good_is_retried_with_growing_waits_then_given_up(tmp_path: Path) -> None:
    """The server stops for good: the waits between attempts double from half a second up to
    8 s (no busy loop), each said in the notice, and after ``reconnect_for`` of the injected
    clock the connection gives up with the reason."""
    server = EmbeddedServer(db=tmp_path / "games.sqlite").start()
    time = ManualTime()
    conn = Connection(
        server.url, "Alice", patience=Patience(reconnect_for=60.0), clock=time, pause=time.pause
    )
    conn.start()
    try:
        next_event(conn, "open")
        assert next_event(conn, "message").data["type"] == "welcome"
        server.stop()
        seen = events_until(conn, "failed")
    finally:
        conn.close()
    assert time.pauses == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0]
    retries = [e.text for e in seen if e.kind == "reconnecting"]
    assert retries[0] == "Connection lost; reconnecting…"
    assert retries[1].startswith("Reconnecting in 1 s (attempt 2)… Connection refused"), retries
    assert retries[-1].startswith("Reconnecting in 8 s (attempt 11)…"), retries
    assert seen[-1].text.startswith("Could not reconnect (tried for 64 s): Connection refused")


WELCOME = json.dumps(
    {
        "type": "welcome",
        "player": "p1",
        "name": "Alice",
        "token": "t1",
        "protocol": 1,
        "server": "not boardhall",
        "games": [],
        "resumed": [],
        "limits": {},
    }
)


def welcome_then_hang_up(ws: ServerConnection) -> None:
    """A server that welcomes every hello and closes the connection at once (one crashing on
    something the client asks after each welcome, or one shedding load)."""
    with contextlib.suppress(Exception):
        ws.recv()
        ws.send(WELCOME)
        ws.close(1011, "internal error")


def test_a_server_that_hangs_up_after_each_welcome_is_retried_with_growing_waits() -> None:
    """Each connection is welcomed and closed at once: that is no stable session, so the waits
    keep growing to 8 s as for a server that refuses (they used to start again from half a
    second after every welcome: two connections a second for ever)."""
    time = ManualTime()
    with websocket_server(welcome_then_hang_up) as port:
        conn = Connection(f"ws://127.0.0.1:{port}/", "Alice", clock=time, pause=time.pause)
        conn.start()
        try:
            while len(time.pauses) < 7:
                with contextlib.suppress(queue.Empty):
                    conn.inbox.get(timeout=15)
        finally:
            conn.close()
    assert time.pauses[:7] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_a_session_that_lasted_starts_the_waits_again_from_half_a_second() -> None:
    """A connection that stayed up a while (a minute of the injected clock) and then dropped is
    tried again after half a second, whatever waits came before it."""
    time = ManualTime()
    connections: list[None] = []

    def three_hang_ups_then_a_steady_session(ws: ServerConnection) -> None:
        connections.append(None)
        if len(connections) <= 3:
            welcome_then_hang_up(ws)
            return
        with contextlib.suppress(Exception):
            ws.recv()
            ws.send(WELCOME)
            ws.recv()  # the test's word that a minute has passed since the welcome
            ws.close(1001, "going away")

    with websocket_server(three_hang_ups_then_a_steady_session) as port:
        conn = Connection(f"ws://127.0.0.1:{port}/", "Alice", clock=time, pause=time.pause)
        conn.start()
        welcomes = 0
        try:
            while len(time.pauses) < 5:
                with contextlib.suppress(queue.Empty):
                    event = conn.inbox.get(timeout=15)
                    if event.data.get("type") == "welcome":
                        welcomes += 1
                        if welcomes >= 4:
                            time.now += 60.0
                            conn.send({"type": "ping"})
        finally:
            conn.close()
    assert time.pauses[:5] == [0.5, 1.0, 2.0, 0.5, 0.5]  # three hang-ups, then steady ones
