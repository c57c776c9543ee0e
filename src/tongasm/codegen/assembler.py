"""Whole-kernel assembly: program items → per-engine streams, manifest, census, atomic output.

:func:`assemble` runs the passes (flatten with loop unrolling, Select lowering) and per-item
codegen, appending each bundle to its engine's stream in program order. :meth:`Assembly.write`
writes ``<engine>.bin`` for each stream that received bundles plus ``manifest.json``; all files go
to a temporary directory first and are moved into place only when everything succeeded, so an
error never leaves partial output behind.
"""

from __future__ import annotations

import json
import os
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO
from collections.abc import Callable, Iterable, Iterator, Mapping

from .._meta import __version__
from ..check.registry import CheckSet
from ..check.runner import bundle_findings, check_instruction, offset_checks, run_ir_checks, stage_of
from ..errors import EncodeError, InputError, TongasmError, ValidationError
from ..io.outputs import MANIFEST_TOOL, WRITTEN_KEY, Content, content_digest, paused_gc, write_output_dir
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.enums import CodeGenMode
from ..isa.fields import BUNDLE_SIZE
from ..isa.opcodes import opcode_name
from ..isa.targets import DEFAULT_TARGET, TARGETS, Target, get_target
from ..ir.instructions import Instruction, Kernel, Loop, UnknownInstruction
from ..ir.stream_reader import RawInstruction, StreamedKernel, StreamRestart
from ..passes import LOWERINGS, ProgramItem, lower
from ..passes.program import Count, Walked, label_of, unroll, walk, walk_top
from ..passes.prologue import with_prologue
from .common import Context, sync_part
from .templates import Template, Templates, make_template
from .manifest import MANIFEST_FORM, KindTable, compact_instructions
from .generator import CodegenResult, codegen_for, encoder_of, generate, stream_of
from .plan import Encoder, Sink

from .output import CENSUS_FILE, MANIFEST_FILE, MEMORY_FILE, STREAM_NAMES, write_streams  # noqa: F401  (re-exported)
from .output import listed as _listed


def resolve_target(arch: str | None, override: str | Target | None = None) -> Target:
    """``--target`` wins; else the file's ``arch``; else gen2 (SPEC §5)."""
    if override is not None:
        return get_target(override)
    if arch is None:
        return DEFAULT_TARGET
    t = TARGETS.get(arch)
    if t is None:
        raise InputError(f"unknown arch {arch!r} in the kernel; tongasm knows {', '.join(TARGETS)} "
                         "(use --target to override)")
    return t


@dataclass(slots=True)
class AssembledInstruction:
    """Manifest entry: one BIR instruction and where its bundles went."""

    index: int
    name: str
    opcode: str  # BIR opcode
    stream: str
    opcodes: list[int]
    offsets: list[int]  # byte offset of each bundle in its stream

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "bir_opcode": self.opcode,
            "engine": self.stream,
            "opcodes": self.opcodes,
            "mnemonics": [opcode_name(o) for o in self.opcodes],
            "offset": self.offsets[0] if self.offsets else None,
            "offsets": self.offsets,
        }


class BundleLog:
    """Where every bundle went, kept compact (a million instructions must not cost a million objects):
    per bundle its instruction and stream; per instruction its name and BIR opcode. A bundle's
    offset and opcode are read back from the streams when the manifest is written."""

    def __init__(self) -> None:
        self.inst = array("q")
        self.stream = array("B")
        #: per instruction its name, or (when the kernel is in memory anyway) the instruction
        #: itself, whose name is read only when the manifest is written: reading a million names
        #: while encoding costs more than the cache misses are worth
        self.names: list[str | Instruction] = []
        self.bir = array("H")
        self.bir_names: list[str] = []
        self._bir_ids: dict[str, int] = {}
        #: while assembling, the arrays above are appended to through lists (a list's append costs a
        #: fraction of an array's, which parses its argument): per bundle one int, its instruction's
        #: index << 8 | its stream id, and per instruction its BIR opcode id; :meth:`seal` moves them in
        self.bundle_out: list[int] = []
        self.bir_out: list[int] = []

    def add_instruction(self, name: str | Instruction, bir_opcode: str) -> None:
        bid = self._bir_ids.get(bir_opcode)
        if bid is None:
            bid = self._bir_ids[bir_opcode] = len(self.bir_names)
            self.bir_names.append(bir_opcode)
        self.names.append(name)
        self.bir_out.append(bid)

    def bundles(self) -> int:
        """How many bundles are logged (sealed or not)."""
        return len(self.inst) + len(self.bundle_out)

    def seal(self) -> None:
        """Move the appended columns into the arrays (numpy converts a list at C speed)."""
        import numpy as np

        if self.bundle_out:
            both = np.asarray(self.bundle_out, dtype=np.int64)
            self.inst.frombytes((both >> 8).tobytes())
            self.stream.frombytes((both & 0xFF).astype(np.uint8).tobytes())
            self.bundle_out.clear()
        if self.bir_out:
            self.bir.frombytes(np.asarray(self.bir_out, dtype=np.uint16).tobytes())
            self.bir_out.clear()

    def __len__(self) -> int:
        return len(self.names)

    def columns(self, streams: dict[str, bytearray]) -> tuple[list[str], list[int], list[dict[str, Any]]]:
        """The manifest's name column, kind column and kinds (:mod:`tongasm.codegen.manifest`'s
        column form), worked out over the log's arrays at once; what :class:`KindTable` gives entry by
        entry (which this falls back to for an instruction of more than four bundles, or bundles on two
        streams or out of order, where KindTable raises)."""
        import numpy as np

        n = len(self.names)
        names = [x if type(x) is str else x.name for x in self.names]  # type: ignore[union-attr]
        inst = np.frombuffer(self.inst, dtype=np.int64)
        sid = np.frombuffer(self.stream, dtype=np.uint8)
        counts = np.bincount(inst, minlength=n) if len(inst) else np.zeros(n, dtype=np.int64)
        wide = int(counts.max()) if n else 0
        if wide > 4 or (len(inst) > 1 and bool(np.any(np.diff(inst) < 0))):
            return self._columns_by_entry(streams)
        ops = np.zeros(len(inst), dtype=np.int64)
        for k, name in enumerate(STREAM_NAMES):
            where = np.flatnonzero(sid == k)
            if len(where):
                ops[where] = np.frombuffer(streams[name], dtype=np.uint8)[::BUNDLE_SIZE][:len(where)]
        first = np.cumsum(counts) - counts
        key = np.full((n, 3 + wide), -1, dtype=np.int64)
        key[:, 0] = np.frombuffer(self.bir, dtype=np.uint16)[:n]
        key[:, 2] = counts
        has = counts > 0
        key[has, 1] = sid[first[has] + counts[has] - 1]  # the engine: the last bundle's stream
        for j in range(wide):
            h = counts > j
            at = first[h] + j
            if bool(np.any(sid[at] != key[h, 1])):
                return self._columns_by_entry(streams)
            key[h, 3 + j] = ops[at]
        if not n:
            return names, [], []
        # one int64 per instruction: BIR opcode id (16 bits), stream + 1 (8), count (3), opcodes + 1 (9 each)
        packed = (key[:, 0] << 47) | ((key[:, 1] + 1) << 39) | (key[:, 2] << 36)
        for j in range(wide):
            packed |= (key[:, 3 + j] + 1) << (27 - 9 * j)
        if int(key[:, 0].max()) >= 1 << 16:
            return self._columns_by_entry(streams)
        _u, idx, inv = np.unique(packed, return_index=True, return_inverse=True)
        order = np.argsort(idx, kind="stable")  # the kinds in order of first use
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        rows = []
        for bid, s, c, *opc in key[idx[order]].tolist():
            opcodes = opc[:c]
            rows.append({"bir_opcode": self.bir_names[bid], "engine": STREAM_NAMES[s] if c else "",
                         "opcodes": opcodes, "mnemonics": [opcode_name(o) for o in opcodes]})
        return names, rank[inv.reshape(-1)].tolist(), rows

    def _columns_by_entry(self, streams: dict[str, bytearray]) -> tuple[list[str], list[int], list[dict[str, Any]]]:
        names: list[str] = []
        kinds = KindTable()
        column = [kinds.id_of(e, names) for e in self.entries(streams)]
        return names, column, kinds.rows

    def entries(self, streams: dict[str, bytearray]) -> Iterator[AssembledInstruction]:
        """Manifest entries, in program order (materialised one at a time)."""
        k, n = 0, len(self.inst)
        at = [0] * len(STREAM_NAMES)  # next bundle's byte offset, per stream
        for i, src in enumerate(self.names):
            name = src if type(src) is str else src.name  # type: ignore[union-attr]
            opcodes: list[int] = []
            offsets: list[int] = []
            stream = ""
            while k < n and self.inst[k] == i:
                sid = self.stream[k]
                stream = STREAM_NAMES[sid]
                off = at[sid]
                at[sid] = off + BUNDLE_SIZE
                opcodes.append(streams[stream][off])
                offsets.append(off)
                k += 1
            yield AssembledInstruction(i, name, self.bir_names[self.bir[i]], stream, opcodes, offsets)


@dataclass
class Assembly:
    """The result of assembling a kernel: streams (bytes per engine), the bundle log, census."""

    target: Target
    decisions: DecisionSet
    streams: dict[str, bytearray] = field(default_factory=dict)
    log: BundleLog = field(default_factory=BundleLog)
    census: bytearray | None = None
    findings: list[Any] = field(default_factory=list)  # check findings kept (warn mode, BIR-verifier rules)
    kernel: Kernel | None = None  # the source (or its skeleton), for the memory description

    @property
    def instructions(self) -> list[AssembledInstruction]:
        """Manifest entries (materialised; prefer :meth:`BundleLog.entries` for huge kernels)."""
        return list(self.log.entries(self.streams))

    def stream_bytes(self, name: str) -> bytes:
        return bytes(self.streams.get(name, b""))

    @property
    def bundle_count(self) -> int:
        return sum(len(b) for b in self.streams.values()) // BUNDLE_SIZE

    def _manifest_head(self, written: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The manifest without its instruction list; ``written`` (name → :func:`content_digest`) is
        recorded when the manifest is written beside those files, so that a later run drops only
        files that are still exactly what this one wrote."""
        return {
            "tool": MANIFEST_TOOL,
            "version": __version__,
            "target": self.target.name,
            "decisions": self.decisions.describe(),
            "bundle_size": BUNDLE_SIZE,
            "streams": {name: {"file": f"{name}.bin", "bundles": len(data) // BUNDLE_SIZE}
                        for name, data in self.streams.items()},
            **({"census": {"file": CENSUS_FILE, "bundles": len(self.census) // BUNDLE_SIZE}}
               if self.census is not None else {}),
            **({"memory": {"file": MEMORY_FILE}} if self.kernel is not None else {}),
            **({WRITTEN_KEY: dict(written)} if written is not None else {}),
        }

    def manifest(self) -> dict[str, Any]:
        """The ``manifest.json`` object (the compact form of :mod:`tongasm.codegen.manifest`)."""
        names, column, rows = self.log.columns(self.streams)
        return {**self._manifest_head(), "instructions": compact_instructions(names, column, rows)}

    def write_manifest(self, fh: BinaryIO, written: Mapping[str, str] | None = None) -> None:
        """Write ``manifest.json`` (compact form; the columns one JSON array each)."""
        head = json.dumps(self._manifest_head(written), indent=1)
        names, column, rows = self.log.columns(self.streams)
        fh.write(head[:-2].encode() + b',\n "instructions": {\n  "form": "' + MANIFEST_FORM.encode() +
                 b'",\n  "count": ' + str(len(self.log)).encode() + b',\n  "name": ')
        fh.write(json.dumps(names, separators=(",", ":")).encode())
        del names
        fh.write(b',\n  "kind": [' + ",".join(map(str, column)).encode() + b'],\n  "kinds": [')
        fh.write(",\n   ".join(json.dumps(k) for k in rows).encode() + b"]\n }\n}\n")

    def to_neff(self, *, name: str = "file.neff", decisions: DecisionSet | None = None, tables: Any = None,
                source: str | None = None) -> Any:
        """This assembly as a NEFF (a :class:`tongasm.neff.Neff`, one graph): the members the real files
        of its target hold, its inputs and outputs as neff.json and def.json variables
        (:mod:`tongasm.neff.build`); ``tables``: a real NEFF of the target to copy the activation and DVE
        table members from (D-36); ``source``: the kernel's JSON file, for the source lines of the ``.dbg``
        members; ``tongasm.neff.write_neff(neff, path)`` writes it."""
        # The writer is the neff layer's (above codegen): this method forwards to it at call time, by
        # name, as the package root re-exports (no import edge from codegen to neff).
        import importlib

        return importlib.import_module("tongasm.neff.build").build_neff(
            self, decisions=decisions, name=name, tables=tables, source=source)

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write the streams, the census, ``memory.json`` and ``manifest.json`` into ``out_dir`` atomically.

        Files an earlier ``assemble`` or ``asm`` wrote (those its ``manifest.json`` lists) that this
        assembly does not produce are removed, so the directory matches the manifest; every other
        file in the directory is kept.
        """
        files: dict[str, Content] = {f"{n}.bin": d for n, d in self.streams.items()}
        if self.census is not None:
            files[CENSUS_FILE] = self.census
        if self.kernel is not None:
            from ..ir.memory import describe_kernel

            mem = describe_kernel(self.kernel, self.target.name)
            files[MEMORY_FILE] = (json.dumps(mem.to_json(), indent=1) + "\n").encode()
        written = {n: content_digest(d) for n, d in files.items() if isinstance(d, bytes | bytearray | memoryview)}
        files[MANIFEST_FILE] = lambda fh: self.write_manifest(fh, written)
        return write_output_dir(out_dir, files, stale=_listed("streams", "census", "memory"))


def program(kernel: Kernel) -> list[ProgramItem]:
    """The kernel's program items: flattened, loops unrolled, Selects lowered."""
    return list(_items(walk(kernel)))


def _walked(kernel: Kernel | StreamedKernel) -> tuple[Iterator[Walked], Kernel]:
    """The program of a kernel or a streamed one (see :func:`tongasm.passes.program.walk`) and its source."""
    if isinstance(kernel, StreamedKernel):
        return walk_top((x, func) for x, func, _path in kernel.instructions()), kernel.kernel()
    return walk(kernel), kernel


def _lower(inst: Instruction, index: int, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[Instruction]:
    try:
        parts = lower(inst, decisions)
    except EncodeError as e:
        raise e.at(inst.name or None, index, inst.opcode) from None
    assert parts is not None
    return parts


def _items(walked: Iterable[Walked], decisions: DecisionSet = DEFAULT_DECISIONS) -> Iterator[ProgramItem]:
    """Program items of a walked program, Selects, Matmults and the next families' two-bundle forms
    lowered (items with the same index)."""
    for index, (inst, func, it) in enumerate(walked):
        if type(inst) in LOWERINGS:
            parts = _lower(inst, index, decisions)
            for k, x in enumerate(parts):
                yield ProgramItem(index, x, func, inst, k, len(parts), it)
        else:
            yield ProgramItem(index, inst, func, inst, 0, 1, it)


def assemble(
    kernel: Kernel | StreamedKernel,
    *,
    target: str | Target | None = None,
    decisions: DecisionSet = DEFAULT_DECISIONS,
    census: bool = False,
    check: str = "refuse",
    checks: Any = None,
    on_result: Callable[[CodegenResult], None] | None = None,
    progress: Callable[[int], None] | None = None,
    templates: bool = True,
) -> Assembly:
    """Encode a kernel (or a streamed one, see :func:`tongasm.ir.stream_reader.stream_bir`) into
    per-engine streams.

    An encoder refusal raises :class:`~tongasm.errors.EncodeError` at the first one. With
    ``check="refuse"`` (the default) every instruction is also run through the ISA checks
    (RUN_ISA_CHECKS) and any ISA-validator finding raises :class:`~tongasm.errors.ValidationError`
    listing all of them; BIR-verifier findings are kept in ``Assembly.findings`` as warnings.
    ``check="warn"`` keeps every finding as a warning and returns the streams anyway;
    ``check="off"`` runs GENERATE_ISACODE only. ``progress(index)`` is called every 512 instructions.

    Without ``on_result`` the checks run over the finished streams (the vector forms of
    :mod:`tongasm.check.vectorized`, then the scalar checks on the marked bundles) and the IR checks
    per instruction: the findings, their order and what they name are those of checking each
    instruction's bundle as it is made (``on_result`` needs that path: it sees each result).
    A streamed kernel is then assembled through instruction templates
    (:mod:`tongasm.codegen.templates`; ``templates=False`` reads every instruction instead: the
    same result, slower).

    The iterations of an unrolled ``Loop`` are the same instruction objects (physical access
    patterns do not depend on the induction variable), so in GENERATE_ISACODE each loop body
    instruction is encoded once and its bytes reused for every iteration.
    """
    if check not in ("refuse", "warn", "off"):
        raise ValueError(f"check must be 'refuse', 'warn' or 'off', not {check!r}")
    args = (target, decisions, census, check, checks, on_result, progress, templates)
    if isinstance(kernel, StreamedKernel) and kernel.one_pass:
        try:
            return _assemble_kernel(kernel, *args)
        except (TongasmError, StreamRestart):  # read in two passes: the result, or the error, of reading it whole
            kernel = kernel.two_pass()
    return _assemble_kernel(kernel, *args)


def _assemble_kernel(kernel: Kernel | StreamedKernel, target: str | Target | None, decisions: DecisionSet,
                     census: bool, check: str, checks: Any, on_result: Callable[[CodegenResult], None] | None,
                     progress: Callable[[int], None] | None, templates: bool) -> Assembly:
    walked, source = _walked(kernel)
    raw = None
    if isinstance(kernel, StreamedKernel) and templates and on_result is None:
        raw = kernel.raw_instructions()
        walked = iter(())
    if source.functions:  # the stream prologue, when selected
        walked = with_prologue(walked, source.functions[0], decisions)
    with paused_gc():
        return _assemble(walked, source, target, decisions, census, check, checks, on_result,
                         retain=not isinstance(kernel, StreamedKernel), progress=progress, raw=raw)


def _assemble(walked: Iterator[Walked], kernel: Kernel, target: str | Target | None, decisions: DecisionSet,
              census: bool, check: str, checks: Any, on_result: Callable[[CodegenResult], None] | None,
              retain: bool = False, progress: Callable[[int], None] | None = None,
              raw: Iterator[RawInstruction] | None = None) -> Assembly:
    tgt = resolve_target(kernel.arch, target)
    mode = CodeGenMode.GENERATE_ISACODE if check == "off" else CodeGenMode.RUN_ISA_CHECKS
    # the lean path: bytes wanted, and (RUN_ISA_CHECKS without on_result) findings from the finished streams
    plain = on_result is None
    batch = plain and mode == CodeGenMode.RUN_ISA_CHECKS
    cs = checks or CheckSet()
    ir_found: list[tuple[int, int, int, list[Any]]] = []  # (instruction, part, 1, findings) of the IR checks
    # (batch) per bundle of a lowered instruction (by its number in the bundle log): its part, the
    # number of parts and its label; any other bundle is part 0 of 1, labelled with its BIR opcode
    lowered: dict[int, tuple[int, int, str]] = {}
    ctx = Context(tgt, decisions)
    asm = Assembly(tgt, decisions, census=bytearray() if census else None, kernel=kernel)
    log = asm.log
    streams = asm.streams
    cen = asm.census
    l_bundle = log.bundle_out.append  # (index << 8 | stream id), per bundle
    names, bir = log.names, log.bir_out
    stream_ids = {n: (STREAM_IDS[n], streams.setdefault(n, bytearray())) for n in STREAM_NAMES}
    # (id(BIR instruction), part) → (the instruction, its stream id, stream, bundle), for loop
    # iterations (the same instruction object every iteration); the entry holds the instruction so
    # its id cannot be reused by another object
    unrolled: dict[tuple[int, int], tuple[Any, int, bytearray, bytes]] = {}
    encoder = encoder_of(ctx)
    # (class, engine, operand counts) → stream id, stream, the class's generated encode function
    routes: dict[tuple[type, Any, int, int], tuple[int, bytearray, Callable[[Instruction], tuple[Any, int]]]] = {}
    index = -1
    class_ids: dict[type, int] = {}  # IR class → BIR opcode id, for the classes whose opcode is the class's
    # per bundle of the instruction being made, what a template needs (templates.make_template);
    # rec_on[0]: record; rec_on[1]: no finding so far
    rec: list[Any] = []
    rec_on = [False, True]

    def one(inst: Instruction, func: Any, it: tuple[int, ...]) -> None:
        """The ordinary path of one walked instruction."""
        nonlocal index
        index += 1
        if progress is not None and not index & 511:
            progress(index)
        bid = class_ids.get(type(inst))
        if bid is None:
            log.add_instruction(inst if retain else inst.name, inst.opcode)
            if type(inst) is not UnknownInstruction:
                class_ids[type(inst)] = bir[-1]
        else:
            names.append(inst if retain else inst.name)
            bir.append(bid)
        parts = _lower(inst, index, decisions) if type(inst) in LOWERINGS else (inst,)
        for part, x in enumerate(parts):
            if plain:
                hit = unrolled.get((id(inst), part)) if it else None
                if hit is not None and hit[0] is inst:
                    _, sid, stream, b = hit
                else:
                    try:
                        rk = (type(x), x.engine, len(x.ins), len(x.outs))
                        route = routes.get(rk)
                        if route is None:
                            route = routes[rk] = _route(x, stream_ids, encoder)
                        sid, stream, enc = route
                        # encode_bits() inlined (the same plan and sync band, one call less)
                        fmt, bits = enc(x)
                        sync_bits = sync_part(ctx, fmt, x.sync, sp_op=x.FAMILY == "sp") if x.sync is not None else 0
                        b = (bits | sync_bits).to_bytes(BUNDLE_SIZE, "little")
                    except EncodeError as e:
                        raise e.at(inst.name or None, index, label_of(inst, x)) from None
                    if it:
                        unrolled[(id(inst), part)] = (inst, sid, stream, b)
                    elif rec_on[0]:
                        rec.append((x, fmt, bits, sync_bits, sid, stream, 0))
                l_bundle(index << 8 | sid)
                stream += b
                if cen is not None:
                    cen.extend(b)
                if batch:
                    label = label_of(inst, x)
                    if len(parts) > 1:
                        lowered[log.bundles() - 1] = (part, len(parts), label)
                        if rec_on[0] and rec:
                            rec[-1] = (*rec[-1][:6], label)
                    found = check_instruction(x, cs, decisions, func, ctx.target)
                    if part == 0 and inst is not x:  # rules on the instruction before its lowering
                        found += check_instruction(inst, cs, decisions, func, ctx.target)
                    if found:
                        for f in found:
                            f.inst_name, f.inst_index, f.inst_opcode = inst.name or None, index, label
                            f.bundle = part if len(parts) > 1 else None
                        ir_found.append((index, part, 1, found))
                        rec_on[1] = False
                continue
            res = generate(ProgramItem(index, x, func, inst, part, len(parts), it), ctx, mode, checks=checks)
            if res.findings:
                asm.findings.extend(res.findings)
            if on_result is not None:
                on_result(res)
            sid, stream = stream_ids[res.stream]
            for b in res.bundles:
                l_bundle(index << 8 | sid)
                stream += b
                if cen is not None:
                    cen.extend(b)

    if plain and not batch and cen is None and progress is None:
        # GENERATE_ISACODE's own loop: an instruction outside a loop iteration, of a class encoded as
        # it is, goes to its class's emitter (one generated call: plan, bundle, stream and log;
        # Encoder.emitter); the rest (loop iterations, lowered classes, a class's first) to one()
        sink = Sink([stream_ids[n][1] for n in STREAM_NAMES], lambda x: STREAM_IDS[stream_of(x, decisions)],
                    l_bundle, names.append, bir.append, retain)
        emitters: dict[type, Callable[[Instruction, int], None]] = {}  # IR class → its emitter (first operand counts)
        by_counts: dict[tuple[type, int, int], Callable[[Instruction, int], None]] = {}

        def emitter(x: Instruction) -> Callable[[Instruction, int], None]:
            k = (type(x), len(x.ins), len(x.outs))
            e = by_counts.get(k)
            if e is None:
                e = by_counts[k] = encoder.emitter(k[0], k[1], k[2], codegen_for(x), sink, class_ids[k[0]], other)
            return e

        def by_count(x: Instruction, at: int) -> None:  # a class met with several operand counts
            e = by_counts.get((type(x), len(x.ins), len(x.outs)))
            (e or emitter(x))(x, at)

        def other(x: Instruction, at: int) -> None:  # an instruction with other operand counts than its class's first
            emitters[type(x)] = by_count
            emitter(x)(x, at)

        for w, func, it in walked:
            e = emitters.get(type(w))
            if e is not None and not it:
                index += 1
                try:
                    e(w, index)
                except EncodeError as err:
                    raise err.at(w.name or None, index, w.opcode) from None
                continue
            one(w, func, it)
            wt = type(w)
            if not it and wt in class_ids and wt not in LOWERINGS:
                emitters[wt] = emitter(w)
    else:
        for inst, func, it in walked:
            one(inst, func, it)
    if raw is not None:  # a streamed kernel: instruction templates (tongasm.codegen.templates)
        tpl = Templates()
        find, sync_of, count = tpl.find, tpl.sync, Count()
        n_top, cap = 0, count.cap  # the count of top-level instructions (Count's, kept in a local on the hot path)
        reads = 0  # instructions read as JSON (the rest matched a template)
        prev: Template | None = None

        def geometry(y: Instruction) -> frozenset[str]:
            return encoder.geometry_roles(codegen_for(y))

        def offset_fields(y: Instruction) -> Any:
            return codegen_for(y).offset_fields

        def checks_read_offsets(x: Instruction) -> tuple[tuple[int, Any], ...]:
            """The IR checks to run again per instruction of a variant: (-1 the instruction, or its
            part, checks whose findings may change with the offsets)."""
            if not batch:
                return ()
            found = [(-1, offset_checks(x, cs))] if rec[0][0] is not x else []
            found += [(p, offset_checks(y, cs)) for p, (y, *_r) in enumerate(rec)]
            return tuple((p, c) for p, c in found if c)

        follow = tpl.follow
        for r in raw:
            # the template that followed the previous one last time (the common case, inline), else find()
            nexts = follow.get(prev)
            t = nexts[0] if nexts else None
            m = t.rx.match(r.text, r.start) if t is not None and t.scope is r.ctx else None
            if m is None:
                hit = find(r, prev)
                if hit is not None:
                    t, m = hit
            if m is not None:
                assert t is not None
                g = m.groups()
                gs = g[t.sync_at] if t.sync_at >= 0 else None  # (None: no sync band)
                sync = sync_of(gs, r) if gs is not None else None
                if sync is not None or gs is None:
                    gn = g[t.name_at]
                    name = gn[1:-1] if "\\" not in gn else json.loads(gn)
                    key = t.key_of(g)
                    v = t.variants.get(key, _NEW)
                    if v is not None and v is not _NEW:  # placed: the bundles from the variant's bits
                        made = v.make(g, 0 if sync is None or v.sync_fmt is None else
                                      sync_part(ctx, v.sync_fmt, sync, sp_op=v.sp_op))
                        if made is not None and not (v.checks and _template_findings(
                                t.instruction(g, name, sync), v.checks, decisions, r.func, ctx.target)):
                            n_top += 1
                            if n_top > cap:  # (Count.one says so)
                                count.n = n_top - 1
                                count.one()
                            index += 1
                            if progress is not None and not index & 511:
                                progress(index)
                            names.append(name)
                            bir.append(v.bid)
                            single = v.one
                            if single is not None:
                                sid, stream = single
                                b = made[0]
                                l_bundle(index << 8 | sid)
                                stream += b
                                if cen is not None:
                                    cen += b
                            else:
                                for (sid, stream, _b, _u, part, nparts, label), b in zip(v.parts, made):
                                    if batch:
                                        lowered[log.bundles()] = (part, nparts, label)
                                    l_bundle(index << 8 | sid)
                                    stream += b
                                    if cen is not None:
                                        cen += b
                            r.end = m.end()
                            prev = t
                            continue
                    else:  # cloned, or a new variant: the ordinary path from the template's IR
                        x = t.instruction(g, name, sync)
                        count.n = n_top
                        count.one()
                        n_top = count.n
                        rec.clear()
                        rec_on[0], rec_on[1] = v is _NEW, True
                        one(x, r.func, ())
                        rec_on[0] = False
                        if v is _NEW and rec_on[1] and rec:
                            t.add_variant(g, x, list(rec), bir[-1], geometry, checks_read_offsets(x), offset_fields)
                        r.skip(m.end())
                        prev = t
                        continue
            xr = r.read()
            count.n = n_top
            if type(xr) is Loop:
                count.loop(xr)
                n_top = count.n
                for inst, it in unroll(xr):
                    one(inst, r.func, it)
                prev = None
                continue
            x = xr  # type: ignore[assignment]
            count.one()
            n_top = count.n
            reads += 1
            rec.clear()
            rec_on[0], rec_on[1] = tpl.wants(r, n_top - reads), True
            one(x, r.func, ())
            rec_on[0] = False
            made_t = make_template(r, x, len(rec)) if rec_on[1] and rec else None
            if made_t is not None:
                m0 = made_t.rx.match(r.text, r.start)
                if m0 is None or m0.end() != r.end:
                    made_t = None
                else:
                    made_t.add_variant(m0.groups(), x, list(rec), bir[-1], geometry, checks_read_offsets(x), offset_fields)
                    tpl.add(made_t, r, prev)
            prev = made_t
    log.seal()
    if batch:
        asm.findings = _stream_findings(asm, ctx, cs, ir_found, lowered)
    # keep first-use order of streams: sort by the first bundle that went to each
    used = {n for n in STREAM_NAMES if streams[n]}
    first: dict[int, int] = {}
    for k, sid in enumerate(log.stream):
        first.setdefault(sid, k)
        if len(first) == len(used):
            break
    ordered = sorted(used, key=lambda n: first.get(STREAM_IDS[n], 0))
    asm.streams = {n: streams[n] for n in ordered}
    return _finish(asm, check)


def _template_findings(inst: Instruction, which: tuple[tuple[int, Any], ...], decisions: DecisionSet, func: Any,
                       target: Target) -> bool:
    """Whether the offset-reading IR checks find anything on an instruction made from a template
    variant (its other checks found nothing on the variant); then it goes the ordinary way, which
    reports the findings. ``which``: (-1 the instruction, or its part, the checks)."""
    parts: list[Instruction] | None = None
    for p, checks in which:
        if p < 0:
            x = inst
        else:
            if parts is None:
                parts = lower(inst, decisions) if type(inst) in LOWERINGS else [inst]
                assert parts is not None
            x = parts[p]
        if run_ir_checks(x, checks, decisions, func, target):
            return True
    return False


def _stream_findings(asm: Assembly, ctx: Context, cs: CheckSet, ir_found: list[tuple[int, int, int, list[Any]]],
                     lowered: dict[int, tuple[int, int, str]]) -> list[Any]:
    """The findings of RUN_ISA_CHECKS over a kernel, from its finished streams: the bundle checks run
    over each stream's columns, each finding is given its bundle's instruction, and all are put in
    program order (per instruction and part: its bundle's findings, then the IR checks')."""
    import numpy as np

    log = asm.log
    names = log.names
    inst_of = np.frombuffer(log.inst, dtype=np.int64)
    stream_of_bundle = np.frombuffer(log.stream, dtype=np.uint8)
    out: list[tuple[int, int, int, int, Any]] = [(i, p, kind, j, f) for i, p, kind, fs in ir_found
                                                 for j, f in enumerate(fs)]
    seq = 0
    for name, data in asm.streams.items():
        if not data:
            continue
        where = np.flatnonzero(stream_of_bundle == STREAM_IDS[name])  # the log's bundle numbers of this stream
        for pos, f in bundle_findings(bytes(data), target=ctx.target, decisions=ctx.decisions, stream=name,
                                      checks=cs):
            k = int(where[pos])
            i = int(inst_of[k])
            src = names[i]
            f.inst_name = (src if type(src) is str else src.name) or None  # type: ignore[union-attr]
            part, nparts, label = lowered.get(k) or (0, 1, log.bir_names[log.bir[i]])
            f.inst_index, f.inst_opcode = i, label
            f.bundle = part if nparts > 1 else None
            out.append((i, part, 0, seq, f))
            seq += 1
    out.sort(key=lambda t: t[:4])
    return [t[4] for t in out]


def _route(inst: Instruction, stream_ids: dict[str, tuple[int, bytearray]],
           encoder: Encoder) -> tuple[int, bytearray, Callable[[Instruction], tuple[Any, int]]]:
    """(stream id, stream, encode function) of an instruction: depends only on its class, engine and
    operand counts."""
    sid, stream = stream_ids[stream_of(inst, encoder.ctx.decisions)]
    return sid, stream, encoder.function(type(inst), len(inst.ins), len(inst.outs), codegen_for(inst))


def _finish(asm: Assembly, check: str) -> Assembly:
    """Settle finding severities; refuse an illegal stream (check="refuse")."""
    for f in asm.findings:
        if check == "warn" or stage_of(f) != "isa":
            f.severity = "warning"
    if check == "refuse":
        illegal = [f for f in asm.findings if f.severity == "error"]
        if illegal:
            raise ValidationError(illegal)
    return asm


STREAM_IDS = {n: i for i, n in enumerate(STREAM_NAMES)}
_NEW: Any = object()  # a template variant not made yet


@dataclass
class OpcodeSet:
    """COLLECT_OPCODES result for one BIR instruction."""

    index: int
    name: str
    opcode: str
    engine: str
    opcodes: list[int]

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "bir_opcode": self.opcode, "engine": self.engine,
                "opcodes": sorted(set(self.opcodes)), "mnemonics": [opcode_name(o) for o in sorted(set(self.opcodes))]}


def collect_opcodes(kernel: Kernel | StreamedKernel, *, target: str | Target | None = None,
                    decisions: DecisionSet = DEFAULT_DECISIONS) -> list[OpcodeSet]:
    """COLLECT_OPCODES over a kernel: the opcode set of each BIR instruction."""
    walked, source = _walked(kernel)
    arch = source.arch
    tgt = resolve_target(arch, target)
    ctx = Context(tgt, decisions)
    out: dict[int, OpcodeSet] = {}
    for item in _items(walked, decisions):
        res = generate(item, ctx, CodeGenMode.COLLECT_OPCODES)
        entry = out.get(item.index)
        if entry is None:
            entry = out[item.index] = OpcodeSet(item.index, item.source.name, item.source.opcode, res.stream, [])
        entry.opcodes.extend(res.opcodes)
    return list(out.values())
