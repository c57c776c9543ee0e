"""Checks of the DMA family (triggers, descriptors, queues): the family checks their layout records list,
their vector forms, and the ids of the encoder refusals of their codegen (R-16, R-17, R-22).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..isa.decisions.dma import Addr8Modes, DmaOffsetRegisters, DmaSyncCommand
from ..isa.descriptors import PSUM_BASE, decode_addr4
from ..isa.enums import WIRE_DTYPE_ALIGN
from ..isa.fields import Format, Kind
from .bundle_checks import BundleView, _f, bundle_check
from .registry import Finding, register_refusals
from .vectorized import Columns, by_classes, split_addr4, vector

# --- encoder refusals (level "encode") ---

_ENCODE = [
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
register_refusals(_ENCODE)


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
