"""``server.flags``: the argparse types behind every number and list flag."""

from __future__ import annotations

import argparse
import re

import pytest

from server.flags import bounded, names, port_number, whole


def test_bounded_takes_its_range_and_refuses_the_rest_naming_what_it_wants() -> None:
    half_open = bounded(float, "seconds above 0", 0.0, 10.0, above=True)
    assert half_open("0.5") == 0.5 and half_open("10") == 10.0
    for text in ("0", "-1", "10.5", "nan", "inf", "soon"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be seconds above 0, not"):
            half_open(text)
    assert whole(0)("0") == 0
    wanted = re.escape("a whole number, 1 or more, not '1.5'")
    with pytest.raises(argparse.ArgumentTypeError, match=wanted):
        whole(1)("1.5")
    assert port_number("65535") == 65535
    with pytest.raises(argparse.ArgumentTypeError, match="not 65536"):
        port_number("65536")


def test_names_are_each_from_the_set_and_none_only_when_allowed() -> None:
    phases = names(("full", "rate"), "phases")
    assert phases("rate,full") == ["rate", "full"]
    for text in ("", "full,slow", "FULL"):
        with pytest.raises(argparse.ArgumentTypeError, match="phases from full, rate"):
            phases(text)
    assert names(("asyncio",), "loops", empty=True)("") == []
