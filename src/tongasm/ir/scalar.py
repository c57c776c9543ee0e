"""IR instructions of the scalar family: TensorScalarPtr (and the Pool engine's TensorScalarAddr),
TensorScalarCache, TensorScalar and ScalarTensorTensor, whose encoding needs selection logic (their
codegen is :mod:`tongasm.codegen.scalar`).

BIR keys and operand lists follow the verification's §7 (JSON page, KLR-BIR): ``TensorScalarPtr``
``op0``, ``op1``, ``reverse0``, ``reverse1``, ``acc`` ..., ``ins = [data, s0, s1?]`` (with
``is_scalar_tensor_tensor`` / ``is_tensor_tensor_scan``: ``ins = [tensor0, scalar, tensor1]``, lowered
to :class:`ScalarTensorTensor`); ``TensorScalar`` (IT28) ``op0``, ``const0``, ``reverse0``, ``op1``,
``const1``, ``reverse1``. The other vector families' IR classes live in :mod:`.act`, :mod:`.reduce`,
:mod:`.move`, :mod:`.search` and :mod:`.batchnorm`; Reciprocal and LoadActFuncSet are declared by their
layout records (:class:`~tongasm.isa.layout.BirForm`) and need no class.
"""

from __future__ import annotations

from ..isa.enums import AccType, AluOp
from ..isa.vector_enums import TSCMode
from .instructions import Attr, Instruction
from .operands import Operand


class TensorScalarPtr(Instruction):
    """§4.1 (IT29): ``out = op1(op0(data, s0), s1)``; ins = [data, s0, s1?] (each scalar an
    immediate, a register or a [P,1] pointer), outs = [dst, reduce_res?] (the fused reduce, N-19)."""

    __slots__ = ()

    OPCODE = "TensorScalarPtr"
    ROLES = {"data": (False, 0), "s0": (False, 1), "s1": (False, 2), "dst": (True, 0), "reduce_res": (True, 1)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("reverse0", bool, False),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("reverse1", bool, False),
        Attr("apply_transpose", bool, False),
        Attr("is_tensor_scalar_addr", bool, False),
        Attr("is_scalar_tensor_tensor", bool, False),
        Attr("is_tensor_tensor_scan", bool, False),
        Attr("negate_second_output", bool, False),
        Attr("acc", AccType, AccType.Idle),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)


class TensorScalarAddr(TensorScalarPtr):
    """A TensorScalarPtr with ``is_tensor_scalar_addr`` set, as the lowering hands it to codegen: the Pool
    engine's address arithmetic 0x74 (R-70, R-71): ins = [data, s0, s1?] (each scalar an immediate or a
    [P,1] pointer), outs = [dst]. The BIR writer gives it back as the TensorScalarPtr it came from."""

    __slots__ = ()

    FAMILY = "pool"


class ScalarTensorTensor(Instruction):
    """§4.4: a TensorScalarPtr with ``is_scalar_tensor_tensor`` or ``is_tensor_tensor_scan`` set, as the
    lowering hands it to codegen (its operands have their own roles and slots, N-21): ins = [tensor0,
    scalar, tensor1] (the scalar an immediate, a register or a [P,1] pointer; tensor1 an access
    pattern), outs = [out]; ``out = op1(op0(tensor0, scalar), tensor1)`` (0x9D / 0x9E), or the scan
    0xE5 ``out[i] = op1(op0(tensor0[i], out[i-1]), tensor1[i])`` from the scalar (S-38). The BIR
    writer gives it back as the TensorScalarPtr it came from."""

    __slots__ = ()

    OPCODE = "TensorScalarPtr"
    ROLES = {"tensor0": (False, 0), "scalar": (False, 1), "tensor1": (False, 2), "out": (True, 0)}
    ATTRS = TensorScalarPtr.ATTRS

    @property
    def tensor0(self) -> Operand | None:
        return self._in(0)

    @property
    def scalar(self) -> Operand | None:
        return self._in(1)

    @property
    def tensor1(self) -> Operand | None:
        return self._in(2)

    @property
    def out(self) -> Operand | None:
        return self._out(0)

    @property
    def scan(self) -> bool:
        """The tensor-tensor scan 0xE5 (``is_tensor_tensor_scan``)."""
        return bool(self.attr("is_tensor_tensor_scan"))


def is_scalar_tensor_tensor(inst: Instruction) -> bool:
    """Whether a TensorScalarPtr is the ScalarTensorTensor form (§4.4: the book's dispatcher takes
    ``is_scalar_tensor_tensor`` or the scan tag ``is_tensor_tensor_scan``)."""
    return bool(inst.attr("is_scalar_tensor_tensor") or inst.attr("is_tensor_tensor_scan"))


class TensorScalarCache(Instruction):
    """§4.3: ``mode`` Reduce → 0x9A, Cumulative / TensorScan → 0xE6; ins = [data, s0, s1?] (s1 only with
    LoadAccumulate), outs = [dst, reduce_res?]. DVE only."""

    __slots__ = ()

    OPCODE = "TensorScalarCache"
    ROLES = {"data": (False, 0), "s0": (False, 1), "s1": (False, 2), "dst": (True, 0), "reduce_res": (True, 1)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("op1", AluOp, required=True),
        Attr("reverse0", bool, False),
        Attr("reverse1", bool, False),
        Attr("mode", TSCMode, TSCMode.Reduce),
        Attr("acc", AccType, AccType.Idle),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)

    @property
    def reduce_res(self) -> Operand | None:
        return self._out(1)


class TensorScalar(Instruction):
    """§4.1 (IT28): immediate constants; ins = [data], outs = [dst]. Encoded as TensorScalarPtr
    with float32 immediates (N-20)."""

    __slots__ = ()

    OPCODE = "TensorScalar"
    ROLES = {"data": (False, 0), "dst": (True, 0)}
    ATTRS = (
        Attr("op0", AluOp, required=True),
        Attr("const0", float, 0.0),
        Attr("reverse0", bool, False),
        Attr("op1", AluOp, AluOp.bypass),
        Attr("const1", float, 0.0),
        Attr("reverse1", bool, False),
    )

    @property
    def data(self) -> Operand | None:
        return self._in(0)

    @property
    def dst(self) -> Operand | None:
        return self._out(0)






# --- the families real compiler output is made of: data movement, search, batch-norm backward ---------
