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
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from .._meta import __version__
from ..errors import OutputError, TongasmError
from ..isa.targets import TARGETS
from .common import _count, _seed
from .kernel import cmd_asm, cmd_assemble
from .listing import cmd_decode, cmd_diff, cmd_disasm, cmd_explain, cmd_opcodes
from .check import cmd_check, cmd_checks
from .run import cmd_run
from .neff import cmd_neff_header, cmd_neff_info, cmd_neff_pack, cmd_neff_repack, cmd_neff_survey, cmd_neff_unpack
from .reference import cmd_bir_reference, cmd_decisions, cmd_formats


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

    a = sub.add_parser("assemble", help="encode a BIR JSON kernel into per-engine bundle streams (or a NEFF)",
                       description="Encode a BIR JSON kernel into DIR/<engine>.bin streams and DIR/manifest.json. "
                                   "With --neff, a kernel or a listing (the text of 'tongasm disasm FILE.neff', "
                                   "whose .var lines give the variables) is written as a NEFF. "
                                   "On any error nothing is written: exit 1 for an instruction that cannot be encoded or "
                                   "fails a check, 2 for unusable input (a missing file, text that is not JSON, JSON "
                                   "that is not a kernel, an unknown memref or register) or a usage error.")
    a.add_argument("kernel", metavar="KERNEL.json|LISTING.s")
    a.add_argument("-o", "--output", metavar="DIR", help="output directory (required unless --neff is given)")
    a.add_argument("--neff", metavar="OUT.neff",
                   help="also (or only) write a NEFF: one graph, the members the target's real files hold, the "
                        "kernel's inputs and outputs as its variables (checked against real files and the "
                        "simulator, not loaded on hardware)")
    a.add_argument("--tables", metavar="REAL.neff",
                   help="with --neff: copy the activation and DVE table members (the compiler's data, which "
                        "tongasm does not ship) from this real NEFF of the target, as the real files hold them")
    a.add_argument("--target", choices=sorted(TARGETS), help="target (overrides the kernel's arch; default gen2)")
    a.add_argument("--census", action="store_true",
                   help="also write census.bin: a second copy of every bundle, in program order")
    _add_quiet(a)
    a.add_argument("--warn", action="store_true",
                   help="report ISA-check findings as warnings and write the streams anyway (for experiments)")
    _add_decisions(a)
    _add_format(a)
    a.set_defaults(func=cmd_assemble)

    c = sub.add_parser("check", help="validate kernels (BIR JSON), listings (.s), raw bundle streams (.bin) or NEFFs",
                       description="Run every named ISA check. KERNEL.json is checked instruction by instruction "
                                   "(RUN_ISA_CHECKS); FILE.s (a listing) is assembled as 'tongasm asm' assembles it and each "
                                   "finding names its line; FILE.bin is decoded and checked bundle by bundle; FILE.neff "
                                   "checks every engine stream of every graph (or FILE.neff:sg00, FILE.neff:sg00/pe) "
                                   "with the NEFF's target, and bundles of ISA opcodes tongasm has no layout for "
                                   "yet are counted as bundle.unmodelled warnings, not errors. Exit 0 when "
                                   "clean, 1 when any check fails, 2 for unusable input.")
    c.add_argument("inputs", nargs="+", metavar="KERNEL.json|FILE.s|FILE.bin|FILE.neff[:sg00[/pe]]")
    c.add_argument("--target", choices=sorted(TARGETS),
                   help="target (kernels: overrides the arch; streams: default gen2; a NEFF names its own)")
    c.add_argument("--engine", choices=["pool", "act", "pe", "dma", "dve", "sp"],
                   help="engine of a raw stream (default: from the file name, e.g. pool.bin)")
    c.add_argument("--pedantic", action="store_true", help="also run the dossier-only checks (see 'tongasm checks')")
    c.add_argument("--disable", action="append", default=[], metavar="CHECK_ID", help="skip a check (repeatable)")
    c.add_argument("--races", action="store_true",
                   help="only the static race check (races.unordered, on by default for a whole NEFF graph): "
                        "every two accesses on different engines or DMA queues that touch the same bytes, one "
                        "writing, with no semaphore wait or DMA completion ordering them in every schedule; "
                        "FILE.bin inputs are checked together as one program's streams (named by engine)")
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
    d.add_argument("--target", choices=sorted(TARGETS),
                   help="target (default: the NEFF's, the tongasm manifest.json or unpacked NEFF beside the "
                        "stream, else gen2, named in a note)")
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
                                    "confidence V/C/H/I/D, decision) and flag bytes no field explains. BUNDLE is 128 "
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
    r.add_argument("--schedules", type=_count, metavar="N",
                   help="(a NEFF) also run N random schedules (S-60=random, schedule seeds --seed+1..--seed+N, Memset "
                        "Random keeping --seed) and report whether every output agreed bit for bit with the default "
                        "schedule's (exit 1 when one did not): a dynamic cross-check of 'check --races'")
    r.add_argument("--trace", metavar="FILE.json",
                   help="write the schedule as a Chrome/Perfetto trace (one track per engine, a slice per bundle named "
                        "by its BIR instruction and per wait, DMAs on their queues' tracks, an arrow from each "
                        "semaphore update to the wait it releases; a NEFF's cores in the order they are "
                        "simulated); written even when the run deadlocks")
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
                                    "(V/C/H/I/D) and decision. --format markdown is docs/formats.md.")
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








# --- commands -----------------------------------------------------------------------------------------















































































































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


def _input_paths(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(as given, path) of every file or directory the command reads, from its arguments: no output
    of the command may replace, remove or be written inside one (:func:`tongasm.io.outputs.inputs_kept`)."""
    out: list[tuple[str, str]] = []

    def add(given: object) -> None:
        if isinstance(given, str) and given:
            out.append((given, given))
            if ":" in given:  # FILE.neff:sg00 names FILE.neff
                out.append((given, given.rsplit(":", 1)[0]))

    for key in ("kernel", "source", "file", "neff", "dir", "memory", "streams", "a", "b"):
        add(getattr(args, key, None))
    for key in ("inputs", "files"):
        for given in getattr(args, key, None) or ():
            add(given)
    for key in ("input", "replace"):  # NAME=FILE.npy, MEMBER=FILE
        for spec in getattr(args, key, None) or ():
            if isinstance(spec, str) and "=" in spec:
                out.append((spec, spec.partition("=")[2]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (also used by ``python -m tongasm``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    inner = sys.stdout
    sys.stdout = _Stdout(inner)
    try:
        from ..io.inputs import inputs_kept

        with inputs_kept(_input_paths(args)):
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
