"""The queue of issued DMAs (S-40): oldest first per engine and overall, and k-th oldest for S-60=random, each in
O(log n) visits. The bounds are on the queue's own count of entries visited and tree nodes touched, not on time."""

from __future__ import annotations

import random

from tongasm.isa import get_target
from tongasm.sim.machine import DmaQueue, Machine


class T:
    """A stand-in transfer: its engine, and what completing it records."""

    def __init__(self, engine: str, tag: int, log: list[int]) -> None:
        self.engine, self.tag, self.log = engine, tag, log

    def complete(self, _m: object) -> None:
        self.log.append(self.tag)


def test_drains_behind_a_long_queue_of_another_engine_stay_logarithmic() -> None:
    """50,000 Activation DMAs wait while 50,000 times an SP DMA is issued and drained (the case a scan of the queue
    per Drain makes quadratic: 2.5 G visits)."""
    m = Machine(get_target("gen3"))
    log: list[int] = []
    n = 50_000
    m.dma_pending.extend(T("act", i, log) for i in range(n))
    for i in range(n):
        m.dma_pending.append(T("sp", n + i, log))
        assert m.complete_dmas("sp") == 1
    assert log == list(range(n, 2 * n))
    assert m.complete_dmas(count=10) == 10 and log[-10:] == list(range(10))
    assert m.complete_dmas() == n - 10 and log[-1] == n - 1 and not m.dma_pending
    total = 2 * n
    assert m.dma_pending.steps <= 60 * total, m.dma_pending.steps  # log2(200k) ~ 18 tree nodes per update


def test_the_kth_oldest_matches_a_list_and_stays_logarithmic() -> None:
    rng = random.Random(7)
    q, ref, log = DmaQueue(), [], []
    for i in range(100_000):
        r = rng.random()
        if r < 0.55 or not ref:
            t = T(rng.choice(("sp", "act", "pool")), i, log)
            q.append(t)  # type: ignore[arg-type]
            ref.append(t)
        elif r < 0.8:
            k = rng.randrange(len(ref))
            assert q[k] is ref[k]
            assert q.pop_at(k) is ref.pop(k)
        elif r < 0.9:
            e = rng.choice(("sp", "act", "pool"))
            want = next((t for t in ref if t.engine == e), None)
            assert q.popleft(e) is want
            if want is not None:
                ref.remove(want)
        else:
            assert q.popleft() is ref.pop(0)
        assert len(q) == len(ref)
    assert list(q) == ref
    assert q.steps <= 60 * q.appended, q.steps


def test_since_gives_what_was_appended_after_a_mark() -> None:
    q, log = DmaQueue(), []
    first = [T("sp", i, log) for i in range(3)]
    q.extend(first)  # type: ignore[arg-type]
    mark = q.appended
    later = [T("act", 3, log), T("sp", 4, log)]
    q.extend(later)  # type: ignore[arg-type]
    assert q.since(mark) == later
    assert q.popleft("sp") is first[0] and q.since(mark) == later and q.since(0) == first[1:] + later
