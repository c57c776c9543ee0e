"""IR instructions of the act family: Activation and the accumulator reads."""

from __future__ import annotations

from ..isa.enums import AccType, AluOp, Dtype
from ..isa.vector_enums import ActFunc
from .instructions import Attr, Instruction, UnaryInstruction
from .operands import Immediate, Operand


class ActivationArgsError(ValueError):
    """Why an Activation's args[1..3] cannot be formed: ``why`` is ``"count"`` (not 4 ins, and N-8
    does not synthesise the missing ones) or ``"scale"`` (a synthesised scale without the ``scale``
    key: KLR's default scale is 0, so none is invented). The encoder and the interpreter each turn it
    into their own error."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Activation(UnaryInstruction):
    """§3.1: ``out = f(in*scale + bias; alpha)`` on the Activation engine; ins = [in, args[1],
    args[2], args[3]] (N-4 says which is the bias, the scale and alpha), outs = [out, reduce_res?]."""

    __slots__ = ()

    OPCODE = "Activation"
    FAMILY = "act"
    ROLES = {"src": (False, 0), "arg1": (False, 1), "arg2": (False, 2), "arg3": (False, 3), "dst": (True, 0),
             "reduce_res": (True, 1)}
    ATTRS = (
        Attr("func", ActFunc, required=True),
        Attr("acc", AccType, AccType.Idle),
        Attr("scale", float),
        Attr("alpha", float),
        Attr("can_read_uninit", bool, False),
        Attr("is_activate2", bool, False),
        Attr("op0", AluOp, AluOp.bypass),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("reverse0", bool, False),
        Attr("reverse1", bool, False),
        Attr("reduce_op", AluOp, AluOp.bypass),
    )


    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)

    def arg(self, k: int) -> Operand | None:
        """args[k] (1..3)."""
        return self._in(k)

    def args(self, roles: tuple[str, str, str], synthesize: bool) -> list[Operand | None]:
        """args[1..3] with the roles ``roles`` (N-4). With 1 or 2 ins and ``synthesize`` (N-8) the
        missing ones are float32 immediates: the bias 0.0, the scale the ``scale`` key (required),
        alpha the ``alpha`` key (0.0 without it). Raises :class:`ActivationArgsError`."""
        n = len(self.ins)
        if n == 4:
            return [self.arg(1), self.arg(2), self.arg(3)]
        if n not in (1, 2) or not synthesize:
            raise ActivationArgsError("count")
        out: list[Operand | None] = []
        for k in (1, 2, 3):
            if k < n:
                out.append(self.arg(k))
                continue
            role = roles[k - 1]
            if role == "scale":
                v = self.attr("scale")
                if v is None:
                    raise ActivationArgsError("scale")
            elif role == "alpha":
                v = self.attr("alpha") or 0.0
            else:
                v = 0.0
            out.append(Immediate(Dtype.float32, float(v)))
        return out


class ActivationReadAccumulator(Instruction):
    """§3.2 (IT101): dst[p, 0] = the Activation engine's accumulator; ins = [], outs = [dst]."""

    __slots__ = ()

    OPCODE = "ActivationReadAccumulator"
    FAMILY = "act"
    ROLES = {"dst": (True, 0)}

    @property
    def dst(self) -> Operand | None:
        return self._out(0)


class ReadActivationAccumulator(ActivationReadAccumulator):
    """§3.2 (IT5): the same instruction under its other BIR name."""

    __slots__ = ()

    OPCODE = "ReadActivationAccumulator"


class DveReadAccumulator(Instruction):
    """§4.2: dst[p, 0] = (negated ? -1 : 1) x the DVE accumulator; ins = [], outs = [dst]."""

    __slots__ = ()

    OPCODE = "DveReadAccumulator"
    ROLES = {"dst": (True, 0)}
    ATTRS = (Attr("negated", bool, False),)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)
