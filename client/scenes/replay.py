"""Replay a finished game move by move (from the server's JSON record or a local file)."""

from __future__ import annotations

import contextlib
import json
import re
import ssl
from collections.abc import Mapping
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

import engines
from client.address import record_url
from client.analysis import SUFFIX, AnalysisRun, eval_text
from client.annotations import CaptureTracker, position_highlight
from client.boards import make_view
from client.boards.base import BoardView, Marks
from client.end_reasons import why_line
from client.http_get import Fetch, FetchFailed, get_text
from client.moves import MoveCell, PathMemo, display_moves, move_rows, position_name
from client.record_file import (
    as_typed,
    copied_words,
    downloads_folder,
    record_kind,
    save_record,
)
from client.room_model import SEATS, SHORT_GAME_NAMES, RoomModel, end_highlight, game_label
from client.scenes import analysis_panel, room_panel
from client.scenes.base import BesideBoard, HeaderLine
from client.slides import Slides
from client.ui import draw, fonts, theme, widgets
from client.ui.widgets import Button, plain_key, pressed
from client.variants import learn_variant
from engines.base import SIDES, Engine, RecordInfo
from engines.search.analysis import MoveJudgement, PositionEval, accuracy, summary

if TYPE_CHECKING:
    from client.app import App

BOARD_RECT = pygame.Rect(16, 16, 768, 768)
ERROR_RECT = pygame.Rect(800, 544, 464, 80)
"""Why the record stops early: at the foot of the move list, beside the board."""
BAR_RECT = pygame.Rect(22, 24, 16, 752)
"""The evaluation bar, inside the board's panel (an empty slot until the game is analysed)."""
ANALYSED_BOARD = pygame.Rect(44, 20, 736, 760)
"""Where the board goes beside the evaluation bar: from the start, so that pressing A neither
moves the board nor draws it afresh at another size (a frame of some 15 ms of CPU)."""
GRAPH_HEIGHT = 72
SUMMARY_HEIGHT = 66


class RecordError(ValueError):
    """A record the replay cannot read."""


def parse_record(text: str, game: str | None = None) -> dict[str, Any]:
    """Read a game record: Boardhall's JSON record, an engine JSON record, a chess PGN or a
    draughts PDN (``game`` names the game of a record that does not say).

    Returns ``{game, variant, start, moves: [str], names: {first, second}, result, reason,
    options, variant_info}``; raises :class:`RecordError` naming what is wrong.
    """
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        moves_raw = data.get("moves")
        if not isinstance(moves_raw, list):
            raise RecordError("the record has no 'moves' list")
        moves = []
        for i, item in enumerate(moves_raw):
            move = item.get("move") if isinstance(item, dict) else item
            if not isinstance(move, str):
                raise RecordError(f"move {i + 1} of the record is not a move text")
            moves.append(move)
        found = data.get("game") or game
        if not isinstance(found, str):
            raise RecordError("the record does not say which game it is")
        players: dict[str, Any] = data["players"] if isinstance(data.get("players"), dict) else {}
        names = {}
        for seat in ("first", "second"):
            p = players.get(seat)
            name = p.get("name") if isinstance(p, dict) else data.get(seat)
            names[seat] = name if isinstance(name, str) else "?"
        return {"game": found, "variant": data.get("variant"), "start": data.get("start"),
                "moves": moves, "names": names, "result": data.get("result"),
                "reason": data.get("reason"), "options": data.get("options") or {},
                "variant_info": data.get("variant_info")}
    if game == "draughts" or (game is None and _looks_like_pdn(text)):
        return _parse_pdn(text)
    if (game in (None, "chess")) and ("[" in text or "1." in text):
        return _parse_pgn(text)
    raise RecordError("not a JSON record, a PGN game or a PDN game")


_PDN_TAG_RE = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_PDN_MOVE_RE = re.compile(r"^(?:[0-9]+\.(?:\.\.)?)?[0-9]{1,2}(?:[-x][0-9]{1,2})+[!?*]*$")
_PDN_RESULTS = {"2-0": "first", "1-0": "first", "0-2": "second", "0-1": "second",
                "1-1": "draw", "1/2-1/2": "draw"}


def _pdn_tags(text: str) -> tuple[dict[str, str], list[str]]:
    """The tag pairs of the first game in a PGN/PDN text, and the words of its movetext."""
    tags: dict[str, str] = {}
    words: list[str] = []
    for raw in text.strip().splitlines():
        line = raw.strip()
        if line.startswith("[") and not words:
            match = _PDN_TAG_RE.match(line)
            if match is not None:
                tags[match.group(1)] = match.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif line.startswith("[") and words:
            break  # the next game
        elif line and not line.startswith(("%", ";")):
            words.extend(line.split())
    return tags, words


def _looks_like_pdn(text: str) -> bool:
    """A draughts record rather than a chess one: a draughts GameType, FEN or result tag, a bare
    PDN FEN, or movetext whose first move is squares numbers (``32-28``, ``28x19``)."""
    body = text.strip()
    if body.startswith(("W:", "B:")):
        return True
    tags, words = _pdn_tags(body)
    game_type = tags.get("GameType", "").split(",")[0].strip()
    if game_type and game_type != "0":  # 0 is chess in PDN's list of game types
        return True
    if tags.get("FEN", "").strip().startswith(("W:", "B:")):
        return True
    if tags.get("Result") in ("2-0", "0-2", "1-1"):
        return True
    first = next((w for w in words if w not in _PDN_RESULTS and w not in ("*", "0-0")
                  and not re.fullmatch(r"[0-9]+\.(?:\.\.)?", w)), "")
    return bool(_PDN_MOVE_RE.match(first))


def _parse_pdn(text: str) -> dict[str, Any]:
    from engines.draughts.engine import DraughtsEngine, DraughtsState

    class Recording(DraughtsEngine):
        """Reads the record as the server does, keeping the start and each move played."""

        def __init__(self) -> None:
            super().__init__()
            self.first: DraughtsState | None = None
            self.played: list[str] = []

        def start(self, *args: Any, **kwargs: Any) -> DraughtsState:
            state = super().start(*args, **kwargs)
            self.first = self.first or state
            return state

        def play(self, state: DraughtsState, move: str) -> DraughtsState:
            after = super().play(state, move)
            self.played.append(after.last_move or move)
            return after

    engine = Recording()
    try:  # as strictly as the server reads one: a mistyped move is named, never dropped
        final = engine.from_record(text)
    except ValueError as exc:  # BadPosition, IllegalMove, UnknownVariant
        raise RecordError(str(exc)) from exc
    first = engine.first or final
    tags, words = _pdn_tags(text)
    result = _PDN_RESULTS.get(tags.get("Result", ""))
    if result is None:
        result = next((_PDN_RESULTS[w] for w in words if w in _PDN_RESULTS), None)
    return {"game": "draughts", "variant": final.variant, "start": engine.position(first),
            "moves": engine.played,
            "names": {"first": tags.get("White", "?"), "second": tags.get("Black", "?")},
            "result": result, "reason": None, "options": {}, "variant_info": None}


def _parse_pgn(text: str) -> dict[str, Any]:
    from engines.base import BadPosition
    from engines.chess.records import read_pgn_game

    try:  # as strictly as the server reads one: a mistyped move is named, never dropped
        game = read_pgn_game(text)
    except BadPosition as exc:
        raise RecordError(str(exc)) from exc
    board = game.board()
    start = board.fen()
    moves = [m.uci() for m in game.mainline_moves()]
    results = {"1-0": "first", "0-1": "second", "1/2-1/2": "draw"}
    result = results.get(game.headers.get("Result", "*"))
    return {"game": "chess", "variant": None, "start": start, "moves": moves,
            "names": {"first": game.headers.get("White", "?"),
                      "second": game.headers.get("Black", "?")},
            "result": result, "reason": None, "options": {}, "variant_info": None}


def fetch_record(
    http_url: str,
    timeout: float = 10.0,
    token: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> dict[str, Any]:
    """GET a record from the server (JSON, or the game's own PGN/PDN) and parse it. ``token``
    (sent as a bearer token, never in the URL) lets a player read their own private games;
    ``ssl_context`` is the one the WebSocket connection trusts (a server with its own
    certificate)."""
    try:
        text = get_text(http_url, token, ssl_context, timeout)
    except FetchFailed as exc:
        raise RecordError(str(exc)) from exc
    return parse_record(text)


class RecordFetch(Fetch[dict[str, Any], RecordError]):
    """A server's record of one game (``GET /games/ID?format=json``), read on a thread so the
    frame loop never waits for the network: poll :meth:`result` from ``update``."""

    def __init__(
        self,
        server_url: str,
        game_id: str,
        token: str | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.url = record_url(server_url, game_id)
        read = partial(fetch_record, self.url, token=token, ssl_context=ssl_context)
        super().__init__(read, "boardhall-fetch", RecordError)


class ReplayScene(BesideBoard):
    """Step through a game: Left/Right one move, Home/End to the ends, Esc to go back."""

    def __init__(
        self,
        app: App,
        game: str,
        variant: str | None,
        start: str | None,
        moves: list[str],
        names: Mapping[str, str] | None = None,
        options: Mapping[str, Any] | None = None,
        variant_info: Mapping[str, Any] | None = None,
        result: str | None = None,
        reason: str | None = None,
        flipped: bool = False,
    ) -> None:
        """``flipped`` draws the second side at the bottom (as the room showed it to a player
        who sat second)."""
        super().__init__(app)
        self.game, self.variant, self.start = game, variant, start
        self.coordinates_word = room_panel.coordinates_word(game)
        """The coordinates toggle's name, as the room calls it ("Numbers" in draughts)."""
        self.moves = list(moves)
        self.variant_info = dict(variant_info or {})
        self.names = dict(names or {})
        self.result, self.reason = result, reason
        self.index = len(self.moves)
        self.shown = display_moves(game, start, self.moves)
        self.states: list[Any] = []
        self.error = ""
        try:
            engine = engines.get(game)
            learn_variant(engine, variant, variant_info)
            state = engine.start(variant, position=start or None, options=dict(options or {}))
            self.states.append(state)
            for index, move in enumerate(self.moves):
                state = engine.play(state, move)
                self.states.append(state)
                # as the engine played it: a hand-written record's SAN ``O-O`` becomes ``e1g1``
                self.moves[index] = getattr(state, "last_move", None) or move
        except Exception as exc:
            done = len(self.states)
            self.error = f"Cannot replay move {done}: {exc}" if done else str(exc)
            self.moves = self.moves[: max(0, len(self.states) - 1)]
            self.index = len(self.moves)
            self.shown = display_moves(game, start, self.moves)  # the playable part, in SAN
        self.analysis_nodes: int | None = None
        """Search nodes per position (``None``: the game's budget; tests lower it)."""
        self._options = dict(options or {})
        self.analysis: AnalysisRun | None = app.analyses.get(self.analysis_key())
        """This game's analysis: kept for the session, so a replay opened again shows it."""
        self.view: BoardView | None = None
        try:
            self.view = make_view(game, variant, variant_info)
            self.view.layout(self.board_rect(), flipped)
        except Exception as exc:
            self.error = self.error or f"No board renderer for {game}: {exc}"
        y = 700
        self.buttons = [
            Button(pygame.Rect(800, y, 106, 50), "|<", "home", "Home"),
            Button(pygame.Rect(914, y, 106, 50), "<", "back", "Left"),
            Button(pygame.Rect(1028, y, 106, 50), ">", "forward", "Right"),
            Button(pygame.Rect(1142, y, 106, 50), ">|", "end", "End"),
            Button(pygame.Rect(800, y - 60, 86, 44), "Back", "close", "Esc"),
            Button(pygame.Rect(894, y - 60, 86, 44), "Flip board", "flip", "F", short="Flip"),
            Button(pygame.Rect(988, y - 60, 86, 44), f"{self.coordinates_word} on", "coords",
                   "K", short=self.coordinates_word),
            Button(pygame.Rect(1082, y - 60, 86, 44), "Analyse", "analyse", "A"),
            Button(pygame.Rect(1176, y - 60, 86, 44), f"Save {record_kind(game)}", "save", "S",
                   short="Save"),
        ]
        self.note = ""
        """Where the record was saved, shown where an error would be."""
        self.coordinates = True
        self._highlights: dict[int, tuple[str, ...]] = {}
        self._paths = PathMemo()
        self.captures = CaptureTracker()
        self._analysis_seen: tuple[int, bool, str] = (0, False, "")
        self._best_shown: dict[int, str] = {}
        self.notice = ""
        """What the last Ctrl+C did (shown at the foot of the move list)."""
        self.notice_colour = theme.WARN
        self.slides = Slides(app.clock)
        """The slide of the move Left or Right stepped through (see :mod:`client.slides`)."""

    def board_rect(self) -> pygame.Rect:
        """Where the board is drawn: beside the evaluation bar (or its empty slot)."""
        return ANALYSED_BOARD

    def bar_rect(self) -> pygame.Rect | None:
        """The evaluation bar, once the game is analysed."""
        return BAR_RECT if self.analysis is not None else None

    def list_bottom(self) -> int:
        """The foot of the move list (and of the analysis under it)."""
        return ERROR_RECT.top - 8 if self.error or self.note else 624

    def graph_rect(self) -> pygame.Rect | None:
        """The evaluation graph under the move list, once the game is analysed."""
        if self.analysis is None:
            return None
        return pygame.Rect(800, self.list_bottom() - SUMMARY_HEIGHT - GRAPH_HEIGHT, 464,
                           GRAPH_HEIGHT)

    @classmethod
    def from_record(cls, app: App, record: Mapping[str, Any],
                    flipped: bool = False) -> ReplayScene:
        """Build from :func:`parse_record` output (``flipped``: the second side at the
        bottom)."""
        return cls(app, record["game"], record.get("variant"), record.get("start"),
                   list(record.get("moves") or []), record.get("names"), record.get("options"),
                   record.get("variant_info"), record.get("result"), record.get("reason"),
                   flipped)

    @classmethod
    def from_seat(cls, app: App, record: Mapping[str, Any], seat: str | None) -> ReplayScene:
        """Build from :func:`parse_record` output seen from ``seat``'s side: the player who
        sat second has the board flipped, their pieces at the bottom; no seat, as stored."""
        return cls.from_record(app, record, flipped=seat == "second")

    @classmethod
    def open_fetched(
        cls, app: App, found: Mapping[str, Any] | RecordError, seat: str | None
    ) -> RecordError | None:
        """Push the replay of a fetched record from ``seat``'s side (:meth:`from_seat`), or
        hand back the error that kept it from being read."""
        if isinstance(found, RecordError):
            return found
        app.push(cls.from_seat(app, found, seat))
        return None

    @classmethod
    def from_file(cls, app: App, path: Path, game: str | None = None) -> ReplayScene:
        """Build from a record file (JSON, PGN or PDN)."""
        return cls.from_record(app, parse_record(path.read_text(encoding="utf-8"), game))

    def result_line(self) -> str:
        """How the game ended, in the room's words (:func:`client.scenes.room.result_text`), as a
        spectator reads them: "Alice resigned: Bob won", "Bob ran out of time: Alice won"."""
        from client.scenes.room import result_text

        return result_text(self.ending())

    def ending(self) -> RoomModel:
        """The finished game as a room would hold it at its end (names, result, reason, the
        last position and what its end marks), for the room's words about it."""
        last = self.states[-1] if self.states else None
        turn = getattr(last, "turn", "first")
        return RoomModel(
            room="", game=self.game, variant=self.variant, status="over", result=self.result,
            reason=self.reason,
            seats={seat: {"name": self.names.get(seat) or f"{seat.capitalize()} player"}
                   for seat in SEATS},
            turn=turn if turn in SEATS else "first", options=dict(self._options), state=last,
            highlight=end_highlight(engines.get(self.game), last, self.reason, self.result)
            if self.reason else ())

    def why(self) -> str:
        """Why the game ended beyond the result line (a number chess report or stop, see
        :func:`why_line`), shown with the last move; ``""`` elsewhere."""
        if self.index < len(self.moves) or not (self.result or self.reason):
            return ""
        with contextlib.suppress(Exception):  # a game this client has no rules for
            return why_line(self.ending(), None, lambda seat: self.display_names()[seat])
        return ""

    def handle_event(self, event: pygame.event.Event) -> None:
        """Buttons and arrow keys."""
        action = pressed(self.buttons, event)
        if action:
            self.act(action)
            return
        graph = self.graph_rect()
        if (event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and graph is not None
                and graph.collidepoint(event.pos)):
            ply = analysis_panel.graph_ply_at(graph, len(self.moves), event.pos)
            if ply is not None:
                self.index = ply
                self.slides.stop()
            return
        if (event.type == pygame.KEYDOWN and event.key == pygame.K_c
                and event.mod & pygame.KMOD_CTRL and not event.mod & pygame.KMOD_ALT):
            self.copy_record()
            return
        if event.type == pygame.KEYDOWN and plain_key(event):
            keys = {pygame.K_LEFT: "back", pygame.K_RIGHT: "forward", pygame.K_HOME: "home",
                    pygame.K_END: "end", pygame.K_ESCAPE: "close", pygame.K_f: "flip",
                    pygame.K_k: "coords", pygame.K_a: "analyse", pygame.K_s: "save"}
            action = keys.get(event.key)
            if action:
                self.act(action)

    def act(self, action: str) -> None:
        """Move through the game."""
        if action == "back":
            self.step_to(self.index - 1)
        elif action == "forward":
            self.step_to(self.index + 1)
        elif action == "home":
            self.index = 0
            self.slides.stop()
        elif action == "end":
            self.index = len(self.moves)
            self.slides.stop()
        elif action == "flip" and self.view is not None:
            self.view.layout(self.board_rect(), not self.view.flipped)
        elif action == "coords":
            self.coordinates = not self.coordinates
            button = next(b for b in self.buttons if b.action == "coords")
            state = "on" if self.coordinates else "off"
            button.label = f"{self.coordinates_word} {state}"
        elif action == "analyse":
            self.toggle_analysis()
        elif action == "save":
            self.save_record()
        elif action == "close":
            self.app.pop(self)

    def record_info(self) -> tuple[Engine, RecordInfo]:
        """The game's engine and what its record is written from (the players as shown)."""
        engine = engines.get(self.game)
        names = self.display_names()
        return engine, RecordInfo(
            variant=engine.resolve_variant(self.variant),
            start=engine.position(self.states[0]) if self.states else (self.start or ""),
            moves=tuple(self.moves), first_name=names["first"], second_name=names["second"],
            result=next((r for r in (*SIDES, "draw") if r == self.result), None),
            reason=self.reason, options=self._options)

    def save_record(self) -> None:
        """Write the game's record (PGN, PDN or JSON: what its engine writes, which the lobby's
        Replay reads back) into the player's Downloads folder and say where, or why not."""
        try:
            path = save_record(*self.record_info(), downloads_folder(), datetime.now())
        except Exception as exc:  # a folder it cannot write, a record the engine refuses
            self.note, self.error = "", f"Could not save the {record_kind(self.game)}: {exc}"
            return
        self.note = f"Saved the {record_kind(self.game)}: {as_typed(path)}"

    def copy_record(self) -> None:
        """Put the game's record (PDN, PGN or JSON) on the clipboard, saying what happened."""
        self.notice_colour = theme.WARN
        if not self.states:
            self.notice = "Nothing to copy: the record could not be replayed."
            return
        try:
            engine, info = self.record_info()
            text = engine.record(info)
        except Exception as exc:  # an engine that cannot write this game
            self.notice = f"Cannot write the record: {exc}"
            return
        if widgets.copy_text(text):
            self.notice, self.notice_colour = copied_words(self.game), theme.GOOD
        else:
            self.notice = "No clipboard here: nothing was copied."

    def step_to(self, index: int) -> None:
        """Show the position one move forward or back, its piece sliding there."""
        index = max(0, min(len(self.moves), index))
        if index == self.index:
            return
        was, self.index = self.index, index
        self.slides.stop()
        if self.app.config.slides and self.states:  # played, so the game's engine is there
            self.slides.step(self.view, self.game, engines.get(self.game), self.states,
                             self.moves, was, index)

    def analysis_key(self) -> tuple[Any, ...]:
        """What makes two replays the same game for the session's analyses."""
        return (self.game, self.variant, self.start, tuple(self.moves),
                repr(sorted(self._options.items())), self.analysis_nodes)

    def toggle_analysis(self) -> None:
        """Start the computer analysis, stop it while it runs, or go on where it stopped."""
        if self.analysis is None:
            if not self.states:
                return
            moves = [state.last_move or "" for state in self.states[1:]]
            self.analysis = AnalysisRun(self.game, self.states, moves, self.analysis_nodes,
                                        start_after=self.app.after_frame)
            self.app.analyses.put(self.analysis_key(), self.analysis)
        elif self.analysis.running:
            self.analysis.cancel()
        else:
            self.analysis.resume()
        self.update(0.0)

    def exit(self) -> None:
        """Leaving the replay stops its analysis."""
        if self.analysis is not None:
            self.analysis.cancel()

    def highlight(self) -> tuple[str, ...]:
        """What to emphasise at the shown move: the winning line at the end, a checked king or
        a custom game's threatened captain."""
        index = min(self.index, len(self.states) - 1)
        if index not in self._highlights:
            found: tuple[str, ...] = ()
            with contextlib.suppress(Exception):  # a game this client has no rules for
                if index == len(self.moves) and self.reason:  # the end: what it was about
                    found = self.ending().highlight
                found = found or position_highlight(self.game, self.variant,
                                                    engines.get(self.game), self.states[index],
                                                    self.view)
            self._highlights[index] = found
        return self._highlights[index]

    def update(self, dt: float) -> None:
        """Follow the captures up to the shown move, the analysis as it goes, and a slide."""
        if self.slides.need_frame():
            self.app.invalidate()
        run = self.analysis
        if run is not None:
            seen = (len(run.evals), run.running, run.error)
            if seen != self._analysis_seen:
                self._analysis_seen = seen
                button = next(b for b in self.buttons if b.action == "analyse")
                button.label = ("Stop" if run.running else "Analysed" if run.complete
                                else "Analyse")
                if run.error:
                    self.error = run.error
                self.app.invalidate()
        if self.view is not None and self.states:
            shown = self.states[: min(self.index, len(self.states) - 1) + 1]
            self.captures.update(self.view, (self.game,), shown)

    def draw_captures(self, surface: pygame.Surface, names: dict[str, str]) -> None:
        """What each side has captured up to the shown move (games with captures only)."""
        if not self.captures.pieces or self.view is None:
            return
        for row, seat in enumerate(("first", "second")):
            y = 162 + row * 30
            draw.stone(surface, (810, y), 7, seat, self.game)
            draw.text(surface, names[seat], (824, y), 14, theme.MUTED, "midleft", 110)
            room_panel.draw_captured(surface, self.view, self.game, self.captures, seat,
                                     pygame.Rect(944, y - 12, 320, 24))

    def draw(self, surface: pygame.Surface) -> None:
        """Board at the current move and the move list."""
        draw.panel(surface, BOARD_RECT)
        if self.view is not None and self.states:
            state = self.states[min(self.index, len(self.states) - 1)]
            last = self.moves[self.index - 1] if self.index else None
            before = self.states[self.index - 1] if 0 < self.index <= len(self.states) else None
            path = self._paths.path(self.game, engines.get(self.game), before, last)
            marks = Marks(last_move=path, highlight=self.highlight(), before=before,
                          extra={"coordinates": self.coordinates})
            self.view.draw(surface, state, self.slides.marks(marks, state))
            found = self.shown_eval()
            if found is not None and found.best:
                analysis_panel.draw_best(surface, self.view, self.game, found.best)
        self.draw_analysis(surface)
        for line in self.header_lines():
            line.draw(surface)
        self.draw_captures(surface, self.display_names())
        top = 212 if self.captures.pieces else 148
        graph = self.graph_rect()
        box = pygame.Rect(800, top, 464, (graph.top - 8 if graph else self.list_bottom()) - top)
        if self.error:  # beside the board, never over its pieces
            draw.panel(surface, ERROR_RECT, theme.BAD_BG, theme.BAD)
            draw.paragraph(surface, self.error, ERROR_RECT.inflate(-20, -14), 15, theme.BAD)
        elif self.note:
            draw.panel(surface, ERROR_RECT, theme.INPUT_BG, theme.ACCENT)
            draw.paragraph(surface, self.note, ERROR_RECT.inflate(-20, -14), 15, theme.TEXT)
        draw.panel(surface, box, theme.INPUT_BG)
        rows = (box.height - 12) // 22 - 1  # the foot: the Ctrl+C hint or what it did
        lines = self.move_rows()
        at_line = next((j for j, (_, cells) in enumerate(lines)
                        if any(ply == self.index - 1 for ply, _ in cells)), 0)
        first_line = max(0, at_line - rows + 3)
        verdicts = ({j.ply: j.verdict for j in self.analysis.judged() if j.verdict}
                    if self.analysis is not None else {})
        for j, (number, cells) in enumerate(lines[first_line:first_line + rows]):
            y = box.top + 8 + j * 22
            draw.text(surface, f"{number}.", (box.left + 12, y), 14, theme.FAINT)
            for k, (ply, text) in enumerate(cells):
                verdict = verdicts.get(ply) if ply is not None else None
                color = (theme.ACCENT if ply == self.index - 1 else
                         theme.FAINT if ply is None else
                         analysis_panel.VERDICT_COLORS[verdict] if verdict else theme.TEXT)
                if verdict:
                    text += SUFFIX[verdict]
                draw.text(surface, text, (box.left + 60 + k * 200, y), 15, color, max_width=190)
        why = self.why()
        if why:  # under the last move, where the game ended
            shown = min(rows, len(lines) - first_line)
            draw.paragraph(surface, why, pygame.Rect(box.left + 12, box.top + 12 + shown * 22,
                                                     box.width - 24, box.bottom - 8
                                                     - (box.top + 12 + shown * 22)), 15,
                           theme.TEXT)
        notice = self.notice or f"Ctrl+C: copy the {record_kind(self.game)}"
        draw.text(surface, notice, (box.left + 12, box.bottom - 26), 15,
                  self.notice_colour if self.notice else theme.FAINT, max_width=box.width - 24)
        for b in self.buttons:
            b.draw(surface)

    def move_rows(self) -> list[tuple[int, list[MoveCell]]]:
        """The move list in numbered lines (a start with the second side to move opens with
        "…")."""
        second_first = bool(self.states) and getattr(self.states[0], "turn", "") == "second"
        return move_rows(self.game, self.start, self.shown, second_first)

    def header_lines(self) -> list[HeaderLine]:
        """The title, the game, the players, the result, the move shown and its evaluation."""
        names = self.display_names()
        lines = [
            HeaderLine("Replay", (800, 18), 24),
            HeaderLine(self.game_label(), (1264, 24), 15, theme.MUTED, "topright", 300),
            HeaderLine(f"{names['first']}  vs  {names['second']}", (800, 56), 17, max_width=464),
        ]
        if self.result or self.reason:
            lines.append(HeaderLine(self.result_line(), (800, 84), 15, theme.MUTED, max_width=464))
        shown = (position_name(self.game, self.move_rows(), self.index)
                 or f"Move {self.index} of {len(self.moves)}")
        lines.append(HeaderLine(shown, (800, 118), 18, theme.ACCENT, max_width=200))
        found = self.shown_eval()
        if found is not None:
            words = eval_text(found, self.display_names())
            if found.best:
                words += f"  ·  best {self.best_shown(self.index, found.best)}"
            lines.append(HeaderLine(words, (1264, 118), 16, theme.TEXT, "topright", 300))
        return lines

    def game_label(self) -> str:
        """What game this is, beside the title: ``Chess · 国际象棋``, a variant by its name
        (``Russian draughts · 俄罗斯跳棋``); a custom game's by its variant's own name
        (``Custom · Xiangqi (JBQ rules)``)."""
        subtitle = theme.game_subtitle(self.game, self.variant_info, self.variant)
        shown = subtitle if subtitle and fonts.can_show(subtitle) else ""
        name = SHORT_GAME_NAMES.get(self.game, self.game)
        if self.game != "custom":  # a custom game is named by its subtitle
            name = game_label(self.game, self.variant, self.app.games)
        return " · ".join(t for t in (name, shown) if t)

    def display_names(self) -> dict[str, str]:
        """The players' names as the replay shows them."""
        return {"first": self.names.get("first") or "First player",
                "second": self.names.get("second") or "Second player"}

    def shown_eval(self) -> PositionEval | None:
        """The analysis of the shown position, once it is done."""
        if self.analysis is None or self.index >= len(self.analysis.evals):
            return None
        return self.analysis.evals[self.index]

    def best_shown(self, index: int, best: str) -> str:
        """The best move of position ``index`` as players read it (SAN in chess)."""
        if index not in self._best_shown:
            shown = best
            with contextlib.suppress(Exception):  # the canonical text is shown then
                start = engines.get(self.game).position(self.states[index])
                shown = display_moves(self.game, start, [best])[0]
            self._best_shown[index] = shown
        return self._best_shown[index]

    def draw_analysis(self, surface: pygame.Surface) -> None:
        """The evaluation bar, the graph, and the summary per side (or the progress)."""
        run, bar, graph = self.analysis, self.bar_rect(), self.graph_rect()
        if run is None or bar is None or graph is None:
            pygame.draw.rect(surface, theme.BORDER, BAR_RECT, 1)  # the bar's slot, empty
            return
        first_at_bottom = self.view is None or not self.view.flipped
        analysis_panel.draw_bar(surface, bar, self.shown_eval(), run.scale, self.game,
                                first_at_bottom)
        judged = run.judged()
        analysis_panel.draw_graph(surface, graph, list(run.evals), judged, len(self.moves),
                                  self.index, run.scale, self.game)
        names = self.display_names()
        progress, stopped = run.progress(), run.stopped_at()
        verdict = self.shown_verdict(judged)
        if verdict:
            color = analysis_panel.VERDICT_COLORS[judged[self.index - 1].verdict or ""]
            draw.text(surface, verdict, (graph.left + 4, graph.bottom + 6), 15, color,
                      max_width=graph.width - 8)
        if progress or stopped:  # no summary from part of the game
            hint = [progress, "A stops it"] if progress else [stopped, "A goes on"]
            for row, line in enumerate(hint, start=1):
                draw.text(surface, line, (graph.left + 4, graph.bottom + 6 + row * 20), 15,
                          theme.MUTED, max_width=graph.width - 8)
            return
        scale = self.app.viewport()[0]
        for row, seat in enumerate(SIDES, start=1):
            rect = pygame.Rect(graph.left + 4, graph.bottom + 6 + row * 20, graph.width - 8, 20)
            analysis_panel.draw_summary(surface, rect, names[seat], accuracy(judged, seat),
                                        summary(judged, seat), scale)

    def shown_verdict(self, judged: list[MoveJudgement]) -> str:
        """What the move that led to the shown position was, when it lost something:
        ``g4?? Blunder: e4 was best``."""
        if not 0 < self.index <= len(judged) or self.index > len(self.shown):
            return ""
        item = judged[self.index - 1]
        if item.verdict is None:
            return ""
        move = self.shown[self.index - 1] + SUFFIX[item.verdict]
        best = f": {self.best_shown(self.index - 1, item.best)} was best" if item.best else ""
        label = "Missed win" if item.missed_win else item.verdict.capitalize()
        return f"{move} {label}{best}"
