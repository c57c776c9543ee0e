"""Bundle-level checks: rules on the decoded fields of one 64-byte bundle.

They read only what the bytes say (plus the target, the decision selection and, when known, the
engine stream), so the same checks run on bundles tongasm builds (RUN_ISA_CHECKS) and on raw
streams no one here produced. Which checks apply to a layout is worked out once per format from
its declarations (slots, enum tables, field kinds), not from byte offsets written here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable, Iterator

from ..isa.decisions import DecisionSet
from ..isa.decisions.spec import (
    BitvecOpcode, Int32BandGen3, Int32OverrideGen2, PredicateFlags, ScalarImmediateDtype, UpdateModeWire,
)
from ..isa.descriptors import (
    ADDR4_ACTIVE, ADDR4_ADDR_MASK, ADDR4_INDIRECT, ADDR4_REGMODE, MAX_REGISTER_ID_ADDR4, PSUM_BASE, PSUM_END,
    PSUM_PARTITION_BYTES, decode_addr4,
)
from ..isa.enums import (
    DTYPE_INFO, ACC_WIRE, ALU_FROM_WIRE, ALU_INT_BAND, ALU_WIRE, INT_MASK_WIRE_DTYPES, PSUM_WRITE_WIRE_DTYPES, VALUELESS_UPDATES,
    WIDE_WIRE_DTYPES, WIRE_DTYPE_ALIGN, AccType, AluOp, WaitMode, WireDtype, WAIT_WIRE,
)
from ..isa.layouts.tensor import INT32_FORMS_GEN2, MOVESHAPE_DIMS
from ..isa.opcodes import COPY, COPY_PREDICATED, RNG, TT_ARITH, TT_BITVEC
from ..isa.fields import BUNDLE_SIZE, Field, Format, Kind, Slot
from ..isa.layout import Sem
from ..isa.tables import ACC_TABLE, ALU_TABLE, WIRE_DTYPE_TABLE, update_table
from ..isa.targets import Target
from .registry import Finding, register


@dataclass
class BundleView:
    """What a bundle check sees: the layout, the decoded fields, the raw bytes and the context."""

    fmt: Format
    fields: dict[str, int]
    raw: bytes
    target: Target
    decisions: DecisionSet
    stream: str | None = None  # engine stream name when known (kernel checks, or a named .bin)

    @property
    def opcode(self) -> int:
        return self.fields["opcode"]


BundleCheckFn = Callable[[BundleView], Iterator[Finding]]


@dataclass(frozen=True)
class BundleCheck:
    id: str
    applies: Callable[[Format], bool]
    fn: BundleCheckFn
    stage: str  # "isa" (RUN_ISA_CHECKS) or "bir" (the BIR verifier's rules, reported but not refused)


BUNDLE_CHECKS: list[BundleCheck] = []


def bundle_check(id: str, title: str, source: str, *, applies: Callable[[Format], bool] | None = None,
                 when: Callable[[Format], bool] | None = None, pedantic: bool = False,
                 stage: str = "isa") -> Callable[[BundleCheckFn], BundleCheckFn]:
    """Declare a bundle check (id, one-line title, spec source) and the layouts it applies to.

    A *structural* check gives ``applies`` (a test on the layout's declarations: it has slots, an
    enum field of some kind...). Otherwise it is a *family* check: it applies to the layouts whose
    record lists its id in ``checks`` (and, if given, for which ``when`` holds).
    """
    register(id, title, source, "bundle", pedantic=pedantic, stage=stage)
    if applies is None:
        def applies(f: Format) -> bool:
            return id in f.layout.checks and (when is None or when(f))

    def deco(fn: BundleCheckFn) -> BundleCheckFn:
        BUNDLE_CHECKS.append(BundleCheck(id, applies, fn, stage))
        return fn

    return deco


def _f(check: str, message: str, field: str | None = None, value: object = None, allowed: str | None = None) -> Finding:
    return Finding(check, message, field, value, allowed)


def _has(field: str) -> Callable[[Format], bool]:
    return lambda f: field in f.field_map


# --- bytes and constants (SPEC §3.1, §3.2) ----------------------------------------------------------

@bundle_check("field.constant", "constant and reserved fields hold their value (inst_word_len 0x10, reserved 0...)",
              "SPEC §3.2, D-1", applies=lambda f: True)
def _constants(b: BundleView) -> Iterator[Finding]:
    for f in _fields_where(b.fmt, "const"):
        if b.fields[f.name] != f.const:
            yield _f("field.constant", f"{f.doc or 'constant'} must be {f.const:#x}", f.name, b.fields[f.name],
                     f"{f.const:#x}")


@bundle_check("bundle.unexplained", "every non-zero byte belongs to a field of the bundle's layout (unwritten "
              "bytes are 0x00)", "SPEC §3.1", applies=lambda f: True)
def _unexplained(b: BundleView) -> Iterator[Finding]:
    mask = _covered(b.fmt)
    if not int.from_bytes(b.raw, "little") & ~int.from_bytes(mask, "little"):
        return
    bad = [i for i in range(BUNDLE_SIZE) if b.raw[i] & ~mask[i] & 0xFF]
    for start, end in _runs(bad):
        seg = b.raw[start:end + 1].hex()
        yield _f("bundle.unexplained", f"non-zero byte(s) {seg} at +{start:#04x}..+{end:#04x} that no field of "
                 f"{b.fmt.name} explains", f"+{start:#04x}", seg, "00")


_COVER: dict[Format, bytes] = {}  # keyed by the Format object itself (an id could be reused)
_WHERE: dict[tuple[Format, str], list[Field]] = {}


def _fields_where(fmt: Format, what: str) -> list[Field]:
    """The fields of a layout that some checks visit: "const" (constant/reserved), "dtype" (wire
    dtype enums), "register" (register ids). Worked out once per layout."""
    key = (fmt, what)
    out = _WHERE.get(key)
    if out is None:
        test = {"const": lambda f: f.const is not None, "dtype": lambda f: f.enum is WIRE_DTYPE_TABLE,
                "register": lambda f: f.kind is Kind.REGISTER}[what]
        out = _WHERE[key] = [f for f in fmt.fields if test(f)]
    return out


def _covered(fmt: Format) -> bytes:
    m = _COVER.get(fmt)
    if m is None:
        m = _COVER[fmt] = fmt.covered_mask()
    return m


def _runs(idx: list[int]) -> Iterator[tuple[int, int]]:
    if not idx:
        return
    start = prev = idx[0]
    for i in idx[1:]:
        if i != prev + 1:
            yield start, prev
            start = i
        prev = i
    yield start, prev


# --- enum bytes (SPEC §2) ------------------------------------------------------------------------

@bundle_check("enum.wire_dtype", "dtype fields hold a known wire dtype (1..15 on gen2/gen3)", "SPEC §2.1",
              applies=lambda f: any(x.enum is WIRE_DTYPE_TABLE for x in f.fields))
def _wire_dtypes(b: BundleView) -> Iterator[Finding]:
    for f in _fields_where(b.fmt, "dtype"):
        v = b.fields[f.name]
        if f.name == "fill_dtype" and v == 0 and not b.fields.get("use_fill"):
            continue  # SelectReduce without a fill writes 0
        if v not in WIRE_DTYPE_TABLE.names:
            yield _f("enum.wire_dtype", "unknown wire dtype", f.name, v, "1..15")


@bundle_check("enum.alu", "ALU bytes are known wire values (SPEC §2.2 table or the int32 band)", "SPEC §2.2",
              applies=lambda f: any(x.enum is ALU_TABLE for x in f.fields))
def _alu_bytes(b: BundleView) -> Iterator[Finding]:
    for f in b.fmt.fields:
        if f.enum is ALU_TABLE and b.fields[f.name] not in ALU_TABLE.names:
            yield _f("enum.alu", "unknown ALU byte (never produced on gen2/gen3)", f.name, b.fields[f.name],
                     "the §2.2 table, 0xC4..0xC7")


@bundle_check("enum.acc", "accumulation bytes are known wire values", "SPEC §2.3",
              applies=lambda f: any(x.enum is ACC_TABLE for x in f.fields))
def _acc_bytes(b: BundleView) -> Iterator[Finding]:
    for f in b.fmt.fields:
        if f.enum is ACC_TABLE and b.fields[f.name] not in ACC_TABLE.names:
            yield _f("enum.acc", "unknown accumulation byte", f.name, b.fields[f.name], "0..4")


# --- sync band (SPEC §3.2) -----------------------------------------------------------------------

def _has_waits(f: Format) -> bool:
    return f.sync is not None and bool(f.sync.waits)


def _has_updates(f: Format) -> bool:
    return f.sync is not None and bool(f.sync.updates)


@bundle_check("sync.wait_mode", "the wait-mode byte is none or a known wait mode (0x07, 0x05, 0x85)", "SPEC §2.3",
              applies=_has_waits)
def _wait_mode(b: BundleView) -> Iterator[Finding]:
    for lane in b.fmt.sync.waits:  # type: ignore[union-attr]
        v = b.fields[lane.mode]
        if v != 0 and v not in WAIT_WIRE.values():
            yield _f("sync.wait_mode", "unknown wait mode", lane.mode, v, "0, 0x05, 0x07, 0x85")


@bundle_check("sync.update_mode", "the update-mode byte is none or a known update mode (LUT 11 15 17 13 14 19)",
              "SPEC §2.3, D-2", applies=_has_updates)
def _update_mode(b: BundleView) -> Iterator[Finding]:
    names = update_table(b.decisions).names
    for lane in b.fmt.sync.updates:  # type: ignore[union-attr]
        v = b.fields[lane.mode]
        if v not in names:
            yield _f("sync.update_mode", "unknown update mode", lane.mode, v, ", ".join(f"{k:#x}" for k in names))


@bundle_check("sync.unused", "semaphore indexes and the shared value are zero when no mode uses them", "SPEC §3.2",
              applies=lambda f: f.sync is not None)
def _sync_unused(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    lanes = b.fmt.sync
    assert lanes is not None
    d2 = b.decisions.get(UpdateModeWire)
    written: set[str] = set()  # value fields some lane writes
    for w in lanes.waits:
        if fv[w.mode] == 0 and fv[w.index]:
            yield _f("sync.unused", "wait index set without a wait mode", w.index, fv[w.index], "0")
        if fv[w.mode] in (WAIT_WIRE[WaitMode.sem_ge_imm], WAIT_WIRE[WaitMode.sem_ge_reg]):
            written.add(w.value)
    for u in lanes.updates:
        # D-2: under the raw reading 0 is evt_set (a value-carrying update) as much as "none"
        upd = d2.mode(fv[u.mode])
        if fv[u.mode] == 0 and fv[u.index] and d2.zero_is_none:
            yield _f("sync.unused", "update index set without an update mode", u.index, fv[u.index], "0")
        if upd is not None and upd not in VALUELESS_UPDATES:
            written.add(u.value)
    for name in lanes.values:
        if fv[name] and name not in written:
            what = ("the shared value dword is set but neither the wait nor the update writes it"
                    if lanes.shared_value(name) else f"{name} is set but its lane does not write it")
            yield _f("sync.unused", what, name, fv[name], "0")


# --- registers (SPEC §1) ---------------------------------------------------------------------------

@bundle_check("register.id_range", "register ids are usable physical registers (0..61)", "SPEC §1",
              applies=lambda f: any(x.kind is Kind.REGISTER for x in f.fields) or _has_waits(f) or bool(f.slots))
def _register_ids(b: BundleView) -> Iterator[Finding]:
    limit = b.target.registers - 1
    for f in _fields_where(b.fmt, "register"):
        if b.fields[f.name] > limit:
            yield _f("register.id_range", "register id out of range", f.name, b.fields[f.name], f"0..{limit}")
    for lane in b.fmt.sync.waits if b.fmt.sync is not None else ():
        if b.fields[lane.mode] == WAIT_WIRE[WaitMode.sem_ge_reg] and b.fields[lane.value] > limit:
            yield _f("register.id_range", "sem_ge_reg wait register out of range", lane.value, b.fields[lane.value],
                     f"0..{limit}")
    for s in b.fmt.slots.values():
        w = b.fields[s.addr_key]
        if (w & 0x7FFFFF00) == 0 and w & ADDR4_REGMODE and limit < (w & 0xFF) <= MAX_REGISTER_ID_ADDR4:
            yield _f("register.id_range", "address register out of range", f"{s.name}.addr", w & 0xFF,
                     f"0..{limit}")


# --- ADDR4 and descriptors (SPEC §3.3, §3.4) --------------------------------------------------------

def _slot_dtype(b: BundleView, s: Slot) -> int | None:
    return b.fields.get(s.dtype_field) if s.dtype_field else None


def _elements(b: BundleView, s: Slot) -> int:
    return math.prod(b.fields[k] for k in s.num_keys)


_has_slots: Callable[[Format], bool] = lambda f: bool(f.slots)  # noqa: E731


@bundle_check("addr4.register_form", "a register-mode ADDR4 has bits 8..30 zero and a register id < 0x40",
              "SPEC §3.3", applies=_has_slots)
def _addr4_register(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        w = b.fields[s.addr_key]
        if w & ADDR4_REGMODE:
            if w & 0x7FFFFF00:
                yield _f("addr4.register_form", "register-mode address with bits 8..30 set", f"{s.name}.addr", w,
                         "0x80000000 | id")
            elif (w & 0xFF) > MAX_REGISTER_ID_ADDR4:
                yield _f("addr4.register_form", "register id too large for register mode", f"{s.name}.addr", w & 0xFF,
                         f"0..{MAX_REGISTER_ID_ADDR4:#x}")


@bundle_check("addr4.mode_bits", "the indirect (bit 29) and active (bit 30) markers are not set (no encoder here "
              "produces them)", "SPEC §3.3", applies=_has_slots)
def _addr4_mode_bits(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        w = b.fields[s.addr_key]
        if not w & ADDR4_REGMODE and w & (ADDR4_INDIRECT | ADDR4_ACTIVE):
            which = "indirect-gather (bit 29)" if w & ADDR4_INDIRECT else "dynamic/active (bit 30)"
            yield _f("addr4.mode_bits", f"{which} marker set; these layouts carry static addresses only",
                     f"{s.name}.addr", w)


@bundle_check("addr4.region", "a static address lies in SBUF (bits 25..28 zero) or in the PSUM window "
              "[0x2000000, 0x23FFFFF]", "SPEC §3.3", applies=_has_slots)
def _addr4_region(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        w = b.fields[s.addr_key]
        if w & ADDR4_REGMODE:
            continue
        a = w & ADDR4_ADDR_MASK
        if a >> 25 and not PSUM_BASE <= a <= PSUM_END:
            yield _f("addr4.region", "address is neither SBUF nor inside the PSUM window", f"{s.name}.addr", w,
                     "SBUF < 0x2000000, PSUM 0x2000000..0x23FFFFF")


@bundle_check("addr4.alignment", "a start address is aligned to the element size of its wire dtype",
              "SPEC §2.1, §3.3", applies=_has_slots)
def _addr4_alignment(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        w = b.fields[s.addr_key]
        align = WIRE_DTYPE_ALIGN.get(_slot_dtype(b, s) or 0)
        if w & ADDR4_REGMODE or align is None:
            continue
        if (w & ADDR4_ADDR_MASK) % align:
            yield _f("addr4.alignment", f"start address not aligned to the {align}-byte element size",
                     f"{s.name}.addr", w, f"a multiple of {align}")


@bundle_check("addr4.psum_window", "a PSUM address stays inside its partition's 16 KiB window (8 banks x 2 KiB)",
              "SPEC §3.3, §3.4", applies=_has_slots)
def _addr4_psum_window(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        a = decode_addr4(b.fields[s.addr_key])
        if a.space == "psum" and a.byte is not None and a.byte >= PSUM_PARTITION_BYTES:
            yield _f("addr4.psum_window", "PSUM byte offset beyond the 16 KiB partition window", f"{s.name}.addr",
                     b.fields[s.addr_key], f"byte < {PSUM_PARTITION_BYTES:#x}")


@bundle_check("addr4.psum_write_dtype", "an operand written to PSUM has a 4-byte wire dtype (8, 9, 10, 11)",
              "SPEC §2.1", applies=_has_slots)
def _psum_write(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        if not s.write:
            continue
        a = decode_addr4(b.fields[s.addr_key])
        dt = _slot_dtype(b, s)
        if a.space == "psum" and dt is not None and dt not in PSUM_WRITE_WIRE_DTYPES:
            yield _f("addr4.psum_write_dtype", "a PSUM write needs a 4-byte dtype", s.dtype_field, dt,
                     "INT32, UINT32, FLOAT32, FLOAT32R")


@bundle_check("geometry.partitions", "start partition + partition count <= 128", "SPEC §3.4",
              applies=lambda f: any(s.parts_field in f.field_map for s in f.slots.values()))
def _geometry_partitions(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        if s.parts_field not in b.fields:
            continue
        n = b.fields[s.parts_field]
        a = decode_addr4(b.fields[s.addr_key])
        if a.space in ("sbuf", "psum") and a.partition is not None and a.partition + n > 128:
            yield _f("geometry.partitions", f"start partition {a.partition} + {n} partitions exceeds 128",
                     f"{s.name}.addr", a.partition, f"0..{128 - n}" if n <= 128 else "none: the count exceeds 128")


@bundle_check("geometry.bytes", "the bytes an operand touches stay inside its partition (SBUF: the target's bytes "
              "per partition; PSUM: 16 KiB)", "SPEC §3.4", applies=_has_slots)
def _geometry_bytes(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        a = decode_addr4(b.fields[s.addr_key])
        size = WIRE_DTYPE_ALIGN.get(_slot_dtype(b, s) or 0)
        if a.space not in ("sbuf", "psum") or a.byte is None or size is None:
            continue
        lo, hi = s.extent(b.fields, size)
        limit = b.target.sbuf_bytes_per_partition if a.space == "sbuf" else PSUM_PARTITION_BYTES
        first, last = a.byte + lo, a.byte + hi
        if first < 0 or last >= limit:
            yield _f("geometry.bytes", f"{s.name} touches bytes {first:#x}..{last:#x} of its "
                     f"{'SBUF' if a.space == 'sbuf' else 'PSUM'} partition", f"{s.name}", f"{first:#x}..{last:#x}",
                     f"0x0..{limit - 1:#x}")


@bundle_check("desc.count_range", "descriptor counts are non-zero", "SPEC §3.4", applies=_has_slots)
def _desc_counts(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        for k in s.num_keys:
            if b.fields[k] == 0:
                yield _f("desc.count_range", "zero count in a descriptor", k, 0, "1..65535")


@bundle_check("partitions.count", "the partition-count byte is 1..128", "SPEC §3.4",
              applies=_has("num_partitions"))
def _partitions(b: BundleView) -> Iterator[Finding]:
    n = b.fields["num_partitions"]
    if not 1 <= n <= 128:
        yield _f("partitions.count", "partition count out of range", "num_partitions", n, "1..128")


# --- TensorTensor (SPEC §4.4) -------------------------------------------------------------------------

_CLASS = {wire: cls for _op, (wire, cls) in ALU_WIRE.items()}
_BYPASS = ALU_WIRE[AluOp.bypass][0]
_INT32 = WireDtype.INT32
#: gen2 GPSIMD int32 opcode byte → the ALU band byte it carries (D-13)
_GEN2_INT32_BYTES = {o.byte: w for o, w in INT32_FORMS_GEN2.values()}


@bundle_check("tt.opcode_class", "0x51 carries a bit-vector ALU op, 0x41 an arithmetic or compare op (bypass on "
              "0x41)", "SPEC §4.4, D-12")
def _tt_class(b: BundleView) -> Iterator[Finding]:
    op, byte = b.opcode, b.fields["op"]
    if op not in (TT_ARITH.byte, TT_BITVEC.byte) or byte in ALU_INT_BAND or byte not in _CLASS:
        return
    bitvec = b.decisions.get(BitvecOpcode).is_bitvec(ALU_FROM_WIRE[byte], _CLASS[byte])
    if op == TT_BITVEC.byte and not bitvec:
        yield _f("tt.opcode_class", f"{ALU_TABLE.names[byte]} is not a bit-vector op; it belongs on 0x41", "op", byte,
                 "bit-vector ops")
    if op == TT_ARITH.byte and bitvec:
        yield _f("tt.opcode_class", f"{ALU_TABLE.names[byte]} is a bit-vector op; it belongs on 0x51", "op", byte,
                 "arithmetic and compare ops")


@bundle_check("tt.int_band", "the GPSIMD int32 forms are coherent: 0x8A/0xC4 and 0x8E/0xC5 on gen2, the 0xC4..0xC7 "
              "band on 0x41 on gen3, all operands int32, on the Pool engine", "SPEC §4.4, D-13, D-21")
def _tt_band(b: BundleView) -> Iterator[Finding]:
    op, byte = b.opcode, b.fields["op"]
    fv = b.fields
    int32 = fv["in0_dtype"] == fv["in1_dtype"] == fv["out_dtype"] == _INT32
    gen2 = b.target.name == "gen2"
    pool_gate = gen2 and b.decisions.get(Int32OverrideGen2).gate(False)
    want = _GEN2_INT32_BYTES.get(op)
    if want is not None:
        if not gen2:
            yield _f("tt.int_band", f"opcode {op:#04x} is the gen2 GPSIMD form; gen3 keeps 0x41 (D-21)", "opcode", op,
                     "0x41 on gen3")
        if byte != want:
            yield _f("tt.int_band", f"opcode {op:#04x} carries ALU byte {want:#04x}", "op", byte, f"{want:#04x}")
    elif byte in ALU_INT_BAND:
        if op != TT_ARITH.byte or not b.decisions.get(Int32BandGen3).band_on_0x41(b.target.name):
            where = "0x41" if b.decisions.get(Int32BandGen3).band_on_0x41("gen2") else "gen3 0x41"
            yield _f("tt.int_band", f"the int32 band byte stands only on {where} (D-21)", "op", byte,
                     f"0xC4..0xC7 only on {where}")
    else:
        return
    if not int32:
        yield _f("tt.int_band", "the GPSIMD int32 forms need in0, in1 and out all int32", "in0_dtype",
                 (fv["in0_dtype"], fv["in1_dtype"], fv["out_dtype"]), "INT32 x3")
    if b.stream is not None and b.stream != "pool" and not pool_gate:
        yield _f("tt.int_band", "the GPSIMD int32 forms run on the Pool engine", "engine", b.stream, "pool")


@bundle_check("tt.gpsimd_psum", "GPSIMD (Pool) cannot read PSUM", "SPEC §4.4")
def _tt_psum(b: BundleView) -> Iterator[Finding]:
    if b.stream != "pool":
        return
    for s in ("in0", "in1"):
        if decode_addr4(b.fields[f"{s}.addr"]).space == "psum":
            yield _f("tt.gpsimd_psum", "GPSIMD engine cannot access PSUM", f"{s}.addr", b.fields[f"{s}.addr"])


_DIV_LIKE = {ALU_WIRE[AluOp.divide][0], ALU_WIRE[AluOp.rsqrt][0]}
_MOD = ALU_WIRE[AluOp.mod][0]
_INT_WIRE = INT_MASK_WIRE_DTYPES


@bundle_check("tt.alu_legal", "ALU ops the ISA header allows on TensorTensor 0x41 (no divide/rsqrt; mod only on "
              "integers)", "semantics dossier §4.2 (ISA header)", pedantic=True)
def _tt_alu_legal(b: BundleView) -> Iterator[Finding]:
    if b.opcode != TT_ARITH.byte:
        return
    byte = b.fields["op"]
    if byte in _DIV_LIKE:
        yield _f("tt.alu_legal", f"{ALU_TABLE.names[byte]} is not in the ISA's general arithmetic set for 0x41", "op",
                 byte)
    if byte == _MOD and not {b.fields["in0_dtype"], b.fields["in1_dtype"]} <= _INT_WIRE:
        yield _f("tt.alu_legal", "mod is admitted on 0x41 only with integer operands", "op", byte)


@bundle_check("dtype.datapath", "datapath dtypes: no 64-bit operands in tensor ops, FLOAT32R only as an output",
              "semantics dossier §2.2 (is_valid_dtype)", pedantic=True,
              applies=lambda f: bool(f.slots) and f.layout.sem is not Sem.TENSOR_SCALAR_ADDR)
# TensorScalarAddr (0x74) is address arithmetic: 290 of its 458 distinct real bundles write uint64
def _datapath(b: BundleView) -> Iterator[Finding]:
    for s in b.fmt.slots.values():
        dt = _slot_dtype(b, s)
        if dt in WIDE_WIRE_DTYPES:
            yield _f("dtype.datapath", "64-bit dtypes are not datapath dtypes", s.dtype_field, dt)
        if dt == WireDtype.FLOAT32R and not s.write:
            yield _f("dtype.datapath", "FLOAT32R is allowed only as an output", s.dtype_field, dt)


# --- CopyPredicated family (SPEC §4.5) -------------------------------------------------------------------

@bundle_check("cp.mask_dtype", "the predicate mask is an 8/16/32-bit integer", "SPEC §4.5")
def _mask_dtype(b: BundleView) -> Iterator[Finding]:
    v = b.fields["mask_dtype"]
    if v not in INT_MASK_WIRE_DTYPES:
        yield _f("cp.mask_dtype", "predicate mask dtype must be an 8/16/32-bit integer", "mask_dtype", v,
                 "INT8, UINT8, INT16, UINT16, INT32, UINT32")


def _equal_elements(check: str) -> Callable[[BundleView], Iterator[Finding]]:
    def fn(b: BundleView) -> Iterator[Finding]:
        counts = {s.name: _elements(b, s) for s in b.fmt.slots.values()}
        if len(set(counts.values())) > 1:
            yield _f(check, "operands have different element counts per partition", "elements",
                     ", ".join(f"{k}={v}" for k, v in counts.items()), "equal")

    return fn


bundle_check("cp.equal_elements", "tensor src, mask and dst have equal element counts", "SPEC §4.5")(_equal_elements("cp.equal_elements"))
bundle_check("tt.equal_elements", "TensorTensor in0, in1 and out have equal element counts per partition",
             "semantics.md §TensorTensor (a 0 step broadcasts; only the counts must agree)")(_equal_elements("tt.equal_elements"))
bundle_check("copy.equal_elements", "TensorCopy src and dst have equal element counts per partition",
             "semantics.md §TensorCopy")(_equal_elements("copy.equal_elements"))


@bundle_check("cp.opcode_dtype", "0x72 copies without a cast: src dtype equals dst dtype (0x99 casts)", "SPEC §4.5")
def _cp_opcode(b: BundleView) -> Iterator[Finding]:
    if b.opcode == COPY_PREDICATED.byte and b.fields["src_dtype"] != b.fields["dst_dtype"]:
        yield _f("cp.opcode_dtype", "CopyPredicated 0x72 with different src and dst dtypes (that is 0x99)",
                 "src_dtype", b.fields["src_dtype"], f"{b.fields['dst_dtype']} (the dst dtype)")


@bundle_check("cps.imm_dtype", "CopyPredicatedScalar scalar dtype equals the dst dtype (BIR217)", "D-27")
def _cps_dtype(b: BundleView) -> Iterator[Finding]:
    if b.decisions.get(ScalarImmediateDtype).must_equal and b.fields["scalar_dtype"] != b.fields["dst_dtype"]:
        yield _f("cps.imm_dtype", "Immediate value type must match output type", "scalar_dtype",
                 b.fields["scalar_dtype"], f"{b.fields['dst_dtype']} (the dst dtype)")


@bundle_check("cps.polarity", "the predicate-polarity flag is 0 or 1", "D-14")
def _cps_polarity(b: BundleView) -> Iterator[Finding]:
    if b.fields["polarity"] > 1:
        yield _f("cps.polarity", "polarity flag must be 0 or 1", "polarity", b.fields["polarity"], "0, 1")


@bundle_check("sr.flags", "the SelectReduce use-fill flag is 0 or 1", "D-14")
def _sr_flags(b: BundleView) -> Iterator[Finding]:
    if b.fields["use_fill"] > 1:
        yield _f("sr.flags", "use-false-fill flag must be 0 or 1", "use_fill", b.fields["use_fill"], "0, 1")


@bundle_check("sr.op_max", "SelectReduce reduces with max (BIR207)", "SPEC §4.5",
              stage="bir")
def _sr_op(b: BundleView) -> Iterator[Finding]:
    if b.fields["reduce_op"] != ALU_WIRE[AluOp.max][0]:
        yield _f("sr.op_max", "SelectReduce op must be max (BIR207)", "reduce_op", b.fields["reduce_op"], "max (0x08)")


_SR_ACC = {ACC_WIRE[a] for a in (AccType.Idle, AccType.ZeroAccumulate, AccType.AddAccumulate)}


@bundle_check("sr.acc", "SelectReduce accumulation is Idle, ZeroAccumulate or AddAccumulate (BIR208)", "SPEC §4.5",
              stage="bir")
def _sr_acc(b: BundleView) -> Iterator[Finding]:
    if b.fields["acc"] not in _SR_ACC:
        yield _f("sr.acc", "SelectReduce accumulation must be Idle, ZeroAccumulate or AddAccumulate (BIR208)", "acc",
                 b.fields["acc"], "0, 3, 2")


@bundle_check("sr.operands", "SelectReduce has a false fill (BIR210)", "SPEC §4.5",
              stage="bir")
def _sr_fill_required(b: BundleView) -> Iterator[Finding]:
    if b.decisions.get(PredicateFlags).fill_required and not b.fields["use_fill"]:
        yield _f("sr.operands", "SelectReduce needs an immediate fill (BIR210)", "use_fill", 0, "1")


_SR_BAD_DTYPES = {WireDtype.FLOAT32R, WireDtype.INT32, WireDtype.UINT32, *WIDE_WIRE_DTYPES}


@bundle_check("sr.dtypes", "no float32r/int32/uint32/64-bit SelectReduce operands (BIR213)", "SPEC §4.5",
              stage="bir")
def _sr_dtypes(b: BundleView) -> Iterator[Finding]:
    for name in ("mask_dtype", "src_dtype", "dst_dtype", "fill_dtype"):
        if b.fields[name] in _SR_BAD_DTYPES:
            yield _f("sr.dtypes", "SelectReduce does not take float32r, int32, uint32 or 64-bit operands (BIR213)",
                     name, b.fields[name])


@bundle_check("sr.fill_float32", "the SelectReduce fill immediate is float32 (BIR216)", "SPEC §4.5",
              stage="bir")
def _sr_fill_dtype(b: BundleView) -> Iterator[Finding]:
    if b.fields["use_fill"] and b.fields["fill_dtype"] != WireDtype.FLOAT32:
        yield _f("sr.fill_float32", "SelectReduce fill must be a float32 immediate (BIR216)", "fill_dtype",
                 b.fields["fill_dtype"], "FLOAT32 (0x0a)")


# --- TensorCopy, Memset, MoveShape (SPEC §4.7–§4.9) ------------------------------------------------------

@bundle_check("copy.opcode_dtype", "0x46 copies without a cast: src dtype equals dst dtype", "SPEC §4.7")
def _copy_opcode(b: BundleView) -> Iterator[Finding]:
    if b.opcode == COPY.byte and b.fields["src_dtype"] != b.fields["dst_dtype"]:
        yield _f("copy.opcode_dtype", "Copy 0x46 with different src and dst dtypes (a cast is 0x47)", "src_dtype",
                 b.fields["src_dtype"], f"{b.fields['dst_dtype']} (the dst dtype)")


@bundle_check("memset.element_count", "the Memset element count equals the product of the dst counts", "SPEC §4.8")
def _memset_count(b: BundleView) -> Iterator[Finding]:
    want = _elements(b, b.fmt.slots["dst"])
    if b.fields["element_count"] != want:
        yield _f("memset.element_count", "element count differs from the dst descriptor's", "element_count",
                 b.fields["element_count"], str(want))


@bundle_check("memset.random_zero", "Memset Random (0x4D) has fill 0", "SPEC §4.8")
def _memset_random(b: BundleView) -> Iterator[Finding]:
    if b.opcode == RNG.byte and b.fields["fill"]:
        yield _f("memset.random_zero", "Random mode requires fill 0", "fill", b.fields["fill"], "0")


#: The widest element of the BIR dtypes that share a wire tag (0x0E is also float8_e4m3fn_x4, 4 bytes).
_WIRE_MAX_SIZE = {w: max(i.size for i in DTYPE_INFO.values() if i.wire == w) for w in {i.wire for i in DTYPE_INFO.values()}}


@bundle_check("memset.fill_width", "the Memset fill value fits the dtype's width", "SPEC §4.8")
def _memset_fill(b: BundleView) -> Iterator[Finding]:
    fill = b.fields["fill"]
    size = _WIRE_MAX_SIZE.get(b.fields["dtype"])
    if size in (1, 2) and fill >> (8 * size):
        yield _f("memset.fill_width", f"fill value wider than the {size}-byte dtype", "fill", fill,
                 f"0..{(1 << (8 * size)) - 1:#x}")


@bundle_check("moveshape.counts", "MoveShape counts are non-zero", "SPEC §4.9")
def _moveshape_counts(b: BundleView) -> Iterator[Finding]:
    for i in range(MOVESHAPE_DIMS):
        if b.fields[f"count{i}"] == 0:
            yield _f("moveshape.counts", "zero count", f"count{i}", 0, ">= 1")


# --- SP register-lane ops (SPEC §4.1–§4.3) -----------------------------------------------------------

_MOVE32 = {WireDtype.FLOAT32, WireDtype.UINT32, WireDtype.INT32}


@bundle_check("move.dtype", "RegisterMove dtype: FLOAT32/UINT32/INT32 for a 32-bit move, INT32 for a 64-bit "
              "move", "SPEC §4.1")
def _move_dtype(b: BundleView) -> Iterator[Finding]:
    dt = b.fields["dtype"]
    if b.fields["valid_num"] == 2 and dt != _INT32:
        yield _f("move.dtype", "a 64-bit move writes dtype INT32", "dtype", dt, "INT32 (0x08)")
    if b.fields["valid_num"] == 1 and dt not in _MOVE32:
        yield _f("move.dtype", "only support fp32/uint32/int32 for REG MOVE instr", "dtype", dt,
                 "FLOAT32, UINT32, INT32")


@bundle_check("reg.pair", "a 64-bit register pair is two consecutive registers (hi = lo + 1)", "SPEC §5",
              applies=lambda f: "dst_hi" in f.field_map)
def _pairs(b: BundleView) -> Iterator[Finding]:
    lo = b.fields.get("dst_lo", b.fields.get("dst"))
    if lo is not None and b.fields["dst_hi"] != lo + 1:
        yield _f("reg.pair", "register pair hi must be lo + 1", "dst_hi", b.fields["dst_hi"], str(lo + 1))
    if "dst_lo" in b.fields and b.fields["dst_lo"] != b.fields["dst"]:
        yield _f("reg.pair", "the 64-bit dst pair lo equals the dst register", "dst_lo", b.fields["dst_lo"],
                 str(b.fields["dst"]))


# The encoder refuses a declared 64-bit *source* pair that is not consecutive (only the low id has a
# field); same rule, enforced at encode level too (the stage stays "isa").
register("reg.pair", "", "", "encode")

@bundle_check("alu.valid_op", "RegisterAlu ALU byte is one of the SPEC §2.2 table", "SPEC §2.2")
def _alu_op(b: BundleView) -> Iterator[Finding]:
    if b.fields["op"] not in _CLASS:
        yield _f("alu.valid_op", "not an ALU byte of the RegisterAlu table", "op", b.fields["op"], "SPEC §2.2 table")


@bundle_check("alu.dtypes", "RegisterAlu: a 32-bit op takes src1 uint32/int32/uint64/int64; a 64-bit op uint64 "
              "only", "SPEC §4.2", when=lambda f: "src_dtype" in f.field_map)
def _alu_dtype(b: BundleView) -> Iterator[Finding]:
    dt = b.fields["src_dtype"]
    is64 = "dst_hi" in b.fields
    allowed = {WireDtype.UINT64} if is64 else {WireDtype.UINT32, WireDtype.INT32, *WIDE_WIRE_DTYPES}
    if dt not in allowed:
        yield _f("alu.dtypes", f"{'64' if is64 else '32'}-bit RegisterAlu src1 dtype not allowed", "src_dtype", dt,
                 "UINT64" if is64 else "UINT32, INT32, UINT64, INT64")


@bundle_check("ls.pairs", "TensorLoad/Save element counts are non-zero", "SPEC §4.3")
def _ls_counts(b: BundleView) -> Iterator[Finding]:
    for n in ("num_elem0", "num_elem1"):
        if b.fields[n] == 0:
            yield _f("ls.pairs", "zero element count", n, 0, "1..255")
