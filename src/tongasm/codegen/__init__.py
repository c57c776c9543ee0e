"""Codegen: IR instruction → layout and field values per opcode family (a plan), the CodeGenMode
fork, streams.

The names below are imported from their modules on first use, so a command that only writes an
output directory (:mod:`.output`) does not load the encoder, the lowerings and the checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .assembler import Assembly, assemble, collect_opcodes, program, resolve_target
    from .checking import KernelReport, check_kernel
    from .common import Context
    from .generator import CodegenResult, encode_bits, generate, stream_of
    from .manifest import MANIFEST_FORM
    from .manifest import expand as expand_manifest

_EXPORTS = {
    "Assembly": ("assembler", "Assembly"), "assemble": ("assembler", "assemble"),
    "collect_opcodes": ("assembler", "collect_opcodes"), "program": ("assembler", "program"),
    "resolve_target": ("assembler", "resolve_target"), "Context": ("common", "Context"),
    "KernelReport": ("checking", "KernelReport"), "check_kernel": ("checking", "check_kernel"),
    "CodegenResult": ("generator", "CodegenResult"), "encode_bits": ("generator", "encode_bits"),
    "generate": ("generator", "generate"), "stream_of": ("generator", "stream_of"),
    "MANIFEST_FORM": ("manifest", "MANIFEST_FORM"), "expand_manifest": ("manifest", "expand"),
}

__all__ = ["Assembly", "CodegenResult", "Context", "KernelReport", "MANIFEST_FORM", "check_kernel", "assemble",
           "collect_opcodes", "encode_bits", "expand_manifest", "generate", "program", "resolve_target", "stream_of"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
