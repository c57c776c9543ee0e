"""Running programs: streams (or a kernel, assembled first) plus inputs → outputs and machine state."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping

import numpy as np

from ..decode.bundle import DecodedBundle
from ..errors import InputError, UsageError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.targets import Target, get_target
from ..ir.instructions import Kernel
from .machine import ENGINES, Machine
from ..ir.memory import MemoryDescription, Variable, conform_input, describe_kernel
from .scheduler import RunStats, Scheduler, load_streams
from .trace import Timeline


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
    """Store each input in its variable; it must fill the variable exactly (:func:`conform_input`)."""
    for name, arr in inputs.items():
        v = memory.by_name(name)
        machine.write_variable(v, conform_input(v, arr)[0])


def conform_inputs(memory: MemoryDescription, inputs: Mapping[str, np.ndarray],
                   note: Callable[[str], None] | None = None) -> dict[str, np.ndarray]:
    """Every input checked against its variable before a run (:func:`conform_input`: exact shape,
    exact dtype or an exact cast, reported through ``note``); an InputError names the first misfit."""
    out = {}
    for name, arr in inputs.items():
        cast, why = conform_input(memory.by_name(name), arr)
        if why and note is not None:
            note(why)
        out[name] = cast
    return out


def check_stream_cap(streams: Mapping[str, bytes | bytearray | memoryview]) -> None:
    """Refuse (InputError, exit 2) streams that together hold more bundles than
    :func:`tongasm.passes.program.max_instructions`: every bundle is decoded before a run."""
    from ..passes.program import max_instructions

    total = sum(len(d) for d in streams.values()) // 64
    cap = max_instructions()
    if total > cap:
        raise InputError(f"the streams hold {total} bundles; tongasm runs at most {cap} "
                         "(TONGASM_MAX_INSTRUCTIONS raises the cap)")


def run_streams(streams: Mapping[str, bytes | bytearray | memoryview], memory: MemoryDescription, inputs: Mapping[str, np.ndarray] = {},
                *, target: Target | str | None = None, decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0,
                trace: Callable[[str, DecodedBundle, int, str | None], None] | None = None,
                progress: Callable[[int, int | None], None] | None = None, timeline: Timeline | None = None,
                labels: Mapping[str, list[str | None]] | None = None) -> RunResult:
    """Simulate engine streams (``{"dve": bytes, ...}``) on a fresh machine. ``labels`` gives the BIR
    instruction name of each bundle of a stream (for the trace and the reports).

    The streams together may hold at most :func:`tongasm.passes.program.max_instructions` bundles
    (every bundle is decoded before the run); the memory description must fit the target
    (:meth:`MemoryDescription.validate`). ``progress(executed, total)`` is called as bundles run
    (see :class:`Scheduler`).
    """
    tgt = get_target(target or memory.target)
    check_stream_cap(streams)
    memory.validate(tgt)
    m = Machine(tgt, memory, seed=seed)
    load_inputs(m, memory, inputs)
    loaded = load_streams(streams, decisions)
    for st in loaded:
        st.labels = (labels or {}).get(st.engine)
    sched = Scheduler(m, loaded, decisions, trace, progress=progress, timeline=timeline, seed=seed)
    stats = sched.run()
    return RunResult(m, memory, stats)


def run_kernel(kernel: Kernel, inputs: Mapping[str, np.ndarray] = {}, *, target: str | Target | None = None,
               decisions: DecisionSet = DEFAULT_DECISIONS, seed: int = 0, check: str = "refuse",
               trace: Callable[[str, DecodedBundle, int, str | None], None] | None = None,
               progress: Callable[[int, int | None], None] | None = None, timeline: Timeline | None = None) -> RunResult:
    """Assemble a kernel, then simulate its bundles (from bytes, not from the IR)."""
    from ..codegen import assemble

    asm = assemble(kernel, target=target, decisions=decisions, check=check)
    memory = describe_kernel(kernel, asm.target.name)
    return run_streams({n: bytes(s) for n, s in asm.streams.items()}, memory, inputs, target=asm.target,
                       decisions=decisions, seed=seed, trace=trace, progress=progress, timeline=timeline,
                       labels=bundle_labels(asm) if timeline is not None else None)


def bundle_labels(asm: Any) -> dict[str, list[str | None]]:
    """The name of the BIR instruction behind every bundle of an assembly's streams (from its
    manifest log), by stream; an instruction without a name is labelled by its index (``#3``)."""
    from ..isa.fields import BUNDLE_SIZE

    out: dict[str, list[str | None]] = {n: [None] * (len(s) // BUNDLE_SIZE) for n, s in asm.streams.items()}
    for e in asm.log.entries(asm.streams):
        names = out.get(e.stream)
        if names is None:
            continue
        for off in e.offsets:
            if off // BUNDLE_SIZE < len(names):
                names[off // BUNDLE_SIZE] = e.name or f"#{e.index}"
    return out


def parse_inputs(specs: list[str]) -> dict[str, np.ndarray]:
    """``NAME=FILE.npy`` → arrays (:func:`read_npy`); a name given twice is refused."""
    out = {}
    for spec in specs:
        name, eq, path = spec.partition("=")
        if not eq or not name or not path:
            raise UsageError(f"--input expects NAME=FILE.npy, got {spec!r}")
        if name in out:
            raise UsageError(f"--input gives {name!r} twice")
        out[name] = read_npy(path)
    return out


def read_npy(path: str | Path) -> np.ndarray:
    """A ``.npy`` array, checked before its data is read: a regular file (its size is needed), a
    version 1-3 header, a numeric dtype (no struct, void, string or object arrays; never a pickle),
    and exactly as many data bytes as the header's shape says (a header that claims a huge shape
    is refused, not allocated)."""
    from numpy.lib import format as npf

    from ..io.inputs import input_size

    size = input_size(path, ".npy input")
    try:
        with open(path, "rb") as fh:
            version = npf.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = npf.read_array_header_1_0(fh)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = npf.read_array_header_2_0(fh)
            else:
                raise ValueError(f"unsupported .npy version {version}")
            if dtype.hasobject or dtype.names is not None or dtype.kind in "OSUMm" or dtype.subdtype is not None:
                raise ValueError(f"a {dtype} array is not numbers (struct, string, object and sub-array "
                                 "dtypes cannot be inputs)")
            count = math.prod(shape)
            need = count * dtype.itemsize
            have = size - fh.tell()
            if need != have:
                raise ValueError(f"the header describes {shape} x {dtype} = {need} bytes of data; the file holds "
                                 f"{have}")
            data = np.fromfile(fh, dtype=dtype, count=count) if count else np.empty(0, dtype)
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror or e}") from None
    except (ValueError, TypeError, SyntaxError, OverflowError) as e:
        raise InputError(f"cannot load {path}: not a usable .npy file: {e}") from None
    return data.reshape(shape[::-1]).T if fortran else data.reshape(shape)


def write_results(result: RunResult, out_dir: str | Path, names: list[str] | None = None) -> list[Path]:
    """``<name>.npy`` for each output plus ``state.json`` (:func:`write_outputs`)."""
    return write_outputs(result.outputs(names), result.state(), out_dir)


def write_outputs(outputs: Mapping[str, np.ndarray], state: Mapping[str, Any], out_dir: str | Path) -> list[Path]:
    """``<name>.npy`` for each output plus ``state.json``, written atomically as one directory.

    A variable's name becomes a file name through :func:`tongasm.io.outputs.output_name` (``a/b`` is
    written as ``a%2Fb.npy``); ``state.json`` maps each variable to its file under ``"outputs"``,
    and the ``.npy`` files an earlier run listed there that this run does not write are removed."""
    import io

    from ..io.outputs import MANIFEST_TOOL, WRITTEN_KEY, content_digest, manifest_files, output_name, write_output_dir

    files: dict[str, bytes] = {}
    listing: dict[str, Any] = {}
    for name, arr in outputs.items():
        fname = output_name(name, ".npy", "variable")
        if fname in files:
            raise InputError(f"variables {listing[fname]!r} and {name!r} would both be written as {fname}")
        buf = io.BytesIO()
        np.save(buf, arr, allow_pickle=False)
        files[fname] = buf.getvalue()
        listing[fname] = name
    full = {"tool": MANIFEST_TOOL, **state}
    full["outputs"] = {name: {"file": fname} for fname, name in listing.items()}
    full[WRITTEN_KEY] = {fname: content_digest(data) for fname, data in files.items()}
    files[STATE_FILE] = (json.dumps(full, indent=1) + "\n").encode()
    return write_output_dir(out_dir, files, stale=lambda d: {n for n in manifest_files(d / STATE_FILE, ["outputs"])
                                                             if n.endswith(".npy")})


STATE_FILE = "state.json"


__all__ = ["RunResult", "Variable", "conform_inputs", "load_inputs", "parse_inputs", "read_npy", "run_kernel",
           "run_streams", "write_outputs", "write_results"]
