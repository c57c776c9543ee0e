"""R-18: the stream prologue of the real NEFFs.

Every stream of both real NEFFs starts with SetOrderingMode (mode 0) and PseudoBranchLabel, whose
bodies are zero and which no BIR instruction produces. Under ``R-18=prologue`` the program tongasm
encodes starts with that pair on each of the SP, Pool, PE, Activation and DVE streams (the order of
the real files' members); under the default, only where the kernel has the instructions.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from ..isa.decisions import DecisionSet
from ..isa.decisions.control import StreamPrologue
from ..isa.enums import Engine
from ..ir.instructions import Function, Instruction, instruction_class
from ..ir.operands import FrozenMap
from .program import Walked

#: The streams a real NEFF has, in its members' order (sp, pool, pe, act, dve).
PROLOGUE_ENGINES = (Engine.SP, Engine.Pool, Engine.PE, Engine.Activation, Engine.DVE)
_NO_ATTRS = FrozenMap()


def prologue_instructions() -> list[Instruction]:
    """SetOrderingMode and PseudoBranchLabel for each engine (named ``R-18-prologue``)."""
    out: list[Instruction] = []
    for name in ("SetOrderingMode", "PseudoBranchLabel"):
        assert instruction_class(name) is not None, name
    for engine in PROLOGUE_ENGINES:
        for name in ("SetOrderingMode", "PseudoBranchLabel"):
            cls = instruction_class(name)
            assert cls is not None
            out.append(cls("R-18-prologue", engine, (), (), _NO_ATTRS, None))
    return out


def with_prologue(walked: Iterator[Walked], function: Function, decisions: DecisionSet) -> Iterator[Walked]:
    """The walked program, preceded by the prologue when R-18 says so."""
    if decisions.get(StreamPrologue).prologue:
        return chain([(inst, function, ()) for inst in prologue_instructions()], walked)
    return walked
