"""Sounds in real games: real clients (headless, SDL_AUDIODRIVER=dummy) against a real server on
loopback, driven through the UI, each with a recorder in place of the mixer."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.local import EmbeddedServer
from client.scenes.lobby import LobbyScene
from client.scenes.room import RoomScene
from tests.client.conftest import FakeClock
from tests.client.helpers import click, key, open_app, pump, px, room_of, type_text
from tests.client.sound_tools import Recorder, game_on, listening


def move(app: App, apps: list[App], origin: str, target: str | None = None) -> None:
    """Click ``origin`` (and ``target``) on ``app``'s board; wait until every app has it."""
    scene = room_of(app)
    plies = len(scene.model.moves) + 1
    click(app, px(scene, origin))
    if target is not None:
        click(app, px(scene, target))
    pump(apps, lambda: all(len(room_of(a).model.moves) == plies for a in apps))


def test_a_chess_game_through_the_ui_sounds_in_order(tmp_path: Path,
                                                     embedded: EmbeddedServer) -> None:
    """Alice hears the start, every move (hers once confirmed), Bob's chat line, the capture,
    the check and the end; Bob turns sound off with V and hears nothing more; Carol, watching,
    hears the moves and the end only."""
    with game_on(tmp_path, embedded.url, "chess") as ((alice, bob), heard):
        carol = open_app(tmp_path, "Carol", embedded.url)
        apps = [alice, bob, carol]
        heard[carol] = listening(carol)
        try:
            pump(apps, lambda: isinstance(carol.top, LobbyScene))
            carol.send({"type": "join", "room": room_of(alice).model.room, "role": "spectator"})
            pump(apps, lambda: bool(carol.find(RoomScene)))
            assert heard == {alice: ["start"], bob: ["start"], carol: []}

            key(bob, pygame.K_v)  # the room's Sound button's key
            assert bob.config.sound is False
            assert json.loads((tmp_path / "Bob.json").read_text())["sound"] is False
            assert "Sound off" in room_of(bob).message
            assert next(b for b in room_of(bob).buttons()
                        if b.action == "sound").label == "Sound off"

            move(alice, apps, "e2", "e4")
            move(bob, apps, "f7", "f5")
            key(bob, pygame.K_RETURN)
            type_text(bob, "good luck")
            key(bob, pygame.K_RETURN)
            pump(apps, lambda: any(line.text == "good luck"
                                   for line in room_of(alice).model.chat))
            move(alice, apps, "e4", "f5")  # takes the pawn
            move(bob, apps, "g7", "g5")
            move(alice, apps, "d1", "h5")  # mate
            pump(apps, lambda: all(room_of(a).model.status == "over" for a in apps))

            assert heard[alice] == ["start", "move", "move", "notify", "capture", "move",
                                    "check", "end"]
            assert heard[bob] == ["start"]
            assert heard[carol] == ["move", "move", "capture", "move", "check", "end"]
        finally:
            carol.disconnect()


def test_a_reconnect_snapshot_plays_nothing(tmp_path: Path, embedded: EmbeddedServer) -> None:
    """After a drop, the snapshot (moves, chat history, clocks) plays no sound; the next move
    does."""
    with game_on(tmp_path, embedded.url, "draughts",
                 {"initial": 300, "increment": 3}) as (apps, heard):
        alice, bob = apps
        move(alice, apps, "32", "28")
        move(bob, apps, "19", "23")
        bob.send({"type": "chat", "room": room_of(bob).model.room, "text": "hello"})
        pump(apps, lambda: bool(room_of(alice).model.chat))
        assert heard[alice] == ["start", "move", "move", "notify"]

        player = alice.player_id
        assert alice.connection is not None
        alice.connection.drop()
        pump(apps, lambda: alice.net_status != "online")
        pump(apps, lambda: alice.net_status == "online" and alice.player_id == player)
        pump(apps, lambda: room_of(alice).model.you == "first"
             and (room_of(alice).model.seats["first"] or {}).get("connected") is True
             and [line.text for line in room_of(alice).model.chat] == ["hello"])
        for _ in range(3):
            alice.step(0.0)
        assert heard[alice] == ["start", "move", "move", "notify"]  # nothing from the snapshot

        move(alice, apps, "28", "19")  # takes the man on 23
        assert heard[alice] == ["start", "move", "move", "notify", "capture"]


def test_low_time_warns_once_per_turn_on_our_own_clock(tmp_path: Path,
                                                      embedded: EmbeddedServer) -> None:
    """A 5+3 game (the apps' clocks moved on by hand): Alice hears the warning once when her
    first move's deadline comes near, then once each turn her own clock runs under ten seconds;
    Bob, whose clock is not running, hears none."""
    times = (FakeClock(), FakeClock())

    def wait(apps: list[App], seconds: float) -> None:
        for clock in times:
            clock.now += seconds
        for _ in range(3):
            for app in apps:
                app.step(0.0)

    with game_on(tmp_path, embedded.url, "hexgomoku", {"initial": 300, "increment": 3},
                 times) as (apps, heard):
        alice, bob = apps
        deadline = room_of(alice).model.clocks["move"]  # the first move's abort deadline
        assert isinstance(deadline, int) and deadline > 12_000
        wait(apps, (deadline - 11_000) / 1000)
        assert heard[alice] == ["start"]
        wait(apps, 2)
        assert heard[alice] == ["start", "low_time"]

        move(alice, apps, "0,0")
        move(bob, apps, "0,1")
        wait(apps, 285)  # Alice's own clock: 15 s left
        assert heard[alice] == ["start", "low_time", "move", "move"]
        wait(apps, 6)
        assert heard[alice] == ["start", "low_time", "move", "move", "low_time"]

        move(alice, apps, "1,0")  # the server's clocks: she has her five minutes again
        move(bob, apps, "1,1")
        wait(apps, 1)
        assert heard[alice] == ["start", "low_time", "move", "move", "low_time", "move", "move"]
        wait(apps, 295)
        assert heard[alice] == ["start", "low_time", "move", "move", "low_time", "move", "move",
                                "low_time"]
        assert heard[bob] == ["start", "move", "move", "move", "move"]


XIANGQI_CHECK = ["8,2-6,2", "3,8-10,8", "6,2-6,3", "3,2-3,1", "6,3-6,7", "3,1-3,4", "8,8-9,8",
                 "4,1-5,1", "9,8-9,4", "1,8-3,9", "6,7-6,5"]
"""Red's cannon ends on 6,5, checking blue's general on 1,5 over the soldier on 4,5 (the second
move takes red's horse)."""
GUARDS_CHECK = ["6,4-5,3", "2,2-3,2", "5,1-4,1", "1,4-2,4", "5,6-4,6", "2,4-3,4", "5,3-5,4",
                "2,5-3,5", "5,4-6,4", "3,2-4,2", "6,5-5,4", "2,1-3,1", "6,2-5,3", "1,3-2,4",
                "5,3-4,4", "2,4-1,3", "6,4-5,3", "1,2-2,3", "5,4-4,3"]
"""The last move threatens the second side's captain on 3,4."""


MAPS = Path(os.environ.get("BOARDHALL_JBQ_MAPS", Path(os.environ["BOARDHALL_SHARED"], "jbq-maps")))
JBQ_XIANGQI = MAPS / "中国象棋.xlsx"
"""The JBQ map of Xiangqi (its captain: the general), read from the shared maps."""


@pytest.mark.parametrize(("variant", "moves", "sounds"), [
    ("xiangqi", XIANGQI_CHECK, ["move", "capture", *["move"] * 8, "check"]),
    ("guards", GUARDS_CHECK, [*["move"] * 18, "check"]),
    ("xiangqi-jbq", XIANGQI_CHECK, ["move", "capture", *["move"] * 8, "check"]),
])
def test_a_move_threatening_a_custom_captain_sounds_the_check(
        tmp_path: Path, variant: str, moves: list[str], sounds: list[str]) -> None:
    """Custom variants with captains: the move that threatens one (xiangqi's general, guards'
    captain, the JBQ Xiangqi map's general) plays the check sound for both players, as a check
    does in chess."""
    variants = tmp_path / "variants"
    variants.mkdir()
    if variant == "xiangqi-jbq":
        if not JBQ_XIANGQI.exists():
            pytest.skip("the JBQ maps are not available")
        shutil.copy(JBQ_XIANGQI, variants / JBQ_XIANGQI.name)  # the test's own folder
    server = EmbeddedServer(db=tmp_path / "db.sqlite", variants=variants).start()
    try:
        with game_on(tmp_path, server.url, "custom", variant=variant) as (apps, heard):
            play_through(apps, moves)
            room_of(apps[1]).slides.stop()  # the move has landed (a check shows only then)
            assert room_of(apps[1]).marks().highlight  # the room marks the threatened captain
            for app in apps:
                assert heard[app] == ["start", *sounds], heard[app]
    finally:
        server.stop()


def play_through(apps: list[App], moves: list[str]) -> None:
    """The side to move plays each of ``moves`` through its room; both apps see each one."""
    for text in moves:
        n = len(room_of(apps[0]).model.moves)
        mover = next(a for a in apps if room_of(a).model.is_my_turn())
        room_of(mover).send_move(text)
        pump(apps, lambda n=n: all(  # type: ignore[misc]
            len(room_of(a).model.moves) == n + 1 for a in apps))


def test_the_volume_is_changed_in_the_room_and_kept(tmp_path: Path,
                                                  embedded: EmbeddedServer) -> None:
    """In a room '-' makes the sounds softer and '+' (or '=', or the keypad's) louder, by 10
    within 0 to 100, saved in the config file as "volume"; each change is said, shown on the
    Sound button and heard at the new level, and so is the next move. The mouse wheel over the
    Sound button does the same; typed in the chat, '-' is only text."""
    with game_on(tmp_path, embedded.url, "chess") as (apps, _heard):
        alice = apps[0]
        scene = room_of(alice)
        recorder = alice.sounds.backend
        assert isinstance(recorder, Recorder) and alice.config.volume == 80

        def saved() -> Any:
            return json.loads((tmp_path / "Alice.json").read_text()).get("volume")

        button = next(b for b in scene.buttons() if b.action == "sound")
        key(alice, pygame.K_MINUS, "-")
        assert alice.config.volume == 70 and saved() == 70
        assert scene.message.startswith("Volume 70%") and button.label == "Sound 70%"
        assert (recorder.played[-1], recorder.volumes[-1]) == ("move", 0.7)  # heard
        key(alice, pygame.K_EQUALS, "+", pygame.KMOD_SHIFT)
        assert alice.config.volume == 80 and saved() == 80
        for _ in range(3):
            key(alice, pygame.K_KP_PLUS)
        assert alice.config.volume == 100 and saved() == 100
        alice.handle_event(pygame.event.Event(pygame.MOUSEMOTION, pos=button.rect.center,
                                              rel=(0, 0), buttons=(0, 0, 0)))
        alice.handle_event(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-2))
        assert alice.config.volume == 80 and button.label == "Sound 80%"
        key(alice, pygame.K_RETURN)
        key(alice, pygame.K_MINUS, "-")
        assert alice.config.volume == 80 and scene.chat_field.value == "-"
        key(alice, pygame.K_ESCAPE)
        move(alice, apps, "e2", "e4")
        assert (recorder.played[-1], recorder.volumes[-1]) == ("move", 0.8)
        key(alice, pygame.K_v)  # off: the button says so, and '-' still sets the level
        key(alice, pygame.K_MINUS, "-")
        assert alice.config.volume == 70 and button.label == "Sound off"
        assert "V turns it on" in scene.message
