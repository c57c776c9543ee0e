"""The enumerations and tables of the next families (``next-families.md`` §2): the activation
functions (BIR ``ActivationFunctionType`` → wire function byte, §2.1), the activation function sets
a ``LoadActFuncSet`` (0x23) installs (§2.2), ``AxisListType`` (§2.4), ``PoolFunctionType``,
``TSCMode`` and the kinds of a scalar operand (§2.5).

Everything here is data, declared once; the choices the sources leave open live in
:mod:`tongasm.isa.decisions.scalar` (N-n). The activation table is the book's 30-entry LUT
(ACT, read_file id 60160079624: ``1 30 2 3 4 5 6 7 9 8 29 10 21 19 28 31 23 24 25 26 38 32 22 128 33 129
34 36 37 35``) with CAT's 31 BIR members (id 59913247903); eleven of its bytes are the ``func_id`` of
the real NEFF's ``sg00/exp_and_others.json`` (tests/test_vector_enums.py checks them against the file
when the NEFF is at hand). The sets are the NEFF's ``act_info.json`` (trainium profile, 21 sets).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from collections.abc import Mapping

from .enums import AluOp
from .fields import EnumTable


class ActFunc(enum.IntEnum):
    """``bir::ActivationFunctionType`` (2.24, CAT §1.1): member names are the BIR JSON spellings."""

    Identity = 0
    Square = 1
    Relu = 2
    Lrelu = 3
    Prelu = 4
    Sigmoid = 5
    Tanh = 6
    Exp = 7
    Softplus = 8
    Sqrt = 9
    Rsqrt = 10
    Ln = 11
    Erf = 12
    Sin = 13
    Arctan = 14
    Sign = 15
    Gelu = 16
    Mish = 17
    Gelu_apprx_tanh = 18
    Gelu_apprx_sigmoid = 19
    Derivative_Gelu_apprx_sigmoid = 20
    Derivative_Gelu = 21
    Derivative_Erf = 22
    Copy = 23
    Abs = 24
    Reciprocal = 25
    Abs_reciprocal_sqrt = 26
    Silu = 27
    Derivative_silu = 28
    Is_finite = 29
    Unknown = 30


@dataclass(frozen=True)
class ActFuncInfo:
    """One row of chapter §2.1: the wire byte, the PWP name, whether the function is hardwired
    (resident in every set), whether the real NEFF confirms the byte, and the closed form the
    simulator computes (S-21)."""

    func: ActFunc
    wire: int
    pwp: str
    hardwired: bool
    neff_confirmed: bool
    formula: str
    nki: str | None = None


def _f(func: ActFunc, wire: int, pwp: str, formula: str, *, hard: bool = False, neff: bool = False,
       nki: str | None = None) -> ActFuncInfo:
    return ActFuncInfo(func, wire, pwp, hard, neff, formula, nki)


A = ActFunc
#: Chapter §2.1 (C: ACT's LUT; CAT's ids agree for all 30; NEFF: the eleven ``neff`` rows).
ACT_FUNCS: Mapping[ActFunc, ActFuncInfo] = {i.func: i for i in (
    _f(A.Identity, 1, "identity", "v", hard=True, neff=True, nki="nl.copy"),
    _f(A.Square, 30, "square", "v*v", hard=True, neff=True, nki="nl.square"),
    _f(A.Relu, 2, "relu", "max(v, 0)", hard=True, neff=True, nki="nl.relu"),
    _f(A.Lrelu, 3, "leaky_relu", "v <= 0 ? 0.01*v : v (the slope is fixed; alpha unused)", hard=True, neff=True),
    _f(A.Prelu, 4, "parametric_relu", "v <= 0 ? alpha*v : v", hard=True, neff=True),
    _f(A.Sigmoid, 5, "sigmoid", "1/(exp(-v) + 1)", nki="nl.sigmoid"),
    _f(A.Tanh, 6, "tanh", "tanh(v)", neff=True, nki="nl.tanh"),
    _f(A.Exp, 7, "exp", "exp(v)", neff=True, nki="nl.exp"),
    _f(A.Softplus, 9, "softplus", "log1p(exp(-|v|)) + max(v, 0)", nki="nl.softplus"),
    _f(A.Sqrt, 8, "sqrt", "sqrt(v) (NaN for v < 0)", nki="nl.sqrt"),
    _f(A.Rsqrt, 29, "reciprocal_sqrt", "1/sqrt(v)", nki="nl.rsqrt"),
    _f(A.Ln, 10, "ln", "log(v)", nki="nl.log"),
    _f(A.Erf, 21, "erf", "erf(v)", nki="nl.erf"),
    _f(A.Sin, 19, "sin", "sin(v)", nki="nl.sin"),
    _f(A.Arctan, 28, "arctan", "atan(v)", nki="nl.arctan"),
    _f(A.Sign, 31, "sign", "(v > 0) - (v < 0)", hard=True, neff=True, nki="nl.sign"),
    _f(A.Gelu, 23, "gelu", "0.5*v*(erf(v/sqrt(2)) + 1)", nki="nl.gelu"),
    _f(A.Mish, 24, "mish", "v*tanh(softplus(v))", nki="nl.mish"),
    _f(A.Gelu_apprx_tanh, 25, "gelu_apprx_tanh", "0.5*v*(tanh((0.044715*v^3 + v)*0.7978845608028654) + 1)",
       nki="nl.gelu_apprx_tanh"),
    _f(A.Gelu_apprx_sigmoid, 26, "gelu_apprx_sigmoid", "v*sigmoid(1.702*v)", nki="nl.gelu_apprx_sigmoid"),
    _f(A.Derivative_Gelu_apprx_sigmoid, 38, "derivative_gelu_apprx_sigmoid",
       "u = 1.702*v: (u + e^u + 1)*e^u/(e^u + 1)^2"),
    _f(A.Derivative_Gelu, 32, "derivative_gelu", "0.5*(erf(v/sqrt(2)) + 1) + v*0.3989423*exp(-v^2/2)",
       nki="nl.gelu_dx"),
    _f(A.Derivative_Erf, 22, "derivative_erf", "1.1283792*exp(-v^2)", nki="nl.erf_dx"),
    _f(A.Copy, 128, "copy", "v", hard=True, neff=True),
    _f(A.Abs, 33, "abs", "|v|", hard=True, neff=True, nki="nl.abs"),
    _f(A.Reciprocal, 129, "reciprocal", "1/v", nki="nl.reciprocal"),
    _f(A.Abs_reciprocal_sqrt, 34, "abs_reciprocal_sqrt", "1/sqrt(|v|)"),
    _f(A.Silu, 36, "silu", "v/(exp(-v) + 1)", nki="nl.silu"),
    # the chapter (and SIMACT) print (v*e^v + 1)*e^v/(e^v + 1)^2, which is not d/dv[v*sigmoid(v)]
    # (0.25 at 0, the derivative is 0.5): the corrected form (verification finding #5)
    _f(A.Derivative_silu, 37, "derivative_silu", "e^v*(v + e^v + 1)/(e^v + 1)^2", nki="nl.silu_dx"),
    _f(A.Is_finite, 35, "is_finite", "isfinite(v) ? 1 : 0", hard=True, neff=True),
)}
#: BIR function → wire byte at 0x21 +0x23 (ordinal 30, Unknown, has none).
ACT_FUNC_WIRE: Mapping[ActFunc, int] = {f: i.wire for f, i in ACT_FUNCS.items()}
ACT_FUNC_FROM_WIRE: Mapping[int, ActFunc] = {w: f for f, w in ACT_FUNC_WIRE.items()}
ACT_FUNC_TABLE = EnumTable("activation function", {w: f.name for f, w in ACT_FUNC_WIRE.items()})
ACT_FUNC_INVALID_MSG = "Invalid enum variant for enum ActivationFunctionType"
#: N-26: the NKI names (with their ``nl.`` prefix, so ``nl.copy`` = Identity cannot be mistaken for BIR Copy).
ACT_FUNC_ALIASES: Mapping[str, ActFunc] = {i.nki.lower(): f for f, i in ACT_FUNCS.items() if i.nki} | {
    "nl.prelu": A.Prelu, "nl.gelu_apprx_sigmoid_dx": A.Derivative_Gelu_apprx_sigmoid}
#: N-26: spellings of the Feb-2025 KLR order with no 2.24 member (their ordinals do not match 2.24).
ACT_FUNC_PRE_224: Mapping[str, str] = {
    n.lower(): n for n in ("Ln_prime", "Dsqrt", "MemsetZero")}


# --- function sets (chapter §2.2; NEFF act_info.json, trainium profile) -----------------------------

#: The 13 PWP functions resident in every trainium set (the intersection of the 21 ``act`` maps).
RESIDENT_PWP = frozenset({"abs", "copy", "derivative_identity", "derivative_leaky_relu", "derivative_relu",
                          "identity", "is_finite", "leaky_relu", "memset_zero", "parametric_relu", "relu", "sign",
                          "square"})


@dataclass(frozen=True)
class ActSet:
    """One activation function set: its id (``act_func_set_id``), name and the LUT functions it
    holds besides the residents."""

    id: int
    name: str
    luts: frozenset[ActFunc]

    def holds(self, f: ActFunc) -> bool:
        return ACT_FUNCS[f].hardwired or f in self.luts


def _s(i: int, name: str, *fs: ActFunc) -> ActSet:
    return ActSet(i, name, frozenset(fs))


ACT_SETS: tuple[ActSet, ...] = (
    _s(0, "exp_and_others", A.Exp, A.Tanh),
    _s(1, "softplus_and_others", A.Softplus),
    _s(2, "sigmoid_and_others", A.Sigmoid, A.Tanh, A.Erf, A.Arctan),
    _s(3, "sqrt_and_others", A.Sqrt),
    _s(4, "small"),
    _s(5, "natural_log", A.Ln),
    _s(6, "natural_log_exp_and_others", A.Ln, A.Exp),
    _s(7, "sigmoid_derivative"),
    _s(8, "tanh_and_derivative", A.Tanh),
    _s(9, "trig_and_small", A.Sin, A.Arctan),
    _s(10, "gelu_and_others", A.Gelu, A.Derivative_Gelu, A.Tanh),
    _s(11, "gelu_apprx_tanh_and_others", A.Gelu_apprx_tanh, A.Tanh),
    _s(12, "gelu_apprx_sigmoid_and_others", A.Gelu_apprx_sigmoid, A.Tanh),
    _s(13, "reciprocal_and_small", A.Reciprocal),
    _s(14, "reciprocal_sqrt_and_small", A.Rsqrt),
    _s(15, "abs_reciprocal_sqrt_and_small", A.Abs_reciprocal_sqrt),
    _s(16, "mish_and_others", A.Mish),
    _s(17, "erf_derivative", A.Derivative_Erf),
    _s(18, "silu_and_others", A.Silu, A.Tanh, A.Sin),
    _s(19, "derivative_silu_and_others", A.Derivative_silu, A.Tanh, A.Sin),
    _s(20, "derivative_gelu_apprx_sigmoid_and_others", A.Derivative_Gelu_apprx_sigmoid, A.Tanh),
)


def sets_holding(f: ActFunc) -> tuple[int, ...]:
    """The ids of the sets in which function ``f`` is resident."""
    return tuple(s.id for s in ACT_SETS if s.holds(f))


# --- AxisListType, PoolFunctionType, TSCMode (chapter §2.4, §2.5) ------------------------------------

class AxisList(enum.IntEnum):
    """``bir::AxisListType`` (PENG ``AxisListType2string``, C)."""

    X = 0
    XY = 1
    XYZ = 2
    XYZW = 3
    XYZWC = 4
    C = 5

    @property
    def free_pairs(self) -> int:
        """How many trailing free pairs a free-axis value names (X = 1 ... XYZW = 4); 0 for the
        cross-lane values."""
        return int(self) + 1 if self <= AxisList.XYZW else 0


class PoolFunc(enum.IntEnum):
    """``PoolFunctionType``: Max 0 → wire 1, Avg 1 → wire 2 (POOL, C)."""

    Max = 0
    Avg = 1


POOL_FUNC_WIRE: Mapping[PoolFunc, int] = {PoolFunc.Max: 1, PoolFunc.Avg: 2}
POOL_FUNC_TABLE = EnumTable("pool function", {w: f.name for f, w in POOL_FUNC_WIRE.items()})
POOL_FUNC_INVALID_MSG = "has unimplemented Pooling type"


class TSCMode(enum.IntEnum):
    """``TSCMode`` of TensorScalarCache: Reduce → 0x9A, Cumulative and TensorScan → 0xE6 (TS, C)."""

    Reduce = 0
    Cumulative = 1
    TensorScan = 2


TSC_MODE_INVALID_MSG = "Unhandled TSCMode"


class ScalarKind(enum.Enum):
    """What a scalar operand of Activation / TensorScalar is (chapter §1.3, IMM_SRC): its wire code
    is decision N-2."""

    POINTER = "pointer"  # one element per partition in SBUF/PSUM (a [P,1] access pattern)
    IMMEDIATE = "immediate"  # an instruction immediate (its bit pattern)
    REGISTER = "register"  # a register's 32 bits


#: The NKI "Legal Reduction" operators (``nki.api.shared.rst``), N-14's default gate.
NKI_REDUCE_OPS = frozenset({AluOp.add, AluOp.subtract, AluOp.mult, AluOp.max, AluOp.min, AluOp.bitwise_and,
                            AluOp.bitwise_or, AluOp.bitwise_xor, AluOp.logical_and, AluOp.logical_or,
                            AluOp.logical_xor})
#: N-30: the identity a reset accumulator takes for each reduce operator (NKI tensor_scalar_reduce).
REDUCE_IDENTITY: Mapping[AluOp, float] = {AluOp.add: 0.0, AluOp.subtract: 0.0, AluOp.mult: 1.0,
                                          AluOp.max: float("-inf"), AluOp.min: float("inf")}

#: BIR JSON enums of these families whose values a reader also accepts under another name (N-26)
#: or refuses with a specific message.
ENUM_ALIASES: Mapping[type, Mapping[str, enum.Enum]] = {ActFunc: ACT_FUNC_ALIASES}
ENUM_REFUSED: Mapping[type, Mapping[str, str]] = {
    ActFunc: {k: (f"activation function {v!r} is a pre-2.24 spelling with no bir::ActivationFunctionType "
                  f"member in neuronx-cc 2.24 (N-26); the 2.24 functions are: "
                  + ", ".join(f.name for f in ActFunc if f is not ActFunc.Unknown))
              for k, v in ACT_FUNC_PRE_224.items()}}
