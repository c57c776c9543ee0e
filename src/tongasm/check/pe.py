"""Checks of the PE, DMA and sync/control families: the family checks their layout records
list, and the ids of the encoder refusals of their codegen.

Each rule says where it comes from: a decision of the real-NEFF chapter (R-n), or the real bytes
(every real bundle satisfies it; ``tests/test_matmul_neffs.py`` runs them on both NEFFs).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..isa.decisions.control import OrderingMode
from ..isa.decisions.dma import Addr8Modes, DmaOffsetRegisters, DmaSyncCommand
from ..isa.decisions.pe import PeGeometry, PeTranspose, PsumFlags, StationaryPattern
from ..isa.descriptors import PSUM_BANK_BYTES, PSUM_BASE, SBUF_PARTITION_SHIFT, decode_addr4
from ..isa.enums import WIRE_DTYPE_ALIGN, WireDtype
from ..isa.fields import Format, Kind
from ..isa.layouts.control import CLEAR_TABLE, SEM_MASK_WORDS
from ..isa.layouts.pe import LDWEIGHTS, MATMUL
from .bundle_checks import BundleView, _f, bundle_check
from .registry import Finding, register
from .vectorized import Columns, by_classes, split_addr4, vector

# --- encoder refusals (level "encode") -------------------------------------------------------------------

_ENCODE = [
    ("engine.unassigned", "a DMA or sync/control instruction names the engine it runs on (it exists on every "
                          "engine)", "docs/bir-json.md"),
    ("pe.target", "the PE opcodes are encoded in their gen3 form only (the gen2 form is book-only, R-25)", "R-25"),
    ("pe.operands", "LoadStationary/MultiplyMoving/Matmult operands: SBUF tensors in, a PSUM tensor out",
     "chapter §2.1-§2.2"),
    ("pe.attrs", "Matmult attributes without a field (tile_size, tile_position, perf_mode, replication, quant "
                 "offsets, one-zero flags) are default", "chapter §2.2"),
    ("dma.operands", "a DMACopy has one src and one dst access pattern, each in DRAM or SBUF (not PSUM, not a "
                     "register AP)", "R-17"),
    ("dma.contiguous", "a DMA side's innermost access-pattern pair is contiguous (step 1): it is the run of "
                       "elem_size bytes", "R-16"),
    ("dma.dims", "a DMA side has at most two dims besides its run", "R-16"),
    ("dma.elements", "both sides of a DMA move the same number of elements", "R-16"),
    ("dma.step_sign", "DMA byte steps are not negative (R-22=unsigned)", "R-22"),
    ("dma.attrs", "DMACopy attributes are ones the bundle holds (mode Copy, a completion semaphore, no "
                  "transpose/CCE/duplicate)", "chapter §2.7"),
]
for _id, _title, _src in _ENCODE:
    register(_id, _title, _src, "encode", stage="encode")
# the stationary pattern is refused by the encoder (no R-10 pattern for the tile) and checked on bytes
register("pe.stationary_pattern", "a Ldweights stationary has an R-10 pattern: the tile's last column, its M = "
         "num_active_cols columns visited one by one from the last", "R-10", "encode", stage="encode")


# --- PE (0x01, 0x02) ------------------------------------------------------------------------------------

def _start_partition(b: BundleView) -> int:
    """The first PE row a 0x01/0x02 uses: the start partition of its SBUF operand (+0x10)."""
    name = "stationary.addr" if b.opcode == LDWEIGHTS.byte else "moving.addr"
    a = decode_addr4(b.fields[name])
    return a.partition if a.space == "sbuf" and a.partition is not None else 0


@bundle_check("pe.geometry", "K (num_rows) and M (num_active_cols) are 1..128 within the array, the row group is "
              "the book's code for the tile's start partition and K, the column group the code for M or the forced "
              "0x0F", "R-13")
def _pe_geometry(b: BundleView) -> Iterator[Finding]:
    r13 = b.decisions.get(PeGeometry)
    k, m = b.fields["num_rows"], b.fields["num_active_cols"]
    start = _start_partition(b)
    if not r13.allows(k, m, start):
        bad_k = not (1 <= k and start + k <= r13.FULL)
        yield _f("pe.geometry", f"a {k} x {m} tile starting at partition {start} does not fit the {r13.FULL} x "
                 f"{r13.FULL} PE array", "num_rows" if bad_k else "num_active_cols", k if bad_k else m,
                 f"1..{r13.FULL - start}" if bad_k else f"1..{r13.FULL}")
        return
    want = r13.group(start, k)
    if b.fields["row_group"] != want:
        yield _f("pe.geometry", f"the row group is not the code of {k} rows from partition {start} "
                 f"(R-13={b.decisions['R-13']})", "row_group", b.fields["row_group"], f"{want:#x}")
    cols = r13.col_groups(m)
    if b.fields["col_group"] not in cols:
        yield _f("pe.geometry", f"the column group is neither the code of {m} columns nor the forced 0x0F "
                 f"(R-13={b.decisions['R-13']})", "col_group", b.fields["col_group"],
                 " or ".join(f"{c:#x}" for c in cols))


#: The CoreV2 (gen2) bytes of each PE opcode: zero in every real (gen3) bundle.
_GEN2_ONLY = {LDWEIGHTS.byte: ("replication_lo", "replication_hi", "xbus"),
              MATMUL.byte: ("perf_opt_dtype", "perf_opt_src", "xbus")}


@bundle_check("pe.gen2_bytes", "on gen3 the CoreV2-only PE bytes (replication pair / perf-opt pair, xbus) are zero",
              "chapter §2.1-§2.2 (book: CoreV2 writes them; zero in every real gen3 bundle)")
def _pe_gen2_bytes(b: BundleView) -> Iterator[Finding]:
    if b.target.name == "gen2":
        return
    for name in _GEN2_ONLY.get(b.opcode, ()):
        if b.fields[name]:
            yield _f("pe.gen2_bytes", "a CoreV2 (gen2) byte is set in a gen3 bundle", name, b.fields[name], "0")


@bundle_check("pe.stationary_pattern", "a Ldweights stationary visits its M = num_active_cols columns one by one in "
              "the R-10 order: from the last column to the first", "R-10")
def _pe_stationary(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    m = fv["num_active_cols"]
    r10 = b.decisions.get(StationaryPattern)
    got = [(fv[f"stationary.step{i}"], fv[f"stationary.num{i}"]) for i in range(3)]
    if not r10.visits(m, got):
        order = "last to first" if r10.reverses else "first to last"
        yield _f("pe.stationary_pattern", f"the stationary's dims {got} do not visit M = {m} columns one by one, "
                 f"{order} (R-10={b.decisions['R-10']})", "stationary", str(got),
                 f"{m} elements, step {-1 if r10.reverses else 1} innermost")


@bundle_check("pe.psum_flags", "the Matmul psum flags (+0x2B) are a group role R-11 writes (first, middle, last, "
              "whole)", "R-11")
def _pe_flags(b: BundleView) -> Iterator[Finding]:
    names = b.decisions.get(PsumFlags).names()
    v = b.fields["psum_flags"]
    if v not in names:
        yield _f("pe.psum_flags", "not a psum-flags value of the selected R-11 reading", "psum_flags", v,
                 ", ".join(f"{k:#x} {n}" for k, n in sorted(names.items())))


@bundle_check("pe.psum_dst", "a Matmul writes PSUM, as many elements per partition as it reads from the moving "
              "tensor, inside one 2 KiB bank (every real result fills at most one; the book's moving free size is at "
              "most 512)", "chapter §2.2, R-12")
def _pe_psum_dst(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    a = decode_addr4(fv["psum.addr"])
    if a.space != "psum":
        yield _f("pe.psum_dst", "the Matmul result is not in PSUM", "psum.addr", fv["psum.addr"],
                 "0x2000000..0x23FFFFF")
    n_mov = fv["moving.num0"] * fv["moving.num1"] * fv["moving.num2"]
    n_out = fv["psum.num0"] * fv["psum.num1"] * fv["psum.num2"]
    if n_mov != n_out:
        yield _f("pe.psum_dst", f"the moving tensor has {n_mov} elements per partition, the PSUM result {n_out}",
                 "psum", n_out, str(n_mov))
        return
    if a.space != "psum" or a.byte is None:
        return
    wire = b.decisions.get(PeTranspose).psum_wire(bool(fv["is_transpose"]), fv["in_dtype"], WireDtype.FLOAT32)
    size = WIRE_DTYPE_ALIGN.get(wire, 4)
    lo = hi = 0
    for i in range(3):
        span = fv[f"psum.step{i}"] * (fv[f"psum.num{i}"] - 1) * size
        lo, hi = lo + min(span, 0), hi + max(span, 0)
    first, last = a.byte + lo, a.byte + hi + size - 1
    if first < 0 or first // PSUM_BANK_BYTES != last // PSUM_BANK_BYTES:
        yield _f("pe.psum_dst", f"the Matmul result spans PSUM bytes {first:#x}..{last:#x}: more than one bank",
                 "psum", f"{first:#x}..{last:#x}", f"one {PSUM_BANK_BYTES}-byte bank")


# --- DMA (0xD4) --------------------------------------------------------------------------------------------

@bundle_check("dma.sides", "each DMA side uses an ADDR8 mode tongasm knows (0x10 physical, 0x20 DGE; 0x28 book) and "
              "an SBUF side (mode 0x10, var 0) holds an SBUF address word", "R-17")
def _dma_sides(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    modes = b.decisions.get(Addr8Modes).names()
    for side in ("src", "dst"):
        mode = fv[f"{side}.addr_mode"]
        if mode not in modes:
            yield _f("dma.sides", "unknown ADDR8 mode", f"{side}.addr_mode", mode,
                     ", ".join(f"{k:#x}" for k in modes))
        var = fv[f"{side}.var"] | fv[f"{side}.var_hi"] << 16
        if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR and decode_addr4(fv[f"{side}.addr"]).space != "sbuf":
            yield _f("dma.sides", "an SBUF side's word is not an SBUF address (partition << 18 | byte)",
                     f"{side}.addr", fv[f"{side}.addr"], "< 0x2000000")


@bundle_check("dma.run_sizes", "each side's run (elem_size) is a whole number of its elements and both sides move "
              "the same number of elements", "R-16")
def _dma_runs(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    counts = []
    for side, dt in (("src", "src_dtype"), ("dst", "dst_dtype")):
        size = WIRE_DTYPE_ALIGN.get(fv[dt])
        run = fv[f"{side}.elem_size"]
        if size is None:
            return  # enum.wire_dtype reports it
        if run % size:
            yield _f("dma.run_sizes", f"a run of {run} bytes is not a whole number of {size}-byte elements",
                     f"{side}.elem_size", run, f"a multiple of {size}")
            return
        counts.append(fv[f"{side}.num0"] * fv[f"{side}.num1"] * (run // size))
    if counts[0] != counts[1]:
        yield _f("dma.run_sizes", f"the src side moves {counts[0]} elements, the dst side {counts[1]}",
                 "dst.elem_size", fv["dst.elem_size"], f"{counts[0]} elements")


@bundle_check("dma.sync_command", "the DMA sync_command byte (+0x0F) is what R-14 writes (0 in every real DMA)", "R-14")
def _dma_sync_command(b: BundleView) -> Iterator[Finding]:
    want = b.decisions.get(DmaSyncCommand).sync_command()
    if b.fields["sync_command"] != want:
        yield _f("dma.sync_command", "sync_command differs from the selected R-14 reading", "sync_command",
                 b.fields["sync_command"], str(want))


def _offset_reg_declared(f: Format) -> bool:
    return f.field_map["src.offset_reg"].kind is not Kind.CONSTANT


@bundle_check("dma.offset_reg", "a DMA side's offset-register byte is 0x80 | register exactly on a side of the DGE "
              "register mode 0x28, 0 on any other side", "R-23", when=_offset_reg_declared)
def _dma_offset_reg(b: BundleView) -> Iterator[Finding]:
    r23 = b.decisions.get(DmaOffsetRegisters)
    for side in ("src", "dst"):
        v, mode = b.fields[f"{side}.offset_reg"], b.fields[f"{side}.addr_mode"]
        if mode == Addr8Modes.DGE_REGISTER and not v & r23.MARK:
            yield _f("dma.offset_reg", "a DGE register-mode side names no offset register", f"{side}.offset_reg", v,
                     f"{r23.MARK:#x} | register id")
        elif mode != Addr8Modes.DGE_REGISTER and v:
            yield _f("dma.offset_reg", f"an offset register on a side of mode {mode:#x} (only mode 0x28 has one)",
                     f"{side}.offset_reg", v, "0")


# --- sync/control -----------------------------------------------------------------------------------------

@bundle_check("ctrl.ordering_mode", "SetOrderingMode's mode is 0 (the only one seen) unless R-24=parameter", "R-24")
def _ordering_mode(b: BundleView) -> Iterator[Finding]:
    if not b.decisions.get(OrderingMode).takes_parameter and b.fields["ordering_mode"]:
        yield _f("ctrl.ordering_mode", "an ordering mode other than 0 has no known meaning (R-24=zero)",
                 "ordering_mode", b.fields["ordering_mode"], "0")


@bundle_check("ctrl.clear_range", "EventSemaphoreRangeClear: a range form has first <= last and no mask; a mask form "
              "no range", "book (isa/sp-sync-encoding.md)")
def _clear_range(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    mode = fv["clear_mode"]
    masks = [fv[f"sem_mask{k}"] for k in range(SEM_MASK_WORDS)]
    if mode not in CLEAR_TABLE.names:
        yield _f("ctrl.clear_range", "unknown clear mode", "clear_mode", mode, "1 range, 2 mask")
    elif CLEAR_TABLE.names[mode] == "range":
        if fv["range_first"] > fv["range_last"]:
            yield _f("ctrl.clear_range", "the range is empty (first > last)", "range_first", fv["range_first"],
                     f"<= {fv['range_last']}")
        if any(masks):
            yield _f("ctrl.clear_range", "a range clear with a mask set", "sem_mask0", masks[0], "0")
    elif fv["range_first"] or fv["range_last"]:
        yield _f("ctrl.clear_range", "a mask clear with a range set", "range_first", fv["range_first"], "0")


# --- vector forms (check_stream): each rule reads a few fields with few distinct values per stream ------------

_STEPS = tuple(f"{t}.{k}{i}" for t in ("stationary", "moving", "psum") for k in ("step", "num") for i in range(3))


@vector("pe.geometry")
def _v_pe_geometry(c: Columns) -> np.ndarray:
    """The rows pe.geometry may fail on, from the columns (the scalar check then runs on those)."""
    r13 = c.decisions.get(PeGeometry)
    name = "stationary.addr" if c.has("stationary.addr") else "moving.addr"
    reg, a = split_addr4(c.fields[name])
    part = np.where(~reg & (a < PSUM_BASE), a >> SBUF_PARTITION_SHIFT, 0).astype(np.int64)
    k = c.fields["num_rows"].astype(np.int64)
    m = c.fields["num_active_cols"].astype(np.int64)

    def group(start: np.ndarray, size: np.ndarray) -> np.ndarray:
        if not r13.uses_lut:
            return np.full(len(size), r13.ALL_GROUPS, dtype=np.int64)
        quadrant = np.where(size <= r13.QUADRANT, 1 << ((start >> 5) & 3), 3 << (2 * ((start >> 6) & 1)))
        return np.where(size > 2 * r13.QUADRANT, r13.ALL_GROUPS, quadrant)

    fits = (k >= 1) & (part + k <= r13.FULL) & (m >= 1) & (m <= r13.FULL)
    rg, cg = c.fields["row_group"].astype(np.int64), c.fields["col_group"].astype(np.int64)
    ok = fits & (rg == group(part, k)) & ((cg == group(np.zeros_like(m), m)) | (cg == r13.ALL_GROUPS))
    return ~ok
vector("pe.gen2_bytes")(by_classes(_pe_gen2_bytes, *sorted({n for v in _GEN2_ONLY.values() for n in v})))
vector("pe.stationary_pattern")(by_classes(_pe_stationary, "num_active_cols", "in_dtype", *_STEPS))
vector("pe.psum_flags")(by_classes(_pe_flags, "psum_flags"))
vector("pe.psum_dst")(by_classes(_pe_psum_dst, "psum.addr", "is_transpose", "in_dtype", *_STEPS))


@vector("dma.sides")
def _v_dma_sides(c: Columns) -> np.ndarray:
    modes = list(c.decisions.get(Addr8Modes).names())
    m = c.none()
    for side in ("src", "dst"):
        mode = c.fields[f"{side}.addr_mode"]
        m |= ~c.isin(f"{side}.addr_mode", modes)
        sbuf_side = (mode == Addr8Modes.PHYSICAL) & (c.fields[f"{side}.var"] == Addr8Modes.SBUF_VAR) & \
            (c.fields[f"{side}.var_hi"] == 0)
        w = c.fields[f"{side}.addr"]
        reg, a = split_addr4(w)
        m |= sbuf_side & (reg | (a >= PSUM_BASE))  # decode_addr4: SBUF is a non-register word below PSUM
    return m


vector("dma.run_sizes")(by_classes(_dma_runs, "src_dtype", "dst_dtype", *(f"{s}.{k}" for s in ("src", "dst")
                                                                         for k in ("elem_size", "num0", "num1"))))
vector("dma.sync_command")(by_classes(_dma_sync_command, "sync_command"))
vector("dma.offset_reg")(by_classes(_dma_offset_reg, *(f"{s}.{k}" for s in ("src", "dst") for k in ("offset_reg", "addr_mode"))))
vector("ctrl.ordering_mode")(by_classes(_ordering_mode, "ordering_mode"))
vector("ctrl.clear_range")(by_classes(_clear_range, "clear_mode", "range_first", "range_last",
                                      *(f"sem_mask{k}" for k in range(SEM_MASK_WORDS))))

__all__ = ["Finding"]
