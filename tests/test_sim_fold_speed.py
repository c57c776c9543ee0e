"""The sequential float32 folds (S-22) in one ufunc ``accumulate`` call give the same bits as the
step-by-step path they replace (one ``tensor_tensor`` per reduced column)."""

from __future__ import annotations

import numpy as np
import pytest

from tongasm.isa.enums import AccType, AluOp
from tongasm.sim import kernels as fn
from tongasm.sim import numeric

F32 = np.float32
FAST_OPS = (AluOp.add, AluOp.subtract, AluOp.mult, AluOp.divide, AluOp.max, AluOp.min, AluOp.mod)
_SPECIALS = np.concatenate([
    np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, -1e-45, 3e38, -3e38, 1.0, -1.0], F32),
    np.array([0xFFC00000, 0x7FC00001, 0xFFC00123], np.uint32).view(F32),  # NaNs of other signs and payloads
])


def _step_fold(op: AluOp, x: np.ndarray) -> np.ndarray:
    """S-22 as the simulator computed it before: one float32 TensorTensor step per column."""
    acc = np.array(x[..., 0], dtype=F32)
    for j in range(1, x.shape[-1]):
        acc = numeric.tensor_tensor(op, acc, 10, np.ascontiguousarray(x[..., j]), 10, 10)
    return acc


def _values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    normal = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(F32)
    return np.where(rng.random(shape) < 0.3, rng.choice(_SPECIALS, shape), normal).astype(F32)


def test_fold_is_sequential_left_to_right() -> None:
    # float32: 1e8 + 1 = 1e8, - 1e8 = 0, + 1 = 1 (a pairwise sum gives (1e8 + 1) + (-1e8 + 1) = 0)
    x = np.array([[1e8, 1.0, -1e8, 1.0]], F32)
    assert fn.fold(AluOp.add, x).tolist() == [1.0]
    # subtract keeps its operand order: ((10 - 1) - 2) - 3 = 4
    assert fn.fold(AluOp.subtract, np.array([[10.0, 1.0, 2.0, 3.0]], F32)).tolist() == [4.0]


@pytest.mark.parametrize("op", FAST_OPS, ids=lambda o: o.name)
def test_fold_matches_the_step_path_bit_for_bit(op: AluOp) -> None:
    rng = np.random.default_rng(int(op))
    for _ in range(20):
        shape = (128, int(rng.integers(1, 5)), int(rng.integers(1, 40)))
        x = _values(rng, shape)
        fast, slow = fn.fold(op, x), _step_fold(op, x)
        assert fast.dtype == slow.dtype == F32 and fast.shape == slow.shape
        assert np.array_equal(fast.view(np.uint32), slow.view(np.uint32))


@pytest.mark.parametrize("op", FAST_OPS, ids=lambda o: o.name)
def test_accumulators_match_the_step_path_bit_for_bit(op: AluOp) -> None:
    rng = np.random.default_rng(100 + int(op))
    for cmd in (AccType.ZeroAccumulate, AccType.AddAccumulate, AccType.LoadAccumulate):
        row = _values(rng, (64, int(rng.integers(0, 30))))
        start = _values(rng, (64,))
        init = _values(rng, (64,))
        acc = start.copy()
        fn.accumulate(acc, cmd, op, row, init)
        want = start.copy()
        if cmd == AccType.ZeroAccumulate:
            want[...] = F32(fn.REDUCE_IDENTITY.get(op, 0.0))
        elif cmd == AccType.LoadAccumulate:
            want[...] = init
        for j in range(row.shape[1]):
            want = numeric.tensor_tensor(op, want, 10, np.ascontiguousarray(row[:, j]), 10, 10)
        assert np.array_equal(acc.view(np.uint32), want.view(np.uint32)), cmd


def test_comparison_and_bitvec_ops_keep_the_step_path() -> None:
    assert numeric.fold_ufunc(AluOp.is_gt) is None and numeric.fold_ufunc(AluOp.bypass) is None
    # pow too: numpy's power.accumulate and elementwise power disagree in the sign of a NaN result, so a
    # fold through power.accumulate would not be the step path's bits (the fold of pow still is, by the step path)
    assert numeric.fold_ufunc(AluOp.pow) is None
    x = np.array([[-2.0, 0.5, 3.0, -0.5]], F32)  # (-2)^0.5 is NaN; NaN^3, NaN^-0.5 stay NaN
    assert np.array_equal(fn.fold(AluOp.pow, x).view(np.uint32), _step_fold(AluOp.pow, x).view(np.uint32))
    assert numeric.fold_ufunc(AluOp.bitwise_and) is None
    assert numeric.fold_ufunc(AluOp.add) is np.add
