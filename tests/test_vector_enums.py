"""The next families' tables against their sources: the activation LUT against the book's byte list
and the real NEFF's ``exp_and_others.json`` (the final word on the eleven ids it carries), the
function sets against the NEFF's ``act_info.json``, and the research table
``docs/research/activation-functions.json`` (written independently, from the book pages and the NEFF)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from neff_support import small
from tongasm.isa.decisions import DecisionSet
from tongasm.isa.vector_enums import (
    ACT_FUNC_WIRE, ACT_FUNCS, ACT_SETS, RESIDENT_PWP, ActFunc, AxisList, sets_holding,
)
from tongasm.neff import read_neff
from tongasm.sim.kernels import ACT_FORMULAS, activation_value

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = json.loads((ROOT / "docs" / "research" / "activation-functions.json").read_text())
#: ACT (read_file id 60160079624): byte_1DF57A0, the 30-entry ActivationFunc map, by BIR ordinal.
BOOK_LUT = [1, 30, 2, 3, 4, 5, 6, 7, 9, 8, 29, 10, 21, 19, 28, 31, 23, 24, 25, 26, 38, 32, 22, 128, 33, 129, 34, 36,
            37, 35]


def test_the_lut_is_the_books_byte_list() -> None:
    assert [ACT_FUNC_WIRE[ActFunc(i)] for i in range(30)] == BOOK_LUT
    assert ActFunc.Unknown not in ACT_FUNC_WIRE  # ordinal 30 has no byte: refused


def test_the_lut_agrees_with_the_research_table() -> None:
    for f in RESEARCH["functions"]:
        func = ActFunc(f["bir_ordinal"])
        assert func.name == f["bir_name"]
        if func is ActFunc.Unknown:
            continue
        assert ACT_FUNC_WIRE[func] == f["wire"], func
        assert ACT_FUNCS[func].pwp == f["pwp_name"] and ACT_FUNCS[func].hardwired == f["hardwired"], func
        assert sets_holding(func) == tuple(f["sets"]), func


def _neff_json(name: str) -> dict:
    neff = read_neff(small())
    return json.loads(neff.members[f"sg00/{name}"])


def test_the_eleven_function_ids_of_the_real_neff() -> None:
    """``sg00/exp_and_others.json`` carries each PWP function's ``func_id``: the wire byte (V)."""
    data = _neff_json("exp_and_others.json")
    ids = {e["func_name"].rsplit("_", 1)[0]: e["func_id"] for e in data["profile_meta_data"]}  # exp_400p → exp
    by_pwp = {i.pwp: (f, i) for f, i in ACT_FUNCS.items()}
    confirmed = {f for f, i in ACT_FUNCS.items() if i.neff_confirmed}
    seen = set()
    for pwp, fid in ids.items():
        if pwp in by_pwp:
            f, info = by_pwp[pwp]
            assert info.wire == fid, (pwp, info.wire, fid)
            seen.add(f)
    assert seen == confirmed and len(confirmed) == 11


def test_the_sets_are_the_neffs_act_info() -> None:
    """``sg00/act_info.json`` (the trainium profile): 21 sets; a BIR function is in a set iff its PWP
    name is in the set's ``act`` map; the residents are the intersection of all 21."""
    data = _neff_json("act_info.json")
    sets = data["act_func_sets"]
    assert len(sets) == len(ACT_SETS) == 21
    common = None
    for k, s in enumerate(sets):
        names = set(s["act"])
        common = names if common is None else common & names
        assert s["name"] == ACT_SETS[k].name
        for f, info in ACT_FUNCS.items():
            assert ACT_SETS[k].holds(f) == (info.pwp in names), (k, f)
    assert common == RESIDENT_PWP


def test_axis_list_free_pairs() -> None:
    assert [a.free_pairs for a in AxisList] == [1, 2, 3, 4, 0, 0]


# --- the maths (S-21): every closed form against numpy / math in float64 ---------------------------

V = np.array([-3.0, -1.25, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.75], np.float32)


def _erf(x: float) -> float:
    return math.erf(x)


EXACT = {
    ActFunc.Identity: lambda v: v, ActFunc.Copy: lambda v: v, ActFunc.Square: lambda v: v * v,
    ActFunc.Relu: lambda v: max(v, 0.0), ActFunc.Lrelu: lambda v: v * 0.01 if v <= 0 else v,
    ActFunc.Prelu: lambda v: v * 0.25 if v <= 0 else v, ActFunc.Sigmoid: lambda v: 1 / (1 + math.exp(-v)),
    ActFunc.Tanh: math.tanh, ActFunc.Exp: math.exp, ActFunc.Softplus: lambda v: math.log1p(math.exp(v)),
    ActFunc.Sign: lambda v: float((v > 0) - (v < 0)), ActFunc.Abs: abs, ActFunc.Erf: _erf,
    ActFunc.Sin: math.sin, ActFunc.Arctan: math.atan,
    ActFunc.Gelu: lambda v: 0.5 * v * (1 + _erf(v / math.sqrt(2))),
    ActFunc.Mish: lambda v: v * math.tanh(math.log1p(math.exp(v))),
    ActFunc.Gelu_apprx_tanh: lambda v: 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))),
    ActFunc.Gelu_apprx_sigmoid: lambda v: v / (1 + math.exp(-1.702 * v)),
    # d/dv [v*sigmoid(v)] = sigmoid(v) * (1 + v*(1 - sigmoid(v))): the corrected form (finding #5)
    ActFunc.Derivative_silu: lambda v: (1 / (1 + math.exp(-v))) * (1 + v * (1 - 1 / (1 + math.exp(-v)))),
    ActFunc.Silu: lambda v: v / (1 + math.exp(-v)), ActFunc.Is_finite: lambda v: 1.0,
    ActFunc.Derivative_Erf: lambda v: 2 / math.sqrt(math.pi) * math.exp(-v * v),
    ActFunc.Derivative_Gelu: lambda v: 0.5 * (1 + _erf(v / math.sqrt(2))) + v * math.exp(-v * v / 2) / math.sqrt(
        2 * math.pi),
    ActFunc.Derivative_Gelu_apprx_sigmoid: lambda v: (lambda s: s + 1.702 * v * s * (1 - s))(
        1 / (1 + math.exp(-1.702 * v))),
}


@pytest.mark.parametrize("reading", ["fp32", "f64-once"])
@pytest.mark.parametrize("func", sorted(EXACT, key=int), ids=lambda f: f.name)
def test_closed_forms_match_the_maths(func: ActFunc, reading: str) -> None:
    ds = DecisionSet.parse([f"S-21={reading}"])
    got = activation_value(func, V.copy(), np.float32(0.25), ds)
    want = np.array([EXACT[func](float(v)) for v in V], np.float64)
    # float32 evaluation: a few ulps; the printed constants (0.3989423, 1.1283792) are 7-digit values
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-6, atol=2e-7)


def test_every_function_has_a_closed_form() -> None:
    assert set(ACT_FORMULAS) == set(ACT_FUNC_WIRE)
    assert set(EXACT) | {ActFunc.Sqrt, ActFunc.Rsqrt, ActFunc.Ln, ActFunc.Reciprocal,
                         ActFunc.Abs_reciprocal_sqrt} == set(ACT_FUNC_WIRE)


def test_the_positive_domain_functions() -> None:
    v = np.array([1e-3, 0.5, 2.0, 100.0], np.float32)
    for func, f in {ActFunc.Sqrt: math.sqrt, ActFunc.Rsqrt: lambda x: 1 / math.sqrt(x), ActFunc.Ln: math.log,
                    ActFunc.Reciprocal: lambda x: 1 / x, ActFunc.Abs_reciprocal_sqrt: lambda x: 1 / math.sqrt(x)}.items():
        got = activation_value(func, v, 0.0, DecisionSet())
        np.testing.assert_allclose(got, [f(float(x)) for x in v], rtol=2e-7)
