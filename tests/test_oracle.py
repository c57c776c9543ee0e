"""tongasm.oracle: corpus NEFFs on the simulator against independent references.

The attention-trn2 graphs are checked against their kernel source's own numpy function (no jax
needed); the XLA side of the yolox-trn1 references needs jax (``pip install -e '.[oracle]'``) and is
skipped without it. Expectations are computed here, independently of the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from corpus_support import corpus_dir
from tongasm.isa.decisions import DecisionSet
from tongasm.oracle.compare import Tolerance, compare
from tongasm.oracle.harness import check_neff, from_neff, numpy_function, to_neff


def _attention(q, k, v):
    s = q.T.astype(np.float64) @ k.astype(np.float64)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v.T.astype(np.float64)


# --- the comparison ----------------------------------------------------------------------------------------

def test_exact_compare_sees_bits():
    ref = np.array([0.0, 1.0, np.nan], np.float32)
    exact = Tolerance(2.0**-24, 1, exact=True)
    assert compare("x", ref.copy(), ref, exact).matched  # NaN equals NaN
    neg = np.array([-0.0, 1.0, np.nan], np.float32)
    c = compare("x", neg, ref, exact)
    assert not c.matched and c.mismatches == 1
    assert not compare("x", np.array([0.0, np.nextafter(np.float32(1), np.float32(2)), np.nan], np.float32), ref,
                       exact).matched


def test_tolerance_formula():
    tol = Tolerance(2.0**-8, 100, exact=False)  # 8u|ref| + K u_acc M, u_acc = 2^-24
    ref = np.array([1.0, 0.5, -2.0])
    allowed = 8 * 2.0**-8 * np.abs(ref) + 100 * 2.0**-24 * 2.0
    assert compare("x", ref + allowed * 0.99, ref, tol).matched
    c = compare("x", ref + np.array([0, 0, allowed[2] * 1.01]), ref, tol)
    assert not c.matched and c.mismatches == 1 and 1.0 < c.worst_ratio < 1.02


def test_byte_mapping_of_wider_hlo_types():
    v = np.array([3, -2], np.int64)  # HLO s64[2] held by the NEFF as int32[4]
    n = to_neff(v, np.dtype(np.int32), (4,), 16, "x")
    assert n.tolist() == [3, 0, -2, -1]
    assert from_neff(n, np.dtype(np.int64), (2,), "x").tolist() == [3, -2]
    b = np.array([[True, False, True]])  # pred[1,3] as uint8[1,3]
    assert to_neff(b, np.dtype(np.uint8), (1, 3), 3, "p").tolist() == [[1, 0, 1]]


# --- attention-trn2 against its kernel source's numpy reference ----------------------------------------------

def test_numpy_function_is_the_source_text():
    src = corpus_dir() / "attention-trn2" / "source" / "kernels" / "baseline" / "attention.py"
    f = numpy_function(src, "numpy_attention")
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((8, 16)) for _ in range(3))
    np.testing.assert_allclose(f(q, k, v), _attention(q, k, v), rtol=1e-12)


@pytest.mark.parametrize("name", ["fused_fp32_s512", "baseline_bf16_s512"])
def test_s110_attention_matches_its_reference(name):
    r = check_neff(corpus_dir() / "attention-trn2" / f"{name}.neff", seed=1)
    assert r.ran and r.reference == "numpy", r.why
    (out,) = r.outputs
    assert out.matched, (out.max_error, out.worst_ratio)
    # independent of the harness: the max error is what the output dtype allows
    assert out.max_error < (2.5e-3 if "bf16" in name else 1e-5)


def test_s110_whole_passes_double_the_fp32_products():
    """Under S-110's other reading the fp32 graph computes 2 Q^T K and disagrees."""
    r = check_neff(corpus_dir() / "attention-trn2" / "fused_fp32_s512.neff", seed=1,
                   decisions=DecisionSet.parse(["S-110=whole"]))
    assert r.ran and r.matched is False and r.max_error > 0.1


def test_graph_without_a_reference_says_so():
    r = check_neff(corpus_dir() / "causal-attention-trn1" / "model_3c6ff38f.neff")
    assert r.matched is None and r.why.startswith("no reference")


# --- the XLA side (needs jax) --------------------------------------------------------------------------------

def _hlo(name):
    pytest.importorskip("jax")
    from tongasm.oracle.xla import load_hlo

    return load_hlo((corpus_dir() / "yolox-trn1" / f"{name}.hlo.pb").read_bytes())


def test_hlo_names_and_run_iou_count():
    from tongasm.oracle.xla import run_hlo

    m = _hlo("MODULE_10047695098172950179")  # count of zero-overlap widths of two box sets
    assert [(p.name, p.shape) for p in m.parameters] == [("input0", ()), ("input1", (4, 4)), ("input2", (4, 4))]
    assert [(r.name, str(r.dtype)) for r in m.results] == [("output0", "int64")]
    rng = np.random.default_rng(5)
    s = np.float32(2.0)
    a, b = rng.integers(0, 3, (4, 4)).astype(np.float32), rng.integers(0, 3, (4, 4)).astype(np.float32)
    out = run_hlo(m, {"input0": np.array(s), "input1": a, "input2": b})["output0"]
    lo = np.maximum(b[:, :2] - b[:, 2:] / s, a[:, :2] - a[:, 2:] / s)
    hi = np.minimum(b[:, :2] + b[:, 2:] / s, a[:, :2] + a[:, 2:] / s)
    assert int(out) == int(np.count_nonzero(hi - lo == 0))


def test_hlo_scatter_one_hot():
    from tongasm.oracle.xla import run_hlo

    m = _hlo("MODULE_11369514141456202230")  # f32[9] class ids -> f32[9,80] one-hot
    ids = np.array([0, 5, 79, 3, 3, 1, 2, 40, 7], np.float32)
    out = run_hlo(m, {"input0": ids})["output0"]
    assert out.shape == (9, 80) and (out == np.eye(80, dtype=np.float32)[ids.astype(int)]).all()


def test_custom_calls_have_no_reference():
    from tongasm.oracle.xla import OracleUnavailable, run_hlo

    m = _hlo("MODULE_10080151182636209274")
    assert "ResizeNearest" in m.custom_calls()
    with pytest.raises(OracleUnavailable, match="custom calls"):
        run_hlo(m, {})


# --- yolox-trn1 graphs against XLA (need jax and the older compilers' 0xC1 DMA path) --------------------------

def _yolox(name, decisions=None):
    pytest.importorskip("jax")
    kw = {} if decisions is None else {"decisions": DecisionSet.parse(decisions)}
    r = check_neff(corpus_dir() / "yolox-trn1" / f"{name}.neff", **kw)
    if not r.ran and "PseudoDMATrigger" in r.why:
        pytest.skip("this graph needs the simulated 0xC1 DMA path")
    assert r.ran and r.reference == "hlo", r.why
    return r


@pytest.mark.parametrize("name", ["MODULE_10047695098172950179", "MODULE_10246025526710886818"])
def test_yolox_integer_graphs_are_bit_exact(name):
    r = _yolox(name)
    assert all(c.tolerance.exact for c in r.outputs)
    assert r.matched and r.max_error == 0


def test_s111_integer_matmul_writes_int32_psum():
    """pred[120,8400] summed over 120 through a uint8 PE pass: exact with S-111, saturated without."""
    r = _yolox("MODULE_10875128352584523134")
    assert r.matched and r.max_error == 0
    r = _yolox("MODULE_10875128352584523134", ["S-111=fp32"])
    assert r.matched is False and r.outputs[0].mismatches == 8400


@pytest.mark.parametrize("name", ["MODULE_15756455156218002102", "MODULE_3288600609627781372",
                                  "MODULE_5403215385800979758", "MODULE_8654990275793488851"])
def test_s112_sunda_2_14_fp32_high_matmuls_are_bit_exact(name):
    """sunda 2.14's fp32 transposes (Matmul fp32=high through an identity moving tile): bit-exact with S-112."""
    r = _yolox(name)
    assert r.matched and r.max_error == 0
