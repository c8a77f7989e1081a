"""A spectator follows a rematch: the finished room it watched gives way to the rematch's room
(the server moved it there, so it sends no ``leave``), and Esc from the rematch is the lobby."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pygame

from client.demo import demo_room
from client.scenes.lobby import LobbyScene
from client.scenes.result import ResultPanel
from client.scenes.room import RoomScene
from tests.client.helpers import drawn, next_game, open_app


def rooms_of(app: Any) -> list[str]:
    """Codes of the room scenes on ``app``'s stack, bottom first."""
    return [s.model.room for s in app.stack if isinstance(s, RoomScene)]


def test_a_spectator_follows_the_rematch_with_three_real_clients(
        tmp_path: Path, embedded: Any, pump_until: Any) -> None:
    """Alice and Bob play while Carol watches; Bob resigns and they agree a rematch: Carol's
    finished room goes (without a leave) for the rematch's, and Esc takes her to the lobby."""
    alice = open_app(tmp_path, "Alice", embedded.url)
    bob = open_app(tmp_path, "Bob", embedded.url)
    carol = open_app(tmp_path, "Carol", embedded.url)
    apps = [alice, bob, carol]
    pump_until(apps, lambda: all(isinstance(a.top, LobbyScene) for a in apps))
    alice.send({"type": "create", "game": "hexgomoku", "color": "first"})
    pump_until(apps, lambda: isinstance(alice.top, RoomScene) and alice.top.model.game != "")
    opened = alice.top
    assert isinstance(opened, RoomScene)
    code = opened.model.room
    bob.send({"type": "join", "room": code})
    carol.send({"type": "join", "room": code, "role": "spectator"})
    pump_until(apps, lambda: all(rooms_of(a) == [code] for a in apps)
               and all(a.find(RoomScene)[0].model.status == "playing" for a in apps))
    watched = carol.top
    assert isinstance(watched, RoomScene) and watched.model.you is None
    bob.send({"type": "resign", "room": code})
    pump_until(apps, lambda: watched.model.status == "over"
               and isinstance(carol.top, ResultPanel))
    bob.send({"type": "offer", "room": code, "kind": "rematch"})
    pump_until(apps, lambda: any(o.get("kind") == "rematch"
                                 for o in alice.find(RoomScene)[0].model.offers))
    alice.send({"type": "answer", "room": code, "kind": "rematch", "accept": True})
    pump_until(apps, lambda: all(len(rooms_of(a)) == 1 and rooms_of(a) != [code] for a in apps)
               and all(isinstance(a.top, RoomScene) for a in apps))
    new = rooms_of(alice)[0]
    assert rooms_of(bob) == [new] and rooms_of(carol) == [new]
    rematch = carol.top
    assert isinstance(rematch, RoomScene) and rematch.model.you is None
    assert rematch.model.status == "playing"
    assert watched not in carol.stack and not carol.find(ResultPanel)
    first = rematch.model.seats["first"]
    assert first is not None and first["name"] == "Bob"
    assert not [m for m in carol.sent if m.get("type") == "leave" and m.get("room") == code]
    # no error came back for the finished room (nothing to leave: the server moved Carol)
    settled = time.monotonic() + 0.5
    pump_until(apps, lambda: time.monotonic() > settled)
    assert "not in room" not in rematch.message
    carol.handle_event(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0,
                                          unicode=""))
    assert isinstance(carol.top, LobbyScene)
    assert [m["room"] for m in carol.sent if m.get("type") == "leave"] == [new]


def test_a_spectators_finished_room_gives_way_to_the_rematch(ui: Any) -> None:
    """Watching a finished game, the snapshot of its rematch (the same two players, the other
    colours, watched by us) replaces it; no leave is sent for the finished room."""
    snapshot = demo_room("chess", plies=2, room="old11", you=None)
    room = ui.open_room(snapshot)
    ui.message(drawn("old11"))
    rematch = next_game(snapshot, "new22", you=None)
    ui.message(rematch)
    assert isinstance(ui.app.top, RoomScene) and ui.app.top.model.room == "new22"
    assert room not in ui.app.stack
    assert not ui.sent("leave")
    ui.key(pygame.K_ESCAPE)
    assert isinstance(ui.app.top, LobbyScene)


def test_a_spectator_keeps_a_finished_room_for_another_game_of_the_same_players(
        ui: Any) -> None:
    """Only the rematch replaces it: a game of the same players in the same colours (not what
    a rematch opens) leaves the finished room where it is."""
    snapshot = demo_room("chess", plies=2, room="old11", you=None)
    room = ui.open_room(snapshot)
    ui.message(drawn("old11"))
    same = next_game(snapshot, "new22", you=None, swapped=False)
    ui.message(same)
    assert room in ui.app.stack
