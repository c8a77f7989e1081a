"""The bot's reconnection waits against a server that hangs up right after each welcome."""

from __future__ import annotations

import json
import logging

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.bot import BotClient, BotError, BotOptions


async def test_a_server_that_hangs_up_after_each_welcome_gets_growing_waits(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Every welcome used to start the waits over, so such a server was asked again every
    0.5 s for as long as it kept welcoming. Only a session that lasted
    ``reconnect_stable_after`` starts them over; a short one keeps them growing. Five short
    sessions, then the port refuses: the waits logged grow 1, 2, 3, 4 ms, and the bot gives up
    ``reconnect_for`` after the last welcome."""
    welcomes = 0

    async def welcome_then_hang_up(ws: ServerConnection) -> None:
        nonlocal welcomes
        json.loads(await ws.recv())  # the hello
        welcomes += 1
        await ws.send(
            json.dumps(
                {"type": "welcome", "token": "t0ken", "player": "p1", "protocol": 1, "resumed": []}
            )
        )
        await ws.close()
        if welcomes == 5:  # then the port refuses
            server.close()

    server = await serve(welcome_then_hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    options = BotOptions(
        url=f"ws://127.0.0.1:{port}",
        game="chess",
        level=1,
        reconnect_for=0.2,
        reconnect_delays=(0.001, 0.002, 0.003, 0.004),
    )
    caplog.set_level(logging.WARNING, logger="boardhall.bot")
    with pytest.raises(BotError, match="no reconnection"):
        await BotClient(options).run()
    waits = [
        r.args[2]
        for r in caplog.records
        if r.msg.startswith("connection to") and isinstance(r.args, tuple)
    ]
    assert welcomes == 5
    assert waits[:4] == [0.001, 0.002, 0.003, 0.004], waits
