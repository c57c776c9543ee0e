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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .. import __version__
from ..check.runner import stage_of
from ..errors import EncodeError, InputError, ValidationError
from ..util import write_output_dir
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.enums import ENGINE_STREAM, CodeGenMode
from ..isa.fields import BUNDLE_SIZE
from ..isa.opcodes import opcode_name
from ..isa.targets import DEFAULT_TARGET, TARGETS, Target, get_target
from ..ir.instructions import Kernel
from ..passes import ProgramItem, flatten, lower_item
from .common import Context
from .generator import CodegenResult, generate

STREAM_NAMES = tuple(ENGINE_STREAM.values())
CENSUS_FILE = "census.bin"
MANIFEST_FILE = "manifest.json"
MEMORY_FILE = "memory.json"


def resolve_target(arch: str | None, override: str | Target | None = None) -> Target:
    """``--target`` wins; else the file's ``arch``; else gen2 (SPEC §5, issue 2)."""
    if override is not None:
        return get_target(override)
    if arch is None:
        return DEFAULT_TARGET
    t = TARGETS.get(arch)
    if t is None:
        raise InputError(f"unknown arch {arch!r} in the kernel; tongasm knows {', '.join(TARGETS)} "
                         "(use --target to override)")
    return t


@dataclass
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


@dataclass
class Assembly:
    """The result of assembling a kernel: streams (bytes per engine), manifest entries, census."""

    target: Target
    decisions: DecisionSet
    streams: dict[str, bytearray] = field(default_factory=dict)
    instructions: list[AssembledInstruction] = field(default_factory=list)
    census: bytearray | None = None
    findings: list[Any] = field(default_factory=list)  # check findings kept (warn mode, BIR-verifier rules)
    kernel: Kernel | None = None  # the source, for the memory description written beside the streams

    def stream_bytes(self, name: str) -> bytes:
        return bytes(self.streams.get(name, b""))

    @property
    def bundle_count(self) -> int:
        return sum(len(b) for b in self.streams.values()) // BUNDLE_SIZE

    def manifest(self) -> dict[str, Any]:
        """The ``manifest.json`` object."""
        return {
            "tool": "tongasm",
            "version": __version__,
            "target": self.target.name,
            "decisions": self.decisions.describe(),
            "bundle_size": BUNDLE_SIZE,
            "streams": {name: {"file": f"{name}.bin", "bundles": len(data) // BUNDLE_SIZE}
                        for name, data in self.streams.items()},
            **({"census": {"file": CENSUS_FILE, "bundles": len(self.census) // BUNDLE_SIZE}}
               if self.census is not None else {}),
            "instructions": [i.to_json() for i in self.instructions],
        }

    def write(self, out_dir: str | os.PathLike[str]) -> list[Path]:
        """Write the streams, the census and ``manifest.json`` into ``out_dir`` atomically.

        Stale ``<engine>.bin`` files from an earlier run that this assembly did not produce are
        removed, so the directory always matches the manifest.
        """
        extra = {}
        if self.kernel is not None:
            from ..sim.memory import describe_kernel

            mem = describe_kernel(self.kernel, self.target.name)
            extra[MEMORY_FILE] = (json.dumps(mem.to_json(), indent=1) + "\n").encode()
        return write_streams(out_dir, {n: bytes(d) for n, d in self.streams.items()}, self.manifest(),
                             census=bytes(self.census) if self.census is not None else None, extra=extra)


def write_streams(out_dir: str | os.PathLike[str], streams: dict[str, bytes], manifest: dict[str, Any],
                  census: bytes | None = None, extra: dict[str, bytes] | None = None) -> list[Path]:
    """Write ``<stream>.bin`` files, an optional census, extra files and ``manifest.json`` atomically."""
    files: dict[str, bytes] = {f"{n}.bin": d for n, d in streams.items()}
    if census is not None:
        files[CENSUS_FILE] = census
    files.update(extra or {})
    files[MANIFEST_FILE] = (json.dumps(manifest, indent=1) + "\n").encode()
    return write_output_dir(out_dir, files, stale=[f"{n}.bin" for n in STREAM_NAMES] + [CENSUS_FILE, MEMORY_FILE])


def program(kernel: Kernel) -> list[ProgramItem]:
    """The kernel's program items: flattened, loops unrolled, Selects lowered."""
    items: list[ProgramItem] = []
    for it in flatten(kernel):
        try:
            items.extend(lower_item(it))
        except EncodeError as e:
            raise e.at(it.source.name or None, it.index, it.source.opcode) from None
    return items


def assemble(
    kernel: Kernel,
    *,
    target: str | Target | None = None,
    decisions: DecisionSet = DEFAULT_DECISIONS,
    census: bool = False,
    check: str = "refuse",
    checks: Any = None,
    on_result: Callable[[CodegenResult], None] | None = None,
) -> Assembly:
    """Encode a kernel into per-engine streams.

    An encoder refusal raises :class:`~tongasm.errors.EncodeError` at the first one. With
    ``check="refuse"`` (the default) every instruction is also run through the ISA checks
    (RUN_ISA_CHECKS) and any ISA-validator finding raises :class:`~tongasm.errors.ValidationError`
    listing all of them; BIR-verifier findings are kept in ``Assembly.findings`` as warnings.
    ``check="warn"`` keeps every finding as a warning and returns the streams anyway;
    ``check="off"`` runs GENERATE_ISACODE only.
    """
    if check not in ("refuse", "warn", "off"):
        raise ValueError(f"check must be 'refuse', 'warn' or 'off', not {check!r}")
    tgt = resolve_target(kernel.arch, target)
    ctx = Context(tgt, decisions)
    asm = Assembly(tgt, decisions, census=bytearray() if census else None, kernel=kernel)
    entries: dict[int, AssembledInstruction] = {}
    mode = CodeGenMode.GENERATE_ISACODE if check == "off" else CodeGenMode.RUN_ISA_CHECKS
    for item in program(kernel):
        res = generate(item, ctx, mode, checks=checks)
        if res.findings:
            asm.findings.extend(res.findings)
        if on_result is not None:
            on_result(res)
        stream = asm.streams.setdefault(res.stream, bytearray())
        entry = entries.get(item.index)
        if entry is None:
            entry = entries[item.index] = AssembledInstruction(item.index, item.source.name, item.source.opcode,
                                                               res.stream, [], [])
            asm.instructions.append(entry)
        for b in res.bundles:
            entry.offsets.append(len(stream))
            stream += b
            if asm.census is not None:
                asm.census += b
        entry.opcodes.extend(res.opcodes)
    for f in asm.findings:
        if check == "warn" or stage_of(f) != "isa":
            f.severity = "warning"
    if check == "refuse":
        illegal = [f for f in asm.findings if f.severity == "error"]
        if illegal:
            raise ValidationError(illegal)
    return asm


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


def collect_opcodes(kernel: Kernel, *, target: str | Target | None = None,
                    decisions: DecisionSet = DEFAULT_DECISIONS) -> list[OpcodeSet]:
    """COLLECT_OPCODES over a kernel: the opcode set of each BIR instruction."""
    tgt = resolve_target(kernel.arch, target)
    ctx = Context(tgt, decisions)
    out: dict[int, OpcodeSet] = {}
    for item in program(kernel):
        res = generate(item, ctx, CodeGenMode.COLLECT_OPCODES)
        entry = out.get(item.index)
        if entry is None:
            entry = out[item.index] = OpcodeSet(item.index, item.source.name, item.source.opcode, res.stream, [])
        entry.opcodes.extend(res.opcodes)
    return list(out.values())
