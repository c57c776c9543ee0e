#!/usr/bin/env python3
"""Fuzz what ``tongasm run`` reads beside the streams and what it writes: ``memory.json`` and output names.

Input: the bytes of a memory description (``memory.json``). ``MemoryDescription.load`` returns one or
raises a :class:`tongasm.errors.TongasmError`; one that loads is validated for the target and run
with the streams of ``examples/vector_add.json``, and every variable it holds is written as the
outputs (``write_results``) into a fresh directory. Whatever the names (``..``, ``/``, NUL, lone
surrogates, a leading dot), every file lands directly in that directory under a plain name
(:func:`tongasm.io.outputs.check_output_name`), distinct names give distinct files, and nothing else on
disk changes; every refusal is a TongasmError.

    python fuzz/fuzz_outputs.py -max_total_time=600 fuzz/corpus/outputs   # atheris
    python fuzz/fuzz_outputs.py --replay fuzz/corpus/outputs              # no atheris
    python fuzz/fuzz_outputs.py --random 2000                             # no atheris
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
    from tongasm.codegen import assemble
    from tongasm.errors import TongasmError
    from tongasm.ir import read_bir
    from tongasm.ir.memory import MemoryDescription
    from tongasm.sim.run import run_streams, write_results
    from tongasm.io.outputs import check_output_name, output_name

_TMP = Path(tempfile.mkdtemp(prefix="tongasm-fuzz-outputs-"))
atexit.register(shutil.rmtree, _TMP, True)
_STREAMS = {n: bytes(s) for n, s in assemble(read_bir(_common.ROOT / "examples" / "vector_add.json")).streams.items()}


def _tree(p: Path) -> set[str]:
    return {str(q.relative_to(p)) for q in p.rglob("*")}


def TestOneInput(data: bytes) -> None:
    if len(data) > _common.MAX_INPUT:
        return
    for q in list(_TMP.iterdir()):
        shutil.rmtree(q) if q.is_dir() else q.unlink()
    src = _TMP / "memory.json"
    src.write_bytes(data)
    try:
        memory = MemoryDescription.load(src)
    except TongasmError:
        return
    # every name maps to a plain file name, and distinct names to distinct files
    files: dict[str, str] = {}
    for v in memory.variables:
        try:
            fname = output_name(v.name, ".npy", "variable")
        except TongasmError:
            continue
        assert check_output_name(fname) == fname and "/" not in fname and not fname.startswith(".")
        assert files.setdefault(fname, v.name) == v.name, (fname, files[fname], v.name)
    before = _tree(_TMP)
    out = _TMP / "out"
    try:
        result = run_streams(_STREAMS, memory)
        write_results(result, out, [v.name for v in memory.variables] or None)
    except TongasmError:
        assert _tree(_TMP) == before, "a refused run left files behind"
        return
    new = _tree(_TMP) - before
    assert all(p == "out" or (p.startswith("out" + os.sep) and p.count(os.sep) == 1) for p in new), new


def _atheris_main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    _common.main("outputs", TestOneInput, _atheris_main)
