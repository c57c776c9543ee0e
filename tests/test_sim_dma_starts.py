"""A DMA side's run starts, computed as arrays, list the runs in R-16's order (``points``), under both readings."""

from __future__ import annotations

import numpy as np
import pytest

from tongasm.isa.decisions import DecisionSet
from tongasm.isa.decisions.dma import DmaElementOrder
from tongasm.sim.semantics.dma import run_starts


@pytest.mark.parametrize("reading", ["dim1-outer", "dim0-outer"])
@pytest.mark.parametrize("num0,num1,step0,step1,word", [(3, 4, 7, -100, 1000), (1, 5, 0, 3, 9), (6, 1, -2, 0, 50),
                                                        (0, 3, 1, 1, 0)])
def test_run_starts_follow_the_points_order(reading: str, num0: int, num1: int, step0: int, step1: int,
                                            word: int) -> None:
    order = DecisionSet.parse([f"R-16={reading}"]).get(DmaElementOrder)
    want = [word + i * step0 + j * step1 for i, j in order.points(num0, num1)]
    got = run_starts(word, num0, step0, num1, step1, order)
    assert got.dtype == np.int64
    assert got.tolist() == want
    if reading == "dim1-outer" and num0 == 3:  # by hand: i varies fastest
        assert want[:4] == [1000, 1007, 1014, 900]
