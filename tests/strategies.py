"""Hypothesis strategies shared by the property tests: field values for every layout."""

from __future__ import annotations

from hypothesis import strategies as st

from tongasm.isa import build_formats, each_reading
from tongasm.isa.fields import NONZERO, Format

DECISION_SETS = each_reading()
ALL_FORMATS = [(ds, fmt, op) for ds in DECISION_SETS for fmt in build_formats(ds) for op in fmt.opcodes]


@st.composite
def field_values(draw, fmt: Format, opcode: int) -> dict[str, int]:
    """Values for every field of a layout that satisfy its match rule (constants keep their value)."""
    vals: dict[str, int] = {}
    for f in fmt.fields:
        if f.name == "opcode":
            vals[f.name] = opcode
        elif f.const is not None:
            vals[f.name] = f.const
        elif f.name in fmt.match:
            exp = fmt.match[f.name]
            vals[f.name] = draw(st.integers(1, f.hi)) if exp is NONZERO else (
                draw(st.sampled_from(sorted(exp))) if isinstance(exp, frozenset) else exp)
        else:
            vals[f.name] = draw(st.one_of(st.integers(f.lo, f.hi), st.sampled_from([f.lo, 0, 1, f.hi])))
    return vals


@st.composite
def format_and_values(draw):
    ds, fmt, op = draw(st.sampled_from(ALL_FORMATS))
    return ds, fmt, draw(field_values(fmt, op))
