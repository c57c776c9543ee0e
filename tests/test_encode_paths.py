"""The encoder's two paths agree byte for byte.

``assemble(check="off")`` runs GENERATE_ISACODE in the assembler's loop (the plan's encode function
called per (class, engine, operand counts), loop iterations reused); ``check="warn"`` runs every
instruction through ``generate()`` (RUN_ISA_CHECKS, the bytes decoded again and checked). Both use
the same plans; they must write the same streams, on the benchmark's
mixed kernel (every family, five engines, sync, Selects) flat and inside a loop, and whether the
kernel is in memory or streamed from its JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import load_file
from tongasm.codegen import assemble
from tongasm.isa.decisions import DecisionSet
from tongasm.ir import read_bir
from tongasm.ir.stream_reader import stream_bir

ROOT = Path(__file__).resolve().parent.parent


KERNELS = load_file(ROOT / "benchmarks" / "kernels.py", "tongasm_bench_kernels")


def streams(asm: Any) -> dict[str, bytes]:
    return {n: bytes(s) for n, s in asm.streams.items()}


@pytest.mark.parametrize(("seed", "readings"), [(0, []), (1, []), (2, ["D-2=raw", "D-6=outermost-first"]),
                                               (3, ["D-4=update-wins", "D-12=bypass-bitvec"])])
def test_lean_and_checked_paths_write_the_same_streams(seed: int, readings: list[str]) -> None:
    k = KERNELS.kernel_ir(1200, seed=seed)
    ds = DecisionSet.parse(readings)
    lean = assemble(k, check="off", decisions=ds)
    checked = assemble(k, check="warn", decisions=ds)
    assert streams(lean) == streams(checked)
    assert [e.to_json() for e in lean.instructions] == [e.to_json() for e in checked.instructions]
    assert sum(len(s) for s in lean.streams.values()) == 64 * (1200 + 1200 // 16)  # a Select is 2 bundles


def test_loop_bodies_encode_as_their_flat_unrolling() -> None:
    looped = assemble(KERNELS.looped_kernel_ir(600, body=200), check="off")
    flat = KERNELS.kernel_ir(200)
    once = streams(assemble(flat, check="off"))
    assert streams(looped) == {n: s * 3 for n, s in once.items()}


def test_a_streamed_kernel_encodes_as_the_same_kernel_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "k.json"
    KERNELS.write_kernel(path, 900, seed=3)
    in_memory = assemble(read_bir(json.loads(path.read_text())), check="off")
    streamed = assemble(stream_bir(path), check="off")
    assert streams(in_memory) == streams(streamed)
    assert [e.to_json() for e in in_memory.instructions] == [e.to_json() for e in streamed.instructions]
