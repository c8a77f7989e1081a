"""Chat at a table on a real server, for the chat tests: two players (and a spectator) at a
table, waiting until what the server sent has arrived, and the lines that followed each room
snapshot."""

from __future__ import annotations

from server.testing import WireClient


async def settled(wire: WireClient) -> None:
    """Wait until everything the server sent ``wire`` before now has arrived (a ping's reply
    comes after every earlier message to the same connection)."""
    assert (await wire.request(type="ping"))["type"] == "pong"


def lines_after_snapshots(wire: WireClient, code: str) -> list[list[str]]:
    """The chat texts that followed each ``room`` snapshot of ``code`` that ``wire`` got, in
    order (and the inbox emptied)."""
    found: list[list[str]] = []
    for message in wire.inbox:
        if message.get("room") != code:
            continue
        if message["type"] == "room":
            found.append([])
        elif message["type"] == "chat" and found:
            found[-1].append(message["text"])
    wire.inbox.clear()
    return found


async def table(ann: WireClient, bob: WireClient, carl: WireClient | None = None) -> str:
    """ann (first) and bob at a hexgomoku table that carl (if given) watches; its code."""
    code = str((await ann.request(type="create", game="hexgomoku", color="first"))["room"])
    assert (await bob.request(type="join", room=code))["status"] == "playing"
    if carl is not None:
        assert (await carl.request(type="join", room=code, role="spectator"))["type"] == "room"
    return code
