"""Passes between the IR and codegen: flattening (with loop unrolling) and the lowerings of the BIR
instructions that have no bundle of their own (Select, Matmult)."""

from __future__ import annotations

from collections.abc import Callable

from ..ir.instructions import Instruction, Matmult, Select
from .lower_matmult import lower_matmult
from .lower_select import lower_select
from .program import ProgramItem, flatten

#: IR class → its lowering (the instructions it becomes, in order). Codegen never sees these classes.
LOWERINGS: dict[type[Instruction], Callable[..., list[Instruction]]] = {Select: lower_select, Matmult: lower_matmult}


def lower(inst: Instruction) -> list[Instruction] | None:
    """The instructions ``inst`` lowers to, or None when it needs no lowering."""
    fn = LOWERINGS.get(type(inst))
    return None if fn is None else fn(inst)


def lower_item(item: ProgramItem) -> list[ProgramItem]:
    """Lower one program item (a Select or a Matmult becomes two items; anything else is unchanged)."""
    parts = lower(item.inst)
    if parts is None:
        return [item]
    return [ProgramItem(item.index, p, item.function, item.source, k, len(parts), item.iteration)
            for k, p in enumerate(parts)]


__all__ = ["LOWERINGS", "ProgramItem", "flatten", "lower", "lower_item", "lower_matmult", "lower_select"]
