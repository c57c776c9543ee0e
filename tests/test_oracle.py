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


def test_graph_without_a_reference_says_so(tmp_path):
    """A NEFF outside the families the harness knows still runs, and says it has no reference."""
    import shutil

    (tmp_path / "some-family").mkdir()
    path = tmp_path / "some-family" / "attn_v6.neff"
    shutil.copy(corpus_dir() / "moe-trn2" / "attn_v6.neff", path)
    r = check_neff(path)
    assert r.ran and r.matched is None and r.why.startswith("no reference: no reference for the some-family family")


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
    assert r.ran and r.reference.startswith("hlo"), r.why
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


# --- S-113: outputs that must alias an input; S-114: a float -> int convert the NEFF does not perform -------

def test_s113_aliased_outputs_are_their_inputs():
    """MODULE_36492259600070294 hands 388 parameters back unchanged and never copies them: the outputs
    neff.json binds to them hold the inputs' bytes (S-113) or, under S-113=separate, zeros."""
    import json

    from tongasm.neff import read_neff
    from tongasm.neff.run import run_neff

    neff = read_neff(corpus_dir() / "yolox-trn1" / "MODULE_36492259600070294.neff")
    sig = json.loads(neff.members["neff.json"])["metadata"]["signatures"]["default"]["inputs"]
    alias = {n: s["must_alias"][0] for n, s in sig.items() if s.get("must_alias")}
    assert len(alias) == 388
    rng = np.random.default_rng(2)
    shapes = {n: tuple(s["shape"]) for n, s in sig.items()}
    inputs = {n: rng.standard_normal(shapes[n]).astype(np.float32) for n in sig}
    out = run_neff(neff, inputs).outputs()
    assert all(np.array_equal(out[o], inputs[n]) for n, o in alias.items())
    out = run_neff(neff, inputs, decisions=DecisionSet.parse(["S-113=separate"])).outputs()
    assert all(not out[o].any() for o in alias.values())


def test_s113_against_xla():
    r = _yolox("MODULE_36492259600070294")
    assert r.matched and r.max_error == 0 and len(r.outputs) == 924
    r = _yolox("MODULE_36492259600070294", ["S-113=separate"])
    assert sum(not c.matched for c in r.outputs) == 388


def _one_hot_neff(x):
    from tongasm.neff import read_neff
    from tongasm.neff.run import run_neff

    neff = read_neff(corpus_dir() / "yolox-trn1" / "MODULE_11715220187876601876.neff")
    return run_neff(neff, {"input0": np.array([x], np.float32)}).outputs()["output0"]


@pytest.mark.parametrize("bits,column", [(0, 0), (5, 5), (79, 79), (80, None), (0x3E8A3D71, None), (0x3F800000, None)])
def test_s114_the_one_hot_neff_indexes_by_the_float_bits(bits, column):
    """The NEFF has no conversion for the HLO's convert(f32 -> s64): its index is the float's bits read as
    int32 (0.27 = 0x3E8A3D71 and 1.0 = 0x3F800000 fall outside the 80 columns, so nothing is written)."""
    out = _one_hot_neff(np.array([bits], np.uint32).view(np.float32)[0])
    want = np.zeros((1, 80), np.float32)
    if column is not None:
        want[0, column] = 1.0
    assert np.array_equal(out, want)


def test_s114_bits_rewrite_of_the_mlir_text():
    from tongasm.oracle.xla import bits_as_integers

    text = "    %3 = stablehlo.convert %2 : (tensor<1x1x2xf32>) -> tensor<1x1x2xi64> loc(#loc70)\n    %4 = stablehlo.add %3"
    out = bits_as_integers(text).splitlines()
    assert out[0] == "    %bits_3 = stablehlo.bitcast_convert %2 : (tensor<1x1x2xf32>) -> tensor<1x1x2xi32> loc(#loc70)"
    assert out[1] == "    %3 = stablehlo.convert %bits_3 : (tensor<1x1x2xi32>) -> tensor<1x1x2xi64> loc(#loc70)"
    assert out[2] == text.splitlines()[1]
    same = "    %5 = stablehlo.convert %4 : (tensor<8xi64>) -> tensor<8xf32>"  # integer -> float: untouched
    assert bits_as_integers(same) == same


def test_s114_against_xla():
    r = _yolox("MODULE_11715220187876601876")
    assert r.matched and r.reference.startswith("hlo, convert.2 as float bits")
    r = _yolox("MODULE_11715220187876601876", ["S-114=truncate"])
    assert r.matched is False and r.outputs[0].mismatches == 1 and r.max_error == 1.0


# --- causal-attention-trn1 against its kernel's numpy transcription -----------------------------------------

def test_csa_reference_is_causal_attention():
    """Independent of the tiling: m is the bf16 row max of the causal scores, l their log-sum-exp, and o
    the unnormalised exp-weighted sum of v (within the bf16 storage of p and the outputs)."""
    import ml_dtypes

    from tongasm.oracle.kernels import causal_mask, csa2048

    rng = np.random.default_rng(4)
    n, d = 1024, 128
    q, v = ((rng.random((n, d)) - 0.5) * 2).astype(np.float32), ((rng.random((n, d)) - 0.5) * 2).astype(np.float32)
    k = ((rng.random((d, n)) - 0.5) * 2).astype(np.float32)
    bf = lambda a: a.astype(ml_dtypes.bfloat16).astype(np.float64)  # noqa: E731
    s = np.where(np.tril(np.ones((n, n))) > 0, bf(q) @ bf(k), -np.inf)
    mx = s.max(axis=1, keepdims=True)
    e = np.exp(s - mx)
    got = csa2048(q, k, v, causal_mask(n))
    # the kernel masks in float32 as (s + 9984) * mask - 9984, which keeps s to 2^-10: m within one bf16 ulp
    assert (np.abs(got["m"] - bf(mx.astype(np.float32))) <= 2**-7 * np.abs(mx)).all()
    np.testing.assert_allclose(got["l"], np.log(e.sum(axis=1, keepdims=True)) + mx, rtol=2**-7, atol=2**-6)
    ref_o = e @ bf(v)
    assert np.abs(got["o"] - ref_o).max() <= 2**-7 * np.abs(ref_o).max()


@pytest.mark.parametrize("name,which", [("model_3c6ff38f", "m"), ("model_795597d1", "l"),
                                        pytest.param("model_84dd1b5e", "o", marks=pytest.mark.slow)])
def test_s115_csa_graphs_match_their_kernel_as_compiled(name, which):
    from tongasm.neff import read_neff
    from tongasm.oracle.kernels import csa_k_tiles, csa_kernel_output

    path = corpus_dir() / "causal-attention-trn1" / f"{name}.neff"
    neff = read_neff(path)
    assert csa_kernel_output(neff) == which
    assert csa_k_tiles(neff) == [0, 0, 0, 0]  # the NEFF loads k[:, 0:512] once, for all four k tiles
    r = check_neff(path)
    assert r.ran and r.matched, r.why
    if which != "o":
        assert r.max_error == 0


def test_s115_csa_source_text_disagrees():
    """The stored source revision (every k tile loaded, scores kept float32) is not what the NEFF computes."""
    r = check_neff(corpus_dir() / "causal-attention-trn1" / "model_3c6ff38f.neff",
                   decisions=DecisionSet.parse(["S-115=source"]))
    assert r.ran and r.matched is False and r.max_error > 1



# --- S-95..S-97: the Neuron custom calls rewritten into plain HLO (need jax) ----------------------------------

def _module(shape_in: str, body: str, shape_out: str):
    """A one-parameter module: ``body`` names the custom call ``cc`` of ``p0``; the result is a 1-tuple of ``cc``."""
    pytest.importorskip("jax")
    from jax._src.lib import xla_client as xc

    from tongasm.oracle.xla import load_hlo

    text = (f"HloModule t\n\nENTRY main {{\n  p0 = {shape_in} parameter(0), frontend_attributes={{neff_input_names=\"input0\"}}\n"
            f"  {body}\n  ROOT t = ({shape_out}) tuple(cc), frontend_attributes={{neff_output_names=\"output0\"}}\n}}\n")
    return load_hlo(xc._xla.hlo_module_from_text(text).as_serialized_hlo_module_proto()
                    if hasattr(xc._xla, "hlo_module_from_text") else
                    xc.hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto())


def _call(target: str, shape: str, config: str | None = None) -> str:
    cfg = "" if config is None else f", backend_config={config}"
    return f'cc = {shape} custom-call(p0), custom_call_target="{target}"{cfg}'


def test_s95_static_ring_transfer_is_a_copy():
    from tongasm.oracle.xla import OracleUnavailable, rewrite_custom_calls, run_hlo

    m = _module("f32[2,3]", _call("AwsNeuronTransferWithStaticRing", "f32[2,3]"), "f32[2,3]")
    r = rewrite_custom_calls(m, {"AwsNeuronTransferWithStaticRing"})
    assert r.counts == {"AwsNeuronTransferWithStaticRing": 1} and r.module.custom_calls() == []
    x = np.array([[1.5, -2.0, 3.0], [0.0, -0.0, 7.25]], np.float32)
    assert run_hlo(r.module, {"input0": x})["output0"].tobytes() == x.tobytes()
    other = _module("f32[2,3]", _call("AwsNeuronTransferWithStaticRing", "f32[3,2]"), "f32[3,2]")
    with pytest.raises(OracleUnavailable, match="operand's type and dims"):
        rewrite_custom_calls(other, {"AwsNeuronTransferWithStaticRing"})


def test_s96_resize_nearest_repeats_each_pixel():
    from tongasm.oracle.xla import OracleUnavailable, rewrite_custom_calls, run_hlo

    m = _module("f32[1,2,3,1]", _call("ResizeNearest", "f32[1,4,6,1]", r'"\"00\""'), "f32[1,4,6,1]")
    r = rewrite_custom_calls(m, {"ResizeNearest"})
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32).reshape(1, 2, 3, 1)
    want = np.array([[1, 1, 2, 2, 3, 3], [1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6], [4, 4, 5, 5, 6, 6]], np.float32)
    assert (run_hlo(r.module, {"input0": x})["output0"].reshape(4, 6) == want).all()
    corners = _module("f32[1,2,3,1]", _call("ResizeNearest", "f32[1,4,6,1]", r'"\"10\""'), "f32[1,4,6,1]")
    with pytest.raises(OracleUnavailable, match="backend_config"):  # align_corners: other indices, refused
        rewrite_custom_calls(corners, {"ResizeNearest"})
    odd = _module("f32[1,2,3,1]", _call("ResizeNearest", "f32[1,3,6,1]", r'"\"00\""'), "f32[1,3,6,1]")
    with pytest.raises(OracleUnavailable, match="integer upscale"):
        rewrite_custom_calls(odd, {"ResizeNearest"})


def test_s97_topk_is_a_descending_sort_and_slice():
    from tongasm.oracle.xla import OracleUnavailable, rewrite_custom_calls, run_hlo

    shape = "(f32[3,3], u32[3,3])"

    def values_of(config: str):  # the corpus's use: only the values (get-tuple-element 0)
        body = _call("AwsNeuronTopK", shape, config).replace("cc = ", "pair = ") + \
            "\n  cc = f32[3,3] get-tuple-element(pair), index=0"
        return _module("f32[3,6]", body, "f32[3,3]")

    r = rewrite_custom_calls(values_of('"3"'), {"AwsNeuronTopK"})
    x = np.array([[3, 1, 4, 1, 5, 9], [2, 7, 7, 0, -1, 7], [np.nan, 1, 2, -np.inf, 0, 8]], np.float32)
    vals = run_hlo(r.module, {"input0": x})["output0"]
    want = np.array([[9, 5, 4], [7, 7, 7], [np.nan, 8, 2]], np.float32)  # NaN first (total order)
    assert np.array_equal(vals, want, equal_nan=True)
    wrong_k = values_of('"4"')
    with pytest.raises(OracleUnavailable, match="not the result's k"):
        rewrite_custom_calls(wrong_k, {"AwsNeuronTopK"})


def test_s97_topk_indices_keep_ties_in_order():
    pytest.importorskip("jax")
    from jax._src.lib import xla_client as xc

    from tongasm.oracle.xla import load_hlo, rewrite_custom_calls, run_hlo

    text = ('HloModule t\n\nENTRY main {\n  p0 = f32[2,5] parameter(0), frontend_attributes={neff_input_names="input0"}\n'
            '  cc = (f32[2,2], u32[2,2]) custom-call(p0), custom_call_target="AwsNeuronTopK", backend_config="2"\n'
            '  v = f32[2,2] get-tuple-element(cc), index=0\n  i = u32[2,2] get-tuple-element(cc), index=1\n'
            '  ROOT t = (f32[2,2], u32[2,2]) tuple(v, i), frontend_attributes={neff_output_names="output0,output1"}\n}\n')
    parse = xc._xla.hlo_module_from_text if hasattr(xc._xla, "hlo_module_from_text") else xc.hlo.hlo_module_from_text
    m = load_hlo(parse(text).as_serialized_hlo_module_proto())
    out = run_hlo(rewrite_custom_calls(m, {"AwsNeuronTopK"}).module,
                  {"input0": np.array([[1, 7, 7, 0, 7], [0.5, -3, 2, 2.5, 0]], np.float32)})
    assert out["output0"].tolist() == [[7, 7], [2.5, 2]] and out["output1"].tolist() == [[1, 2], [3, 2]]
    assert out["output1"].dtype == np.uint32


def test_custom_call_rewrites_follow_the_decisions():
    from tongasm.oracle.harness import custom_call_rewrites

    assert custom_call_rewrites() == {"AwsNeuronTransferWithStaticRing", "ResizeNearest", "AwsNeuronTopK"}
    assert custom_call_rewrites(DecisionSet.parse(("S-96=none",))) == {"AwsNeuronTransferWithStaticRing", "AwsNeuronTopK"}


def test_s96_corpus_module_rewritten_has_no_custom_call():
    from tongasm.oracle.xla import REWRITABLE, rewrite_custom_calls

    m = _hlo("MODULE_2676601027628379632")  # 141 weight transfers, two 2x upsamples
    r = rewrite_custom_calls(m, set(REWRITABLE))
    assert r.counts == {"AwsNeuronTransferWithStaticRing": 141, "ResizeNearest": 2} and r.module.custom_calls() == []
    assert [p.name for p in r.module.parameters] == [p.name for p in m.parameters]
    part = rewrite_custom_calls(m, {"AwsNeuronTransferWithStaticRing"})  # S-96=none: the upsamples stay calls
    assert part.module.custom_calls() == ["ResizeNearest"]


@pytest.mark.slow
def test_s95_s96_s98_yolox_neck_matches_xla():
    r = _yolox("MODULE_2676601027628379632")  # conv + batch norm + SiLU, two upsamples (~15 s of simulation)
    assert r.matched, r.why
    assert "S-95 identity x141" in r.reference and "S-96 repeat x2" in r.reference
    off = _yolox("MODULE_2676601027628379632", ("S-98=src",))  # the batch norms' sums of squares read as -inf
    assert off.matched is False


def test_s102_an_hlo_parameter_the_neff_does_not_read_takes_random_values():
    """MODULE_10080151182636209274's HLO has input329 and input330 (f32[4]) that no NEFF variable holds: under
    S-102=random they take seeded values and the row says so, XLA's result is the same whatever they hold (the
    compiler found it independent of them); under S-102=refuse the graph has no reference, as before."""
    pytest.importorskip("jax")
    from tongasm.neff import read_neff
    from tongasm.oracle.harness import _prepare_hlo
    from tongasm.oracle.xla import OracleUnavailable

    base = corpus_dir() / "yolox-trn1" / "MODULE_10080151182636209274"
    neff, hlo = read_neff(f"{base}.neff"), base.with_name(base.name + ".hlo.pb")
    prep = _prepare_hlo(neff, hlo, 0)
    assert "input329, input330 not read by the NEFF (S-102)" in prep.kind
    assert "input329" not in prep.neff_inputs and "input330" not in prep.neff_inputs
    first = prep.reference()
    (inputs,) = [c.cell_contents for c in prep.reference.__closure__ if isinstance(c.cell_contents, dict)
                 and "input329" in c.cell_contents]
    inputs["input329"] = inputs["input329"] * 3 + 1
    inputs["input330"] = inputs["input330"] * -2 + 5
    again = prep.reference()
    assert all(np.array_equal(first[k], again[k], equal_nan=True) for k in first)
    with pytest.raises(OracleUnavailable, match="input329.* is not an input of the NEFF"):
        _prepare_hlo(neff, hlo, 0, DecisionSet.parse(["S-102=refuse"]))
