"""The bundle checks over whole streams at numpy speed.

A stream is decoded once into columns (:func:`tongasm.decode.batch.decode_stream`). Each bundle check
may have a *vector form*: a function of a layout group's columns that marks the rows the check may
fail on. It is a prefilter, exact or conservative (it may mark more rows than fail, never fewer): the
scalar check of :mod:`.bundle_checks` then runs only on the marked rows and writes the findings, so
the findings, their messages and their order are exactly those of checking bundle by bundle. A check
without a vector form runs on every row of the layouts it applies to (correct, only slower).
``tests/test_check_vector.py`` holds the two paths equal on real, generated and mutated streams.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property

import numpy as np

from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import (
    BitvecOpcode, Int32BandGen3, Int32OverrideGen2, PredicateFlags, ScalarImmediateDtype, UpdateModeWire,
)
from ..isa.descriptors import (
    ADDR4_ACTIVE, ADDR4_ADDR_MASK, ADDR4_INDIRECT, ADDR4_REGMODE, MAX_REGISTER_ID_ADDR4, PSUM_BASE, PSUM_END,
    PSUM_PARTITION_BYTES, PSUM_PARTITION_SHIFT, SBUF_PARTITION_SHIFT,
)
from ..isa.enums import (
    ACC_WIRE, ALU_FROM_WIRE, ALU_INT_BAND, ALU_WIRE, INT_MASK_WIRE_DTYPES, PSUM_WRITE_WIRE_DTYPES, VALUELESS_UPDATES,
    WAIT_WIRE, WIDE_WIRE_DTYPES, WIRE_DTYPE_ALIGN, AccType, AluClass, AluOp, WaitMode, WireDtype,
)
from ..isa.fields import EnumTable, Format, Kind, Slot
from ..isa.layout import UpdateLane, WaitLane
from ..isa.layouts.tensor import INT32_FORMS_GEN2, MOVESHAPE_DIMS
from ..isa.opcodes import COPY, COPY_PREDICATED, RNG, TT_ARITH, TT_BITVEC
from ..isa.tables import ACC_TABLE, ALU_TABLE, WIRE_DTYPE_TABLE, update_table
from ..isa.targets import Target
from .bundle_checks import BundleView
from .registry import Finding


class Columns:
    """What a vector form sees: one layout's rows of a piece of a stream, as columns.

    Field columns come in their decoded (narrow) dtype; ``c[name]`` widens one to int64 once (so
    arithmetic cannot wrap), ``c.isin(name, values)`` tests membership on the narrow column through
    a look-up table, and ``c.space(slot)`` splits a slot's ADDR4 word once for every check that needs it.
    The raw rows are gathered only when a check asks for them."""

    def __init__(self, fmt: Format, fields: dict[str, np.ndarray], chunk: np.ndarray, index: np.ndarray,
                 target: Target, decisions: DecisionSet, stream: str | None) -> None:
        self.fmt, self.fields, self.chunk, self.index = fmt, fields, chunk, index
        self.target, self.decisions, self.stream = target, decisions, stream
        self._cache: dict[str, np.ndarray] = {}
        self._spaces: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._splits: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, name: str) -> np.ndarray:
        """A field's column, widened to int64 (arithmetic on it cannot wrap)."""
        col = self._cache.get(name)
        if col is None:
            col = self._cache[name] = self.fields[name].astype(np.int64)
        return col

    def has(self, name: str) -> bool:
        return name in self.fields

    def none(self) -> np.ndarray:
        return np.zeros(len(self.index), dtype=bool)

    def isin(self, name: str, values: Iterable[int]) -> np.ndarray:
        """Whether each row's field ``name`` is one of ``values``."""
        return _in(self.fields[name], values)

    def word(self, slot: Slot) -> np.ndarray:
        """The slot's ADDR4 word, uint32."""
        return self.fields[slot.addr_key]

    def split(self, slot: Slot) -> tuple[np.ndarray, np.ndarray]:
        """Per row, of the slot's ADDR4 word: register mode (bit 31), the address bits (uint32)."""
        got = self._splits.get(slot.addr_key)
        if got is None:
            w = self.word(slot)
            got = self._splits[slot.addr_key] = split_addr4(w)
        return got

    def space(self, slot: Slot) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per row, of the slot's ADDR4 word: is SBUF, is PSUM, partition, byte (decode_addr4, vectorised)."""
        got = self._spaces.get(slot.addr_key)
        if got is None:
            got = self._spaces[slot.addr_key] = _space(*self.split(slot))
        return got

    @cached_property
    def rows(self) -> np.ndarray:
        """The raw bundles, n x 64 uint8 (gathered on first use)."""
        return self.chunk[self.index]

    def row(self, k: int) -> np.ndarray:
        return self.chunk[self.index[k]]

    @cached_property
    def opcode(self) -> np.ndarray:
        return self.fields["opcode"]


VectorFn = Callable[[Columns], np.ndarray]
VECTOR: dict[str, VectorFn] = {}


def vector(check_id: str) -> Callable[[VectorFn], VectorFn]:
    """Declare the vector form of a bundle check."""
    def deco(fn: VectorFn) -> VectorFn:
        VECTOR[check_id] = fn
        return fn
    return deco


def by_classes(check: Callable[[BundleView], Iterable[Finding]], *names: str) -> VectorFn:
    """The exact vector form of a check that reads only the named fields (and the opcode, target,
    decisions and stream): the rows are grouped by the values of those fields, the scalar check runs
    once per group on its first row, and every row of a failing group is marked. Fast where real
    streams are: few distinct values of the fields a rule reads."""
    def fn(c: Columns) -> np.ndarray:
        if not len(c):
            return c.none()
        keys = [c.opcode] + [c.fields[n] for n in names if c.has(n)]
        # group by a 64-bit mix of the values (one fast integer sort); a row whose values differ from
        # its group's first row (a hash collision) is marked too, so nothing is missed
        h = np.zeros(len(c), dtype=np.uint64)
        for k in keys:
            h = h * np.uint64(0x9E3779B97F4A7C15) + k.astype(np.uint64)
        _u, first, inverse = np.unique(h, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        rep = first[inverse]
        collided = c.none()
        for k in keys:
            collided |= k != k[rep]
        bad = np.zeros(len(first), dtype=bool)
        for g, k in enumerate(first.tolist()):
            raw = c.row(k)
            view = BundleView(c.fmt, c.fmt.decode(raw), bytes(raw), c.target, c.decisions, c.stream)
            bad[g] = any(True for _f in check(view))
        return bad[inverse] | collided
    return fn


_LUTS: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}


def _in(col: np.ndarray, values: Iterable[int]) -> np.ndarray:
    """``np.isin(col, values)``; a byte or 16-bit column indexes a cached boolean table instead."""
    vals = tuple(sorted(set(int(v) for v in values)))
    if col.dtype in (np.uint8, np.uint16):
        size = 1 << (8 * col.dtype.itemsize)
        t = _LUTS.get((size, vals))
        if t is None:
            t = np.zeros(size, dtype=bool)
            t[[v for v in vals if 0 <= v < size]] = True
            _LUTS[(size, vals)] = t
        return t[col]
    return np.isin(col, np.asarray(vals, dtype=np.int64))



def _table(mapping: dict[int, int], default: int = 0) -> np.ndarray:
    """A 256-entry lookup array of a byte-valued mapping."""
    t = np.full(256, default, dtype=np.int64)
    for k, v in mapping.items():
        if 0 <= k < 256:
            t[k] = v
    return t


def _lut(table: np.ndarray, col: np.ndarray) -> np.ndarray:
    """``table[col]`` where col is a byte, else the table's default (index 0 is never a wire value here)."""
    if col.dtype == np.uint8:
        return table[col]
    inside = (col >= 0) & (col < 256)
    return np.where(inside, table[np.clip(col, 0, 255)], table[0])


_ALIGN = _table(dict(WIRE_DTYPE_ALIGN))
assert all(v & (v - 1) == 0 for v in WIRE_DTYPE_ALIGN.values()), "element sizes are powers of two"
_ALIGN_MASK = _table({k: v - 1 for k, v in WIRE_DTYPE_ALIGN.items()})  # address bits an element's alignment clears


# --- bytes and constants -----------------------------------------------------------------------------------

@vector("field.constant")
def _v_constants(c: Columns) -> np.ndarray:
    m = c.none()
    for f in c.fmt.fields:
        if f.const is not None:
            m |= c[f.name] != f.const
    return m


_COVERED: dict[Format, np.ndarray] = {}


@vector("bundle.unexplained")
def _v_unexplained(c: Columns) -> np.ndarray:
    inv = _COVERED.get(c.fmt)
    if inv is None:
        mask = np.frombuffer(c.fmt.covered_mask(), dtype=np.uint8)
        inv = _COVERED[c.fmt] = (~mask).view(np.uint64)
    words = c.chunk.view(np.uint64)  # the piece's bundles as rows of 8 words
    m = c.none()
    for j in np.flatnonzero(inv).tolist():  # only the words that hold an uncovered byte
        m |= (words[c.index, j] & inv[j]) != 0
    return m


# --- enum bytes ------------------------------------------------------------------------------------------------

@vector("enum.wire_dtype")
def _v_wire_dtypes(c: Columns) -> np.ndarray:
    m = c.none()
    known = list(WIRE_DTYPE_TABLE.names)
    for f in c.fmt.fields:
        if f.enum is WIRE_DTYPE_TABLE:
            bad = ~c.isin(f.name, known)
            if f.name == "fill_dtype" and c.has("use_fill"):
                bad &= ~((c[f.name] == 0) & (c["use_fill"] == 0))
            m |= bad
    return m


def _enum_of(table: EnumTable) -> VectorFn:
    def fn(c: Columns) -> np.ndarray:
        m = c.none()
        for f in c.fmt.fields:
            if f.enum is table:
                m |= ~c.isin(f.name, list(table.names))
        return m
    return fn


vector("enum.alu")(_enum_of(ALU_TABLE))
vector("enum.acc")(_enum_of(ACC_TABLE))


# --- sync band ----------------------------------------------------------------------------------------------------

_SEM_GE = (WAIT_WIRE[WaitMode.sem_ge_imm], WAIT_WIRE[WaitMode.sem_ge_reg])


def _waits(c: Columns) -> tuple[WaitLane, ...]:
    return c.fmt.sync.waits if c.fmt.sync is not None else ()


def _updates(c: Columns) -> tuple[UpdateLane, ...]:
    return c.fmt.sync.updates if c.fmt.sync is not None else ()


@vector("sync.wait_mode")
def _v_wait_mode(c: Columns) -> np.ndarray:
    m = c.none()
    for lane in _waits(c):
        m |= (c.fields[lane.mode] != 0) & ~c.isin(lane.mode, WAIT_WIRE.values())
    return m


@vector("sync.update_mode")
def _v_update_mode(c: Columns) -> np.ndarray:
    m = c.none()
    known = list(update_table(c.decisions).names)
    for lane in _updates(c):
        m |= ~c.isin(lane.mode, known)
    return m


@vector("sync.unused")
def _v_sync_unused(c: Columns) -> np.ndarray:
    lanes = c.fmt.sync
    if lanes is None:
        return c.none()
    d2 = c.decisions.get(UpdateModeWire)
    m = c.none()
    written: dict[str, np.ndarray] = {name: c.none() for name in lanes.values}
    for w in lanes.waits:
        m |= (c.fields[w.mode] == 0) & (c.fields[w.index] != 0)
        written[w.value] = written[w.value] | c.isin(w.mode, _SEM_GE)
    value_updates = [wire for wire, mode in d2.by_wire().items() if mode not in VALUELESS_UPDATES]
    for u in lanes.updates:
        if d2.zero_is_none:
            m |= (c.fields[u.mode] == 0) & (c.fields[u.index] != 0)
        written[u.value] = written[u.value] | c.isin(u.mode, value_updates)
    for name in lanes.values:
        m |= (c.fields[name] != 0) & ~written[name]
    return m


# --- registers and ADDR4 ------------------------------------------------------------------------------------

@vector("register.id_range")
def _v_register_ids(c: Columns) -> np.ndarray:
    limit = c.target.registers - 1
    m = c.none()
    for f in c.fmt.fields:
        if f.kind is Kind.REGISTER:
            m |= c.fields[f.name] > limit
    for lane in _waits(c):
        m |= (c.fields[lane.mode] == WAIT_WIRE[WaitMode.sem_ge_reg]) & (c.fields[lane.value] > limit)
    for s in c.fmt.slots.values():
        w = c.word(s)
        rid = w & 0xFF
        m |= c.split(s)[0] & ((w & 0x7FFFFF00) == 0) & (rid > limit) & (rid <= MAX_REGISTER_ID_ADDR4)
    return m


@vector("addr4.register_form")
def _v_addr4_register(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        w = c.word(s)
        m |= c.split(s)[0] & (((w & 0x7FFFFF00) != 0) | ((w & 0xFF) > MAX_REGISTER_ID_ADDR4))
    return m


@vector("addr4.mode_bits")
def _v_addr4_mode_bits(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        m |= ~c.split(s)[0] & ((c.word(s) & (ADDR4_INDIRECT | ADDR4_ACTIVE)) != 0)
    return m


@vector("addr4.region")
def _v_addr4_region(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        reg = c.split(s)[0]
        sb, ps, _p, _b = c.space(s)
        m |= ~reg & ~sb & ~ps
    return m


def _dtype_col(c: Columns, s: object) -> np.ndarray | None:
    name = getattr(s, "dtype_field", None)
    return c.fields[name] if name else None


@vector("addr4.alignment")
def _v_addr4_alignment(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        dt = _dtype_col(c, s)
        if dt is None:
            continue
        reg, a = c.split(s)
        m |= ~reg & ((a & _lut(_ALIGN_MASK, dt).astype(np.uint32)) != 0)
    return m


def split_addr4(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A uint32 column of ADDR4 words → (register mode, the address bits) per row."""
    return w >= ADDR4_REGMODE, w & np.uint32(ADDR4_ADDR_MASK)


def _space(reg: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per word (register-mode flag, address bits): is SBUF, is PSUM, partition, byte (the scalar
    decode_addr4, vectorised; partition and byte as int32)."""
    psum = ~reg & (a >= PSUM_BASE) & (a <= PSUM_END)
    sbuf = ~reg & (a < PSUM_BASE)  # the SBUF region is the addresses below PSUM_BASE (bit 25 clear)
    if not psum.any():
        return sbuf, psum, (a >> SBUF_PARTITION_SHIFT).astype(np.int32), \
            (a & ((1 << SBUF_PARTITION_SHIFT) - 1)).astype(np.int32)
    rel = a.astype(np.int64) - PSUM_BASE
    part = np.where(psum, rel >> PSUM_PARTITION_SHIFT, a >> SBUF_PARTITION_SHIFT).astype(np.int32)
    byte = np.where(psum, rel & ((1 << PSUM_PARTITION_SHIFT) - 1), a & ((1 << SBUF_PARTITION_SHIFT) - 1))
    return sbuf, psum, part, byte.astype(np.int32)


@vector("addr4.psum_window")
def _v_addr4_psum_window(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        _sb, ps, _p, byte = c.space(s)
        m |= ps & (byte >= PSUM_PARTITION_BYTES)
    return m


@vector("addr4.psum_write_dtype")
def _v_psum_write(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        dt = _dtype_col(c, s)
        if not getattr(s, "write", False) or dt is None:
            continue
        _sb, ps, _p, _b = c.space(s)
        m |= ps & ~_in(dt, PSUM_WRITE_WIRE_DTYPES)
    return m


@vector("geometry.partitions")
def _v_geometry_partitions(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        parts = getattr(s, "parts_field", None)
        if parts is None or not c.has(parts):
            continue
        sb, ps, part, _b = c.space(s)
        m |= (sb | ps) & (part + c.fields[parts] > 128)
    return m


@vector("geometry.bytes")
def _v_geometry_bytes(c: Columns) -> np.ndarray:
    m = c.none()
    sbuf_limit = c.target.sbuf_bytes_per_partition
    for s in c.fmt.slots.values():
        dt = _dtype_col(c, s)
        if dt is None:
            continue
        size = _lut(_ALIGN, dt)
        sb, ps, _p, byte = c.space(s)
        # a bound first: the widest extent any row of this piece could have (column maxima); only the
        # rows that bound cannot clear get the exact per-row extent
        big = int(size.max()) if len(size) else 0
        lo = hi = 0
        for sk, nk in zip(s.step_keys, s.num_keys):
            most = int(c.fields[nk].max()) - 1 if len(size) else 0
            if most > 0:
                st = c.fields[sk]
                lo += min(int(st.min()), 0) * most * big
                hi += max(int(st.max()), 0) * most * big
        near = (sb & (byte > sbuf_limit - hi - big)) | (ps & (byte > PSUM_PARTITION_BYTES - hi - big))
        if lo < 0:
            near |= (sb | ps) & (byte < -lo)
        rows = np.flatnonzero(near)
        if len(rows):
            m[rows] |= _geometry_exact(c, s, rows, size[rows], sb[rows], ps[rows], byte[rows], sbuf_limit)
    return m


def _geometry_exact(c: Columns, s: Slot, rows: np.ndarray, size: np.ndarray, sb: np.ndarray, ps: np.ndarray,
                    byte: np.ndarray, sbuf_limit: int) -> np.ndarray:
    lo = np.zeros(len(rows), dtype=np.int64)
    hi = np.zeros(len(rows), dtype=np.int64)
    for sk, nk in zip(s.step_keys, s.num_keys):
        num = c[nk][rows]
        span = np.where(num > 1, c[sk][rows] * (num - 1) * size, 0)
        lo += np.minimum(span, 0)
        hi += np.maximum(span, 0)
    limit = np.where(sb, sbuf_limit, PSUM_PARTITION_BYTES)
    first, last = byte + lo, byte + hi + size - 1
    return (sb | ps) & (size > 0) & ((first < 0) | (last >= limit))


@vector("desc.count_range")
def _v_desc_counts(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        for k in s.num_keys:
            m |= c[k] == 0
    return m


@vector("partitions.count")
def _v_partitions(c: Columns) -> np.ndarray:
    n = c["num_partitions"]
    return (n < 1) | (n > 128)


# --- TensorTensor ---------------------------------------------------------------------------------------------

_CLASS = {wire: cls for _op, (wire, cls) in ALU_WIRE.items()}
_IS_BITVEC_WIRE = [w for w, cls in _CLASS.items() if cls is AluClass.BITVEC]
_GEN2_INT32 = {o.byte: w for o, w in INT32_FORMS_GEN2.values()}


@vector("tt.opcode_class")
def _v_tt_class(c: Columns) -> np.ndarray:
    op, byte = c.opcode, c.fields["op"]
    relevant = _in(op, (TT_ARITH.byte, TT_BITVEC.byte)) & ~_in(byte, ALU_INT_BAND) & _in(byte, _CLASS)
    bitvec = _in(byte, _IS_BITVEC_WIRE)
    if c.decisions.get(BitvecOpcode).is_bitvec(AluOp.bypass, AluClass.ARITH):
        bitvec |= byte == ALU_WIRE[AluOp.bypass][0]
    return relevant & (((op == TT_BITVEC.byte) & ~bitvec) | ((op == TT_ARITH.byte) & bitvec))


@vector("tt.int_band")
def _v_tt_band(c: Columns) -> np.ndarray:
    op, byte = c.opcode, c.fields["op"]
    gen2 = c.target.name == "gen2"
    gen2_form = _in(op, _GEN2_INT32)
    band = _in(byte, ALU_INT_BAND)
    want = _lut(_table(_GEN2_INT32), op)
    bad = gen2_form & ((want != byte) | (not gen2))
    band_ok = c.decisions.get(Int32BandGen3).band_on_0x41(c.target.name)  # D-21
    bad |= ~gen2_form & band & ((op != TT_ARITH.byte) | (not band_ok))
    involved = gen2_form | band
    int32 = (c["in0_dtype"] == WireDtype.INT32) & (c["in1_dtype"] == WireDtype.INT32) & (c["out_dtype"] == WireDtype.INT32)
    bad |= involved & ~int32
    pool_gate = gen2 and c.decisions.get(Int32OverrideGen2).gate(False)
    if c.stream is not None and c.stream != "pool" and not pool_gate:
        bad |= involved
    return bad


@vector("tt.gpsimd_psum")
def _v_tt_psum(c: Columns) -> np.ndarray:
    if c.stream != "pool":
        return c.none()
    m = c.none()
    for name in ("in0", "in1"):
        _sb, ps, _p, _b = c.space(c.fmt.slots[name])
        m |= ps
    return m


_DIV_LIKE = [ALU_WIRE[AluOp.divide][0], ALU_WIRE[AluOp.rsqrt][0]]


@vector("tt.alu_legal")
def _v_tt_alu_legal(c: Columns) -> np.ndarray:
    byte = c.fields["op"]
    mod = (byte == ALU_WIRE[AluOp.mod][0]) & ~(c.isin("in0_dtype", INT_MASK_WIRE_DTYPES) &
                                                c.isin("in1_dtype", INT_MASK_WIRE_DTYPES))
    return (c.opcode == TT_ARITH.byte) & (_in(byte, _DIV_LIKE) | mod)


@vector("dtype.datapath")
def _v_datapath(c: Columns) -> np.ndarray:
    m = c.none()
    for s in c.fmt.slots.values():
        dt = _dtype_col(c, s)
        if dt is None:
            continue
        m |= _in(dt, WIDE_WIRE_DTYPES)
        if not s.write:
            m |= dt == WireDtype.FLOAT32R
    return m


# --- the predicated family, copies, Memset, MoveShape -------------------------------------------------------

@vector("cp.mask_dtype")
def _v_mask_dtype(c: Columns) -> np.ndarray:
    return ~c.isin("mask_dtype", INT_MASK_WIRE_DTYPES)


def _v_equal_elements(c: Columns) -> np.ndarray:
    counts = []
    for s in c.fmt.slots.values():
        e = np.ones(len(c), dtype=np.int64)
        for k in s.num_keys:
            e = e * c[k]
        counts.append(e)
    m = c.none()
    for e in counts[1:]:
        m |= e != counts[0]
    return m


for _id in ("cp.equal_elements", "tt.equal_elements", "copy.equal_elements"):
    vector(_id)(_v_equal_elements)


@vector("cp.opcode_dtype")
def _v_cp_opcode(c: Columns) -> np.ndarray:
    return (c.opcode == COPY_PREDICATED.byte) & (c["src_dtype"] != c["dst_dtype"])


@vector("copy.opcode_dtype")
def _v_copy_opcode(c: Columns) -> np.ndarray:
    return (c.opcode == COPY.byte) & (c["src_dtype"] != c["dst_dtype"])


@vector("cps.imm_dtype")
def _v_cps_dtype(c: Columns) -> np.ndarray:
    if not c.decisions.get(ScalarImmediateDtype).must_equal:
        return c.none()
    return c["scalar_dtype"] != c["dst_dtype"]


@vector("cps.polarity")
def _v_cps_polarity(c: Columns) -> np.ndarray:
    return c["polarity"] > 1


@vector("sr.flags")
def _v_sr_flags(c: Columns) -> np.ndarray:
    return c["use_fill"] > 1


@vector("sr.op_max")
def _v_sr_op(c: Columns) -> np.ndarray:
    return c["reduce_op"] != ALU_WIRE[AluOp.max][0]


@vector("sr.acc")
def _v_sr_acc(c: Columns) -> np.ndarray:
    ok = [ACC_WIRE[a] for a in (AccType.Idle, AccType.ZeroAccumulate, AccType.AddAccumulate)]
    return ~c.isin("acc", ok)


@vector("sr.operands")
def _v_sr_fill_required(c: Columns) -> np.ndarray:
    if not c.decisions.get(PredicateFlags).fill_required:
        return c.none()
    return c["use_fill"] == 0


_SR_BAD = [WireDtype.FLOAT32R, WireDtype.INT32, WireDtype.UINT32, *WIDE_WIRE_DTYPES]


@vector("sr.dtypes")
def _v_sr_dtypes(c: Columns) -> np.ndarray:
    m = c.none()
    for name in ("mask_dtype", "src_dtype", "dst_dtype", "fill_dtype"):
        m |= c.isin(name, _SR_BAD)
    return m


@vector("sr.fill_float32")
def _v_sr_fill_dtype(c: Columns) -> np.ndarray:
    return (c["use_fill"] != 0) & (c["fill_dtype"] != WireDtype.FLOAT32)


@vector("memset.element_count")
def _v_memset_count(c: Columns) -> np.ndarray:
    e = np.ones(len(c), dtype=np.int64)
    for k in c.fmt.slots["dst"].num_keys:
        e = e * c[k]
    return c["element_count"] != e


@vector("memset.random_zero")
def _v_memset_random(c: Columns) -> np.ndarray:
    return (c.opcode == RNG.byte) & (c["fill"] != 0)


@vector("memset.fill_width")
def _v_memset_fill(c: Columns) -> np.ndarray:
    return c["fill"] > 0xFF  # a superset: the scalar check knows the dtype's width


@vector("moveshape.counts")
def _v_moveshape_counts(c: Columns) -> np.ndarray:
    m = c.none()
    for i in range(MOVESHAPE_DIMS):
        m |= c[f"count{i}"] == 0
    return m


# --- SP register-lane ops ------------------------------------------------------------------------------------

_MOVE32 = [WireDtype.FLOAT32, WireDtype.UINT32, WireDtype.INT32]


@vector("move.dtype")
def _v_move_dtype(c: Columns) -> np.ndarray:
    dt, vn = c["dtype"], c["valid_num"]
    return ((vn == 2) & (dt != WireDtype.INT32)) | ((vn == 1) & ~_in(dt, _MOVE32))


@vector("reg.pair")
def _v_pairs(c: Columns) -> np.ndarray:
    lo = c["dst_lo"] if c.has("dst_lo") else c["dst"]
    m = c["dst_hi"] != lo + 1
    if c.has("dst_lo"):
        m |= c["dst_lo"] != c["dst"]
    return m


@vector("alu.valid_op")
def _v_alu_op(c: Columns) -> np.ndarray:
    return ~c.isin("op", _CLASS)


@vector("alu.dtypes")
def _v_alu_dtype(c: Columns) -> np.ndarray:
    wide = c.has("dst_hi")
    allowed = [WireDtype.UINT64] if wide else [WireDtype.UINT32, WireDtype.INT32, *WIDE_WIRE_DTYPES]
    return ~c.isin("src_dtype", allowed)


@vector("ls.pairs")
def _v_ls_counts(c: Columns) -> np.ndarray:
    return (c["num_elem0"] == 0) | (c["num_elem1"] == 0)


__all__ = ["VECTOR", "Columns", "by_classes", "split_addr4", "vector", "ALU_FROM_WIRE"]
