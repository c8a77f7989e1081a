"""Made-up but realistic server messages, for screenshots, tests and the frame-time benchmark.

Everything here is built with the real engines, so the positions and moves are legal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import engines
from engines.registry import ENGINE_MODULES

if TYPE_CHECKING:
    from client.discovery import Finder


def demo_welcome(name: str = "Alice") -> dict[str, Any]:
    """A ``welcome`` listing every installed game."""
    games = []
    for game in ENGINE_MODULES:
        try:
            games.append(engines.get(game).info())
        except Exception:  # an engine that is missing or broken is left out of the list
            continue
    return {"type": "welcome", "player": "p-alice", "name": name, "token": "demo-token",
            "protocol": 1, "server": "boardhall demo", "games": games, "resumed": [],
            "limits": {}}


def demo_rooms() -> dict[str, Any]:
    """A ``rooms`` list with seeks, games in progress and spectators."""
    rows = [
        ("K7QD", "chess", "standard", "playing", ["Alice", "Bob"], {"initial": 300, "increment": 3},
         4, False),
        ("M2XA", "hexgomoku", "standard", "playing", ["Chen", "Dana"], {"per_move": 20}, 12, False),
        ("P9LE", "shuqi", "standard", "waiting", ["Wei"], {"per_move": 30}, 0, True),
        ("R4TB", "draughts", "international", "playing", ["Eve", "Frank"],
         {"initial": 600, "increment": 5}, 1, False),
        ("Z8WN", "chess", "standard", "waiting", ["Gita"], {"per_move": 20}, 0, True),
    ]
    ratings = {"Alice": (1523, 60), "Bob": (1480, 45), "Chen": (1611, 80), "Dana": (1500, 350),
               "Wei": (1702, 70), "Eve": (1389, 90), "Frank": (1455, 130), "Gita": (1500, 350)}
    return {"type": "rooms", "rooms": [
        {"room": r, "game": g, "variant": v, "status": s, "seats": seats, "clock": c,
         "spectators": n, "seek": seek, "ratings": [ratings[p][0] for p in seats],
         "rds": [ratings[p][1] for p in seats]}
        for r, g, v, s, seats, c, n, seek in rows]}


def pick_moves(game: str, variant: str | None, position: str | None, plies: int,
               options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """The start position string and ``plies`` legal moves from it (chosen deterministically)."""
    engine = engines.get(game)
    state = engine.start(variant, position=position, options=options)
    start = engine.position(state)
    moves: list[str] = []
    for i in range(plies):
        legal = engine.legal_moves(state)
        if not legal:
            break
        if game == "hexgomoku":
            # Stones near the centre, alternating around it, so a picture looks like a game.
            preferred = ["0,0", "1,0", "0,1", "-1,1", "1,-1", "-1,0", "2,-1", "0,-1", "1,1",
                         "-2,1", "2,0", "-1,2"]
            choice = next((p for p in preferred if p in legal), legal[len(legal) // 2])
        else:
            choice = legal[(i * 7 + 3) % len(legal)]
        moves.append(choice)
        state = engine.play(state, choice)
    return start, moves


def demo_room(
    game: str,
    variant: str | None = None,
    position: str | None = None,
    plies: int = 6,
    you: str | None = "first",
    status: str = "playing",
    room: str = "K7QD",
) -> dict[str, Any]:
    """A ``room`` snapshot of ``game`` after ``plies`` legal moves."""
    engine = engines.get(game)
    variant = engine.resolve_variant(variant)
    start, moves = pick_moves(game, variant, position, plies)
    clock = {"per_move": 30} if game == "shuqi" else {"initial": 300, "increment": 3}
    state = engine.start(variant, position=start)
    for move in moves:
        state = engine.play(state, move)
    turn = state.turn
    return {
        "type": "room", "room": room, "game_id": "g-demo-1", "game": game, "variant": variant,
        "options": {}, "status": status,
        "seats": {"first": {"player": "p-alice", "name": "Alice", "connected": True, "bot": False},
                  "second": {"player": "p-bob", "name": "Bob", "connected": True, "bot": False}},
        "spectators": 3, "you": you, "start": start, "position": start, "moves": moves,
        "turn": turn, "clock": clock,
        "clocks": {"first": None if game == "shuqi" else 287_400,
                   "second": None if game == "shuqi" else 263_900,
                   "move": 21_400 if game == "shuqi" else None,
                   "running": turn if status == "playing" else None},
        "result": None, "offers": [], "private": False,
        "variant_info": engine.variant_info(variant),
    }


def demo_chat(room: str = "K7QD") -> list[dict[str, Any]]:
    """A few chat lines."""
    return [
        {"type": "chat", "room": room, "from": "Bob", "role": "second", "text": "Good luck!"},
        {"type": "chat", "room": room, "from": "Alice", "role": "first", "text": "You too :)"},
        {"type": "chat", "room": room, "from": "Chen", "role": "spectator",
         "text": "Nice opening."},
    ]


def demo_finder() -> Finder:
    """A LAN finder that probes nothing and has found two servers (one of them secure)."""
    from client.discovery import Finder
    from protocol.discovery import Answer, encode_answer

    finder = Finder(targets=list)
    servers = [
        ("9f2c4e01a7b3d5c6", "Alice's laptop", "192.168.1.20", 8765, "ws", 3, 1),
        ("0b1d2e3f40516273", "Club server (upstairs)", "192.168.1.7", 443, "wss", 12, 5),
    ]
    for ident, name, host, port, scheme, players, rooms in servers:
        answer = Answer(protocol=1, id=ident, name=name, version="0.1.0", port=port,
                        scheme=scheme, players=players, rooms=rooms)  # type: ignore[arg-type]
        finder.heard(encode_answer(answer), host)
    return finder
