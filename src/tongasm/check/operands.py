"""The shared ground of the vector families' checks: operand geometry (partition and element counts of
IR operands and of bundle descriptor slots), the family-wide rule that src and dst hold equal element
counts, the pointer-scalar shape rule (N-6, N-34) and the ids of the family-wide encoder refusals.

A rule between the geometries of two operands is an IR check, not an encoder refusal: the plan of an
instruction is shared by every instruction that differs only in the geometry of its bound operands
(codegen/plan.py), so codegen never compares them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from ..errors import brief_int
from ..ir.instructions import Instruction
from ..ir.operands import Operand, PhysicalAP, RegisterAP, SymbolicAP
from ..isa.decisions.scalar import (
    kind_of_names,
)
from ..passes.lower_compound import is_lowered_part
from .bundle_checks import BundleView, bundle_check
from .registry import Finding, register_refusals
from .vectorized import Columns, VectorFn, by_classes, vector

# --- encoder refusals (the vector families' shared; the codegen raises these ids) ---

_ENCODE = [
    ("family.gpsimd_psum", "on the Pool (GpSimd) engine no operand of these families is in PSUM", "N-17"),
    ("family.indirect", "no indirect (gather) access pattern in these families", "chapter §1.2"),
    ("family.scalar_kind", "a scalar operand is an immediate (at most 32 bits), a register without an offset "
     "register, or an SB/PSUM pointer", "chapter §1.3, N-7, N-33"),
    ("family.engine", "the data-movement, search and batch-norm backward forms run on the engine whose streams hold "
     "every real bundle of them (the DVE; batch-norm backward also the Pool engine the book names)", "R-52, R-60"),
]
register_refusals(_ENCODE)


TENSOR_APS = (PhysicalAP, RegisterAP, SymbolicAP)


def finding(check: str, message: str, field: str | None = None, value: object = None, allowed: str | None = None) -> Finding:
    return Finding(check, message, field, value, allowed)


def tensor_ap(op: Operand | None) -> PhysicalAP | RegisterAP | SymbolicAP | None:
    return op if isinstance(op, TENSOR_APS) and op.ap else None


def elements(op: Operand | None) -> int | None:
    ap = tensor_ap(op)
    return None if ap is None else math.prod(n for _s, n in ap.ap[1:])


def partition_count(op: Operand | None) -> int | None:
    ap = tensor_ap(op)
    return None if ap is None else ap.ap[0][1]


def slot_elements(b: BundleView, slot: str) -> int:
    s = b.fmt.slots[slot]
    return math.prod(b.fields[k] for k in s.num_keys)


def equal_partitions(check: str, roles: tuple[str, ...]) -> Callable[[Instruction], Iterator[Finding]]:
    """N-34: the bundle carries one partition count; operands that name another would be cut."""

    def fn(inst: Instruction) -> Iterator[Finding]:
        parts = {r: p for r in roles if (p := partition_count(getattr(inst, r, None))) is not None}
        if len(set(parts.values())) > 1:
            yield Finding(check, "operands have different partition counts (the bundle carries one, N-34)",
                          "partitions", ", ".join(f"{k}={brief_int(v)}" for k, v in parts.items()), "equal")

    return fn


def equal_elements(check: str, roles: tuple[str, ...]) -> Callable[[Instruction], Iterator[Finding]]:
    def fn(inst: Instruction) -> Iterator[Finding]:
        n = {r: e for r in roles if (e := elements(getattr(inst, r, None))) is not None}
        if len(set(n.values())) > 1:
            yield Finding(check, "operands have different element counts per partition", "elements",
                          ", ".join(f"{k}={brief_int(v)}" for k, v in n.items()), "equal")

    return fn


@bundle_check("family.equal_elements", "src and dst have equal element counts per partition",
              "chapter §5.3 (Reciprocal), NKI")
def _equal_slot_elements(b: BundleView) -> Iterator[Finding]:
    counts = {s: slot_elements(b, s) for s in b.fmt.slots}
    if len(set(counts.values())) > 1:
        yield finding("family.equal_elements", "operands have different element counts per partition", "elements",
                 ", ".join(f"{k}={v}" for k, v in counts.items()), "equal")


def unknown_kind(b: BundleView, name: str) -> bool:
    """Whether kind byte ``name`` holds no code of its own set (N-2: the layout field's enum table)."""
    table = b.fmt.field_map[name].enum
    return table is None or kind_of_names(table.names, b.fields[name]) is None


def pointer_shape(check: str, data: str, scalars: tuple[tuple[str, int], ...]) -> Callable[[Instruction], Iterator[Finding]]:
    """N-6 / N-34: a pointer scalar is one element per partition, over the data's partitions from the
    data's start partition (the bundle carries one address and the data's partition count)."""

    def fn(inst: Instruction) -> Iterator[Finding]:
        if is_lowered_part(inst):
            return
        d = tensor_ap(getattr(inst, data))
        for role, k in scalars:
            op = inst.ins[k] if k < len(inst.ins) else None
            if not isinstance(op, PhysicalAP) or not op.ap:
                continue
            if any(n != 1 for _s, n in op.ap[1:]):
                yield Finding(check, f"{role}: a pointer scalar holds one element per partition", role,
                              math.prod(n for _s, n in op.ap[1:]), "1")
            if d is not None and op.ap[0][1] != d.ap[0][1]:
                yield Finding(check, f"{role}: the pointer has {op.ap[0][1]} partitions, the data {d.ap[0][1]}",
                              f"{role}.partitions", op.ap[0][1], str(d.ap[0][1]))
            if isinstance(d, PhysicalAP) and start_partition(op) is not None and start_partition(d) is not None and \
                    start_partition(op) != start_partition(d):
                yield Finding(check, f"{role}: the pointer starts at partition {start_partition(op)}, the data at {start_partition(d)} "
                              "(the bundle has one start address per scalar, N-6)", f"{role}.start", start_partition(op),
                              str(start_partition(d)))

    return fn


def start_partition(op: PhysicalAP) -> int | None:
    """The start partition of a physical AP (SPEC §5 offset arithmetic)."""
    loc = op.location
    if loc is None or not loc.dims or len(loc.dims) < 2 or loc.dims[1] <= 0 or not hasattr(op.dtype, "name"):
        return None
    from ..isa.enums import DTYPE_INFO

    return loc.base + (op.offset * DTYPE_INFO[op.dtype].size) // loc.dims[1]  # type: ignore[index]


def with_slot_dims(check: Callable[[BundleView], Iterator[Finding]], *names: str, steps: bool = False) -> VectorFn:
    """:func:`by_classes` over ``names`` and the counts (and steps, with ``steps``) of every descriptor
    slot of the layout at hand: the exact form of a rule on element counts or windows."""
    def fn(c: Columns) -> np.ndarray:
        dims = [k for sl in c.fmt.slots.values() for k in (*sl.num_keys, *(sl.step_keys if steps else ()))]
        return by_classes(check, *names, *dims)(c)
    return fn


vector("family.equal_elements")(with_slot_dims(_equal_slot_elements))
