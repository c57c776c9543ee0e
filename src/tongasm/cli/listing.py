"""decode, disasm, explain, opcodes and diff: bundles to fields, listings and explanations."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from ..errors import DecodeError, InputError, TongasmError, UsageError
from ..isa.decisions import DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..progress import NullProgress
from . import common
from .common import _Failures, _bar, _check_length, _decisions, _has_target, _is_listing, _json_with_list, _neff_target, _opcode_name, _plural, _print_json, _read_stream, _refuse_overwriting_inputs, _stream_name, _stream_target, _target_beside


def cmd_opcodes(args: argparse.Namespace) -> int:
    from ..codegen import collect_opcodes
    from ..ir.stream_reader import stream_bir

    kernel = stream_bir(Path(args.kernel))
    sets = collect_opcodes(kernel, target=args.target, decisions=_decisions(args))
    common._kernel_target_note(args.kernel, kernel.arch, args)
    if args.format == "json":
        _print_json([s.to_json() for s in sets])
        return 0
    for s in sets:
        j = s.to_json()
        ops = ", ".join(f"{o:#04x} {m}" for o, m in zip(j["opcodes"], j["mnemonics"]))
        print(f"{s.index:>6}  {s.name or '-':<24} {s.opcode:<16} {s.engine:<5} {ops}")
    return 0


def _format_value(name: str, value: int, enum_name: str | None) -> str:
    if name.endswith(".addr") or name in ("sync_value", "imm", "scalar", "fill", "var_offset", "fill_value"):
        text = f"{value:#x}"
    else:
        text = str(value)
    return f"{name}={text}" + (f"({enum_name})" if enum_name else "")


def cmd_decode(args: argparse.Namespace) -> int:
    from ..decode import DecodeFailure, iter_stream
    from ..neff.select import is_neff_spec

    if is_neff_spec(args.file):
        return _decode_neff(args)
    decisions = _decisions(args)
    data = _read_stream(args.file)
    _check_length(args.file, data)
    _stream_target(args, [args.file])  # known and said (bundles decode alike on both targets)

    def pieces() -> Iterator[Any]:  # one bundle at a time, the mapped pages dropped piece by piece
        from ..io.inputs import drop_pages

        step = common.DISASM_CHUNK * BUNDLE_SIZE
        for a in range(0, len(data), step):
            yield from iter_stream(data[a:a + step], decisions=decisions, base=a)
            drop_pages(data, a, a + step)

    decoded = pieces()
    failures = _Failures(args.file)
    if args.format == "json":
        # a JSON array, one bundle object per line (compact: json's C encoder writes each)
        out, sep, dumps = sys.stdout, "[\n", json.dumps
        for d in decoded:
            if isinstance(d, DecodeFailure):
                failures.add(d)
            out.write(sep + dumps(d.to_json()))
            sep = ",\n"
        out.write("[]\n" if sep == "[\n" else "\n]\n")
    else:
        for d in decoded:
            if isinstance(d, DecodeFailure):
                failures.add(d)
            _print_decoded(d)
    failures.report()
    return 1 if failures.count else 0


def _print_decoded(d: Any, bir: str | None = None) -> None:
    """One bundle of ``tongasm decode``: offset, opcode, mnemonic, layout (and BIR name), then its fields."""
    from ..decode import DecodeFailure

    tail = f"  ; {bir}" if bir else ""
    if isinstance(d, DecodeFailure):
        print(f"{d.offset:#08x}  {d.raw[0]:#04x}  ??  {d.reason}{tail}")
        return
    parts = []
    for f in d.fmt.fields:
        if f.name == "opcode":
            continue
        v = d.fields[f.name]
        parts.append(_format_value(f.name, v, f.enum.name_of(v) if f.enum else None))
    print(f"{d.offset:#08x}  {d.opcode:#04x}  {d.mnemonic}  [{d.fmt.name}]{tail}")
    line = "    "
    for p in parts:
        if len(line) + len(p) > 100:
            print(line.rstrip())
            line = "    "
        line += p + " "
    print(line.rstrip())


def _unmodelled(d: Any) -> bool:
    """A bundle of a live ISA opcode tongasm has no layout for yet (listed by name in a NEFF, not a failure)."""
    from ..decode import DecodeFailure
    from ..isa.formats import build_formats
    from ..isa.opcodes import ISA_OPCODE_NAMES

    return isinstance(d, DecodeFailure) and d.raw[0] in ISA_OPCODE_NAMES and not build_formats().variants(d.raw[0])


def _decode_neff(args: argparse.Namespace) -> int:
    from ..decode import DecodeFailure, iter_stream
    from ..neff.select import resolve_selector

    sel = resolve_selector(args.file)
    _neff_target(sel, args)  # a --target that disagrees with the NEFF's is a usage error
    decisions = _decisions(args)
    failures: list[tuple[str, Any]] = []
    skipped: dict[int, int] = {}
    dumps = json.dumps
    if args.format == "json":  # {"neff": ..., "streams": [{..., "bundles": [one compact object per line]}]}
        sys.stdout.write('{"neff": ' + dumps(sel.selector.path) + ', "streams": [')
    for n_stream, ns in enumerate(sel.streams):
        names = ns.bir_names or []
        if args.format == "json":
            head = dumps({"stream": ns.name, "member": ns.member, "target": ns.target.name})
            sys.stdout.write(("," if n_stream else "") + "\n" + head[:-1] + ', "bundles": [')
            sep = "\n"
        else:
            print(f"== {ns.name} ({ns.member}): {_plural(len(ns.data) // BUNDLE_SIZE, 'bundle')}")
        for i, d in enumerate(iter_stream(ns.data, decisions=decisions)):
            bir = names[i] if i < len(names) else None
            if _unmodelled(d):
                skipped[d.raw[0]] = skipped.get(d.raw[0], 0) + 1
            elif isinstance(d, DecodeFailure):
                failures.append((ns.name, d))
            if args.format == "json":
                row = d.to_json()
                if isinstance(d, DecodeFailure):
                    row["name"] = _opcode_name(d.raw[0])
                row["bir"] = bir
                sys.stdout.write(sep + dumps(row))
                sep = ",\n"
            else:
                _print_decoded(d, bir)
        if args.format == "json":
            sys.stdout.write("]}")
    if args.format == "json":
        sys.stdout.write("\n]}\n")
    if skipped and not getattr(args, "quiet", False):
        sys.stderr.write(f"tongasm: note: {sum(skipped.values())} bundles of opcodes tongasm has no layout for yet "
                         "listed undecoded: " + ", ".join(f"{op:#04x} {_opcode_name(op)} x{n}"
                                                          for op, n in sorted(skipped.items())) + "\n")
    for name, f in failures:
        sys.stderr.write(f"tongasm: error: {sel.selector.path}:{name}: {DecodeError(f.reason, f.offset)}\n")
    return 1 if failures else 0


def cmd_disasm(args: argparse.Namespace) -> int:
    from ..isa.targets import get_target
    from ..neff.select import is_neff_spec, resolve_selector
    from ..text.listing import StreamInput

    decisions = _decisions(args)
    if args.output is not None:
        from ..io.outputs import output_file_path

        output_file_path(args.output)  # an unusable -o is refused before any work
        _refuse_overwriting_inputs(args.output, args.files, "-o")
    if args.syntax == "profile" and args.bytes:
        raise UsageError("--bytes applies to the tongasm syntax; the profile syntax has no bytes column")
    inputs: list[StreamInput] = []
    neff_targets: dict[str, str] = {}
    neff_lines: list[str] = []  # .var/.act_sets of each graph listed (what assemble --neff needs besides bundles)
    graphs: dict[str, tuple[Any, str]] = {}  # stream name -> (Neff, graph), for the profile syntax's tables
    for p in args.files:
        if is_neff_spec(p):  # .stream sg00.pe, each bundle with its BIR instruction
            sel = resolve_selector(p)
            neff_targets[sel.selector.path] = _neff_target(sel, args).name
            inputs += [StreamInput(ns.name, ns.data, ns.bir_names) for ns in sel.streams]
            graphs.update({ns.name: (sel.neff, ns.graph) for ns in sel.streams})
            from ..neff.build import graph_directives

            for g in dict.fromkeys(ns.graph for ns in sel.streams):
                neff_lines += graph_directives(sel.neff, g)
        else:
            data = _read_stream(p)
            _check_length(p, data)  # before any output
            inputs.append(StreamInput(_stream_name(p), data))
    if len(set(neff_targets.values())) > 1:
        raise UsageError("the NEFFs have different targets (" + ", ".join(f"{k}: {v}" for k, v in neff_targets.items())
                         + "); one listing has one .target")
    if args.target or neff_targets:
        target = get_target(args.target or next(iter(neff_targets.values())))
    else:
        target = _stream_target(args, [p for p in args.files if not is_neff_spec(p)])
    total = sum(len(s.data) for s in inputs) // BUNDLE_SIZE
    with _bar(args, "disasm", total, unit="bundles", to_stdout=args.output is None) as bar:
        if args.syntax == "profile":
            pieces: Iterator[str] = _profile_pieces(inputs, graphs, decisions, target, args.format == "json", bar)
        elif args.format == "json":
            pieces = _listing_json_pieces(inputs, decisions, target, bar)
        else:
            pieces = _listing_pieces(inputs, decisions, target, args.bytes, bar,
                                     neff_lines if len(neff_targets) == 1 else [])
        if args.output is not None:
            from ..io.outputs import atomic_write

            def write(fh: Any) -> None:
                for piece in pieces:
                    fh.write(piece.encode())

            atomic_write(args.output, write)
        else:
            for piece in pieces:
                sys.stdout.write(piece)
    return 0


def _profile_pieces(inputs: Sequence[Any], graphs: Mapping[str, tuple[Any, str]], decisions: DecisionSet,
                    target: Any, as_json: bool, bar: NullProgress) -> Iterator[str]:
    """The profile-syntax listing (:mod:`tongasm.text.profile`) in pieces of at most :data:`DISASM_CHUNK`
    bundles: text lines, or (``as_json``) one JSON object per stream with a row per bundle."""
    from ..isa.formats import build_formats
    from ..neff.semaphores import profile_context
    from ..text.listing import stream_directive
    from ..text.profile import ProfileContext, profile_rows, row_line
    from ..io.inputs import drop_pages

    fs = build_formats(decisions)
    contexts: dict[tuple[int, str], ProfileContext] = {}
    step = common.DISASM_CHUNK * BUNDLE_SIZE
    done = 0
    if not as_json:
        yield f"; neuron-profile syntax, target {target.name} (a listing to read, not an assembler input)\n"
    else:
        yield '{"syntax": "profile", "target": ' + json.dumps(target.name) + ', "streams": ['
    for k, s in enumerate(inputs):
        if s.name in graphs:
            neff, graph = graphs[s.name]
            key = (id(neff), graph)
            if key not in contexts:
                contexts[key] = profile_context(neff, graph, decisions)
            ctx = contexts[key]
        else:
            ctx = ProfileContext(decisions, target.name)
        if as_json:
            yield ("\n " if k == 0 else ",\n ") + '{"stream": ' + json.dumps(s.name) + ', "bundles": ['
        else:
            yield stream_directive(s.name) + "\n"
        first = True
        for a in range(0, len(s.data), step):
            names = s.bir_names[a // BUNDLE_SIZE:(a + step) // BUNDLE_SIZE] if s.bir_names is not None else None
            rows = profile_rows(s.data[a:a + step], ctx, base=a, formats=fs, bir_names=names)
            drop_pages(s.data, a, a + step)
            if as_json:
                text = ",".join("\n  " + json.dumps(r) for r in rows)
                yield ("" if first or not text else ",") + text
            else:
                yield "".join(row_line(r) + "\n" for r in rows)
            first = first and not rows
            done += len(rows)
            bar.update(done)
        if as_json:
            yield "\n ]}"
    if as_json:
        yield "\n]}\n"


def _listing_pieces(inputs: Sequence[Any], decisions: DecisionSet, target: Any, full_bytes: bool,
                    bar: NullProgress, extra: Sequence[str] = ()) -> Iterator[str]:
    """The text listing (the lines of :func:`tongasm.text.fast.fast_listing`, newline-terminated) in
    pieces of at most :data:`DISASM_CHUNK` bundles; ``extra``: directive lines after the header (a
    NEFF's ``.var`` and ``.act_sets``)."""
    from ..text.fast import stream_lines
    from ..text.listing import header_lines, stream_directive
    from ..io.inputs import drop_pages

    yield "\n".join([*header_lines(target, decisions), *extra]) + "\n"
    step = common.DISASM_CHUNK * BUNDLE_SIZE
    done = 0
    for s in inputs:
        yield stream_directive(s.name) + "\n"
        data = s.data
        for a in range(0, len(data), step):
            names = s.bir_names[a // BUNDLE_SIZE:(a + step) // BUNDLE_SIZE] if s.bir_names is not None else None
            lines = stream_lines(data[a:a + step], decisions=decisions, full_bytes=full_bytes, base=a,
                                 bir_names=names)
            drop_pages(data, a, a + step)  # a mapped stream: this piece's pages are not needed again
            done += len(lines)
            bar.update(done)
            yield "\n".join(lines) + "\n"


def _listing_json_pieces(inputs: Sequence[Any], decisions: DecisionSet, target: Any,
                        bar: NullProgress) -> Iterator[str]:
    """The JSON listing (the text of ``json.dumps(listing_json(...), indent=1)``) in pieces of at most
    :data:`DISASM_CHUNK` bundles: bounded memory on a stream of any size."""
    from ..text.listing import StreamInput, listing_json
    from ..io.inputs import drop_pages

    head = listing_json([], decisions=decisions, target=target)
    del head["streams"]
    yield json.dumps(head, indent=1)[:-2] + ',\n "streams": ['
    step = common.DISASM_CHUNK * BUNDLE_SIZE
    done = 0

    def rows(s: Any) -> Iterator[Any]:
        nonlocal done
        for a in range(0, len(s.data), step):
            names = s.bir_names[a // BUNDLE_SIZE:(a + step) // BUNDLE_SIZE] if s.bir_names is not None else None
            part = listing_json([StreamInput(s.name, s.data[a:a + step], names)], decisions=decisions,
                                target=target)["streams"][0]["bundles"]
            drop_pages(s.data, a, a + step)
            for row in part:
                row["offset"] += a
                yield row
            done += len(part)
            bar.update(done)

    for k, s in enumerate(inputs):
        yield "\n  " if k == 0 else ",\n  "
        yield from _json_with_list({"stream": s.name}, "bundles", rows(s), "  ")
    yield ("\n ]" if inputs else "]") + "\n}\n"


def _bundle_file(spec: str) -> str:
    """The file part of ``explain``'s FILE.bin:INDEX or FILE.bin@OFFSET."""
    import re

    m = re.fullmatch(r"(.+?)(?:[:](\d+)|@(0x[0-9a-fA-F]+|\d+))", spec)
    return m.group(1) if m else spec


def _bundle_arg(spec: str) -> tuple[bytes, str | None]:
    """``explain``'s BUNDLE: 128 hex digits, FILE.bin:INDEX or FILE.bin@OFFSET (decimal or 0x hex)."""
    import re

    from ..io.inputs import brief_int, read_buffer

    hexs = re.sub(r"[\s_]", "", spec)
    if re.fullmatch(r"(0x)?[0-9a-fA-F]+", hexs) and not os.path.exists(spec):
        hexs = hexs[2:] if hexs.lower().startswith("0x") else hexs
        if len(hexs) != 2 * BUNDLE_SIZE:
            raise InputError(f"a bundle is {BUNDLE_SIZE} bytes = {2 * BUNDLE_SIZE} hex digits; got {len(hexs)}")
        return bytes.fromhex(hexs), None
    m = re.fullmatch(r"(.+?)(?:[:](\d+)|@(0x[0-9a-fA-F]+|\d+))", spec)
    if not m:
        raise InputError(f"expected 128 hex digits, FILE.bin:INDEX or FILE.bin@OFFSET, got {spec[:80]!r}")
    path, index, offset = m.groups()
    number = index if index is not None else offset
    if len(number) > 40:  # no stream has that many bytes; and decimal text past 4300 digits cannot be read
        raise InputError(f"{'bundle index' if index is not None else 'byte offset'} {number[:20]}... "
                         f"({len(number)} digits) is out of range for {path}")
    data = read_buffer(path)  # memory-mapped: only the bundle's page is read
    off = (int(index) * BUNDLE_SIZE if index is not None
           else int(offset, 16 if offset.startswith("0x") else 10))  # "08": decimal, not int(x, 0)
    if off % BUNDLE_SIZE or off + BUNDLE_SIZE > len(data):
        raise InputError(f"{path} has {_plural(len(data) // BUNDLE_SIZE, 'bundle')}; no bundle at byte offset "
                         f"{brief_int(off) if off >= 1 << 64 else hex(off)}")
    return bytes(data[off:off + BUNDLE_SIZE]), _stream_name(path)


def cmd_explain(args: argparse.Namespace) -> int:
    from ..neff.select import is_neff_spec, resolve_selector
    from ..text.explain import explain_bundle, render_text

    where: dict[str, Any] | None = None
    if is_neff_spec(args.bundle):  # FILE.neff:sg00/pe:INDEX or @OFFSET: target and engine from the NEFF
        sel = resolve_selector(args.bundle)
        off = sel.selector.bundle_offset
        if off is None:
            raise UsageError(f"explain needs one bundle: {sel.selector.path}:GRAPH/STREAM:INDEX or "
                             f"{sel.selector.path}:GRAPH/STREAM@OFFSET, e.g. {sel.selector.path}:sg00/pe:3")
        ns = sel.streams[0]
        raw, engine, target = ns.data[off:off + BUNDLE_SIZE], args.engine or ns.stream, _neff_target(sel, args)
        where = {"neff": sel.selector.path, "stream": ns.name, "member": ns.member, "index": off // BUNDLE_SIZE,
                 "offset": off, "bir": ns.bir_names[off // BUNDLE_SIZE] if ns.bir_names else None}
    else:
        raw, stem = _bundle_arg(args.bundle)
        engine = args.engine or (stem if stem in ("pool", "act", "pe", "dma", "dve", "sp") else None)
        target = _stream_target(args, [] if stem is None else [_bundle_file(args.bundle)], "the bundle")
    ex = explain_bundle(raw, decisions=_decisions(args), target=target, stream=engine)
    if where is not None and ex.layout is not None:  # the NEFF knows a 0xC1's block and the DGE table
        ex.dma = _neff_dma(sel.neff, ns.graph, raw, _decisions(args)) or ex.dma
    if args.format == "json":
        _print_json(dict(ex.to_json(), **({"where": where} if where else {})))
    else:
        if where:
            print(f"{where['neff']}: {where['stream']} ({where['member']}) bundle {where['index']} at "
                  f"{where['offset']:#x}" + (f", BIR instruction {where['bir']}" if where["bir"] else ""))
        print(render_text(ex))
    return 0


def _neff_dma(neff: Any, graph: str, raw: bytes, decisions: DecisionSet) -> dict[str, Any] | None:
    """What the DMA a NEFF bundle issues moves: a 0xC1's sidecar block (R-90), a 0xD4's sides through the
    graph's DGE table (R-17); None for any other bundle."""
    from ..check.races import decode_streams, dma_footprint
    from ..isa.layout import Sem
    from ..neff.semaphores import dge_table, dma_blocks

    d = decode_streams({"b": bytes(raw)}, decisions)["b"]
    if not d:
        return None
    b = d[0]
    if b.mnemonic == "PseudoDMATrigger":
        q = bytes(b.raw[0x0C:0x2B]).split(b"\0")[0].decode("ascii", "replace")
        blk = dma_blocks(neff, graph).get((q, b.fields.get("dma_block_id", -1)))
        return None if blk is None else dict(blk.footprint.to_json(), semaphore=blk.semaphore)
    if b.fmt.layout.sem == Sem.DMA_2D:
        return dma_footprint(b, dge_table(neff, graph), decisions).to_json()
    return None


def _diff_side(spec: str, args: argparse.Namespace, decisions: DecisionSet, other: Any = None) -> Any:
    """One input of ``diff`` as a :class:`tongasm.neff.diff.Side`; any failure is unusable input (exit 2).
    A raw stream with no target given or recorded takes the target of ``other`` (the side that has one)."""
    from ..neff.select import is_neff_spec
    from ..neff.diff import listing_side, neff_side, stream_side

    try:
        if is_neff_spec(spec):
            side = neff_side(spec)
            if args.target and args.target != side.target:
                raise UsageError(f"{spec} is a {side.target} NEFF; --target {args.target} disagrees")
            return side
        if _is_listing(spec):
            return listing_side(spec, decisions=decisions, target=args.target)
        data = _read_stream(spec)
        _check_length(spec, data)
        target = args.target or _target_beside(Path(spec))
        if target is None and other is not None:  # the other side's target, not a default that would differ
            sys.stderr.write(f"tongasm: note: {spec}: no target given or recorded beside it; assuming "
                             f"{other.target}, the target of {other.label}\n")
            target = other.target
        return stream_side(spec, _stream_name(spec), data, target or _stream_target(args, [spec]).name)
    except UsageError:
        raise
    except TongasmError as e:
        if e.exit_code == 2:
            raise
        raise InputError(str(e)) from None


def cmd_diff(args: argparse.Namespace) -> int:
    from ..neff.diff import diff_sides, render_text

    decisions = _decisions(args)
    # the side that names its target (a NEFF, a listing) is read first, so that a bare stream takes it
    if args.a == args.b:  # one input read once (and its notes said once)
        a = b = _diff_side(args.a, args, decisions)
    elif _has_target(args.a) or not _has_target(args.b):
        a = _diff_side(args.a, args, decisions)
        b = _diff_side(args.b, args, decisions, other=a if _has_target(args.a) else None)
    else:
        b = _diff_side(args.b, args, decisions)
        a = _diff_side(args.a, args, decisions, other=b)
    d = diff_sides(a, b, decisions=decisions)
    if args.format == "json":
        _print_json(d.to_json())
    else:
        for line in render_text(d):
            print(line)
    return 0 if d.identical else 1
