"""The batch-norm backward family without the corpus: bundles written here byte by byte from the byte
map (docs/formats.md; the derivation beside each value), decoded to the fields they were written from,
and run on data small enough to work the sums and dx out by hand (S-72, R-61, the book's dx formula)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from tongasm.check import check_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError
from tongasm.text.assembler import assemble_text
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput

GEN2 = get_target("gen2")
P = 2


def tensor3d(addr: int, n: int) -> bytes:
    return struct.pack("<I3h3H", addr, 1, 1, 1, n, 1, 1)  # ADDR4, steps (1, 1, 1), counts (n, 1, 1)


def grad_bundle() -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x63, 0x10, 0, 0])
    b[0x0C:0x10] = struct.pack("<I", 0x300)                # mean column: SBUF p0 byte 0x300
    b[0x10:0x20] = tensor3d(0x100, 4)                      # x
    b[0x20:0x30] = tensor3d(0x180, 4)                      # dy
    b[0x30:0x38] = struct.pack("<IhH", 0x400, 1, 3)        # out TENSOR1D: 3 sums at 0x400
    b[0x38:0x3C] = struct.pack("<I", 0x380)                # varfactor column at 0x380
    b[0x3C:0x40] = bytes([0xAA, 0x0A, 0x0A, P])            # x | dy << 4 float32, coeff fp32, out fp32, 2 partitions
    return bytes(b)


def load_bundle(kind: int = 1, mean_word: int = 0x300) -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x64, 0x10, 0, 0])
    b[0x10:0x1C] = struct.pack("<IhhHH", 0x500, 1, 1, 3, 1)  # [scale, A, Bc] at 0x500
    b[0x1C:0x20] = struct.pack("<I", 0x40800000)             # N = 4.0
    b[0x20], b[0x22] = 0x0A, P
    b[0x2C:0x30] = struct.pack("<I", mean_word)              # the mean operand's value word
    b[0x30] = kind                                           # 1 pointer, 0 immediate
    return bytes(b)


def back_bundle() -> bytes:
    b = bytearray(64)
    b[0:4] = bytes([0x65, 0x10, 0, 0])
    b[0x0C:0x10] = bytes([0xAA, 0x0A, 0, P])                 # x | dy << 4, dx float32, 2 partitions
    b[0x10:0x20] = tensor3d(0x100, 4)
    b[0x20:0x30] = tensor3d(0x180, 4)
    b[0x30:0x40] = tensor3d(0x600, 4)                        # dx at 0x600
    return bytes(b)


X = np.array([[1, 2, 3, 4], [0, 0, 2, 2]], np.float32)
DY = np.array([[1, 2, 3, 4], [1, 0, 0, 3]], np.float32)
MEAN = np.array([2.5, 1.0], np.float32)
VF = np.array([2.0, 0.5], np.float32)
COEFF = np.array([[0.5, 1, 2], [2, 0, 1]], np.float32)  # [scale, A, Bc]


def machine() -> Machine:
    m = Machine(GEN2)
    for byte, arr in ((0x100, X), (0x180, DY), (0x300, MEAN[:, None]), (0x380, VF[:, None]), (0x500, COEFF)):
        for p in range(P):
            row = np.ascontiguousarray(arr[p], np.float32).view(np.uint8)
            m.sbuf[p * m.sbuf_stride + byte:p * m.sbuf_stride + byte + row.size] = row
    return m


def read(m: Machine, byte: int, n: int) -> list[list[float]]:
    return np.stack([m.sbuf[p * m.sbuf_stride + byte:p * m.sbuf_stride + byte + 4 * n].view(np.float32)
                     for p in range(P)]).tolist()


def run(m: Machine, raw: bytes, *decisions: str) -> None:
    ds = DecisionSet.parse(list(decisions))
    execute(m, "dve", decode_bundle(raw, decisions=ds), ds)


def test_the_hand_written_bundles_decode_to_their_fields() -> None:
    d = decode_bundle(grad_bundle()).fields
    assert (d["mean_ptr"], d["varfactor_ptr"], d["x_dtype"], d["dy_dtype"], d["num_partitions"]) == (0x300, 0x380, 10,
                                                                                                   10, P)
    assert (d["out.addr"], d["out.step0"], d["out.num0"]) == (0x400, 1, 3)
    d = decode_bundle(load_bundle()).fields
    assert (d["coeff.num0"], d["total_elements"], d["mean_value"], d["mean_kind"]) == (3, 0x40800000, 0x300, 1)
    d = decode_bundle(back_bundle()).fields
    assert (d["dx.addr"], d["dx_dtype"], d["num_partitions"]) == (0x600, 10, P)


def test_text_round_trip_and_checks() -> None:
    data = grad_bundle() + load_bundle() + back_bundle()
    text = "\n".join(fast_listing([StreamInput("s.dve", data)], target=GEN2))
    assert "mean_kind=pointer" in text and "n=4.0:float32" in text
    assert bytes(assemble_text(text).streams["s.dve"]) == data
    assert check_stream(data, name="s.dve", target=GEN2, stream="dve") == []


def test_grad_accumulate_sums() -> None:
    """Row 0: x - m = [-1.5, -0.5, 0.5, 1.5], sum dy = 10, sum (x-m) dy = 5, vf 2: [10, 5 * 4, 5 * 2];
    row 1: x - m = [-1, -1, 1, 1], sum dy = 4, sum (x-m) dy = 2, vf 0.5: [4, 2 * 0.25, 2 * 0.5]."""
    m = machine()
    run(m, grad_bundle())
    assert read(m, 0x400, 3) == [[10, 20, 10], [4, 0.5, 1]]
    m = machine()
    run(m, grad_bundle(), "S-72=book")
    assert read(m, 0x400, 3) == [[10, 10, 20], [4, 1, 0.5]]


def test_backprop_dx() -> None:
    """dx = (dy N - ((x - m) Bc + A)) scale. Row 0: 4 dy = [4, 8, 12, 16], (x-m) 2 + 1 = [-2, 0, 2, 4], x 0.5:
    [3, 4, 5, 6]; row 1: [4, 0, 0, 12] - [-1, -1, 1, 1] = [5, 1, -1, 11], x 2: [10, 2, -2, 22]."""
    m = machine()
    run(m, load_bundle())
    run(m, back_bundle())
    assert read(m, 0x600, 4) == [[3, 4, 5, 6], [10, 2, -2, 22]]


def test_an_immediate_mean() -> None:
    """Kind 0 (R-61=profile-codes): the value word is the mean itself, float32 1.0 for both rows. Row 0:
    [4, 8, 12, 16] - ([0, 1, 2, 3] 2 + 1) = [3, 5, 7, 9], x 0.5; row 1 as before (its mean is 1.0)."""
    m = machine()
    run(m, load_bundle(kind=0, mean_word=0x3F800000))
    run(m, back_bundle())
    assert read(m, 0x600, 4) == [[1.5, 2.5, 3.5, 4.5], [10, 2, -2, 22]]


def test_r61_n2_codes_read_the_pointer_as_an_immediate() -> None:
    """Under R-61=n2-codes kind 1 is an immediate: the word 0x300 as float32 is a denormal, not the mean."""
    m = machine()
    run(m, load_bundle(), "R-61=n2-codes")
    run(m, back_bundle(), "R-61=n2-codes")
    assert read(m, 0x600, 4) != [[3, 4, 5, 6], [10, 2, -2, 22]]


def test_the_checks_refuse_what_the_verifier_asserts() -> None:
    bad = bytearray(grad_bundle())
    bad[0x36] = 2  # out.num0 = 2 sums
    found = [(f.check, f.field, f.value) for f in check_stream(bytes(bad), name="s.dve", target=GEN2, stream="dve")]
    assert ("bn.backward_shape", "out", 2) in found


def test_backprop_without_param_load_stops() -> None:
    with pytest.raises(SimError, match="no BatchNormParamLoad before it"):
        run(machine(), back_bundle())


def test_bir_bn_gradients_and_backprop_run_the_book_formulas() -> None:
    """BNGradients then BNBackprop from BIR on 2 partitions of 4 elements: the sums (S-72 order: sum dy,
    sum (x-m) dy vf^2, sum (x-m) dy vf) and dx = (dy N - ((x - m) Bc + A)) scale with the coefficients given."""
    from conftest import ap, inst, kernel, loc
    from tongasm.ir import read_bir
    from tongasm.sim.run import run_kernel

    a = np.zeros((128, 16384), np.float32)
    x = np.array([[1, 2, 3, 4], [0, -1, 2, 5]], np.float32)
    dy = np.array([[1, 0, -1, 2], [3, 1, 1, 0]], np.float32)
    a[:2, 0:4], a[:2, 4:8] = x, dy
    a[:2, 8], a[:2, 9] = [2.0, 1.0], [0.5, 2.0]          # mean, vf
    a[:2, 16:19] = [[2.0, 0.5, 1.5], [1.0, -1.0, 0.25]]  # [scale, A, Bc]
    col = [[16384, 2], [1, 1]]
    k = kernel(inst("BNGradients", [ap("a", "float32", [[16384, 2], [1, 4]]), ap("a", "float32", [[16384, 2], [1, 4]], 4),
                                    ap("a", "float32", col, 8), ap("a", "float32", col, 9)],
                    [ap("a", "float32", [[16384, 2], [1, 3]], 12)], name="g", engine="DVE"),
               inst("BNBackprop", [ap("a", "float32", [[16384, 2], [1, 4]]), ap("a", "float32", [[16384, 2], [1, 4]], 4),
                                   ap("a", "float32", [[16384, 2], [1, 3]], 16), ap("a", "float32", col, 8)],
                    [ap("a", "float32", [[16384, 2], [1, 4]], 20)], name="b", engine="DVE", total_elements=4.0),
               allocs=[loc("a")])
    out = run_kernel(read_bir(k), {"a": a}).outputs(["a"])["a"]
    # by hand, partition 0: m 2, vf 0.5: sum dy = 2, sum (x-m) dy = -1*1 + 0 + 1*-1 + 2*2 = 2
    # partition 1: m 1, vf 2: sum dy = 5, sum (x-m) dy = -3 - 2 + 1 + 0 = -4
    np.testing.assert_allclose(out[:2, 12:15], [[2, 2 * 0.25, 2 * 0.5], [5, -4 * 4, -4 * 2]])
    # dx p0 = (dy*4 - ((x-2)*1.5 + 0.5)) * 2; p1 = (dy*4 - ((x-1)*0.25 - 1)) * 1
    want = np.stack([(dy[0] * 4 - ((x[0] - 2) * 1.5 + 0.5)) * 2, (dy[1] * 4 - ((x[1] - 1) * 0.25 - 1)) * 1])
    np.testing.assert_allclose(out[:2, 20:24], want)
