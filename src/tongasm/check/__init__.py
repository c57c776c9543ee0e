"""The ISA validator: named checks with stable ids, findings, and the runners for kernels and raw
streams (``tongasm check``, and the RUN_ISA_CHECKS mode of codegen)."""

from .registry import CHECKS, UNCHECKED, Check, CheckSet, Finding, all_checks
from . import real_checks  # noqa: F401  (the PE, DMA and sync/control checks: registration side effect)
from .runner import KernelReport, check_bundle, check_instruction, check_kernel, check_stream

__all__ = ["CHECKS", "Check", "CheckSet", "Finding", "KernelReport", "UNCHECKED", "all_checks", "check_bundle",
           "check_instruction", "check_kernel", "check_stream"]
