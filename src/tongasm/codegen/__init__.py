"""Codegen: IR instruction → field values per opcode family, the CodeGenMode fork, streams."""

from .assembler import Assembly, assemble, collect_opcodes, program, resolve_target
from .common import BundleSpec, Context
from .generator import CodegenResult, generate, stream_of

__all__ = ["Assembly", "BundleSpec", "CodegenResult", "Context", "assemble", "collect_opcodes", "generate",
           "program", "resolve_target", "stream_of"]
