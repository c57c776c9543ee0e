"""Command-line interface: the parser and main(); each command group is a module beside it (kernel,
listing, check, run, neff, reference; common holds what they share), each a thin call into the library.

Exit codes: 0 success, 1 an error or a finding (an illegal instruction, a failed check, a full
disk...), 2 unusable input (missing, unreadable, not JSON, not a kernel or a stream, a number of absurd
size) or a usage error (bad option, unknown decision, an ``-o`` that cannot be written). No Python
traceback is shown for user mistakes; set ``TONGASM_DEBUG=1`` to see one for an internal error.

Everything a command needs from its arguments is checked before it does any work (``-o`` with
:func:`tongasm.io.outputs.output_dir_path`, option combinations); every file is read and written through
:mod:`tongasm.io.outputs`; standard output that cannot be written (a full disk, a closed pipe) is an
:class:`~tongasm.errors.OutputError`. Repeated identical warnings are printed once, then counted.

Long jobs (``assemble``, ``disasm``, ``check``, ``run``) show a progress line on stderr when it is a
terminal (see :mod:`tongasm.progress`); ``-q/--quiet`` or ``TONGASM_NO_PROGRESS=1`` turns it off.
Bundle streams are memory-mapped, not read into memory (:func:`tongasm.io.inputs.read_buffer`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import traceback
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from .._meta import __version__
from ..errors import DecodeError, InputError, OutputError, TongasmError, UsageError
from ..isa.decisions import DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.targets import TARGETS
from ..progress import NullProgress, progress


class _Parser(argparse.ArgumentParser):
    """argparse with exit code 2 and a one-line hint on usage errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _add_decisions(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decision", "-D", action="append", metavar="D-n=READING", default=[],
                   help="select an alternative reading of a spec decision (repeatable); "
                        "'tongasm decisions' lists them")


def _add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success (and no progress bar)")


def _add_format(p: argparse.ArgumentParser, choices: Sequence[str] = ("text", "json")) -> None:
    p.add_argument("--format", choices=choices, default=choices[0], help="output format (default: %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tongasm", description="Assemble, check, decode and explain AWS Neuron (Tonga) ISA bundles.")
    p.add_argument("--version", action="version", version=f"tongasm {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    a = sub.add_parser("assemble", help="encode a BIR JSON kernel into per-engine bundle streams",
                       description="Encode a BIR JSON kernel into DIR/<engine>.bin streams and DIR/manifest.json. "
                                   "On any error nothing is written and the exit code is 1.")
    a.add_argument("kernel", metavar="KERNEL.json")
    a.add_argument("-o", "--output", metavar="DIR", help="output directory (required unless --neff is given)")
    a.add_argument("--neff", metavar="OUT.neff",
                   help="also (or only) write a NEFF: one graph, the members the target's real files hold, the "
                        "kernel's inputs and outputs as its variables (checked against real files and the "
                        "simulator, not loaded on hardware)")
    a.add_argument("--target", choices=sorted(TARGETS), help="target (overrides the kernel's arch; default gen2)")
    a.add_argument("--census", action="store_true",
                   help="also write census.bin: a second copy of every bundle, in program order")
    _add_quiet(a)
    a.add_argument("--warn", action="store_true",
                   help="report ISA-check findings as warnings and write the streams anyway (for experiments)")
    _add_decisions(a)
    _add_format(a)
    a.set_defaults(func=cmd_assemble)

    c = sub.add_parser("check", help="validate kernels (BIR JSON), raw bundle streams (.bin) or NEFFs",
                       description="Run every named ISA check. KERNEL.json is checked instruction by instruction "
                                   "(RUN_ISA_CHECKS); FILE.bin is decoded and checked bundle by bundle; FILE.neff "
                                   "checks every engine stream of every graph (or FILE.neff:sg00, FILE.neff:sg00/pe) "
                                   "with the NEFF's target, and bundles of ISA opcodes tongasm has no layout for "
                                   "yet are counted as bundle.unmodelled warnings, not errors. Exit 0 when "
                                   "clean, 1 when any check fails, 2 for unusable input.")
    c.add_argument("inputs", nargs="+", metavar="KERNEL.json|FILE.bin|FILE.neff[:sg00[/pe]]")
    c.add_argument("--target", choices=sorted(TARGETS),
                   help="target (kernels: overrides the arch; streams: default gen2; a NEFF names its own)")
    c.add_argument("--engine", choices=["pool", "act", "pe", "dma", "dve", "sp"],
                   help="engine of a raw stream (default: from the file name, e.g. pool.bin)")
    c.add_argument("--pedantic", action="store_true", help="also run the dossier-only checks (see 'tongasm checks')")
    c.add_argument("--disable", action="append", default=[], metavar="CHECK_ID", help="skip a check (repeatable)")
    c.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar and no per-input summary on stderr (findings still print)")
    _add_decisions(c)
    _add_format(c)
    c.set_defaults(func=cmd_check)

    cs = sub.add_parser("checks", help="list the named checks")
    _add_format(cs)
    cs.set_defaults(func=cmd_checks)

    o = sub.add_parser("opcodes", help="print the opcode set of each instruction (COLLECT_OPCODES)")
    o.add_argument("kernel", metavar="KERNEL.json")
    o.add_argument("--target", choices=sorted(TARGETS), help="target (overrides the kernel's arch; default gen2)")
    _add_decisions(o)
    _add_format(o)
    o.set_defaults(func=cmd_opcodes)

    d = sub.add_parser("decode", help="decode a bundle stream into fields",
                       description="Print every bundle's offset, opcode, mnemonic and decoded fields. A NEFF "
                                   "(FILE.neff, FILE.neff:sg00 or FILE.neff:sg00/pe) decodes each engine stream, "
                                   "with the BIR instruction of each bundle; bundles of ISA opcodes tongasm has no "
                                   "layout for yet are listed by name and do not fail the command.")
    d.add_argument("file", metavar="FILE.bin|FILE.neff[:sg00[/pe]]")
    _add_decisions(d)
    _add_format(d)
    d.set_defaults(func=cmd_decode)

    dis = sub.add_parser("disasm", help="disassemble bundle streams into the text listing",
                         description="One bundle per line: offset, bytes, mnemonic and operands. The listing "
                                     "assembles back with 'tongasm asm' (bytes -> text -> bytes is the identity). "
                                     "FILE.neff lists every engine stream of every graph (FILE.neff:sg00/pe one) as "
                                     ".stream sg00.pe, each bundle ending with its BIR instruction ('; I-87-0'); "
                                     "'tongasm asm' then writes sg00.pe.bin, which 'tongasm neff pack --streams' "
                                     "puts back into the NEFF.")
    dis.add_argument("files", nargs="+", metavar="FILE.bin|FILE.neff[:sg00[/pe]]")
    dis.add_argument("--bytes", action="store_true", help="show all 64 bytes of each bundle (default: the first 16)")
    dis.add_argument("--target", choices=sorted(TARGETS),
                     help="target written in .target (default: the NEFF's, else gen2)")
    dis.add_argument("-o", "--output", metavar="FILE.s", help="write the listing to a file (atomically)")
    dis.add_argument("--syntax", choices=("tongasm", "profile"), default="tongasm",
                     help="tongasm: the listing 'tongasm asm' reads back (default); profile: each bundle as the "
                          "vendor profiler (neuron-profile) prints it: its mnemonic, instruction type and operand "
                          "text, semaphore roles from the NEFF's def.json queues and engines (not an assembler input)")
    dis.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_decisions(dis)
    _add_format(dis)
    dis.set_defaults(func=cmd_disasm)

    asm = sub.add_parser("asm", help="assemble the text form into per-engine streams",
                         description="Assemble a listing (the syntax 'tongasm disasm' prints) into DIR/<stream>.bin. "
                                     "Every syntax error is reported with its line; the streams are then checked "
                                     "as 'tongasm check' checks them (each finding with its line), and nothing is "
                                     "written when there is an error (exit 1; --no-check skips the check).")
    asm.add_argument("source", metavar="FILE.s")
    asm.add_argument("-o", "--output", metavar="DIR", required=True, help="output directory")
    asm.add_argument("--target", choices=sorted(TARGETS), help="override the file's .target")
    asm.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    asm.add_argument("--no-check", action="store_true", help="write the streams without checking them")
    _add_decisions(asm)
    asm.set_defaults(func=cmd_asm)

    ex = sub.add_parser("explain", help="explain every byte of one bundle",
                        description="Explain one bundle field by field (offset, width, raw value, meaning, "
                                    "confidence C/H/I/D, decision) and flag bytes no field explains. BUNDLE is 128 "
                                    "hex digits, FILE.bin:INDEX (bundle index), FILE.bin@OFFSET (byte offset), "
                                    "FILE.neff:sg00/pe:INDEX or FILE.neff:sg00/pe@OFFSET (target and engine from "
                                    "the NEFF).")
    ex.add_argument("bundle", metavar="BUNDLE")
    ex.add_argument("--target", choices=sorted(TARGETS), help="target (default: the NEFF's, else gen2)")
    ex.add_argument("--engine", choices=["pool", "act", "pe", "dma", "dve", "sp"],
                    help="engine of the bundle (default: from the file name)")
    _add_decisions(ex)
    _add_format(ex)
    ex.set_defaults(func=cmd_explain)

    r = sub.add_parser("run", help="simulate a NEFF, a kernel or pre-assembled streams",
                       description="Simulate bundles on a NeuronCore model and write every output tensor as .npy "
                                   "(plus state.json: registers, semaphores, accumulators). Give a FILE.neff (its "
                                   "inputs by their NEFF names: -i x=x.npy; FILE.neff:sg00 runs one core), a "
                                   "KERNEL.json, or DIR/*.bin with --memory DIR/memory.json (written by "
                                   "'tongasm assemble').")
    r.add_argument("inputs", nargs="+", metavar="FILE.neff|KERNEL.json|FILE.bin")
    r.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE.npy",
                   help="initial contents of a variable (repeatable)")
    r.add_argument("--memory", metavar="MEMORY.json", help="memory description for .bin streams")
    r.add_argument("-o", "--output", metavar="DIR", required=True, help="output directory")
    r.add_argument("--outputs", metavar="NAME,...", help="which variables to write (default: kind Output, else all)")
    r.add_argument("--declare", action="append", default=[], metavar="NAME=DTYPE:D0xD1",
                   help="dtype and shape of a NEFF variable whose neff.json records none (e.g. output0=float16:128x128)")
    r.add_argument("--target", choices=sorted(TARGETS), help="target (overrides the kernel's arch)")
    r.add_argument("--seed", type=_seed, default=0,
                   help="seed for Memset Random (S-12) and the random schedule (S-60=random), 0..2**32-1")
    r.add_argument("--trace", metavar="FILE.json",
                   help="write the schedule as a Chrome/Perfetto trace (one track per engine, a slice per bundle "
                        "and per wait, DMAs on their queues' tracks); written even when the run deadlocks")
    r.add_argument("--log", action="store_true", help="print each executed bundle to stderr")
    r.add_argument("--reference", action="store_true",
                   help="also run the IR reference interpreter and compare every output bit for bit")
    r.add_argument("--warn", action="store_true", help="run even if the ISA checks find illegal bundles")
    _add_format(r)
    _add_quiet(r)
    _add_decisions(r)
    r.set_defaults(func=cmd_run)

    fm = sub.add_parser("formats", help="print the byte map of every bundle layout (from the declarations)",
                        description="Print each layout's fields: offset, width, name, kind, values, confidence "
                                    "(C/H/I/D) and decision. --format markdown is docs/formats.md.")
    fm.add_argument("layouts", nargs="*", metavar="LAYOUT", help="only these layouts (e.g. TensorTensor Memset)")
    fm.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                    help="output format (default: text)")
    _add_decisions(fm)
    fm.set_defaults(func=cmd_formats)

    df = sub.add_parser("diff", help="compare two bundle streams, listings or NEFFs bundle by bundle",
                        description="Compare A and B bundle by bundle: each differing bundle with its index, offset, "
                                    "both mnemonics and the fields that differ (from the layouts; a bundle that does "
                                    "not decode is compared byte by byte), then the bundles only one side has, then "
                                    "a one-line summary. A and B are each a bundle stream (FILE.bin), a listing "
                                    "(FILE.s, assembled first) or a NEFF (FILE.neff, FILE.neff:sg00, "
                                    "FILE.neff:sg00/pe); a whole NEFF is compared stream by stream (matched by graph "
                                    "and engine, sg00.pe) and member by member. Exit 0 when identical, 1 when "
                                    "different, 2 for unusable input.")
    df.add_argument("a", metavar="A")
    df.add_argument("b", metavar="B")
    df.add_argument("--target", choices=sorted(TARGETS),
                    help="target of a stream (default: the tongasm manifest.json or unpacked NEFF beside it, else "
                         "gen2); overrides a listing's .target; a NEFF names its own")
    _add_decisions(df)
    _add_format(df)
    df.set_defaults(func=cmd_diff)
    br = sub.add_parser("bir-reference", help="print the BIR JSON reference of every opcode tongasm encodes "
                                              "(from the declarations)",
                        description="For each BIR opcode: its keys (type, enum values, required, default), its "
                                    "operand roles (ins/outs order, descriptor slots, dtypes), the bundles it "
                                    "produces, the engines it may name and a complete example kernel. --format "
                                    "markdown is docs/bir-reference.md.")
    br.add_argument("opcodes", nargs="*", metavar="OPCODE", help="only these BIR opcodes (e.g. Activation Memset)")
    br.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                    help="output format (default: text)")
    _add_decisions(br)
    br.set_defaults(func=cmd_bir_reference)

    _add_neff_parser(sub)

    ds = sub.add_parser("decisions", help="list the decisions (D-n, R-n, N-n, S-n) and their selectable readings",
                        description="List every decision and its readings; with --evidence FILE.neff or DIR, say for each "
                                    "D-n and R-n whether the NEFF's real bundles confirm it, contradict it or do "
                                    "not exercise it, naming the bundles that show it.")
    ds.add_argument("--evidence", metavar="FILE.neff|DIR", action="append",
                    help="weigh every D-n and R-n against real NEFFs: a file, or a directory whose *.neff files are "
                         "weighed together (repeat for several reports; --format markdown writes them side by side, "
                         "the table of docs/decisions-evidence.md)")
    _add_format(ds, ("text", "json", "markdown"))
    ds.set_defaults(func=cmd_decisions)
    return p


def _add_neff_parser(sub: Any) -> None:
    n = sub.add_parser("neff", help="inspect, unpack and pack NEFF files (the compiler's output)",
                       description="NEFF files: 'info' shows what one holds, 'unpack' writes its members to a "
                                   "directory, 'pack' builds the NEFF back (identical when nothing changed), "
                                   "'repack' rewrites one with replaced streams, 'survey' weighs many against tongasm's "
                                   "layouts and checks, "
                                   "'header' prints the header byte map. The stream commands (disasm, decode, "
                                   "check, explain) take FILE.neff[:sg00[/pe]] directly.")
    nsub = n.add_subparsers(dest="neff_command", metavar="NEFF_COMMAND", parser_class=_Parser)
    nsub.required = True
    i = nsub.add_parser("info", help="target, graphs, engine streams (opcode census), variables, DMA queues, header",
                        description="Print what a NEFF holds: target and tool version, each graph's engine streams "
                                    "with bundle counts and an opcode census (* = no tongasm layout yet), its "
                                    "var table, DMA queues and runtime reservations, and every header field "
                                    "(offset, value, evidence tag, decision).")
    i.add_argument("neff", metavar="FILE.neff")
    _add_decisions(i)
    _add_format(i)
    i.set_defaults(func=cmd_neff_info)
    u = nsub.add_parser("unpack", help="write every member of a NEFF under DIR, plus tongasm-neff.json",
                        description="Write every member as a file under DIR (a new or empty directory) and "
                                    "tongasm-neff.json (header bytes, gzip MTIME, member order), from which 'tongasm "
                                    "neff pack DIR' rebuilds the identical NEFF. Member names that could leave DIR "
                                    "are refused; nothing is written on an error.")
    u.add_argument("neff", metavar="FILE.neff")
    u.add_argument("-o", "--output", metavar="DIR", required=True, help="output directory (new or empty)")
    _add_quiet(u)
    u.set_defaults(func=cmd_neff_unpack)
    pk = nsub.add_parser("pack", help="build a NEFF from an unpacked directory (identical when unchanged)",
                         description="Build FILE.neff from DIR (written by 'tongasm neff unpack'). --streams ASMDIR "
                                     "takes the <graph>.<stream>.bin files 'tongasm asm' writes for a NEFF listing "
                                     "(e.g. sg00.pe.bin) and puts each into its engine member (sg00/PE.bin). The "
                                     "header is the input's with data_size recomputed; -D R-1..R-6 select what else "
                                     "is copied or recomputed (see 'tongasm decisions').")
    pk.add_argument("dir", metavar="DIR")
    pk.add_argument("-o", "--output", metavar="FILE.neff", required=True, help="the NEFF to write (atomically)")
    pk.add_argument("--streams", metavar="ASMDIR", help="replace engine streams by <graph>.<stream>.bin files")
    pk.add_argument("--replace", action="append", default=[], metavar="MEMBER=FILE",
                    help="replace one member by a file's bytes (repeatable), e.g. sg00/PE.bin=new.bin")
    _add_quiet(pk)
    pk.add_argument("--no-check", action="store_true",
                    help="write the NEFF even when its engine streams fail 'tongasm check' (checked by default)")
    _add_decisions(pk)
    pk.set_defaults(func=cmd_neff_pack)
    rp = nsub.add_parser("repack", help="rewrite a NEFF with replaced streams or members",
                         description="Read FILE.neff, replace engine streams (--streams ASMDIR: the "
                                     "<graph>.<stream>.bin files of 'tongasm asm') and members (--replace), and "
                                     "write OUT.neff under the R-1..R-6 readings; unchanged, the output is identical.")
    rp.add_argument("neff", metavar="FILE.neff")
    rp.add_argument("-o", "--output", metavar="OUT.neff", required=True, help="the NEFF to write (atomically)")
    rp.add_argument("--streams", metavar="ASMDIR", help="replace engine streams by <graph>.<stream>.bin files")
    rp.add_argument("--replace", action="append", default=[], metavar="MEMBER=FILE",
                    help="replace one member by a file's bytes (repeatable), e.g. sg00/PE.bin=new.bin")
    _add_quiet(rp)
    rp.add_argument("--no-check", action="store_true",
                    help="write the NEFF even when its engine streams fail 'tongasm check' (checked by default)")
    _add_decisions(rp)
    rp.set_defaults(func=cmd_neff_repack)
    sv = nsub.add_parser("survey", help="per target, engine and opcode: bundles, decoded, unexplained, text round "
                                        "trips, check findings over many NEFFs",
                         description="Survey NEFF files (FILE.neff, or DIR searched for *.neff): one line per target, "
                                     "engine and opcode with its bundles, files, how many decode, how many have bytes "
                                     "no field explains, how many come back identical through the text form, and "
                                     "the check findings by check id (* = no layout). Exit code 0 when every line "
                                     "that has a layout is clean (all decoded and explained, every text round trip "
                                     "identical, no finding), 1 otherwise, 2 when a file is not a readable NEFF.")
    sv.add_argument("inputs", nargs="+", metavar="DIR|FILE.neff")
    sv.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout")
    sv.add_argument("--workers", type=int, metavar="N",
                    help="processes to use (default: the machine's cores, at most 8; 1 = none)")
    _add_format(sv)
    _add_decisions(sv)
    sv.set_defaults(func=cmd_neff_survey)
    h = nsub.add_parser("header", help="print the NEFF header byte map (from the declaration)",
                        description="The 1024-byte header, field by field, from tongasm.neff.header.HEADER_FIELDS. "
                                    "--format markdown is docs/neff-header.md.")
    h.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                   help="output format (default: text)")
    h.set_defaults(func=cmd_neff_header)


def _seed(text: str) -> int:
    """``--seed``: a 32-bit unsigned integer (the xorwow state words are 32 bits; a wider seed would
    silently alias a narrower one)."""
    t = text.strip()
    if not t.isdigit() or len(t) > 10 or int(t) >= 1 << 32:
        raise argparse.ArgumentTypeError(f"expected an integer 0..{(1 << 32) - 1}, got {text[:40]!r}")
    return int(t)


def _decisions(args: argparse.Namespace) -> DecisionSet:
    return DecisionSet.parse(getattr(args, "decision", None))


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=1) + "\n")


# --- commands -----------------------------------------------------------------------------------------

def _print_notes(notes: Iterable[str]) -> None:
    """The reader's notes about a kernel (a key kept that looks like a misspelt known key...)."""
    for n in notes:
        sys.stderr.write(f"tongasm: note: {n}\n")


def cmd_assemble(args: argparse.Namespace) -> int:
    from ..codegen import assemble
    from ..ir.stream_reader import stream_bir
    from ..io.outputs import output_dir_path

    decisions = _decisions(args)
    if args.output is None and args.neff is None:
        raise UsageError("assemble needs -o DIR (the streams) or --neff OUT.neff (a NEFF), or both")
    if args.output is not None:
        output_dir_path(args.output)  # an unusable -o is refused before any work
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
            neff = asm.to_neff(name=Path(args.neff).name)
            write_neff(neff, args.neff, decisions)
    warnings = Repeats(lambda line: sys.stderr.write(f"tongasm: warning: {line}\n"))
    for f in asm.findings:
        warnings.add(f)
    warnings.finish()
    _print_notes(kernel.notes)
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


def _bar(args: argparse.Namespace, label: str, total: int | None = None, *, unit: str = "",
         to_stdout: bool = False) -> NullProgress:
    """The command's progress line: off with --quiet or --log, and when ``to_stdout`` (the command
    streams its output to stdout) and stdout is a terminal, where the bar would garble the output."""
    quiet = bool(getattr(args, "quiet", False) or getattr(args, "log", False))
    if to_stdout:
        try:
            quiet = quiet or sys.stdout.isatty()
        except (AttributeError, ValueError):
            pass
    return progress(label, total, unit=unit, quiet=quiet)


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


def cmd_opcodes(args: argparse.Namespace) -> int:
    from ..codegen import collect_opcodes
    from ..ir.stream_reader import stream_bir

    sets = collect_opcodes(stream_bir(Path(args.kernel)), target=args.target, decisions=_decisions(args))
    if args.format == "json":
        _print_json([s.to_json() for s in sets])
        return 0
    for s in sets:
        j = s.to_json()
        ops = ", ".join(f"{o:#04x} {m}" for o, m in zip(j["opcodes"], j["mnemonics"]))
        print(f"{s.index:>6}  {s.name or '-':<24} {s.opcode:<16} {s.engine:<5} {ops}")
    return 0


def _read_stream(path: str) -> memoryview | bytes:
    """A bundle stream's bytes, memory-mapped (read-only) when the file allows it: no copy in memory;
    a pipe or device is read up to :data:`tongasm.io.inputs.PIPE_LIMIT` bytes (an InputError beyond)."""
    from ..io.inputs import read_buffer

    return read_buffer(path)


def _check_length(path: str, data: memoryview | bytes) -> None:
    """A stream must be a whole number of bundles; anything else is not a stream (InputError, exit 2)."""
    n = len(data)
    if n % BUNDLE_SIZE:
        raise InputError(f"{path} has {n} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles "
                         f"({_plural(n // BUNDLE_SIZE, 'whole bundle')} and {_plural(n % BUNDLE_SIZE, 'trailing byte')}"
                         "): not a bundle stream")


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

    def pieces() -> Iterator[Any]:  # one bundle at a time, the mapped pages dropped piece by piece
        from ..io.inputs import drop_pages

        step = DISASM_CHUNK * BUNDLE_SIZE
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


class _Failures:
    """The undecodable bundles of a stream, for the error lines after the listing: the first
    :data:`SHOWN` in full, then how many more (bounded memory on a stream of any size)."""

    SHOWN = 20

    def __init__(self, path: str) -> None:
        self.path = path
        self.count = 0
        self.first: list[Any] = []

    def add(self, d: Any) -> None:
        self.count += 1
        if len(self.first) < self.SHOWN:
            self.first.append(d)

    def report(self) -> None:
        for f in self.first:
            sys.stderr.write(f"tongasm: error: {self.path}: {DecodeError(f.reason, f.offset)}\n")
        if self.count > len(self.first):
            sys.stderr.write(f"tongasm: error: {self.path}: ... and {_plural(self.count - len(self.first), 'more undecodable bundle')}\n")


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


def _neff_target(sel: Any, args: argparse.Namespace) -> Any:
    """The NEFF's target; a --target that disagrees is a usage error."""
    t = sel.target
    if getattr(args, "target", None) and args.target != t.name:
        raise UsageError(f"{sel.selector.path} is a {t.name} NEFF (kelf-0.json target {sel.neff.kelf.target_name!r}); "
                         f"--target {args.target} disagrees")
    return t


def _decode_neff(args: argparse.Namespace) -> int:
    from ..decode import DecodeFailure, iter_stream
    from ..neff.select import resolve_selector

    sel = resolve_selector(args.file)
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


def _opcode_name(op: int) -> str:
    from ..isa.opcodes import opcode_name

    return opcode_name(op)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _is_kernel(path: str, head: bytes) -> bool:
    """A kernel by its .json suffix; a stream by .bin; otherwise sniff for a JSON object."""
    if path.endswith(".json"):
        return True
    if path.endswith(".bin"):
        return False
    return head.lstrip()[:1] == b"{"


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


def _stream_target(args: argparse.Namespace, paths: Sequence[str], what: str = "") -> Any:
    """The target of bundle files that are not NEFFs, always known and said: ``--target``; else the
    ``manifest.json`` tongasm wrote beside them (``assemble``/``asm``); else the ``kelf-0.json`` of the
    unpacked NEFF they are in (``neff unpack``); else gen2, named in a note on stderr."""
    from ..isa.targets import get_target

    if getattr(args, "target", None):
        return get_target(args.target)
    found: dict[str, str] = {}
    for p in paths:
        t = _target_beside(Path(p))
        if t is not None:
            found[p] = t
    if len(set(found.values())) > 1:
        raise UsageError("the inputs are of different targets (" + ", ".join(f"{k}: {v}" for k, v in found.items())
                         + "); give --target")
    if found and len(found) == len(paths):
        return get_target(next(iter(found.values())))
    unknown = [p for p in paths if p not in found]
    assumed = get_target(next(iter(found.values()), "gen2"))
    if not paths:
        sys.stderr.write(f"tongasm: note: {what or 'the input'}: no --target given; assuming {assumed.name}\n")
        return assumed
    sys.stderr.write(f"tongasm: note: {', '.join(unknown[:3])}{' ...' if len(unknown) > 3 else ''}: no target "
                     f"given or recorded beside {'it' if len(unknown) == 1 else 'them'} (no --target, no tongasm "
                     f"manifest.json, not in an unpacked NEFF); assuming {assumed.name}\n")
    return assumed


def _target_beside(path: Path) -> str | None:
    """The target recorded beside a bundle file: its directory's tongasm ``manifest.json``, or the
    ``kelf-0.json`` of an unpacked NEFF it lies in (the file's directory or its parent)."""
    from ..isa.targets import TARGETS

    d = path.parent
    try:
        man = d / "manifest.json"
        if man.is_file() and man.stat().st_size < (64 << 20):
            head = man.read_bytes()[:4096].decode("utf-8", "replace")
            if '"tool": "tongasm"' in head:
                import re

                m = re.search(r'"target":\s*"([a-z0-9]+)"', head)
                if m and m.group(1) in TARGETS:
                    return m.group(1)
        for up in (d, d.parent):
            kelf = up / "kelf-0.json"
            if kelf.is_file() and (up / "tongasm-neff.json").is_file() and kelf.stat().st_size < (16 << 20):
                from ..neff.members import KelfJson

                return KelfJson.parse(kelf.read_bytes(), str(kelf)).target.name
    except (OSError, TongasmError):
        return None
    return None


def _stream_findings(stream: memoryview | bytes, path: str, engine: str | None, target_name: str,
                     decisions: DecisionSet, checks: Any, bar: NullProgress) -> Iterator[Any]:
    """:func:`tongasm.check.check_stream` over a stream in pieces of :data:`DISASM_CHUNK` bundles
    (findings are made, printed and dropped piece by piece), offsets as in one call on the whole."""
    from ..check.runner import check_stream
    from ..isa.targets import get_target
    from ..io.inputs import drop_pages

    n = len(stream)
    total = n // BUNDLE_SIZE
    step = DISASM_CHUNK * BUNDLE_SIZE
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


def _json_with_list(head: dict[str, Any], key: str, items: Iterable[Any], indent: str) -> Iterator[str]:
    """The text of ``json.dumps({**head, key: list(items)}, indent=1)`` nested at ``indent``, with the
    list written item by item (never built in memory)."""
    text = json.dumps(head, indent=1)
    yield (text[:-2] + "," if head else "{").replace("\n", "\n" + indent)
    yield f"\n{indent} {json.dumps(key)}: ["
    first = True
    for it in items:
        yield ("\n" if first else ",\n") + indent + "  " + json.dumps(it, indent=1).replace("\n", "\n" + indent + "  ")
        first = False
    yield ("]" if first else f"\n{indent} ]") + f"\n{indent}}}"


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


def _stream_name(path: str) -> str:
    return Path(path).stem


#: Bundles listed per piece by ``disasm``: a piece's lines are built, written and dropped before the
#: next (bounded memory on any stream; 2 MiB of stream per piece keeps the fast path at full speed).
DISASM_CHUNK = 1 << 15


def _refuse_overwriting_inputs(output: str | None, inputs: Iterable[str], flag: str) -> None:
    """Refuse an output path that names one of the command's own input files (``disasm X.bin -o X.bin``
    would replace its input with its own listing), before any work."""
    if output is None:
        return
    from ..io.outputs import same_file

    for given in inputs:
        # FILE.neff:sg00.pe names FILE.neff
        for path in dict.fromkeys((given, given.rsplit(":", 1)[0] if ":" in given else given)):
            if same_file(output, path):
                raise UsageError(f"{flag} {output} is the input {given}; refused (it would be overwritten): "
                                 "write the output elsewhere")


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
    graphs: dict[str, tuple[Any, str]] = {}  # stream name -> (Neff, graph), for the profile syntax's tables
    for p in args.files:
        if is_neff_spec(p):  # .stream sg00.pe, each bundle with its BIR instruction
            sel = resolve_selector(p)
            neff_targets[sel.selector.path] = _neff_target(sel, args).name
            inputs += [StreamInput(ns.name, ns.data, ns.bir_names) for ns in sel.streams]
            graphs.update({ns.name: (sel.neff, ns.graph) for ns in sel.streams})
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
            pieces = _listing_pieces(inputs, decisions, target, args.bytes, bar)
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
    from ..text.profile import ProfileContext, profile_rows, row_line
    from ..io.inputs import drop_pages

    fs = build_formats(decisions)
    contexts: dict[tuple[int, str], ProfileContext] = {}
    step = DISASM_CHUNK * BUNDLE_SIZE
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
            yield f".stream {s.name}\n"
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
                    bar: NullProgress) -> Iterator[str]:
    """The text listing (the lines of :func:`tongasm.text.fast.fast_listing`, newline-terminated) in
    pieces of at most :data:`DISASM_CHUNK` bundles."""
    from ..text.fast import stream_lines
    from ..text.listing import header_lines
    from ..io.inputs import drop_pages

    yield "\n".join(header_lines(target, decisions)) + "\n"
    step = DISASM_CHUNK * BUNDLE_SIZE
    done = 0
    for s in inputs:
        yield f".stream {s.name}\n"
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
    step = DISASM_CHUNK * BUNDLE_SIZE
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


def _asm_findings(source: str, prog: Any) -> int:
    """Check each assembled stream like ``tongasm check`` (bundles of opcodes without a layout are
    counted, not errors: a listing of real compiler output holds them as ``.bytes``); print every
    error as ``FILE:LINE: stream+OFFSET: ...``; return how many errors there were."""
    from ..check.runner import check_stream
    from ..codegen.output import STREAM_NAMES

    errors = 0
    for name, data in prog.streams.items():
        engine = name.rpartition(".")[2]
        lines = prog.line_of.get(name, [])
        for f in check_stream(bytes(data), name=name, target=prog.target, decisions=prog.decisions,
                              stream=engine if engine in STREAM_NAMES else None, unmodelled="note"):
            if f.severity != "error":
                continue
            errors += 1
            i = (f.offset or 0) // BUNDLE_SIZE
            line = lines[i] if i < len(lines) else "?"
            print(f"{source}:{line}: {f.line()}")
    if errors:
        sys.stderr.write(f"tongasm: error: {source}: {_plural(errors, 'finding')}; nothing written "
                         "(--no-check writes the streams anyway)\n")
    return errors


def cmd_asm(args: argparse.Namespace) -> int:
    from ..codegen.output import write_streams
    from ..text.assembler import assemble_file
    from ..io.outputs import output_dir_path

    decisions = DecisionSet.parse(args.decision) if args.decision else None
    output_dir_path(args.output)  # an unusable -o is refused before any work
    prog = assemble_file(args.source, decisions=decisions, target=args.target)
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
    if args.format == "json":
        _print_json(dict(ex.to_json(), **({"where": where} if where else {})))
    else:
        if where:
            print(f"{where['neff']}: {where['stream']} ({where['member']}) bundle {where['index']} at "
                  f"{where['offset']:#x}" + (f", BIR instruction {where['bir']}" if where["bir"] else ""))
        print(render_text(ex))
    return 0


def _is_listing(path: str) -> bool:
    """A listing by its .s suffix; a stream by .bin; otherwise sniff for listing text (a directive or a comment)."""
    if path.endswith(".s"):
        return True
    if path.endswith(".bin"):
        return False
    try:
        with open(path, "rb") as fh:
            head = fh.read(256)
    except OSError:
        return False  # reading it as a stream reports the error
    return head.lstrip()[:1] in (b".", b";", b"#")


def _has_target(spec: str) -> bool:
    """Does a ``diff`` input name its own target (a NEFF, a listing, a stream with one recorded beside it)?"""
    from ..neff.select import is_neff_spec

    return is_neff_spec(spec) or _is_listing(spec) or _target_beside(Path(spec)) is not None


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
    if args.trace is not None:
        output_file_path(args.trace)
        _refuse_overwriting_inputs(args.trace, [*args.inputs, *([args.memory] if args.memory else []),
                                                 *(i.partition("=")[2] for i in args.input)],
                                   "--trace")
    first = args.inputs[0]
    if is_neff_spec(first):
        return _run_neff(args, decisions)
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

        def trace(engine, d, n):
            sys.stderr.write(f"[{n:>6}] {engine:>4}+{d.offset:#07x}  {instruction_text(d, fs, decisions)}\n")

    def note(text: str) -> None:
        sys.stderr.write(f"tongasm: note: {text}\n")

    kernel = None
    with _bar(args, "run", unit="bundles") as bar:
        if is_kernel:
            from ..codegen.assembler import resolve_target
            from ..ir import read_bir
            from ..ir.memory import describe_kernel

            kernel = read_bir(Path(first))
            _print_notes(kernel.notes)
            memory = describe_kernel(kernel, resolve_target(kernel.arch, args.target).name)
        else:
            from ..ir.memory import MemoryDescription

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
            streams = {_stream_name(p): _read_stream(p) for p in args.inputs}
            for p, data in zip(args.inputs, streams.values()):
                _check_length(p, data)
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
        def trace(engine: str, d: Any, n: int) -> None:
            sys.stderr.write(f"[{n:>6}] {engine:>4}+{d.offset:#07x}  {d.mnemonic}\n")

    def note(text: str) -> None:
        sys.stderr.write(f"tongasm: note: {text}\n")

    start = time.perf_counter()
    with _bar(args, "run", unit="bundles") as bar, _tracing(timeline, args.trace):
        result = run_neff(neff, inputs, graphs=[sel.graph] if sel.graph else None, decisions=decisions,
                          seed=args.seed, declared=declared, timeline=timeline, progress=bar.hook, note=note,
                          copy_inputs=False, log=trace, outputs=names)
    seconds = time.perf_counter() - start
    written = write_outputs(result.outputs(names), dict(result.state(), seconds=round(seconds, 6)), args.output)
    rate = result.executed / seconds if seconds > 0 else 0.0
    if args.format == "json":
        _print_json({"ran": args.inputs[0], "graphs": [c.graph for c in result.cores], "executed": result.executed,
                     "seconds": round(seconds, 6), "bundles_per_second": round(rate, 1),
                     "cores": result.state()["cores"], "outputs": [str(Path(args.output) / p.name) for p in written],
                     **({"trace": args.trace} if args.trace else {})})
    elif not args.quiet:
        print(f"ran {args.inputs[0]}: {_plural(result.executed, 'bundle')} on "
              f"{_plural(len(result.cores), 'core')} ({', '.join(c.graph for c in result.cores)}) in {seconds:.3f} s "
              f"({rate:,.0f} bundles/s)")
        for p in written:
            print(f"  {Path(args.output) / p.name}")
        if args.trace:
            print(f"  {args.trace} (trace)")
    return 0


def cmd_formats(args: argparse.Namespace) -> int:
    from ..isa.formats import build_formats
    from ..isa.reference import format_rows, formats_json, formats_markdown

    ds = _decisions(args)
    known = build_formats(ds).by_name
    unknown = [n for n in args.layouts if n not in known]
    if unknown:
        raise UsageError(f"unknown layout(s) {', '.join(unknown)}; known: {', '.join(known)}")
    if args.format == "markdown":
        if args.layouts:
            raise UsageError("--format markdown renders the whole reference; drop the layout names")
        sys.stdout.write(formats_markdown(ds))
        return 0
    if args.format == "json":
        _print_json([f for f in formats_json(ds) if not args.layouts or f["name"] in args.layouts])
        return 0
    for name, fmt in known.items():
        if args.layouts and name not in args.layouts:
            continue
        print(f"{name}: " + ", ".join(f"{o:#04x} {m}" for o, m in fmt.opcodes.items()) + (f"  ({fmt.doc})" if fmt.doc else ""))
        for r in format_rows(fmt):
            dec = r["decision"] or ""
            print(f"  +{r['offset']:#04x}  {r['width']:<10} {r['name']:<18} {r['kind']:<14} {r['conf']}  {dec:<6} "
                  f"{r['doc']}")
        print()
    return 0


def cmd_bir_reference(args: argparse.Namespace) -> int:
    from ..text.bir_reference import bir_opcodes, bir_reference_markdown, opcode_reference

    ds = _decisions(args)
    known = bir_opcodes()
    unknown = [n for n in args.opcodes if n not in known]
    if unknown:
        raise UsageError(f"unknown BIR opcode(s) {', '.join(unknown)}; tongasm encodes: {', '.join(known)}")
    if args.format == "markdown":
        if args.opcodes:
            raise UsageError("--format markdown renders the whole reference; drop the opcode names")
        sys.stdout.write(bir_reference_markdown(ds))
        return 0
    entries = [opcode_reference(n, ds) for n in (args.opcodes or known)]
    if args.format == "json":
        _print_json(entries)
        return 0
    for e in entries:
        print(f"{e['opcode']}: " + ", ".join(f"{b['opcode']} {b['mnemonic']}" for b in e["bundles"]))
        for k in e["keys"]:
            vals = f" [{', '.join(k['values'])}]" if k["values"] else ""
            how = ("required" if k["required"] else f"one of {', '.join(k['one_of'])}" if k.get("one_of")
                   else f"default {json.dumps(k['default'])}")
            print(f"  key  {k['key']:<24} {k['type']}{vals}, {how}")
        for r in e["operands"]:
            opt = " (optional)" if r["optional"] else ""
            print(f"  {r['list']}[{r['index']}] {r['role']}{opt}" + (f"  slots {', '.join(r['slots'])}" if r["slots"] else ""))
        unassigned = e["unassigned_stream"] or "refused"
        print(f"  engines {', '.join(e['engines'])}; Unassigned: {unassigned}")
        print(f"  example: {e['example']['source']}")
        print()
    return 0


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
    from ..io.outputs import output_file_path
    from ..neff import pack_dir

    output_file_path(args.output)  # an unusable -o is refused before any work
    neff = pack_dir(args.dir, args.output, decisions=_decisions(args), streams=args.streams,
                    replace=_replacements(args.replace), check=not args.no_check)
    if not args.quiet:
        size = Path(args.output).stat().st_size
        print(f"packed {args.dir}: {_plural(len(neff.members), 'member')} -> {args.output} ({size} bytes)")
    return 0


def cmd_neff_repack(args: argparse.Namespace) -> int:
    from ..io.outputs import output_file_path
    from ..neff.unpack import repack_neff

    output_file_path(args.output)  # an unusable -o is refused before any work
    neff = repack_neff(args.neff, args.output, decisions=_decisions(args), streams=args.streams,
                       replace=_replacements(args.replace), check=not args.no_check)
    if not args.quiet:
        size = Path(args.output).stat().st_size
        print(f"repacked {args.neff}: {_plural(len(neff.members), 'member')} -> {args.output} ({size} bytes)")
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


def cmd_decisions(args: argparse.Namespace) -> int:
    if args.evidence:
        from pathlib import Path as _Path

        from ..neff import read_neff
        from ..neff.evidence import corpus_evidence, evidence_markdown, render_evidence
        from ..neff.survey import neff_paths

        sets = [(path, neff_paths([path])) for path in args.evidence]  # a missing one before any work
        reports = []
        for path, files in sets:
            neffs = [(str(f.relative_to(path)) if _Path(path).is_dir() else str(f), read_neff(f)) for f in files]
            reports.append((path, corpus_evidence(neffs)))
        if args.format == "json":
            _print_json([{"neff": path, "decisions": [e.to_json() for e in evs]} for path, evs in reports]
                        if len(reports) > 1 else {"neff": reports[0][0], "decisions": [e.to_json() for e in reports[0][1]]})
        elif args.format == "markdown":
            print(evidence_markdown([(_Path(path).name, evs) for path, evs in reports]), end="")
        else:
            for path, evs in reports:
                for line in render_evidence(evs, path):
                    print(line)
        return 1 if any(e.status == "contradicted" for _p, evs in reports for e in evs) else 0
    if args.format == "markdown":
        raise UsageError("--format markdown needs --evidence")
    if args.format == "json":
        _print_json([{"id": d.id, "kind": d.kind, "subject": d.subject, "default": d.default,
                      "readings": dict(d.readings), **({"reason": d.reason} if d.reason else {})}
                     for d in DECISIONS.values()])
        return 0
    for d in DECISIONS.values():
        print(f"{d.id:<5} {d.subject}")
        if d.reason:
            print(f"        why: {d.reason}")
        for c in d.choices:
            mark = "*" if c == d.default else " "
            print(f"   {mark} {c:<24} {d.readings[c]}")
    return 0


# --- entry point -----------------------------------------------------------------------------------------

class _Stdout:
    """``sys.stdout`` while a command runs: a write or flush that fails (a full disk, a closed pipe,
    an I/O error) becomes one :class:`~tongasm.errors.OutputError`, and text that the terminal's
    encoding cannot show (a lone surrogate in a name read from JSON) is written escaped."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        try:
            return int(self._inner.write(text))
        except UnicodeEncodeError:
            enc = getattr(self._inner, "encoding", None) or "utf-8"
            return int(self._inner.write(text.encode(enc, "backslashreplace").decode(enc)))
        except OSError as e:
            raise _stdout_error(e) from None

    def flush(self) -> None:
        try:
            self._inner.flush()
        except OSError as e:
            raise _stdout_error(e) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _StdoutError(OutputError):
    """Standard output could not be written (``broken_pipe``: its reader closed it, e.g. ``| head``)."""

    broken_pipe = False


def _stdout_error(e: OSError) -> _StdoutError:
    import errno

    if e.errno == errno.EPIPE:
        err = _StdoutError("standard output was closed before the output was complete (broken pipe)")
        err.broken_pipe = True
        return err
    return _StdoutError(f"cannot write to standard output: {e.strerror or e}")


def _silence_stdout(inner: Any) -> None:
    """After a failed write to stdout, point its file descriptor at /dev/null so that the
    interpreter's last flush at exit does not fail (and print) again."""
    try:
        fd = inner.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used by ``python -m tongasm``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    inner = sys.stdout
    sys.stdout = _Stdout(inner)
    try:
        code = func(args)
        sys.stdout.flush()
        return code
    except _StdoutError as e:
        _silence_stdout(inner)
        if e.broken_pipe:  # `tongasm disasm F | head`: the reader has what it wanted; say nothing, as cat does
            import signal

            return 128 + signal.SIGPIPE
        sys.stderr.write(f"tongasm: error: {e}\n")
        return e.exit_code
    except TongasmError as e:
        sys.stderr.write(f"tongasm: error: {e}\n")
        return e.exit_code
    except KeyboardInterrupt as e:  # SIGINT; SIGTERM/SIGHUP while writing (tongasm.errors.Terminated)
        import signal

        signum = getattr(e, "signum", signal.SIGINT)
        sys.stderr.write(f"tongasm: interrupted ({signal.Signals(signum).name}); nothing was left half-written\n")
        return 128 + signum
    except RecursionError:
        sys.stderr.write("tongasm: error: the input is nested too deeply to process\n")
        return 2
    except MemoryError:
        sys.stderr.write("tongasm: error: out of memory (the input is too large for this machine)\n")
        return 1
    except Exception as e:  # a bug in tongasm, not a user mistake
        if os.environ.get("TONGASM_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(f"tongasm: internal error: {type(e).__name__}: {e} (set TONGASM_DEBUG=1 for a traceback; "
                         "please report it)\n")
        return 1
    finally:
        if sys.stdout is not inner:
            try:
                sys.stdout.flush()
            except Exception:
                _silence_stdout(inner)
            sys.stdout = inner


if __name__ == "__main__":
    raise SystemExit(main())
