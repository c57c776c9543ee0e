"""tongasm: an open toolchain for the AWS Neuron (Tonga) ISA.

The everyday entry points are re-exported here (imported on first use, so ``import tongasm`` stays
cheap)::

    import tongasm
    k = tongasm.read_bir("kernel.json")                 # BIR JSON -> IR
    asm = tongasm.assemble(k, target="gen2")            # IR -> per-engine streams (validated)
    cols = tongasm.decode_stream(asm.streams["dve"])    # bytes -> numpy field columns
    findings = tongasm.check_stream(data, stream="dve")  # the raw-bundle validator
    result = tongasm.run_kernel(k, inputs={...})        # simulate

The sub-packages hold the rest: ``isa`` (wire formats and decisions), ``ir``, ``passes``,
``codegen``, ``decode``, ``check``, ``text``, ``sim``.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._meta import __version__  # noqa: F401  (re-exported)

_EXPORTS = {
    "read_bir": "tongasm.ir", "write_bir": "tongasm.ir", "kernel_from_json": "tongasm.ir",
    "kernel_to_json": "tongasm.ir", "stream_bir": "tongasm.ir.stream_reader", "KernelBuilder": "tongasm.ir.builder",
    "assemble": "tongasm.codegen", "collect_opcodes": "tongasm.codegen", "expand_manifest": "tongasm.codegen",
    "decode_bundle": "tongasm.decode", "iter_stream": "tongasm.decode", "decode_stream": "tongasm.decode.batch",
    "StreamColumns": "tongasm.decode.batch",
    "DecisionSet": "tongasm.isa", "DEFAULT_DECISIONS": "tongasm.isa", "FORMATS": "tongasm.isa",
    "GEN2": "tongasm.isa", "GEN3": "tongasm.isa",
    "check_kernel": "tongasm.codegen", "check_stream": "tongasm.check", "check_bundle": "tongasm.check",
    "listing": "tongasm.text", "StreamInput": "tongasm.text", "assemble_text": "tongasm.text",
    "explain_bundle": "tongasm.text",
    "run_kernel": "tongasm.sim", "run_streams": "tongasm.sim",
    "TongasmError": "tongasm.errors",
}

__all__ = ["DEFAULT_DECISIONS", "DecisionSet", "FORMATS", "GEN2", "GEN3", "KernelBuilder", "StreamColumns",
    "StreamInput", "TongasmError", "assemble", "assemble_text", "check_bundle", "check_kernel",
    "check_stream", "collect_opcodes", "decode_bundle", "decode_stream", "expand_manifest", "explain_bundle", "iter_stream",
    "kernel_from_json", "kernel_to_json", "listing", "read_bir", "run_kernel", "run_streams", "stream_bir",
    "write_bir"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tongasm' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
