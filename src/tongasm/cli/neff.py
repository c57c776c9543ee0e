"""neff info, unpack, pack, repack, survey and header."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from collections.abc import Sequence
from ..errors import UsageError
from .common import _decisions, _plural, _print_json


def cmd_neff_info(args: argparse.Namespace) -> int:
    from ..neff import read_neff
    from ..neff.report import neff_report, render_report

    neff = read_neff(args.neff)
    report = neff_report(neff, _decisions(args))
    if args.format == "json":
        _print_json(report)
    else:
        print(render_report(report))
    return 0


def cmd_neff_unpack(args: argparse.Namespace) -> int:
    from ..neff import read_neff, unpack_neff
    from ..neff.unpack import unpack_target

    unpack_target(args.output)  # an unusable -o is refused before the NEFF is read
    neff = read_neff(args.neff)
    unpack_neff(neff, args.output)
    if not args.quiet:
        print(f"unpacked {args.neff}: {_plural(len(neff.members), 'member')} -> {args.output}/ "
              f"(+ tongasm-neff.json; 'tongasm neff pack {args.output} -o FILE.neff' builds it back)")
    return 0


def _replacements(specs: Sequence[str]) -> dict[str, bytes]:
    replace: dict[str, bytes] = {}
    for spec in specs:
        member, eq, file = spec.partition("=")
        if not eq or not member or not file:
            raise UsageError(f"--replace expects MEMBER=FILE (e.g. sg00/PE.bin=new.bin), got {spec!r}")
        from ..io.inputs import read_input

        replace[member] = read_input(file)  # /dev/zero is refused at a bound, not read forever
    return replace


def cmd_neff_pack(args: argparse.Namespace) -> int:
    from ..io.outputs import output_file_path, refuse_inputs
    from ..neff import pack_dir

    output_file_path(args.output)  # an unusable -o is refused before any work
    refuse_inputs([Path(args.output)])
    neff = pack_dir(args.dir, args.output, decisions=_decisions(args), streams=args.streams,
                    replace=_replacements(args.replace), check=not args.no_check)
    if not args.quiet:
        size = Path(args.output).stat().st_size
        print(f"packed {args.dir}: {_plural(len(neff.members), 'member')} -> {args.output} ({size} bytes)")
        _print_changes(neff, "the unpacked NEFF")
    return 0


def _print_changes(neff: object, what: str) -> None:
    """What pack/repack changed, member by member (``tongasm diff`` shows the fields)."""
    from ..neff.unpack import changes

    lines = changes(neff)  # type: ignore[arg-type]
    if not lines:
        print(f"  no member changed: the members are those of {what}")
        return
    print(f"  {_plural(len(lines), 'member')} changed from {what} (tongasm diff shows the fields):")
    for line in lines:
        print(f"    {line}")


def cmd_neff_repack(args: argparse.Namespace) -> int:
    from ..io.outputs import output_file_path, refuse_inputs
    from ..neff.unpack import repack_neff

    output_file_path(args.output)  # an unusable -o is refused before any work
    refuse_inputs([Path(args.output)])
    neff = repack_neff(args.neff, args.output, decisions=_decisions(args), streams=args.streams,
                       replace=_replacements(args.replace), check=not args.no_check)
    if not args.quiet:
        size = Path(args.output).stat().st_size
        print(f"repacked {args.neff}: {_plural(len(neff.members), 'member')} -> {args.output} ({size} bytes)")
        _print_changes(neff, args.neff)
    return 0


def cmd_neff_survey(args: argparse.Namespace) -> int:
    from ..neff.survey import neff_paths, render_survey, survey

    decisions = _decisions(args)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.output is not None:
        from ..io.outputs import output_file_path

        output_file_path(args.output)  # an unusable -o is refused before any work
    neff_paths(args.inputs)  # a missing input is refused before any work
    sv = survey(args.inputs, decisions=decisions, workers=args.workers)
    text = json.dumps(sv.to_json(), indent=1) + "\n" if args.format == "json" else \
        "".join(line + "\n" for line in render_survey(sv))
    if args.output is not None:
        from ..io.outputs import atomic_write

        atomic_write(args.output, text.encode())
    else:
        sys.stdout.write(text)
    if sv.unreadable:
        for path, why in sv.unreadable.items():
            sys.stderr.write(f"tongasm: error: {why}\n" if path in why else f"tongasm: error: {path}: {why}\n")
        return 2
    return 0 if all(x.clean for x in sv.lines.values() if x.has_layout) else 1


def cmd_neff_header(args: argparse.Namespace) -> int:
    from ..neff.header import HEADER_FIELDS, header_markdown

    if args.format == "markdown":
        sys.stdout.write(header_markdown())
    elif args.format == "json":
        _print_json([{"offset": f.offset, "width": f.width, "name": f.name, "kind": f.kind, "tag": f.tag,
                      "decision": f.decision, "rule": f.rule, "doc": f.doc} for f in HEADER_FIELDS])
    else:
        for f in HEADER_FIELDS:
            print(f"+{f.offset:#05x} {f.width:>4}  {f.name:<20} {f.kind:<6} {f.tag:<4} {f.decision or '':<4} {f.doc}")
    return 0
