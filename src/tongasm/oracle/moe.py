"""numpy references of the moe-trn2 family's NKI kernels (``KevGomes1403/nki-moe-megakernel``, commits in the
corpus's ``PROVENANCE.tsv``), transcribed from the source (read with the look-up tools; the code is not copied)
and evaluated in float64 at the precision points the kernel stores.

**The MoE layer** (``v6b.neff``, ``neff_171450338541704.neff``; ``kernels/moe_tkg/agents/v6b*.py``): one token,
top-8 routing over 128 experts, H = 2048, I = 256. Inputs ``input0`` routing weights float32 [1, 8],
``input1`` expert indices int32 [1, 8], ``input2`` down weights bfloat16 [E, I, H], ``input3`` gate/up weights
bfloat16 [E, H, 2I], ``input4`` the hidden state bfloat16 [1, H]; ``output0`` bfloat16 [1, H]::

    out = sum_k w_k * bf16(silu(h @ Wgu[e_k][:, :I]) * (h @ Wgu[e_k][:, I:])) @ Wd[e_k]

The inputs are drawn as :func:`moe_inputs` states (distinct experts spread over the 128, bf16 values of
magnitude in [2^-7, 1)); the tolerance is :mod:`tongasm.oracle.compare`'s with ``u`` bfloat16's (the
weights, the hidden state and the output), ``K = H = 2048`` (the longest contraction) and ``u_acc``
float32's (the PE accumulates in float32).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..neff.neff import Neff
from .compare import Tolerance, unit_roundoff
from .harness import Prepared, _neff_vars
from .xla import OracleUnavailable

#: the MoE kernels' interface: name -> (dtype, shape) as neff.json states it
MOE_INTERFACE = {"input0": ("float32", (1, 8)), "input1": ("int32", (1, 8)),
                 "input2": ("bfloat16", (128, 256, 2048)), "input3": ("bfloat16", (128, 2048, 512)),
                 "input4": ("bfloat16", (1, 2048)), "output0": ("bfloat16", (1, 2048))}
#: the routed experts of :func:`moe_inputs`: distinct, spread over 0..127 (both ends included)
MOE_EXPERTS = (3, 17, 100, 5, 64, 127, 0, 42)


def _interface(neff: Neff) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {n: (str(dt), shape) for n, (_kind, dt, shape, _nb) in _neff_vars(neff).items()}


def moe_inputs(seed: int) -> dict[str, np.ndarray]:
    """Inputs of the v6b signature: routing weights uniform in [0, 1), the experts :data:`MOE_EXPERTS`,
    down_weights [E, I, H], gate_up_weights [E, H, 2I], hidden [1, H]: bf16 values of magnitude in
    [2^-7, 1) with a random sign, from ``numpy.random.default_rng(seed)``."""
    import ml_dtypes

    rng = np.random.default_rng(seed)

    def bf16(*shape: int) -> np.ndarray:
        n = int(np.prod(shape))
        bits = rng.integers(0x3C00, 0x3F80, n, dtype=np.uint16) | (rng.integers(0, 2, n, dtype=np.uint16) << 15)
        return bits.view(ml_dtypes.bfloat16).reshape(shape)

    return {"input0": rng.uniform(0, 1, (1, 8)).astype(np.float32),
            "input1": np.array([MOE_EXPERTS], dtype=np.int32),
            "input2": bf16(128, 256, 2048), "input3": bf16(128, 2048, 512), "input4": bf16(1, 2048)}


def moe_reference(x: dict[str, np.ndarray]) -> np.ndarray:
    """``out = sum_k w_k * bf16(silu(h @ Wgu[e_k][:, :I]) * (h @ Wgu[e_k][:, I:])) @ Wd[e_k]`` (the kernel
    source), float64 [1, H]; the activation stored bfloat16 as the kernel stores it before the down matmul."""
    import ml_dtypes

    h = x["input4"].astype(np.float64)
    i = x["input2"].shape[1]
    out = np.zeros((1, x["input2"].shape[2]), np.float64)
    for w, e in zip(x["input0"][0].astype(np.float64), x["input1"][0]):
        g = h @ x["input3"][e].astype(np.float64)
        gate, up = g[:, :i], g[:, i:]
        act = (gate / (1 + np.exp(-gate)) * up).astype(ml_dtypes.bfloat16).astype(np.float64)
        out += w * (act @ x["input2"][e].astype(np.float64))
    return out


def _prepare_moe_layer(neff: Neff, seed: int) -> Prepared:
    nv = _neff_vars(neff)
    x = moe_inputs(seed)
    tol = Tolerance(unit_roundoff([v[1] for v in nv.values()]), nv["input4"][2][1], exact=False)
    return Prepared("numpy", x, lambda: {"output0": moe_reference(x)},
                    lambda name, value: value.astype(np.float64), lambda name: tol)


def prepare_moe(path: Path, neff: Neff, seed: int) -> Prepared:
    """The reference of a moe-trn2 NEFF, by its interface (neff.json's names, dtypes and shapes)."""
    have = _interface(neff)
    if have == MOE_INTERFACE:
        return _prepare_moe_layer(neff, seed)
    raise OracleUnavailable(f"{path.name}: not an interface of the moe-trn2 kernels here "
                            f"({', '.join(f'{n} {d}{list(s)}' for n, (d, s) in have.items())})")


__all__ = ["MOE_EXPERTS", "MOE_INTERFACE", "moe_inputs", "moe_reference", "prepare_moe"]
