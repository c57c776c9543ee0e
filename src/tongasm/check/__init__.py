"""The ISA validator: named checks with stable ids, findings, and the runners for one bundle, one
instruction and raw streams (``tongasm check``). Checking a whole kernel is codegen's RUN_ISA_CHECKS
mode: :func:`tongasm.codegen.check_kernel`."""

from .registry import CHECKS, UNCHECKED, Check, CheckSet, Finding
from .runner import all_checks, check_bundle, check_instruction, check_stream
from . import control, dma, pe  # noqa: F401  (the PE, DMA and sync/control checks: registration side effect)
from . import operands, reduce, act, scalar  # noqa: F401  (the vector families' checks: registration side effect)
from . import gpsimd  # noqa: F401  (the Pool-engine opcodes' checks: registration side effect)
from . import move  # noqa: F401  (the DVE data-movement checks: registration side effect)
from . import batchnorm, search  # noqa: F401  (the search and batch-norm backward checks: registration)
from . import races  # noqa: F401  (the static race check of a NEFF graph: registration side effect)

__all__ = ["CHECKS", "Check", "CheckSet", "Finding", "UNCHECKED", "all_checks", "check_bundle",
           "check_instruction", "check_stream"]
