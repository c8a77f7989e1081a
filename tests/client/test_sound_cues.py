"""Which sound each room event plays (:mod:`client.sound_cues`): the pure rules for every case,
and the same rules on real engine states of all five games."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import engines
from client.boards import make_view
from client.room_model import RoomModel
from client.sound_cues import LOW_TIME_MS, Moment, RoomSounds, cue, low_time, moment, time_left

GAMES = ("chess", "draughts", "shuqi", "hexgomoku", "custom")
PLAYING = Moment("chess", "g1", "playing", 4, "first")


def moved(**fields: Any) -> dict[str, Any]:
    return {"type": "moved", "room": "K7QD", **fields}


def after_move(before: Moment, **changes: Any) -> Moment:
    fields = {**before.__dict__, "plies": before.plies + 1, **changes}
    return Moment(**fields)


# ---- the pure rules ------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("you", ["first", "second", None])
def test_every_move_sounds_for_players_and_spectators(game: str, you: str | None) -> None:
    before = Moment(game, "g1", "playing", 4, you, pieces=20)
    assert cue(moved(), before, after_move(before, pieces=20)) == "move"


@pytest.mark.parametrize(("game", "sound"), [
    ("chess", "capture"), ("draughts", "capture"), ("custom", "capture"),
    ("shuqi", "move"), ("hexgomoku", "move")])
def test_a_capture_has_its_own_sound_where_the_game_has_captures(game: str, sound: str) -> None:
    before = Moment(game, "g1", "playing", 4, "first", pieces=20)
    assert cue(moved(), before, after_move(before, pieces=19)) == sound
    uncounted = Moment(game, "g1", "playing", 4, "first")
    assert cue(moved(), uncounted, after_move(uncounted, pieces=19)) == "move"


@pytest.mark.parametrize(("game", "sound"), [
    ("chess", "check"), ("draughts", "move"), ("shuqi", "move"), ("hexgomoku", "move"),
    ("custom", "check")])
def test_check_sounds_in_chess_and_custom_and_wins_over_a_capture(game: str, sound: str) -> None:
    """A check (custom: a threatened captain) has its sound, over a capture's."""
    before = Moment(game, "g1", "playing", 4, None, pieces=20)
    assert cue(moved(), before, after_move(before, check=True)) == sound
    expected = sound if sound == "check" else ("move" if game in ("shuqi", "hexgomoku")
                                               else "capture")
    assert cue(moved(), before, after_move(before, check=True, pieces=19)) == expected


def test_a_move_that_changed_nothing_is_silent() -> None:
    assert cue(moved(), PLAYING, PLAYING) is None  # a copy of a move we had
    assert cue(moved(), PLAYING, Moment("chess", "g2", "playing", 5, "first")) is None


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize(("you", "hotseat"), [("first", False), ("second", False), (None, False),
                                              ("first", True)])
def test_the_end_sounds_for_everyone_once(game: str, you: str | None, hotseat: bool) -> None:
    before = Moment(game, "g1", "playing", 7, you, hotseat)
    over = Moment(game, "g1", "over", 7, you, hotseat)
    assert cue({"type": "over", "result": "first"}, before, over) == "end"
    assert cue({"type": "over", "result": None, "reason": "aborted"}, before, over) == "end"
    assert cue({"type": "over"}, over, over) is None  # told again


@pytest.mark.parametrize("game", GAMES)
def test_a_game_of_ours_that_begins_sounds_start(game: str) -> None:
    snapshot = {"type": "room", "room": "K7QD"}
    waiting = Moment(game, "g1", "waiting", 0, "first")
    begun = Moment(game, "g1", "playing", 0, "first")
    assert cue(snapshot, waiting, begun) == "start"  # the opponent sat down
    assert cue(snapshot, Moment(), begun) == "start"  # a room opened on a game just begun
    rematch = Moment(game, "g2", "playing", 0, "second")
    assert cue(snapshot, Moment(game, "g1", "over", 9, "first"), rematch) == "start"
    hotseat = Moment(game, "g1", "playing", 0, "first", hotseat=True)
    assert cue(snapshot, Moment(game, "g1", "waiting", 0, "first", True), hotseat) == "start"


@pytest.mark.parametrize("game", GAMES)
def test_snapshots_are_not_news(game: str) -> None:
    """A reconnect, an undo, a swap, opening a finished room or a game in progress, watching:
    no sound."""
    snapshot = {"type": "room", "room": "K7QD", "re": 3}
    on = Moment(game, "g1", "playing", 6, "first")
    assert cue(snapshot, on, on) is None  # reconnect
    assert cue(snapshot, on, Moment(game, "g1", "playing", 4, "first")) is None  # undo
    assert cue(snapshot, Moment(game, "g1", "playing", 0, "first"),
               Moment(game, "g1", "playing", 0, "second")) is None  # swap
    assert cue(snapshot, Moment(), Moment(game, "g1", "over", 30, "first")) is None
    assert cue(snapshot, Moment(), Moment(game, "g1", "playing", 12, "first")) is None
    assert cue(snapshot, Moment(), Moment(game, "g1", "playing", 0, None)) is None  # watching
    assert cue(snapshot, Moment(), Moment(game, "g1", "waiting", 0, "first")) is None
    assert cue(snapshot, on, Moment(game, "g1", "over", 6, "first")) is None  # ended meanwhile


@pytest.mark.parametrize("kind", ["offer", "answer"])
def test_offers_and_answers_from_the_opponent_notify_a_player(kind: str) -> None:
    for offer in ("draw", "undo", "rematch", "swap"):
        message = {"type": kind, "room": "K7QD", "kind": offer, "by": "second"}
        assert cue(message, PLAYING, PLAYING) == "notify"
        assert cue({**message, "by": "first"}, PLAYING, PLAYING) is None  # our own
        assert cue({**message, "by": None}, PLAYING, PLAYING) is None
        watching = Moment("chess", "g1", "playing", 4, None)
        assert cue(message, watching, watching) is None
        hotseat = Moment("chess", "g1", "playing", 4, "first", hotseat=True)
        assert cue(message, hotseat, hotseat) is None


def test_chat_from_others_notifies_a_player_but_not_history() -> None:
    line = {"type": "chat", "room": "K7QD", "from": "Bob", "role": "second", "text": "hi"}
    assert cue(line, PLAYING, PLAYING) == "notify"
    assert cue({**line, "role": "spectator"}, PLAYING, PLAYING) == "notify"  # after the end
    assert cue({**line, "role": "first"}, PLAYING, PLAYING) is None  # our own line back
    assert cue(line, PLAYING, PLAYING, replaying_chat=True) is None
    watching = Moment("chess", "g1", "playing", 4, None)
    assert cue(line, watching, watching) is None
    hotseat = Moment("chess", "g1", "playing", 4, "first", hotseat=True)
    assert cue(line, hotseat, hotseat) is None


def test_a_muted_players_chat_and_offers_are_silent() -> None:
    """A line or an offer of a player the user muted plays nothing; their moves and the end
    still sound (muting is about what they say, not the game)."""
    line = {"type": "chat", "room": "K7QD", "from": "Bob", "role": "second", "text": "hi"}
    offer = {"type": "offer", "room": "K7QD", "kind": "draw", "by": "second"}
    for message in (line, offer):
        assert cue(message, PLAYING, PLAYING, muted=True) is None
        assert cue(message, PLAYING, PLAYING) == "notify"
    moved = {"type": "moved", "room": "K7QD", "ply": 4, "move": "e7e5", "by": "second"}
    after = Moment("chess", "g1", "playing", 5, "first")
    assert cue(moved, PLAYING, after, muted=True) == "move"


@pytest.mark.parametrize("kind", ["presence", "ok", "error", "welcome", "queued", "bogus"])
def test_other_messages_are_silent(kind: str) -> None:
    assert cue({"type": kind, "room": "K7QD", "by": "second"}, PLAYING, PLAYING) is None


@pytest.mark.parametrize("game", GAMES)
def test_low_time_is_our_own_clock_under_ten_seconds(game: str) -> None:
    mine = Moment(game, "g1", "playing", 3, "first")
    assert low_time(mine, "first", LOW_TIME_MS - 1)
    assert not low_time(mine, "first", LOW_TIME_MS)
    assert not low_time(mine, "first", None)  # untimed
    assert not low_time(mine, "second", 500)  # the opponent's clock
    assert not low_time(mine, None, 500)  # no clock runs (offline)
    assert not low_time(Moment(game, "g1", "over", 3, "first"), "first", 500)
    assert not low_time(Moment(game, "g1", "playing", 3, None), "first", 500)  # spectator
    both = Moment(game, "g1", "playing", 3, "first", hotseat=True)
    assert low_time(both, "second", 500) and low_time(both, "first", 500)


# ---- the rules on real engine states -------------------------------------------------------


def snapshot(game: str, moves: list[str], you: str | None = "first",
             variant: str | None = None, clocks: dict[str, Any] | None = None) -> dict[str, Any]:
    engine = engines.get(game)
    variant = engine.resolve_variant(variant)
    message: dict[str, Any] = {
        "type": "room", "room": "K7QD", "game_id": "g1", "game": game, "variant": variant,
        "status": "playing", "seats": {"first": {"name": "Alice"}, "second": {"name": "Bob"}},
        "you": you, "moves": moves, "turn": "first" if len(moves) % 2 == 0 else "second",
        "clock": {"initial": 300, "increment": 3},
        "clocks": clocks or {"first": 300_000, "second": 300_000, "move": None,
                             "running": "first"}}
    if game == "custom":
        message["variant_info"] = engine.variant_info(variant)
    return message


class Room:
    """A room model fed messages through :class:`RoomSounds`, as the room scene does."""

    def __init__(self, first: dict[str, Any]) -> None:
        self.model = RoomModel(room="K7QD")
        self.played: list[str] = []
        self.sounds = RoomSounds(self.played.append)
        self.view = None
        self.hear(first)
        self.view = make_view(self.model.game, self.model.variant, self.model.variant_info)

    def hear(self, message: dict[str, Any], now: float = 100.0) -> None:
        before = self.sounds.before(self.model, message, self.view)
        self.model.apply(message, now)
        self.sounds.after(self.model, message, before, self.view)

    def move(self, move: str) -> None:
        self.hear(moved(ply=len(self.model.moves), move=move, turn="x", position="?"))


def first_capture(game: str, variant: str | None, depth: int = 4) -> tuple[list[str], str]:
    """Moves from the start, then a move that takes a piece (found by search)."""
    engine = engines.get(game)
    variant = engine.resolve_variant(variant)
    view = make_view(game, variant, engine.variant_info(variant) if game == "custom" else None)

    def search(state: Any, line: list[str], left: int) -> Iterator[tuple[list[str], str]]:
        count = len(view.pieces_of(state))
        for move in engine.legal_moves(state)[:12]:
            after = engine.play(state, move)
            if len(view.pieces_of(after)) < count:
                yield line, move
            elif left > 1:
                yield from search(after, [*line, move], left - 1)

    return next(search(engine.start(variant), [], depth))


@pytest.mark.parametrize(("game", "variant"), [("chess", None), ("draughts", None),
                                               ("custom", "xiangqi")])
def test_a_real_capture_sounds_capture(game: str, variant: str | None) -> None:
    line, capture = first_capture(game, variant)
    room = Room(snapshot(game, line, variant=variant))
    assert room.played == []  # a snapshot of a game in progress
    room.move(capture)
    assert room.played == ["capture"]


@pytest.mark.parametrize("game", GAMES)
def test_a_real_quiet_move_sounds_move(game: str) -> None:
    engine = engines.get(game)
    variant = engine.resolve_variant(None)
    room = Room(snapshot(game, [], variant=variant))
    assert room.played == ["start"]
    room.move(engine.legal_moves(room.model.state)[0])
    assert room.played == ["start", "move"]


def test_a_real_chess_check_sounds_check() -> None:
    room = Room(snapshot("chess", ["e2e4", "f7f6"]))
    room.move("d1h5")
    room.move("g7g6")
    room.move("h5g6")  # takes with check: check comes first
    assert room.played == ["check", "move", "check"]
    assert moment(room.model, room.view, board=True).check


def test_number_chess_and_five_in_a_row_count_no_pieces() -> None:
    for game in ("shuqi", "hexgomoku"):
        room = Room(snapshot(game, []))
        assert moment(room.model, room.view, board=True).pieces == 0


def test_chat_history_after_a_snapshot_is_quiet_until_the_room_moves_on() -> None:
    room = Room(snapshot("chess", ["e2e4"], clocks={"first": 300_000, "second": 300_000,
                                                   "move": None, "running": "second"}))
    line = {"type": "chat", "room": "K7QD", "from": "Bob", "role": "second", "text": "hi"}
    room.hear({**snapshot("chess", ["e2e4"]), "re": 4})  # our join: the history follows
    room.hear(line)
    room.hear(line)
    assert room.played == []
    room.hear({"type": "presence", "room": "K7QD", "spectators": 1})
    room.hear(line)
    assert room.played == ["notify"]
    room.hear({"type": "chat", "room": "OTHER", "from": "Bob", "role": "second", "text": "x"})
    room.hear({"type": "welcome", "resumed": ["K7QD"]})  # a reconnect: the history follows
    room.hear(snapshot("chess", ["e2e4"]))
    room.hear(line)
    assert room.played == ["notify"]


def test_low_time_sounds_once_per_turn() -> None:
    clocks = {"first": 30_000, "second": 30_000, "move": None, "running": "first"}
    room = Room(snapshot("chess", ["e2e4", "e7e5"], clocks=clocks))
    assert time_left(room.model, 100.0) == 30_000
    room.sounds.tick(room.model, 115.0)
    assert room.played == []
    for now in (120.5, 121.0, 129.0):
        room.sounds.tick(room.model, now)
    assert room.played == ["low_time"]
    room.hear(moved(ply=2, move="g1f3", turn="second", position="?",
                    clocks={**clocks, "first": 8_000, "running": "second"}), 130.0)
    room.sounds.tick(room.model, 131.0)  # the opponent's turn: our clock is not running
    assert room.played == ["low_time", "move"]
    room.hear(moved(ply=3, move="b8c6", turn="first", position="?",
                    clocks={**clocks, "first": 8_000, "running": "first"}), 140.0)
    room.sounds.tick(room.model, 140.0)  # our turn again, already under ten seconds
    room.sounds.tick(room.model, 141.0)
    assert room.played == ["low_time", "move", "move", "low_time"]


def test_a_per_move_limit_counts_as_our_clock() -> None:
    clocks = {"first": None, "second": None, "move": 20_000, "running": "first"}
    room = Room(snapshot("hexgomoku", ["0,0", "1,0"], clocks=clocks))
    room.sounds.tick(room.model, 109.0)
    assert room.played == []
    room.sounds.tick(room.model, 111.0)
    assert room.played == ["low_time"]


def test_spectators_and_untimed_games_get_no_low_time_warning() -> None:
    low = {"first": 5_000, "second": 5_000, "move": None, "running": "first"}
    watching = Room(snapshot("chess", [], you=None, clocks=low))
    watching.sounds.tick(watching.model, 101.0)
    untimed = Room(snapshot("chess", ["e2e4", "e7e5"], clocks={"running": "first"}))
    untimed.sounds.tick(untimed.model, 1000.0)
    assert watching.played == [] and untimed.played == []
