"""The profile card's totals by game with each variant's under a game played in more than one:
read from a real server whose database holds games of two custom variants, two draughts
variants and chess (names as the server's list of games gives them, indented under their
game), and from a fixed answer of an older server without ``by_variant`` (one line per game,
as before) or with garbage in it; drawn at 1280x800 and 640x480."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from client.local import EmbeddedServer
from client.profile import KindRow
from client.scenes.lobby import LobbyScene
from client.ui import theme
from server.glicko2 import Rating
from server.outputs import SaveGame, SaveIdentity, SaveRatings, StorageOp
from server.ratings import NewRating
from server.storage import Storage
from tests.client.helpers import FixedAnswer, fixed_http, open_app, pump
from tests.client.lobby_tools import top_tab
from tests.client.profile_tools import card_answering, card_of, look, seeded_server_app
from tests.client.window_tools import on_window, render_at

GAMES = [
    ("custom", "xiangqi", "first"),
    ("custom", "xiangqi", "second"),
    ("custom", "xiangqi", "draw"),
    ("custom", "stones", "first"),
    ("draughts", "brazilian", "first"),
    ("draughts", "brazilian", "first"),
    ("draughts", "international", None),
    ("chess", "standard", "second"),
    ("chess", "standard", "first"),
]
"""Vera's games (she sits first): game, variant, result."""


def _seed_variants(db: Path) -> None:
    """Vera's finished games of :data:`GAMES` and two rating pools, stored as the server
    stores them."""
    storage = Storage(db)
    ops: list[StorageOp] = [
        SaveIdentity("p-vera", "hash-vera", "Vera"),
        SaveIdentity("p-olga", "hash-olga", "Olga"),
    ]
    for n, key in enumerate(["custom/xiangqi", "draughts/brazilian"]):
        rating = Rating(1600 - 50 * n, 150.0, 0.06, 3 - n, updated=time.time())
        ops.append(SaveRatings(f"r{n}", key, (NewRating("p-vera", Rating(), rating),)))
    seats = {
        "first": {"player": "p-vera", "name": "Vera", "bot": False},
        "second": {"player": "p-olga", "name": "Olga", "bot": False},
    }
    for n, (game, variant, result) in enumerate(GAMES):
        ops.append(
            SaveGame(
                {
                    "id": f"g{n}",
                    "room": f"R{n}",
                    "game": game,
                    "variant": variant,
                    "status": "over",
                    "private": False,
                    "seats": seats,
                    "result": result,
                    "reason": "aborted" if result is None else "resign",
                    "created": f"2026-11-{n + 1:02d}T18:05:09Z",
                    "ended": f"2026-11-{n + 1:02d}T18:30:00Z",
                }
            )
        )
    storage.apply(ops)
    storage.close()


def _rows(kinds: list[KindRow]) -> list[tuple[Any, ...]]:
    return [(k.label, k.nested, k.games, k.won, k.lost, k.drawn, k.aborted) for k in kinds]


def test_a_real_servers_variants_under_their_games(tmp_path: Path) -> None:
    """Vera played Xiangqi and River Stones, Brazilian and International draughts (that one
    aborted) and chess: the card lists Custom variants, Draughts and Chess, most games first,
    with each custom variant under its game (most games first, named as the lobby names
    them); draughts and chess alone (one draughts variant has a result: an only-aborted one
    would be a row of noughts); every row is shown (no scrolling: two pools leave the totals
    their room), the variants' names indented, muted, inside the card at both sizes."""
    with seeded_server_app(tmp_path, _seed_variants) as alice:
        top_tab(alice).open_profile("p-vera", "Vera")
        card = card_of(alice)
        assert card.summary is not None
        assert _rows(card.summary.kinds) == [
            ("Custom variants", False, 4, 2, 1, 1, 0),
            ("Xiangqi", True, 3, 1, 1, 1, 0),
            ("River Stones", True, 1, 1, 0, 0, 0),
            ("Draughts", False, 2, 2, 0, 0, 1),
            ("Chess", False, 2, 1, 1, 0, 0),
        ]
        assert [p.label for p in card.summary.pools] == ["Xiangqi", "Brazilian draughts"]
        assert card.kinds.visible_rows() == 5 and len(card.kinds.rows) == 5
        look(alice, card, "profile-variants", tmp_path)
        for size in ((1280, 800), (640, 480)):
            lines = render_at(alice, size, "profile-variants-indent")
            area = on_window(card.kinds.rect, size)
            found = {
                value: (rect, item.color) for item, value, rect in lines if area.contains(rect)
            }
            assert "International draughts" not in found and "International" not in found
            assert found["Xiangqi"][0].left > found["Custom variants"][0].left, size
            assert found["River Stones"][0].left == found["Xiangqi"][0].left, size
            assert found["Chess"][0].left == found["Custom variants"][0].left, size
            assert found["River Stones"][1] == theme.MUTED, size
            assert found["Draughts"][1] == theme.TEXT, size


def _answer(**extra: Any) -> bytes:
    """A ``/players/p-x`` answer of an older server (no ``by_variant``), with ``extra``."""
    counts = {"games": 3, "wins": 1, "losses": 1, "draws": 1, "aborted": 0}
    return json.dumps(
        {
            "player": "p-x",
            "name": "Xena",
            "first_seen": "2026-11-01T10:00:00Z",
            "last_seen": "2026-11-20T10:00:00Z",
            "ratings": [],
            "totals": {**counts, "games": 6, "wins": 2, "losses": 2, "draws": 2},
            "by_game": {"draughts": counts, "custom": counts},
            "recent": [],
            **extra,
        }
    ).encode()


def _variant(game: Any, variant: Any, games: int) -> dict[str, Any]:
    return {
        "key": f"{game}/{variant}",
        "game": game,
        "variant": variant,
        "games": games,
        "wins": games,
        "losses": 0,
        "draws": 0,
        "aborted": 0,
    }


def test_an_older_servers_answer_and_garbage_variants_keep_one_line_a_game(
    tmp_path: Path,
) -> None:
    """An answer without ``by_variant`` shows one line a game as before; so do one whose
    ``by_variant`` is not a list, or has one variant a game, or only garbage entries and a
    variant of a game it has no totals for; a variant the server's list does not name is
    named by its id."""
    server = EmbeddedServer(db=tmp_path / "games.db").start()
    alice = open_app(tmp_path, "Alice", server.url)
    before = [("Draughts", False, 3, 1, 1, 1, 0), ("Custom variants", False, 3, 1, 1, 1, 0)]
    try:
        pump(alice, lambda: isinstance(alice.top, LobbyScene))
        lobby = top_tab(alice)
        answer = FixedAnswer(200, _answer(), "application/json")
        with fixed_http(answer):
            card = card_answering(alice, lobby, answer)
            assert card.summary is not None and _rows(card.summary.kinds) == before
            look(alice, card, "profile-variants-old", tmp_path)
            garbage: list[Any] = [
                _variant("custom", "xiangqi", 3),
                _variant("draughts", "russian", 3),
                _variant("chess", "standard", 1),
                _variant("chess", "fischer", 1),
                _variant(5, "x", 1),
                _variant("custom", None, 2),
                "nope",
                None,
                [1],
            ]
            for by_variant in ("not a list", {"custom": 3}, garbage):
                answer.body = _answer(by_variant=by_variant)
                card.close()
                card = card_answering(alice, lobby, answer)
                assert card.summary is not None
                assert _rows(card.summary.kinds) == before, by_variant

            answer.body = _answer(by_variant=[*garbage, _variant("custom", "gone", 1)])
            card.close()
            card = card_answering(alice, lobby, answer)
            assert card.summary is not None
            assert [(k.label, k.nested) for k in card.summary.kinds] == [
                ("Draughts", False),
                ("Custom variants", False),
                ("Xiangqi", True),
                ("gone", True),
            ]
    finally:
        alice.disconnect()
        server.stop()
