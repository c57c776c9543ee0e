"""Passes between the IR and codegen: flattening (with loop unrolling) and the lowerings of the BIR
instructions that have no bundle of their own (Select, Matmult) or become several bundles (the next
families' two-output forms and the cross-lane reduce, :mod:`.lower_compound`)."""

from __future__ import annotations

from collections.abc import Callable

from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..ir.instructions import Instruction, Matmult, Select
from .lower_compound import LOWERED_TYPES, lower_family
from .lower_matmult import lower_matmult
from .lower_select import lower_select
from .program import ProgramItem, flatten

#: IR class → its lowering ``(inst, decisions) -> the instructions it becomes``, in order. Codegen never
#: sees Select and Matmult; a next-family instruction may come back unchanged (one output).
LOWERINGS: dict[type[Instruction], Callable[[Instruction, DecisionSet], list[Instruction]]] = {
    Select: lambda inst, _ds: lower_select(inst),  # type: ignore[arg-type]
    Matmult: lambda inst, _ds: lower_matmult(inst),  # type: ignore[arg-type]
    **{t: lower_family for t in LOWERED_TYPES},
}


def lower(inst: Instruction, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[Instruction] | None:
    """The instructions ``inst`` lowers to, or None when it needs no lowering."""
    fn = LOWERINGS.get(type(inst))
    return None if fn is None else fn(inst, decisions)


def lower_item(item: ProgramItem, decisions: DecisionSet = DEFAULT_DECISIONS) -> list[ProgramItem]:
    """Lower one program item (a Select or a Matmult becomes two items, a next-family instruction one
    or two; anything else is unchanged)."""
    parts = lower(item.inst, decisions)
    if parts is None or len(parts) == 1 and parts[0] is item.inst:
        return [item]
    return [ProgramItem(item.index, p, item.function, item.source, k, len(parts), item.iteration)
            for k, p in enumerate(parts)]


__all__ = ["LOWERINGS", "ProgramItem", "flatten", "lower", "lower_item", "lower_matmult", "lower_select"]
