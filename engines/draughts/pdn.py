"""PDN game records: export and import (RULES.md section 2, Records).

Export writes the seven-tag roster that draughts uses (Event, Site, Date, White, Black, Result),
GameType (20 international, 26 brazilian, 25 russian), the players' ratings before a rated game
(WhiteElo and BlackElo, as lidraughts writes them) and FEN when the game did not start from the
standard position, then numbered moves. Import reads the first game of a PDN text (or a bare PDN
FEN) and replays it through the engine.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engines.base import BadPosition, EngineError, IllegalMove, RecordInfo

if TYPE_CHECKING:
    from engines.draughts.engine import DraughtsEngine, DraughtsState

MAX_RECORD_TEXT = 1_000_000
RESULTS = {"first": "2-0", "second": "0-2", "draw": "1-1"}
_RESULT_TOKENS = frozenset({"2-0", "0-2", "1-1", "1-0", "0-1", "1/2-1/2", "0-0", "*"})
_TAG_RE = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]$')
_NUMBER_RE = re.compile(r"^[0-9]+\.(?:\.\.)?")
_SUFFIX_RE = re.compile(r"[!?*]+$")


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pdn(engine: DraughtsEngine, info: RecordInfo) -> str:
    """The PDN text of a game; raises :class:`BadPosition` for an unreadable start."""
    from engines.draughts.engine import VARIANTS

    variant = engine.resolve_variant(info.variant)
    spec = VARIANTS[variant]
    start = engine.start(variant, position=info.start or None)
    result = RESULTS.get(info.result or "", "*")
    tags = [
        ("Event", info.event),
        ("Site", info.site),
        ("Date", info.date or "????.??.??"),
        ("White", info.first_name),
        ("Black", info.second_name),
        ("Result", result),
        ("GameType", str(spec.game_type)),
    ]
    if info.first_rating is not None and info.second_rating is not None:
        # PDN names no rating tag; these are lidraughts' (and PGN's) names for them.
        tags += [("WhiteElo", str(info.first_rating)), ("BlackElo", str(info.second_rating))]
    fen = engine.position(start)
    if fen != engine.position(engine.start(variant)):
        tags.append(("FEN", fen))
    lines = [f'[{name} "{_quote(value)}"]' for name, value in tags]
    tokens: list[str] = []
    white_moves = start.turn == "first"
    number = 1
    for i, move in enumerate(info.moves):
        if white_moves:
            tokens.append(f"{number}. {move}")
        else:
            if i == 0:
                tokens.append(f"{number}... {move}")
            else:
                tokens.append(move)
            number += 1
        white_moves = not white_moves
    tokens.append(result)
    text_lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > 79:
            text_lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    text_lines.append(current)
    return "\n".join(lines) + "\n\n" + "\n".join(text_lines) + "\n"


def _strip_comments(text: str) -> str:
    out: list[str] = []
    depth = 0
    in_brace = False
    for line in text.splitlines():
        if not in_brace and depth == 0 and line.lstrip().startswith("%"):
            continue
        i = 0
        while i < len(line):
            ch = line[i]
            if in_brace:
                if ch == "}":
                    in_brace = False
            elif ch == "{":
                in_brace = True
            elif ch == ";" and depth == 0:
                break
            elif ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    raise BadPosition("the record has an unmatched ')'")
                depth -= 1
            elif depth == 0:
                out.append(ch)
            i += 1
        out.append("\n")
    if in_brace:
        raise BadPosition("the record has an unclosed '{' comment")
    if depth:
        raise BadPosition("the record has an unclosed '(' variation")
    return "".join(out)


def read_pdn(engine: DraughtsEngine, text: str, variant: str | None) -> DraughtsState:
    """The final state of the first game of a PDN text, or of a bare PDN FEN."""
    from engines.draughts.engine import VARIANTS

    if not isinstance(text, str):
        raise BadPosition("a record must be PDN text")
    if len(text) > MAX_RECORD_TEXT:
        raise BadPosition(f"record too long ({len(text)} characters)")
    body = text.strip()
    if body.startswith(("W:", "B:")) and "\n" not in body:
        return engine.start(variant, position=body)
    tags: dict[str, str] = {}
    movetext: list[str] = []
    for raw in body.splitlines():
        line = raw.strip()
        if line.startswith("[") and not movetext:
            match = _TAG_RE.match(line)
            if match is None:
                raise BadPosition(f"bad PDN tag line {line[:60]!r}")
            tags[match.group(1)] = match.group(2).replace('\\"', '"').replace("\\\\", "\\")
        elif line.startswith("[") and movetext:
            break  # the next game starts
        elif line:
            movetext.append(line)
    moves_text = _strip_comments("\n".join(movetext))
    if not tags and not movetext:
        raise BadPosition("the record is empty")
    by_type = {str(v.game_type): v.id for v in VARIANTS.values()}
    if "GameType" in tags:
        game_type = tags["GameType"].split(",")[0].strip()
        if game_type not in by_type:
            raise BadPosition(
                f"GameType {game_type!r} is not a draughts variant here "
                "(20 international, 26 brazilian, 25 russian)"
            )
        found = by_type[game_type]
        if variant and engine.resolve_variant(variant) != found:
            raise BadPosition(f"the record is {found} (GameType {game_type}), not {variant}")
        variant = found
    words = [w for w in moves_text.split() if w not in _RESULT_TOKENS]
    if not tags and not words:
        raise BadPosition("no PDN game found: no tag pair and no move (only comments or a result)")
    state = engine.start(variant, position=tags.get("FEN") or None)
    count = 0
    for token in moves_text.split():
        if token in _RESULT_TOKENS:
            break
        token = _NUMBER_RE.sub("", token)
        token = _SUFFIX_RE.sub("", token)
        if not token or token.startswith("$"):
            continue
        count += 1
        try:
            state = engine.play(state, token)
        except IllegalMove as exc:
            raise BadPosition(f"record move {count} ({token!r}) is illegal: {exc}") from exc
        except EngineError as exc:  # pragma: no cover - play raises only IllegalMove
            raise BadPosition(str(exc)) from exc
    return state
