"""Every numbered decision of tongasm, in one place: D-n (SPEC.md), R-n (the real-NEFF chapter),
N-n (the next-families chapter) and S-n (the simulator's semantics).

Each decision is a class in one of this package's modules (:mod:`.spec`, :mod:`.semantics`, ...)
with its readings and the behaviour they imply; :class:`DecisionSet` selects readings and hands out
the bound decisions (``ds.get(FreeDimOrder)``). Nothing outside this package compares reading names.
``tongasm decisions`` lists them all; ``--decision ID=READING`` selects an alternative.
"""

from __future__ import annotations

from . import act, archive, control, dma, neff, pe, scalar, semantics, sp, spec, tensor
from . import gpsimd  # the Pool-engine (GPSIMD) opcodes of real output
from . import move  # noqa: F401  (the DVE data-movement family: registration side effect)
from . import batchnorm, reduce, search  # noqa: F401  (the reduce, search and batch-norm backward families)
from .base import DECISIONS, KINDS, Decision, DecisionInfo, DecisionSet, Reading, each_reading

DEFAULT_DECISIONS = DecisionSet()

__all__ = ["DECISIONS", "DEFAULT_DECISIONS", "KINDS", "Decision", "DecisionInfo", "DecisionSet", "Reading",
           "act", "archive", "control", "dma", "each_reading", "gpsimd", "neff", "pe", "scalar", "semantics", "sp", "spec", "tensor"]
