"""check and checks: the validator on kernels, streams and NEFFs, and the list of checks."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Iterable, Iterator
from typing import Any
from ..errors import UsageError
from ..isa.decisions import DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..progress import NullProgress
from . import common
from .common import _bar, _decisions, _is_kernel, _is_listing, _kernel_target_note, _json_with_list, _neff_target, _plural, _print_json, _print_notes, _read_stream, _stream_target
from .kernel import Repeats


def cmd_check(args: argparse.Namespace) -> int:
    from ..check.registry import CHECKS, CheckSet
    from ..check.runner import check_stream
    from ..codegen.output import STREAM_NAMES
    from ..io.inputs import read_input

    decisions = _decisions(args)
    unknown = [c for c in args.disable if c not in CHECKS]
    if unknown:
        raise UsageError(f"unknown check id(s) {', '.join(unknown)}; 'tongasm checks' lists them")
    checks = CheckSet(pedantic=args.pedantic, disabled=frozenset(args.disable))
    # every input is read (kernels read and checked, streams mapped) before anything is printed, so an
    # unusable input (exit 2) comes before any output; a stream's findings are then made and printed
    # piece by piece (bounded memory on a stream of any size)
    inputs: list[dict[str, Any]] = []
    from ..neff.select import is_neff_spec, resolve_selector

    races_on = CHECKS["races.unordered"].id not in checks.disabled
    only_races = bool(getattr(args, "races", False))
    if only_races and not races_on:
        raise UsageError("--races and --disable races.unordered contradict each other")
    raw_streams: list[str] = []
    with _bar(args, "check") as bar:
        for path in args.inputs:
            if is_neff_spec(path):  # every selected engine stream, with the NEFF's target
                sel = resolve_selector(path, names=False)
                target = _neff_target(sel, args)
                for ns in sel.streams if not only_races else ():
                    label = f"{sel.selector.path}:{ns.graph}/{ns.stream}"
                    bar.phase(f"check {ns.name}", len(ns.data) // BUNDLE_SIZE, unit="bundles")
                    found = check_stream(ns.data, name=label, target=target, decisions=decisions, checks=checks,
                                         stream=ns.stream, progress=bar.hook, unmodelled="note",
                                         act_sets=sel.neff.activation_function_sets(ns.graph))
                    inputs.append({"input": label, "kind": "neff", "bundles": len(ns.data) // BUNDLE_SIZE,
                                   "findings": found})
                if races_on:  # the race check of every graph the selection covers whole (or --races)
                    for graph in dict.fromkeys(ns.graph for ns in sel.streams):
                        whole = len([ns for ns in sel.streams if ns.graph == graph]) == len(sel.neff.graph(graph).streams)
                        if whole or only_races:
                            inputs.append(_graph_races(sel.neff, graph, str(sel.selector.path), decisions, bar))
                continue
            if _is_listing(path):  # assembled as `asm` does, each stream checked, each finding with its line
                inputs.extend(_listing_inputs(path, args, decisions, checks, only_races, bar))
                continue
            if only_races:  # raw streams are checked together: the streams of one program
                raw_streams.append(path)
                continue
            # a stream is mapped, not read; a file named neither .json nor .bin is sniffed from its bytes
            stream = None if path.endswith(".json") else _read_stream(path)
            if stream is None or _is_kernel(path, bytes(stream[:64])):
                from ..codegen import check_kernel
                from ..ir import read_bir
                from ..passes.program import unrolled_count

                data = read_input(path) if stream is None else bytes(stream)
                kernel = read_bir(data)
                _print_notes(kernel.notes)
                _kernel_target_note(path, kernel.arch, args)
                del data
                bar.phase(f"check {Path(path).name}", unrolled_count(kernel), unit="instructions")
                report = check_kernel(kernel, target=args.target, decisions=decisions, checks=checks,
                                      progress=bar.hook)
                inputs.append({"input": path, "kind": "kernel", "instructions": report.instructions,
                               "bundles": report.bundles, "findings": report.findings})
            else:
                stem = Path(path).stem
                inputs.append({"input": path, "kind": "stream", "bundles": len(stream) // BUNDLE_SIZE,
                               "findings": stream, "engine": args.engine or (stem if stem in STREAM_NAMES else None),
                               "target": _stream_target(args, [path]).name})
        if raw_streams:
            inputs.append(_stream_races(raw_streams, args, decisions, bar))
        errors = 0
        summary: list[str] = []
        out = sys.stdout.write
        if args.format == "json":
            out('{\n "inputs": [')
        for k, r in enumerate(inputs):
            findings: Any = r.pop("findings")
            engine = r.pop("engine", None)
            if r["kind"] == "stream":
                findings = _stream_findings(findings, r["input"], engine, r["target"], decisions, checks, bar)
            counts = [0, 0]  # errors, warnings

            def counted(fs: Iterable[Any], counts: list[int] = counts) -> Iterator[Any]:
                for f in fs:
                    counts[f.severity != "error"] += 1
                    yield f

            lines = r.pop("lines", None)
            if args.format == "json":
                out("\n  " if k == 0 else ",\n  ")
                items = (_with_line(f.to_json(), f, lines) for f in counted(findings))
                for piece in _json_with_list(r, "findings", items, "  "):
                    out(piece)
            else:
                _print_findings(counted(findings), r, lines)
            errors += counts[0]
            what = (_plural(r["instructions"], "instruction") + ", " if r["kind"] == "kernel" else "") + \
                _plural(r["bundles"], "bundle")
            if r["kind"] == "races":
                what += f", {_plural(r['dmas'], 'DMA')}, {_plural(r['pairs'], 'pair')} examined" + \
                    (f", {_plural(len(r['unanalysed']), 'DMA')} not analysed" if r["unanalysed"] else "")
            verdict = "clean" if counts[0] == 0 else _plural(counts[0], "finding")
            summary.append(f"{r['input']}: {what}: {verdict}" +
                           (f", {_plural(counts[1], 'warning')}" if counts[1] else "") + "\n")
        if args.format == "json":
            out(("\n ]" if inputs else "]") + f',\n "clean": {json.dumps(errors == 0)}\n}}\n')
    if not args.quiet:  # after the bar is gone
        sys.stderr.write("".join(summary))
    # warnings (tongasm's lint stage) are reported but do not fail the check
    return 1 if errors else 0


def _graph_races(neff: Any, graph: str, path: str, decisions: DecisionSet, bar: NullProgress) -> dict[str, Any]:
    """The race check of one NEFF graph as one input of the report."""
    from ..neff.semaphores import graph_races, race_findings

    bar.phase(f"races {graph}", 1, unit="graphs")
    r = graph_races(neff, graph, decisions)
    return _races_input(f"{path}:{graph} (races)", r, race_findings(r, path))


def _stream_races(paths: list[str], args: argparse.Namespace, decisions: DecisionSet, bar: NullProgress
                  ) -> dict[str, Any]:
    """The race check of raw streams given together (``pe.bin act.bin ...``: one program's engines, each
    named by its file); without a NEFF no 0xC1 block or DGE table is known."""
    from ..check.races import decode_streams, races
    from ..neff.semaphores import race_findings

    names: dict[str, bytes] = {}
    for p in paths:
        stem = Path(p).stem
        if stem in names:
            raise UsageError(f"two streams named {stem!r}: name each engine's stream after its engine (pe.bin ...)")
        stream = _read_stream(p)
        if len(stream) % BUNDLE_SIZE:
            raise UsageError(f"{p}: {len(stream)} bytes is not a whole number of {BUNDLE_SIZE}-byte bundles")
        names[stem] = bytes(stream)
    bar.phase("races", 1, unit="stream sets")
    where = " ".join(paths)
    r = races(decode_streams(names, decisions, where), decisions, where=where)
    return _races_input(" ".join(paths) + " (races)", r, race_findings(r, "streams"))


def _races_input(label: str, r: Any, findings: list[Any]) -> dict[str, Any]:
    return {"input": label, "kind": "races", "bundles": r.bundles, "dmas": r.dmas, "pairs": r.pairs_examined,
            "unanalysed": [a.to_json() for a in r.unanalysed], "races": [x.to_json() for x in r.races],
            "findings": findings}


def _stream_findings(stream: memoryview | bytes, path: str, engine: str | None, target_name: str,
                     decisions: DecisionSet, checks: Any, bar: NullProgress) -> Iterator[Any]:
    """:func:`tongasm.check.check_stream` over a stream in pieces of :data:`DISASM_CHUNK` bundles
    (findings are made, printed and dropped piece by piece), offsets as in one call on the whole."""
    from ..check.runner import check_stream
    from ..isa.targets import get_target
    from ..io.inputs import drop_pages

    n = len(stream)
    total = n // BUNDLE_SIZE
    step = common.DISASM_CHUNK * BUNDLE_SIZE
    name = Path(path).name
    target = get_target(target_name)
    bar.phase(f"check {name}", total, unit="bundles")
    hook = bar.hook
    for a in range(0, max(n, 1), step):
        piece = stream[a:a + step] if a + step < n else stream[a:]  # the last piece keeps a ragged tail
        progress = None if hook is None else (lambda d, t, a=a: hook(a // BUNDLE_SIZE + d, total))
        for f in check_stream(piece, name=name, target=target, decisions=decisions, checks=checks, stream=engine,
                              progress=progress):
            if f.offset is not None:
                f.offset += a
            yield f
        drop_pages(stream, a, a + step)


def _listing_line(f: Any, lines: list[int] | None) -> int | None:
    """The listing line of a finding's bundle (``lines``: the line of each bundle of its stream)."""
    if lines is None or f.offset is None:
        return None
    i = f.offset // BUNDLE_SIZE
    return lines[i] if i < len(lines) else None


def _with_line(d: dict[str, Any], f: Any, lines: list[int] | None) -> dict[str, Any]:
    if lines is not None:
        d["line"] = _listing_line(f, lines)
    return d


def _listing_inputs(path: str, args: argparse.Namespace, decisions: DecisionSet, checks: Any, only_races: bool,
                    bar: NullProgress) -> list[dict[str, Any]]:
    """A listing's streams, assembled as ``tongasm asm`` assembles them (its ``.target`` and ``.decision``
    lines; ``--target``/``-D`` override) and checked as streams (bundles of opcodes with no layout counted,
    not errors), each finding naming its listing line; with ``--races``, each graph's streams together."""
    from ..check.races import decode_streams, races
    from ..neff.semaphores import race_findings
    from ..text.assembler import assemble_file
    from .kernel import _listing_findings

    from ..text.assembler import TextSyntaxError

    try:
        prog = assemble_file(path, decisions=decisions if args.decision else None, target=args.target)
    except TextSyntaxError as e:  # what check cannot read is unusable input (exit 2), as a bad kernel is
        e.exit_code = 2
        raise
    if prog.target_from == "default":  # never assumed silently
        sys.stderr.write(f"tongasm: note: {path}: no .target directive and no --target; assuming "
                         f"{prog.target.name}\n")
    out: list[dict[str, Any]] = []
    graphs: dict[str, dict[str, bytes]] = {}
    for name, data in prog.streams.items():
        graph, _, engine = name.rpartition(".")
        graphs.setdefault(graph, {})[engine] = bytes(data)
        if only_races:
            continue
        bar.phase(f"check {name}", len(data) // BUNDLE_SIZE, unit="bundles")
        found = _listing_findings(prog, name, checks, bar.hook)
        out.append({"input": f"{path}:{name}", "kind": "listing", "bundles": len(data) // BUNDLE_SIZE,
                    "findings": found, "lines": prog.line_of.get(name, [])})
    if only_races:
        for graph, streams in graphs.items():
            label = f"{path}:{graph}" if graph else path
            bar.phase(f"races {label}", 1, unit="stream sets")
            r = races(decode_streams(streams, prog.decisions, label), prog.decisions, where=label)
            out.append(_races_input(label + " (races)", r, race_findings(r, label)))
    return out


def _print_findings(findings: Iterable[Any], r: dict[str, Any], lines: list[int] | None = None) -> None:
    """One line per finding on stdout; identical warnings once, then counted (:class:`Repeats`). A
    listing's findings begin with ``FILE:LINE:``, as ``tongasm asm`` prints them."""
    if lines is not None:
        src = r["input"].rpartition(":")[0]

        def line(f: Any) -> str:
            n = _listing_line(f, lines)
            return f"{src}:{n if n is not None else '?'}: {f.line()}"
    elif r["kind"] != "stream":  # a kernel's or a NEFF stream's findings already name their input
        def line(f: Any) -> str:
            return str(f.line())
    else:
        name, path = Path(r["input"]).name, r["input"]

        def line(f: Any) -> str:
            return str(f.line()).replace(f"{name}+", f"{path}+", 1)

    warnings = Repeats(print, line)
    for f in findings:
        if f.severity == "error":
            print(line(f))
        else:
            warnings.add(f)
    warnings.finish()


def cmd_checks(args: argparse.Namespace) -> int:
    from ..check import UNCHECKED, all_checks

    checks = list(all_checks())
    if args.format == "json":
        _print_json({"checks": [c.to_json() for c in checks],
                     "unchecked": [{"name": k, "why": v} for k, v in UNCHECKED.items()]})
        return 0
    for c in checks:
        tags = c.stage + (", pedantic" if c.pedantic else "")
        print(f"{c.id:<24} {c.level:<18} {tags:<14} {c.title} [{c.source}]")
    print()
    print("Listed but not checked (no source gives their limits):")
    for k, v in UNCHECKED.items():
        print(f"  {k:<26} {v}")
    return 0
