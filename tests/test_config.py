"""``tg.config.set``: alone, process-wide; in a ``with`` statement, for the current thread or
asyncio task only, never for computations other threads run meanwhile."""

import asyncio
import threading

import numpy as np
import pytest

import tegula as tg


def test_a_with_block_never_reaches_other_threads():
    """One thread computes under a tiny budget inside ``with`` blocks, over and over; another
    computes at the same time and must never get that budget (once, all 1,000 did)."""
    x = tg.arange(100_000, chunks=10_000) * 2.0
    expected = float(np.sum(np.arange(100_000) * 2.0))
    stop = threading.Event()
    refused = []

    def tiny_budgets():
        while not stop.is_set():
            with tg.config.set(memory=1000, strict_promotion=True):
                try:
                    x.sum().compute()
                    refused.append("computed under 1000 bytes")
                except MemoryError:
                    pass

    other = threading.Thread(target=tiny_budgets)
    other.start()
    wrong = []
    try:
        for _ in range(1000):
            try:
                if x.sum().compute() != expected:
                    wrong.append("value")
            except MemoryError as e:
                wrong.append(str(e))
            if tg.config.get("memory") == 1000 or tg.config.get("strict_promotion"):
                wrong.append("setting seen")
    finally:
        stop.set()
        other.join()
    assert wrong == [] and refused == []


def test_with_blocks_nest_and_restore():
    default = tg.config.get("memory")
    with tg.config.set(memory="1GB"):
        with tg.config.set(memory="2GB", progress=False):
            assert tg.config.get("memory") == 2_000_000_000 and tg.config.get("progress") is False
            assert tg.config.explicit() == {"memory": 2_000_000_000, "progress": False}
        assert tg.config.get("memory") == 1_000_000_000 and tg.config.get("progress") == "auto"
    assert tg.config.get("memory") == default and tg.config.explicit() == {}


def test_set_alone_is_process_wide_and_a_with_block_overrides_it():
    try:
        tg.config.set(memory="3GB")
        seen = []
        t = threading.Thread(target=lambda: seen.append(tg.config.get("memory")))
        t.start()
        t.join()
        assert seen == [3_000_000_000]
        with tg.config.set(memory="1GB"):
            assert tg.config.get("memory") == 1_000_000_000
        assert tg.config.get("memory") == 3_000_000_000
        made_first = tg.config.set(memory="5GB")  # made, then entered: scoped from then on
        with made_first:
            assert tg.config.get("memory") == 5_000_000_000
        assert tg.config.get("memory") == 3_000_000_000
    finally:
        tg.config._settings.clear()


def test_asyncio_tasks_have_their_own_settings():
    async def task(budget, results):
        with tg.config.set(memory=budget):
            await asyncio.sleep(0.01)
            results.append((budget, tg.config.get("memory")))

    async def main():
        results = []
        await asyncio.gather(*(task(b, results) for b in (10**6, 2 * 10**6, 3 * 10**6)))
        return results

    assert sorted(asyncio.run(main())) == [(b, b) for b in (10**6, 2 * 10**6, 3 * 10**6)]


def test_a_failed_set_changes_nothing():
    with pytest.raises(ValueError):
        with tg.config.set(memory="lots"):
            pass
    assert tg.config.explicit() == {}
