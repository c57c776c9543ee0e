"""What the vector families' bundle semantics share, read from their decoded fields: the accumulator
command byte, the lanes of a slot, the transposed forms that are encoded but not simulated, and the scalar
operands (chapter §1.3: the kind byte and value word, N-2, N-6, S-35).

Like every handler, the families' handlers read only the bundle (never the IR): operands through
:meth:`Ctx.ap`, the accumulators from the executing engine's state. The numeric kernels are
:mod:`tongasm.sim.kernels` (shared with the IR reference interpreter).
"""

from __future__ import annotations

import numpy as np

from ...isa.decisions.scalar import (
    PointerWord,
    kind_of_names,
)
from ...isa.descriptors import decode_addr4
from ...isa.enums import ACC_WIRE, AccType
from ...isa.opcodes import (
    BN_STATS_T,
    TR_T_ARITH,
    TR_T_BITVEC,
    TS_TRANSPOSE,
)
from ...isa.vector_enums import ScalarKind
from .. import numeric
from ..context import Ctx
from ..machine import SimError, rewrap

ACC_BY_WIRE = {w: a for a, w in ACC_WIRE.items()}


F32_WIRE = 10


NOT_SIMULATED = {TR_T_ARITH.byte: "apply_transpose (0x83)", TR_T_BITVEC.byte: "apply_transpose (0x84)",
                  TS_TRANSPOSE.byte: "apply_transpose (0x93)", BN_STATS_T.byte: "apply_transpose (0x82)"}


def refuse_transposed(c: Ctx) -> None:
    what = NOT_SIMULATED.get(c.d.opcode)
    if what is not None:
        raise SimError(f"{c.where()}: {what} is encoded but not simulated: the book says only that the input is "
                       "'FP32-cast and 32-lane partition-transposed' (chapter §5.1)")


def acc_command(c: Ctx, field: str) -> AccType:
    acc = ACC_BY_WIRE.get(c.f[field])
    if acc is None:
        raise SimError(f"{c.where()}: unknown accumulation byte {c.f[field]:#04x}")
    return acc


def lane_slice(c: Ctx, slot: str, count: int) -> slice:
    p0 = c.start_partition(slot)
    return slice(p0, p0 + count)


def scalar_column(c: Ctx, kind_field: str, value_field: str | None, data_slot: str, w: int | None,
                  count: int) -> tuple[np.ndarray, int]:
    """A scalar operand as a [count, 1] column of its element type and its wire dtype: an immediate
    (the value word's bits in dtype ``w``), a register (its 32 bits in dtype ``w``) or a pointer (the
    [P,1] elements it addresses, N-6; in dtype ``w``). ``w`` None: float32."""
    wd = F32_WIRE if w is None else w
    table = c.d.fmt.field_map[kind_field].enum  # N-2: the codes of this kind byte, from its layout field
    kind = None if table is None else kind_of_names(table.names, c.f[kind_field])
    if kind is None:
        raise SimError(f"{c.where()}: unknown scalar kind {c.f[kind_field]} at {kind_field} (N-2)")
    if value_field is None:
        if kind is ScalarKind.IMMEDIATE:  # N-5=reserved-zero: the neutral value the encoder insisted on
            return np.full((count, 1), 1.0, dtype=numeric.element_type(wd)), wd
        raise SimError(f"{c.where()}: a {kind.value} scalar with no value word (N-5)")
    word = c.f[value_field]
    if kind is ScalarKind.IMMEDIATE:
        return np.full((count, 1), scalar_bits(word, wd), dtype=numeric.element_type(wd)), wd
    if kind is ScalarKind.REGISTER:
        return np.full((count, 1), scalar_bits(c.m.reg(c.engine, word), wd), dtype=numeric.element_type(wd)), wd
    if c.ds.get(PointerWord).has_address:
        address = word
    else:  # N-6=byte-offset: the data's start partition and space (N-34), the byte from the word
        a = decode_addr4(c.f[f"{data_slot}.addr"])
        if a.space == "register":
            a = decode_addr4(c.m.reg(c.engine, a.register or 0))
        address = (a.word & ~0x3FFFF) | word if a.space == "sbuf" else 0x2000000 + ((a.partition or 0) << 15) + word
    try:
        view = c.m.tensor_view(c.engine, address, count, (), wd)
    except (SimError, numeric.NumericError) as e:
        raise rewrap(e, f"{c.where()} {value_field}") from None
    return np.array(view).reshape(count, 1), wd


def scalar_bits(bits: int, w: int) -> np.generic:
    size = numeric.size_of(w)
    u = np.array([bits & ((1 << (8 * size)) - 1)], dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    return u.view(numeric.element_type(w))[0]
