"""Every number flag of ``boardhall-server`` refuses what is not a finite number in its range:
``inf``, ``nan``, a number too large to mean anything (``1e308``, which the server took and
which overflows timers, stored milliseconds and the welcome's limits), a negative one and a
negative zero (``-0``, a slip). argparse's error names the flag and the range, and the exit
status is 2, before anything starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from server.cli import build_parser, main

RANGES = {
    "--port": "a TCP port from 0 to 65535",
    "--discovery-port": "a UDP port from 0 to 65535",
    "--ipv6-prefix": "a prefix length from 32 to 128",
    "--abort-after": "more than 0 and at most 86400 seconds (a day)",
    "--absence-grace": "0 to 604800 seconds (a week)",
    "--rooms-per-identity": "a whole number from 1 to 1000000",
    "--spectators-per-room": "a whole number from 0 to 1000000",
    "--connections-per-address": "a whole number from 1 to 1000000",
    "--rate": "a whole number from 1 to 1000000",
    "--chat-lines": "a whole number from 1 to 1000000",
    "--chat-window": "more than 0 and at most 86400 seconds (a day)",
    "--chat-repeat": "0 (off) to 86400 seconds (a day)",
    "--chat-address-lines": "a whole number from 0 to 1000000",
    "--lag-credit-max": "a whole number of milliseconds from 0 to 60000 (a minute)",
    "--bot-games": "a whole number from 0 to 1000",
    "--ping-interval": "0 (no pings) or 1 to 3600 seconds (an hour)",
}
"""Each number flag and the range its refusal names."""

HIGHEST = {
    "--port": "65535",
    "--discovery-port": "65535",
    "--ipv6-prefix": "128",
    "--abort-after": "86400",
    "--absence-grace": "604800",
    "--rooms-per-identity": "1000000",
    "--spectators-per-room": "1000000",
    "--connections-per-address": "1000000",
    "--rate": "1000000",
    "--chat-lines": "1000000",
    "--chat-window": "86400",
    "--chat-repeat": "86400",
    "--chat-address-lines": "1000000",
    "--lag-credit-max": "60000",
    "--bot-games": "1000",
    "--ping-interval": "3600",
}

WHOLE = {"--port", "--discovery-port", "--ipv6-prefix", "--rooms-per-identity",
         "--spectators-per-room", "--connections-per-address", "--rate", "--chat-lines",
         "--chat-address-lines", "--lag-credit-max", "--bot-games"}  # fmt: skip
"""The flags that take whole numbers only (``inf`` is no whole number: quoted as unreadable)."""

BAD = ("inf", "-inf", "nan", "1e308", "1e309", "-1", "-0", "-0.0", "99999999999999999999")


def _number_flags() -> set[str]:
    """The parser's flags whose values are numbers (read by server/flags.py's ranges)."""
    found = set()
    for action in build_parser()._actions:
        kind = getattr(action.type, "__qualname__", "")
        if kind.startswith("bounded.") or kind == "ping_interval":
            found.add(action.option_strings[0])
    return found


def test_the_table_names_every_number_flag() -> None:
    """A new number flag must be added here, so it is tested too."""
    assert _number_flags() == set(RANGES) == set(HIGHEST)


def _refusal(capsys: pytest.CaptureFixture[str], flag: str, value: str) -> str:
    # FLAG=VALUE: argparse would take a separate "-inf" for an unknown flag
    argv = [f"{flag}={value}"] if flag == "--port" else [f"{flag}={value}", "--port", "0"]
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--no-discovery", "--db", ":memory:"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: boardhall-server"), err
    return err.splitlines()[-1]


@pytest.mark.parametrize("flag", sorted(RANGES))
@pytest.mark.parametrize("value", BAD)
def test_a_number_out_of_range_is_refused_naming_the_flag_and_its_range(
    capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    whole_only = flag in WHOLE and not value.lstrip("-").isdigit()
    shown = repr(value) if whole_only else value
    wanted = f"boardhall-server: error: argument {flag}: must be {RANGES[flag]}, not {shown}"
    assert _refusal(capsys, flag, value) == wanted


@pytest.mark.parametrize("flag", sorted(RANGES))
def test_one_more_than_the_highest_is_refused_and_the_highest_taken(
    capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    highest = HIGHEST[flag]
    above = str(int(highest) + 1)
    wanted = f"argument {flag}: must be {RANGES[flag]}, not {above}"
    assert _refusal(capsys, flag, above).endswith(wanted)
    args = build_parser().parse_args([flag, highest])
    assert getattr(args, flag[2:].replace("-", "_")) == int(highest)


def test_a_pasted_page_is_not_echoed_whole(capsys: pytest.CaptureFixture[str]) -> None:
    """Python reads no int of more than 4300 digits: refused as unreadable, echoed cut short."""
    line = _refusal(capsys, "--rate", "9" * 5000)
    assert line.endswith(f"must be a whole number from 1 to 1000000, not '{'9' * 37}...'")


def test_the_server_process_refuses_a_huge_timer_before_starting() -> None:
    """The real ``boardhall-server`` process: exit 2, the usage and the one error line."""
    done = subprocess.run(
        [sys.executable, "-m", "server", "--port", "0", "--abort-after", "1e308"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        "boardhall-server: error: argument --abort-after: must be more than 0 and at most "
        "86400 seconds (a day), not 1e308"
    )
