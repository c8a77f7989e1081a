"""A variant author tries their file without a server: ``boardhall local --game custom --variant
my.toml`` plays it on this computer and ``boardhall screenshot ... --variant my.toml`` draws it;
a file with a mistake stops either at once with the file, the place and what was wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest

from client.app import App
from client.config import Config
from client.local import EmbeddedServer, run_local, start_local
from client.scenes.room import RoomScene
from engines.registry import get, variant_or_file
from tests.client.conftest import SHOTS, FakeClock
from tests.client.helpers import pump, room_of
from tests.client.slide_tools import finish_slide
from tests.client.window_tools import window_shot
from tests.engines.test_custom_author import SKIRMISH

AUTHORED = SKIRMISH.replace('name = "Skirmish"', 'id = "author-file"\nname = "Author File"')


@pytest.fixture(name="variant_file")
def variant_file_fixture(tmp_path: Path) -> Path:
    """The author's 4x4 variant, written as FORMAT.md describes."""
    path = tmp_path / "my variant.toml"
    path.write_text(AUTHORED, encoding="utf-8")
    return path


@pytest.mark.parametrize("bot", [None, "1"], ids=["hot-seat", "computer"])
def test_a_local_game_plays_the_variant_file(
    embedded: EmbeddedServer, variant_file: Path, bot: str | None
) -> None:
    """The file's path is read, its variant registered in this process (the embedded server's),
    and the local room plays it: the file's red pawn at 3,3 steps up to 2,3, the computer (a
    process of its own, which learns the variant from the room) answers, and the room names the
    file's variant and draws its pieces (saved as variant-file-local-*.png)."""
    variant = variant_or_file(get("custom"), str(variant_file))
    assert variant == "author-file"
    clock = FakeClock()
    app = App(Config(persist=False), headless=True, clock=clock)
    try:
        start_local(app, embedded, "custom", variant, bot)
        pump([app], lambda: bool(app.find(RoomScene)) and room_of(app).model.status == "playing")
        room = room_of(app)
        assert room.model.variant == "author-file"
        room.send_move("3,3-2,3")
        pump([app], lambda: room.model.moves[:1] == ["3,3-2,3"])
        if bot:
            pump([app], lambda: len(room.model.moves) == 2, timeout=60)
        finish_slide(app, clock, room.slides)
        _, drawn = window_shot(app, (1280, 800), f"variant-file-local-{bot or 'hotseat'}")
        texts = [item.value for item, _ in drawn]
        assert "Author File" in texts and "3,3-2,3" in texts, texts
    finally:
        app.disconnect()


def test_boardhall_local_refuses_a_broken_file_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No window opens: the command says which file, where and what, and exits 2."""
    path = tmp_path / "broken.toml"
    path.write_text(AUTHORED.replace('"4 5 6 .",', '"4 5 6",'), encoding="utf-8")
    assert run_local("custom", str(path), None) == 2
    said = capsys.readouterr()
    assert "broken.toml: 1 problem" in said.out + said.err
    assert "board.layout row 1: has 3 cells, board.cols is 4" in said.out + said.err


def screenshot_of(variant: Path, name: str, *options: str) -> tuple[int, Path]:
    """``boardhall screenshot --game custom --variant VARIANT`` with ``options``, written to
    SHOTS/NAME.png: the exit status and the picture's path."""
    from client.cli import main

    SHOTS.mkdir(parents=True, exist_ok=True)
    out = SHOTS / f"{name}.png"
    argv = ["screenshot", "--game", "custom", "--variant", str(variant), "--out", str(out)]
    return main([*argv, *options]), out


def test_boardhall_screenshot_draws_the_variant_file(
    variant_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``boardhall screenshot --game custom --variant FILE`` renders the file's board; a missing
    file is named with why it cannot be read."""
    status, out = screenshot_of(variant_file, "variant-file-screenshot", "--size", "900x600")
    assert status == 0 and pygame.image.load(str(out)).get_size() == (900, 600)
    assert screenshot_of(variant_file.with_name("missing.toml"), "missing")[0] == 2
    assert "missing.toml: 1 problem:\n  - cannot read the file" in capsys.readouterr().err


def test_an_id_is_still_an_id(variant_file: Path) -> None:
    """Names that are not files stay variant ids (for every game), paths are only read for the
    engine that loads files."""
    assert variant_or_file(get("custom"), "stones") == "stones"
    assert variant_or_file(get("custom"), None) is None
    assert variant_or_file(get("draughts"), str(variant_file)) == str(variant_file)


def board_of(rows: int, cols: int) -> str:
    """AUTHORED on a ``rows`` x ``cols`` board: rooks, a king and pawns on each side's edge."""

    def row(cells: list[str]) -> str:
        return '"' + " ".join(cells) + '",'

    edge = ["4"] * (cols - 1) + ["6"]
    layout = [row(edge), row(["5"] * cols)]
    layout += [row(["."] * cols)] * (rows - 4)
    layout += [row(["2"] * cols), row(["3"] + ["1"] * (cols - 1))]
    text = AUTHORED.replace("rows = 4", f"rows = {rows}").replace("cols = 4", f"cols = {cols}")
    start = text.index("layout = [")
    end = text.index("]\n", start)
    labels = {f'name = "{n}"\n': f'name = "{n}"\nlabel = "{n[0]}"\n' for n in ("Rook", "Pawn")}
    text = text[:start] + "layout = [\n" + "\n".join(layout) + "\n" + text[end:]
    for name, labelled in labels.items():
        text = text.replace(name, labelled)
    return text.replace('id = "author-file"', f'id = "author-{rows}x{cols}"')


@pytest.mark.parametrize(
    ("rows", "size", "shown"),
    [
        (20, "800x600", {"R", "P", "King"}),
        (20, "1280x800", {"R", "P", "King"}),
        (6, "800x600", {"Rook", "Pawn", "King"}),
    ],
)
def test_small_discs_show_the_label_instead_of_an_unreadable_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: int, size: str, shown: set[str]
) -> None:
    """On a 20x20 board a disc is about 13 px across its radius: 'Rook' was scaled down to text
    4 px high at 800x600 (variant-file-20x20-800x600.png before), unreadable. Where the disc is
    that small, a piece with a label shows the label ('R'); the king, without one, keeps its
    name; a 6x6 board keeps the names."""
    import client.boards.custom as board

    path = tmp_path / "big.toml"
    path.write_text(board_of(rows, rows), encoding="utf-8")
    written: set[str] = set()
    sprite = board._piece_sprite

    def noted(*args: Any) -> Any:
        written.add(args[4])
        return sprite(*args)

    monkeypatch.setattr(board, "_piece_sprite", noted)
    name = f"variant-file-{rows}x{rows}-{size}"
    assert screenshot_of(path, name, "--plies", "0", "--size", size)[0] == 0
    assert written == shown
