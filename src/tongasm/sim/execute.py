"""What each bundle does, read from its decoded fields (never from the IR).

One handler per layout family; each reads its operands as views into the machine's memory, calls
the numeric kernels and writes the result back. The S-n decisions it relies on are cited inline.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..decode.bundle import DecodedBundle
from ..isa.decisions import DecisionSet
from ..isa.decisions.dma import StateBufferVariable
from ..isa.descriptors import SBUF_PARTITION_SHIFT, decode_addr4
from ..isa.enums import ACC_WIRE, ALU_INT_BAND, AccType, AluClass, AluOp
from ..isa.layout import Sem
from ..isa.layouts.tensor import INT32_FORMS_GEN2, MOVESHAPE_DIMS
from ..isa.opcodes import CAST_PREDICATED, MEMSET, PSEUDO_TENSOR_STORE, TENSOR_STORE, TT_BITVEC
from . import numeric
from .context import Ctx, _alu, _flat, _one_write_each, _store
from .semantics.control import HANDLERS_CONTROL
from .semantics.dma import HANDLERS_DMA
from .semantics.pe import HANDLERS_PE
from .machine import Machine, SimError

_ACC_BY_WIRE = {w: a for a, w in ACC_WIRE.items()}
_GEN2_INT32 = frozenset(o.byte for o, _w in INT32_FORMS_GEN2.values())
_SAVES = frozenset((PSEUDO_TENSOR_STORE.byte, TENSOR_STORE.byte))


def _disjoint(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two views provably share no byte (then a copy may go straight from one to the other)."""
    try:
        return not np.shares_memory(a, b, max_work=10_000)  # type: ignore[arg-type]
    except np.exceptions.TooHardError:
        return False


def _same_count(c: Ctx, *arrays: np.ndarray) -> None:
    sizes = {a.size for a in arrays}
    if len(sizes) > 1:
        raise SimError(f"{c.where()}: operands have different element counts ({', '.join(str(a.size) for a in arrays)})")


# --- TensorTensor --------------------------------------------------------------------------------

def _space(c: Ctx, name: str) -> str:
    """The memory space an operand's address resolves to (through its register in register mode)."""
    a = decode_addr4(c.f[f"{name}.addr"])
    if a.space == "register":
        a = decode_addr4(c.m.reg(c.engine, a.register or 0))
    return a.space


def tensor_tensor(c: Ctx) -> None:
    if c.engine == "pool":  # SPEC §4.4: checked on static APs by codegen; a register AP is known only now
        for name in ("in0", "in1"):
            if _space(c, name) == "psum":
                raise SimError(f"{c.where()}: {name}: GPSIMD engine cannot access PSUM")
    a, wa = c.ap("in0")
    b, wb = c.ap("in1")
    o, wo = c.ap("out")
    byte = c.f["op"]
    op = _alu(c, byte)
    A, B = _flat(a), _flat(b)
    _same_count(c, A, B, o)
    # S-4: the integer path for the GPSIMD int32 forms and for all-integer ops on the Pool engine.
    all_int = numeric.is_int(wa) and numeric.is_int(wb) and numeric.is_int(wo)
    int_path = c.d.opcode in _GEN2_INT32 or byte in ALU_INT_BAND or (c.engine == "pool" and all_int)
    bitvec = numeric.alu_class(op) == AluClass.BITVEC or (op == AluOp.bypass and c.d.opcode == TT_BITVEC.byte)
    if a.shape == b.shape == o.shape and _one_write_each(o):  # S-19: else _store keeps AP order
        numeric.tensor_tensor(op, a, wa, b, wb, wo, int_path=int_path, bitvec=bitvec, out=o)
    else:
        _store(o, numeric.tensor_tensor(op, A, wa, B, wb, wo, int_path=int_path, bitvec=bitvec))


# --- the predicated family (S-10, S-11) ---------------------------------------------------------------

def copy_predicated(c: Ctx) -> None:
    mask, _wm = c.ap("mask")
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P, S, D = _flat(mask), _flat(src), _flat(dst).copy()
    _same_count(c, P, S, D)
    sel = numeric.predicate(P)
    new = numeric.convert(S, ws, wd) if c.d.opcode == CAST_PREDICATED.byte else numeric.bits_to(wd, numeric.bits_view(S).astype(np.uint64))
    D[sel] = new[sel]
    _store(dst, D)


def _scalar(bits: int, w: int) -> np.ndarray:
    size = numeric.size_of(w)
    return np.array([bits & ((1 << (8 * size)) - 1)], dtype=np.uint64).astype(
        {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]).view(numeric.element_type(w))


def copy_predicated_scalar(c: Ctx) -> None:
    mask, _wm = c.ap("mask")
    dst, wd = c.ap("dst")
    P, D = _flat(mask), _flat(dst).copy()
    _same_count(c, P, D)
    sel = numeric.predicate(P)
    if c.f["polarity"] == 0:  # S-10 / D-14: flag 1 writes where the predicate is non-zero
        sel = ~sel
    value = numeric.convert(_scalar(c.f["scalar"], c.f["scalar_dtype"]), c.f["scalar_dtype"], wd)
    D[sel] = value[0]
    _store(dst, D)


def select_reduce(c: Ctx) -> None:
    if "src" not in c.d.fmt.slots:
        raise SimError(f"{c.where()}: the src operand is not encoded under D-15=unencoded")
    mask, _wm = c.ap("mask")
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P, S, D = _flat(mask), _flat(src), _flat(dst).copy()
    _same_count(c, P, S, D)
    sel = numeric.predicate(P)
    D[sel] = numeric.convert(S, ws, wd)[sel]
    if c.f["use_fill"]:  # S-11: false lanes take the fill; without one they keep dst
        wf = c.f["fill_dtype"]
        if "fill" in c.f:  # D-16: one surviving byte
            bits = c.f["fill"]
        elif c.f.get("fill_source") == 1:
            bits = c.m.reg(c.engine, c.f["fill_value"])
        else:
            bits = c.f["fill_value"]
        fill = numeric.convert(_scalar(bits, wf), wf, wd)[0]
        D[~sel] = fill
    _store(dst, D)
    acc = _ACC_BY_WIRE.get(c.f["acc"])
    if acc is None:
        raise SimError(f"{c.where()}: unknown accumulation byte {c.f['acc']:#04x}")
    if acc == AccType.Idle:
        return
    lanes = slice(c.start_partition("dst"), c.start_partition("dst") + D.shape[0])
    state = c.m.engines[c.engine].accumulator
    if acc == AccType.Zero:
        state[lanes] = -np.inf
        return
    row = numeric.to_fp32(D, wd).max(axis=1) if D.shape[1] else np.full(D.shape[0], -np.inf, np.float32)
    state[lanes] = np.maximum(state[lanes], row) if acc == AccType.AddAccumulate else row


# --- TensorCopy, Memset, MoveShape -----------------------------------------------------------------

def tensor_copy(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    _same_count(c, src, dst)
    direct = src.shape == dst.shape and _one_write_each(dst) and _disjoint(src, dst)  # S-19
    if ws == wd and direct:
        dst[...] = src  # a bit-exact copy straight between the views
    elif ws == wd:
        _store(dst, _flat(src).copy())
    elif direct:
        dst[...] = numeric.convert(src, ws, wd)
    else:
        _store(dst, numeric.convert(_flat(src), ws, wd))


def memset(c: Ctx) -> None:
    dst, w = c.ap("dst")
    if c.d.opcode == MEMSET.byte:
        dst[...] = _scalar(c.f["fill"], w)[0]
        return
    count = dst.shape[0]
    n = dst.size // max(count, 1)
    p0 = c.start_partition("dst")
    states = c.m.engines[c.engine].rng[p0:p0 + count]
    draws = numeric.xorwow_draw(states, n)  # S-12: per partition, in access-pattern order
    c.m.engines[c.engine].rng[p0:p0 + count] = states
    size = numeric.size_of(w)
    low = draws.astype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    _store(dst, low.view(numeric.element_type(w)))


def move_shape(c: Ctx) -> None:
    sh = c.m.engines[c.engine].shape
    sh.steps = tuple(c.f[f"step{i}"] for i in range(MOVESHAPE_DIMS))
    sh.counts = tuple(c.f[f"count{i}"] for i in range(MOVESHAPE_DIMS))
    sh.is_output = bool(c.f["is_output"])


# --- SP register-lane ops (S-13, S-14) -----------------------------------------------------------------

def register_move(c: Ctx) -> None:
    f = c.f
    if f["src_mode"] == 0:
        c.m.set_reg(c.engine, f["dst"], c.m.reg(c.engine, f["src"]))
    elif f["valid_num"] == 2:
        c.m.set_reg(c.engine, f["dst"], f["imm"] & 0xFFFFFFFF)
        c.m.set_reg(c.engine, f["dst_hi"], f["imm"] >> 32)
    else:
        c.m.set_reg(c.engine, f["dst"], f["imm"])


def register_alu(c: Ctx) -> None:
    f = c.f
    op = _alu(c, f["op"])
    is64 = "dst_hi" in f
    if is64:
        a = c.m.reg(c.engine, f["src1"]) | c.m.reg(c.engine, f["src1"] + 1) << 32
        b = f["imm"] if "imm" in f else c.m.reg(c.engine, f["src2"]) | c.m.reg(c.engine, f["src2"] + 1) << 32
        r = numeric.register_alu(op, a, b, 64)
        c.m.set_reg(c.engine, f["dst_lo"], r & 0xFFFFFFFF)
        c.m.set_reg(c.engine, f["dst_hi"], r >> 32)
    else:
        a = c.m.reg(c.engine, f["src1"])
        b = f["imm"] if "imm" in f else c.m.reg(c.engine, f["src2"])
        c.m.set_reg(c.engine, f["dst"], numeric.register_alu(op, a, b, 32))


def tensor_load_save(c: Ctx) -> None:
    f = c.f
    save = c.d.opcode in _SAVES
    lane = numeric.size_of(f["dtype"])
    # S-14: 64-bit data = two lanes into a register pair (num_elem[0] even, hi = lo + 1)
    is64 = f["num_elem0"] >= 2 and f["num_elem0"] % 2 == 0 and f["data_hi_or_offset"] == f["data_reg"] + 1
    offset = 0
    if not is64 and f["data_hi_or_offset"]:
        offset = numeric.signed(c.m.reg(c.engine, f["data_hi_or_offset"]), 32) * lane
    lanes = [(0, 0), (0, 1)] if is64 else [(0, 0)]
    regs = [f["data_reg"], f["data_hi_or_offset"]] if is64 else [f["data_reg"]]
    for (i1, i0), rid in zip(lanes, regs):
        rel = (i1 * f["step_elem1"] + i0 * f["step_elem0"]) * lane + offset
        if "var_id" in f and f["var_id"] == 0 and 0 not in c.m.vars_by_id and c.ds.get(StateBufferVariable).sbuf:
            view = _sbuf_address_bytes(c, f["var_offset"] + rel, lane)
        elif "var_id" in f:
            view = c.m.var_bytes(f["var_id"], f["var_offset"] + rel, lane, c.where())
        else:
            view = _reg_address_bytes(c, rel, lane)
        if save:
            view[:] = np.frombuffer(c.m.reg(c.engine, rid).to_bytes(4, "little")[:lane].ljust(lane, b"\0"),
                                    dtype=np.uint8)
        else:
            c.m.set_reg(c.engine, rid, int.from_bytes(bytes(view[:4]).ljust(4, b"\0"), "little"))


def _sbuf_address_bytes(c: Ctx, addr: int, n: int) -> np.ndarray:
    """R-102: ``n`` bytes at SBUF address ``partition << 18 | byte``."""
    part, byte = addr >> SBUF_PARTITION_SHIFT, addr & ((1 << SBUF_PARTITION_SHIFT) - 1)
    if addr < 0 or part >= c.m.target.sbuf_partitions or byte + n > c.m.sbuf_stride:
        raise SimError(f"{c.where()}: SBUF address {addr:#x} (var 0, R-102) is outside the SBUF partitions")
    start = part * c.m.sbuf_stride + byte
    return c.m.sbuf[start:start + n]


def _reg_address_bytes(c: Ctx, rel: int, n: int) -> np.ndarray:
    a = decode_addr4(c.m.reg(c.engine, c.f["addr_reg"]))
    if a.space not in ("sbuf", "psum") or a.byte is None or a.partition is None or a.indirect or a.active:
        raise SimError(f"{c.where()}: the address register r{c.f['addr_reg']} does not hold a static SBUF/PSUM address")
    buf, stride = c.m.region(a.space)
    byte = a.byte + rel
    if byte < 0 or byte + n > stride:
        raise SimError(f"{c.where()}: register address {a.describe()} + {rel} is outside the partition")
    start = a.partition * stride + byte
    return buf[start:start + n]


def no_effect(c: Ctx) -> None:
    """Sem.NONE: the bundle changes nothing but what its sync band does (the scheduler's)."""


#: What each kind of bundle does (:class:`~tongasm.isa.layout.Sem`, declared by the layout record).
HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.NONE: no_effect,
    Sem.TENSOR_TENSOR: tensor_tensor,
    Sem.COPY_PREDICATED: copy_predicated,
    Sem.COPY_PREDICATED_SCALAR: copy_predicated_scalar,
    Sem.SELECT_REDUCE: select_reduce,
    Sem.TENSOR_COPY: tensor_copy,
    Sem.MEMSET: memset,
    Sem.MOVE_SHAPE: move_shape,
    Sem.REGISTER_MOVE: register_move,
    Sem.REGISTER_ALU: register_alu,
    Sem.TENSOR_LOAD_SAVE: tensor_load_save,
}


# the PE, DMA and sync/control families
HANDLERS.update(HANDLERS_PE)
HANDLERS.update(HANDLERS_DMA)
HANDLERS.update(HANDLERS_CONTROL)

# --- the vector families: .semantics.reduce, .act, .scalar ---
from .semantics.act import ACT_HANDLERS  # noqa: E402
from .semantics.reduce import REDUCE_HANDLERS  # noqa: E402
from .semantics.scalar import SCALAR_HANDLERS  # noqa: E402

HANDLERS.update(REDUCE_HANDLERS)
HANDLERS.update(SCALAR_HANDLERS)
HANDLERS.update(ACT_HANDLERS)

# --- the Pool-engine (GPSIMD) opcodes of real output ---
from .semantics.gpsimd import GPSIMD_HANDLERS  # noqa: E402

HANDLERS.update(GPSIMD_HANDLERS)
# --- the DVE data-movement family: .move ---
from .semantics.move import MOVE_HANDLERS  # noqa: E402

HANDLERS.update(MOVE_HANDLERS)
# --- the DVE search and batch-norm backward families ---
from .semantics.batchnorm import BATCHNORM_HANDLERS  # noqa: E402
from .semantics.search import SEARCH_HANDLERS  # noqa: E402

HANDLERS.update(SEARCH_HANDLERS)
HANDLERS.update(BATCHNORM_HANDLERS)


def execute(m: Machine, engine: str, d: DecodedBundle, ds: DecisionSet) -> None:
    """Run one decoded bundle on ``engine`` (its sync band is the scheduler's business)."""
    handler = HANDLERS.get(d.fmt.layout.sem)
    if handler is None:
        raise SimError(f"{engine}+{d.offset:#x}: no semantics for {d.fmt.name}")
    handler(Ctx(m, engine, d, ds))
