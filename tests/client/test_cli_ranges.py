"""Every number flag of the ``boardhall`` command (``connect``, ``local``, ``screenshot``,
``replay``, ``bot``) and of ``python -m client.bot`` refuses what is not a whole number in its
range: ``inf``, ``nan``, ``1e308``, a number too large to mean anything, a negative one and a
negative zero. argparse's error names the flag and the range and exits 2, before a window
opens or a server is tried."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from client.cli import build_parser, main

PORT = "a TCP port from 1 to 65535"
SIZE = "WIDTHxHEIGHT from 640x480 to 7680x4320"

CASES = {
    ("connect", "--port"): (PORT, "65535"),
    ("connect", "--size"): (SIZE, "7680x4320"),
    ("local", "--bot"): ("a bot level from 1 to 8", "8"),
    ("local", "--size"): (SIZE, "7680x4320"),
    ("screenshot", "--plies"): ("a whole number from 0 to 1000", "1000"),
    ("screenshot", "--size"): (SIZE, "7680x4320"),
    ("replay", "--size"): (SIZE, "7680x4320"),
    ("bot", "--level"): ("a bot level from 1 to 8", "8"),
    ("bot", "--games"): ("a number of games (0: no limit) from 0 to 1000000", "1000000"),
    ("bot", "--seed"): ("a seed from 0 to 4294967295", "4294967295"),
    ("bot", "--port"): (PORT, "65535"),
}
"""(subcommand, flag) -> (the range its refusal names, the highest value it takes)."""

REQUIRED = {
    "screenshot": ["--out", "never.png"],
    "replay": ["never.json"],
    "bot": ["127.0.0.1:1", "--game", "chess"],
}
"""What each subcommand needs besides the flag under test."""

BAD = ("inf", "-inf", "nan", "1e308", "-1", "-0", "-0.0", "99999999999999999999", "1.5")


def _number_flags() -> set[tuple[str, str]]:
    """Every (subcommand, flag) whose value client/flags.py reads."""
    subparsers = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    return {
        (name, action.option_strings[0])
        for name, parser in subparsers.choices.items()
        for action in parser._actions
        if getattr(action.type, "__module__", "") == "client.flags"
    }


def test_the_table_names_every_number_flag() -> None:
    """A new number flag must be added here, so it is tested too."""
    assert _number_flags() == set(CASES)


def _refusal(capsys: pytest.CaptureFixture[str], command: str, flag: str, value: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main([command, f"{flag}={value}", *REQUIRED.get(command, [])])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: boardhall"), err
    return err.splitlines()[-1]


@pytest.mark.parametrize(("command", "flag"), sorted(CASES))
@pytest.mark.parametrize("value", BAD)
def test_a_number_out_of_range_is_refused_naming_the_flag_and_its_range(
    capsys: pytest.CaptureFixture[str], command: str, flag: str, value: str
) -> None:
    if flag == "--size":
        value = f"{value}x800"
    wanted = (
        f"boardhall {command}: error: argument {flag}: must be {CASES[command, flag][0]}, "
        f"not {value!r}"
    )
    assert _refusal(capsys, command, flag, value) == wanted


@pytest.mark.parametrize(("command", "flag"), sorted(CASES))
def test_one_more_than_the_highest_is_refused_and_the_highest_taken(
    capsys: pytest.CaptureFixture[str], command: str, flag: str
) -> None:
    what, highest = CASES[command, flag]
    if flag == "--size":
        above, taken = "7681x4320", (7680, 4320)
    else:
        above, taken = str(int(highest) + 1), int(highest)  # type: ignore[assignment]
    assert _refusal(capsys, command, flag, above).endswith(f"must be {what}, not {above!r}")
    argv = [command, flag, highest, *REQUIRED.get(command, [])]
    assert getattr(build_parser().parse_args(argv), flag[2:]) == taken


def test_a_size_too_small_or_misspelt_names_the_range(capsys: pytest.CaptureFixture[str]) -> None:
    for size in ("639x480", "640x479", "1280*800", "1280x800x2", "x"):
        assert _refusal(capsys, "connect", "--size", size).endswith(f"must be {SIZE}, not {size!r}")


def test_a_pasted_page_is_not_echoed_whole(capsys: pytest.CaptureFixture[str]) -> None:
    line = _refusal(capsys, "bot", "--seed", "9" * 5000)
    assert line.endswith(f"must be a seed from 0 to 4294967295, not '{'9' * 37}...'")


def test_the_bot_process_refuses_a_huge_level_before_connecting() -> None:
    """``python -m client.bot``, the command the server starts its bots with: exit 2 and the
    one error line, and port 1 is never tried (it would say "cannot reach")."""
    done = subprocess.run(
        [sys.executable, "-m", "client.bot", "127.0.0.1:1", "--game", "chess", "--level", "1e308"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "python -m client.bot: error: argument --level: must be a bot level from 1 to 8, "
        "not '1e308'"
    )
