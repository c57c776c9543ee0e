"""RUN_ISA_CHECKS over a whole kernel: every encoder refusal and every finding, not just the first.

It lives in codegen because it *is* codegen in its checking mode: each instruction is encoded
exactly as for GENERATE_ISACODE, decoded back and run through the rules of :mod:`tongasm.check`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..check.registry import CheckSet, Finding
from ..errors import EncodeError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.enums import CodeGenMode
from ..isa.targets import Target
from ..ir.instructions import Kernel
from ..passes import ProgramItem, flatten, lower_item
from .assembler import resolve_target
from .common import Context
from .generator import generate


@dataclass
class KernelReport:
    """Findings over a kernel, with how much was looked at."""

    findings: list[Finding] = field(default_factory=list)
    instructions: int = 0
    bundles: int = 0

    @property
    def clean(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"instructions": self.instructions, "bundles": self.bundles,
                "findings": [f.to_json() for f in self.findings]}


def check_kernel(kernel: Kernel, *, target: str | Target | None = None, decisions: DecisionSet = DEFAULT_DECISIONS,
                 checks: CheckSet | None = None,
                 progress: Callable[[int, int | None], None] | None = None) -> KernelReport:
    """RUN_ISA_CHECKS over a kernel: every encoder refusal and every finding, not just the first.

    ``progress(instructions_done, None)`` is called every 256 instructions when given.
    """
    tgt = resolve_target(kernel.arch, target)
    ctx = Context(tgt, decisions)
    report = KernelReport()
    program: Iterator[ProgramItem] = flatten(kernel)
    if kernel.functions:  # the stream prologue, when selected
        from ..passes.prologue import with_prologue

        program = (ProgramItem(n, inst, func, inst, 0, 1, ix) for n, (inst, func, ix) in
                   enumerate(with_prologue(((i.inst, i.function, i.iteration) for i in program), kernel.functions[0],
                                           decisions)))
    for it in program:
        report.instructions += 1
        if progress is not None and not report.instructions & 255:
            progress(report.instructions, None)
        try:
            items = lower_item(it, decisions)
        except EncodeError as e:
            e.at(it.source.name or None, it.index, it.source.opcode)
            report.findings.append(_from_error(e))
            continue
        for item in items:
            try:
                res = generate(item, ctx, CodeGenMode.RUN_ISA_CHECKS, checks=checks)
            except EncodeError as e:
                report.findings.append(_from_error(e, item.part if item.parts > 1 else None))
                continue
            report.bundles += len(res.bundles)
            report.findings.extend(res.findings)
    return report


def _from_error(e: EncodeError, bundle: int | None = None) -> Finding:
    return Finding(e.check or "encode", e.detail, e.field, e.value, e.limit, "error", e.inst_name, e.inst_index,
                   e.inst_opcode, bundle)


