"""The PE (matmul) layouts: Ldweights 0x01 and Matmul 0x02 (the real NEFFs' LoadStationary and
MultiplyMoving), and the book's other PE members: Ldtags 0x06, MatmulSparse 0x07 (gen3), LdweightsMX
0x09, MatmulMX 0x0A and QuantizeMX 0xE3 (gen4 only).

0x01/0x02 are verified on every real bundle (8,712 and 33,288 in the two NEFFs; docs/research/
real-opcodes.md §1.1-§1.2, the chapter's §2.1-§2.2): the confidence tag V marks what the bytes show,
H what the book (``isa/pe-matmul-encoding.md``) adds without a real bundle to confirm it. A BIR
``Matmult`` becomes the pair (``passes.lower_matmult``); ``LoadStationary`` and ``MultiplyMoving``
are their own BIR forms too (KLR core names), so one stationary can serve several Matmuls, as the
compiler's do.

The gen2 (CoreV2) form differs only by bytes the book gives and no real bundle shows: +0x24/+0x25
(replication), +0x2E (xbus 0x10), +0x26 (the weight base partition) and a transpose flag at +0x13 that
lies inside the stationary's ADDR4 word (R-25). They are declared (or named in the docs) here and the
encoder refuses the gen2 target (``pe.target``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import EncodeError
from ..decisions import DecisionSet
from ..decisions.pe import PeFp32Mode
from ..decisions.dma import BookOnlyLayouts
from ..decisions.pe import PeGeometry, PeTranspose, PeUnusedDims, PsumFlags, StationaryPattern
from ..descriptors import ADDR4_REGMODE, SBUF_PARTITION_SHIFT, decode_addr4, packing, slot
from ..enums import WireDtype
from ..fields import EnumTable, Field, Kind, Slot
from ..layout import ApText, Binding, EnumText, IntText, Layout, Sem, TextOp
from ..opcodes import op
from .common import H, I, V, const, dtype, product, u8, u16, zero_run

# --- opcodes -----------------------------------------------------------------------------------------

LDWEIGHTS = op(0x01, "Ldweights", "LoadStationary", "tensor", V,
               "load the stationary (weights) matrix into the PE array (LoadStationary)")
MATMUL = op(0x02, "Matmul", "MultiplyMoving", "tensor", V,
            "multiply the moving tensor by the stationary into PSUM (MultiplyMoving)")
LDTAGS = op(0x06, "Ldtags", "MatmultSparse", "tensor", H, "load the sparse-column tags of a MatmulSparse (gen3; book)")
MATMUL_SPARSE = op(0x07, "MatmulSparse", "MatmultSparse", "tensor", H, "structured-sparse matmul (gen3; book)")
LDWEIGHTS_MX = op(0x09, "LdweightsMX", "MatmultMx", "tensor", H, "microscaled (MX) load weights (gen4 only; book)")
MATMUL_MX = op(0x0A, "MatmulMX", "MatmultMx", "tensor", H, "microscaled (MX) matmul (gen4 only; book)")
QUANTIZE_MX = op(0xE3, "QuantizeMX", "QuantizeMx", "tensor", H,
                 "quantize a tile to x4 fp8/fp4 data plus E8M0 scales (gen4 only; book)")

#: What the real bundles show for fields the compiler never varies (for the docs of the fields).
REAL_01, REAL_02 = "all 379,567 corpus Ldweights", "all 396,921 corpus Matmuls"


# --- the stationary's access pattern -------------------------------------------------------------

@packing("pe-stationary")
def pack_stationary(ds: DecisionSet, s: Slot, addr: int, free: Sequence[tuple[int, int]], esize: int,
                    role: str) -> tuple[int, ...]:
    """R-10: a [K, M] stationary tile (one contiguous free dim of M elements) as the compiler writes
    it: the address of its last column, visited from the last column to the first (quadrant runs
    (-1, 32), (-32, 4) for a 128-column tile of a 1- or 2-byte dtype, else one dim (-1, M))."""
    kept = [p for p in free if p[1] != 1]
    if len(kept) != 1 or kept[0][0] != 1:
        raise EncodeError(f"{role}: a stationary is a [K, M] tile with one contiguous free dim (step 1); got free "
                          f"dims {[list(p) for p in free]}", field=f"{role}.ap", value=len(kept),
                          limit="one free dim, step 1", check="pe.stationary_pattern")
    if addr & ADDR4_REGMODE:
        raise EncodeError(f"{role}: a register-addressed stationary has no known R-10 pattern", field=f"{role}.addr",
                          value="register_ap", check="pe.stationary_pattern")
    columns = kept[0][1]
    try:
        delta, dims = ds.get(StationaryPattern).pattern(columns, esize, s.fill)
    except ValueError as e:
        raise EncodeError(f"{role}: no Ldweights pattern for {e} (R-10: the PE array has 128 columns)",
                          field=f"{role}.ap", value=columns, limit="1..128",
                          check="pe.stationary_pattern") from None
    a = decode_addr4(addr)
    if a.space == "sbuf" and (a.byte or 0) + delta >= 1 << SBUF_PARTITION_SHIFT:
        raise EncodeError(f"{role}: the stationary's last column lies beyond the ADDR4 byte field", field=f"{role}.addr",
                          value=(a.byte or 0) + delta, limit=f"< {1 << SBUF_PARTITION_SHIFT:#x}",
                          check="addr4.composition")
    return (addr + delta, *[d[0] for d in dims], *[d[1] for d in dims])


# --- shared pieces ---------------------------------------------------------------------------------------

def psum_flags_table(ds: DecisionSet) -> EnumTable:
    """R-11: the names of the +0x2B values the selected reading writes."""
    return EnumTable("psum flags", ds.get(PsumFlags).names())


def _geometry(seen: str) -> tuple[Field, ...]:
    """+0x26..+0x2D of 0x01/0x02 (R-13)."""
    return (
        u8("num_rows", 0x26, V, f"K: partitions (rows) of the stationary and the moving tensor, 1..128 in {seen} "
                                "(book contradicted: not the base partition)", decision="R-13"),
        u8("num_active_cols", 0x27, V, f"M: columns of the stationary = PSUM output partitions, 1..128 in {seen}",
           decision="R-13"),
    )


def _groups(seen: str) -> tuple[Field, ...]:
    return (
        u8("row_group", 0x2C, V, "PE row quadrants in use: the book's translateToRowGroup(start partition, K), K <= 32: "
                                 f"1/2/4/8, K <= 64: 3/12, else 0x0F; in every one of {seen}", decision="R-13"),
        u8("col_group", 0x2D, V, "PE column quadrants: translateToColGroup(0, M) as the row group, or 0x0F when the "
                                 f"compiler forces it (every cayman bundle, the sunda fp32 passes); {seen}",
           decision="R-13"),
        u8("xbus", 0x2E, V, "book: CoreV2 (gen2) only (normalized/xbus group), CoreV3 drops it: 0 on every cayman "
                            "bundle; sunda writes Matmul 0x10 (col group 0x0F) or 0x01, Ldweights 0x0F (quadrant "
                            "pattern), 0x01 (M <= 32 unforced) or 0x02; meaning unknown (pe.gen2_bytes)"),
    )


def _pe_text(slots: tuple[Slot, ...], *extra: TextOp) -> tuple[TextOp, ...]:
    """Each slot as an access pattern; the first slot naming a partition-count field writes it."""
    owned: set[str] = set()
    out: list[TextOp] = []
    for s in slots:
        out.append(ApText(name=s.name, slot=s.name, parts=bool(s.parts_field) and s.parts_field not in owned))
        owned.add(s.parts_field or "")
    return (*out, *extra)


def _groups_implied(ds: DecisionSet, operand: str) -> dict[str, Callable[[Mapping[str, int]], int]]:
    """R-13: the text leaves the group bytes out when they hold what tongasm writes: the row group of
    the tile (``operand``'s start partition and K) and the forced 0x0F column group."""
    geo = ds.get(PeGeometry)

    def row_group(v: Mapping[str, Any]) -> Any:
        part = (v.get(f"{operand}.addr", 0) & 0x1FFFFFF) >> SBUF_PARTITION_SHIFT
        rows = v.get("num_rows", 0)
        if isinstance(rows, int) and isinstance(part, int):
            return geo.group(part, rows)
        if not geo.uses_lut:
            return np.full(len(rows), geo.ALL_GROUPS, dtype=object)
        quadrant = np.where(rows <= geo.QUADRANT, 1 << ((part >> 5) & 3), 3 << (2 * ((part >> 6) & 1)))
        return np.where(rows > 2 * geo.QUADRANT, geo.ALL_GROUPS, quadrant)

    return {"row_group": row_group, "col_group": const(geo.group_code)}


def _fp32_mode(ds: DecisionSet, doc: str) -> Field:
    """+0x21 (R-28): the fp32 pass mode (the profiler's fp32_mode), or the book's perf byte."""
    if ds.get(PeFp32Mode).named:
        return Field("fp32_mode", 0x21, 1, Kind.ENUM, enum=EnumTable("fp32 mode", dict(PeFp32Mode.NAMES)), conf=V,
                     decision="R-28", doc=doc)
    return u8("perf_variant", 0x21, H, "book: 0 default, 2 load-weights perf, 3 perf/transpose, 0x80 gen2 fp32",
              decision="R-28")


def _fp32_text(ds: DecisionSet) -> tuple[TextOp, ...]:
    return (EnumText(name="fp32", field="fp32_mode").opt(),) if ds.get(PeFp32Mode).named else ()


# --- 0x01 Ldweights, 0x02 Matmul ---------------------------------------------------------------------------

def ldweights(ds: DecisionSet) -> list[Layout]:
    """0x01 (real-opcodes.md §1.1): the stationary [K, M] tile, its dtype, K and M."""
    fill = ds.get(PeUnusedDims).fill
    slots = (slot("stationary", 0x10, 3, dtype="in_dtype", conf=V, decision="R-10", parts="num_rows", fill=fill,
                  packing="pe-stationary", doc="stationary (weights) [K, M] tile, R-10 pattern"),)
    body = (
        Field("bg_transpose", 0x0C, 1, Kind.CONSTANT, const=0, conf=V,
              doc=f"book: CoreV3 writes 2 only for arch >= 40 background transpose; observed zero in {REAL_01}"),
        *zero_run(0x0D, 3, V, f"observed zero in {REAL_01}"),
        dtype("in_dtype", 0x20, V, "PE input dtype (the stationary's); book: fp32r writes 0x0A with +0x21 = 2"),
        _fp32_mode(ds, "fp32 pass of the stationary: 1 LOW (28,384), 2 HIGH (28,160) on fp32 tiles, 0 on every "
                       "other (profiler: fp32_mode=LOW/HIGH; book contradicted: not a perf byte)"),
        u8("is_transpose", 0x22, V, "1 on the Ldweights of a PE transpose (book contradicted: not reserved)",
           decision="R-12"),
        u8("perf_opt_dtype", 0x23, H, f"book: perfModeToDstDtype(perf_mode); 0 in {REAL_01}"),
        u8("replication_lo", 0x24, H, f"book: CoreV2 (gen2) replication pair, not written on gen3; 0 in {REAL_01}"),
        u8("replication_hi", 0x25, H, f"book: CoreV2 (gen2) replication pair; 0 in {REAL_01}"),
        *_geometry(REAL_01),
        *zero_run(0x28, 4, V, f"observed zero in {REAL_01}; the book: lw_reserved_zero"),
        *_groups(REAL_01),
        *zero_run(0x2F, 17, V, f"observed zero in {REAL_01}"),
    )
    return [Layout(
        "Ldweights", (LDWEIGHTS,), body, Sem.LOAD_STATIONARY,
        _pe_text(slots, IntText(name="transpose", field="is_transpose").opt(), *_fp32_text(ds)),
        slots,
        implied={**_groups_implied(ds, "stationary"), "num_active_cols": product("stationary", 3)},
        binding=Binding({"stationary": "stationary"}, parts={"num_rows": "stationary"},
                        elements={"num_active_cols": "stationary"}, dtypes={"in_dtype": "stationary"}),
        checks=("pe.geometry", "pe.gen2_bytes", "pe.stationary_pattern"),
        doc="LoadStationary: W[p][c] = the stationary tile (K rows, M columns; R-10 reversal), kept by the PE for "
            "the Matmuls that follow",
    )]


def _psum_wire(ds: DecisionSet) -> Callable[[Mapping[str, int]], int]:
    """The wire dtype of a decoded Matmul's PSUM result (R-12), for its footprint."""
    pt = ds.get(PeTranspose)
    return lambda f: pt.psum_wire(bool(f.get("is_transpose", 0)), f.get("in_dtype", WireDtype.FLOAT32),
                                  WireDtype.FLOAT32)


def matmul(ds: DecisionSet) -> list[Layout]:
    """0x02 (real-opcodes.md §1.2): moving [K, N], PSUM result [M, N], the group role (R-11)."""
    fill = ds.get(PeUnusedDims).fill
    slots = (slot("moving", 0x10, 3, dtype="in_dtype", conf=V, decision="R-9", parts="num_rows", fill=fill,
                  doc="moving (ifmap) [K, N]"),
             slot("psum", 0x30, 3, dtype=None, write=True, conf=V, decision="R-9", parts="num_active_cols", fill=fill,
                  elem_bytes=4, elem_wire=_psum_wire(ds),
                  doc="PSUM result [M, N]: fp32, or the input dtype for a transpose (R-12)"))
    body = (
        *zero_run(0x0C, 4, V, f"observed zero in {REAL_02}"),
        dtype("in_dtype", 0x20, V, "PE input dtype (moving and stationary)"),
        _fp32_mode(ds, "fp32 passes of the multiply: 3 LOW_HIGH (40,883), 2 HIGH (15,670, sunda only) on fp32 "
                       "inputs, 0 on every other (profiler: fp32_mode=LOW_HIGH; book contradicted: not a perf byte)"),
        u8("is_transpose", 0x22, V, "1 = PE transpose: the PSUM result has the input dtype (book contradicted: not "
                                    "reserved)", decision="R-12"),
        u8("perf_dst_dtype", 0x23, H, f"book: PSUM dst dtype perfModeToDstDtype(perf_mode); 0 in {REAL_02} for fp32 "
                                      "and fp16 results alike: it does not carry the PSUM dtype", decision="R-12"),
        u8("perf_opt_dtype", 0x24, H, f"book: perf-opt config (gen2 writes it); 0 in {REAL_02}"),
        u8("perf_opt_src", 0x25, H, f"book: perf-opt source / replication (gen2); 0 in {REAL_02}"),
        *_geometry(REAL_02),
        *zero_run(0x28, 3, V, f"observed zero in {REAL_02}; the book: d3_mm_reserved_z*"),
        Field("psum_flags", 0x2B, 1, Kind.ENUM, enum=psum_flags_table(ds), conf=V, decision="R-11",
              doc="accumulation-group role: bit 0 START (overwrite), bit 1 STOP (closes the group); 0x00 accumulates "
                  "(the book's ACCU 0x04 is never seen)"),
        *_groups(REAL_02),
        *zero_run(0x2F, 1, V, f"observed zero in {REAL_02}"),
    )
    return [Layout(
        "Matmul", (MATMUL,), body, Sem.MULTIPLY_MOVING,
        _pe_text(slots, EnumText(name="flags", field="psum_flags"),
                 IntText(name="transpose", field="is_transpose").opt(), *_fp32_text(ds)),
        slots, implied=_groups_implied(ds, "moving"),
        binding=Binding({"moving": "moving", "psum": "dst"}, parts={"num_rows": "moving", "num_active_cols": "dst"},
                        dtypes={"in_dtype": "moving"}),
        checks=("pe.geometry", "pe.gen2_bytes", "pe.psum_flags", "pe.psum_dst"),
        doc="MultiplyMoving: psum[c][n] (+)= sum over p < K of W[p][c] * moving[p][n], c < M (R-11: flags 0x00/0x02 "
            "accumulate, 0x01/0x03 overwrite)",
    )]


# --- the book's other PE members (no real bundle: H; not encoded, not simulated) -------------------------------

BOOK_ZERO = "book: zero (the PE encoders zero the bundle first); no real bundle"


def _book_zero(spans: Sequence[tuple[int, int]]) -> list[Field]:
    out: list[Field] = []
    for off, size in spans:
        out += zero_run(off, size, H, BOOK_ZERO)
    return out


def ldtags(ds: DecisionSet) -> list[Layout]:
    """0x06 Ldtags (gen3; book PEM §Sparse): the int16 tags of the following MatmulSparse."""
    fill = ds.get(PeUnusedDims).fill
    slots = (slot("tags", 0x10, 3, dtype="tags_dtype", conf=H, decision="R-9", parts=None, fill=fill,
                  doc="tags (column-selection indices) tensor; the book's constants are the R-9 fill"),)
    body = (
        *_book_zero([(0x0C, 4), (0x22, 4), (0x27, 5), (0x2E, 0x12)]),
        dtype("tags_dtype", 0x20, H, "book: 0x04 (int16)"),
        u8("col_grp", 0x21, H, "book: from the row group (rg 1,3,15 -> 0; 2 -> 4; 4,12 -> 8; 8 -> 0x0C)"),
        u8("tile_size", 0x26, H, "book: max(getLegalTileSize, base + 8)", decision="R-13"),
        u8("row_group", 0x2C, H, "book: sparsity-ratio row group", decision="R-13"),
        u8("col_group", 0x2D, H, "book: ISA-check auxiliary (bounded by 0x0F)"),
    )
    return [Layout("Ldtags", (LDTAGS,), body, Sem.UNMODELLED, _pe_text(slots), slots,
                   doc="book only (MatmultSparse = Ldtags, a dense Ldweights, MatmulSparse); not encoded")]


def matmul_sparse(ds: DecisionSet) -> list[Layout]:
    """0x07 MatmulSparse (gen3; book). R-25: the book's TENSOR4D ifmap at +0x10 overlaps its own dtype
    bytes +0x20/+0x21; by default those bytes are left undeclared."""
    fill = ds.get(PeUnusedDims).fill
    psum = slot("psum", 0x30, 3, dtype=None, write=True, conf=H, decision="R-9", parts=None, fill=fill,
                elem_bytes=4, doc="PSUM destination")
    guess = ds.get(BookOnlyLayouts).guess
    slots: tuple[Slot, ...] = (psum,)
    body: list[Field] = [
        *_book_zero([(0x0C, 4), (0x28, 3), (0x2E, 2)]),
        u8("tile_size", 0x26, H, "book: [base + 0x50] + 8", decision="R-13"),
        u8("num_active_cols", 0x27, H, "book: elements per partition of the weights", decision="R-13"),
        u8("pass_flags", 0x2B, H, "book: fp32 low/high pass bits 0x01/0x02 (not the dense psum flags)"),
        u8("row_group", 0x2C, H, "book: density row group", decision="R-13"),
        u8("col_group", 0x2D, H, "book: ISA-check auxiliary (bounded by 0x0F)"),
    ]
    if guess:  # R-25 guess: the ifmap is a TENSOR3D, which leaves +0x20/+0x21 to the dtype and perf bytes
        slots = (slot("moving", 0x10, 3, dtype="in_dtype", conf=I, decision="R-25", parts=None, fill=fill,
                      doc="ifmap (R-25 guess: TENSOR3D)"), psum)
        body += [dtype("in_dtype", 0x20, H, "book: PE input dtype", decision="R-25"),
                 u8("perf_variant", 0x21, H, "book: 3 * (dtype == fp32)", decision="R-25"),
                 *_book_zero([(0x22, 4)])]
    return [Layout("MatmulSparse", (MATMUL_SPARSE,), tuple(body), Sem.UNMODELLED,
                   _pe_text(slots), slots,
                   doc="book only; +0x10..+0x25 left undeclared under R-25=partial (the book's TENSOR4D ifmap overlaps "
                       "its dtype bytes); not encoded")]


def _mx_pattern(name: str, off: int, what: str) -> list[Field]:
    """The book's MXMEM_PATTERN1D (16 bytes): data and scale addresses, k extent, step sign, scale partition."""
    return [
        Field(f"{name}.data_addr", off, 4, Kind.ADDR4, conf=H, doc=f"{what}: data address (ADDR4)"),
        Field(f"{name}.scale_addr", off + 4, 4, Kind.ADDR4, conf=H, doc=f"{what}: E8M0 scale address (SBUF)"),
        u16(f"{name}.k_extent", off + 8, H, f"{what}: k extent (x4 unpacked)"),
        u8(f"{name}.step_sign", off + 0x0A, H, f"{what}: step sign, 0x01 or 0xFF"),
        u8(f"{name}.scale_partition", off + 0x0B, H, f"{what}: scale partition (% 128, low 2 bits 0)"),
        *zero_run(off + 0x0C, 4, H, BOOK_ZERO),
    ]


def mx(ds: DecisionSet) -> list[Layout]:
    """0x09 LdweightsMX, 0x0A MatmulMX, 0xE3 QuantizeMX: CoreV4 (gen4) only, declared for naming and
    decoding; tongasm's targets are gen2/gen3."""
    full = Field("col_group", 0x2D, 1, Kind.CONSTANT, const=0x0F, conf=H, doc="book: forced full width (0x0F)")
    ldw = Layout("LdweightsMX", (LDWEIGHTS_MX,), (
        *_book_zero([(0x0C, 4), (0x21, 5), (0x28, 4), (0x2E, 0x12)]),
        *_mx_pattern("weights", 0x10, "weights"),
        dtype("in_dtype", 0x20, H, "book: byte_1DFBAD0[dtype] (fp4 x4 = 0x10 on gen4)"),
        u8("num_rows", 0x26, H, "book: K rows", decision="R-13"),
        u8("num_active_cols", 0x27, H, "book: active columns", decision="R-13"),
        u8("row_group", 0x2C, H, "book: row group", decision="R-13"),
        full,
    ), Sem.UNMODELLED, doc="gen4 only (book); not encoded")
    psum = slot("psum", 0x30, 3, dtype="psum_dtype", write=True, conf=H, parts=None, doc="PSUM destination")
    mm = Layout("MatmulMX", (MATMUL_MX,), (
        *_book_zero([(0x0C, 4), (0x21, 5), (0x29, 2), (0x2E, 1)]),
        *_mx_pattern("moving", 0x10, "moving"),
        dtype("in_dtype", 0x20, H, "book: input dtype"),
        u8("num_rows", 0x26, H, "book: K rows", decision="R-13"),
        u8("num_active_cols", 0x27, H, "book: active columns", decision="R-13"),
        dtype("psum_dtype", 0x28, H, "book: PSUM dst dtype (MX only; the dense Matmul has none)"),
        u8("psum_flags", 0x2B, H, "book: raw pre-packed psum flags, valid {0,1,2,3,4,6}", decision="R-11"),
        u8("row_group", 0x2C, H, "book: row group", decision="R-13"),
        full,
        u8("psum_zero_region", 0x2F, H, "book: PSUM bank window a START clears"),
    ), Sem.UNMODELLED, _pe_text((psum,)), (psum,), doc="gen4 only (book); not encoded")
    src = slot("src", 0x10, 3, dtype="src_dtype", conf=H, doc="bf16/fp16 input")
    qmx = Layout("QuantizeMX", (QUANTIZE_MX,), (
        *_book_zero([(0x0C, 4), (0x20, 1), (0x24, 0x0C)]),
        u8("num_partitions", 0x21, H, "book: src partitions, 32, 64, 96 or 128"),
        dtype("src_dtype", 0x22, H, "book: src dtype"),
        dtype("dst_dtype", 0x23, H, "book: x4-packed data dtype"),
        *_mx_pattern("dst", 0x30, "dst"),
    ), Sem.UNMODELLED, _pe_text((src,)), (src,),
        doc="gen4 only (book; its saturate bit at +0x01 conflicts with D-1's constant 0x10 and is not declared); not "
            "encoded")
    return [ldw, mm, qmx]


BUILDERS = (ldweights, matmul, ldtags, matmul_sparse, mx)

__all__ = ["BUILDERS", "LDTAGS", "LDWEIGHTS", "LDWEIGHTS_MX", "MATMUL", "MATMUL_MX", "MATMUL_SPARSE", "QUANTIZE_MX",
           "pack_stationary", "psum_flags_table"]
