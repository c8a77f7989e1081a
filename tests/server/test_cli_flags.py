"""``boardhall-server`` flags: ``--loop`` (uvloop when installed, else the standard loop) and
the checks on the others."""

from __future__ import annotations

import asyncio
import sys

import pytest

from server.cli import build_parser, loop_name, loop_runner, main


def test_auto_is_the_default_and_uses_uvloop_when_installed() -> None:
    uvloop = pytest.importorskip("uvloop")
    assert build_parser().parse_args([]).loop == "auto"
    assert loop_runner("auto") is uvloop.run
    assert loop_runner("uvloop") is uvloop.run
    assert loop_runner("asyncio") is asyncio.run


def test_without_uvloop_auto_falls_back_and_uvloop_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # makes "import uvloop" fail
    assert loop_runner("auto") is asyncio.run
    assert loop_runner("uvloop") is None
    assert main(["--loop", "uvloop", "--port", "0"]) == 2
    assert "--loop uvloop needs uvloop" in capsys.readouterr().err


def test_an_unknown_loop_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--loop", "trio"])
    assert exited.value.code == 2
    assert "invalid choice: 'trio'" in capsys.readouterr().err


def test_the_loop_in_use_is_named() -> None:
    assert asyncio.run(_name()) == "asyncio"
    uvloop = pytest.importorskip("uvloop")
    assert uvloop.run(_name()) == "uvloop"


async def _name() -> str:
    return loop_name()


def test_a_negative_ping_interval_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ping-interval", "-5", "--port", "0"]) == 2
    assert "--ping-interval must be 0 (no pings) or more, not -5" in capsys.readouterr().err
