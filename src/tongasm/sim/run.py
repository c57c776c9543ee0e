"""Running programs: streams (or a kernel, assembled first) plus inputs → outputs and machine state."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping

import numpy as np

from ..decode.bundle import DecodedBundle
from ..errors import InputError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.targets import Target, get_target
from ..ir.instructions import Kernel
from .machine import ENGINES, Machine
from .memory import MemoryDescription, Variable, describe_kernel
from .scheduler import RunStats, Scheduler, load_streams


@dataclass
class RunResult:
    machine: Machine
    memory: MemoryDescription
    stats: RunStats

    def outputs(self, names: list[str] | None = None) -> dict[str, np.ndarray]:
        """Output tensors: the named variables, else those of kind Output, else every variable."""
        vs = self.memory.variables
        if names:
            chosen = [self.memory.by_name(n) for n in names]
        else:
            chosen = [v for v in vs if v.is_output] or list(vs)
        return {v.name: self.machine.read_variable(v) for v in chosen if v.nbytes > 0}

    def state(self) -> dict[str, Any]:
        """Registers (non-zero), semaphores (non-zero), events set, accumulators (finite), shape registers."""
        m = self.machine
        out: dict[str, Any] = {"executed": self.stats.executed, "per_engine": self.stats.per_engine,
                               "semaphores": {str(i): int(v) for i, v in enumerate(m.semaphores) if v},
                               "events": [int(i) for i in np.flatnonzero(m.events)], "engines": {}}
        for name in ENGINES:
            e = m.engines[name]
            regs = {f"r{i}": int(v) for i, v in enumerate(e.registers) if v}
            acc = {str(i): float(v) for i, v in enumerate(e.accumulator) if np.isfinite(v)}
            entry: dict[str, Any] = {}
            if regs:
                entry["registers"] = regs
            if acc:
                entry["accumulator"] = acc
            if any(e.shape.counts):
                entry["shape"] = {"steps": list(e.shape.steps), "counts": list(e.shape.counts),
                                  "is_output": e.shape.is_output}
            if entry:
                out["engines"][name] = entry
        return out


def load_inputs(machine: Machine, memory: MemoryDescription, inputs: Mapping[str, np.ndarray]) -> None:
    for name, arr in inputs.items():
        machine.write_variable(memory.by_name(name), np.asarray(arr))


def run_streams(streams: Mapping[str, bytes | bytearray | memoryview], memory: MemoryDescription, inputs: Mapping[str, np.ndarray] = {},
                *, target: Target | str | None = None, decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0,
                trace: Callable[[str, DecodedBundle, int], None] | None = None,
                progress: Callable[[int, int | None], None] | None = None) -> RunResult:
    """Simulate engine streams (``{"dve": bytes, ...}``) on a fresh machine.

    ``progress(executed, total)`` is called as bundles run (see :class:`Scheduler`).
    """
    tgt = get_target(target or memory.target)
    m = Machine(tgt, memory, seed=seed)
    load_inputs(m, memory, inputs)
    sched = Scheduler(m, load_streams(streams, decisions), decisions, trace, progress=progress)
    stats = sched.run()
    return RunResult(m, memory, stats)


def run_kernel(kernel: Kernel, inputs: Mapping[str, np.ndarray] = {}, *, target: str | Target | None = None,
               decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0, check: str = "refuse",
               trace: Callable[[str, DecodedBundle, int], None] | None = None,
               progress: Callable[[int, int | None], None] | None = None) -> RunResult:
    """Assemble a kernel, then simulate its bundles (from bytes, not from the IR)."""
    from ..codegen import assemble

    asm = assemble(kernel, target=target, decisions=decisions, check=check)
    memory = describe_kernel(kernel, asm.target.name)
    return run_streams({n: bytes(s) for n, s in asm.streams.items()}, memory, inputs, target=asm.target,
                       decisions=decisions, seed=seed, trace=trace, progress=progress)


def parse_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``NAME=FILE.npy`` → arrays."""
    out = {}
    for spec in specs:
        name, eq, path = spec.partition("=")
        if not eq or not name or not path:
            raise InputError(f"--input expects NAME=FILE.npy, got {spec!r}")
        try:
            out[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise InputError(f"cannot load {path}: {e}") from None
    return out


def write_results(result: RunResult, out_dir: str | Path, names: list[str] | None = None) -> list[Path]:
    """``<name>.npy`` for each output plus ``state.json``, written atomically."""
    import io

    from ..util import write_output_dir

    files: dict[str, bytes] = {}
    for name, arr in result.outputs(names).items():
        buf = io.BytesIO()
        np.save(buf, arr, allow_pickle=False)
        files[f"{name}.npy"] = buf.getvalue()
    files["state.json"] = (json.dumps(result.state(), indent=1) + "\n").encode()
    return write_output_dir(out_dir, files)


__all__ = ["RunResult", "Variable", "load_inputs", "parse_inputs", "run_kernel", "run_streams", "write_results"]
