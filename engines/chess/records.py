"""PGN records for Boardhall chess: writing a finished game, reading one back (strictly).

python-chess's PGN reader is lenient by design: it collects problems in ``game.errors`` and skips
text it does not understand. Boardhall refuses any collected error, text with neither a tag nor a
move, and movetext the reader would pass over (a mistyped move such as ``zz5`` at the end of a
game would otherwise just be dropped), so a garbled upload is never taken for another game.
"""

from __future__ import annotations

import io
import re

import chess
import chess.pgn

from engines.base import BadPosition, RecordInfo
from engines.chess.position import read_fen

MAX_RECORD_TEXT = 48 * 1024
"""DESIGN.md caps a record at 48 KiB."""

PGN_RESULTS: dict[str | None, str] = {"first": "1-0", "second": "0-1", "draw": "1/2-1/2", None: "*"}

PGN_TERMINATIONS: dict[str, str] = {
    "timeout": "time forfeit",
    "timeout_vs_insufficient": "time forfeit",
    "abandoned": "abandoned",
    "report": "rules infraction",
    "aborted": "unterminated",
}
"""Boardhall reason -> PGN Termination value (PGN standard 9.8.1); every other reason is
``normal``, and the exact reason is also written as a comment after the last move."""


def format_clock(ms: int) -> str:
    """``[%clk h:mm:ss]`` of a remaining time in milliseconds (whole seconds, rounded down)."""
    seconds = max(0, ms) // 1000
    return f"[%clk {seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}]"


def write_pgn(info: RecordInfo, board: chess.Board) -> str:
    """The PGN of the game ``info`` describes, played from ``board`` (which is left unchanged).

    Raises :class:`BadPosition` when a move of ``info.moves`` is not legal.
    """
    game = chess.pgn.Game()
    game.headers["Event"] = info.event
    game.headers["Site"] = info.site
    game.headers["Date"] = info.date or "????.??.??"
    game.headers["Round"] = "?"
    game.headers["White"] = info.first_name
    game.headers["Black"] = info.second_name
    if info.first_rating is not None and info.second_rating is not None:
        game.headers["WhiteElo"] = str(info.first_rating)
        game.headers["BlackElo"] = str(info.second_rating)
    game.headers["Result"] = PGN_RESULTS[info.result]
    if info.result is None and info.reason is None:
        game.headers["Termination"] = "unterminated"
    else:
        game.headers["Termination"] = PGN_TERMINATIONS.get(info.reason or "", "normal")
    if info.time_control:
        game.headers["TimeControl"] = info.time_control
    if board.fen() != chess.STARTING_FEN:
        game.setup(board)
    replay = board.copy(stack=False)
    node: chess.pgn.GameNode = game
    clocks = info.clocks_ms or ()
    for index, uci in enumerate(info.moves):
        try:
            move = replay.parse_uci(uci)
        except ValueError as exc:
            raise BadPosition(f"record move {index + 1} ({uci!r}) is illegal: {exc}") from exc
        replay.push(move)
        node = node.add_variation(move)
        if index < len(clocks):
            node.comment = format_clock(clocks[index])
    if info.reason:
        node.comment = f"{node.comment} {info.reason}".strip()
    return str(game) + "\n"


_TAG_LINE = re.compile(r"\s*\[.*\]\s*")
_PASSED_OVER = re.compile(r"(?:\s+|[0-9]+\.*|[+#]|e\.p\.|½-½|[-+=/±∓∞⩲⩱]+)*")
"""Text python-chess's reader passes over that belongs in a game all the same: move numbers
(``12.``, ``12...``), check and mate signs (its token pattern leaves them out), ``e.p.``,
``½-½`` and the evaluation signs some programs write instead of NAGs (``+-``, ``=``, ``±``)."""


class _NoGame(ValueError):
    """Text with neither a tag pair nor a move: no game, whatever else the reader met."""

    def __init__(self) -> None:
        super().__init__("no PGN game found: no tag pair and no move")


def skipped_movetext(text: str) -> str | None:
    """The first word of the first game's movetext that python-chess's reader would silently
    pass over (it reads only what its token pattern matches), or None when it reads it all."""
    problem = _scan_movetext(text)
    return None if problem is None or problem[0] != "skipped" else problem[1]


def _scan_movetext(text: str) -> tuple[str, str] | None:
    """``("skipped", word)`` or ``("variation", reason)`` for the first problem, else None."""
    lines = text.lstrip("\ufeff").splitlines()
    at = 0
    while at < len(lines) and (not lines[at].strip() or _TAG_LINE.fullmatch(lines[at])):
        at += 1
    in_comment = started = False
    moved = [False]  # per open line (the main line, then each variation): a move read yet?
    for line in lines[at:]:
        pos = 0
        if in_comment:
            close = line.find("}")
            if close < 0:
                continue
            pos, in_comment = close + 1, False
        elif line.startswith(("%", ";")):
            continue
        elif not line.strip():
            if started:
                break  # the end of the first game
            continue
        started = True
        while True:
            match = chess.pgn.MOVETEXT_REGEX.search(line, pos)
            gap = line[pos : match.start() if match else len(line)]
            if not _PASSED_OVER.fullmatch(gap):
                return "skipped", _word_at(line, pos + _first_unread(gap))
            if match is None or match.group(0).startswith(";"):
                break
            token = match.group(0)
            if token.startswith("{"):
                close = line.find("}", match.start())
                if close < 0:
                    in_comment = True
                    break
                pos = close + 1
                continue
            if token == "(":
                if not moved[-1]:
                    return "variation", "a variation '(' before the first move of its line"
                moved.append(False)
            elif token == ")":
                if len(moved) == 1:
                    return "variation", "')' closes no variation (no '(' is open)"
                moved.pop()
            elif match.group(1) is not None:
                moved[-1] = True
            pos = match.end()
    if len(moved) > 1:
        return "variation", "a variation '(' is never closed with ')'"
    return None


def _first_unread(gap: str) -> int:
    """Where in ``gap`` the first word that is not passed-over PGN starts."""
    return next(w.start() for w in re.finditer(r"\S+", gap) if not _PASSED_OVER.fullmatch(w[0]))


def _word_at(line: str, index: int) -> str:
    """The whitespace-delimited word of ``line`` that holds ``index`` (``Nf3x``, not ``x``)."""
    start = index
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    word = re.match(r"\S+", line[start:])
    return word[0] if word else line[index:]


class _StrictBuilder(chess.pgn.GameBuilder):
    """Builds the game like python-chess does, noting whether any tag pair was read."""

    def begin_game(self) -> None:
        super().begin_game()
        self.tags_read = 0

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags_read += 1
        super().visit_header(tagname, tagvalue)

    def end_variation(self) -> None:
        # python-chess's reader ends the variation it skips after an illegal move, and in the
        # main line that is the game itself: popping it made the next move an IndexError.
        if len(self.variation_stack) > 1:
            super().end_variation()

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)  # collected and refused by read_pgn; no log noise

    def result(self) -> chess.pgn.Game:
        game = super().result()
        if self.tags_read == 0 and game.next() is None:
            game.errors.append(_NoGame())
        return game


def read_pgn(text: str) -> tuple[chess.Board, list[chess.Move]]:
    """The start board and the main-line moves of the first game in ``text``.

    Raises :class:`BadPosition` naming the first problem (see :func:`read_pgn_game`).
    """
    game = read_pgn_game(text)
    return game.board(), list(game.mainline_moves())


def read_pgn_game(text: str) -> chess.pgn.Game:
    """The first game in ``text``, read strictly: its tags, start board and moves.

    Raises :class:`BadPosition` with python-chess's reason for the first problem it met, or
    naming the first word of movetext it would have passed over.
    """
    if len(text) > MAX_RECORD_TEXT:
        raise BadPosition(f"a record has at most {MAX_RECORD_TEXT} characters, got {len(text)}")
    try:
        game = chess.pgn.read_game(io.StringIO(text), Visitor=_StrictBuilder)
    except ValueError as exc:
        raise BadPosition(f"bad PGN: {exc}") from exc
    if game is None:
        raise BadPosition("no PGN game found in the text")
    try:
        board = game.board()
    except ValueError as exc:
        raise BadPosition(f"bad PGN: FEN tag: {exc}") from exc
    if board.uci_variant != "chess" or board.chess960:
        variant = game.headers.get("Variant", board.uci_variant)
        raise BadPosition(f"bad PGN: variant {variant!r} is not standard chess")
    try:
        if "FEN" in game.headers:
            read_fen(game.headers["FEN"])  # the tag as written: nothing left out is guessed
        read_fen(board.fen())
    except BadPosition as exc:
        raise BadPosition(f"bad PGN: FEN tag: {exc}") from exc
    if any(isinstance(error, _NoGame) for error in game.errors):
        raise BadPosition(f"bad PGN: {_NoGame()}")
    problem = _scan_movetext(text)
    if problem is not None and problem[0] == "skipped":
        raise BadPosition(f"bad PGN: {problem[1]!r} is not a move, a move number or PGN notation")
    if game.errors:
        raise BadPosition(f"bad PGN: {game.errors[0]}")
    if problem is not None:
        raise BadPosition(f"bad PGN: {problem[1]}")
    return game
