"""The room's side panel: title, player cards (clock, connection, score, captured pieces),
the move list, the chat and the action buttons. Drawing only: it reads the room scene."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

import pygame

from client.annotations import CaptureTracker, material_edge, sort_key
from client.chat_mute import can_mute
from client.moves import shortened_path
from client.premove import describe
from client.room_model import RoomModel, clock_text, format_clock, options_text
from client.ui import draw, fonts, theme
from client.ui.widgets import Button

if TYPE_CHECKING:
    from client.boards.base import BoardView
    from client.scenes.room import RoomScene

MOVES_RECT = pygame.Rect(800, 264, 464, 150)
CHAT_RECT = pygame.Rect(800, 422, 464, 146)
MESSAGE_RECT = pygame.Rect(800, 422, 464, 48)
"""Messages go beside the board (over the top of the chat), never over the pieces."""
LOCAL_MOVES_PANEL = pygame.Rect(800, 264, 464, 304)
"""A local game has no chat: its move list's panel takes the chat box's place too."""
LOCAL_MOVES_RECT = pygame.Rect(800, 264, 464, 248)
"""Where a local game's moves go: the panel's top, above :data:`LOCAL_MESSAGE_RECT`."""
LOCAL_MESSAGE_RECT = pygame.Rect(806, 514, 452, 48)
"""Where a local game's messages go: at the bottom of the move list's panel, under the moves."""
MOVE_COLUMNS = 2
"""The move list shows two moves per line (one wide move in :data:`WIDE_MOVES` games)."""
MOVE_STEP = 22
"""Pixels from one line of the move list to the next."""
WIDE_MOVES = frozenset({"shuqi"})
"""Games whose moves can be long (number chess's spans with their expressions,
``7,0-7,14=1+2+3+4+5-6``): their move list has one column of lines, twice as wide, so such a
move is read whole even in a small window."""
PANEL_X = 800
PANEL_W = 464
STATUS_SIZE = 17
PREMOVE_TEXT = (196, 160, 240)
"""The status line's words about a premove: the violet of the premove's marks, made readable
on the dark panel."""


def move_columns(game: str) -> int:
    """How many columns of lines the room's move list has for ``game``."""
    return 1 if game in WIDE_MOVES else MOVE_COLUMNS


def coordinates_word(game: str | None) -> str:
    """What the coordinates toggle (K) is called for ``game``, in a room and in a replay:
    draughts numbers its squares, the other boards have coordinates."""
    return "Numbers" if game == "draughts" else "Coords"


def draw_panel(room: RoomScene, surface: pygame.Surface) -> None:
    """Title, player cards with clocks, move list, chat and buttons."""
    m = room.model
    x = PANEL_X
    title, variant = room.titles()
    subtitle = theme.game_subtitle(m.game, m.variant_info, m.variant)
    if variant == subtitle:
        variant = ""  # a custom variant's name: said under the title
    draw.text(surface, f"{title}{' · ' + variant if variant else ''}", (x, 18), 24,
              max_width=300)
    scale = room.app.viewport()[0]
    beside = 0  # the subtitle's width: the clock line and the room's limits take the rest
    if subtitle and fonts.can_show(subtitle):
        draw.text(surface, subtitle, (x, 58), 20, theme.MUTED, "midleft", 200)
        beside = min(200, draw.text_extent(subtitle, 20, scale)) + 16
    local = room.app.plays_locally
    if not local:  # nobody can join a game on this computer: no code to tell
        draw.text(surface, f"Room {m.room}{' · private' if m.private else ''}",
                  (x + PANEL_W, 24), 15, theme.MUTED, "topright")
    rules = options_text(m.options, room.option_defaults())
    draw.text(surface, f"Clock: {clock_text(m.clock)}{' · ' + rules if rules else ''}",
              (x + PANEL_W, 58), 14, theme.MUTED, "midright", PANEL_W - beside)
    bottom = room.bottom_seat()
    top = "second" if bottom == "first" else "first"
    draw_player(room, surface, top, pygame.Rect(x, 74, PANEL_W, 72))
    draw_player(room, surface, bottom, pygame.Rect(x, 154, PANEL_W, 72))
    watching = watching_text(room)
    draw.text(surface, watching, (x + PANEL_W, 244), 14, theme.MUTED, "midright")
    status_w = PANEL_W - draw.text_extent(watching, 14, scale) - 16
    left = x
    for text, color in status_parts(room, status_w, scale):
        draw.text(surface, text, (left, 244), STATUS_SIZE, color, "midleft", x + status_w - left)
        left += draw.text_extent(text, STATUS_SIZE, scale)
    draw_moves(room, surface, moves_rect(room), LOCAL_MOVES_PANEL if local else None)
    if not local:
        draw_chat(room, surface, chat_rect(room))
    room.chat_field.draw(surface)
    for b in room.buttons():
        b.draw(surface)


def moves_rect(room: RoomScene) -> pygame.Rect:
    """Where the move list goes: :data:`MOVES_RECT`, or in a local game (no chat)
    :data:`LOCAL_MOVES_RECT`."""
    return LOCAL_MOVES_RECT if room.app.plays_locally else MOVES_RECT


def move_rows_in(rect: pygame.Rect) -> int:
    """How many lines a move list in ``rect`` shows per column."""
    return (rect.height - 18) // MOVE_STEP


def watching_text(room: RoomScene) -> str:
    """``3 watching · ping 24 ms``, ``room closed`` once everyone has left; while the count is
    not known (the connection is down, or back without the server's count yet) no count."""
    m = room.model
    unknown = m.spectators is None or room.app.plays_locally  # nobody can watch a local game
    parts = ["room closed" if m.closed else "" if unknown else f"{m.spectators} watching"]
    if room.app.rtt_ms is not None and not room.app.local_server and room.online:
        parts.append(f"ping {room.app.rtt_ms} ms")
    return " · ".join(p for p in parts if p)


def status_parts(room: RoomScene, width: int, scale: float) -> list[tuple[str, theme.Color]]:
    """The status line in coloured parts, the longest form that fits ``width`` at the window's
    ``scale``: whose turn it is; while browsing, which position is shown (after "Your move"
    when the user has to move); with a premove set, the premove and how to cancel it; else
    the room's status line (a waiting room's code kept whole)."""
    m = room.model
    base = (room.status_line(), room.status_color())
    options: list[list[tuple[str, theme.Color]]] = []
    if room.browse.active:  # an earlier position is on the board: say which, and how back
        lines = room.browse.lines(m, room.move_rows())
        if m.status == "playing" and room.online and base[1] == theme.GOOD:  # ours to move
            options += [[(f"{base[0]} · ", base[1]), (line, theme.ACCENT)] for line in lines]
        options += [[(line, theme.ACCENT)] for line in lines]
    elif room.premoves.move is not None and room.premove_mode():
        said = describe(m.game, room.premoves.move)
        tails = [f"Premove: {said} · Esc cancels", f"Premove: {said} · Esc", f"Premove: {said}"]
        options += [[(f"{base[0]} · ", base[1]), (tails[0], PREMOVE_TEXT)]]
        options += [[(tail, PREMOVE_TEXT)] for tail in tails]
    else:
        options += [[(form, base[1])] for form in room.status_forms()]
    return next((parts for parts in options
                 if sum(draw.text_extent(t, STATUS_SIZE, scale) for t, _ in parts) <= width),
                options[-1])


def draw_player(room: RoomScene, surface: pygame.Surface, seat: str, rect: pygame.Rect) -> None:
    """A player card: colour, name, connection, score, and the clock."""
    m = room.model
    active = m.status == "playing" and m.turn == seat
    draw.panel(surface, rect, theme.PANEL_HI if active else theme.PANEL,
               theme.ACCENT if active else theme.BORDER)
    draw.stone(surface, (rect.left + 24, rect.centery), 11, seat, m.game)
    info = m.seats.get(seat) or {}
    name = m.name_of(seat)
    width = rect.width - 210
    rating = "" if room.app.plays_locally else card_name(m, seat)[len(name):]
    if seat == m.you and not room.app.seat_connections:  # hot-seat: both seats are "you"
        # a long name is cut, never the "(you)" that says which card is ours, nor the rating
        name = fonts.fit_keeping(name, rating + " (you)", 19, width)
    elif rating:
        name = fonts.fit_keeping(name, rating, 19, width)
    draw.text(surface, name, (rect.left + 46, rect.top + 14), 19, theme.TEXT, max_width=width)
    details = []
    # a closed room's presence is stale (nobody is in it any more), and so is everyone's
    # while our own connection is down
    known = not m.closed and room.online
    connected = bool(info) and known and info.get("connected", True)
    local = room.app.plays_locally  # both players are on this computer: always there
    if info:
        if known and not local:
            details.append("online" if connected else "away")
        if info.get("bot"):
            details.append("bot")
    if m.scores and seat in m.scores:
        details.append(f"score {m.scores[seat]}")
    elif m.game == "shuqi" and m.state is not None and m.engine is not None:
        with contextlib.suppress(Exception):
            details.append(f"score {m.engine.scores(m.state)[seat]}")  # type: ignore[attr-defined]
    if not local:
        dot = theme.GOOD if connected else theme.FAINT
        draw.disc(surface, dot, (rect.left + 50, rect.top + 50), 4)
    detail_text = " · ".join(details) or ("" if local else "—")
    left = rect.left + (46 if local else 60)  # no presence dot locally
    draw.text(surface, detail_text, (left, rect.top + 50), 14,
              theme.MUTED, "midleft", rect.width - 220)
    left += 12 + draw.text_extent(detail_text, 14, room.app.viewport()[0])
    draw_captured(surface, room.view, m.game, room.captures, seat,
                  pygame.Rect(left, rect.top + 38, rect.right - 150 - left, 24))
    now = room.now
    remaining = m.remaining_ms(seat, now)
    per_move_limit = m.clock.get("per_move") if isinstance(m.clock, dict) else None
    if remaining is None and isinstance(per_move_limit, int) and per_move_limit > 0:
        # Per-move clock only: the mover's clock shows what is left of this move (at the end,
        # what was left when it ended).
        moving = active or (m.status == "over" and seat == m.turn and m.move_ms(now) is not None)
        remaining = m.move_ms(now) if moving else per_move_limit * 1000
    clock = format_clock(remaining) if m.clocks else "—"
    low = remaining is not None and remaining < 10_000 and active
    clock_rect = pygame.Rect(rect.right - 140, rect.top + 10, 128, rect.height - 20)
    draw.panel(surface, clock_rect, theme.INPUT_BG if not active else (24, 36, 52),
               theme.BAD if low else (theme.ACCENT if active else theme.BORDER))
    draw.text(surface, clock, clock_rect.center, 28, theme.BAD if low else theme.TEXT,
              "center")
    per_move = m.move_ms(now)
    limit = (m.clock.get("per_move") or 0) * 1000 if isinstance(m.clock, dict) else 0
    if active and per_move is not None and isinstance(limit, int) and limit > 0:
        frac = max(0.0, min(1.0, per_move / limit))
        bar = pygame.Rect(clock_rect.left, clock_rect.bottom + 3, int(clock_rect.width * frac),
                          3)
        pygame.draw.rect(surface, theme.WARN if frac < 0.3 else theme.ACCENT, bar)


def card_name(m: RoomModel, seat: str) -> str:
    """A player card's name line: the name, the rating ("Alice 1523", "Bob 1500?") and, after
    a rated game, its change ("Alice 1535 +12")."""
    return " ".join(
        part for part in (m.name_of(seat), m.rating_text(seat), m.rating_change(seat)) if part
    )


def draw_captured(surface: pygame.Surface, view: BoardView | None, game: str,
                  captures: CaptureTracker, seat: str, rect: pygame.Rect) -> None:
    """The pieces ``seat`` has captured (same kinds overlapping), then chess's material edge.

    Shared by the room's player cards and the replay."""
    codes = sorted(captures.captured.get(seat, []), key=lambda c: sort_key(game, c))
    edge = material_edge(game, captures.pieces).get(seat)
    if view is None or rect.width < 30 or not (codes or edge):
        return
    size = rect.height
    groups: list[tuple[str, int]] = []
    for code in codes:
        if groups and groups[-1][0] == code:
            groups[-1] = (code, groups[-1][1] + 1)
        else:
            groups.append((code, 1))
    edge_w = fonts.text_width(f"+{edge}", 14) + 6 if edge else 0
    step, gap = size * 0.6, size * 0.3
    need = sum(size + (n - 1) * step for _, n in groups) + gap * max(0, len(groups) - 1)
    space = max(1.0, rect.width - edge_w)
    squeeze = min(1.0, space / need) if need else 1.0
    x = float(rect.left)
    for code, n in groups:
        icon = view.piece_icon(code, size)
        for _ in range(n):
            if icon is not None:
                surface.blit(icon, icon.get_rect(midleft=(round(x), rect.centery)))
            x += step * squeeze
        x += (size - step + gap) * squeeze
    if edge:
        draw.text(surface, f"+{edge}", (round(x - gap * squeeze + 4), rect.centery), 14,
                  theme.MUTED, "midleft")


MoveSpot = tuple[int | None, str, pygame.Rect]
"""A move drawn in the move list: its ply (``None``: the "…" before a second side's first
move), its text and the cell it is drawn in."""


def move_spots(room: RoomScene, rect: pygame.Rect) -> list[tuple[str, tuple[int, int],
                                                                 list[MoveSpot]]]:
    """Where the move list draws its lines (scrolled as the room says): each line's number,
    where the number goes, and its moves' cells."""
    lines = room.move_rows()
    per_col, cols = move_rows_in(rect), move_columns(room.model.game)
    end = len(lines) - room.move_scroll
    room_for = per_col * cols - result_rows(room)
    shown = lines[max(0, end - room_for):end]
    col_w = rect.width // cols
    # the numbers' column fits the widest number as drawn (wider in a small window), and each
    # move keeps a gap before the next, so "9,8=0*3" and "6,7-5,8" never read as one
    num_w = max(34, fonts.text_width(f"{shown[-1][0] if shown else 1}.", 14) + 8)
    move_w = (col_w - num_w - 12) // 2
    laid = []
    for j, (n, cells) in enumerate(shown):
        cx, cy = line_origin(rect, per_col, col_w, j)
        spots = [(ply, text, pygame.Rect(cx + num_w + k * move_w, cy - 3, move_w - 4, MOVE_STEP))
                 for k, (ply, text) in enumerate(cells)]
        laid.append((f"{n}.", (cx, cy), spots))
    return laid


def line_origin(rect: pygame.Rect, per_col: int, col_w: int, line: int) -> tuple[int, int]:
    """Where the move list's ``line`` (counted from the first shown) starts."""
    return rect.left + 10 + (line // per_col) * col_w, rect.top + 8 + (line % per_col) * MOVE_STEP


def result_rows(room: RoomScene) -> int:
    """Lines the move list keeps under its last move for the result: one once the game is over
    and the list shows its end, else none."""
    return int(room.model.status == "over" and room.move_scroll == 0 and bool(room.shown_moves()))


def score_text(game: str, result: str | None, reason: str | None) -> str:
    """The result as records write it: 1-0, 0-1, 1/2-1/2 (PGN; draughts counts a win 2, as
    PDN does: 2-0, 0-2, 1-1), "aborted" for an aborted game, else "*"."""
    if result not in ("first", "second", "draw"):
        return "aborted" if reason == "aborted" else "*"
    win, half = ("2", "1") if game == "draughts" else ("1", "1/2")
    return {"first": f"{win}-0", "second": f"0-{win}", "draw": f"{half}-{half}"}[result]


def ply_at(room: RoomScene, pos: tuple[int, int]) -> int | None:
    """The ply of the move drawn at ``pos`` in the move list (``None``: no move there)."""
    rect = moves_rect(room)
    if not rect.collidepoint(pos) or not room.shown_moves():
        return None
    for _, _, spots in move_spots(room, rect):
        for ply, _, cell in spots:
            if ply is not None and cell.collidepoint(pos):
                return ply
    return None


def draw_moves(room: RoomScene, surface: pygame.Surface, rect: pygame.Rect,
               panel: pygame.Rect | None = None) -> None:
    """The move list in ``rect`` (on a ``panel`` around it when given), two moves per line,
    scrolled to the end; the move whose position the board shows is in the accent colour (the
    last one, or the one browsed to)."""
    draw.panel(surface, panel or rect, theme.INPUT_BG)
    moves = room.shown_moves()
    if not moves:
        draw.text(surface, "No moves yet.", (rect.left + 12, rect.top + 10), 15, theme.FAINT)
        return
    if room.browse.active:
        current = room.browse.index(room.model) - 1
    else:
        current = len(moves) - 1 if room.move_scroll == 0 else -1
    laid = move_spots(room, rect)
    for number, at, spots in laid:
        draw.text(surface, number, at, 14, theme.FAINT)
        for ply, text, cell in spots:
            if room.model.game == "draughts":  # a long capture path keeps its end in view
                text = shortened_path(text, fits_in(cell.width - 6, 15))
            color = (theme.ACCENT if ply == current else theme.FAINT if ply is None
                     else theme.TEXT)
            draw.text(surface, text, (cell.left, cell.top + 3), 15, color,
                      max_width=cell.width - 6)
    if result_rows(room):  # the line after the last move
        per_col, cols = move_rows_in(rect), move_columns(room.model.game)
        x, y = line_origin(rect, per_col, rect.width // cols, len(laid))
        if laid and laid[-1][2] and len(laid) % per_col:  # under the moves, not the numbers
            x = laid[-1][2][0][2].left
        m = room.model
        draw.text(surface, score_text(m.game, m.result, m.reason), (x, y), 15, theme.MUTED)


def fits_in(width: int, size: int) -> Callable[[str], bool]:
    """Whether a text of ``size`` shows within ``width`` logical pixels (as laid out now)."""
    return lambda text: fonts.displayed_size(text, size)[0] <= width


CHAT_SIZE = 14
"""The chat's text size."""
CHAT_ENTRIES = 40
"""The newest entries the chat lays out (more than it can show, so a pick can go back)."""


def chat_rect(room: RoomScene) -> pygame.Rect:
    """Where the chat lines go: :data:`CHAT_RECT`, below the message when one is shown (the
    message sits at the chat's top; the chat keeps its newest lines)."""
    chat = CHAT_RECT.copy()
    if room.message:
        chat.top = room.message_rect().bottom + 6
        chat.height = CHAT_RECT.bottom - chat.top
    return chat


ChatRow = tuple[int, str, theme.Color, int]
"""A drawn chat row: the index of its entry in :meth:`RoomScene.chat_shown`, its text, colour
and top."""


def chat_rows(room: RoomScene, rect: pygame.Rect) -> list[ChatRow]:
    """The chat rows shown in ``rect``: the newest ones, or, while a line is picked that the
    newest would leave out, the ones ending with it."""
    entries = room.chat_shown()
    start = max(0, len(entries) - CHAT_ENTRIES)
    picked = room.picked_entry()
    if picked is not None:
        start = min(start, picked)
    label = mute_label(room)
    rows: list[tuple[int, str, theme.Color]] = []
    for n in range(start, len(entries)):
        entry = entries[n]
        color = theme.MUTED if entry.hidden or entry.role == "spectator" else theme.TEXT
        width = rect.width - 20
        if n == picked and label:  # the button sits at the end of its first row
            width -= button_width(label) + 6
        for part in fonts.wrap(entry.words(), CHAT_SIZE, width):
            rows.append((n, part, color))
    step = fonts.line_step(CHAT_SIZE, 5)
    room_for = max(1, (rect.height - 10) // step)
    end = len(rows)
    if picked is not None:  # the picked entry in view: at the top when the newest rows hide it
        first = next((i for i, row in enumerate(rows) if row[0] == picked), 0)
        end = min(end, max(first + room_for, 1))
    shown = rows[max(0, end - room_for):end]
    return [(n, text, color, rect.top + 8 + i * step) for i, (n, text, color) in enumerate(shown)]


def chat_spots(room: RoomScene) -> list[tuple[int, pygame.Rect]]:
    """Each entry shown in the chat with the area its rows cover (for clicks)."""
    rect = chat_rect(room)
    step = fonts.line_step(CHAT_SIZE, 5)
    spots: dict[int, pygame.Rect] = {}
    for n, _, _, top in chat_rows(room, rect):
        row = pygame.Rect(rect.left + 4, top - 3, rect.width - 8, step)
        spots[n] = spots[n].union(row) if n in spots else row
    return list(spots.items())


def chat_entry_at(room: RoomScene, pos: tuple[int, int]) -> int | None:
    """The index of the chat entry drawn at ``pos`` (``None``: none there)."""
    return next((n for n, spot in chat_spots(room) if spot.collidepoint(pos)), None)


BUTTON_SIZE = 13
"""The text size of the Mute button."""


def mute_label(room: RoomScene) -> str:
    """The picked chat line's button label: "Mute NAME", or "Unmute NAME" when that player is
    muted ("" while no line of someone else is picked)."""
    picked = room.picked_entry()
    if picked is None:
        return ""
    entry = room.chat_shown()[picked]
    if not can_mute(entry, room.app.player_id):
        return ""
    verb = "Unmute" if entry.player in room.muted_ids() else "Mute"
    return fonts.fit(f"{verb} {entry.sender}", BUTTON_SIZE, 170)


def button_width(label: str) -> int:
    """How wide the Mute button is with ``label``."""
    return fonts.text_width(label, BUTTON_SIZE) + 20


def mute_button(room: RoomScene) -> Button | None:
    """The button at the end of the picked chat line (``None`` while no line of someone else
    is picked, or it is not in view)."""
    label = mute_label(room)
    picked = room.picked_entry()
    spot = next((r for n, r in chat_spots(room) if n == picked), None)
    if not label or spot is None:
        return None
    rect = pygame.Rect(0, 0, button_width(label), fonts.line_step(CHAT_SIZE, 5))
    rect.topright = (spot.right, spot.top)
    return Button(rect, label, "mute", size=BUTTON_SIZE, primary=True,
                  hover=rect.collidepoint(room.mouse))


def draw_chat(room: RoomScene, surface: pygame.Surface, rect: pygame.Rect) -> None:
    """The last chat lines (a muted player's as one line saying how many are hidden), the
    picked line highlighted with its Mute button."""
    draw.panel(surface, rect, theme.INPUT_BG)
    rows = chat_rows(room, rect)
    if not rows:
        draw.text(surface, "No messages yet.", (rect.left + 10, rect.top + 8), CHAT_SIZE,
                  theme.FAINT)
        return
    picked = room.picked_entry()
    for n, spot in chat_spots(room):
        if n == picked:
            draw.panel(surface, spot, theme.PANEL_HI, theme.ACCENT)
    for _, text, color, top in rows:
        draw.text(surface, text, (rect.left + 10, top), CHAT_SIZE, color)
    button = mute_button(room)
    if button is not None:
        button.draw(surface)
