"""run: a kernel, streams or a NEFF on the simulator."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from collections.abc import Iterator
from typing import Any
from ..errors import UsageError
from ..isa.decisions import DecisionSet
from .common import _bar, _check_length, _decisions, _is_kernel, _kernel_target_note, _plural, _print_json, _print_notes, _read_stream, _refuse_overwriting_inputs, _stream_name


def cmd_run(args: argparse.Namespace) -> int:
    from ..sim.run import (
        conform_inputs,
        parse_inputs,
        run_kernel,
        run_streams,
        write_results,
    )
    from ..neff import is_neff_spec
    from ..io.outputs import output_dir_path, output_file_path
    from ..io.inputs import read_head

    decisions = _decisions(args)
    # everything the arguments alone decide is checked before any work
    output_dir_path(args.output)
    from ..io.outputs import refuse_inputs

    refuse_inputs([Path(args.output) / "state.json"])
    if args.trace is not None:
        output_file_path(args.trace)
        _refuse_overwriting_inputs(args.trace, [*args.inputs, *([args.memory] if args.memory else []),
                                                 *(i.partition("=")[2] for i in args.input)],
                                   "--trace")
    first = args.inputs[0]
    if is_neff_spec(first):
        return _run_neff(args, decisions)
    if getattr(args, "schedules", None):
        raise UsageError("--schedules runs a NEFF's schedules (give FILE.neff)")
    if args.declare:
        raise UsageError("--declare is for a NEFF's variables; a kernel or memory.json describes its own")
    head = read_head(first) if len(args.inputs) == 1 else b""  # sniff the kind without reading the whole file
    is_kernel = len(args.inputs) == 1 and _is_kernel(first, head)
    if is_kernel and args.memory:
        raise UsageError("--memory is for .bin streams; a KERNEL.json describes its own variables")
    if not is_kernel:
        if args.reference:
            raise UsageError("--reference needs a KERNEL.json (the interpreter executes BIR instructions)")
        if not args.memory:
            raise UsageError("running .bin streams needs --memory MEMORY.json (tongasm assemble writes memory.json)")
        engines: dict[str, str] = {}
        for p in args.inputs:
            if _stream_name(p) in engines:
                raise UsageError(f"{engines[_stream_name(p)]} and {p} are both the {_stream_name(p)!r} stream; give "
                                 "one stream per engine")
            engines[_stream_name(p)] = p
    names = None
    if args.outputs is not None:
        names = [n.strip() for n in args.outputs.split(",")]
        if not all(names):
            raise UsageError(f"--outputs expects NAME,NAME,..., got {args.outputs!r}")
        names = list(dict.fromkeys(names))
    inputs = parse_inputs(args.input)
    trace = None
    timeline = _timeline(args)
    if args.log:
        from ..isa.formats import build_formats
        from ..text.listing import instruction_text

        fs = build_formats(decisions)

        def trace(engine: str, d: Any, n: int, label: str | None) -> None:
            name = f"  ; {label}" if label else ""
            sys.stderr.write(f"[{n:>6}] {engine:>4}+{d.offset:#07x}  {instruction_text(d, fs, decisions)}{name}\n")

    def note(text: str) -> None:
        sys.stderr.write(f"tongasm: note: {text}\n")

    kernel = None
    with _bar(args, "run", unit="bundles") as bar:
        if is_kernel:
            from ..codegen.assembler import resolve_target
            from ..ir import read_bir
            from ..ir.memory import describe_kernel

            from ..passes.program import unrolled_count

            kernel = read_bir(Path(first))
            unrolled_count(kernel)  # a kernel past the instruction cap is refused before any note or work
            _print_notes(kernel.notes)
            _kernel_target_note(first, kernel.arch, args)
            memory = describe_kernel(kernel, resolve_target(kernel.arch, args.target).name)
        else:
            from ..ir.memory import MemoryDescription
            from ..sim.run import check_stream_cap

            streams = {_stream_name(p): _read_stream(p) for p in args.inputs}
            for p, data in zip(args.inputs, streams.values()):
                _check_length(p, data)
            check_stream_cap(streams)  # before any note or work
            memory = MemoryDescription.load(args.memory)
        # the variables the inputs and --outputs name, and each input's fit, before the run
        for n in names or ():
            memory.by_name(n)
        inputs = conform_inputs(memory, inputs, note)
        zeroed = [v.name for v in memory.variables if not v.is_output and v.name not in inputs]
        if zeroed:  # never assumed silently
            note(f"input{'s' * (len(zeroed) > 1)} {', '.join(zeroed)} not given (-i NAME=FILE.npy): "
                 f"{'they start' if len(zeroed) > 1 else 'it starts'} as zeros")
        if kernel is not None:
            with _tracing(timeline, args.trace):
                if timeline is not None:
                    timeline.core(Path(first).name)
                result = run_kernel(kernel, inputs, target=args.target, decisions=decisions, seed=args.seed,
                                    check="warn" if args.warn else "refuse", trace=trace, progress=bar.hook,
                                    timeline=timeline)
        else:
            with _tracing(timeline, args.trace):
                if timeline is not None:
                    timeline.core("streams")
                result = run_streams(streams, memory, inputs, target=args.target, decisions=decisions,
                                     seed=args.seed, trace=trace, progress=bar.hook, timeline=timeline)
    mismatches = []
    if args.reference:
        from ..sim.reference import interpret

        assert kernel is not None  # --reference without a kernel was refused above
        ref = interpret(kernel, inputs, target=args.target or result.memory.target, decisions=decisions,
                        seed=args.seed)
        for name, arr in result.outputs(names).items():
            other = ref.outputs([name])[name]
            if arr.tobytes() != other.tobytes():
                mismatches.append(name)
    written = write_results(result, args.output, names)
    if args.format == "json":
        _print_json({"ran": args.inputs, "executed": result.stats.executed, "per_engine": result.stats.per_engine,
                     "outputs": [str(Path(args.output) / p.name) for p in written],
                     **({"trace": args.trace} if args.trace else {}),
                     **({"reference": {"mismatches": mismatches}} if args.reference else {})})
    elif not args.quiet:
        print(f"ran {', '.join(args.inputs)}: {_plural(result.stats.executed, 'bundle')} on "
              f"{', '.join(f'{e} ({n})' for e, n in result.stats.per_engine.items())}")
        for p in written:
            print(f"  {Path(args.output) / p.name}")
        if args.trace:
            print(f"  {args.trace} (trace)")
        if args.reference:
            print("reference interpreter: " + ("all outputs agree bit for bit" if not mismatches else
                                               f"MISMATCH in {', '.join(mismatches)}"))
    return 1 if mismatches else 0


def _timeline(args: argparse.Namespace) -> Any:
    from ..sim.trace import Timeline

    return Timeline() if args.trace is not None else None


@contextlib.contextmanager
def _tracing(timeline: Any, path: str | None) -> Iterator[None]:
    """Write the trace when the run ends, also when it stops with a simulator error (a deadlock's
    schedule is what a user wants to see); nothing is written if the run is interrupted."""
    from ..sim.machine import SimError
    from ..sim.trace import write_trace

    try:
        yield
    except SimError:
        if timeline is not None and path is not None:
            write_trace(timeline, path)
        raise
    if timeline is not None and path is not None:
        write_trace(timeline, path)


def _run_neff(args: argparse.Namespace, decisions: DecisionSet) -> int:
    """``tongasm run FILE.neff[:GRAPH] -i NAME=FILE.npy ... -o DIR``: the NEFF's own variables and
    streams (tongasm.neff.run); ``DIR/<output>.npy`` per output plus ``state.json``."""
    import time

    from ..neff import parse_selector, read_neff
    from ..neff.run import Declared, run_neff
    from ..sim.run import parse_inputs, write_outputs

    if len(args.inputs) != 1:
        raise UsageError("give one FILE.neff (FILE.neff:sg00 runs one of its cores)")
    if args.memory:
        raise UsageError("--memory is for .bin streams; a NEFF describes its own variables (def.json)")
    if args.reference:
        raise UsageError("--reference needs a KERNEL.json (a NEFF holds no BIR instructions to interpret)")
    if args.target:
        raise UsageError("--target is for kernels and streams; a NEFF names its own (kelf-0.json)")
    sel = parse_selector(args.inputs[0])
    assert sel is not None
    if sel.stream is not None or sel.bundle_offset is not None:
        raise UsageError(f"{args.inputs[0]}: tongasm run takes a whole NEFF or one graph (FILE.neff:sg00), "
                         "not a stream or a bundle")
    declared = dict(Declared.parse(d) for d in args.declare)
    names = None
    if args.outputs is not None:
        names = list(dict.fromkeys(n.strip() for n in args.outputs.split(",")))
        if not all(names):
            raise UsageError(f"--outputs expects NAME,NAME,..., got {args.outputs!r}")
    neff = read_neff(sel.path)
    if sel.graph is not None:
        neff.graph(sel.graph)  # an unknown graph is named before the inputs are read
    inputs = parse_inputs(args.input)
    timeline = _timeline(args)
    trace = None
    if args.log:
        from ..isa.formats import build_formats
        from ..text.listing import instruction_text

        fs = build_formats(decisions)

        def trace(engine: str, d: Any, n: int, label: str | None) -> None:
            name = f"  ; {label}" if label else ""
            sys.stderr.write(f"[{n:>6}] {engine:>4}+{d.offset:#07x}  {instruction_text(d, fs, decisions)}{name}\n")

    def note(text: str) -> None:
        sys.stderr.write(f"tongasm: note: {text}\n")

    start = time.perf_counter()
    with _bar(args, "run", unit="bundles") as bar, _tracing(timeline, args.trace):
        result = run_neff(neff, inputs, graphs=[sel.graph] if sel.graph else None, decisions=decisions,
                          seed=args.seed, declared=declared, timeline=timeline, progress=bar.hook, note=note,
                          copy_inputs=bool(getattr(args, "schedules", None)), log=trace, outputs=names)
    seconds = time.perf_counter() - start
    schedules = _schedules(args, neff, inputs, sel.graph, decisions, declared, names, result.outputs(names))
    written = write_outputs(result.outputs(names), dict(result.state(), seconds=round(seconds, 6)), args.output)
    rate = result.executed / seconds if seconds > 0 else 0.0
    if args.format == "json":
        _print_json({"ran": args.inputs[0], "graphs": [c.graph for c in result.cores], "executed": result.executed,
                     "seconds": round(seconds, 6), "bundles_per_second": round(rate, 1),
                     "cores": result.state()["cores"], "outputs": [str(Path(args.output) / p.name) for p in written],
                     **({"trace": args.trace} if args.trace else {}),
                     **({"schedules": schedules} if schedules is not None else {})})
    elif not args.quiet:
        print(f"ran {args.inputs[0]}: {_plural(result.executed, 'bundle')} on "
              f"{_plural(len(result.cores), 'core')} ({', '.join(c.graph for c in result.cores)}) in {seconds:.3f} s "
              f"({rate:,.0f} bundles/s)")
        for p in written:
            print(f"  {Path(args.output) / p.name}")
        if args.trace:
            print(f"  {args.trace} (trace)")
        if schedules is not None:
            bad = schedules["disagreed"]
            head = (f"{schedules['runs']} random schedules (S-60=random, schedule seeds {schedules['seeds'][0]}.."
                    f"{schedules['seeds'][-1]}; Memset Random keeps --seed)")
            if not bad:
                print(f"{head}: every output agreed bit for bit with the default schedule's")
            else:
                print(f"{head}: {len({b['seed'] for b in bad})} disagreed with the default schedule's outputs")
            for b in bad:
                print(f"  schedule seed {b['seed']}: {b['output']} differs in {b['elements']} elements "
                      f"(largest difference {b['max_abs_diff']:g})")
    return 1 if schedules is not None and schedules["disagreed"] else 0


def _schedules(args: argparse.Namespace, neff: Any, inputs: Any, graph: str | None, decisions: DecisionSet,
               declared: Any, names: Any, reference: Any) -> dict[str, Any] | None:
    """``--schedules N``: N more runs under S-60=random (schedule seeds --seed+1 .. --seed+N), each output
    compared bit for bit with the default run's: a dynamic cross-check of ``check --races``."""
    import numpy as np

    from ..isa.decisions import DecisionSet
    from ..neff.run import run_neff

    n = getattr(args, "schedules", None)
    if not n:
        return None
    chosen = [d for d in (args.decision or []) if not d.replace(" ", "").upper().startswith("S-60=")]
    rnd = DecisionSet.parse([*chosen, "S-60=random"])
    base = args.seed or 0
    seeds = [(base + k + 1) % (1 << 32) for k in range(n)]
    disagreed: list[dict[str, Any]] = []
    for s in seeds:
        r = run_neff(neff, inputs, graphs=[graph] if graph else None, decisions=rnd, seed=base, declared=declared,
                     copy_inputs=True, outputs=names, schedule_seed=s)
        for name, arr in r.outputs(names).items():
            ref = reference[name]
            if arr.tobytes() != ref.tobytes():
                a, b = np.asarray(arr, dtype=np.float64), np.asarray(ref, dtype=np.float64)
                diff = np.abs(a - b)
                disagreed.append({"seed": s, "output": name, "elements": int(np.count_nonzero(a != b)),
                                  "max_abs_diff": float(np.nanmax(diff)) if diff.size else 0.0})
    return {"runs": n, "seeds": seeds, "disagreed": disagreed}
