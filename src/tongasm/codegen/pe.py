"""Codegen of the PE family: LoadStationary (0x01 Ldweights) and MultiplyMoving (0x02 Matmul).

A BIR Matmult reaches codegen as the pair (``passes.lower_matmult``). The selects choose the layout
and the static fields (opcode, is_transpose, the R-11 psum flags, the R-13 group bytes of the tile) from the
attributes and the operands' kinds, dtypes and memory locations; the tiles' geometry reaches the
bundle through the layouts' bindings: the stationary through R-10's packing, K and M from the
partition counts and the stationary's elements per partition.
"""

from __future__ import annotations

from ..errors import EncodeError
from ..isa.decisions.pe import PeGeometry, PeTranspose, PsumFlags
from ..isa.enums import DTYPE_INFO, Dtype, MemoryType
from ..isa.fields import Format
from ..isa.layouts.pe import LDWEIGHTS, MATMUL
from ..ir.instructions import LoadStationary, MultiplyMoving
from ..ir.operands import Operand, PhysicalAP
from .common import Context, dtype_of, resolve_offset

Selection = tuple[Format, dict[str, int]]


def _target(ctx: Context, what: str) -> None:
    if ctx.target.name != "gen3":
        raise EncodeError(f"{what}: the PE opcodes are encoded in their gen3 form only; the gen2 (CoreV2) form is "
                          "book-only (+0x26 base partition, +0x2E xbus, a transpose flag inside the ADDR4 word: R-25)",
                          field="target", value=ctx.target.name, limit="gen3", check="pe.target")


def _counts(inst: LoadStationary | MultiplyMoving, n_in: int, n_out: int, shape: str) -> None:
    if len(inst.ins) != n_in or len(inst.outs) != n_out:
        raise EncodeError(f"{inst.opcode} needs {shape}; got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)",
                          check="operands.shape")


def _space(op: Operand | None, role: str, want: MemoryType, what: str) -> None:
    """The operand lies in ``want`` (SBUF for the PE inputs, PSUM for its result)."""
    if isinstance(op, PhysicalAP) and op.location is not None and op.location.type != want:
        raise EncodeError(f"{what} {role} must be in {want.value}, not {op.location.type.value} "
                          f"(memory location {op.location.name!r})", field=role, value=op.location.type.value,
                          limit=want.value, check="pe.operands")


def _groups(ctx: Context, op: Operand | None, role: str) -> dict[str, int]:
    """R-13: the row group of the tile's rows (its start partition and K, the book's LUT) and the
    forced whole-array column group every gen3 bundle holds; a tile that does not fit the array is
    refused (pe.geometry)."""
    geo = ctx.decisions.get(PeGeometry)
    start = resolve_offset(op, role)[0] if isinstance(op, PhysicalAP) and op.location is not None else 0
    rows = op.partitions if isinstance(op, PhysicalAP) else geo.FULL
    if not geo.allows(rows, 1, start):
        raise EncodeError(f"{role}: {rows} rows from partition {start} do not fit the {geo.FULL}-row PE array",
                          field=f"{role}.ap", value=rows, limit=f"1..{geo.FULL - start}", check="pe.geometry")
    return {"row_group": geo.group(start, rows), "col_group": geo.group_code}


def load_stationary_opcodes(inst: LoadStationary, ctx: Context) -> list[int]:
    _counts(inst, 1, 0, "ins = [stationary] and outs = []")
    return [LDWEIGHTS.byte]


def load_stationary_select(inst: LoadStationary, ctx: Context) -> Selection:
    """0x01: the stationary tile is placed by the binding (R-10 packing, K, M, dtype)."""
    load_stationary_opcodes(inst, ctx)
    _target(ctx, "LoadStationary")
    _space(inst.stationary, "stationary", MemoryType.SB, "LoadStationary")
    dtype_of(inst.stationary, "stationary")
    return ctx.formats.by_name["Ldweights"], {"opcode": LDWEIGHTS.byte,
                                              "is_transpose": int(bool(inst.attr("is_transpose"))),
                                              **_groups(ctx, inst.stationary, "stationary")}


def multiply_moving_opcodes(inst: MultiplyMoving, ctx: Context) -> list[int]:
    _counts(inst, 1, 1, "ins = [moving] and outs = [dst]")
    return [MATMUL.byte]


def multiply_moving_select(inst: MultiplyMoving, ctx: Context) -> Selection:
    """0x02: the group role (R-11) and is_transpose; the dst's dtype must be the one R-12 writes."""
    multiply_moving_opcodes(inst, ctx)
    _target(ctx, "MultiplyMoving")
    _space(inst.moving, "moving", MemoryType.SB, "MultiplyMoving")
    _space(inst.dst, "dst", MemoryType.PSUM, "MultiplyMoving")
    transpose = bool(inst.attr("is_transpose"))
    moving, dst = dtype_of(inst.moving, "moving"), dtype_of(inst.dst, "dst")
    fp32 = DTYPE_INFO[Dtype.float32].wire
    want = ctx.decisions.get(PeTranspose).psum_wire(transpose, DTYPE_INFO[moving].wire, fp32)
    if DTYPE_INFO[dst].wire != want:
        need = moving.name if want != fp32 else "float32"
        raise EncodeError(f"MultiplyMoving dst is {dst.name}, but the PE writes {need} to PSUM "
                          f"({'a transpose: the input dtype' if transpose else 'fp32 accumulation'}, R-12)",
                          field="dst.dtype", value=dst.name, limit=need, check="pe.operands")
    flags = ctx.decisions.get(PsumFlags).flags(bool(inst.attr("start_tensor_calc")),
                                                bool(inst.attr("stop_tensor_calc")))
    return ctx.formats.by_name["Matmul"], {"opcode": MATMUL.byte, "is_transpose": int(transpose),
                                           "psum_flags": flags, **_groups(ctx, inst.moving, "moving")}
