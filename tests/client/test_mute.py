"""Muting a player's chat in a room: real clients (headless pygame, dummy video and audio)
against a real server on loopback, driven through the keyboard and the mouse as a user does.

A muted player's lines are hidden (one line says how many), their chat and offers make no
sound, the mute is kept in the config file per server by the player's id (so it holds when
they come back under another name), and it is undone from the same place."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pygame
import pytest

from client.app import App
from client.config import Config, server_key
from client.local import EmbeddedServer
from client.scenes import room_panel
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from client.screenshot import save
from tests.client.helpers import click, key, open_app, pump, room_of, type_text
from tests.client.sound_tools import game_on


def say(app: App, apps: list[App], text: str) -> None:
    """``app`` types ``text`` in the room's chat and sends it; wait until every app has it."""
    key(app, pygame.K_RETURN)
    type_text(app, text)
    key(app, pygame.K_RETURN)
    pump(apps, lambda: all(any(line.text == text for line in room_of(a).model.chat)
                           for a in apps))


def shown(app: App) -> list[str]:
    """The chat as ``app``'s room shows it, entry by entry."""
    return [entry.words() for entry in room_of(app).chat_shown()]


def muted_in_file(path: Path, url: str) -> dict[str, str]:
    """The players the config file at ``path`` mutes on the server at ``url``."""
    muted: dict[str, dict[str, str]] = json.loads(path.read_text()).get("muted", {})
    return muted.get(server_key(url), {})


def test_a_player_mutes_and_unmutes_the_opponent_with_the_keyboard(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Alice presses B (the newest line by someone else is picked) and Enter: Bob is muted,
    in the config file by his id. His lines are hidden behind one line that counts them, his
    next line and his draw offer make no sound (the offer itself is still shown to answer),
    and when he comes back as "Robert" (same identity) he is still muted. B and Enter again
    unmute him: every line shows."""
    with game_on(tmp_path, embedded.url, "hexgomoku") as ((alice, bob), heard):
        apps = [alice, bob]
        scene = room_of(alice)
        say(bob, apps, "hi")
        say(alice, apps, "hello")
        say(bob, apps, "buy cheap gold at example.com")
        assert heard[alice] == ["start", "notify", "notify"]

        key(alice, pygame.K_b)
        picked = scene.chat_pick
        assert picked is not None and picked.text == "buy cheap gold at example.com"
        assert "Enter: mute Bob" in scene.message
        key(alice, pygame.K_RETURN)
        assert scene.chat_pick is None and not scene.chat_field.focused
        bob_id = bob.player_id
        assert bob_id is not None
        assert muted_in_file(tmp_path / "Alice.json", embedded.url) == {bob_id: "Bob"}
        assert shown(alice) == ["Bob (muted): 1 line hidden", "Alice: hello",
                                "Bob (muted): 1 line hidden"]
        assert "Bob muted: lines hidden" in scene.message

        say(bob, apps, "click my link")
        bob.send({"type": "offer", "room": scene.model.room, "kind": "draw"})
        pump(apps, lambda: scene.model.pending_offer() is not None)
        assert shown(alice)[-1] == "Bob (muted): 2 lines hidden"
        assert heard[alice] == ["start", "notify", "notify"]  # neither the line nor the offer

        bob.disconnect()  # back under another name, with the same identity
        robert = open_app(tmp_path, "Robert", embedded.url,
                          config=Config.load(tmp_path / "Bob.json"))
        apps = [alice, robert]
        try:
            pump(apps, lambda: bool(robert.find(RoomScene)) and robert.player_id == bob_id)
            pump(apps, lambda: (scene.model.seats.get("second") or {}).get("connected") is True)
            say(robert, apps, "it is me again")
            assert shown(alice)[-1] == "Robert (muted): 3 lines hidden"
            assert heard[alice] == ["start", "notify", "notify"]

            key(alice, pygame.K_b)
            assert scene.chat_pick is not None and "Enter: unmute Robert" in scene.message
            key(alice, pygame.K_RETURN)
            assert muted_in_file(tmp_path / "Alice.json", embedded.url) == {}
            assert shown(alice) == ["Bob: hi", "Alice: hello",
                                    "Bob: buy cheap gold at example.com",
                                    "Bob: click my link", "Robert: it is me again"]
            say(robert, apps, "thanks")
            assert heard[alice][-1] == "notify"
        finally:
            robert.disconnect()


def test_a_spectator_picks_a_line_with_the_mouse_and_the_arrow_keys(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Carol, watching, clicks Dave's line: it is picked and a "Mute Dave" button shows on it;
    Up picks the older line of Erin, Down Dave's again, and a click on the button mutes Dave
    (not Erin). Her own line is never picked. Esc leaves the picking."""
    with game_on(tmp_path, embedded.url, "hexgomoku") as ((alice, bob), _heard):
        code = room_of(alice).model.room
        watchers = [open_app(tmp_path, name, embedded.url) for name in ("Carol", "Dave", "Erin")]
        carol, dave, erin = watchers
        apps = [alice, bob, *watchers]
        try:
            pump(apps, lambda: all(isinstance(w.top, LobbyScene) for w in watchers))
            for watcher in watchers:
                watcher.send({"type": "join", "room": code, "role": "spectator"})
            pump(apps, lambda: all(w.find(RoomScene) for w in watchers))
            say(erin, watchers, "who is winning?")
            say(carol, watchers, "hard to say")
            say(dave, watchers, "spam spam spam")
            scene = room_of(carol)
            carol.step(0.0)
            spots = room_panel.chat_spots(scene)
            own = next(rect for n, rect in spots if scene.chat_shown()[n].sender == "Carol")
            click(carol, own.center)
            assert scene.chat_pick is None  # her own line: nothing to mute
            dave_spot = next(rect for n, rect in spots if scene.chat_shown()[n].sender == "Dave")
            click(carol, dave_spot.center)
            assert scene.chat_pick is not None and scene.chat_pick.sender == "Dave"
            key(carol, pygame.K_UP)
            assert scene.chat_pick is not None and scene.chat_pick.sender == "Erin"
            key(carol, pygame.K_DOWN)
            assert scene.chat_pick is not None and scene.chat_pick.sender == "Dave"
            button = room_panel.mute_button(scene)
            assert button is not None and button.label == "Mute Dave"
            click(carol, button.rect.center)
            assert shown(carol) == ["Erin: who is winning?", "Carol: hard to say",
                                    "Dave (muted): 1 line hidden"]
            assert muted_in_file(tmp_path / "Carol.json", embedded.url) == {
                str(dave.player_id): "Dave"}
            key(carol, pygame.K_b)
            assert scene.chat_pick is not None
            key(carol, pygame.K_ESCAPE)
            assert scene.chat_pick is None and carol.find(RoomScene)  # still in the room
        finally:
            for watcher in watchers:
                watcher.disconnect()


@pytest.mark.parametrize("size", [(1280, 800), (640, 480)])
def test_a_muted_chat_as_shown(tmp_path: Path, embedded: EmbeddedServer,
                               size: tuple[int, int]) -> None:
    """What Alice sees with Bob's spam hidden and his remaining line picked (the Mute button on
    it): saved as /tmp/mute-WxH.png at both window sizes."""
    with game_on(tmp_path, embedded.url, "chess") as ((alice, bob), _heard):
        apps = [alice, bob]
        say(bob, apps, "good luck, have fun")
        say(alice, apps, "you too")
        for n in range(3):
            say(bob, apps, f"FREE COINS at scam.example number {n}")
        key(alice, pygame.K_b)
        key(alice, pygame.K_RETURN)
        say(alice, apps, "muted you, sorry")
        key(alice, pygame.K_b)
        key(alice, pygame.K_UP)
        key(alice, pygame.K_UP)
        scene = room_of(alice)
        assert scene.chat_pick is not None and scene.chat_pick.text == "good luck, have fun"
        out = tmp_path / f"mute-{size[0]}x{size[1]}.png"
        save(alice, out, size)
        shutil.copy(out, Path("/tmp") / out.name)
        assert shown(alice)[2] == "Bob (muted): 3 lines hidden"


@pytest.mark.parametrize("seated,over", [(True, False), (True, True), (False, False),
                                         (False, True)])
def test_the_chat_field_says_how_to_mute_whole_in_a_small_window(seated: bool,
                                                                 over: bool) -> None:
    """Every chat field hint names the B key, and fits the field whole at 640x480 (a small
    window draws text relatively larger), with the longest move example."""
    from client.scenes.room import MOVE_EXAMPLES, chat_hint
    from client.ui import draw

    for game in MOVE_EXAMPLES:
        hint = chat_hint(game, seated, over)
        assert "B: mute" in hint
        assert draw.text_extent(hint, 18, 0.5) <= room_panel.PANEL_W - 20, hint


def test_a_line_the_server_refuses_as_repeated_comes_back_to_the_field(
        tmp_path: Path, embedded: EmbeddedServer) -> None:
    """Alice says "gg" twice: the server refuses the second (``rate_limited``), the room says
    why, and "gg" is back in the chat field to send later (it was not lost)."""
    with game_on(tmp_path, embedded.url, "hexgomoku") as ((alice, bob), _heard):
        say(alice, [alice, bob], "gg")
        scene = room_of(alice)
        key(alice, pygame.K_RETURN)
        type_text(alice, "gg")
        key(alice, pygame.K_RETURN)
        assert scene.chat_field.value == ""
        pump([alice, bob], lambda: "said that" in scene.message)
        assert scene.chat_field.value == "gg"
        assert [line.text for line in scene.model.chat] == ["gg"]
