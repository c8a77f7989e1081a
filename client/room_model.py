"""What the client knows about one room, kept in step with the server's messages.

The server is the referee: this model only mirrors what it says. The engine rebuilds the board
from the start position and the move list (for drawing and for highlighting legal targets).
Every field read from a message is checked, so a malformed message is ignored, never a crash.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import engines
from client.moves import PathMemo, display_moves
from client.variants import learn_variant
from protocol import PROVISIONAL_RD

SEATS = ("first", "second")


def _str(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def whole(value: Any) -> int | None:
    """``value`` when it is a whole number (an ``int`` that is not a ``bool``), else ``None``:
    how a number from the server is read without trusting its type."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def change_text(change: Any) -> str:
    """A rating change as players read it: "+12", "-12", "±0"; "" when it is not a whole
    number (an unrated game, an older server)."""
    value = whole(change)
    if value is None:
        return ""
    return "±0" if value == 0 else f"{value:+d}"


def reply_to(message: dict[str, Any]) -> int | None:
    """The request id a reply answers (``re``), when it is one of ours (an integer)."""
    return whole(message.get("re"))


def rating_label(rating: Any, rd: Any) -> str:
    """A rating as shown beside a name: "1523", "1500?" while provisional (or of no known
    deviation), or "" when there is none (a bot, an older server, a value that is not one)."""
    value = whole(rating)
    if value is None:
        return ""
    deviation = whole(rd)
    return f"{value}?" if deviation is None or deviation > PROVISIONAL_RD else str(value)


def _ratings(message: dict[str, Any]) -> dict[str, Any] | None:
    """A message's ``ratings`` (both players' changes), if it has any."""
    ratings = message.get("ratings")
    return ratings if isinstance(ratings, dict) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass
class ChatLine:
    """One chat line."""

    sender: str
    role: str
    text: str
    player: str = ""
    """The speaker's public id: the line's own ``player``, else (an older server) the id of
    the seat a player's line came from; "" when not known."""


@dataclass
class RoomModel:
    """The client's copy of a room."""

    room: str
    game: str = ""
    variant: str | None = None
    game_id: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    status: str = "waiting"
    seats: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    spectators: int | None = 0
    """How many watch; ``None`` while not known (since the connection dropped, until the server
    counts them again)."""
    you: str | None = None
    start: str | None = None
    moves: list[str] = field(default_factory=list)
    turn: str = "first"
    clock: dict[str, Any] = field(default_factory=dict)
    clocks: dict[str, Any] = field(default_factory=dict)
    clocks_at: float = 0.0
    result: str | None = None
    reason: str | None = None
    scores: dict[str, Any] | None = None
    offers: list[dict[str, Any]] = field(default_factory=list)
    private: bool = False
    variant_info: dict[str, Any] | None = None
    chat: list[ChatLine] = field(default_factory=list)
    state: Any = None
    engine_error: str = ""
    needs_resync: bool = False
    closed: bool = False
    """The server has closed the room (its end was read from the game's record)."""
    highlight: tuple[str, ...] = ()
    hotseat: bool = False
    """Both seats are played from this window: an offer by either seat waits for the other's
    answer here."""
    history: list[Any] = field(default_factory=list)
    """Engine states from the start, one more than the moves followed (``state`` is the last)."""
    _paths: PathMemo = field(default_factory=PathMemo, repr=False, compare=False)
    chat_follows: bool = False
    """A ``welcome`` named this room in ``resumed``: the server's next snapshot of it is followed
    by the room's chat lines, as one answering our own join is."""
    ratings: dict[str, Any] | None = None
    """After a rated game: ``{first: {before, after}, second: ...}``."""

    # ---- applying messages --------------------------------------------------------------------

    def apply(self, message: dict[str, Any], now: float) -> str | None:
        """Apply one server message about this room; returns a line worth showing, if any."""
        if message.get("type") == "welcome":
            resumed = message.get("resumed")
            if isinstance(resumed, list) and self.room in resumed:
                self.chat_follows = True
            return None
        if message.get("room") != self.room:
            return None
        kind = message.get("type")
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            return None
        result: str | None = handler(message, now)
        return result

    def _on_room(self, m: dict[str, Any], now: float) -> str | None:
        game_was, moves_was = self.game_id, self.moves
        if m.get("re") is not None or self.chat_follows:
            # the server sends the room's chat lines after this snapshot: they refill the chat
            self.chat.clear()
            self.chat_follows = False
        self.game = _str(m.get("game"), self.game)
        self.variant = m.get("variant") if isinstance(m.get("variant"), str) else None
        self.game_id = _str(m.get("game_id"), self.game_id)
        self.options = _dict(m.get("options"))
        self.status = _str(m.get("status"), self.status)
        seats = _dict(m.get("seats"))
        self.seats = {s: seats.get(s) if isinstance(seats.get(s), dict) else None for s in SEATS}
        self.spectators = whole(m.get("spectators")) or 0
        you = m.get("you")
        self.you = you if you in SEATS else None
        self.start = m.get("start") if isinstance(m.get("start"), str) else None
        moves = m.get("moves")
        self.moves = [x for x in moves if isinstance(x, str)] if isinstance(moves, list) else []
        self.turn = _str(m.get("turn"), self.turn)
        self.clock = _dict(m.get("clock"))
        self._set_clocks(m.get("clocks"), now)
        self.result = m.get("result") if isinstance(m.get("result"), str) else None
        if self.status != "over":
            self.reason, self.scores, self.highlight = None, None, ()
        elif isinstance(m.get("reason"), str):  # a snapshot of a finished game says why
            self.reason = m["reason"]
        offers = m.get("offers")
        self.offers = [o for o in offers if isinstance(o, dict)] if isinstance(offers, list) else []
        self.private = bool(m.get("private"))
        self.ratings = _ratings(m) if self.status == "over" else None
        info = m.get("variant_info")
        self.variant_info = info if isinstance(info, dict) else self.variant_info
        self.needs_resync = False
        self.rebuild()
        if self.status == "over":  # a finished room's snapshot: what its end was about
            self.highlight = end_highlight(self.engine, self.state, self.reason, self.result)
        if self.game_id == game_was and self.status == "playing":
            return self.takeback_words(moves_was)
        return None

    def takeback_words(self, moves_was: list[str]) -> str | None:
        """What a snapshot that ends ``moves_was`` early (a takeback) took back, in words, or
        ``None`` when it took nothing back: "Takeback: Nf3 taken back · Alice to move" ("· your
        move" to Alice herself)."""
        kept = len(self.moves)
        if kept >= len(moves_was) or moves_was[:kept] != self.moves:
            return None
        shown = display_moves(self.game, self.start, moves_was)[kept:]
        yours = self.turn == self.you and not self.hotseat
        mover = "your move" if yours else f"{self.name_of(self.turn)} to move"
        return f"Takeback: {' and '.join(shown)} taken back · {mover}"

    def _on_moved(self, m: dict[str, Any], now: float) -> str | None:
        ply, move = whole(m.get("ply")), m.get("move")
        if not isinstance(move, str) or ply is None:
            return None
        if ply != len(self.moves):
            if ply < len(self.moves):
                return None  # a copy of a move we already have
            self.needs_resync = True
            return None
        self.moves.append(move)
        self.turn = _str(m.get("turn"), self.turn)
        self._set_clocks(m.get("clocks"), now)
        self.offers = []
        self.status = "playing"
        self._play(move, _str(m.get("position")) or None)
        return overline_note(self.game, self.state)

    def _on_over(self, m: dict[str, Any], now: float) -> str | None:
        self._stop_clocks(now, _str(m.get("reason")))
        self.status = "over"
        result = m.get("result")
        self.result = result if result in ("first", "second", "draw") else None
        self.reason = _str(m.get("reason"), "") or None
        scores = m.get("scores")
        self.scores = scores if isinstance(scores, dict) else None
        self.game_id = _str(m.get("game_id"), self.game_id)
        self.ratings = _ratings(m)
        self.offers = []
        self.highlight = end_highlight(self.engine, self.state, self.reason, self.result)
        return None

    def _stop_clocks(self, now: float, reason: str) -> None:
        """The game ends now: the running clock keeps what it shows (its main time and what
        was left of the move), and the mover's reads zero where it ran out (``reason``
        ``timeout``)."""
        self.freeze_clocks(now)
        if reason in ("timeout", "timeout_vs_insufficient") and self.turn in SEATS:
            main, move = whole(self.clocks.get(self.turn)), whole(self.clocks.get("move"))
            if move is not None and (main is None or move <= main):
                self.clocks["move"] = 0
            elif main is not None:
                self.clocks[self.turn] = 0
        self.clocks["running"] = None
        self.clocks_at = now

    def freeze_clocks(self, now: float) -> None:
        """Stop the running clock where it stands now: its main time and what is left of the
        move."""
        if self.status != "playing" or self.clocks.get("running") not in SEATS:
            return
        frozen: dict[str, Any] = {**self.clocks, **self.frozen_clocks(now), "running": None}
        move = self.move_ms(now)
        if move is not None:
            frozen["move"] = move
        self.clocks, self.clocks_at = frozen, now

    def connection_lost(self) -> None:
        """The connection dropped: what the server counts is unknown until it says it again (its
        next snapshot of the room, or a presence)."""
        self.spectators = None

    def apply_record(self, record: dict[str, Any], now: float) -> bool:
        """Catch up from the game's record, fetched when its room had closed (the game ended while
        this client was away): the moves it lacks, then the end. Returns whether it ended; a
        record that does not continue the moves known here changes nothing."""
        moves = [m for m in record.get("moves", []) if isinstance(m, str)]
        if moves[: len(self.moves)] != self.moves:
            return False
        for move in moves[len(self.moves):]:
            self.moves.append(move)
            self._play(move, None)
        if record.get("result") is None and record.get("reason") is None:
            return False
        self._on_over({"result": record.get("result"), "reason": record.get("reason")}, now)
        self.closed = True
        return True

    def _on_presence(self, m: dict[str, Any], now: float) -> str | None:
        count = whole(m.get("spectators"))
        if count is not None:
            self.spectators = count
        seat, connected = m.get("seat"), m.get("connected")
        if seat in SEATS and isinstance(connected, bool) and self.seats.get(seat):
            seat_info = dict(self.seats[seat] or {})
            seat_info["connected"] = connected
            self.seats[seat] = seat_info
            name = _str(seat_info.get("name"), seat)
            if connected:
                return f"{name} is back."
            # A game in progress cannot be left: the connection dropped.
            return f"{name} {'left the room' if self.status == 'over' else 'is away'}."
        return None

    def _on_offer(self, m: dict[str, Any], now: float) -> str | None:
        kind, by = m.get("kind"), m.get("by")
        if not isinstance(kind, str) or by not in SEATS:
            return None
        self.offers = [o for o in self.offers if o.get("kind") != kind] + [{"kind": kind, "by": by}]
        return f"{self.name_of(by)} offers {OFFER_WORDS.get(kind, kind)}."

    def _on_answer(self, m: dict[str, Any], now: float) -> str | None:
        kind, accept = m.get("kind"), m.get("accept")
        if not isinstance(kind, str):
            return None
        self.offers = [o for o in self.offers if o.get("kind") != kind]
        word = "accepted" if accept is True else "declined"
        return f"Your {ANSWERED_WORDS.get(kind, kind + ' offer')} was {word}."

    def _on_chat(self, m: dict[str, Any], now: float) -> str | None:
        text = m.get("text")
        if isinstance(text, str):
            role = _str(m.get("role"))
            player = _str(m.get("player"))
            if not player and role in SEATS:
                player = _str(_dict(self.seats.get(role)).get("player"))
            self.chat.append(ChatLine(_str(m.get("from"), "?"), role, text, player))
            del self.chat[:-200]
        return None

    def _set_clocks(self, clocks: Any, now: float) -> None:
        if isinstance(clocks, dict):
            self.clocks = dict(clocks)
            self.clocks_at = now

    # ---- engine state -------------------------------------------------------------------------

    @property
    def engine(self) -> engines.Engine | None:
        """The engine of this room's game, or ``None`` when it is not installed."""
        try:
            return engines.get(self.game)
        except Exception:
            return None

    def rebuild(self) -> None:
        """Recompute the engine state from the start position and the moves."""
        engine = self.engine
        self.engine_error = ""
        self.history = []
        if engine is None:
            self.state = None
            self.engine_error = f"This client has no rules for {self.game!r}."
            return
        try:
            learn_variant(engine, self.variant, self.variant_info)
            state = engine.start(self.variant, position=self.start, options=self.options)
            self.history.append(state)
            for move in self.moves:
                state = engine.play(state, move)
                self.history.append(state)
        except Exception as exc:
            self.engine_error = f"Cannot follow this game: {exc}"
            self.state = None
            return
        self.state = state

    def _play(self, move: str, position: str | None) -> None:
        engine = self.engine
        if engine is None or self.state is None:
            return
        try:
            self.state = engine.play(self.state, move)
            self.history.append(self.state)
        except Exception:
            self.rebuild()

    def legal_moves(self) -> list[str]:
        """Legal moves of the current position (empty unless playing or waiting, or on error)."""
        engine = self.engine
        if engine is None or self.state is None or self.status == "over":
            return []
        try:
            return list(engine.legal_moves(self.state))
        except Exception:
            return []

    # ---- views --------------------------------------------------------------------------------

    @property
    def last_move(self) -> str | None:
        """The last move played."""
        return self.moves[-1] if self.moves else None

    def last_points(self) -> tuple[str, ...]:
        """Points of the last move, a draughts capture's landings too (its piece slides through
        them) though its text names only its start and end."""
        return self._paths.path(self.game, self.engine, self.before_last(), self.last_move)

    def has_no_pieces(self, seat: str) -> bool:
        """True when ``seat`` has no pieces left in the position (a draughts side whose last
        piece was taken); False when unknown or for other games."""
        setup = getattr(self.engine, "setup", None)
        if self.game != "draughts" or setup is None or self.state is None:
            return False
        try:
            pieces = setup(self.state)
            own = ((pieces.white_men | pieces.white_kings) if seat == "first"
                   else (pieces.black_men | pieces.black_kings))
        except Exception:  # a state this client's engine cannot read: no claim
            return False
        return not own

    def before_last(self) -> Any:
        """The position before the last move (``None``: no move, or positions not rebuilt)."""
        return self.history[-2] if len(self.history) == len(self.moves) + 1 > 1 else None

    def name_of(self, seat: str) -> str:
        """The name in ``seat`` (or a placeholder)."""
        info = self.seats.get(seat)
        if isinstance(info, dict):
            return _str(info.get("name"), "?") or "?"
        return "(empty seat)"

    def rating_text(self, seat: str) -> str:
        """The rating in ``seat``, "1500?" while provisional, or "" (a bot, an older server)."""
        info = self.seats.get(seat)
        if not isinstance(info, dict):
            return ""
        return rating_label(info.get("rating"), info.get("rd"))

    def rating_change(self, seat: str) -> str:
        """What the finished game did to ``seat``'s rating ("+12", "-12", "±0"), or ""."""
        change = (self.ratings or {}).get(seat)
        if not isinstance(change, dict):
            return ""
        before, after = whole(change.get("before")), whole(change.get("after"))
        if before is None or after is None:
            return ""
        return change_text(after - before)

    def move_limit(self) -> int | None:
        """The plies after which the game is drawn (``max_plies``: the rules' count, which a
        number chess position string starts at its PLY), or ``None`` when not known."""
        limit = whole(getattr(self.state, "max_plies", None))
        return limit if limit is not None else whole(self.options.get("max_plies"))

    def is_my_turn(self) -> bool:
        """True when we are seated and it is our move in a game that is on."""
        return self.you is not None and self.turn == self.you and self.status != "over"

    def has_moved(self, seat: str | None) -> bool:
        """Whether ``seat`` has made a move in this game (who moved each ply comes from the
        positions the moves were played in)."""
        plies = len(self.moves)
        if len(self.history) < plies:  # positions not rebuilt: the sides alternate
            return plies >= 2
        return any(getattr(state, "turn", None) == seat
                   for state in itertools.islice(self.history, plies))

    def remaining_ms(self, seat: str, now: float) -> int | None:
        """``seat``'s clock now, counted down locally from the last server value (as the server
        counts it: from the seat's own first move on, the first having an abort deadline
        instead)."""
        value = whole(self.clocks.get(seat))
        if value is None:
            return None
        if (self.clocks.get("running") == seat and self.status == "playing"
                and self.has_moved(seat)):
            value -= int((now - self.clocks_at) * 1000)
        return max(0, value)

    def move_ms(self, now: float) -> int | None:
        """What is left of the current per-move limit, counted down locally."""
        value = whole(self.clocks.get("move"))
        if value is None:
            return None
        if self.clocks.get("running") in SEATS and self.status == "playing":
            value -= int((now - self.clocks_at) * 1000)
        return max(0, value)

    def frozen_clocks(self, now: float) -> dict[str, int]:
        """Both clocks as they stand now."""
        return {s: v for s in SEATS if (v := self.remaining_ms(s, now)) is not None}

    def pending_offer(self) -> dict[str, Any] | None:
        """An offer from the opponent waiting for our answer (in hot-seat play, from either
        seat: the other seat answers it)."""
        for offer in self.offers:
            if self.hotseat and offer.get("by") in ("first", "second"):
                return offer
            if self.you is not None and offer.get("by") not in (self.you, None):
                return offer
        return None


ANSWERED_WORDS = {
    "draw": "draw offer", "undo": "takeback offer", "rematch": "rematch offer",
    "swap": "offer to swap sides",
}
"""``Your … was declined``: what the answered offer is called."""
OFFER_WORDS = {
    "draw": "a draw", "undo": "a takeback", "rematch": "a rematch", "swap": "to swap sides",
}


def format_clock(ms: int | None) -> str:
    """``m:ss`` (or ``s.t`` under ten seconds); ``—`` when there is no clock. Rounded down, as
    lichess does, so a face never shows more time than is left and ``0:10`` runs on into ``9.9``.

    >>> format_clock(65_000), format_clock(64_600), format_clock(9_450), format_clock(None)
    ('1:05', '1:04', '9.4', '—')
    """
    if ms is None:
        return "—"
    if ms < 10_000:
        return f"{ms // 1000}.{(ms % 1000) // 100}"
    total = ms // 1000
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


def clock_text(clock: dict[str, Any] | None) -> str:
    """A clock setting in words: ``5+3``, ``20 s/move``, or ``untimed``.

    >>> clock_text({"initial": 300, "increment": 3}), clock_text({"per_move": 20}), clock_text({})
    ('5+3', '20 s/move', 'untimed')
    """
    if not isinstance(clock, dict):
        return "untimed"
    initial = whole(clock.get("initial")) or 0
    inc = whole(clock.get("increment")) or 0
    per_move = whole(clock.get("per_move")) or 0
    parts = []
    if initial:
        minutes = initial / 60
        parts.append(f"{minutes:g}+{inc}" if minutes >= 1 else f"{initial}s+{inc}")
    if per_move:
        parts.append(f"{per_move} s/move")
    return ", ".join(parts) or "untimed"


def options_text(options: dict[str, Any] | None, defaults: dict[str, Any] | None) -> str:
    """The room options that differ from the game's defaults, in words (a room with
    ``exact5`` says so: six in a row then does not win).

    >>> options_text({"exact5": True}, {"exact5": False})
    'exactly five wins'
    >>> options_text({"max_plies": 400, "home_limit": 20}, {"max_plies": 400, "home_limit": 30})
    'home limit 20 moves'
    """
    if not isinstance(options, dict):
        return ""
    known = defaults if isinstance(defaults, dict) else {}
    parts = []
    for name, value in sorted(options.items()):
        if name in known and known[name] == value:
            continue
        if name == "exact5":
            parts.append("exactly five wins" if value else "five or more wins")
        elif name == "max_plies":
            parts.append(f"draw at ply {value}")
        elif name == "home_limit":
            parts.append(f"home limit {value} moves")
        else:
            parts.append(f"{name}={value}")
    return " · ".join(parts)


def overline_note(game: str, state: Any) -> str | None:
    """Why the last stone of a hexgomoku position where exactly five wins (``exact5``) did not
    win although it made six or more in a row; None for anything else."""
    from engines.base import other
    from engines.hexgomoku import HexState, parse_point, winning_line

    if game != "hexgomoku" or not isinstance(state, HexState) or not state.exact5:
        return None
    if state.last_move is None or state.result is not None:
        return None
    stones = state.stones_of(other(state.turn))
    line = winning_line(stones, parse_point(state.last_move), exact5=False)
    if len(line) <= 5:
        return None
    count = NUMBER_WORDS.get(len(line), str(len(line)))
    return f"{state.last_move} makes {count} in a row: not a win here, exactly five wins."


NUMBER_WORDS = {6: "six", 7: "seven", 8: "eight", 9: "nine"}


def end_highlight(engine: Any, state: Any, reason: str | None, result: str | None
                  ) -> tuple[str, ...]:
    """The points a game's end is about: for a report that won, the reported pieces (the claim
    judged again on the final position: the ``over`` message does not name them); else what the
    engine's outcome marks (a five in a row). ``()`` when nothing is known."""
    if engine is None or state is None:
        return ()
    try:
        if reason == "report" and result in SEATS:
            return tuple(engine.claim(state, "report", result).highlight)
        outcome = engine.outcome(state)
    except Exception:  # a position this client cannot judge: nothing to mark
        return ()
    return tuple(outcome.highlight) if outcome is not None else ()


REASON_WORDS = {
    "checkmate": "checkmate", "stalemate": "stalemate", "insufficient": "insufficient material",
    "repetition": "threefold repetition", "fifty_moves": "the fifty-move rule",
    "kings_only": "the 25-move rule (kings only)",
    "endgame_16": "the 16-move endgame rule",
    "endgame_5": "the 5-move endgame rule", "no_moves": "no legal moves", "five": "five in a row",
    "board_full": "a full board", "captain": "captain captured",
    "stop": "the stop call (scores compared)",
    "report": "a rule violation reported", "resign": "resignation", "timeout": "time ran out",
    "timeout_vs_insufficient": "time ran out against insufficient material",
    "agreement": "agreement", "move_limit": "the move limit", "abandoned": "abandonment",
    "aborted": "aborted before both sides moved",
}


def ending_words(reason: str, variant: str | None = None) -> str:
    """How a game ended, in its players' words: :data:`REASON_WORDS`, except that a draughts
    kings-only draw counts the moves of ``variant``'s own rule (15 on 8 x 8, 25 on 10 x 10).

    >>> ending_words("kings_only", "russian")
    'the 15-move rule (kings only)'
    """
    if reason == "kings_only" and variant is not None:
        from engines.draughts import VARIANTS

        spec = VARIANTS.get(variant)
        if spec is not None:
            return f"the {spec.kings_only_plies // 2}-move rule (kings only)"
    return REASON_WORDS.get(reason, reason.replace("_", " "))


SHORT_GAME_NAMES = {"chess": "Chess", "draughts": "Draughts", "shuqi": "Number chess",
                    "hexgomoku": "Hex five", "custom": "Custom"}
"""Game names that fit the room list."""


def game_label(game: Any, variant: Any, games: list[dict[str, Any]]) -> str:
    """``Chess``, ``Russian draughts``, ``Xiangqi``: what a room plays, in words (custom games
    always by their variant).

    >>> game_label("draughts", "russian", [{"game": "draughts", "variants": [
    ...     {"id": "international"}, {"id": "russian", "name": "Russian draughts"}]}])
    'Russian draughts'
    """
    game_text = str(game) if isinstance(game, str) else "?"
    label = SHORT_GAME_NAMES.get(game_text, game_text)
    if not isinstance(variant, str) or not variant:
        return label
    info = next((g for g in games if g.get("game") == game_text), {})
    known = known_variants(info)
    first = known[0].get("id") if known else "standard"
    if variant == first and game_text != "custom":  # a custom game is its variant
        return label
    return variant_name(info, variant) or f"{label} ({variant})"


def known_variants(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The variants a game of the server's list of games has (``{id, name, ...}``), in its
    order (the default first)."""
    found = info.get("variants")
    return [v for v in found if isinstance(v, dict)] if isinstance(found, list) else []


def variant_name(info: dict[str, Any], variant: str) -> str | None:
    """The name the server's list of games gives ``variant`` of the game ``info`` describes
    (``Russian draughts``, ``River Stones``), None when it gives none.

    >>> variant_name({"game": "custom", "variants": [{"id": "stones", "name": "River Stones"}]},
    ...              "stones")
    'River Stones'
    """
    named = next((v.get("name") for v in known_variants(info) if v.get("id") == variant), None)
    return named if isinstance(named, str) and named else None
