"""Independent reference simulator for the two real NEFFs (research check, not tongasm code).

What it checks: whether the byte readings proposed in docs/research/real-opcodes.md (and the draft
chapter's §4 semantics) reproduce ``out = x @ y`` from the real bundles of matmul_small.neff (and,
with --large, matmul_large.neff). Readings under test can be switched:
  --no-unreverse   Ldweights: i-th element visited by the +0x10 pattern lands in column i (not M-1-i; R-10 off)
  --tt-out10       TensorTensor: out = +0x10, in0 = +0x20, in1 = +0x30 (the refuted book reading; R-7 off)
  --psum-fp32-tr   transposes write fp32 to PSUM (R-12 off)
  --flags-accu4    Matmul: accumulate only if +0x2B bit 0x04 is set, otherwise overwrite (book ACCU reading)
Execution model (R-20): each engine in order; an instruction starts when all its waits hold
(sem >= value); compute updates apply at completion; a DMA is issued when its wait holds and completes
(data moved, then sem[+0x0D] += +0x0E) at a random later step. The scheduler picks uniformly at random
among runnable engines and in-flight DMAs (seeded). Nothing here imports tongasm.
"""
from __future__ import annotations

import argparse
import random
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from neffload import defjson, i16, members, stream, u16, u32

WIRE_NP = {0x07: np.float16, 0x0A: np.float32, 0x08: np.int32, 0x06: None}
ESIZE = {0x07: 2, 0x0A: 4, 0x08: 4, 0x06: 2, 0x09: 4, 0x05: 2, 0x04: 2, 0x02: 1, 0x03: 1}
ENGINES = ("SP", "Pool", "PE", "Activation", "DVE")
SB_BYTES = 0x40000
PSUM_BASE = 0x2000000
PSUM_BYTES = 0x4000


class Core:
    def __init__(self, neff: str, graph: str, dram: dict, opts) -> None:
        self.neff, self.graph, self.opts = neff, graph, opts
        self.sb = np.zeros((128, SB_BYTES), np.uint8)
        self.psum = np.zeros((128, PSUM_BYTES), np.uint8)
        self.sem = np.zeros(256, np.int64)
        self.W = None
        d = defjson(neff, graph)
        self.var = {}
        self.dge = None
        backing = np.zeros(16 << 20, np.uint8)  # private spill backing store of this core
        for name, v in d["var"].items():
            t = v["type"]
            if t in ("input", "output"):
                self.var[v["var_id"]] = dram[name]
            elif t == "file":
                raw = members(neff)[f"{graph}/{v['file_name']}"]
                hl = int.from_bytes(raw[8:10], "little") + 10  # .npy v1 header length
                self.var[v["var_id"]] = np.frombuffer(raw[hl:], np.uint8).copy()
            elif t == "virtual":
                o = v["backing_variable_off"]
                self.var[v["var_id"]] = backing[o:o + v["size"]]
            elif t == "dge-table":
                self.dge = v["list"]
        self.streams = {e: stream(neff, graph, e) for e in ENGINES}
        self.pc = {e: 0 for e in ENGINES}
        self.inflight: list[bytes] = []
        self.counts = {}

    # -- memory helpers ------------------------------------------------------------------------
    def _space(self, addr: int):
        if PSUM_BASE <= addr < PSUM_BASE + 0x400000:
            rel = addr - PSUM_BASE
            assert rel < PSUM_BYTES, hex(addr)  # partition 0 only in these files
            return self.psum, 0, rel
        return self.sb, addr >> 18, addr & (SB_BYTES - 1)

    @staticmethod
    def _offsets(steps, nums):
        off = np.zeros(1, np.int64)
        for s, n in zip(steps, nums):  # slot 0 innermost (D-6)
            off = (np.arange(n, dtype=np.int64)[:, None] * s + off[None, :]).reshape(-1)
        return off

    def read_ap(self, addr, steps, nums, wire, nparts):
        mem, p0, byte = self._space(addr)
        es = ESIZE[wire]
        off = self._offsets(steps, nums)
        idx = (byte + off[:, None] * es + np.arange(es)[None, :]).reshape(-1)
        raw = np.ascontiguousarray(mem[p0:p0 + nparts][:, idx])
        return raw  # uint8 [nparts, n*es]

    def write_ap(self, addr, steps, nums, wire, nparts, raw):
        mem, p0, byte = self._space(addr)
        es = ESIZE[wire]
        off = self._offsets(steps, nums)
        idx = (byte + off[:, None] * es + np.arange(es)[None, :]).reshape(-1)
        mem[p0:p0 + nparts][:, idx] = raw

    @staticmethod
    def conv(raw, src, dst):
        if src == dst:
            return raw
        a = raw.view(WIRE_NP[src])
        return a.astype(WIRE_NP[dst]).view(np.uint8)

    @staticmethod
    def tensor(b, off, nd):
        return u32(b, off), [i16(b, off + 4 + 2 * k) for k in range(nd)], \
            [u16(b, off + 4 + 2 * nd + 2 * k) for k in range(nd)]

    # -- instructions --------------------------------------------------------------------------
    def waits(self, b):
        ws = []
        if b[4]:
            assert b[4] == 5, hex(b[4])
            ws.append((b[5], u32(b, 8)))
        if b[0] == 0xA0 and b[0x20]:
            assert b[0x20] == 5
            ws.append((b[0x21], u32(b, 0x24)))
        return ws

    def ready(self, b):
        return all(self.sem[s] >= v for s, v in self.waits(b))

    def execute(self, e, b):
        op = b[0]
        self.counts[op] = self.counts.get(op, 0) + 1
        if op in (0xB1, 0xCC, 0x23, 0xA0, 0xA4):
            pass
        elif op == 0xD4:
            self.inflight.append(b)
            return  # header update none on DMA (checked: +0x06 == 0)
        elif op == 0x01:
            self.ldweights(b)
        elif op == 0x02:
            self.matmul(b)
        elif op in (0x46, 0x47):
            a, s, n = self.tensor(b, 0x0C, 4)
            da, ds, dn = self.tensor(b, 0x2C, 4)
            np_ = b[0x22]
            raw = self.read_ap(a, s, n, b[0x20], np_)
            self.write_ap(da, ds, dn, b[0x21], np_, self.conv(raw, b[0x20], b[0x21]))
        elif op == 0x49:
            da, ds, dn = self.tensor(b, 0x2C, 4)
            cnt = u32(b, 0x1C)
            es = ESIZE[b[0x20]]
            fill = np.frombuffer(u32(b, 0x28).to_bytes(4, "little")[:es], np.uint8)
            raw = np.tile(fill, (b[0x22], cnt))
            self.write_ap(da, ds, dn, b[0x20], b[0x22], raw)
        elif op == 0x41:
            assert b[0x0E] == 4  # add
            lo, hi = b[0x0C] & 15, b[0x0C] >> 4
            np_ = b[0x0F]
            slots = (0x10, 0x20, 0x30) if not self.opts.tt_out10 else (0x20, 0x30, 0x10)
            a0 = self.read_ap(*self.tensor(b, slots[0], 3), lo, np_).view(WIRE_NP[lo])
            a1 = self.read_ap(*self.tensor(b, slots[1], 3), hi, np_).view(WIRE_NP[hi])
            r = (a0.astype(np.float64) + a1.astype(np.float64)).astype(WIRE_NP[b[0x0D]])
            self.write_ap(*self.tensor(b, slots[2], 3), b[0x0D], np_, r.view(np.uint8))
        else:
            raise NotImplementedError(hex(op))
        if b[6]:
            assert b[6] == 0x13, hex(b[6])
            self.sem[b[7]] += 1

    def ldweights(self, b):
        a, s, n = self.tensor(b, 0x10, 3)
        K, M, dt = b[0x26], b[0x27], b[0x20]
        v = self.read_ap(a, s, n, dt, K).view(WIRE_NP[dt]).astype(np.float64)  # [K, M] in AP order
        assert v.shape == (K, M)
        self.W = v[:, ::-1].copy() if not self.opts.no_unreverse else v.copy()
        self.Wdt = dt

    def matmul(self, b):
        a, s, n = self.tensor(b, 0x10, 3)
        K, M, dt = b[0x26], b[0x27], b[0x20]
        mov = self.read_ap(a, s, n, dt, K).view(WIRE_NP[dt]).astype(np.float64)  # [K, N]
        R = self.W[:, :M].T @ mov  # [M, N]
        pa, ps, pn = self.tensor(b, 0x30, 3)
        flags, tr = b[0x2B], b[0x22]
        if tr and not self.opts.psum_fp32_tr:
            self.write_ap(pa, ps, pn, dt, M, R.astype(WIRE_NP[dt]).view(np.uint8))
            return
        start = bool(flags & 1) if not self.opts.flags_accu4 else not (flags & 4)
        if start:
            out = R.astype(np.float32)
        else:
            old = self.read_ap(pa, ps, pn, 0x0A, M).view(np.float32).astype(np.float64)
            out = (old + R).astype(np.float32)
        self.write_ap(pa, ps, pn, 0x0A, M, out.view(np.uint8))

    def dma_complete(self, b):
        def side(off, step_off, num_off, span_off):
            imm, vid, hi, mode = u32(b, off), u16(b, off + 4), b[off + 6], b[off + 7]
            assert hi == 0 and mode in (0x10, 0x20), hex(mode)
            if mode == 0x20:
                vid = self.dge[vid]
            return vid, imm, u32(b, step_off), u32(b, step_off + 4), u16(b, num_off), u16(b, num_off + 2), \
                u16(b, span_off)

        sv, sa, s0, s1, sn0, sn1, sspan = side(0x10, 0x18, 0x20, 0x24)
        dv, da, d0, d1, dn0, dn1, dspan = side(0x28, 0x30, 0x38, 0x3C)
        chunks = []
        for j in range(sn1):  # j outer, i inner
            for i in range(sn0):
                chunks.append(self._dram_read(sv, sa + i * s0 + j * s1, sspan))
        data = self.conv(np.concatenate(chunks), b[0x3E], b[0x3F])
        k = 0
        for j in range(dn1):
            for i in range(dn0):
                self._dram_write(dv, da + i * d0 + j * d1, data[k:k + dspan])
                k += dspan
        assert k == len(data)
        self.sem[b[0x0D]] += b[0x0E]

    def _dram_read(self, vid, addr, n):
        if vid == 0:
            return self.sb[addr >> 18, (addr & (SB_BYTES - 1)):(addr & (SB_BYTES - 1)) + n].copy()
        return np.asarray(self.var[vid][addr:addr + n]).copy()

    def _dram_write(self, vid, addr, data):
        if vid == 0:
            self.sb[addr >> 18, (addr & (SB_BYTES - 1)):(addr & (SB_BYTES - 1)) + len(data)] = data
        else:
            self.var[vid][addr:addr + len(data)] = data

    def run(self, rng: random.Random):
        while True:
            choices = []
            for e in ENGINES:
                s = self.streams[e]
                if self.pc[e] * 64 < len(s):
                    b = s[self.pc[e] * 64:self.pc[e] * 64 + 64]
                    if self.ready(b):
                        choices.append(("eng", e))
            for k in range(len(self.inflight)):
                choices.append(("dma", k))
            if not choices:
                break
            kind, x = rng.choice(choices)
            if kind == "eng":
                b = self.streams[x][self.pc[x] * 64:self.pc[x] * 64 + 64]
                self.execute(x, b)
                self.pc[x] += 1
            else:
                self.dma_complete(self.inflight.pop(x))
        stuck = {e: self.pc[e] for e in ENGINES if self.pc[e] * 64 < len(self.streams[e])}
        return stuck


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--seed", type=int, default=0, help="seed of the input data")
    ap.add_argument("--sched-seed", type=int, default=None, help="seed of the schedule (default: --seed)")
    ap.add_argument("--no-unreverse", action="store_true")
    ap.add_argument("--tt-out10", action="store_true")
    ap.add_argument("--psum-fp32-tr", action="store_true")
    ap.add_argument("--flags-accu4", action="store_true")
    ap.add_argument("--cores", default="sg00,sg01")
    opts = ap.parse_args()
    neff = "matmul_large.neff" if opts.large else "matmul_small.neff"
    rng = random.Random(opts.seed if opts.sched_seed is None else opts.sched_seed)
    nrng = np.random.default_rng(opts.seed)
    if opts.large:
        M_, K_, N_ = 128, 32768, 65536
    else:
        M_, K_, N_ = 128, 256, 128
    if opts.large:  # values k/8, k in [-8, 8]: every fp32 partial sum is exact
        x = (nrng.integers(-8, 9, (M_, K_), dtype=np.int8).astype(np.float16) / np.float16(8))
        y = np.empty((K_, N_), np.float16)
        for r in range(0, K_, 1024):
            y[r:r + 1024] = nrng.integers(-8, 9, (1024, N_), dtype=np.int8).astype(np.float16) / np.float16(8)
    else:
        x = nrng.uniform(-1, 1, (M_, K_)).astype(np.float16)
        y = nrng.uniform(-1, 1, (K_, N_)).astype(np.float16)
    out = np.zeros((M_, N_), np.float16)
    dram = {"x": x.reshape(-1).view(np.uint8), "y": y.reshape(-1).view(np.uint8),
            "output0": out.reshape(-1).view(np.uint8)}
    for g in opts.cores.split(","):
        c = Core(neff, g, dram, opts)
        stuck = c.run(rng)
        print(f"{neff} {g}: executed {sum(c.counts.values())} bundles, stuck={stuck}, "
              f"final sems (non-zero)={ {i: int(v) for i, v in enumerate(c.sem) if v} if not opts.large else '...'}")
    if opts.large:
        ref = np.empty((M_, N_), np.float32)
        x32 = x.astype(np.float32)
        for cs in range(0, N_, 4096):
            ref[:, cs:cs + 4096] = x32 @ y[:, cs:cs + 4096].astype(np.float32)
        ref16 = ref.astype(np.float16)
    else:
        ref16 = (x.astype(np.float32) @ y.astype(np.float32)).astype(np.float16)
    eq = np.mean(out == ref16)
    close = np.allclose(out.astype(np.float32), ref16.astype(np.float32), rtol=1e-3, atol=1e-3)
    half = N_ // 2
    import hashlib
    print(f"output sha256 {hashlib.sha256(out.tobytes()).hexdigest()[:16]}; bit-equal fraction {eq:.6f}; allclose(rtol=1e-3, atol=1e-3) {close}; "
          f"sg00 half equal {np.mean(out[:, :half] == ref16[:, :half]):.6f}, "
          f"sg01 half equal {np.mean(out[:, half:] == ref16[:, half:]):.6f}; "
          f"max |out| {float(np.max(np.abs(out.astype(np.float32)))):.4g}")


if __name__ == "__main__":
    main()
