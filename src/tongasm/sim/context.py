"""What a handler sees: the bundle being executed, its engine, the machine and the decisions.

Every family's handlers (:mod:`.execute`, :mod:`.semantics.pe`, :mod:`.semantics.dma`, ...) take one
:class:`Ctx`; its ``ap`` reads a descriptor slot as a view of the machine's memory, free dims outermost
first (D-6).
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from ..decode.bundle import DecodedBundle
from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import FreeDimOrder
from ..isa.descriptors import decode_addr4
from ..isa.enums import ALU_FROM_WIRE, AluOp
from ..isa.fields import Format
from . import numeric
from .machine import Machine, SimError, rewrap


def bundle_where(engine: str, d: DecodedBundle) -> str:
    """``pool+0x80 (PseudoDmaDirect2d)``: how a handler names the bundle it executes (the scheduler
    swaps this prefix for its own fuller name of the bundle)."""
    return f"{engine}+{d.offset:#x} ({d.mnemonic})"


class Ctx:
    """The bundle being executed, its engine and the decision selection."""

    def __init__(self, m: Machine, engine: str, d: DecodedBundle, ds: DecisionSet) -> None:
        self.m, self.engine, self.d, self.ds = m, engine, d, ds
        self.f = d.fields

    def where(self) -> str:
        return bundle_where(self.engine, self.d)

    def ap(self, name: str) -> tuple[np.ndarray, int]:
        """(view, wire dtype) of a descriptor slot: partitions x free dims outermost first (D-6)."""
        f = self.f
        addr_k, dim_ks, dtype_k = _ap_keys(self.d.fmt, name)
        outer_first = tuple(self.ds.get(FreeDimOrder).from_slots([(f[sk], f[nk]) for sk, nk in dim_ks]))
        w = f[dtype_k]
        try:
            view = self.m.tensor_view(self.engine, f[addr_k], self.d.fmt.slots[name].partition_count(f), outer_first,
                                      w)
        except (SimError, numeric.NumericError) as e:
            raise rewrap(e, f"{self.where()} {name}") from None
        return view, w

    def start_partition(self, name: str) -> int:
        a = decode_addr4(self.f[f"{name}.addr"])
        if a.space == "register":
            a = decode_addr4(self.m.reg(self.engine, a.register or 0))
        return a.partition or 0


@cache
def _ap_keys(fmt: Format, name: str) -> tuple[str, tuple[tuple[str, str], ...], str]:
    """The field names of descriptor slot ``name`` in ``fmt``: address, (step, num) per dim, dtype."""
    s = fmt.slots[name]
    assert s.dtype_field is not None
    return (f"{name}.addr", tuple((f"{name}.step{i}", f"{name}.num{i}") for i in range(s.ndims)), s.dtype_field)


# --- helpers every family's handlers share (.execute, .semantics.*) -------------------------------

def _flat(v: np.ndarray) -> np.ndarray:
    return v.reshape(v.shape[0], -1)


def _one_write_each(v: np.ndarray) -> bool:
    """True when no two elements of a view share a byte (sorted-stride test; a 0 step fails it)."""
    return _no_self_overlap(v.strides, v.shape, v.itemsize)


@lru_cache(maxsize=4096)
def _no_self_overlap(strides: tuple[int, ...], shape: tuple[int, ...], itemsize: int) -> bool:
    extent = itemsize
    for stride, n in sorted((abs(st), n) for st, n in zip(strides, shape) if n > 1):
        if stride < extent:
            return False
        extent += stride * (n - 1)
    return True


def _store(view: np.ndarray, values: np.ndarray) -> None:
    """Write ``values`` (any shape of the view's size) into the view. S-19: where the view reaches
    one element several times, the last write in AP order wins (numpy's own assignment order is
    not AP order once axes overlap, so such views are written explicitly)."""
    values = values.reshape(view.shape)
    if not _one_write_each(view):
        last = tuple(slice(-1, None) if st == 0 else slice(None) for st in view.strides)
        view, values = view[last], values[last]  # along a 0 step only the last index survives
        if not _one_write_each(view):
            for idx in np.ndindex(view.shape):  # other self-overlap: element by element, in AP order
                view[idx] = values[idx]
            return
    view[...] = values


def _alu(c: Ctx, byte: int) -> AluOp:
    op = ALU_FROM_WIRE.get(byte)
    if op is None:
        raise SimError(f"{c.where()}: unknown ALU byte {byte:#04x}")
    return op


__all__ = ["Ctx", "_alu", "_flat", "_one_write_each", "_store"]
