"""Run a corpus NEFF on the simulator and compare each output with an independent reference.

The references, by the corpus family a NEFF belongs to (its directory):

* **yolox-trn1** — the ``MODULE_*.hlo.pb`` beside the NEFF, executed by XLA's CPU backend
  (:mod:`tongasm.oracle.xla`), its Neuron custom calls first rewritten into plain HLO as S-95
  (TransferWithStaticRing: a copy), S-96 (ResizeNearest: repeat) and S-97 (TopK: sort + slice) read
  them (the reference is then named ``hlo, custom calls as ...``). Its parameters name the NEFF's inputs; inputs are drawn in the HLO's
  dtypes and handed to the NEFF as the same bytes (``pred`` as ``uint8``, ``s64`` as two ``int32``)
  or, when only the element counts agree, as the same values in the NEFF's dtype; each NEFF output
  is read back the same way.
* **attention-trn2** — the numpy reference in the corpus's ``source/kernels/baseline/attention.py``
  (``numpy_attention``: ``softmax(q.T @ k) @ v.T``), taken from that file's text (the file imports
  the Neuron compiler, so the function is extracted, not imported) and evaluated in float64 on the
  same (rounded) inputs; inputs are ``(rng.random(shape) - 0.5) * 2`` as the benchmark's
  ``make_inputs`` draws them, from the given seed.
* **causal-attention-trn1** — :mod:`tongasm.oracle.kernels`' transcription of the NKI kernel its debug
  info names (``beta2_csa2048_test.py`` of ucb-bar/autocomp), evaluated in float64 at the kernel's
  bfloat16 storage points, as the NEFFs compiled it where they differ from the stored source (S-115:
  k's tiles as the NEFF's DMAs load them, the score tiles stored bfloat16); tolerance ``K = d_head + seqlen``, ``u`` bfloat16's (the outputs), ``u_acc`` float32's.
* **moe-trn2** — :mod:`tongasm.oracle.moe`'s transcriptions of the nki-moe-megakernel kernels, chosen by the
  NEFF's interface (the MoE layer of v6b.neff and neff_171450338541704.neff; the attention decode step of
  attn_v6.neff), with their own inputs and tolerances (see that module).
* the other families have no reference here: their result says so.

Random inputs: floats uniform in [-1, 1) (rounded to the dtype), integers in [0, 4), booleans 0/1,
from ``numpy.random.default_rng(seed)`` in parameter order. The tolerance is
:mod:`tongasm.oracle.compare`'s, with ``K`` and ``u`` from the HLO (:func:`hlo_tolerance`) or, for
attention, ``K = d_head + seqlen`` (the two contractions; the softmax sum is over seqlen too) and
``u_acc`` float32's (the kernels keep every intermediate in float32). Where the NEFF's matmuls load a
narrower float than the graph's own types (the compiler's bf16 auto-cast of an f32 HLO: the
Ldweights' dtype, :func:`pe_dtypes`), the reference is first rerun on the float inputs rounded (RNE)
to that dtype and compared under the graph's own tolerance (reported as ``hlo, inputs at
bfloat16``); only when that fails are ``u`` and ``u_acc`` taken as that dtype's against the plain
reference (a loose check: ``K u_acc`` reaches 1 at K = 256 in bf16).
"""

from __future__ import annotations

import ast
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.semantics import (
    OracleCompiledKernel,
    OracleDroppedParameter,
    OracleFloatToIntConvert,
    OracleResizeNearest,
    OracleStaticRingTransfer,
    OracleTopK,
)
from ..isa.enums import Dtype
from ..neff import read_neff
from ..neff.neff import Neff
from ..neff.run import core_program, run_neff
from ..numeric import numpy_dtype
from .compare import Comparison, Tolerance, compare, unit_roundoff
from .xla import REWRITABLE, HloModule, OracleUnavailable, float_to_int_converts, load_hlo, rewrite_custom_calls, run_hlo

#: HLO opcodes whose result on floats is rounded (everything else moves, selects or compares values)
ROUNDING_OPS = frozenset({
    "add", "subtract", "multiply", "divide", "exponential", "exponential-minus-one", "log", "log-plus-one",
    "logistic", "sqrt", "rsqrt", "cbrt", "power", "tanh", "sine", "cosine", "tan", "atan2", "erf",
    "dot", "convolution", "batch-norm-inference", "batch-norm-training", "reduce-precision", "remainder",
})
_FLOAT_TYPES = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16",
                "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}
_LINE = re.compile(r"^\s*(?:ROOT\s+)?(\S+) = (\(.*?\)|[a-z0-9]+\[[0-9,]*\](?:\{[^}]*\})?) ([a-z][a-z0-9\-]*)\((.*)$")
_SHAPE = re.compile(r"([a-z0-9]+)\[([0-9,]*)\]")


def _dims(shape_text: str) -> list[int]:
    m = _SHAPE.match(shape_text)
    return [int(d) for d in m.group(2).split(",") if d] if m else []


def hlo_tolerance(module: HloModule, extra_dtypes: list[np.dtype]) -> Tolerance:
    """``u``, ``K`` and exactness of an HLO module (see :mod:`tongasm.oracle.compare`)."""
    shapes: dict[str, str] = {}
    floats: set[str] = set()
    rounding = False
    k = 1
    acc: set[str] = set()
    for line in module.text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        name, shape, op, rest = m.groups()
        shapes[name] = shape
        types = {t for t, _ in _SHAPE.findall(shape)}
        ftypes = {_FLOAT_TYPES[t] for t in types if t in _FLOAT_TYPES}
        floats |= ftypes
        if op in ROUNDING_OPS and ftypes:
            rounding = True
        if op == "convert" and ftypes:  # a float result narrower than its operand rounds
            src = rest.split(")")[0].strip()
            st = {t for t, _ in _SHAPE.findall(shapes.get(src, ""))}
            srcf = [_FLOAT_TYPES[t] for t in st if t in _FLOAT_TYPES]
            if not srcf or unit_roundoff(srcf) < unit_roundoff(sorted(ftypes)):
                rounding = rounding or bool(srcf) or any(t.startswith(("s", "u")) and t[1:].isdigit() and int(t[1:]) > 16
                                                         for t in st)
        operands = [o.strip() for o in rest.split(")")[0].split(",")]
        if op in ("dot", "convolution", "reduce", "reduce-window"):
            acc |= ftypes
        if op == "dot":
            lhs = _dims(shapes.get(operands[0], ""))
            c = re.search(r"lhs_contracting_dims=\{([0-9,]*)\}", rest)
            if c and lhs:
                k = max(k, math.prod(lhs[int(i)] for i in c.group(1).split(",") if i))
        elif op == "convolution" and len(operands) > 1:
            rhs = _dims(shapes.get(operands[1], ""))
            labels = re.search(r"dim_labels=[^_]*_([a-z0-9]+)->", rest)
            if rhs and labels and "o" in labels.group(1):
                k = max(k, math.prod(rhs) // max(1, rhs[labels.group(1).index("o")]))
        elif op == "reduce":
            src = _dims(shapes.get(operands[0], ""))
            d = re.search(r"dimensions=\{([0-9,]*)\}", rest)
            if d and src:
                k = max(k, math.prod(src[int(i)] for i in d.group(1).split(",") if i))
        elif op == "reduce-window":
            w = re.search(r"size=([0-9x]+)", rest)
            if w:
                k = max(k, math.prod(int(x) for x in w.group(1).split("x")))
    u = unit_roundoff(sorted(floats) + [np.dtype(d) for d in extra_dtypes])
    return Tolerance(u, k, exact=not rounding, u_acc=max(2.0**-24, unit_roundoff(sorted(acc))))


@dataclass
class OracleResult:
    """One NEFF: did it run, what each output's comparison says, and the times."""

    file: str
    reference: str  # "hlo", "numpy", or "" when none
    ran: bool = False
    outputs: list[Comparison] = field(default_factory=list)
    why: str = ""  # why it did not run, or has no reference
    sim_seconds: float = 0.0
    ref_seconds: float = 0.0
    executed: int = 0

    @property
    def matched(self) -> bool | None:
        """True/False once compared; None when there is nothing to compare (no run or no reference)."""
        if not self.ran or not self.outputs:
            return None
        return all(c.matched for c in self.outputs)

    @property
    def max_error(self) -> float | None:
        return max((c.max_error for c in self.outputs), default=None)


def _random(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, shape).astype(dtype)
    return ((rng.random(shape) - 0.5) * 2).astype(np.float32).astype(dtype)


def to_neff(value: np.ndarray, dtype: np.dtype, shape: tuple[int, ...], nbytes: int, what: str) -> np.ndarray:
    """A reference-side array as the NEFF variable holds it: the same bytes, or the same values cast."""
    value = np.ascontiguousarray(value)
    if value.nbytes == nbytes:
        return value.reshape(-1).view(np.uint8).view(dtype).reshape(shape)
    if value.size == math.prod(shape):
        return value.astype(dtype).reshape(shape)
    raise OracleUnavailable(f"{what}: the reference's {value.dtype}{list(value.shape)} fits neither the bytes nor the "
                            f"element count of the NEFF's {dtype}{list(shape)}")


def from_neff(value: np.ndarray, dtype: np.dtype, shape: tuple[int, ...], what: str) -> np.ndarray:
    """A NEFF output read as the reference's dtype and shape (the inverse of :func:`to_neff`)."""
    value = np.ascontiguousarray(value)
    if value.nbytes == math.prod(shape) * dtype.itemsize:
        return value.reshape(-1).view(np.uint8).view(dtype).reshape(shape)
    if value.size == math.prod(shape):
        return value.astype(dtype).reshape(shape)
    raise OracleUnavailable(f"{what}: the NEFF's {value.dtype}{list(value.shape)} fits neither the bytes nor the "
                            f"element count of the reference's {dtype}{list(shape)}")


def _neff_vars(neff: Neff) -> dict[str, tuple[str, np.dtype, tuple[int, ...], int]]:
    """name -> (kind, numpy dtype, shape, bytes) of every input and output the NEFF's graphs declare."""
    out: dict[str, tuple[str, np.dtype, tuple[int, ...], int]] = {}
    for g in neff.graphs:
        for v in core_program(neff, g).memory.variables:
            if v.kind in ("Input", "Output") and v.name not in out:
                if v.dtype is None or v.shape is None:
                    raise OracleUnavailable(f"the NEFF records no dtype and shape for {v.name!r}")
                out[v.name] = (v.kind, numpy_dtype(Dtype[v.dtype]), tuple(v.shape), v.nbytes)
    return out


# --- the references ------------------------------------------------------------------------------------


@dataclass
class Prepared:
    """Inputs for the NEFF, and how to compute and read back the reference."""

    kind: str
    neff_inputs: dict[str, np.ndarray]
    reference: Callable[[], dict[str, np.ndarray]]
    read_back: Callable[[str, np.ndarray], np.ndarray]
    tolerance: Callable[[str], Tolerance]
    #: the reference on the float inputs rounded to a dtype (the compiler's auto-cast), where it applies
    rounded: Callable[[str], dict[str, np.ndarray]] | None = None
    #: the HLO's float -> integer converts, and the reference with them reinterpreting bits (S-114)
    converts: list[str] = field(default_factory=list)
    float_bits: Callable[[], dict[str, np.ndarray]] | None = None


def custom_call_rewrites(decisions: DecisionSet = DEFAULT_DECISIONS) -> set[str]:
    """The custom-call targets the selected S-95 / S-96 / S-97 readings rewrite into plain HLO."""
    chosen = {"AwsNeuronTransferWithStaticRing": decisions.get(OracleStaticRingTransfer).rewrites,
              "ResizeNearest": decisions.get(OracleResizeNearest).rewrites,
              "AwsNeuronTopK": decisions.get(OracleTopK).rewrites}
    return {t for t, on in chosen.items() if on}


def _prepare_hlo(neff: Neff, hlo_path: Path, seed: int, decisions: DecisionSet = DEFAULT_DECISIONS) -> Prepared:
    module = load_hlo(hlo_path.read_bytes())
    kind = "hlo"
    targets = custom_call_rewrites(decisions) & set(module.custom_calls())
    if targets:
        rewritten = rewrite_custom_calls(module, targets)
        module = rewritten.module
        kind = f"hlo, custom calls as {rewritten.describe()}"
    calls = module.custom_calls()
    if calls:
        off = [f"{REWRITABLE[c]}=none" for c in calls if c in REWRITABLE]
        raise OracleUnavailable(f"the HLO holds custom calls XLA's CPU backend cannot run: {', '.join(calls)}"
                                + (f" (not rewritten: {', '.join(off)})" if off else ""))
    nv = _neff_vars(neff)
    rng = np.random.default_rng(seed)
    ref_inputs, neff_inputs = {}, {}
    dropped = []
    for p in module.parameters:
        if p.name not in nv or nv[p.name][0] != "Input":
            if p.name in nv or not decisions.get(OracleDroppedParameter).feeds:
                raise OracleUnavailable(f"HLO parameter {p.name!r} is not an input of the NEFF")
            dropped.append(p.name)  # S-102: the compiler found the result independent of it
            ref_inputs[p.name] = _random(rng, p.dtype, p.shape)
            continue
        ref_inputs[p.name] = _random(rng, p.dtype, p.shape)
        _, dt, shape, nbytes = nv[p.name]
        neff_inputs[p.name] = to_neff(ref_inputs[p.name], dt, shape, nbytes, p.name)
    missing = [n for n, v in nv.items() if v[0] == "Input" and n not in neff_inputs]
    if missing:
        raise OracleUnavailable(f"NEFF inputs with no HLO parameter: {', '.join(missing)}")
    results = {r.name: r for r in module.results}
    for n, v in nv.items():
        if v[0] == "Output" and n not in results:
            raise OracleUnavailable(f"NEFF output {n!r} is not a result of the HLO")
    io_dtypes = [v[1] for v in nv.values()]
    tol = hlo_tolerance(module, io_dtypes)

    def read_back(name: str, value: np.ndarray) -> np.ndarray:
        r = results[name]
        return from_neff(value, r.dtype, r.shape, name)

    def rounded(dtype: str) -> dict[str, np.ndarray]:
        import ml_dtypes

        narrow = np.dtype(getattr(ml_dtypes, dtype))
        return run_hlo(module, {n: v.astype(narrow).astype(v.dtype) if v.dtype.kind == "f" else v
                                for n, v in ref_inputs.items()})

    if dropped:
        kind += f", {', '.join(dropped)} not read by the NEFF (S-102)"
    converts = float_to_int_converts(module)
    return Prepared(kind, neff_inputs, lambda: run_hlo(module, ref_inputs), read_back,
                    lambda name: Tolerance(tol.u, tol.k, tol.exact or results[name].dtype.kind in "biu", tol.u_acc),
                    rounded, converts, (lambda: run_hlo(module, ref_inputs, float_bits=True)) if converts else None)


def numpy_function(source: Path, name: str) -> Callable[..., Any]:
    """A top-level function of a Python file, compiled from its text alone (the file's other imports
    are not run): the function may use ``np`` only."""
    tree = ast.parse(source.read_text(), filename=str(source))
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        raise OracleUnavailable(f"{source}: no function {name!r}")
    scope: dict[str, Any] = {"np": np, "__builtins__": __builtins__}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), str(source), "exec"), scope)
    return scope[name]


def _prepare_attention(neff: Neff, source: Path, seed: int) -> Prepared:
    nv = _neff_vars(neff)
    if sorted(n for n, v in nv.items() if v[0] == "Input") != ["k_ref", "q_ref", "v_ref"] or \
            [n for n, v in nv.items() if v[0] == "Output"] != ["kernel_out"]:
        raise OracleUnavailable(f"not the attention kernel's interface (q_ref, k_ref, v_ref -> kernel_out): "
                                f"{', '.join(nv)}")
    attention = numpy_function(source, "numpy_attention")
    rng = np.random.default_rng(seed)
    neff_inputs = {}
    for n in ("q_ref", "k_ref", "v_ref"):  # make_inputs' order
        _, dt, shape, _ = nv[n]
        neff_inputs[n] = ((rng.random(shape) - 0.5) * 2).astype(dt)
    d_head, seqlen = nv["q_ref"][2]
    out_dt = nv["kernel_out"][1]
    tol = Tolerance(unit_roundoff([v[1] for v in nv.values()]), d_head + seqlen, exact=False)

    def reference() -> dict[str, np.ndarray]:
        q, k, v = (neff_inputs[n].astype(np.float64) for n in ("q_ref", "k_ref", "v_ref"))
        return {"kernel_out": np.asarray(attention(q, k, v))}

    def read_back(name: str, value: np.ndarray) -> np.ndarray:
        return value.astype(np.float64)

    del out_dt
    return Prepared("numpy", neff_inputs, reference, read_back, lambda name: tol)


def _prepare_csa(neff: Neff, which: str, seed: int, decisions: DecisionSet = DEFAULT_DECISIONS) -> Prepared:
    """causal-attention-trn1: :func:`tongasm.oracle.kernels.csa2048` on the NEFF's q (input3), k (input2),
    v (input1) and the script's causal mask (input0); ``output0`` is the kernel result ``which``."""
    from .kernels import causal_mask, csa2048, csa_k_tiles

    nv = _neff_vars(neff)
    want = {"input0": (2048, 2048), "input1": (2048, 128), "input2": (128, 2048), "input3": (2048, 128)}
    if {n: v[2] for n, v in nv.items() if v[0] == "Input"} != want or [n for n, v in nv.items() if v[0] == "Output"] != \
            ["output0"]:
        raise OracleUnavailable("not the causal-attention kernel's interface (input0..input3 -> output0)")
    compiled = decisions.get(OracleCompiledKernel).as_compiled
    k_tiles = csa_k_tiles(neff) if compiled else [0, 1, 2, 3]
    rng = np.random.default_rng(seed)
    q, k, v = (((rng.random(want[n]) - 0.5) * 2).astype(np.float32) for n in ("input3", "input2", "input1"))
    mask = causal_mask(2048)
    neff_inputs = {"input0": mask, "input1": v, "input2": k, "input3": q}
    tol = Tolerance(unit_roundoff([nv["output0"][1]]), 128 + 2048, exact=False)
    kind = "numpy" if not compiled else f"numpy, as compiled (S-115: k tiles {k_tiles}, scores stored bf16)"
    return Prepared(kind, neff_inputs, lambda: {"output0": csa2048(q, k, v, mask, k_tiles, compiled)[which]},
                    lambda name, value: value.astype(np.float64), lambda name: tol)


def prepare(path: Path, neff: Neff, seed: int, decisions: DecisionSet = DEFAULT_DECISIONS) -> Prepared:
    """The reference of a corpus NEFF by its family (the directory it is in)."""
    family = path.parent.name
    if path.name.startswith("MODULE_") and path.with_suffix(".hlo.pb").is_file():
        return _prepare_hlo(neff, path.with_suffix(".hlo.pb"), seed, decisions)
    if family == "attention-trn2":
        src = path.parent / "source" / "kernels" / "baseline" / "attention.py"
        if not src.is_file():
            raise OracleUnavailable(f"the attention kernels' source is not beside the NEFF ({src})")
        return _prepare_attention(neff, src, seed)
    if family == "causal-attention-trn1":
        from .kernels import csa_kernel_output

        which = csa_kernel_output(neff)
        if which is None:
            raise OracleUnavailable("its debug info does not name the causal-attention kernel (beta2_csa2048_test.py)")
        return _prepare_csa(neff, which, seed, decisions)
    if family == "moe-trn2":  # the moe-trn2 kernels' numpy references live in tongasm.oracle.moe
        return _prepare_moe(path, neff, seed)
    raise OracleUnavailable(f"no reference for the {family} family (its kernels' source is not in the corpus)")


def _prepare_moe(path: Path, neff: Neff, seed: int) -> Prepared:
    """The reference of a moe-trn2 NEFF (:mod:`tongasm.oracle.moe`), chosen by its interface (neff.json's
    names, dtypes and shapes): the MoE layer (v6b and its rebuild) or the token-generation attention."""
    from . import moe

    nv = _neff_vars(neff)
    have = {n: (str(dt), shape) for n, (_kind, dt, shape, _nb) in nv.items()}
    if have == moe.MOE_INTERFACE:
        x = moe.moe_inputs(seed)
        tol = Tolerance(unit_roundoff([v[1] for v in nv.values()]), nv["input4"][2][1], exact=False)
        return Prepared("numpy", x, lambda: {"output0": moe.moe_reference(x)},
                        lambda name, value: value.astype(np.float64), lambda name: tol)
    if have == moe.ATTN_INTERFACE:
        rng = np.random.default_rng(seed)
        x = {}
        for i in range(11):  # parameter order
            name = f"input{i}"
            _, dt, shape, _ = nv[name]
            x[name] = np.full(shape, 640, dt) if name == moe.ATTN_ARGS["position_ids"] else _random(rng, dt, shape)
        args = {arg: x[n] for arg, n in moe.ATTN_ARGS.items()}
        s_prior, d = nv["input4"][2][2:]
        tol = Tolerance(unit_roundoff([v[1] for v in nv.values()]), nv["input10"][2][2] + d + s_prior + 1,
                        exact=False)
        return Prepared("numpy", x, lambda: {"output0": moe.attn_tkg_v6(args)},
                        lambda name, value: value.astype(np.float64), lambda name: tol)
    raise OracleUnavailable(f"{path.name}: not an interface of the moe-trn2 kernels here "
                            f"({', '.join(f'{n} {d}{list(s)}' for n, (d, s) in have.items())})")


def check_neff(path: Path, seed: int = 0, decisions: DecisionSet = DEFAULT_DECISIONS) -> OracleResult:
    """Run one NEFF on seeded random inputs (under ``decisions``) and compare every output with its
    reference."""
    res = OracleResult(str(path), "")
    neff = read_neff(path)
    try:
        prep = prepare(Path(path), neff, seed, decisions)
    except OracleUnavailable as e:
        prep = None
        res.why = f"no reference: {e}"
    if prep is None:  # still run it: "ran" is worth knowing without a reference
        from ..neff.run import core_program as _cp

        rng = np.random.default_rng(seed)
        inputs = {}
        for g in neff.graphs:
            for v in _cp(neff, g).memory.variables:
                if v.kind == "Input" and v.name not in inputs and v.dtype is not None and v.shape is not None:
                    inputs[v.name] = _random(rng, numpy_dtype(Dtype[v.dtype]), tuple(v.shape))
    else:
        res.reference = prep.kind
        inputs = prep.neff_inputs
    t0 = time.perf_counter()
    try:
        result = run_neff(neff, inputs, seed=seed, decisions=decisions)
    except Exception as e:  # a run that stops is a row of the table, with its reason
        res.sim_seconds = time.perf_counter() - t0
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        res.why = f"{type(e).__name__}: {msg}"[:300]
        return res
    res.sim_seconds = time.perf_counter() - t0
    res.ran = True
    res.executed = result.executed
    if prep is None:
        return res
    t0 = time.perf_counter()
    try:
        ref = prep.reference()
    except OracleUnavailable as e:
        res.why = f"no reference: {e}"
        return res
    res.ref_seconds = time.perf_counter() - t0
    sim = result.outputs()
    narrow = pe_dtypes(result)
    u_pe = unit_roundoff(narrow)
    names = [n for n in sorted(sim, key=lambda n: (len(n), n)) if n in ref]
    res.why = "; ".join(f"the reference computes no {n!r}" for n in sim if n not in ref)
    if prep.rounded is not None and u_pe > max((prep.tolerance(n).u_acc for n in names), default=1.0):
        # the compiler ran the matmuls narrower (auto-cast): first the strong check, the reference on
        # the inputs rounded as the NEFF's matmuls load them, under the graph's own tolerance
        rref = prep.rounded(narrow[-1] if len(narrow) == 1 else "bfloat16")
        strict = [compare(n, prep.read_back(n, sim[n]), np.asarray(rref[n]), prep.tolerance(n)) for n in names]
        if all(c.matched for c in strict):
            res.reference = f"{prep.kind}, inputs at {narrow[-1] if len(narrow) == 1 else 'bfloat16'}"
            res.outputs = strict
            return res
    for name in names:
        r = np.asarray(ref[name])
        s = prep.read_back(name, sim[name])
        tol = prep.tolerance(name)
        if not tol.exact and prep.rounded is not None and u_pe > tol.u_acc:  # else the loose check (HLO only)
            tol = Tolerance(max(tol.u, u_pe), tol.k, False, u_pe)
        res.outputs.append(compare(name, s, r, tol))
    if res.matched is False and prep.float_bits is not None and decisions.get(OracleFloatToIntConvert).falls_back:
        # S-114: a float -> integer convert the NEFF performs as no conversion at all (its bits read as an integer)
        bref = prep.float_bits()
        alt = [compare(c.name, prep.read_back(c.name, sim[c.name]), np.asarray(bref[c.name]), c.tolerance)
               for c in res.outputs]
        if all(c.matched for c in alt):
            res.reference = f"{prep.kind}, {', '.join(prep.converts)} as float bits (S-114)"
            res.outputs = alt
    return res


def pe_dtypes(result: Any) -> list[str]:
    """The float dtypes the run's Ldweights (0x01) bundles load: where the compiler narrowed an f32 graph's
    matmuls (bf16 auto-cast), the tolerance's ``u`` and ``u_acc`` are that dtype's."""
    from ..isa.enums import WireDtype
    from ..isa.layout import Sem

    names = {WireDtype.BFLOAT16: "bfloat16", WireDtype.FLOAT16: "float16", WireDtype.FLOAT8_E4M3: "float8_e4m3fn",
             WireDtype.FLOAT8_E5M2: "float8_e5m2", WireDtype.FLOAT8_E3: "float8_e3m4"}
    seen: set[str] = set()
    for core in result.cores:
        for st in core.streams:
            for d in st.bundles:
                if d.fmt.layout.sem is Sem.LOAD_STATIONARY and not d.fields.get("is_transpose"):
                    n = names.get(d.fields.get("in_dtype"))
                    if n:
                        seen.add(n)
    return sorted(seen)


__all__ = ["OracleResult", "check_neff", "custom_call_rewrites", "hlo_tolerance", "numpy_function", "prepare", "from_neff", "to_neff"]
