"""Codegen: IR instruction → layout and field values per opcode family (a plan), the CodeGenMode
fork, streams."""

from .assembler import Assembly, assemble, collect_opcodes, program, resolve_target
from .common import Context
from .checking import KernelReport, check_kernel
from .generator import CodegenResult, encode_bits, generate, stream_of
from .manifest import MANIFEST_FORM, expand as expand_manifest

__all__ = ["Assembly", "CodegenResult", "Context", "KernelReport", "MANIFEST_FORM", "check_kernel", "assemble",
           "collect_opcodes", "encode_bits", "expand_manifest", "generate", "program", "resolve_target", "stream_of"]
