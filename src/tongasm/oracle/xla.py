"""Executing a yolox-trn1 ``MODULE_*.hlo.pb`` (an XLA ``HloModuleProto``) on XLA's CPU backend.

What the installed jax/jaxlib offer (verified with jax 0.10.2, jaxlib 0.10.2, numpy 2.4, on the
corpus's ``MODULE_10047695098172950179``):

* ``from jax._src.lib import xla_client`` (the module jax itself uses; there is no public path to it);
  ``xla_client.XlaComputation(proto_bytes)`` parses the serialized ``HloModuleProto`` as it is, and
  ``.as_hlo_text()`` prints it; ``.program_shape()`` gives ``parameter_shapes()`` / ``result_shape()``.
* ``xla_client._xla.mlir.xla_computation_to_mlir_module(computation)`` returns the module as MHLO/
  StableHLO text (a ``str``).
* ``jax.devices("cpu")[0].client.compile_and_load(mlir_text, xla_client.DeviceList((device,)),
  xla_client.CompileOptions())`` compiles it for that device (``compile_and_load`` of a client from
  ``xla_client.make_cpu_client()`` works too, but arrays for it are not ``jax.device_put``'s).
* ``executable.execute([jax.device_put(array, device), ...])`` returns one array per element of the
  entry's result tuple (flattened), in order; ``numpy.asarray`` reads each back. ``device_put``
  narrows an int64 array to int32 unless 64-bit types are on (``with jax.enable_x64(True):``, else
  ``jax.config.update("jax_enable_x64", True)``); the executable then refuses it (``E0102:
  RuntimeProgramInputMismatch ... expected s64[120] but got s32[120]``).
* A module holding a ``custom-call`` (the Neuron ones: ``AwsNeuronTransferWithStaticRing``,
  ``ResizeNearest``, ``AwsNeuronTopK``, ``AwsNeuronArgMax``; 29 of the 80 corpus modules) does not
  compile: ``INVALID_ARGUMENT: Unknown custom-call API version enum value: 0``. Such a module has no
  reference here (:func:`custom_calls` names them before anything is compiled) unless
  :func:`rewrite_custom_calls` replaces each one by plain HLO first.

The Neuron custom calls of the corpus (every one of the 29 modules read; ``api_version`` unspecified,
no ``custom_call_has_side_effect``, no ``operand_layout_constraints``):

* ``AwsNeuronTransferWithStaticRing`` (6,600 calls in 29 modules): one operand, always an entry
  ``parameter`` (a weight), result of the operand's type and dims; no ``backend_config``. torch-neuronx
  wraps each weight in it (``xla___op_TransferWithStaticRingTransfer`` of ``xla_op_registry.py`` in
  public HLO dumps; transformers-neuronx's ``transfer_with_static_ring(shape)`` builds it with the
  input's own shape): a hint to the runtime to keep the tensor in a static DMA ring, not a change of
  value. Reading: the identity (a ``copy``). Sure: nothing in the call can carry a different value.
* ``ResizeNearest`` (58 calls in 29 modules): one operand ``T[N,H,W,C]`` (a ``transpose`` of the NCHW
  tensor, dims ``{0,2,3,1}``), result ``T[N,2H,2W,C]``; ``backend_config="\"00\""``. pytorch/xla's
  ``resize_ops.cc`` emits it for ``upsample_nearest2d`` on TPU and Neuron devices with
  ``GetBackendConfig(align_corners, half_pixel_centers)`` = ``'"' + align_corners + half_pixel_centers + '"'``,
  so ``"00"`` is align_corners = half_pixel_centers = false, torch's ``nearest``: ``out[i] = in[floor(i
  * in_size / out_size)]``, for the integer factor 2 ``out[i] = in[i // 2]`` (each pixel repeated 2 x 2).
  Sure of the config's meaning (the source says it); the index rule is torch's, and for an integer factor
  the half-pixel variant gives the same indices.
* ``AwsNeuronTopK`` (15 calls in 15 modules): one operand ``f32[R,L]``, result ``(f32[R,k], u32[R,k])``,
  ``backend_config="10"`` = k (the result's last dim is 10 in every call). torch-neuronx lowers a 2-D
  last-dim ``torch.topk(x, k, sorted=True)`` to it (the compiler's diagnostics list it under
  "Compute" targets; users report that only that form is pattern-matched to it): the k largest of each
  row in descending order, and their column indices. Sure for the values; the order of equal values'
  indices and the place of NaN are not documented (every corpus call uses only the values:
  ``get-tuple-element index=0``, the SimOTA ``topk_ious`` of YOLOX's loss).
* ``AwsNeuronArgMax`` (2 calls, MODULE_14856528739640727327 and MODULE_15023315273075843957):
  ``u8[n,2] -> s64[2]``, ``backend_config="0"`` (the axis). Not rewritten: both NEFFs stop in the
  simulator before an output (a Pool custom op), so no graph could confirm a reading.

How a module names its NEFF's variables: each entry ``parameter(N)`` carries
``frontend_attributes={neff_input_names="inputK"}``; the entry's ``ROOT`` tuple carries
``neff_output_names="output0,output1,..."``, one name per tuple element in order (every corpus module
has a tuple root and names every parameter). The NEFF may store a variable in another dtype of the
same bytes (``pred`` as ``uint8``, an ``s64`` as two ``int32``): :mod:`tongasm.oracle.compare` maps
them.

jax is imported inside the functions only: ``tongasm.oracle`` imports without it, and a caller
without jax gets :class:`OracleUnavailable`.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any

import numpy as np


class OracleUnavailable(RuntimeError):
    """A reference cannot be computed here (jax missing, a custom call XLA cannot run)."""


@dataclass(frozen=True)
class HloArray:
    """One parameter or result of the entry computation: its NEFF name, dtype and shape."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]


@dataclass
class HloModule:
    """A parsed module: the entry's parameters (by index) and results (in tuple order)."""

    computation: Any
    text: str
    parameters: list[HloArray]
    results: list[HloArray]

    def custom_calls(self) -> list[str]:
        return sorted(set(re.findall(r'custom_call_target="([^"]+)"', self.text)))

    def opcodes(self) -> set[str]:
        """The HLO opcodes of every computation (``= TYPE opcode(`` in the text)."""
        return set(re.findall(r"= (?:\([^=]*?\)|\S+) ([a-z][a-z0-9\-]*)\(", self.text))


def _xla() -> Any:
    try:
        from jax._src.lib import xla_client
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise OracleUnavailable(f"jax is not installed ({e}); pip install 'tongasm[oracle]'") from None
    return xla_client


_PARAM = re.compile(r"parameter\((\d+)\)(.*)$")
_INPUT_NAME = re.compile(r'neff_input_names="([^"]*)"')
_OUTPUT_NAME = re.compile(r'neff_output_names="([^"]*)"')


def load_hlo(data: bytes) -> HloModule:
    """Parse a serialized ``HloModuleProto`` and its NEFF variable names (refused when one is missing)."""
    xc = _xla()
    comp = xc.XlaComputation(data)
    text = comp.as_hlo_text()
    entry = text[text.index("\nENTRY"):] if "\nENTRY" in text else text
    shape = comp.program_shape()
    pshapes = shape.parameter_shapes()
    names: dict[int, str] = {}
    root_names: list[str] | None = None
    for line in entry.splitlines():
        m = _PARAM.search(line)
        if m and "=" in line.split("parameter(")[0]:
            n = _INPUT_NAME.search(m.group(2))
            if n is None:
                raise ValueError(f"HLO parameter {m.group(1)} carries no neff_input_names: {line.strip()[:120]}")
            names[int(m.group(1))] = n.group(1)
        if line.lstrip().startswith("ROOT "):
            o = _OUTPUT_NAME.search(line)
            root_names = o.group(1).split(",") if o else None
    params = []
    for i, s in enumerate(pshapes):
        if i not in names:
            raise ValueError(f"HLO parameter {i} not found in the entry computation's text")
        params.append(HloArray(names[i], np.dtype(s.numpy_dtype()), tuple(s.dimensions())))
    rs = shape.result_shape()
    elems = rs.tuple_shapes() if rs.is_tuple() else [rs]
    if root_names is None or len(root_names) != len(elems):
        raise ValueError(f"the entry's ROOT names {0 if root_names is None else len(root_names)} NEFF outputs "
                         f"for {len(elems)} results")
    results = [HloArray(n, np.dtype(s.numpy_dtype()), tuple(s.dimensions())) for n, s in zip(root_names, elems)]
    return HloModule(comp, text, params, results)


_MLIR_CONVERT = re.compile(r"^(\s*)(%[\w.#]+) = stablehlo\.convert (%[\w.#]+) : \(tensor<((?:\d+x)*)(f64|f32|f16|bf16)>\) "
                           r"-> tensor<((?:\d+x)*)(i\d+|ui\d+)>(.*)$")
_FLOAT_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}


def float_to_int_converts(module: HloModule) -> list[str]:
    """The HLO ``convert`` instructions from a float to an integer type, by name (``convert.2``)."""
    out = []
    for m in re.finditer(r"^\s*(?:ROOT\s+)?(\S+) = [su]\d+\[[0-9,]*\]\S* convert\((\S+?)\)", module.text, re.M):
        src = re.search(rf"^\s*(?:ROOT\s+)?{re.escape(m.group(2))} = (?:f64|f32|f16|bf16)\[", module.text, re.M)
        if src:
            out.append(m.group(1))
    return out


def bits_as_integers(mlir: str) -> str:
    """The StableHLO text with every float -> integer ``convert`` replaced by a reinterpretation of the
    float's bits as the same-width signed integer, then an integer convert (sign extension or
    narrowing) to the result type: S-114's reading of a conversion the NEFF does not perform."""
    lines = []
    for line in mlir.splitlines():
        m = _MLIR_CONVERT.match(line)
        if m is None:
            lines.append(line)
            continue
        ind, res, arg, dims, ft, rdims, it, rest = m.groups()
        bits = f"%bits_{res[1:].replace('#', '_')}"
        lines.append(f"{ind}{bits} = stablehlo.bitcast_convert {arg} : (tensor<{dims}{ft}>) -> "
                     f"tensor<{dims}i{_FLOAT_BITS[ft]}>{rest}")
        lines.append(f"{ind}{res} = stablehlo.convert {bits} : (tensor<{dims}i{_FLOAT_BITS[ft]}>) -> "
                     f"tensor<{rdims}{it}>{rest}")
    return "\n".join(lines)


#: the custom-call targets :func:`rewrite_custom_calls` can replace, with the decision that reads each
REWRITABLE = {"AwsNeuronTransferWithStaticRing": "S-95", "ResizeNearest": "S-96", "AwsNeuronTopK": "S-97"}
_READING = {"AwsNeuronTransferWithStaticRing": "identity", "ResizeNearest": "repeat", "AwsNeuronTopK": "sort-slice"}

_CALL = re.compile(r"^(\s*)(ROOT\s+)?(\S+) = (\(.*?\)|[a-z0-9]+\[[0-9,]*\](?:\{[^}]*\})?) custom-call\(([^)]*)\)"
                   r"(.*)$")
_DEF = re.compile(r"^\s*(?:ROOT\s+)?(\S+) = (\(.*?\)|[a-z0-9]+\[[0-9,]*\](?:\{[^}]*\})?) ")
_ARRAY = re.compile(r"^([a-z0-9]+)\[([0-9,]*)\](\{[^}]*\})?$")
_BACKEND = re.compile(r'backend_config="((?:[^"\\]|\\.)*)"')


def _array(shape: str, what: str) -> tuple[str, list[int], str]:
    m = _ARRAY.match(shape.strip())
    if m is None:
        raise OracleUnavailable(f"{what}: {shape} is not an array shape")
    return m.group(1), [int(d) for d in m.group(2).split(",") if d], m.group(3) or ""


def _shape(t: str, dims: list[int]) -> str:
    return f"{t}[{','.join(map(str, dims))}]"


@dataclass(frozen=True)
class Rewritten:
    """What :func:`rewrite_custom_calls` did: the new module and, per target, how many calls it replaced."""

    module: HloModule
    counts: dict[str, int]

    def describe(self) -> str:
        """``S-95 identity x242, S-96 ... x2`` (the reference's name in the oracle's table)."""
        return ", ".join(f"{REWRITABLE[t]} {_READING[t]} x{n}" for t, n in sorted(self.counts.items(), key=lambda x: REWRITABLE[x[0]]))


def _rewrite_call(ind: str, root: str, name: str, shape: str, operands: list[str], rest: str, target: str,
                  shapes: dict[str, str], comparators: dict[str, str]) -> list[str]:
    """The plain-HLO lines replacing one custom call (its name kept for the last line)."""
    what = f"{target} {name}"
    config = _BACKEND.search(rest)
    cfg = config.group(1).encode().decode("unicode_escape") if config else None
    if len(operands) != 1 or operands[0] not in shapes:
        raise OracleUnavailable(f"{what}: {len(operands)} operands, the rewrite knows one")
    src = operands[0]
    st, sdims, _ = _array(shapes[src], what)
    if target == "AwsNeuronTransferWithStaticRing":  # S-95: a placement hint, the operand itself
        rt, rdims, _ = _array(shape, what)
        if (rt, rdims) != (st, sdims) or cfg:
            raise OracleUnavailable(f"{what}: {shape} of {shapes[src]} (backend_config {cfg!r}): the rewrite knows "
                                    "only a call returning its operand's type and dims, without a config")
        return [f"{ind}{root}{name} = {shape} copy({src})"]
    if target == "ResizeNearest":  # S-96: torch nearest, align_corners = half_pixel_centers = false
        rt, rdims, _ = _array(shape, what)
        if cfg != '"00"':
            raise OracleUnavailable(f"{what}: backend_config {cfg!r}; the rewrite knows only '\"00\"' (align_corners "
                                    "and half_pixel_centers false)")
        if rt != st or len(sdims) != 4 or len(rdims) != 4 or rdims[0] != sdims[0] or rdims[3] != sdims[3] or \
                any(s == 0 or r % s for s, r in zip(sdims[1:3], rdims[1:3])):
            raise OracleUnavailable(f"{what}: {shapes[src]} -> {shape} is not an integer upscale of dims 1 and 2")
        fh, fw = rdims[1] // sdims[1], rdims[2] // sdims[2]
        wide = [sdims[0], sdims[1], fh, sdims[2], fw, sdims[3]]
        return [f"{ind}{name}.s96 = {_shape(st, wide)} broadcast({src}), dimensions={{0,1,3,5}}",
                f"{ind}{root}{name} = {shape} reshape({name}.s96)"]
    if target == "AwsNeuronTopK":  # S-97: stable descending sort (total order) of (value, iota), the first k
        m = re.fullmatch(r"\((.*), (.*)\)", shape)
        if m is None:
            raise OracleUnavailable(f"{what}: result {shape} is not a (values, indices) tuple")
        vt, vdims, _ = _array(m.group(1), what)
        it, idims, _ = _array(m.group(2), what)
        k = vdims[-1] if vdims else 0
        if cfg is None or not cfg.strip().isdigit() or int(cfg) != k:
            raise OracleUnavailable(f"{what}: backend_config {cfg!r} is not the result's k ({k})")
        if not sdims or vt != st or vdims[:-1] != sdims[:-1] or idims != vdims or it not in ("u32", "s32") or \
                k > sdims[-1]:
            raise OracleUnavailable(f"{what}: {shapes[src]} -> {shape} is not a top-{k} of the last dim")
        d = len(sdims) - 1
        cmp = comparators.setdefault(st, f"tongasm_s97_gt_{st}")
        lim = ", ".join(f"[0:{n}]" for n in vdims)
        return [f"{ind}{name}.iota = {_shape('s32', sdims)} iota(), iota_dimension={d}",
                f"{ind}{name}.sort = ({_shape(st, sdims)}, {_shape('s32', sdims)}) sort({src}, {name}.iota), "
                f"dimensions={{{d}}}, is_stable=true, to_apply={cmp}",
                f"{ind}{name}.v = {_shape(st, sdims)} get-tuple-element({name}.sort), index=0",
                f"{ind}{name}.i = {_shape('s32', sdims)} get-tuple-element({name}.sort), index=1",
                f"{ind}{name}.vk = {_shape(st, vdims)} slice({name}.v), slice={{{lim}}}",
                f"{ind}{name}.ik = {_shape('s32', vdims)} slice({name}.i), slice={{{lim}}}",
                f"{ind}{name}.iu = {_shape(it, vdims)} convert({name}.ik)",
                f"{ind}{root}{name} = {shape} tuple({name}.vk, {name}.iu)"]
    raise OracleUnavailable(f"{what}: no rewrite for this target")


def rewrite_custom_calls(module: HloModule, targets: set[str]) -> Rewritten:
    """The module with every custom call whose target is in ``targets`` replaced by plain HLO (S-95
    TransferWithStaticRing: ``copy``; S-96 ResizeNearest: ``broadcast`` + ``reshape``; S-97 TopK:
    ``iota``, a stable ``sort`` under a total-order ``compare GT``, ``slice``, ``convert``), re-parsed
    from the rewritten HLO text. A call whose operands, shapes or ``backend_config`` the rewrite does
    not know raises :class:`OracleUnavailable` naming it; calls of other targets stay."""
    unknown = targets - set(REWRITABLE)
    if unknown:
        raise ValueError(f"no rewrite for {', '.join(sorted(unknown))}")
    text = module.computation.as_hlo_text(print_large_constants=True)
    shapes: dict[str, str] = {}
    comparators: dict[str, str] = {}
    counts: dict[str, int] = {}
    out: list[str] = []
    for line in text.splitlines():
        d = _DEF.match(line)
        if d:
            shapes[d.group(1)] = d.group(2)
        m = _CALL.match(line)
        tgt = re.search(r'custom_call_target="([^"]+)"', line) if m else None
        if m is None or tgt is None or tgt.group(1) not in targets:
            # a call left as it is: the text parser refuses the proto's API_VERSION_UNSPECIFIED (its default
            # is the original API); the call stays a custom call (custom_calls() names it)
            out.append(line.replace(", api_version=API_VERSION_UNSPECIFIED", "") if m is not None else line)
            continue
        ind, root, name, shape, ops, rest = m.groups()
        out += _rewrite_call(ind, root or "", name, shape, [o.strip() for o in ops.split(",") if o.strip()], rest,
                             tgt.group(1), shapes, comparators)
        counts[tgt.group(1)] = counts.get(tgt.group(1), 0) + 1
    if not counts:
        return Rewritten(module, {})
    comps = []
    for t, name in comparators.items():
        comps += [f"{name} {{", f"  {name}.a = {t}[] parameter(0)", f"  {name}.b = {t}[] parameter(1)",
                  f"  {name}.c = s32[] parameter(2)", f"  {name}.d = s32[] parameter(3)",
                  f"  ROOT {name}.gt = pred[] compare({name}.a, {name}.b), direction=GT, type=TOTALORDER", "}", ""]
    first = next(i for i, ln in enumerate(out) if ln.startswith("HloModule"))
    new = "\n".join(out[:first + 1] + [""] + comps + out[first + 1:])
    xc = _xla()
    try:
        proto = xc._xla.hlo_module_from_text(new).as_serialized_hlo_module_proto() \
            if hasattr(xc._xla, "hlo_module_from_text") else xc.hlo.hlo_module_from_text(new).as_serialized_hlo_module_proto()
    except Exception as e:  # the rewrite produced HLO the parser refuses: a bug here, said as such
        raise RuntimeError(f"the rewritten HLO does not parse: {str(e).splitlines()[0][:300]}") from None
    return Rewritten(load_hlo(proto), counts)


def run_hlo(module: HloModule, inputs: dict[str, np.ndarray], *, float_bits: bool = False) -> dict[str, np.ndarray]:
    """Execute the module on XLA's CPU backend: ``inputs`` by NEFF input name (each of the parameter's
    dtype and shape); returns every result by NEFF output name. ``float_bits``: every float -> integer
    ``convert`` reinterprets the float's bits instead (:func:`bits_as_integers`, S-114)."""
    calls = module.custom_calls()
    if calls:
        raise OracleUnavailable(f"the HLO holds custom calls XLA's CPU backend cannot run: {', '.join(calls)}")
    xc = _xla()
    import jax

    dev = jax.devices("cpu")[0]
    mlir = xc._xla.mlir.xla_computation_to_mlir_module(module.computation)
    if float_bits:
        mlir = bits_as_integers(mlir)
    exe = dev.client.compile_and_load(mlir, xc.DeviceList((dev,)), xc.CompileOptions())
    args = []
    x64 = jax.enable_x64(True) if hasattr(jax, "enable_x64") else None  # else device_put makes s64 into s32
    if x64 is None:
        jax.config.update("jax_enable_x64", True)
    with x64 if x64 is not None else contextlib.nullcontext():
        for p in module.parameters:
            a = np.asarray(inputs[p.name])
            if a.dtype != p.dtype or a.shape != p.shape:
                raise ValueError(f"{p.name}: {a.dtype}{list(a.shape)} given, the HLO parameter is "
                                 f"{p.dtype}{list(p.shape)}")
            args.append(jax.device_put(a, dev))
    outs = exe.execute(args)
    if len(outs) != len(module.results):
        raise RuntimeError(f"XLA returned {len(outs)} results for {len(module.results)} named outputs")
    return {r.name: np.asarray(o).reshape(r.shape) for r, o in zip(module.results, outs)}


__all__ = ["REWRITABLE", "HloArray", "HloModule", "OracleUnavailable", "Rewritten", "bits_as_integers",
           "float_to_int_converts", "load_hlo", "rewrite_custom_calls", "run_hlo"]
