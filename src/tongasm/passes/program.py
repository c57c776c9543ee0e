"""Flatten a kernel into the program-order list codegen consumes, unrolling ``Loop`` blocks.

A BIR ``Loop`` is unrolled (SPEC §5: unrolled or refused, never silently skipped): its blocks
are repeated for ``i in range(lb, ub, stride)``. Physical access patterns do not depend on the
induction variable, so every iteration encodes the same bundles; an instruction that needs the
variable (a symbolic access pattern) is refused later by codegen with the spec's message.
"""

from __future__ import annotations

import os
from itertools import chain, repeat
from dataclasses import dataclass, field
from collections.abc import Iterable, Iterator

from ..errors import BirError, UsageError
from ..ir.instructions import Block, Function, Instruction, Kernel, Loop, LoopAxis
from ..io.inputs import brief_int

#: The most instructions a kernel may unroll to (and bundles ``run`` takes from streams): one cap for
#: every command, checked before a loop is expanded. A runaway or nested loop bound is a mistake, not
#: a kernel; the environment variable ``TONGASM_MAX_INSTRUCTIONS`` raises (or lowers) it.
MAX_INSTRUCTIONS = 1 << 22

#: The environment variable that overrides :data:`MAX_INSTRUCTIONS`.
ENV_MAX = "TONGASM_MAX_INSTRUCTIONS"


def max_instructions() -> int:
    """The cap in force: ``$TONGASM_MAX_INSTRUCTIONS`` when set (a positive integer), else
    :data:`MAX_INSTRUCTIONS` (read at each call, so tests and fuzzers may lower the module value)."""
    text = os.environ.get(ENV_MAX, "").strip()
    if not text:
        return MAX_INSTRUCTIONS
    if not text.isdigit() or len(text) > 18 or int(text) < 1:
        raise UsageError(f"{ENV_MAX} must be a positive integer, got {text[:40]!r}")
    return int(text)


def iterations(ax: LoopAxis) -> int:
    """How many times a loop runs: ``len(range(lb, ub, stride))`` for bounds of any size (``len`` of a
    huge range overflows); a stride of 0 with lb < ub never ends (a BirError)."""
    if ax.stride == 0:
        if ax.lb < ax.ub:
            raise BirError(f"Loop {ax.name!r} has stride 0 with lb {brief_int(ax.lb)} < ub {brief_int(ax.ub)}: "
                           "it never ends and cannot be unrolled")
        return 0
    if ax.stride > 0:
        return max(0, (ax.ub - ax.lb + ax.stride - 1) // ax.stride)
    return max(0, (ax.lb - ax.ub - ax.stride - 1) // -ax.stride)


def unrolled_size(blocks: Iterable[Block]) -> int:
    """How many instructions ``blocks`` unroll to, nested loops counted as products, without
    expanding anything (Python integers: exact for bounds of any size)."""
    n = 0
    for b in blocks:
        xs = b.instructions
        n += len(xs)
        if Loop in set(map(type, xs)):  # (a block without loops is counted without a Python loop)
            n += sum(loop_size(x) - 1 for x in xs if isinstance(x, Loop))
    return n


def loop_size(loop: Loop) -> int:
    """How many instructions one ``Loop`` unrolls to: its iterations times its body's size."""
    k = iterations(loop.axis)
    return k * unrolled_size(loop.blocks) if k else 0


def unrolled_count(kernel: Kernel) -> int:
    """How many instructions the kernel runs with its loops unrolled; a BirError (before any work)
    when that is more than :func:`max_instructions`."""
    n = sum(unrolled_size(func.blocks) for func in kernel.functions)
    cap = max_instructions()
    if n > cap:
        raise BirError(f"the kernel unrolls to {brief_int(n)} instructions; tongasm handles at most {cap} "
                       f"(set {ENV_MAX} to raise the cap)")
    return n


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
    """All instructions of all functions in program order, loops unrolled (plain tuples: the
    encoder's hot path creates no object per instruction, and a block without loops is walked by
    :func:`zip` at C speed). The whole kernel is counted first (:func:`unrolled_count`), on the first
    step: one too large is refused before anything is expanded."""
    return chain.from_iterable(_block_walks(kernel))


def _block_walks(kernel: Kernel) -> Iterator[Iterable[Walked]]:
    """Per block, an iterator of its walked instructions (see :func:`walk`)."""
    unrolled_count(kernel)
    for func in kernel.functions:
        for b in func.blocks:
            xs = b.instructions
            if Loop in set(map(type, xs)):
                yield _walk_with_loops(xs, func)
            else:
                yield zip(xs, repeat(func), repeat(()))  # type: ignore[arg-type]


def _walk_with_loops(xs: Iterable[Instruction | Loop], func: Function) -> Iterator[Walked]:
    for x in xs:
        if type(x) is Loop:
            for inst, it in _unroll(x, ()):
                yield inst, func, it
        else:
            yield x, func, ()  # type: ignore[misc]


def walk_top(top: Iterable[tuple[Instruction | Loop, Function]]) -> Iterator[Walked]:
    """:func:`walk` over top-level instructions given one at a time (a streamed kernel), loops
    unrolled; each loop is counted before it is expanded and the running total kept under
    :func:`max_instructions`."""
    count = Count()
    for x, func in top:
        if type(x) is Loop:
            count.loop(x)
            for inst, it in _unroll(x, ()):
                yield inst, func, it
        else:
            count.one()
            yield x, func, ()  # type: ignore[misc]


def unroll(loop: Loop) -> Iterator[tuple[Instruction, tuple[int, ...]]]:
    """A top-level ``Loop``'s instructions and iteration indexes, in program order."""
    return _unroll(loop, ())


class Count:
    """The running instruction count of a program read one top-level instruction at a time, kept
    under :func:`max_instructions` (a loop is counted whole before it is expanded)."""

    __slots__ = ("cap", "n")

    def __init__(self) -> None:
        self.cap = max_instructions()
        self.n = 0

    def one(self) -> None:
        self.n += 1
        if self.n > self.cap:
            raise BirError(f"the kernel has more than {self.cap} instructions; tongasm handles at most {self.cap} "
                           f"(set {ENV_MAX} to raise the cap)")

    def loop(self, x: Loop) -> None:
        size = loop_size(x)
        self.n += size
        if self.n > self.cap:
            raise BirError(f"the kernel unrolls to at least {brief_int(self.n)} instructions (Loop {x.axis.name!r} "
                           f"alone to {brief_int(size)}); tongasm handles at most {self.cap} (set {ENV_MAX} to "
                           "raise the cap)")


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
            if not isinstance(x, Loop) or (iterations(x.axis) and _yields(x.blocks)):
                return True
    return False


def _unroll(loop: Loop, it: tuple[int, ...]) -> Iterator[tuple[Instruction, tuple[int, ...]]]:
    ax = loop.axis
    if not iterations(ax) or not _yields(loop.blocks):  # nothing to unroll: do not spin through empty iterations
        return
    for i in range(ax.lb, ax.ub, ax.stride):
        yield from _walk_blocks(loop.blocks, (*it, i))
