"""Checks of the Pool-engine (GPSIMD) opcodes real output carries (:mod:`tongasm.isa.layouts.gpsimd`):
the rules their bytes obey in every real bundle and the sources state or imply. The structural checks
(constants, reserved bytes, enums, descriptor geometry) apply by themselves from the declarations."""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..isa.decisions.gpsimd import TensorScalarAddrKinds, TensorScalarAddrSlots
from .bundle_checks import BundleView, bundle_check
from .registry import Finding
from .vectorized import by_classes, vector


def _f(check: str, message: str, field: str | None = None, value: object = None, allowed: str | None = None) -> Finding:
    return Finding(check, message, field, value, allowed)


@bundle_check("tsa.scalar_kinds", "a TensorScalarAddr pointer scalar is an SBUF/PSUM ADDR4 word; an immediate "
              "is a sign-extended 32-bit value", "R-70, R-71 (every real bundle)")
def _tsa_kinds(b: BundleView) -> Iterator[Finding]:
    names = b.decisions.get(TensorScalarAddrKinds).names()
    wide = b.decisions.get(TensorScalarAddrSlots).value_width == 8
    for s in ("s0", "s1"):
        kind, word = names.get(b.fields[f"{s}_kind"]), b.fields[f"{s}_value"]
        if kind == "ptr" and (word >> 31):
            yield _f("tsa.scalar_kinds", f"pointer scalar {s}: the word is not an SBUF/PSUM address (bits 31 and up "
                     "are set)", f"{s}_value", hex(word), "an ADDR4 below 0x80000000")
        elif kind == "imm" and wide:
            lo = word & 0xFFFFFFFF
            want = lo | (0xFFFFFFFF00000000 if lo >> 31 else 0)
            if word != want:
                yield _f("tsa.scalar_kinds", f"immediate scalar {s}: the upper word is not the sign extension of the "
                         "lower", f"{s}_value", hex(word), hex(want))
        elif kind == "reg" and word >= 64:
            yield _f("tsa.scalar_kinds", f"register scalar {s}: no such register", f"{s}_value", word, "0..63")


@bundle_check("custom.payloads", "a CustomOpHeader announces 1 + num_args payload bundles",
              "MASTER ('0x85 + 0x86 x (1+num_args)'), R-72")
def _custom_payloads(b: BundleView) -> Iterator[Finding]:
    if b.fields["payloads"] != b.fields["num_args"] + 1:
        yield _f("custom.payloads", "payload count is not 1 + num_args", "payloads", b.fields["payloads"],
                 str(b.fields["num_args"] + 1))


@bundle_check("affsel.pattern", "the AffineSelect pattern covers the output's elements per partition",
              "R-74 (as Iota's iota_same_src_dst_count)")
def _affsel_pattern(b: BundleView) -> Iterator[Finding]:
    pattern = math.prod(b.fields[f"pnum{i}"] for i in range(4))
    dst = math.prod(b.fields[k] for k in b.fmt.slots["dst"].num_keys)
    src = math.prod(b.fields[k] for k in b.fmt.slots["src"].num_keys)
    if pattern != dst:
        yield _f("affsel.pattern", "the affine pattern's element count differs from the output's", "pattern",
                 pattern, str(dst))
    elif src != dst:
        yield _f("affsel.pattern", "in and out have different element counts per partition", "elements",
                 f"src={src}, dst={dst}", "equal")


vector("tsa.scalar_kinds")(by_classes(_tsa_kinds, "s0_kind", "s1_kind", "s0_value", "s1_value"))
vector("custom.payloads")(by_classes(_custom_payloads, "payloads", "num_args"))
vector("affsel.pattern")(by_classes(_affsel_pattern, *[f"pnum{i}" for i in range(4)],
                                    *[f"{s}.num{i}" for s in ("src", "dst") for i in range(2)]))
