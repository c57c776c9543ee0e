"""assemble and asm: a kernel (BIR JSON) or a listing to bundle streams."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any
from .._meta import __version__
from ..errors import InputError, TongasmError, UsageError
from ..isa.decisions import DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..progress import NullProgress
from .common import _bar, _decisions, _kernel_target_note, _plural, _print_json, _print_notes


def cmd_assemble(args: argparse.Namespace) -> int:
    from ..codegen import assemble
    from ..ir.stream_reader import stream_bir
    from ..io.outputs import output_dir_path

    decisions = _decisions(args)
    if args.output is None and args.neff is None:
        raise UsageError("assemble needs -o DIR (the streams) or --neff OUT.neff (a NEFF), or both")
    if args.tables is not None and args.neff is None:
        raise UsageError("--tables gives the table members of a NEFF: it needs --neff OUT.neff")
    tables = None
    if args.tables is not None:
        from ..neff import read_neff

        tables = read_neff(args.tables)
    if _is_listing(args.kernel):
        return _assemble_listing(args, decisions, tables)
    if args.output is not None:
        output_dir_path(args.output)  # an unusable -o is refused before any work
        from ..codegen.output import STREAM_NAMES
        from ..io.outputs import refuse_inputs

        refuse_inputs([Path(args.output) / n for n in ("manifest.json", "memory.json", "census.bin",
                                                       *(f"{e}.bin" for e in STREAM_NAMES))])
    if args.neff is not None:
        from ..io.outputs import refuse_inputs

        refuse_inputs([Path(args.neff)])
    written: set[str] = set()
    with _bar(args, "assemble", unit="instructions") as bar:
        kernel = stream_bir(Path(args.kernel), one_pass=True)  # instruction by instruction: bounded memory
        try:
            source: Any = kernel
            if args.neff is not None:  # the NEFF's variables need the whole program (which it reads first)
                from ..ir.bir_json import read_bir

                source = read_bir(Path(args.kernel))
            asm = assemble(source, target=args.target, decisions=decisions, census=args.census,
                           check="warn" if args.warn else "refuse", progress=_assemble_progress(kernel, bar))
        except TongasmError:
            _print_notes(kernel.notes)  # a misspelt key is often why
            raise
        if args.output is not None:
            bar.phase(f"assemble: writing {args.output}", done=len(asm.log))
            written = {p.name for p in asm.write(args.output)}
        if args.neff is not None:
            from ..neff import write_neff

            bar.phase(f"assemble: writing {args.neff}", done=len(asm.log))
            neff = asm.to_neff(name=Path(args.neff).name, tables=tables, source=args.kernel)
            write_neff(neff, args.neff, decisions)
    warnings = Repeats(lambda line: sys.stderr.write(f"tongasm: warning: {line}\n"))
    for f in asm.findings:
        warnings.add(f)
    warnings.finish()
    _print_notes(kernel.notes)
    _kernel_target_note(args.kernel, kernel.final.arch, args)
    if args.format == "json":
        _print_json(asm.manifest())
    elif not args.quiet:
        n = len(asm.log)
        where = " and ".join(x for x in (f"{args.output}/" if args.output else "", args.neff or "") if x)
        print(f"assembled {args.kernel} for {asm.target.name}: {_plural(n, 'instruction')}, "
              f"{_plural(asm.bundle_count, 'bundle')} -> {where}")
        if args.neff is not None:
            g = neff.graph("sg00")
            print(f"  {args.neff}: NEFF target {neff.kelf.target_name}, {len(neff.members)} members, "
                  f"{sum(len(neff.stream_data(s)) for s in g.streams.values()) // BUNDLE_SIZE} bundles with the "
                  f"staging of its inputs and outputs; variables " +
                  ", ".join(f"{k} ({v.type})" for k, v in g.definition.variables.items() if v.type in ("input", "output")))
        if args.output is None:
            return 0
        for name, data in asm.streams.items():
            print(f"  {name + '.bin':<13} {_plural(len(data) // BUNDLE_SIZE, 'bundle'):>16} {len(data):>12} bytes")
        if asm.census is not None:
            print(f"  {'census.bin':<13} {_plural(len(asm.census) // BUNDLE_SIZE, 'bundle'):>16} "
                  f"{len(asm.census):>12} bytes")
        for extra, what in (("memory.json", "the variables, for 'tongasm run' on the streams"),
                            ("manifest.json", "each instruction's engine, opcodes and offset")):
            if extra in written:
                print(f"  {extra:<30} {what}")
    return 0


def _is_listing(path: str) -> bool:
    """Whether ``path`` is a text listing rather than BIR JSON (``.s``, or text whose first line that is
    not blank or a comment is a directive); anything else is read as JSON (and refused as such)."""
    from ..io.inputs import is_listing, read_text

    try:
        return is_listing(path, other_suffix=".json", comment_is_listing=False)
    except InputError:
        read_text(Path(path))  # the reader's own message for a missing or unreadable file
        raise


def _assemble_listing(args: argparse.Namespace, decisions: DecisionSet | None, tables: Any) -> int:
    """``assemble LISTING.s --neff OUT.neff``: the listing's streams as one NEFF graph."""
    from ..io.outputs import refuse_inputs
    from ..neff import write_neff
    from ..neff.build import build_neff_from_listing
    from ..text.assembler import assemble_file

    if args.output is not None:
        raise UsageError(f"{args.kernel} is a listing: 'tongasm asm {args.kernel} -o DIR' writes its streams; "
                         "assemble writes a listing as a NEFF (--neff OUT.neff)")
    if args.census:
        raise UsageError("--census is for a kernel (a listing's bundles are in stream order already)")
    refuse_inputs([Path(args.neff)])
    prog = assemble_file(args.kernel, decisions=decisions, target=args.target)
    if prog.target_from == "default":
        sys.stderr.write(f"tongasm: note: {args.kernel}: no .target directive and no --target; assuming "
                         f"{prog.target.name}\n")
    if _asm_findings(args.kernel, prog, summary=False):
        if not args.warn:
            sys.stderr.write(f"tongasm: error: {args.kernel}: the check findings above; nothing written "
                             "(--warn writes the NEFF anyway)\n")
            return 1
    neff = build_neff_from_listing(prog, source=args.kernel, name=Path(args.neff).name, tables=tables)
    write_neff(neff, args.neff, prog.decisions)
    if args.format == "json":
        _print_json({"source": args.kernel, "target": prog.target.name, "neff": args.neff,
                     "members": len(neff.members),
                     "streams": {n: len(d) // BUNDLE_SIZE for n, d in prog.streams.items()}})
    elif not args.quiet:
        g = neff.graph("sg00")
        total = sum(len(neff.stream_data(s)) for s in g.streams.values()) // BUNDLE_SIZE
        print(f"assembled {args.kernel} for {prog.target.name}: {_plural(total, 'bundle')} -> {args.neff}")
        print(f"  {args.neff}: NEFF target {neff.kelf.target_name}, {len(neff.members)} members; variables " +
              (", ".join(f"{k} ({v.type})" for k, v in g.definition.variables.items() if v.type in ("input", "output"))
               or "none"))
    return 0


class Repeats:
    """Prints findings (warnings) one line each, but an identical one again (same check, field,
    value, message and limit; only the place differs) is counted instead of printed; :meth:`finish`
    prints one line per repeated kind with the count and the last place. 62,500 identical
    ``lint.var_id_collision`` warnings become two lines. At most :data:`KINDS` kinds are tracked
    (bounded memory); later kinds print every time."""

    KINDS = 4096

    def __init__(self, write: Callable[[str], Any], line: Callable[[Any], str] | None = None) -> None:
        self.write = write
        self.line = line or (lambda f: str(f.line()))
        self.kinds: dict[str, list[Any]] = {}  # body -> [repeats, check, last place]

    def add(self, f: Any) -> None:
        where = f.where()
        line = self.line(f)
        body = str(f.line())[len(where):]
        seen = self.kinds.get(body)
        if seen is not None:
            seen[0] += 1
            seen[2] = where
            return
        if len(self.kinds) < self.KINDS:
            self.kinds[body] = [0, f.check, where]
        self.write(line)

    def finish(self) -> None:
        for n, check, last in self.kinds.values():
            if n:
                self.write(f"... and {_plural(n, 'more identical ' + check + ' finding')} (the last at {last})")
        self.kinds.clear()


def _assemble_progress(kernel: Any, bar: NullProgress) -> Callable[[int], None] | None:
    """A ``progress`` hook for :func:`tongasm.codegen.assemble` (called every 512 instructions) that
    moves the bar; the share done is the streamed reader's position in the JSON text."""
    if bar.hook is None:
        return None
    text = kernel.text
    size = max(len(text.s), 1)
    update = bar.update

    def progress(i: int) -> None:
        update(i, fraction=text.i / size)

    return progress


def _listing_findings(prog: Any, name: str, checks: Any = None,
                      progress: Callable[[int, int | None], None] | None = None) -> list[Any]:
    """The findings of one assembled listing stream (``sg00.pe`` or ``pe``), checked as ``tongasm check``
    checks a stream: bundles of opcodes without a layout are counted, not errors (a listing of real
    compiler output holds them as ``.bytes``), with its graph's ``.act_sets`` (``asm`` and ``check``)."""
    from ..check.runner import check_stream
    from ..codegen.output import STREAM_NAMES

    graph, _, engine = name.rpartition(".")
    return check_stream(bytes(prog.streams[name]), name=name, target=prog.target, decisions=prog.decisions,
                        checks=checks, stream=engine if engine in STREAM_NAMES else None, progress=progress,
                        unmodelled="note", act_sets=getattr(prog, "act_sets", {}).get(graph or "sg00"))


def _asm_findings(source: str, prog: Any, summary: bool = True) -> int:
    """Check each assembled stream (:func:`_listing_findings`); print every error as
    ``FILE:LINE: stream+OFFSET: ...``; return how many errors there were."""
    errors = 0
    for name in prog.streams:
        lines = prog.line_of.get(name, [])
        for f in _listing_findings(prog, name):
            if f.severity != "error":
                continue
            errors += 1
            i = (f.offset or 0) // BUNDLE_SIZE
            line = lines[i] if i < len(lines) else "?"
            print(f"{source}:{line}: {f.line()}")
    if errors and summary:
        sys.stderr.write(f"tongasm: error: {source}: {_plural(errors, 'finding')}; nothing written "
                         "(--no-check writes the streams anyway)\n")
    return errors


def cmd_asm(args: argparse.Namespace) -> int:
    from ..codegen.output import write_streams
    from ..text.assembler import assemble_file
    from ..io.outputs import output_dir_path

    decisions = DecisionSet.parse(args.decision) if args.decision else None
    output_dir_path(args.output)  # an unusable -o is refused before any work
    from ..io.outputs import refuse_inputs

    refuse_inputs([Path(args.output) / "manifest.json"])
    from ..text.assembler import TextSyntaxError

    try:
        prog = assemble_file(args.source, decisions=decisions, target=args.target)
    except TextSyntaxError as e:  # every error at once: the checks of the lines that did assemble too
        if e.partial is not None and not args.no_check and _asm_findings(args.source, e.partial, summary=False):
            sys.stderr.write(f"tongasm: note: {args.source}: the check findings above are of the lines that "
                             "assembled (the lines in error below left out of the streams)\n")
        raise
    if prog.target_from == "default":  # never assumed silently
        sys.stderr.write(f"tongasm: note: {args.source}: no .target directive and no --target; assuming "
                         f"{prog.target.name}\n")
    if not args.no_check and _asm_findings(args.source, prog):
        return 1
    write_streams(args.output, {n: bytes(d) for n, d in prog.streams.items()},
                  {"tool": "tongasm", "version": __version__, "source": args.source, "target": prog.target.name,
                   "decisions": prog.decisions.describe(),
                   "streams": {n: {"file": f"{n}.bin", "bundles": len(d) // BUNDLE_SIZE}
                               for n, d in prog.streams.items()}})
    if not args.quiet:
        total = sum(len(d) for d in prog.streams.values()) // BUNDLE_SIZE
        print(f"assembled {args.source}: {_plural(total, 'bundle')} -> {args.output}/")
        for n, d in prog.streams.items():
            print(f"  {n + '.bin':<12} {_plural(len(d) // BUNDLE_SIZE, 'bundle')}")
    return 0
