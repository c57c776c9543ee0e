"""What a handler sees: the bundle being executed, its engine, the machine and the decisions.

Every family's handlers (:mod:`.execute`, :mod:`.execute_pe`) take one :class:`Ctx`; its ``ap``
reads a descriptor slot as a view of the machine's memory, free dims outermost first (D-6).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..decode.bundle import DecodedBundle
from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import FreeDimOrder
from ..isa.descriptors import decode_addr4
from ..isa.fields import Format
from . import numeric
from .machine import Machine, SimError


class Ctx:
    """The bundle being executed, its engine and the decision selection."""

    def __init__(self, m: Machine, engine: str, d: DecodedBundle, ds: DecisionSet) -> None:
        self.m, self.engine, self.d, self.ds = m, engine, d, ds
        self.f = d.fields

    def where(self) -> str:
        return f"{self.engine}+{self.d.offset:#x} ({self.d.mnemonic})"

    def ap(self, name: str) -> tuple[np.ndarray, int]:
        """(view, wire dtype) of a descriptor slot: partitions x free dims outermost first (D-6)."""
        f = self.f
        addr_k, dim_ks, dtype_k = _ap_keys(self.d.fmt, name)
        outer_first = tuple(self.ds.get(FreeDimOrder).from_slots([(f[sk], f[nk]) for sk, nk in dim_ks]))
        w = f[dtype_k]
        try:
            view = self.m.tensor_view(self.engine, f[addr_k], f["num_partitions"], outer_first, w)
        except (SimError, numeric.NumericError) as e:
            raise SimError(f"{self.where()} {name}: {e}") from None
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


__all__ = ["Ctx"]
