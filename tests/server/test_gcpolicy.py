"""The server's garbage-collection policy."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from server import gcpolicy


@pytest.fixture
def restore_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


def test_tune_freezes_what_exists_and_sets_the_thresholds(restore_gc: None) -> None:
    gcpolicy.tune()
    assert gc.get_threshold() == gcpolicy.THRESHOLDS
    assert gc.get_freeze_count() > 0
    young, _, old = gcpolicy.THRESHOLDS
    assert young >= 1_000 and old >= 100_000  # CPython never starts a full collection itself


def test_a_full_collection_frees_old_cycles() -> None:
    class Node:
        other: object

    a, b = Node(), Node()
    a.other, b.other = b, a
    gc.collect()  # promote the cycle to the old generation
    alive = weakref.ref(a)
    del a, b
    took = gcpolicy.collect_fully()
    assert alive() is None
    assert took >= 0.0


async def test_full_collections_come_on_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    ran = asyncio.Event()
    calls: list[int] = []

    def fake() -> float:
        calls.append(1)
        if len(calls) == 3:
            ran.set()
        return 0.0

    monkeypatch.setattr(gcpolicy, "collect_fully", fake)
    task = asyncio.ensure_future(gcpolicy.collect_periodically(every=0.01))
    await asyncio.wait_for(ran.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(calls) >= 3
