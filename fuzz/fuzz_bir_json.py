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


def _streams(read, errors: list[str] | None = None) -> dict[str, bytes] | None:  # type: ignore[no-untyped-def]
    """The streams ``assemble(read(), check="warn")`` gives, or None when it raises a TongasmError
    (its message appended to ``errors``)."""
    try:
        asm = assemble(read(), check="warn")
    except TongasmError as e:
        if errors is not None:
            errors.append(str(e))
        return None
    return {n: bytes(s) for n, s in asm.streams.items()}


def _duplicate(message: str | None) -> str | None:
    """The "duplicate key 'K'" part of a reader's message, if that is what it refused."""
    if message is None or "duplicate key" not in message:
        return None
    return message[message.index("duplicate key"):].split(" (")[0]


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    with _common.capped_unrolling():
        _one(data)


def _one(data: bytes) -> None:
    whole_error = None
    try:
        kernel = read_bir(data)
    except TongasmError as e:
        kernel = None
        whole_error = str(e)
    if kernel is not None:
        try:
            check_kernel(kernel)
        except TongasmError:
            pass
    whole = _streams(lambda: read_bir(data)) if kernel is not None else None

    path = _TMP / "kernel.json"
    path.write_bytes(data)
    errors: list[str] = []
    streamed = _streams(lambda: stream_bir(path), errors)
    if whole is not None and streamed is not None:
        assert whole == streamed, "read_bir and stream_bir assemble to different streams"
    # a key repeated in an object: both readers refuse it (the streaming reader must not see a
    # different program than the whole-file reader)
    if _duplicate(whole_error) is not None:
        assert streamed is None, f"stream_bir accepted what read_bir refused: {whole_error}"
    if any(_duplicate(e) for e in errors):
        assert kernel is None, f"read_bir accepted what stream_bir refused: {errors}"


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("bir_json", TestOneInput, _atheris_main)
