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

**The attention decode step** (``attn_v6.neff``): ``qwen3_attn_tkg_fused`` of
``kernels/attn_tkg/agents/v6_ultimate.py`` at commit ``f1fe87a4`` (the NEFF's ``kernel_debug_info.json`` names
``__main__.qwen3_attn_tkg_fused``, its ``*.klir.debuginfo.json`` that file; the function's line 45 and its
loops' instruction lines and counts, e.g. 16 x 4 K-projection DMAs at line 176 and matmuls at 181, 20
flash-decode tiles, are that revision's). It has no output projection: the NEFF's ``output0`` is the
attention output [1, 1, Hq_out = 1024], not the ``..._oproj`` variant's. The HLO debug info's
``custom-call(p10, p9, ..., p0)`` binds the arguments in reverse: ``hidden = input10`` [1, 1, 2048],
``Wq = input9`` [1024, 2048], ``Wk = input8`` / ``Wv = input7`` [512, 2048], ``q_norm_weight = input6`` /
``k_norm_weight = input5`` [128], ``K_cache = input4`` / ``V_cache = input3`` [1, 4, 640, 128],
``cos = input2`` / ``sin = input1`` [1, 128], ``position_ids = input0`` [1, 1] (the kernel reads it
nowhere: no DMA of the NEFF reads input0; the cache is not written and attention covers all 640 cached
positions plus the current token). :func:`attn_tkg_v6` transcribes the kernel statement by statement with
``nc_matmul(stationary, moving) = stationary.T @ moving`` (the NKI definition: the partition axis is the
contraction), at the kernel's bfloat16 storage points (the squares before the ones-matmul sums, q before the
scores, the exp'd scores, the active token's q*k products, the output). As written, the kernel's tiles put
the contraction on other axes than a textbook attention would: the projection tiles
``W.ap([[H, 128], [1, 128]])`` put the weight's output rows on the partitions, so
``k[j] = sum_t sum_p Wk[128 kv + p, 128 t + j] h[128 t + p]``; the score tile is ``K_tile.T @ q``
(``score[m] = sum_p K[s0 + p, m] q[p]``) and the weighted values ``V_tile @ p`` (``o[m] = sum_p V[s0 + m, p]
e[p]``). The reference computes that, as the NEFF's bundles do. Inputs are the harness's uniform floats in
[-1, 1) (rounded to bfloat16) in parameter order; ``position_ids`` holds 640 (the source's own test:
``pos = S_prior``). Tolerance: ``u`` bfloat16's, ``u_acc`` float32's, ``K = H + d + S_prior + 1`` (the
projection's contraction, the score's and the softmax sum's).
"""

from __future__ import annotations


import numpy as np


#: the MoE kernels' interface: name -> (dtype, shape) as neff.json states it
MOE_INTERFACE = {"input0": ("float32", (1, 8)), "input1": ("int32", (1, 8)),
                 "input2": ("bfloat16", (128, 256, 2048)), "input3": ("bfloat16", (128, 2048, 512)),
                 "input4": ("bfloat16", (1, 2048)), "output0": ("bfloat16", (1, 2048))}
#: the routed experts of :func:`moe_inputs`: distinct, spread over 0..127 (both ends included)
MOE_EXPERTS = (3, 17, 100, 5, 64, 127, 0, 42)


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


ATTN_INTERFACE = {"input0": ("int32", (1, 1)), "input1": ("bfloat16", (1, 128)), "input2": ("bfloat16", (1, 128)),
                  "input3": ("bfloat16", (1, 4, 640, 128)), "input4": ("bfloat16", (1, 4, 640, 128)),
                  "input5": ("bfloat16", (128,)), "input6": ("bfloat16", (128,)),
                  "input7": ("bfloat16", (512, 2048)), "input8": ("bfloat16", (512, 2048)),
                  "input9": ("bfloat16", (1024, 2048)), "input10": ("bfloat16", (1, 1, 2048)),
                  "output0": ("bfloat16", (1, 1, 1024))}
#: the attention kernel's arguments by NEFF input (the HLO custom call's operands, reversed)
ATTN_ARGS = {"hidden": "input10", "Wq": "input9", "Wk": "input8", "Wv": "input7", "q_norm_weight": "input6",
             "k_norm_weight": "input5", "K_cache": "input4", "V_cache": "input3", "cos": "input2", "sin": "input1",
             "position_ids": "input0"}


def _bf16(x: np.ndarray) -> np.ndarray:
    import ml_dtypes

    return np.asarray(x, np.float64).astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def attn_tkg_v6(a: dict[str, np.ndarray], eps: float = 1e-6) -> np.ndarray:
    """``qwen3_attn_tkg_fused`` (v6_ultimate.py) on its arguments by name (:data:`ATTN_ARGS`'s keys), float64
    [1, 1, Hq_out] rounded to bfloat16 as the kernel stores it; see the module docstring for the reading."""
    p = 128
    h = a["hidden"].astype(np.float64).reshape(-1, 1)  # [H, 1] column layout
    wq, wk, wv = (a[n].astype(np.float64) for n in ("Wq", "Wk", "Wv"))
    kc, vc = (a[n].astype(np.float64)[0] for n in ("K_cache", "V_cache"))  # [Hkv, S_prior, d]
    qnw, knw = (a[n].astype(np.float64).reshape(p, 1) for n in ("q_norm_weight", "k_norm_weight"))
    cos, sin = (a[n].astype(np.float64).reshape(p, 1) for n in ("cos", "sin"))
    n_h, n_kv, gqa, n_s = h.shape[0] // p, wk.shape[0] // p, wq.shape[0] // wk.shape[0], kc.shape[1] // p
    ones = np.ones((p, p))

    def nc_matmul(stationary: np.ndarray, moving: np.ndarray) -> np.ndarray:
        return stationary.T @ moving

    def project(w: np.ndarray, head: int) -> np.ndarray:
        return sum((nc_matmul(w[head * p:(head + 1) * p, t * p:(t + 1) * p], h[t * p:(t + 1) * p]) for t in range(n_h)),
                   np.zeros((p, 1)))

    def norm_rope(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
        total = nc_matmul(ones, _bf16(x * x))  # the squares stored bf16, summed over the partitions
        x2 = x * (1.0 / np.sqrt(total / p + eps)) * weight
        rot = np.concatenate([-x2[p // 2:], x2[:p // 2]])
        return x2 * cos + rot * sin

    out = np.zeros((wq.shape[0], 1))
    for kv in range(n_kv):
        k_rope = norm_rope(project(wk, kv), knw)
        v_active = project(wv, kv)
        q_scaled = np.concatenate([norm_rope(project(wq, kv * gqa + g), qnw) * (1.0 / np.sqrt(128.0))
                                   for g in range(gqa)], axis=1)  # [d, gqa]
        q_packed = _bf16(q_scaled)
        acc, run_max, run_sum = np.zeros((p, gqa)), np.full((p, gqa), -1e9), np.zeros((p, gqa))
        for st in range(n_s):
            k_tile, v_tile = kc[kv, st * p:(st + 1) * p], vc[kv, st * p:(st + 1) * p]  # [rows, d]
            score = nc_matmul(k_tile, q_packed)
            new_max = np.maximum(run_max, score.max(axis=0, keepdims=True))
            alpha = np.exp(run_max - new_max)
            e = _bf16(np.exp(score - new_max))
            run_sum = run_sum * alpha + nc_matmul(ones, e)
            acc = acc * alpha + nc_matmul(v_tile.T, e)
            run_max = new_max
        score_active = nc_matmul(ones, _bf16(k_rope * q_scaled))
        new_max = np.maximum(run_max, score_active)
        alpha, e = np.exp(run_max - new_max), np.exp(score_active - new_max)
        total = run_sum * alpha + e
        acc = acc * alpha + v_active * e
        inv = (1.0 / np.sqrt(total + 1e-9)) ** 2
        out[kv * gqa * p:(kv + 1) * gqa * p] = (acc * inv).T.reshape(-1, 1)
    return _bf16(out).reshape(1, 1, -1)


__all__ = ["ATTN_ARGS", "ATTN_INTERFACE", "MOE_EXPERTS", "MOE_INTERFACE", "attn_tkg_v6", "moe_inputs", "moe_reference"]
