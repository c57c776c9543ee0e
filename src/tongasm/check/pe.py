"""Checks of the PE family (Ldweights 0x01, Matmul 0x02 and their variants): the family checks their layout
records list, their vector forms, and the ids of the encoder refusals of their codegen.

Each rule says where it comes from: a decision of the real-NEFF chapter (R-n), or the real bytes (every
real bundle satisfies it; the corpus tests run them on every real bundle).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..isa.decisions.pe import PeGeometry, PeTranspose, PsumFlags, StationaryPattern
from ..isa.descriptors import PSUM_BANK_BYTES, PSUM_BASE, SBUF_PARTITION_SHIFT, decode_addr4
from ..isa.enums import WIRE_DTYPE_ALIGN, WireDtype
from ..isa.layouts.pe import LDWEIGHTS, MATMUL
from .bundle_checks import BundleView, _f, bundle_check
from .registry import Finding, register, register_refusals
from .vectorized import Columns, by_classes, split_addr4, vector

# --- encoder refusals (level "encode") ---

_ENCODE = [
    ("pe.target", "the PE opcodes are encoded in their gen3 form only (the gen2 form is book-only, R-25)", "R-25"),
    ("pe.operands", "LoadStationary/MultiplyMoving/Matmult operands: SBUF tensors in, a PSUM tensor out",
     "chapter §2.1-§2.2"),
    ("pe.attrs", "Matmult attributes without a field (tile_size, tile_position, perf_mode, replication, quant "
                 "offsets, one-zero flags) are default", "chapter §2.2"),
]
register_refusals(_ENCODE)


# the stationary pattern is refused by the encoder (no R-10 pattern for the tile) and checked on bytes
register("pe.stationary_pattern", "a Ldweights stationary has an R-10 pattern: the tile's last column, its M = "
         "num_active_cols columns visited one by one from the last", "R-10", "encode", stage="encode")


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
