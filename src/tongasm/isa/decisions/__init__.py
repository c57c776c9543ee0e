"""Every numbered decision of tongasm, in one place: D-n (SPEC.md), R-n (the real-NEFF chapter),
N-n (the next-families chapter) and S-n (the simulator's semantics).

Each decision is a class in one of this package's modules (:mod:`.spec`, :mod:`.semantics`, ...)
with its readings and the behaviour they imply; :class:`DecisionSet` selects readings and hands out
the bound decisions (``ds.get(FreeDimOrder)``). Nothing outside this package compares reading names.
``tongasm decisions`` lists them all; ``--decision ID=READING`` selects an alternative.
"""

from __future__ import annotations

from . import families, real, semantics, spec
from . import gpsimd  # the Pool-engine (GPSIMD) opcodes of real output
from . import pe_fp32  # the PE's fp32 passes
from .base import DECISIONS, KINDS, Decision, DecisionInfo, DecisionSet, Reading, each_reading

DEFAULT_DECISIONS = DecisionSet()

__all__ = ["DECISIONS", "DEFAULT_DECISIONS", "KINDS", "Decision", "DecisionInfo", "DecisionSet", "Reading",
           "each_reading", "families", "gpsimd", "pe_fp32", "real", "semantics", "spec"]
