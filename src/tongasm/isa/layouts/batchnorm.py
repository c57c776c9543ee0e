"""Batch-norm backward layouts (the book's ``batchnorm-encoding`` page, checked against every real
bundle): BatchNormGradAccumulate 0x63 (the three per-partition sums of the backward reduction),
BatchNormParamLoad 0x64 (latch the dx coefficients, N and the mean) and BatchNormBackProp 0x65
(dx from x and dy with the latched values). The real compiler (yolox-trn1 ``batch-norm-grad``
graphs, neuronx-cc 2.14) runs them on the DVE, not the Pool engine the book names.

What the real bytes settled (57 / 55 / 55 bundles; 57 / 29 / 55 distinct): the byte the book calls
the BASE partition (+0x3F, +0x22, +0x0F) is the partition count on all three (128 or 32 while every
input starts at partition 0); 0x64's mean operand is a value word at +0x2C and a kind byte at +0x30
(the book: a 16-byte IMM_SRC at +0x30), with 1 = pointer (R-61); 0x63's mean and varfactor words
(+0x0C, +0x38) are SBUF ADDR4 words of [P, 1] columns, whose start partition may differ from the
data's (32, 64, 96 in MODULE_1245780438143524087).
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.batchnorm import BnParamLoadKinds
from ..descriptors import slot
from ..enums import WireDtype
from ..fields import Conf, EnumTable, Field, Kind
from ..layout import Binding, DtypeText, EnumText, ImmText, IntText, Layout, Sem, aps
from ..opcodes import op
from .common import V, dtype, nibble, u8, u32, zero_run

BN_GRAD_ACCUMULATE = op(0x63, "BatchNormGradAccumulate", "BNGradients", "tensor", Conf.V,
                        "the three sums of the batch-norm backward reduction of each partition")
BN_PARAM_LOAD = op(0x64, "BatchNormParamLoad", "BNBackprop", "tensor", Conf.V,
                   "latch the dx coefficients [scale, A, Bc], N and the mean (first bundle of BNBackprop)")
BN_BACKPROP = op(0x65, "BatchNormBackProp", "BNBackprop", "tensor", Conf.V,
                 "dx = (dy N - ((x - mean) Bc + A)) scale with the latched values (second bundle of BNBackprop)")

_ZERO = "zero in every real bundle (yolox-trn1); the book: zero-initialised, never written"
_PARTS = ("partitions of x: V on every real bundle (128 or 32 with x at partition 0; the book's 'BASE partition' "
          "reading is contradicted by all of them)")
_F32 = int(WireDtype.FLOAT32)


def grad_accumulate(ds: DecisionSet) -> list[Layout]:
    """0x63 (struct S3S3D1_BN): x TENSOR3D +0x10, dy TENSOR3D +0x20, the 3-element TENSOR1D out +0x30;
    the mean and varfactor pointer words at +0x0C / +0x38; dtypes and the partition count at +0x3C..+0x3F."""
    slots = (slot("x", 0x10, 3, dtype="x_dtype", conf=V),
             slot("dy", 0x20, 3, dtype="dy_dtype", conf=V),
             slot("out", 0x30, 1, dtype="out_dtype", write=True, conf=V, doc="the three sums"))
    return [Layout(
        "BatchNormGradAccumulate", (BN_GRAD_ACCUMULATE,),
        (
            u32("mean_ptr", 0x0C, V, "ADDR4 word of the [P,1] mean column (book: Mean value, self[76] encoder)",
                decision="N-6"),
            u32("varfactor_ptr", 0x38, V, "ADDR4 word of the [P,1] varfactor column (book: Varfactor value)",
                decision="N-6"),
            nibble("x_dtype", 0x3C, False, V, "wire(x dtype) (book: Ofmap, low nibble)"),
            nibble("dy_dtype", 0x3C, True, V, "wire(dy dtype) (book: OfmapGrad, high nibble)"),
            dtype("coeff_dtype", 0x3D, V, "wire(dtype of mean and varfactor) (book: in2 dtype)"),
            dtype("out_dtype", 0x3E, V, "wire(out dtype)"),
            u8("num_partitions", 0x3F, V, _PARTS),
        ),
        Sem.BN_GRAD_ACCUMULATE,
        (*aps(slots, "x"), IntText(name="mean", field="mean_ptr", hexa=True),
         IntText(name="varfactor", field="varfactor_ptr", hexa=True),
         DtypeText(name="coeff_dtype", field="coeff_dtype")),
        slots,
        binding=Binding({"x": "x", "dy": "dy", "out": "out"}, "x",
                        dtypes={"x_dtype": "x", "dy_dtype": "dy", "out_dtype": "out"}),
        checks=("bn.backward_shape",),
        pointer_reads=(("mean_ptr", "coeff_dtype"), ("varfactor_ptr", "coeff_dtype")),
        doc="out = the three sums of each partition over x and dy with the mean and varfactor columns (S-72)",
    )]


def _kind_table(ds: DecisionSet) -> EnumTable:
    return EnumTable("BN scalar kind", dict(ds.get(BnParamLoadKinds).names()))


def param_load(ds: DecisionSet) -> list[Layout]:
    """0x64 (struct S2_BN): the coefficient TENSOR2D at +0x10 ([scale, A, Bc] per partition), the float32
    N at +0x1C, its dtype and the partition count at +0x20 / +0x22, the mean operand at +0x2C / +0x30."""
    slots = (slot("coeff", 0x10, 2, dtype="coeff_dtype", conf=V, doc="[scale, A, Bc] per partition"),)
    return [Layout(
        "BatchNormParamLoad", (BN_PARAM_LOAD,),
        (
            *zero_run(0x0C, 0x04, V, _ZERO),
            u32("total_elements", 0x1C, V, "float32 N, the elements per channel (400.0, 25600.0; book C)"),
            dtype("coeff_dtype", 0x20, V, "wire(coefficient dtype) (book: s2_bn_dtype)"),
            *zero_run(0x21, 0x01, V, _ZERO),
            u8("num_partitions", 0x22, V, _PARTS),
            *zero_run(0x23, 0x09, V, _ZERO + " (s2_bn_reserved_zero)"),
            u32("mean_value", 0x2C, V, "the mean operand's value word: a pointer's ADDR4 (N-6) in every real bundle"),
            Field("mean_kind", 0x30, 1, Kind.ENUM, enum=_kind_table(ds), conf=V, decision="R-61",
                  doc="kind of the mean operand (1 = pointer in all 55 real bundles)"),
            *zero_run(0x31, 0x0F, V, _ZERO),
        ),
        Sem.BN_PARAM_LOAD,
        (*aps(slots, "coeff"), ImmText(name="n", field="total_elements", fixed_dtype=_F32),
         EnumText(name="mean_kind", field="mean_kind"), IntText(name="mean", field="mean_value", hexa=True)),
        slots,
        binding=Binding({"coeff": "coeff"}, "coeff", dtypes={"coeff_dtype": "coeff"}),
        checks=("bn.backward_shape",),
        doc="latch [scale, A, Bc], N and the mean of each partition for the next BatchNormBackProp of this engine",
    )]


def backprop(ds: DecisionSet) -> list[Layout]:
    """0x65 (struct S3S3D3_TT): x, dy and dx TENSOR3D at +0x10 / +0x20 / +0x30; the dtypes at +0x0C / +0x0D
    and the partition count at +0x0F."""
    slots = (slot("x", 0x10, 3, dtype="x_dtype", conf=V),
             slot("dy", 0x20, 3, dtype="dy_dtype", conf=V),
             slot("dx", 0x30, 3, dtype="dx_dtype", write=True, conf=V))
    return [Layout(
        "BatchNormBackProp", (BN_BACKPROP,),
        (
            nibble("x_dtype", 0x0C, False, V, "wire(x dtype) (book: Ofmap, low nibble)"),
            nibble("dy_dtype", 0x0C, True, V, "wire(dy dtype) (book: OfmapGrad, high nibble)"),
            dtype("dx_dtype", 0x0D, V, "wire(dx dtype)"),
            *zero_run(0x0E, 0x01, V, _ZERO),
            u8("num_partitions", 0x0F, V, _PARTS),
        ),
        Sem.BN_BACKPROP, tuple(aps(slots, "x")), slots,
        binding=Binding({"x": "x", "dy": "dy", "dx": "dx"}, "x",
                        dtypes={"x_dtype": "x", "dy_dtype": "dy", "dx_dtype": "dx"}),
        checks=("family.equal_elements",),
        doc="dx = (dy N - ((x - mean) Bc + A)) scale, with [scale, A, Bc], N and the mean the last "
            "BatchNormParamLoad of this engine latched",
    )]


BUILDERS = (grad_accumulate, param_load, backprop)
