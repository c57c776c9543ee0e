"""Flatten a kernel into the program-order list codegen consumes, unrolling ``Loop`` blocks.

A BIR ``Loop`` is unrolled (SPEC §5: unrolled or refused, never silently skipped): its blocks
are repeated for ``i in range(lb, ub, stride)``. Physical access patterns do not depend on the
induction variable, so every iteration encodes the same bundles; an instruction that needs the
variable (a symbolic access pattern) is refused later by codegen with the spec's message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Iterator

from ..errors import BirError
from ..ir.instructions import Block, Function, Instruction, Kernel, Loop

#: Refuse to unroll beyond this many instructions (a runaway loop bound is a mistake, not a kernel).
MAX_UNROLLED = 50_000_000


@dataclass(eq=False, slots=True)
class ProgramItem:
    """One instruction to encode, in program order.

    ``index`` is the program-order index of the BIR instruction it comes from (``source``); a
    lowered Select yields two items with the same index and ``part`` 0 and 1 of ``parts`` 2.
    """

    index: int
    inst: Instruction
    function: Function
    source: Instruction
    part: int = 0
    parts: int = 1
    iteration: tuple[int, ...] = field(default=())

    @property
    def label(self) -> str:
        """How messages name the instruction: its opcode, with the lowered part if any."""
        return label_of(self.source, self.inst)


def label_of(source: Instruction, inst: Instruction) -> str:
    """How messages name ``inst`` (lowered from ``source``, or ``source`` itself)."""
    return source.opcode if inst is source else f"{source.opcode} → {inst.opcode}"


#: One instruction of the program: the instruction, its function, its loop iteration (``()`` outside loops).
Walked = tuple[Instruction, Function, tuple[int, ...]]


def walk(kernel: Kernel) -> Iterator[Walked]:
    """All instructions of all functions in program order, loops unrolled (a generator of plain
    tuples: the encoder's hot path creates no object per instruction)."""
    n = 0
    for func in kernel.functions:
        for b in func.blocks:
            for x in b.instructions:
                if type(x) is Loop:
                    for inst, it in _unroll(x, ()):
                        if n >= MAX_UNROLLED:
                            raise BirError(f"the kernel unrolls to more than {MAX_UNROLLED} instructions")
                        yield inst, func, it
                        n += 1
                else:
                    yield x, func, ()  # type: ignore[misc]
                    n += 1


def walk_top(top: Iterable[tuple[Instruction | Loop, Function]]) -> Iterator[Walked]:
    """:func:`walk` over top-level instructions given one at a time (a streamed kernel), loops unrolled."""
    for x, func in top:
        if type(x) is Loop:
            for inst, it in _unroll(x, ()):
                yield inst, func, it
        else:
            yield x, func, ()  # type: ignore[misc]


def flatten(kernel: Kernel) -> Iterator[ProgramItem]:
    """All instructions of all functions, loops unrolled, in program order (a generator)."""
    for n, (inst, func, it) in enumerate(walk(kernel)):
        yield ProgramItem(n, inst, func, inst, 0, 1, it)


def _walk_blocks(blocks: list[Block], it: tuple[int, ...]) -> Iterator[tuple[Instruction, tuple[int, ...]]]:
    for b in blocks:
        for x in b.instructions:
            if isinstance(x, Loop):
                yield from _unroll(x, it)
            else:
                yield x, it


def _yields(blocks: list[Block]) -> bool:
    """Whether one pass over ``blocks`` yields an instruction (or a loop error to raise)."""
    for b in blocks:
        for x in b.instructions:
            if not isinstance(x, Loop):
                return True
            ax = x.axis
            if ax.stride == 0:
                if ax.lb < ax.ub:  # _unroll raises for it
                    return True
                continue
            n = len(range(ax.lb, ax.ub, ax.stride))
            if n > MAX_UNROLLED or (n and _yields(x.blocks)):
                return True
    return False


def _unroll(loop: Loop, it: tuple[int, ...]) -> Iterator[tuple[Instruction, tuple[int, ...]]]:
    ax = loop.axis
    if ax.stride == 0:
        if ax.lb < ax.ub:
            raise BirError(f"Loop {ax.name!r} has stride 0 with lb {ax.lb} < ub {ax.ub}: it never ends "
                           "and cannot be unrolled")
        return
    count = len(range(ax.lb, ax.ub, ax.stride))
    if count > MAX_UNROLLED:
        raise BirError(f"Loop {ax.name!r} has {count} iterations; tongasm unrolls at most {MAX_UNROLLED}")
    if not _yields(loop.blocks):  # nothing to unroll: do not spin through empty iterations
        return
    for i in range(ax.lb, ax.ub, ax.stride):
        yield from _walk_blocks(loop.blocks, (*it, i))
