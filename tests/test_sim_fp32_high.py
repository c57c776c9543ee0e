"""S-112: what sunda 2.14's Matmul with fp32_mode HIGH computes, pinned on values worked out by hand.

The four PE bundles are the first fp32 matmul of yolox-trn1 MODULE_15756455156218002102 (its PE bundles 2..5,
the first one's wait cleared): Ldweights fp32=low, Matmul fp32=high flags=first, Ldweights fp32=high, Matmul
fp32=high flags=last, stationary W = sb[p0:4]+0x2600 (4 x 16 fp32), moving X = sb[p0:4]+0x2fe00 (4 x 4 fp32),
out = psum.b2[p0:16]+0x60 (16 x 4 fp32).

W[0][:] = 1 + 2**-20 (hi(W) = 1, W - hi(W) = 2**-20), the other rows 0. X[0][0] = 1 + 2**-16 (hi = 1: bfloat16
keeps 7 fraction bits), X[0][1] = 1, X[0][2] = 3, the rest 0. Then out[m][n] = W[0][m] * X[0][n] passes:

* high (the HIGH Matmul multiplies by hi(X)): 2**-20 * 1 + 1 * 1 = 1 + 2**-20 in column 0;
* whole (X whole): 2**-20 * (1 + 2**-16) + (1 + 2**-16) = 1 + 2**-16 + 2**-20 + 2**-36, which rounds to
  1 + 2**-16 + 2**-20 in float32;
* columns 1 and 2 (X bf16-exact, as in every real graph: its moving tiles are identities) give W[0][m] and
  3 W[0][m] = 3 + 3 * 2**-20 (exact) under both.
"""

from __future__ import annotations

import numpy as np
import pytest

from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.machine import Machine
from tongasm.sim.scheduler import Scheduler, load_streams

BUNDLES = [  # MODULE_15756455156218002102 sg00.pe bundles 2..5 (bundle 2's wait sem4>=3 cleared)
    "011000000000000000000000000000003c260000ffff000000001000010001000a0100000000041000000000010f02"
    "0000000000000000000000000000000000",
    "0210000000000000000000000000000000fe02000100000000000400010001000a0200000000041000000001010f10"
    "0060100002010000000000040001000100",
    "011000000000000000000000000000003c260000ffff000000001000010001000a0200000000041000000000010f02"
    "0000000000000000000000000000000000",
    "0210000000001305000000000000000000fe02000100000000000400010001000a0200000000041000000002010f10"
    "0060100002010000000000040001000100",
]


def run(*decisions: str) -> np.ndarray:
    ds = DecisionSet.parse(decisions)
    tgt = get_target("gen2")
    m = Machine(tgt)
    sb = m.sbuf.reshape(tgt.sbuf_partitions, -1)
    w = np.zeros((4, 16), np.float32)
    w[0] = 1 + 2.0 ** -20
    x = np.zeros((4, 4), np.float32)
    x[0, :3] = [1 + 2.0 ** -16, 1, 3]
    sb[:4, 0x2600:0x2640] = w.view(np.uint8)
    sb[:4, 0x2FE00:0x2FE10] = x.view(np.uint8)
    stream = b"".join(bytes.fromhex(h) for h in BUNDLES)
    Scheduler(m, load_streams({"pe": stream}, ds), ds).run()
    mm = decode_bundle(stream, 192, decisions=ds).fields
    return m.tensor_view("pe", mm["psum.addr"], 16, [(1, 4)], 10).reshape(16, 4).copy()


def test_the_bundles_are_the_2_14_fp32_matmul() -> None:
    modes = [decode_bundle(bytes.fromhex(h)).fields["fp32_mode"] for h in BUNDLES]
    assert modes == [1, 2, 2, 2]


def test_s112_high_multiplies_hi_of_the_moving_tile() -> None:
    out = run()
    assert np.all(out[:, 0] == np.float32(1 + 2.0 ** -20))
    assert np.all(out[:, 1] == np.float32(1 + 2.0 ** -20))
    assert np.all(out[:, 2] == np.float32(3 + 3 * 2.0 ** -20))
    assert np.all(out[:, 3] == 0)


def test_s112_whole_uses_the_moving_tile_whole() -> None:
    out = run("S-112=whole")
    assert np.all(out[:, 0] == np.float32(1 + 2.0 ** -16 + 2.0 ** -20))
    assert np.all(out[:, 1:3] == run()[:, 1:3])  # a bf16-exact moving tile: the readings agree


def test_s112_stop_refuses_the_run() -> None:
    with pytest.raises(Exception, match="S-110"):
        run("S-112=stop")
