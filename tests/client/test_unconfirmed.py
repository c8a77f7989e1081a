"""Requests lost with the connection: a resignation, an offer, an answer or a chat line sent
just before the link resets is tracked until its reply; when the reply never comes the room
says which actions the server did not get (compared with the snapshot after the reconnect),
and sends nothing again by itself.

Real server, real sockets: a TCP proxy (tests/client/netproxy.py) holds what one side sends
and then resets the connection, so the request (or its reply) is lost for certain."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pygame

from client.app import App
from client.demo import demo_room
from client.local import EmbeddedServer
from client.net import NetEvent
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from tests.client.conftest import UI, shoot
from tests.client.helpers import key, kinds, proxied, pump, record_events, room_of, table, type_text
from tests.client.netproxy import Proxy

LOST = Path("/tmp/lost")


def picture(app: App, tmp_path: Path, name: str) -> None:
    """Render ``app`` and keep the picture in /tmp/lost."""
    shoot(app, tmp_path, name)
    LOST.mkdir(parents=True, exist_ok=True)
    shutil.copy(tmp_path / f"{name}.png", LOST / f"{name}.png")


def press(app: App, code: int, text: str) -> None:
    """A plain key press."""
    key(app, code, text)


def say_in_chat(app: App, text: str) -> None:
    """Enter, the text, Enter: a chat line as the user sends one."""
    press(app, pygame.K_RETURN, "")
    type_text(app, text)
    press(app, pygame.K_RETURN, "")


def lose_what_goes_up(apps: list[App], proxy: Proxy) -> None:
    """What the client sent is held in the proxy, then the link resets: it never arrives."""
    pump(apps, lambda: proxy.held("up") > 0)
    proxy.cut()
    proxy.release("up")


def back_with_snapshot(apps: list[App], app: App, events: list[NetEvent]) -> None:
    """Pump until ``app`` is back online and has the room's snapshot of the new session."""

    def done() -> bool:
        seen = kinds(events)
        if app.net_status != "online" or "welcome" not in seen:
            return False
        last = len(seen) - 1 - seen[::-1].index("welcome")
        return "room" in seen[last:]

    pump(apps, lambda: app.net_status == "reconnecting" or done())
    pump(apps, done, timeout=15)


def sent(app: App, kind: str) -> list[dict[str, Any]]:
    return [m for m in app.sent if m.get("type") == kind]


def test_a_resignation_lost_with_the_connection_is_said_not_done_and_not_resent(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Bob resigns; the link resets before the server has it. While reconnecting his room says
    the resignation is not confirmed; once back the game is still on, and the room says the
    resignation did not happen, sending nothing again."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        proxy.hold("up")
        press(bob, pygame.K_r, "r")
        press(bob, pygame.K_r, "r")
        assert len(sent(bob, "resign")) == 1
        lose_what_goes_up(apps, proxy)
        pump(apps, lambda: bob.net_status == "reconnecting")
        assert "resignation" in scene.message and "not confirmed" in scene.message
        picture(bob, tmp_path, "resign-unconfirmed-while-reconnecting")
        back_with_snapshot(apps, bob, events)
        assert scene.model.status == "playing" and room_of(alice).model.status == "playing"
        assert "resignation" in scene.message and "did not reach" in scene.message
        assert len(sent(bob, "resign")) == 1, "nothing is sent again by itself"
        picture(bob, tmp_path, "resign-lost-after-reconnect")


def test_a_resignation_the_server_took_shows_as_the_game_over_without_a_warning(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """The server takes Bob's resignation but its reply is lost with the link: once back, the
    snapshot shows the game over, and nothing says the resignation was lost."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        proxy.hold("down")
        press(bob, pygame.K_r, "r")
        press(bob, pygame.K_r, "r")
        pump(apps, lambda: room_of(alice).model.status == "over")
        proxy.cut()
        proxy.release("down")
        back_with_snapshot(apps, bob, events)
        assert scene.model.status == "over" and scene.model.reason == "resign"
        assert "did not reach" not in scene.message and "not confirmed" not in scene.message
        assert bob.find(ResultPanel), "the end is shown as any end is"


def test_a_lost_draw_offer_and_chat_line_are_named_and_not_resent(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Bob offers a draw and says something; the link resets before the server has either.
    Once back: the offer is not on the server (said: offer it again), the chat line cannot be
    checked (said: it may not have been sent); neither is sent again."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        proxy.hold("up")
        press(bob, pygame.K_d, "d")
        say_in_chat(bob, "good luck")
        assert len(sent(bob, "offer")) == 1 and len(sent(bob, "chat")) == 1
        lose_what_goes_up(apps, proxy)
        back_with_snapshot(apps, bob, events)
        assert scene.model.offers == [] and room_of(alice).model.pending_offer() is None
        assert "draw offer did not reach" in scene.message
        assert "“good luck” may not have been sent" in scene.message
        assert len(sent(bob, "offer")) == 1 and len(sent(bob, "chat")) == 1
        picture(bob, tmp_path, "offer-and-chat-lost-after-reconnect")


def test_a_draw_offer_that_reached_the_server_is_not_called_lost(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """The server takes Bob's draw offer (Alice sees it) but its ``ok`` is lost: the snapshot
    lists the offer, so the room says the server has it, not that it was lost."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        proxy.hold("down")
        press(bob, pygame.K_d, "d")
        pump(apps, lambda: room_of(alice).model.pending_offer() is not None)
        proxy.cut()
        proxy.release("down")
        back_with_snapshot(apps, bob, events)
        assert scene.model.offers == [{"kind": "draw", "by": "second"}]
        assert "did not reach" not in scene.message and "not confirmed" not in scene.message
        assert "draw offer" in scene.message and "reached the server" in scene.message


def test_an_answer_lost_with_the_connection_brings_the_offer_back_with_a_word(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Alice offers a draw; Bob declines, but the link resets before the server has his answer.
    Once back the offer is still pending (its banner is back) and the room says his answer did
    not reach the server."""
    with proxied(embedded) as proxy, table(tmp_path, embedded.url, proxy.url()) as (alice, bob):
        apps = [alice, bob]
        scene = room_of(bob)
        events = record_events(bob)
        press(alice, pygame.K_d, "d")
        pump(apps, lambda: scene.model.pending_offer() is not None)
        proxy.hold("up")
        press(bob, pygame.K_n, "n")
        assert scene.model.pending_offer() is None
        lose_what_goes_up(apps, proxy)
        back_with_snapshot(apps, bob, events)
        assert scene.model.pending_offer() == {"kind": "draw", "by": "first"}
        assert "answer to Alice's draw offer did not reach" in scene.message
        assert len(sent(bob, "answer")) == 1
        picture(bob, tmp_path, "answer-lost-after-reconnect")


def test_unconfirmed_actions_are_named_when_the_connection_is_gone_for_good(ui: UI) -> None:
    """The connection drops with a resignation and a chat line unanswered, and reconnecting
    gives up: nothing will ever tell, so the room says neither was confirmed."""
    scene = ui.open_room(demo_room("chess", plies=2, you="first"))
    assert isinstance(scene, RoomScene)
    ui.key(pygame.K_r, "r")
    ui.key(pygame.K_r, "r")
    say_in_chat(ui.app, "sorry, must go")
    assert ui.sent("resign") and ui.sent("chat")
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    assert "not confirmed" in scene.message and "resignation" in scene.message
    ui.app.dispatch_net(NetEvent("failed", text="Could not reconnect"))
    assert "resignation" in scene.message and "“sorry, must go”" in scene.message
    assert "not confirmed" in scene.message
    picture(ui.app, ui.tmp_path, "unconfirmed-gone-for-good")


def test_replies_settle_requests(ui: UI) -> None:
    """A request answered (``ok``, ``over`` or an ``error`` with its ``re``) is not reported when
    the connection drops later."""
    scene = ui.open_room(demo_room("chess", plies=2, you="first"))
    say_in_chat(ui.app, "hello")
    ui.key(pygame.K_d, "d")
    chat_id, offer_id = ui.sent("chat")[-1]["id"], ui.sent("offer")[-1]["id"]
    ui.message({"type": "ok", "re": chat_id})
    ui.message({"type": "error", "re": offer_id, "code": "not_allowed", "message": "wait"})
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    assert "not confirmed" not in scene.message


def test_many_lost_actions_are_all_said_in_a_taller_message(ui: UI) -> None:
    """A move, a draw offer, a resignation and a chat line all cut off: after the snapshot the
    room names each, in a message taller than the usual two lines that still leaves the chat
    in view."""
    from client.scenes.room_panel import CHAT_RECT, MESSAGE_RECT

    snapshot = demo_room("chess", plies=2, you="first")
    scene = ui.open_room(snapshot)
    scene.send_move("e2e4")
    ui.key(pygame.K_d, "d")
    ui.key(pygame.K_r, "r")
    ui.key(pygame.K_r, "r")
    say_in_chat(ui.app, "my cat walked over the keyboard, sorry about that")
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.message(ui.app.welcome)
    ui.message({**snapshot, "re": 999})
    text = scene.message
    assert text.startswith("Your move e2e4 was not sent: play it again")
    assert "Your draw offer and your resignation did not reach the server" in text
    assert "“my cat walked over the keyboard…” may not have been sent" in text
    rect = scene.message_rect()
    assert rect.height > MESSAGE_RECT.height and rect.bottom < CHAT_RECT.bottom - 30
    picture(ui.app, ui.tmp_path, "many-lost-after-reconnect")


def test_a_player_coming_back_does_not_hide_that_our_move_was_lost(ui: UI) -> None:
    """After a server restart our move did not reach the server; the opponent reconnects a
    moment later. "Alice is back." must not replace the warning to play the move again (seen
    with a real server killed and started again: the warning lasted one frame)."""
    snapshot = demo_room("chess", plies=2, you="first")
    scene = ui.open_room(snapshot)
    scene.send_move("g1f3")
    ui.app.dispatch_net(NetEvent("closed", code=1006, text="connection dropped"))
    ui.message(ui.app.welcome)
    ui.message({**snapshot, "re": 999})
    assert scene.message.startswith("Your move g1f3 was not sent: play it again")
    ui.message({"type": "presence", "room": snapshot["room"], "seat": "second",
                "connected": True, "spectators": 0})
    assert scene.message.startswith("Your move g1f3 was not sent: play it again")
    assert (scene.model.seats["second"] or {}).get("connected") is True
    ui.clock.now += 21.0  # the warning has had its time
    ui.message({"type": "presence", "room": snapshot["room"], "seat": "second",
                "connected": False, "spectators": 0})
    assert scene.message == "Bob is away."
