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
from .common import _bar, _decisions, _is_kernel, _kernel_target_note, _json_with_list, _neff_target, _plural, _print_json, _print_notes, _read_stream, _stream_target
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

    with _bar(args, "check") as bar:
        for path in args.inputs:
            if is_neff_spec(path):  # every selected engine stream, with the NEFF's target
                sel = resolve_selector(path, names=False)
                target = _neff_target(sel, args)
                for ns in sel.streams:
                    label = f"{sel.selector.path}:{ns.graph}/{ns.stream}"
                    bar.phase(f"check {ns.name}", len(ns.data) // BUNDLE_SIZE, unit="bundles")
                    found = check_stream(ns.data, name=label, target=target, decisions=decisions, checks=checks,
                                         stream=ns.stream, progress=bar.hook, unmodelled="note",
                                         act_sets=sel.neff.activation_function_sets(ns.graph))
                    inputs.append({"input": label, "kind": "neff", "bundles": len(ns.data) // BUNDLE_SIZE,
                                   "findings": found})
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

            if args.format == "json":
                out("\n  " if k == 0 else ",\n  ")
                for piece in _json_with_list(r, "findings", (f.to_json() for f in counted(findings)), "  "):
                    out(piece)
            else:
                _print_findings(counted(findings), r)
            errors += counts[0]
            what = (_plural(r["instructions"], "instruction") + ", " if r["kind"] == "kernel" else "") + \
                _plural(r["bundles"], "bundle")
            verdict = "clean" if counts[0] == 0 else _plural(counts[0], "finding")
            summary.append(f"{r['input']}: {what}: {verdict}" +
                           (f", {_plural(counts[1], 'warning')}" if counts[1] else "") + "\n")
        if args.format == "json":
            out(("\n ]" if inputs else "]") + f',\n "clean": {json.dumps(errors == 0)}\n}}\n')
    if not args.quiet:  # after the bar is gone
        sys.stderr.write("".join(summary))
    # warnings (tongasm's lint stage) are reported but do not fail the check
    return 1 if errors else 0


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


def _print_findings(findings: Iterable[Any], r: dict[str, Any]) -> None:
    """One line per finding on stdout; identical warnings once, then counted (:class:`Repeats`)."""
    if r["kind"] != "stream":  # a kernel's or a NEFF stream's findings already name their input
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
