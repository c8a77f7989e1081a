"""``--variants DIR`` as a variant author fills it: files the server does not read are said, not
silently passed over."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from server.net import running_server
from server.testing import WireClient
from tests.engines.test_custom_author import SKIRMISH


async def test_files_that_look_like_variant_files_but_are_not_read_are_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Windows hides known endings, so Notepad's 'river.toml' is river.toml.txt on disk, and an
    old Excel workbook is .xls: the server started without them and said nothing, and the author
    looked for their variant in the lobby in vain. Each is now named in a warning with what to
    do; the readable variant is offered as before, and other files (a README) pass unsaid."""
    (tmp_path / "ok.toml").write_text(SKIRMISH.replace("format", 'id = "dir-ok"\nformat'))
    (tmp_path / "river.toml.txt").write_text(SKIRMISH, encoding="utf-8")
    (tmp_path / "old map.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    (tmp_path / "README.md").write_text("my variants", encoding="utf-8")
    caplog.set_level(logging.INFO, logger="boardhall.server")
    async with running_server(port=0, variants=tmp_path) as server:
        ann = await WireClient.connect(server.url, "ann")
        custom = next(g for g in ann.welcome["games"] if g["game"] == "custom")
        assert "dir-ok" in [v["id"] for v in custom["variants"]]
        await ann.close()
    warned = [
        (r.getMessage(), getattr(r, "fields", None))
        for r in caplog.records
        if r.levelno == logging.WARNING
    ]
    how = "a variant file's name ends in .toml or .xlsx"
    assert warned == [
        (
            "variant file not read",
            {"file": "old map.xls", "why": f"{how} (save an .xls or .ods workbook as .xlsx)"},
        ),
        (
            "variant file not read",
            {
                "file": "river.toml.txt",
                "why": f"{how} (Windows may hide a .txt ending: rename the file)",
            },
        ),
    ]


async def test_a_promotion_that_can_never_happen_is_warned_of(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The variant is offered, and the start log says its pawn's promote_when is never used."""
    text = SKIRMISH.replace("format", 'id = "dir-nopromo"\nformat')
    (tmp_path / "v.toml").write_text(text.replace("promotion = true", "promotion = false"))
    caplog.set_level(logging.INFO, logger="boardhall.server")
    async with running_server(port=0, variants=tmp_path):
        pass
    warned = [
        getattr(r, "fields", None)
        for r in caplog.records
        if r.getMessage() == "variant setting unused"
    ]
    assert warned == [
        {
            "variant": "dir-nopromo",
            "why": "piece 2 (Pawn).promote_when is never used: rules.promotion is false",
        }
    ]
