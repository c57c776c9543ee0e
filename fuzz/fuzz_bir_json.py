#!/usr/bin/env python3
"""Fuzz the BIR JSON readers and what runs on what they accept.

Input: the bytes of a BIR JSON file. ``read_bir`` (in memory) and ``stream_bir`` (the streaming
reader ``tongasm assemble`` uses, on a temporary file) each return a kernel or raise a
:class:`tongasm.errors.TongasmError`; a kernel that reads is then assembled with
``assemble(..., check="warn")`` and checked with ``check_kernel``, which again return or raise a
TongasmError, nothing else. When both readers assemble the input, they give the same streams.
Loop unrolling is capped (``_common.MAX_UNROLLED``) so that a legal but huge loop does not stall
the fuzzer.

    python fuzz/fuzz_bir_json.py -max_total_time=600 fuzz/corpus/bir_json   # atheris
    python fuzz/fuzz_bir_json.py --replay fuzz/corpus/bir_json              # no atheris
    python fuzz/fuzz_bir_json.py --random 2000                              # no atheris
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

try:
    import atheris
except ImportError:  # the --replay / --random fallback modes run without it
    atheris = None

with _common.instrumented(atheris, __name__):
    import tongasm.passes  # noqa: F401  (instrumented too: codegen imports it lazily)
    from tongasm.codegen import check_kernel
    from tongasm.codegen import assemble
    from tongasm.errors import TongasmError
    from tongasm.ir import read_bir
    from tongasm.ir.stream_reader import stream_bir

_TMP = Path(tempfile.mkdtemp(prefix="tongasm-fuzz-"))
atexit.register(shutil.rmtree, _TMP, True)


def _streams(read) -> dict[str, bytes] | None:  # type: ignore[no-untyped-def]
    """The streams ``assemble(read(), check="warn")`` gives, or None when it raises a TongasmError."""
    try:
        asm = assemble(read(), check="warn")
    except TongasmError:
        return None
    return {n: bytes(s) for n, s in asm.streams.items()}


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    with _common.capped_unrolling():
        _one(data)


def _one(data: bytes) -> None:
    try:
        kernel = read_bir(data)
    except TongasmError:
        kernel = None
    if kernel is not None:
        try:
            check_kernel(kernel)
        except TongasmError:
            pass
    whole = _streams(lambda: read_bir(data)) if kernel is not None else None

    path = _TMP / "kernel.json"
    path.write_bytes(data)
    streamed = _streams(lambda: stream_bir(path))
    if whole is not None and streamed is not None:
        assert whole == streamed, "read_bir and stream_bir assemble to different streams"


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("bir_json", TestOneInput, _atheris_main)
