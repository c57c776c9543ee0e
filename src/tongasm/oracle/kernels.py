"""numpy references for corpus kernels whose source is not beside the NEFF: what each computes,
transcribed from the source repository the corpus's ``PROVENANCE.tsv`` names (read with the look-up
tools; the code is not copied), at the precision points the kernel stores.

**causal-attention-trn1** (``ucb-bar/autocomp``): all six NEFFs are one NKI kernel. Each NEFF's
``kernel_debug_info.json`` names it ``__main__.test`` and its ``*.klir.debuginfo.json`` gives its file,
``tests/trn-advanced-beta2/nki-migration-testing/beta2_csa2048_test.py`` (the version at commit
``ad74e876d6b4c0788fa7e124c8e99672c941b804``: the debug info's lines 26, 32, 36, 38, 46, 55 and 56
are that file's q-tile loop, q load, transpose, copy, k-tile loop and the two right-of-diagonal
memsets). It is called as ``test(q, k, v, causal_mask, kernel_dtype=bfloat16, acc_type=float32,
seq_len=2048, d_head=128)``; the HLO debug info's ``custom-call(p3, p2, p1, p0, constant)`` binds
``q = input3`` [2048, 128], ``k = input2`` [128, 2048], ``v = input1`` [2048, 128] and
``causal_mask = input0`` [2048, 2048]. The kernel returns ``(o, l, m)``, all bfloat16; each NEFF keeps
one of them as ``output0`` (the penguin debug info lists the three in tuple order, ``output0`` in its
place: o for model_84dd1b5e and model_fe60d24a, l for model_795597d1 and model_e0afb7fc, m for
model_3c6ff38f and model_d3959d01). Per 128-row query tile, with bf16 loads of q, k and v:

* ``s = q @ k`` in float32 (PE), then per 512-key tile: left of the diagonal ``s``; on it
  ``(s + 9984) * mask - 9984`` (float32: s keeps 2^-10); right of it ``-9984`` (memset); ``mx`` = the
  row max (float32);
* ``p = bf16(exp(s - mx))`` (the activation's output dtype); ``ps`` = the float32 sum of p;
* ``o = bf16(p @ v)`` (not normalised by ``ps``), ``l = bf16(log(ps) + mx)``, ``m = bf16(mx)``.

Where the NEFFs differ from that text, the reference follows the NEFFs (S-115; ``S-115=source`` takes
the text): (1) each NEFF loads k only once, ``k[:, 0:512]`` (one DMA reads input2; the source loads
each of the four k tiles), so every QK tile multiplies keys 0..511 (:func:`csa_k_tiles`); (2) every
stored score tile goes through bfloat16 (a Cast pair float32 -> bfloat16 -> float32 before the max
and the exp: on the diagonal after the mask, left of it as the PSUM copy ``qk_sbuf``), where the
stored revision keeps ``qk_res_buf`` and ``qk_sbuf`` in float32 (``acc_type``); the compiled revision
is not the stored one (its debug lines after line 63 are two lines further on).

The test script's own inputs are its ``csa2048_{q,k,v}.npy`` (not published) and the causal mask
``mask[i, :i+1] = 1``; here q, k, v are uniform in [-1, 1) from the seed and the mask is that one.
"""

from __future__ import annotations

import json
import re

import numpy as np

from ..neff.neff import Neff

NEG_INF = -9984.0
CSA_SOURCE = "tests/trn-advanced-beta2/nki-migration-testing/beta2_csa2048_test.py"


def _bf16(x: np.ndarray) -> np.ndarray:
    import ml_dtypes

    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def causal_mask(n: int) -> np.ndarray:
    """The test script's mask: row i sees keys 0..i (1.0), the rest 0.0."""
    return np.tril(np.ones((n, n), np.float32))


def csa2048(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray,
            k_tiles: list[int] | None = None, qk_bf16: bool = False) -> dict[str, np.ndarray]:
    """``o``, ``l``, ``m`` of the kernel (float64 arrays holding bfloat16 values), q [S, D], k [D, S],
    v [S, D], mask [S, S]; tiles of 128 queries and 512 keys as the kernel's. ``k_tiles``: which k tile
    each QK tile multiplies (default the source's, tile j for tile j); ``qk_bf16``: each score tile is
    stored through bfloat16 before the max and the exp (as the corpus NEFFs store it, S-115)."""
    seq, d = q.shape
    bp, bf = 128, 512
    qb, kb, vb = _bf16(q), _bf16(k), _bf16(v)
    o = np.zeros((seq, d))
    lse = np.zeros((seq, 1))
    mx_all = np.zeros((seq, 1))
    for t in range(seq // bp):
        q0 = t * bp
        kk = kb if k_tiles is None else np.concatenate([kb[:, j * bf:(j + 1) * bf] for j in k_tiles], axis=1)
        s = (qb[q0:q0 + bp] @ kk).astype(np.float32).astype(np.float64)
        store = _bf16 if qk_bf16 else (lambda x: np.asarray(x, np.float64))
        for j in range(seq // bf):
            k0 = j * bf
            blk = slice(k0, k0 + bf)
            if k0 > q0 + bp - 1:  # right of the diagonal: memset
                s[:, blk] = NEG_INF
            elif not q0 >= k0 + bf:  # on the diagonal: the mask formula, in float32
                m32 = mask[q0:q0 + bp, blk].astype(np.float32)
                s32 = s[:, blk].astype(np.float32)
                s[:, blk] = store((s32 + np.float32(-NEG_INF)) * m32 + np.float32(NEG_INF))
            else:  # left of it: the scores as they are
                s[:, blk] = store(s[:, blk])
        mx = s.max(axis=1, keepdims=True)
        p = _bf16(np.exp(s - mx))
        ps = p.sum(axis=1, keepdims=True)
        o[q0:q0 + bp] = _bf16(p @ vb)
        lse[q0:q0 + bp] = _bf16(np.log(ps) + mx)
        mx_all[q0:q0 + bp] = _bf16(mx)
    return {"o": o, "l": lse, "m": mx_all}


def csa_kernel_output(neff: Neff) -> str | None:
    """Which of the kernel's results (``o``, ``l``, ``m``) the NEFF keeps as ``output0``, when it is the
    causal-attention kernel (its debug info names the source file); None otherwise."""
    info = next((v for k, v in neff.members.items() if k.endswith(".klir.debuginfo.json")), None)
    if info is None or CSA_SOURCE.encode() not in info:
        return None
    try:
        names = json.loads(neff.members.get("kernel_debug_info.json", b"{}")).get("debug_info_files", [])
    except ValueError:
        return None
    if not any(isinstance(f, dict) and f.get("kernel_name") == "__main__.test" for f in names):
        return None
    penguin = next((v for k, v in neff.members.items() if k.endswith("debug_info_penguin.dbg_sg000000")), b"")
    m = re.search(rb"\{((?:non_local )?bfloat16 \([0-9, ]+\) %'[^']+'(?:,(?:non_local )?bfloat16 \([0-9, ]+\) "
                  rb"%'[^']+'){2})", penguin)
    if m is None:
        return None
    order = re.findall(rb"%'([^']+)'", m.group(1))
    if b"output0" not in order or len(order) != 3:
        return None
    return "olm"[order.index(b"output0")]




def dram_reads(neff: Neff, name: str) -> list[tuple[int, int, int]]:
    """(byte offset, rows, bytes per row) of every 0xD4 DMA of the NEFF that reads DRAM variable ``name``
    (named by var_id or through the DGE table, R-17): the data movement as the bundles state it."""
    from ..isa.decisions import DEFAULT_DECISIONS
    from ..neff.run import core_program
    from ..sim.scheduler import load_streams

    out = []
    for g in neff.graphs:
        core = core_program(neff, g)
        ids = {v.name: v.var_id for v in core.memory.variables}
        if name not in ids:
            continue
        table = core.memory.dge_table or []
        for s in load_streams(core.streams, DEFAULT_DECISIONS):
            for d in s.bundles:
                f = d.fields
                if d.opcode != 0xD4 or "src.var" not in f:
                    continue
                var: int | None = int(f["src.var"]) | int(f.get("src.var_hi", 0)) << 16
                if f.get("src.addr_mode") == 0x20:
                    var = table[var] if var is not None and var < len(table) else None
                elif f.get("src.addr_mode") != 0x10:
                    continue
                if var == ids[name]:
                    out.append((int(f["src.addr"]), int(f["src.num0"]) * int(f["src.num1"]), int(f["src.elem_size"])))
    return out


def csa_k_tiles(neff: Neff, k_name: str = "input2", seq: int = 2048, tile: int = 512) -> list[int]:
    """Which k tile each of the kernel's ``seq // tile`` QK tiles multiplies, as the NEFF's DMAs load k
    [D, seq] float32: the source's ``[0, 1, 2, 3]`` when each tile is loaded; ``[0, 0, 0, 0]`` when the NEFF
    loads only the first (its one ``k_tile`` buffer then holds keys 0..tile-1 for every tile). Any other
    pattern has no reference here."""
    from .xla import OracleUnavailable

    loaded = sorted({off // 4 // tile for off, rows, nbytes in dram_reads(neff, k_name) if nbytes == tile * 4})
    n = seq // tile
    if loaded == list(range(n)):
        return list(range(n))
    if loaded == [0]:
        return [0] * n
    raise OracleUnavailable(f"the NEFF loads k tiles {loaded} of {n}: no reference models that data movement")


__all__ = ["CSA_SOURCE", "NEG_INF", "causal_mask", "csa2048", "csa_k_tiles", "csa_kernel_output", "dram_reads"]
