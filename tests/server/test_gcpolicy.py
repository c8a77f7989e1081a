"""The server's garbage-collection policy: collections on a clock, from the event loop."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from server import gcpolicy


class Node:
    other: object


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


@pytest.fixture
def restore_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_tune_turns_automatic_collection_off(restore_gc: None) -> None:
    gcpolicy.tune()
    assert not gc.isenabled()


def test_promote_moves_young_objects_to_the_old_generation_without_collecting(
    restore_gc: None,
) -> None:
    gc.disable()
    node, alive = _cycle()
    assert any(o is node for o in gc.get_objects(0))
    del node
    gcpolicy.promote()
    assert alive() is not None  # not collected: the cycle was moved, not walked
    assert any(o is alive() for o in gc.get_objects(2))
    assert gc.get_freeze_count() == 0
    gcpolicy.collect_fully()
    assert alive() is None


async def test_the_collector_runs_young_collections_promotions_and_full_ones(
    restore_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc.disable()
    seen: list[str] = []
    enough = asyncio.Event()
    real_collect = gc.collect

    def collect(generation: int = 2) -> int:
        seen.append(f"gen{generation}")
        return real_collect(generation)

    def promote() -> None:
        seen.append("promote")

    def full() -> float:
        seen.append("full")
        if seen.count("full") == 2:
            enough.set()
        return 0.0

    monkeypatch.setattr(gcpolicy.gc, "collect", collect)
    monkeypatch.setattr(gcpolicy, "promote", promote)
    monkeypatch.setattr(gcpolicy, "collect_fully", full)
    task = asyncio.ensure_future(
        gcpolicy.run_collector(young_every=0.001, promote_every=0.01, full_every=0.1)
    )
    await asyncio.wait_for(enough.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen.count("gen0") > seen.count("promote") > seen.count("full") >= 2
    assert "gen2" not in seen and "gen1" not in seen  # full ones go through collect_fully


def test_a_cycle_that_dies_young_is_freed_by_the_next_young_collection(
    restore_gc: None,
) -> None:
    gc.disable()
    gc.collect()
    node, alive = _cycle()
    del node
    assert alive() is not None
    gc.collect(0)
    assert alive() is None
