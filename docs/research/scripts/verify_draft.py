"""Check every V-tagged claim of the draft chapter neff-and-real-opcodes.md (§0.1, §1.9, §2, §3, §4.4)
against the bytes of both real NEFFs, and print one line per claim:

    <claim id> | CONFIRMED / CONTRADICTED / PARTLY / NOT CHECKABLE | evidence

Run: python3 verify_draft.py [--write]  (from any directory; --write regenerates ../draft-verification.md
from draft-verification.head.md + the results table + draft-verification.tail.md). Needs numpy only for
the identity check of §4.4.
Every check recomputes its numbers from /work/shared/groundtruth/*.neff; none uses tongasm.
The simulation (S) claims are checked separately by refsim.py.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from neffload import ENGINES, GT, NEFFS, bir_names, bundles, defjson, graphs, i16, members, stream, u16, u32

SMALL, LARGE = NEFFS
RESULTS: list[tuple[str, str, str, str]] = []
DRAFT = Path("/work/shared/spec/neff-and-real-opcodes.md").read_text()


def rec(cid: str, claim: str, ok, evidence: str) -> None:
    status = {True: "CONFIRMED", False: "CONTRADICTED"}.get(ok, ok)
    RESULTS.append((cid, claim, status, evidence))


def B(neff, g, e):
    s = stream(neff, g, e)
    return [s[i:i + 64] for i in range(0, len(s), 64)]


ALL = list(bundles())
BY_OP = defaultdict(list)
for t in ALL:
    BY_OP[t[4][0]].append(t)


def where(t):
    n, g, e, i, b = t
    return f"{n.split('.')[0]} {g} {e}[{i}]"


def allof(op, pred):
    bad = [t for t in BY_OP[op] if not pred(t[4])]
    return not bad, bad


def vals(op, f):
    return Counter(f(t[4]) for t in BY_OP[op])


def fmtc(c):
    return ", ".join(f"{k}×{v}" if not isinstance(k, int) else f"{k:#x}×{v}" for k, v in sorted(c.items(), key=str))


def match_pattern(pat: str, real: bytes) -> bool:
    """Compare a draft byte string such as `a0100000 05200000 … | 0…0 | 05060000 …` with 64 real bytes.
    Groups are separated by '|' (16 bytes each); '0…0'/'00…00' = an all-zero group; 'x…y' = prefix x and
    suffix y of the group; a trailing '00…' means the rest of the bundle is zero; a plain short string is a prefix."""
    h = real.hex()
    groups = [g.replace(" ", "") for g in pat.split("|")]
    if len(groups) == 1:
        g = groups[0]
        if g.endswith("00…"):
            return h.startswith(g[:-1]) and set(h[len(g) - 1:]) <= {"0"}
        if g.endswith("…"):
            return h.startswith(g[:-1])
        return h.startswith(g)
    for k, g in enumerate(groups):
        seg = h[32 * k:32 * k + 32]
        if g in ("0…0", "00…00"):
            if set(seg) != {"0"}:
                return False
        elif "…" in g:
            a, b = g.split("…")
            if not (seg.startswith(a) and seg.endswith(b)):
                return False
        elif seg != g:
            return False
    return True


# =============================================================== §0.1
def s01():
    for n, size in ((SMALL, 62464), (LARGE, 1516544)):
        got = (GT / n).stat().st_size
        rec(f"0.1-size-{n[7:12]}", f"{n} is {size} bytes", got == size, f"stat: {got}")
    for n in NEFFS:
        info = json.loads(members(n)["info.json"])
        kelf = json.loads(members(n)["kelf-0.json"])
        rec(f"0.1-tool-{n[7:12]}", "tool_version 2.23.6484.0+3b612583, target cayman, 2 graphs",
            info["tool_version"] == "2.23.6484.0+3b612583" and kelf["target"] == "cayman" and len(kelf["graphs"]) == 2,
            f"info.json tool_version {info['tool_version']}, kelf-0.json target {kelf['target']}, graphs {graphs(n)}")
    exp = {SMALL: (3, 7, 12, 5, 2), LARGE: (449, 6873, 21269, 103, 1101)}
    for n in NEFFS:
        got = {g: tuple(len(stream(n, g, e)) // 64 for e in ENGINES) for g in graphs(n)}
        rec(f"0.1-per-core-{n[7:12]}", f"bundles per core SP/Pool/PE/Act/DVE = {exp[n]}",
            all(v == exp[n] for v in got.values()), f"{got}")
    table = {0x01: (8, 8704), 0x02: (8, 33280), 0x23: (2, 2), 0x41: (0, 1024), 0x46: (4, 64), 0x47: (0, 128),
             0x49: (0, 128), 0xA0: (4, 7470), 0xA4: (2, 2), 0xB1: (10, 10), 0xCC: (10, 10), 0xD4: (10, 8768)}
    engines = {0x01: {"PE"}, 0x02: {"PE"}, 0x23: {"Activation"}, 0x41: {"DVE"}, 0x46: {"Activation", "DVE"},
               0x47: {"Activation", "DVE"}, 0x49: {"DVE"}, 0xA0: set(ENGINES), 0xA4: {"Pool"},
               0xB1: set(ENGINES), 0xCC: set(ENGINES), 0xD4: {"SP", "Pool", "Activation"}}
    seen_ops = set(BY_OP)
    rec("0.1-opcode-set", "the opcodes in the files are exactly 01 02 23 41 46 47 49 A0 A4 B1 CC D4",
        seen_ops == set(table), f"seen: {sorted(hex(o) for o in seen_ops)}")
    for op, (s, l_) in table.items():
        c = Counter(t[0] for t in BY_OP[op])
        eng = {t[2] for t in BY_OP[op]}
        # 0x46/0x47: the draft table lists "4 / 0" small and "64 / 128" large
        rec(f"0.1-pop-{op:02x}", f"0x{op:02X}: small {s}, large {l_}, engines {sorted(engines[op])}",
            c[SMALL] == s and c[LARGE] == l_ and eng == engines[op],
            f"small {c[SMALL]}, large {c[LARGE]}, engines {sorted(eng)}")
    # identical streams between cores
    ok = True
    ev = []
    for n in NEFFS:
        for e in ENGINES:
            a, b_ = stream(n, "sg00", e), stream(n, "sg01", e)
            d = [i for i in range(len(a)) if a[i] != b_[i]]
            if e != "Pool" and d:
                ok = False
            if e == "Pool":
                offs = Counter(i % 64 for i in d)
                ev.append(f"{n[7:12]} Pool: {len(d)} bytes differ in {len({i // 64 for i in d})} bundles at "
                          f"offsets {sorted(hex(o) for o in offs)} (all 0xD4, DGE-mode immediates)")
                if n == SMALL:
                    ev.append("small diffs: " + "; ".join(f"Pool[{i // 64}]+{i % 64:#x} {a[i]:02x}->{b_[i]:02x}" for i in d))
    rec("0.1-cores-identical", "sg00/sg01 SP, PE, Activation, DVE byte-identical; Pool differs in 3 bytes (small) "
        "and in DRAM offsets of DMAs (large)", ok, "; ".join(ev))
    for n, dims in ((SMALL, (128, 256, 128)), (LARGE, (128, 32768, 65536))):
        v = defjson(n, "sg00")["var"]
        M, K, N = dims
        got = (v["x"]["size"], v["y"]["size"], v["output0"]["size"])
        rec(f"0.1-shapes-{n[7:12]}", f"fp16 x[{M},{K}] @ y[{K},{N}]",
            got == (2 * M * K, 2 * K * N, 2 * M * N), f"def.json var sizes x/y/output0 = {got}")


# =============================================================== §1.9
def s19():
    tok = {"SP": "sp", "Pool": "pool", "Activation": "act", "PE": "pe", "DVE": "dve"}
    for n in NEFFS:
        for g in graphs(n):
            q = defjson(n, g)["dma_queue"]
            exp = {"qPoolDynamic": ("pool", list(range(24, 40))), "qSPDynamicHW": ("sp", list(range(8, 24)))}
            if n == LARGE:
                exp["qActDynamicHW"] = ("act", list(range(40, 56)))
            got = {k: (v["owner"], v["semaphore_set"]) for k, v in q.items()}
            misc = all(v["num_queues"] == 16 and v["fabric_path"] == "main" and v["type"] == "dynamic" for v in q.values())
            dd = q["qPoolDynamic"].get("dynamic_dma")
            rec(f"1.9-queues-{n[7:12]}-{g}", "queues/owners/semaphore sets as in the §1.9 table; num_queues 16, "
                "fabric_path main; qPoolDynamic dynamic_dma {0,16384}; qActDynamicHW large only",
                got == exp and misc and dd == {"SB_scratch_partition_offset": 0, "SB_scratch_partition_size": 16384},
                f"{ {k: (o, f'{s[0]}..{s[-1]}') for k, (o, s) in got.items()} }, dynamic_dma {dd}")
    # completion semaphores
    upd = Counter()
    for n, g, e, i, b in ALL:
        if b[6]:
            upd[(e, b[0], b[6], b[7])] += 1
    exp_e = {"PE": {5}, "Activation": {4}, "DVE": {6}, "Pool": set(), "SP": set()}
    got_e = defaultdict(set)
    for (e, op, m, s), c in upd.items():
        got_e[e].add(s)
    rec("1.9-completion-sems", "engine completion semaphores Activation 4, PE 5, DVE 6; Pool and SP none",
        all(got_e[e] == exp_e[e] for e in ENGINES), "header updates (engine, opcode, mode, sem): "
        + ", ".join(f"{e}/{op:#x}/{m:#x}/s{s}×{c}" for (e, op, m, s), c in sorted(upd.items())))
    ok = (all(b[6] == 0x13 and b[7] == 5 for *_, b in (t for t in BY_OP[0x02]))
          and all(b[6] == 0x13 and b[7] == 4 for n, g, e, i, b in BY_OP[0x46] + BY_OP[0x47] if e == "Activation")
          and all(b[6] == 0x13 and b[7] == 6 for n, g, e, i, b in BY_OP[0x41] + BY_OP[0x46] + BY_OP[0x47] + BY_OP[0x49]
                  if e == "DVE"))
    rec("1.9-inc-rules", "every 0x02 incs s5; every Act 0x46/0x47 incs s4; every DVE 0x41/0x46/0x47/0x49 incs s6 (0x13)",
        ok, "checked per bundle")
    noupd = [op for op in (0x01, 0x23, 0xA0, 0xA4, 0xB1, 0xCC, 0xD4) if any(t[4][6] or t[4][7] for t in BY_OP[op])]
    rec("1.9-no-update", "0x01, 0x23, 0xA0, 0xA4, 0xB1, 0xCC, 0xD4 carry no header update (+0x06/+0x07 zero)",
        not noupd, f"opcodes with a non-zero +0x06/+0x07: {noupd or 'none'}")
    # DMA queue membership + rotation
    bad = []
    for n in NEFFS:
        for g in graphs(n):
            q = defjson(n, g)["dma_queue"]
            for e in ENGINES:
                dm = [b for b in B(n, g, e) if b[0] == 0xD4]
                if not dm:
                    continue
                own = [v for v in q.values() if v["owner"] == tok[e]]
                if len(own) != 1:
                    bad.append(f"{n} {g} {e}: no single owned queue")
                    continue
                ss = own[0]["semaphore_set"]
                for k, b in enumerate(dm):
                    if b[0x0D] != ss[k % len(ss)]:
                        bad.append(f"{n} {g} {e} DMA #{k}: s{b[0x0D]} expected s{ss[k % len(ss)]}")
    rec("1.9-dma-queue-rotation", "every 0xD4 is in its queue owner's stream, +0x0D in that queue's set, rotating in order",
        not bad, "; ".join(bad[:5]) or "all 8 778 DMAs: k-th DMA of an engine uses set[k mod 16]")
    # SBUF extents
    lo, hi, part_bad = 1 << 40, -1, []

    def touch(where_, addr, nbytes_lo, nbytes_hi):
        nonlocal lo, hi
        if addr >= 0x2000000:
            return
        if addr >> 18:
            part_bad.append(where_)
        byte = addr & 0x3FFFF
        lo = min(lo, byte + nbytes_lo)
        hi = max(hi, byte + nbytes_hi)

    def ap_extent(b, off, nd, es):
        a = u32(b, off)
        steps = [i16(b, off + 4 + 2 * k) for k in range(nd)]
        nums = [u16(b, off + 4 + 2 * nd + 2 * k) for k in range(nd)]
        mn = sum(min(0, s * (n - 1)) for s, n in zip(steps, nums))
        mx = sum(max(0, s * (n - 1)) for s, n in zip(steps, nums))
        return a, mn * es, (mx + 1) * es - 1
    ES = {7: 2, 0xA: 4, 8: 4}
    for t in ALL:
        n, g, e, i, b = t
        op = b[0]
        w = where(t)
        if op in (0x01, 0x02):
            a, l_, h = ap_extent(b, 0x10, 3, ES[b[0x20]])
            touch(w, a, l_, h)
        elif op in (0x46, 0x47):
            a, l_, h = ap_extent(b, 0x0C, 4, ES[b[0x20]]); touch(w, a, l_, h)
            a, l_, h = ap_extent(b, 0x2C, 4, ES[b[0x21]]); touch(w, a, l_, h)
        elif op == 0x49:
            a, l_, h = ap_extent(b, 0x2C, 4, ES[b[0x20]]); touch(w, a, l_, h)
        elif op == 0x41:
            for off, dt in ((0x10, b[0x0C] & 15), (0x20, b[0x0C] >> 4), (0x30, b[0x0D])):
                a, l_, h = ap_extent(b, off, 3, ES[dt]); touch(w, a, l_, h)
        elif op == 0xD4:
            for off, spn in ((0x10, 0x24), (0x28, 0x3C)):
                if b[off + 7] == 0x10 and u16(b, off + 4) == 0:
                    touch(w, u32(b, off), 0, u16(b, spn) - 1)
    rec("1.9-sbuf-extent", "all on-chip accesses start at partition 0 and lie in SBUF bytes 0x4000..0x37FF7",
        not part_bad and lo == 0x4000 and hi == 0x37FF7,
        f"lowest byte touched {lo:#x}, highest {hi:#x}; start partition ≠ 0: {part_bad[:3] or 'none'}")


# =============================================================== §2.0
def s20():
    ok = all(b[1] == 0x10 and b[2] == 0 and b[3] == 0 for *_, b in ALL)
    rec("2.0-header", "+0x01 = 0x10 and +0x02..+0x03 = 0 in all 59 648 bundles", ok and len(ALL) == 59648,
        f"{len(ALL)} bundles checked")
    modes = Counter()
    for *_, b in ALL:
        if b[4]:
            modes[b[4]] += 1
        if b[0] == 0xA0 and b[0x20]:
            modes[("wait1", b[0x20])] += 1
    total = sum(modes.values())
    rec("2.0-wait-modes", "wait modes: only 0x05, 26 724 times (header waits + 0xA0 second lanes)",
        set(k if isinstance(k, int) else k[1] for k in modes) == {5} and total == 26724,
        f"header +0x04: {fmtc(Counter({k: v for k, v in modes.items() if isinstance(k, int)}))}; 0xA0 +0x20 lane: "
        f"{sum(v for k, v in modes.items() if not isinstance(k, int))}; total {total}")
    um = Counter(b[6] for *_, b in ALL if b[6])
    rec("2.0-update-modes", "update modes: only 0x13, 34 636 times", set(um) == {0x13} and sum(um.values()) == 34636,
        f"{fmtc(um)}")
    bad = [where(t) for t in ALL if t[4][6] and not t[4][4] and u32(t[4], 8) != 0]
    rec("2.0-value-word", "with sem_inc, +0x08 holds the wait value, or zero when there is no wait", not bad,
        f"{len(bad)} bundles violate (sem_inc, no wait, +0x08 ≠ 0)")
    ex = bytes.fromhex("4610000005051304" "02000000")
    rec("2.0-example", "`46100000 05051304 02000000` occurs (wait s5 ≥ 2, inc s4)",
        any(t[4][:12] == ex for t in ALL), "small Activation[3] (both cores)")
    w = {op: sum(1 for t in BY_OP[op] if t[4][4]) for op in (0x01, 0x02, 0x41, 0x46, 0x47, 0x49, 0xD4)}
    u = {op: sum(1 for t in BY_OP[op] if t[4][6]) for op in (0x02, 0x41, 0x46, 0x47, 0x49)}
    rec("2.0-inline-sync", "0x01/0x02/0x41/0x46/0x47/0x49/0xD4 carry inline waits; 0x02/0x41/0x46/0x47/0x49 carry "
        "sem_inc (book 'compute ops carry no sync' contradicted)", all(w.values()) and all(u.values()),
        f"bundles with a header wait: {w}; with an update: {u}")
    # 0xA0 is a carrier of the next instruction's extra waits
    bad, cnt = [], 0
    for n in NEFFS:
        for g in graphs(n):
            for e in ENGINES:
                names = bir_names(n, g, e)
                bb = B(n, g, e)
                for i, b in enumerate(bb):
                    if b[0] == 0xA0:
                        cnt += 1
                        base = re.sub(r"-wait-\d+$", "", names[i])
                        j = i + 1
                        while bb[j][0] == 0xA0:
                            j += 1
                        if not names[i].endswith(tuple(f"-wait-{k}" for k in range(10))) or names[j] != base:
                            bad.append(f"{n[7:12]} {g} {e}[{i}] {names[i]} -> [{j}] {names[j]}")
    rec("2.0-a0-carrier", "standalone 0xA0 bundles carry extra waits of the next instruction",
        not bad, f"{cnt} 0xA0 bundles named '<I>-wait-k' followed (after other 0xA0) by instruction <I>; "
        f"exceptions: {bad[:3] or 'none'}")


# =============================================================== §2.1 Ldweights
def s21():
    L = BY_OP[0x01]
    rec("2.1-pop", "populations 8 (small) / 8 704 (large), PE only",
        Counter(t[0] for t in L) == Counter({SMALL: 8, LARGE: 8704}) and {t[2] for t in L} == {"PE"}, "")
    rec("2.1-example", "small PE[3] = 01100000 05080000 10000000 00000000 | fe7c0300 ffff0000 e0ff2000 01000400 | "
        "07000100 00008080 00000000 0f0f0000 | 0…0",
        B(SMALL, "sg00", "PE")[3].hex() == "0110000005080000100000000000000" "0fe7c0300ffff0000e0ff200001000400"
        "07000100000080800000000" "00f0f0000" + "0" * 32, "byte compare")
    c = vals(0x01, lambda b: b[4])
    rec("2.1-wait-mode", "+0x04 ∈ {0x00, 0x05}", set(c) <= {0, 5}, fmtc(c))
    ws = Counter(t[4][5] for t in L if t[4][4])
    exp = set(range(8, 40)) | {4, 6}
    rec("2.1-wait-idx", "+0x05: queue semaphores 8..39, 4, 6", set(ws) == exp,
        f"{sorted(ws)}")
    c = vals(0x01, lambda b: (b[6], b[7]))
    rec("2.1-no-update", "+0x06/+0x07 zero", set(c) == {(0, 0)}, fmtc(c))
    v = [u32(t[4], 8) for t in L]
    rec("2.1-wait-value", "+0x08 in 0..0x1020", 0 <= min(v) and max(v) == 0x1020, f"min {min(v)}, max {max(v):#x}")
    rec("2.1-0c-0f", "+0x0C..+0x0F zero", all(t[4][0x0C:0x10] == bytes(4) for t in L), "")
    a = defaultdict(set)
    for t in L:
        a[t[0]].add(u32(t[4], 0x10))
    sm, lg = sorted(a[SMALL]), sorted(a[LARGE])
    rec("2.1-addr", "+0x10: small {0x37CFE, 0x37DFE, 0x40FE, 0x41FE}; large 320 values 0x40FE..0x37FF6, ≡ 0xFE or 0xF6 "
        "mod 0x100, partition 0",
        set(sm) == {0x37CFE, 0x37DFE, 0x40FE, 0x41FE} and len(lg) == 320 and lg[0] == 0x40FE and lg[-1] == 0x37FF6
        and {x & 0xFF for x in lg} == {0xFE, 0xF6} and all(x >> 18 == 0 for x in sm + lg),
        f"small {[hex(x) for x in sm]}; large {len(lg)} values {lg[0]:#x}..{lg[-1]:#x}, low bytes "
        f"{sorted(hex(x & 0xFF) for x in set(lg))}")
    c = vals(0x01, lambda b: (i16(b, 0x14), i16(b, 0x16), i16(b, 0x18), u16(b, 0x1A), u16(b, 0x1C), u16(b, 0x1E)))
    rec("2.1-ap", "steps (−1, 0, −32), counts (32, 1, 4)", set(c) == {(-1, 0, -32, 32, 1, 4)}, fmtc(c))
    c = vals(0x01, lambda b: (b[0x20], b[0x21], b[0x23], b[0x24], b[0x25], b[0x26], b[0x27], b[0x2C], b[0x2D]))
    rec("2.1-control", "+0x20 = 7, +0x21 = 0, +0x23..+0x25 = 0, +0x26 = +0x27 = 0x80, +0x2C = +0x2D = 0x0F",
        set(c) == {(7, 0, 0, 0, 0, 0x80, 0x80, 0x0F, 0x0F)}, fmtc(c))
    c = vals(0x01, lambda b: b[0x22])
    rec("2.1-transpose-count", "+0x22: 0 ×8 196, 1 ×516", c == Counter({0: 8196, 1: 516}), fmtc(c))
    # +0x22 set exactly on Ldweights whose matmul is a transpose
    bad = 0
    tot = 0
    for n in NEFFS:
        for g in graphs(n):
            bb = B(n, g, "PE")
            for i, b in enumerate(bb):
                if b[0] == 0x01:
                    j = i + 1
                    mm = []
                    while j < len(bb) and bb[j][0] != 0x01:
                        if bb[j][0] == 0x02:
                            mm.append(bb[j])
                        j += 1
                    tot += 1
                    if {m[0x22] for m in mm} != {b[0x22]}:
                        bad += 1
    rec("2.1-transpose-pairing", "+0x22 set exactly on the Ldweights whose Matmul is a transpose", bad == 0,
        f"{tot} Ldweights, {bad} whose following Matmuls disagree")
    # the gloss on +0x05: "8..39 (tile landed), 4 (Activation copy done), 6 (DVE copy done)"
    gl = Counter()
    for n in NEFFS:
        for g in graphs(n):
            dvec = [b for b in B(n, g, "DVE") if b[6] == 0x13]
            actc = [b for b in B(n, g, "Activation") if b[6] == 0x13]
            for b in B(n, g, "PE"):
                if b[0] != 1 or not b[4]:
                    continue
                if b[5] == 6:
                    gl[f"s6 for DVE {dvec[u32(b, 8) - 1][0]:#x}"] += 1
                elif b[5] == 4:
                    gl[f"s4 for Activation {actc[u32(b, 8) - 1][0]:#x}"] += 1
                else:
                    gl["queue semaphore (DMA landed)"] += 1
    rec("2.1-wait-meaning", "+0x05 meanings: 8..39 tile landed, 4 Activation copy done, 6 DVE copy done",
        "PARTLY" if gl.get("s6 for DVE 0x41") else True,
        f"{dict(gl)} (both NEFFs): most s6 waits on 0x01 are for a TensorTensor (0x41) that drained the PSUM bank the "
        f"following Matmul overwrites, not for a DVE copy")
    z = [o for o in list(range(0x06, 0x08)) + list(range(0x0C, 0x10)) + [0x21] + list(range(0x23, 0x26))
         + list(range(0x28, 0x2C)) + list(range(0x2E, 0x40)) if any(t[4][o] for t in L)]
    rec("2.1-zero-list", "observed zero: +0x06..+0x07, +0x0C..+0x0F, +0x21, +0x23..+0x25, +0x28..+0x2B, +0x2E..+0x3F",
        not z, f"non-zero among them: {z or 'none'}")


# =============================================================== §2.2 Matmul
def s22():
    L = BY_OP[0x02]
    ex4 = ("02100000000013050000000000000000" "007b0300010000000000800001000100"
           "07000100000080800000000" "30f0f0000" "00080002010000000000800001000100")
    ex9 = ("02100000000013050000000000000000" "007f0300010000000000400001000100"
           "07000000000080800000000" "10f0f0000" "00000002010000000000400001000100")
    rec("2.2-examples", "small PE[4] and PE[9] bytes as printed",
        B(SMALL, "sg00", "PE")[4].hex() == ex4 and B(SMALL, "sg00", "PE")[9].hex() == ex9, "byte compare")
    w = Counter((t[0], t[4][4], t[4][5]) for t in L)
    rec("2.2-wait", "wait: none, or sem_ge_imm on s6 (736 large bundles)",
        set((m, s) for (_, m, s) in w) <= {(0, 0), (5, 6)} and sum(v for (n, m, s), v in w.items() if m) == 736
        and all(n == LARGE for (n, m, s) in w if m), fmtc(Counter({f"{n[7:12]} mode {m:#x} s{s}": v for (n, m, s), v in w.items()})))
    rec("2.2-update", "+0x06 = 0x13, +0x07 = 5 in every bundle", all(t[4][6] == 0x13 and t[4][7] == 5 for t in L), "")
    rec("2.2-0c", "+0x0C..+0x0F zero", all(t[4][0x0C:0x10] == bytes(4) for t in L), "")
    a = defaultdict(set)
    for t in L:
        a[t[0]].add(u32(t[4], 0x10))
    sm, lg = sorted(a[SMALL]), sorted(a[LARGE])
    rec("2.2-moving", "+0x10: small {0x37B00, 0x37E00, 0x37F00}; large 185 values 0x15E00..0x37BF8, partition 0",
        set(sm) == {0x37B00, 0x37E00, 0x37F00} and len(lg) == 185 and lg[0] == 0x15E00 and lg[-1] == 0x37BF8,
        f"small {[hex(x) for x in sm]}; large {len(lg)} values {lg[0]:#x}..{lg[-1]:#x}")
    c = vals(0x02, lambda b: (i16(b, 0x14), i16(b, 0x16), i16(b, 0x18), u16(b, 0x1C), u16(b, 0x1E)))
    n = vals(0x02, lambda b: u16(b, 0x1A))
    rec("2.2-moving-ap", "steps 1, 0, 0; counts N, 1, 1 with N ∈ {64, 128, 512}",
        set(c) == {(1, 0, 0, 1, 1)} and set(n) == {64, 128, 512}, f"{fmtc(c)}; N: {dict(n)}")
    c = vals(0x02, lambda b: (b[0x20], b[0x21], b[0x23], b[0x24], b[0x25], b[0x26], b[0x27], b[0x2C], b[0x2D]))
    rec("2.2-control", "+0x20 = 7, +0x21 = 0, +0x23..+0x25 = 0, +0x26 = +0x27 = 0x80, +0x2C = +0x2D = 0x0F",
        set(c) == {(7, 0, 0, 0, 0, 0x80, 0x80, 0x0F, 0x0F)}, fmtc(c))
    c = vals(0x02, lambda b: b[0x22])
    rec("2.2-transpose", "+0x22 = 1 on the 516 transposes", c == Counter({0: 32772, 1: 516}), fmtc(c))
    f = vals(0x02, lambda b: b[0x2B])
    rec("2.2-flags", "+0x2B: 0x00 ×30 720, 0x01 ×1 026, 0x02 ×1 026, 0x03 ×516; 0x04 never",
        f == Counter({0: 30720, 1: 1026, 2: 1026, 3: 516}), fmtc(f))
    a = defaultdict(set)
    for t in L:
        a[t[0]].add(u32(t[4], 0x30))
    sm, lg = sorted(a[SMALL]), sorted(a[LARGE])
    rec("2.2-psum", "+0x30: small {0x2000000, 0x2000800, 0x2000900}; large 50 values 0x2000000..0x2003F00",
        set(sm) == {0x2000000, 0x2000800, 0x2000900} and len(lg) == 50 and lg[0] == 0x2000000 and lg[-1] == 0x2003F00,
        f"small {[hex(x) for x in sm]}; large {len(lg)} values {lg[0]:#x}..{lg[-1]:#x}")
    c = vals(0x02, lambda b: (i16(b, 0x34), i16(b, 0x36), i16(b, 0x38), u16(b, 0x3C), u16(b, 0x3E), u16(b, 0x3A) == u16(b, 0x1A)))
    rec("2.2-psum-ap", "PSUM steps 1, 0, 0; counts N, 1, 1 with the moving's N", set(c) == {(1, 0, 0, 1, 1, True)}, fmtc(c))
    z = [o for o in [0x0C, 0x0D, 0x0E, 0x0F, 0x21, 0x23, 0x24, 0x25, 0x28, 0x29, 0x2A, 0x2E, 0x2F] if any(t[4][o] for t in L)]
    rec("2.2-zero-list", "observed zero: +0x0C..+0x0F, +0x21, +0x23..+0x25, +0x28..+0x2A, +0x2E, +0x2F", not z,
        f"non-zero among them: {z or 'none'}")
    # structure
    res = []
    ok = True
    for n in NEFFS:
        for g in graphs(n):
            ops = [b[0] for b in B(n, g, "PE")]
            prev_ok = all(ops[i - 1] in (1, 2) for i, o in enumerate(ops) if o == 2)
            runs = Counter()
            i = 0
            while i < len(ops):
                if ops[i] == 1:
                    j = i + 1
                    k = 0
                    while j < len(ops) and ops[j] == 2:
                        k += 1
                        j += 1
                    runs[k] += 1
                    i = j
                else:
                    i += 1
            exp = Counter({4: 4096, 1: 256}) if n == LARGE else Counter({1: 4})
            ok &= prev_ok and runs == exp
            res.append(f"{n[7:12]} {g}: Ldweights followed by k Matmuls {dict(runs)}")
    rec("2.2-ld-mm", "every 0x02 follows a 0x01 (or another 0x02); large/core 4 096 Ldweights × 4 Matmuls + 256 × 1; "
        "small 4 × 1", ok, "; ".join(res))
    res, ok = [], True
    for n in NEFFS:
        for g in graphs(n):
            open_, groups, maxo = {}, [], 0
            for b in B(n, g, "PE"):
                if b[0] != 2:
                    continue
                f_, a_ = b[0x2B], u32(b, 0x30)
                if f_ & 1:
                    ok &= a_ not in open_
                    open_[a_] = [f_]
                else:
                    ok &= a_ in open_
                    open_.setdefault(a_, []).append(f_)
                if f_ & 2:
                    groups.append((tuple(open_.pop(a_)), b[0x22]))
                maxo = max(maxo, len(open_))
            pats = Counter((g_[0], len(g_), g_[-1], set(g_[1:-1]) <= {0}, tr) for g_, tr in groups)
            if n == LARGE:
                ok &= pats == Counter({(1, 32, 2, True, 0): 512, (3, 1, 3, True, 1): 256}) and maxo == 4
            else:
                ok &= pats == Counter({(1, 2, 2, True, 0): 1, (3, 1, 3, True, 1): 2})
            res.append(f"{n[7:12]} {g}: groups (first, length, last, interior all 00, transpose) {dict(pats)}, "
                       f"max open {maxo}")
    rec("2.2-groups", "large/core: 512 groups of exactly 32 (01, 00×30, 02) on one PSUM address, ≤ 4 open; small one "
        "group (01, 02)", ok, "; ".join(res))
    res, ok = [], True
    for n in NEFFS:
        for g in graphs(n):
            idd = {u32(b, 0x28) for b in B(n, g, "SP") if b[0] == 0xD4 and b[0x17] == 0x10 and u16(b, 0x14) == 4}
            trs = [b for b in B(n, g, "PE") if b[0] == 2 and b[0x22]]
            tra = {u32(b, 0x30) for b in trs}
            ok &= {u32(b, 0x10) for b in trs} == idd and all(b[0x2B] == 3 and u16(b, 0x1A) == 128 for b in trs) \
                and all(a_ % 0x100 == 0 for a_ in tra) and len(trs) == (256 if n == LARGE else 2)
            res.append(f"{n[7:12]} {g}: {len(trs)} transposes, moving {sorted(hex(u32(b, 0x10)) for b in trs)[:1]} = "
                       f"identity DMA dst {sorted(hex(x) for x in idd)}, {len(tra)} PSUM addresses all multiples of 0x100")
    rec("2.2-transposes", "transposes: flags 3, +0x22 = 1, moving = identity tile, N = 128 two-byte elements 256 B apart",
        ok, "; ".join(res))


# =============================================================== §2.3 EventSemaphore
def s23():
    L = BY_OP[0xA0]
    c = Counter((t[0], t[2]) for t in L)
    exp = {(SMALL, "PE"): 4, (LARGE, "SP"): 414, (LARGE, "Pool"): 5484, (LARGE, "PE"): 550,
           (LARGE, "Activation"): 30, (LARGE, "DVE"): 992}
    rec("2.3-pop", "populations: small 4 (PE); large SP 414, Pool 5 484, PE 550, Act 30, DVE 992", dict(c) == exp,
        fmtc(Counter({f"{n[7:12]} {e}": v for (n, e), v in c.items()})))
    b = B(LARGE, "sg00", "Pool")[6858]
    rec("2.3-example", "large Pool[6858] = a0100000 05200000 10100000 … 05060000 5b020000 … (s32 ≥ 4112, s6 ≥ 603)",
        b.hex() == "a010000005200000101000000000000000000000000000000000000000000000"
                   "050600005b020000000000000000000000000000000000000000000000000000", f"{b.hex()}")
    rec("2.3-w0-mode", "+0x04 = 0x05 in all 7 474", all(t[4][4] == 5 for t in L) and len(L) == 7474, "")
    s = sorted({t[4][5] for t in L})
    rec("2.3-w0-idx", "+0x05 ∈ {6} ∪ 8..55 minus 52", s == [6] + [x for x in range(8, 56) if x != 52], f"{s}")
    rec("2.3-06-07", "+0x06/+0x07 zero", all(t[4][6] == 0 and t[4][7] == 0 for t in L), "")
    v = [u32(t[4], 8) for t in L]
    rec("2.3-w0-value", "+0x08 in 1..0x1020", min(v) == 1 and max(v) == 0x1020, f"{min(v)}..{max(v):#x}")
    c = Counter(t[4][0x20] for t in L)
    rec("2.3-w1-mode", "+0x20 ∈ {0, 5}; two waits in 260 large bundles",
        set(c) == {0, 5} and c[5] == 260 and all(t[0] == LARGE for t in L if t[4][0x20]), fmtc(c))
    s = sorted({t[4][0x21] for t in L if t[4][0x20]})
    rec("2.3-w1-idx", "+0x21 ∈ {6, 8, 10..22, 32, 34, 36, 38}", s == [6, 8] + list(range(10, 23)) + [32, 34, 36, 38], f"{s}")
    v = [u32(t[4], 0x24) for t in L]
    rec("2.3-w1-value", "+0x24 in 0..0x1020", max(v) == 0x1020, f"{min(v)}..{max(v):#x}")
    z = [o for o in [6, 7] + list(range(0x0C, 0x20)) + [0x22, 0x23] + list(range(0x28, 0x40)) if any(t[4][o] for t in L)]
    rec("2.3-zero-list", "observed zero: +0x06, +0x07, +0x0C..+0x1F, +0x22, +0x23, +0x28..+0x3F", not z,
        f"non-zero among them: {z or 'none'}")


# =============================================================== §2.4..§2.6, §2.8
def s24():
    L = BY_OP[0xA4]
    last = all(t[3] == len(stream(t[0], t[1], t[2])) // 64 - 1 for t in L)
    names = {bir_names(t[0], t[1], t[2])[t[3]] for t in L}
    rec("2.4-nop", "0xA4: 2 + 2, Pool only, last bundle of the Pool stream, name Block1-final-DMA-NOP",
        len(L) == 4 and {t[2] for t in L} == {"Pool"} and last and names == {"Block1-final-DMA-NOP"}, f"names {names}")
    rec("2.4-examples", "small Pool[6] a4100000 051b0000 10000000 …; large Pool[6872] a4100000 051e0000 20100000 …",
        B(SMALL, "sg00", "Pool")[6][:12].hex() == "a4100000051b000010000000"
        and B(LARGE, "sg00", "Pool")[6872][:12].hex() == "a4100000051e000020100000"
        and all(not any(t[4][0x0C:]) and not t[4][6] and not t[4][7] for t in L), "rest zero")
    for op, idx, nm in ((0xB1, 0, "2.5"), (0xCC, 1, "2.6")):
        L = BY_OP[op]
        ok = all(t[3] == idx and not any(t[4][2:]) for t in L) and len(L) == 20
        every = all(B(n, g, e)[idx][0] == op for n in NEFFS for g in graphs(n) for e in ENGINES)
        empty = all(bir_names(t[0], t[1], t[2])[t[3]] == "" for t in L)
        rec(f"{nm}-{op:02x}", f"0x{op:02X}: bundle {idx} of every stream, all bytes after +0x01 zero, empty asm-debug entry",
            ok and every and empty, f"{len(L)} bundles")
    L = BY_OP[0x23]
    names = {t[0][7:12]: bir_names(t[0], t[1], t[2])[t[3]] for t in L}
    rec("2.8-acttableload", "0x23: 2 + 2, Activation bundle 2, all bytes after +0x01 zero",
        len(L) == 4 and all(t[2] == "Activation" and t[3] == 2 and not any(t[4][2:]) for t in L), f"names {names}")
    rec("2.8-name", "debug name `I-80-0-accel-tc-act-PWP`",
        True if all(v == "I-80-0-accel-tc-act-PWP" for v in names.values()) else "PARTLY",
        f"small: {names['small']}; large: {names['large']} (same '-PWP' pattern, different id)")
    ok = True
    for n in NEFFS:
        m = members(n)
        a = json.loads(m["sg00/Activation.json"])["activation_function_sets"]
        ai = [s["name"] for s in json.loads(m["sg00/act_info.json"])["act_func_sets"]]
        ok &= a[0] == "exp_and_others" and ai[0] == "exp_and_others"
    rec("2.8-set0", "set index 0 = activation_function_sets[0] of Activation.json = exp_and_others", ok,
        f"Activation.json lists {a}; act_info.json act_func_sets (the book's index space) has {len(ai)} sets, "
        f"[0] = {ai[0]}: both readings give exp_and_others for 0")


# =============================================================== §2.7 DMA
def s27():
    L = BY_OP[0xD4]
    c = Counter((t[0], t[2]) for t in L)
    rec("2.7-pop", "populations small SP 2, Pool 8; large SP 480, Pool 8 256, Activation 32",
        dict(c) == {(SMALL, "SP"): 2, (SMALL, "Pool"): 8, (LARGE, "SP"): 480, (LARGE, "Pool"): 8256, (LARGE, "Activation"): 32},
        fmtc(Counter({f"{n[7:12]} {e}": v for (n, e), v in c.items()})))
    s = sorted({t[4][5] for t in L if t[4][4]})
    rec("2.7-wait", "wait idx ∈ {4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24..39, 52}",
        s == [4, 5, 8, 9, 12, 13, 16, 17, 20, 21] + list(range(24, 40)) + [52] and {t[4][4] for t in L} == {0, 5}, f"{s}")
    z = {o: any(t[4][o] for t in L) for o in (6, 7, 0x0C, 0x0F, 0x16, 0x26, 0x27, 0x2E)}
    rec("2.7-zero-list", "observed zero: +0x06, +0x07, +0x0C, +0x0F, +0x16, +0x26, +0x27, +0x2E", not any(z.values()),
        f"{ {hex(k): v for k, v in z.items() if v} or 'all zero'}")
    rec("2.7-0e", "+0x0E = 0x10 in all", all(t[4][0x0E] == 0x10 for t in L), "")
    src = Counter((t[4][0x17], u16(t[4], 0x14)) for t in L)
    dst = Counter((t[4][0x2F], u16(t[4], 0x2C)) for t in L)
    ok = {v for (m, v) in src if m == 0x10} == {0, 4} | set(range(5, 21)) and {v for (m, v) in src if m == 0x20} == {0, 1}
    rec("2.7-src-var", "+0x14: mode 0x10 var 0, 4, 5..20; mode 0x20 entry 0, 1; +0x17 ∈ {0x10, 0x20}",
        ok and {m for m, v in src} == {0x10, 0x20}, f"(mode, id): {fmtc(src)}")
    rec("2.7-dst-var", "(dst side, same layout) +0x2C/+0x2F", {m for m, v in dst} == {0x10, 0x20},
        f"(mode, id): {fmtc(dst)}")
    sbs = lambda b, off: b[off + 7] == 0x10 and u16(b, off + 4) == 0
    st = Counter(("SB" if sbs(t[4], 0x10) else "DRAM", u32(t[4], 0x18)) for t in L)
    dt = Counter(("SB" if sbs(t[4], 0x28) else "DRAM", u32(t[4], 0x30)) for t in L)
    ok = {v for k, v in st if k == "SB"} == {0x40000} and {v for k, v in st if k == "DRAM"} == {0x100, 0x200, 0x1000, 0x10000, 0x20000}
    rec("2.7-steps", "step0: SBUF side 0x40000; DRAM side 0x100, 0x200, 0x1000, 0x10000, 0x20000",
        ok and {v for k, v in dt if k == "SB"} == {0x40000}, f"src {fmtc(st)}; dst {fmtc(dt)}")
    c = vals(0xD4, lambda b: (u32(b, 0x1C), u16(b, 0x20), u16(b, 0x22), u32(b, 0x34), u16(b, 0x38), u16(b, 0x3A)))
    rec("2.7-dims", "+0x1C = 1, +0x20 = 128, +0x22 = 1; +0x34 = 1, +0x38 = 128, +0x3A = 1", set(c) == {(1, 128, 1, 1, 128, 1)}, fmtc(c))
    sp = vals(0xD4, lambda b: (u16(b, 0x24), u16(b, 0x3C), b[0x3E], b[0x3F]))
    rec("2.7-spans-dtypes", "spans ∈ {0x80, 0x100, 0x200, 0x1000}; differ only on the fp32→fp16 DMA (0x100 → 0x80); "
        "+0x3E 0x07 (0x0A once per core, small); +0x3F 0x07",
        {(a, b_) for a, b_, s, d in sp if s == d} <= {(x, x) for x in (0x80, 0x100, 0x200, 0x1000)}
        and [k for k in sp if k[2] != k[3]] == [(0x100, 0x80, 0x0A, 0x07)] and sp[(0x100, 0x80, 0x0A, 0x07)] == 2
        and all(t[0] == SMALL for t in L if t[4][0x3E] == 0x0A),
        f"(src span, dst span, src dt, dst dt): {', '.join(f'({a:#x},{b_:#x},{s:#x},{d:#x})×{v}' for (a, b_, s, d), v in sp.items())}")
    forms = Counter()
    for t in L:
        b = t[4]
        for side, off in (("src", 0x10), ("dst", 0x28)):
            forms[(t[2], side, b[off + 7], u16(b, off + 4) if b[off + 7] == 0x20 or u16(b, off + 4) in (0, 4) else "5..20")] += 1
    exp_keys = {("Pool", "src", 0x20, 0), ("Pool", "src", 0x20, 1), ("Pool", "dst", 0x20, 2), ("Pool", "src", 0x10, 0),
                ("Pool", "dst", 0x10, 0), ("SP", "src", 0x10, 4), ("SP", "src", 0x10, "5..20"), ("SP", "dst", 0x10, 0),
                ("Activation", "src", 0x10, 0), ("Activation", "dst", 0x10, "5..20")}
    rec("2.7-forms", "mode 0x20 only on Pool for x/y/output0 (entries 0/1/2); var 0 = SBUF on all engines; var 4 (file) "
        "on SP; vars 5..20 (virtual) written by Activation, read by SP", set(forms) == exp_keys,
        ", ".join(f"{e}/{s}/mode {m:#x}/id {v}×{n}" for (e, s, m, v), n in sorted(forms.items(), key=str)))
    q = []
    for t in ALL:
        b = t[4]
        if b[4] and b[5] >= 8:
            q.append(u32(b, 8))
        if b[0] == 0xA0 and b[0x20] and b[0x21] >= 8:
            q.append(u32(b, 0x24))
    rec("2.7-R15-mult16", "all 17 480 waits on queue semaphores (idx ≥ 8) are multiples of 16",
        len(q) == 17480 and all(v % 16 == 0 for v in q), f"{len(q)} waits, {sum(v % 16 != 0 for v in q)} not multiples of 16")
    # and never exceed 16 × number of DMAs on that semaphore
    bad = []
    for n in NEFFS:
        for g in graphs(n):
            cnt = Counter()
            ws = []
            for e in ENGINES:
                for i, b in enumerate(B(n, g, e)):
                    if b[0] == 0xD4:
                        cnt[b[0x0D]] += b[0x0E]
                    if b[4] and b[5] >= 8:
                        ws.append((e, i, b[5], u32(b, 8)))
                    if b[0] == 0xA0 and b[0x20] and b[0x21] >= 8:
                        ws.append((e, i, b[0x21], u32(b, 0x24)))
            bad += [w for w in ws if w[3] > cnt[w[2]]]
    rec("2.7-R15-reachable", "(consistency) every queue-semaphore wait ≤ 16 × number of DMAs signalling it", not bad,
        f"{len(bad)} unreachable waits")
    c = vals(0xD4, lambda b: (u16(b, 0x22), u16(b, 0x3A), u16(b, 0x20) == u16(b, 0x38)))
    rec("2.7-R16-seen", "R-16: only num1 = 1 and equal num0 on both sides are seen", set(c) == {(1, 1, True)}, fmtc(c))


# =============================================================== §2.9
def s29():
    L = BY_OP[0x46] + BY_OP[0x47]
    c = Counter(tuple(i16(t[4], o) for o in (0x10, 0x12, 0x14, 0x16)) + tuple(u16(t[4], o) for o in (0x1A, 0x1C, 0x1E))
                + tuple(i16(t[4], o) for o in (0x30, 0x32, 0x34, 0x36)) + tuple(u16(t[4], o) for o in (0x3A, 0x3C, 0x3E))
                for t in L)
    rec("2.9-copy-fill", "0x46/0x47: unused TENSOR4D slots {1,1} (steps 1, counts 1)", set(c) == {(1,) * 14}, fmtc(c))
    c = Counter((t[0][7:12], t[2], t[4][0], t[4][0x20], t[4][0x21], u16(t[4], 0x18), u32(t[4], 0x0C) >= 0x2000000) for t in L)
    rec("2.9-copy-int32", "fp16 transposes copied as int32 with half the count (small 128 int32; large 512 int32)",
        all(k[3] == 8 and k[4] == 8 and k[5] == (128 if k[0] == "small" else 512) and k[6] for k in c if k[2] == 0x46 and k[3] == 8),
        ", ".join(f"{k}×{v}" for k, v in sorted(c.items(), key=str)))
    c = vals(0x49, lambda b: (u32(b, 0x1C), b[0x20], b[0x22], u32(b, 0x28), u16(b, 0x38)))
    rec("2.9-memset", "0x49: +0x1C = 512, +0x20 = 0x0A, +0x22 = 0x80, +0x28 = 0, dst TENSOR4D at +0x2C",
        set(c) == {(512, 0x0A, 0x80, 0, 512)}, fmtc(c))
    c = vals(0x41, lambda b: b[0x0C:0x10].hex())
    rec("2.9-tt-band", "0x41: +0x0C..+0x0F = aa 0a 04 80", set(c) == {"aa0a0480"}, fmtc(c))
    c = vals(0x41, lambda b: tuple(i16(b, o + 4 + 2 * k) for o in (0x10, 0x20, 0x30) for k in range(3))
             + tuple(u16(b, o + 0xC) for o in (0x10, 0x20, 0x30)) + tuple(u16(b, o + 0xE) for o in (0x10, 0x20, 0x30)))
    rec("2.9-tt-fill", "0x41 unused slots {1,1}", set(c) == {(1,) * 15}, fmtc(c))


# =============================================================== §3
def s3():
    L = BY_OP[0x41]
    rec("3.1-pop", "1 024 TT in large (512 per core, all DVE), none in small",
        Counter((t[0], t[1], t[2]) for t in L) == Counter({(LARGE, "sg00", "DVE"): 512, (LARGE, "sg01", "DVE"): 512}), "")
    ok10 = all(0x2000000 <= u32(t[4], 0x10) < 0x2004000 and (u32(t[4], 0x10) - 0x2000000) % 0x800 == 0
               and (u16(t[4], 0x1A), u16(t[4], 0x1C), u16(t[4], 0x1E)) == (512, 1, 1) for t in L)
    same = all(t[4][0x20:0x30] == t[4][0x30:0x40] for t in L)
    per = defaultdict(Counter)
    for t in L:
        per[t[1]][u32(t[4], 0x20)] += 1
    exp = {0x4000, 0x4800, 0x5000, 0x5800, 0x7000, 0x7800, 0x12000, 0x12800, 0x14000, 0x14800}
    rec("3.1-slots", "+0x10 = a whole PSUM bank (bank start, counts 512,1,1); +0x20 ≡ +0x30 byte-identical SBUF fp32 "
        "[512]; 10 addresses per core {0x4000, 0x4800, 0x5000, 0x5800, 0x7000, 0x7800, 0x12000, 0x12800, 0x14000, 0x14800}",
        ok10 and same and all(set(v) == exp for v in per.values()),
        "; ".join(f"{g}: {len(v)} addresses " + ", ".join(f"{k:#x}×{c}" for k, c in sorted(v.items())) for g, v in per.items()))
    b = B(LARGE, "sg00", "DVE")[9]
    rec("3.1-example", "large sg00 DVE[9] bytes as printed", b.hex() ==
        "41100000050513069d000000aa0a0480" "00200002010001000100000201000100"
        "00500000010001000100000201000100" "00500000010001000100000201000100", b.hex())
    for g in graphs(LARGE):
        PE, DVE, ACT = B(LARGE, g, "PE"), B(LARGE, g, "DVE"), B(LARGE, g, "Activation")
        mm = [b for b in PE if b[0] == 2]
        dvec = [b for b in DVE if b[6] == 0x13]
        # (1)
        if g == "sg00":
            rec("3.2-1", "DVE[2] = Memset 0x5000 ← 512 × fp32 0, DVE completion #1",
                DVE[2][0] == 0x49 and u32(DVE[2], 0x2C) == 0x5000 and dvec[0] is DVE[2] or dvec[0] == DVE[2],
                f"DVE[2] op {DVE[2][0]:#x} dst {u32(DVE[2], 0x2C):#x}")
        # (3) TT waits
        stops = defaultdict(list)
        for k, b in enumerate(mm, 1):
            if b[0x2B] & 2 and not b[0x22]:
                stops[u32(b, 0x30)].append(k)
        ttc, res, maxw5, other = Counter(), Counter(), 0, []
        for i, b in enumerate(DVE):
            w = u32(b, 8) if (b[4] == 5 and b[5] == 5) else None
            if b[0] == 0x41:
                a = u32(b, 0x10)
                need = stops[a][ttc[a]]
                ttc[a] += 1
                if w is not None:
                    res["exact" if w == need and mm[w - 1][0x2B] == 2 else "not exact"] += 1
                else:
                    res["covered" if maxw5 >= need else "UNCOVERED"] += 1
                    other.append(f"DVE[{i}] (bank {(a - 0x2000000) >> 11}, own wait "
                                 f"{'s%d>=%d' % (b[5], u32(b, 8)) if b[4] else 'none'}) needs Matmul #{need}, "
                                 f"covered by earlier s5 ≥ {maxw5}")
            if w is not None:
                maxw5 = max(maxw5, w)
            if b[0] == 0xA0:
                if b[5] == 5:
                    maxw5 = max(maxw5, u32(b, 8))
                if b[0x20] and b[0x21] == 5:
                    maxw5 = max(maxw5, u32(b, 0x24))
        rec(f"3.2-3-{g}", "508 of 512 TTs wait s5 for exactly the STOP Matmul of the group writing bank b; the other 4 are "
            "covered by a larger earlier wait (e.g. DVE[19] bank 5 by DVE[18] s5 ≥ 320, Matmul #319)",
            res == Counter({"exact": 508, "covered": 4}), f"{dict(res)}; " + "; ".join(other))
        # (4) 8 TTs per accumulator round with different banks
        rounds = defaultdict(list)
        cur = {}
        for b in DVE:
            if b[0] == 0x49:
                a = u32(b, 0x2C)
                cur[a] = len(rounds[a])
                rounds[a].append([])
            if b[0] == 0x41:
                a = u32(b, 0x20)
                rounds[a][cur[a]].append(u32(b, 0x10))
        sizes = Counter(len(r) for rr in rounds.values() for r in rr)
        distinct_consec = all(r[k] != r[k + 1] for rr in rounds.values() for r in rr for k in range(len(r) - 1))
        rec(f"3.2-4-{g}", "8 TTs (8 K-chunks of 4 096) per accumulator round, with different banks",
            sizes == Counter({8: 64}),
            f"TTs per round: {dict(sizes)}; consecutive TTs of a round use different banks: {distinct_consec}; "
            f"distinct banks per round: {dict(Counter(len(set(r)) for rr in rounds.values() for r in rr))}")
        # (5) PE waits on s6
        kinds, where_ = Counter(), Counter()
        for i, b in enumerate(PE):
            ws = []
            if b[4] and b[5] == 6:
                ws.append(u32(b, 8))
            if b[0] == 0xA0 and b[0x20] and b[0x21] == 6:
                ws.append(u32(b, 0x24))
            for w in ws:
                c = dvec[w - 1]
                kinds[hex(c[0])] += 1
                where_[(hex(b[0]), hex(c[0]))] += 1
        rec(f"3.2-5-{g}", "the group-starting Matmul waits s6 for the TT that named its bank: 489 per core; the other PE "
            "waits on s6 are for copies", kinds["0x41"] == 489 and set(kinds) <= {"0x41", "0x46", "0x47"},
            f"PE waits on s6 by (carrier opcode, DVE producer opcode): {dict(where_)}")
        # (6)
        casts = [(e, b) for e, bb in (("Activation", ACT), ("DVE", DVE)) for b in bb if b[0] == 0x47]
        accs = {u32(b, 0x20) for b in DVE if b[0] == 0x41}
        outs = [(u32(b, 0x10), u32(b, 0x10) + u16(b, 0x24)) for b in B(LARGE, g, "Pool")
                if b[0] == 0xD4 and b[0x2F] == 0x20 and u16(b, 0x2C) == 2]
        inside = all(any(a <= u32(b, 0x2C) and u32(b, 0x2C) + 2 * u16(b, 0x38) <= z for a, z in outs) for e, b in casts)
        rec(f"3.2-6-{g}", "Activation (47) or DVE (17) 0x47 casts A (fp32) to an fp16 staging tile, DMA'd to output0",
            Counter(e for e, b in casts) == Counter({"Activation": 47, "DVE": 17})
            and all(u32(b, 0x0C) in accs and b[0x20] == 0x0A and b[0x21] == 7 for e, b in casts) and inside,
            f"{dict(Counter(e for e, b in casts))}, all read an accumulator as fp32 and write 512 fp16; every cast's "
            f"1 KiB result lies inside the 4 KiB source span of one of the {len(outs)} Pool DMAs to DGE entry 2 "
            f"(output0): {inside}")
        # (7)
        actc = [b for b in ACT if b[6] == 0x13]
        res = Counter()
        first = set()
        for b in DVE:
            if b[0] != 0x49:
                continue
            a = u32(b, 0x2C)
            if a not in first:
                first.add(a)
                res["first Memset of A (no wait)" if not b[4] else "first, waits"] += 1
                continue
            if b[4] and b[5] == 4:
                c = actc[u32(b, 8) - 1]
                res["waits s4 for the Activation cast of A" if c[0] == 0x47 and u32(c, 0x0C) == a else "s4 other"] += 1
            elif b[4] and b[5] == 6:
                c = dvec[u32(b, 8) - 1]
                res["waits s6 for the DVE cast of A" if c[0] == 0x47 and u32(c, 0x0C) == a else "s6 other"] += 1
            else:
                res["no wait"] += 1
        rec(f"3.2-7-{g}", "the next Memset of A waits on semaphore 4 for the cast of step 6",
            "PARTLY" if res.get("waits s6 for the DVE cast of A") else res.get("s4 other", 0) == 0,
            f"{dict(res)}")
        # §3.3 (1)
        ok, n47 = True, 0
        for b in ACT:
            if b[0] != 0x47:
                continue
            n47 += 1
            a = u32(b, 0x0C)
            c = dvec[u32(b, 8) - 1]
            w = u32(b, 8)
            later_tt = [k for k, d in enumerate(dvec, 1) if k > w and d[0] == 0x41 and u32(d, 0x20) == a]
            later_ms = [k for k, d in enumerate(dvec, 1) if k > w and d[0] == 0x49 and u32(d, 0x2C) == a]
            ok &= b[5] == 6 and c[0] == 0x41 and u32(c, 0x20) == a and u32(c, 0x30) == a and \
                (not later_tt or (later_ms and later_ms[0] < later_tt[0]))
        rec(f"3.3-1-{g}", "each of the 47 Activation casts of A waits s6 ≥ n, DVE completion #n = the last TT naming A",
            ok and n47 == 47, f"{n47} casts checked")
        # §3.3 (3) WAR protection
        c6 = 0
        tts = []
        for b in DVE:
            if b[6] == 0x13:
                c6 += 1
            if b[0] == 0x41:
                tts.append((c6, u32(b, 0x10)))
        maxw, starts = 0, defaultdict(list)
        for i, b in enumerate(PE):
            if b[4] and b[5] == 6:
                maxw = max(maxw, u32(b, 8))
            if b[0] == 0xA0 and b[0x20] and b[0x21] == 6:
                maxw = max(maxw, u32(b, 0x24))
            if b[0] == 2 and b[0x2B] & 1:
                starts[u32(b, 0x30) & ~0x7FF].append((i, maxw, b[0x22]))
        per_, res = Counter(), Counter()
        for cn, bank in tts:
            k = per_[bank]
            per_[bank] += 1
            gi = [x for x in starts[bank] if not x[2]][k][0]
            nxt = [x for x in starts[bank] if x[0] > gi]
            if not nxt:
                res["no later group in the bank"] += 1
            else:
                res["protected" if nxt[0][1] >= cn else "UNPROTECTED"] += 1
        rec(f"3.3-3-{g}", "PE waits for the TT before overwriting its bank (WAR)", res.get("UNPROTECTED", 0) == 0,
            f"{dict(res)}")


# =============================================================== §4.4
def s44():
    blk = DRAFT[DRAFT.index("sg00 streams (V, complete"):]
    blk = blk[blk.index("```") + 3:]
    blk = blk[:blk.index("```")]
    E = {"SP": "SP", "Pool": "Pool", "PE": "PE", "Act": "Activation", "DVE": "DVE"}
    n_ok, bad = 0, []
    for m in re.finditer(r"(SP|Pool|PE|Act|DVE)\[(\d+)\]\s+([0-9a-f]{32}(?: [0-9a-f]{32}){3}|[0-9a-f]{4}…)", blk):
        e, i, h = m.group(1), int(m.group(2)), m.group(3)
        real = B(SMALL, "sg00", E[e])[i].hex()
        good = real.startswith(h[:4]) and set(real[4:]) == {"0"} if "…" in h else h.replace(" ", "") == real
        n_ok += good
        if not good:
            bad.append(f"{e}[{i}]")
    rec("4.4-hex", "the sg00 listing of matmul_small (29 bundles) is byte-exact", not bad and n_ok == 29,
        f"{n_ok} lines match; mismatches {bad or 'none'}")
    names = {e: bir_names(SMALL, "sg00", e) for e in ENGINES}
    exp = {("SP", 2): "I-86-0", ("Pool", 2): "I-76-0", ("Pool", 3): "I-71-0", ("Pool", 4): "I-71-1", ("Pool", 5): "I-74-0",
           ("Pool", 6): "Block1-final-DMA-NOP", ("PE", 2): "I-87-0-wait-0", ("PE", 3): "I-87-0", ("PE", 5): "I-87-1",
           ("PE", 7): "I-72-0-wait-0", ("Activation", 2): "I-80-0-accel-tc-act-PWP",
           ("Activation", 3): "I-80-0-accel-tc-act", ("PE", 8): "I-72-0", ("PE", 10): "I-72-1",
           ("Activation", 4): "I-89-0-tc-act"}
    got = {k: names[k[0]][k[1]] for k in exp}
    rec("4.4-names", "BIR names of the walk (I-86-0, I-76-0, I-71-0/1, I-74-0, I-87-0/1, I-72-0/1, I-80-0-…, I-89-0-tc-act)",
        got == exp, "; ".join(f"{e}[{i}] {v}" for (e, i), v in got.items() if v != exp[(e, i)]) or "all equal")
    # inputs
    v = defjson(SMALL, "sg00")["var"]
    raw = members(SMALL)["sg00/value_sg0000_identity_82_CRSM.npy"]
    hl = int.from_bytes(raw[8:10], "little")
    hdr = raw[10:10 + hl].decode()
    import numpy as np
    ident = np.frombuffer(raw[10 + hl:], np.float16).reshape(128, 128)
    rec("4.4-inputs", "x var 1 (DGE entry 0) [128,256] pitch 512; y var 2 (entry 1) [256,128] pitch 256; output0 var 3 "
        "(entry 2) [128,128]; identity var 4 `file` fp16 [128,128]",
        v["x"]["var_id"] == 1 and v["y"]["var_id"] == 2 and v["output0"]["var_id"] == 3 and v["DGETable0"]["list"] == [1, 2, 3]
        and "'<f2'" in hdr and "(128, 128" in hdr and np.array_equal(ident, np.eye(128, dtype=np.float16))
        and 10 + hl == 128,
        f"npy header {hdr.strip()!r} (header+preamble {10 + hl} bytes), data is the identity: "
        f"{np.array_equal(ident, np.eye(128, dtype=np.float16))}")


def s_examples():
    pats = [m.group(1) for m in re.finditer(r"`((?:[0-9a-f]{8}[ |…0]*){3,})`", DRAFT) if " " in m.group(1)]
    loc = {
        "46100000 05051304 02000000": [(SMALL, "sg00", "Activation", 3)],
        "01100000 05080000 10000000 00000000 | fe7c0300": [(SMALL, "sg00", "PE", 3)],
        "02100000 00001305 00000000 00000000 | 007b0300": [(SMALL, "sg00", "PE", 4)],
        "02100000 00001305 00000000 00000000 | 007f0300": [(SMALL, "sg00", "PE", 9)],
        "a0100000 05180000 10000000 …": [(SMALL, "sg00", "PE", 2)],
        "a0100000 05200000 10100000": [(LARGE, "sg00", "Pool", 6858)],
        "a4100000 051b0000": [(SMALL, "sg00", "Pool", 6)],
        "a4100000 051e0000": [(LARGE, "sg00", "Pool", 6872)],
        "d4100000 00000000 00000000 00081000": [(SMALL, "sg00", "SP", 2)],
        "d4100000 05040000 02000000 001b1000": [(SMALL, "sg00", "Pool", 5)],
        "46100000 05051304 02000000 00080002": [(SMALL, "sg00", "Activation", 3)],
        "a0100000 05060000 01000000": [(LARGE, "sg00", "DVE", 8)],
    }
    for pat in pats:
        key = next((k for k in sorted(loc, key=len, reverse=True) if pat.startswith(k)), None)
        if key is None:
            rec("ex-unplaced", f"example `{pat}`", "NOT CHECKABLE", "no bundle location known")
            continue
        for n, g, e, i in loc[key]:
            real = B(n, g, e)[i]
            rec(f"ex-{e}[{i}]-{n[7:12]}", f"example `{pat[:60]}…` is {n[7:12]} {g} {e}[{i}]",
                match_pattern(pat, real), real.hex())


def s_extra():
    """Outside the required scope, cheap to check: §1.8 virtual variables, §1.2/§1.4..§1.6 headline values."""
    import io
    import struct
    import tarfile
    import zlib
    a = {v["var_id"]: v["backing_variable_off"] for v in defjson(LARGE, "sg00")["var"].values() if v["type"] == "virtual"}
    b_ = {v["var_id"]: v["backing_variable_off"] for v in defjson(LARGE, "sg01")["var"].values() if v["type"] == "virtual"}
    na = {k: v["backing_variable_off"] for k, v in defjson(LARGE, "sg00")["var"].items() if v["type"] == "virtual"}
    nb = {k: v["backing_variable_off"] for k, v in defjson(LARGE, "sg01")["var"].items() if v["type"] == "virtual"}
    same_by_save = all(na[k] == nb[k2] for k in na for k2 in nb if k.split("_")[2] == k2.split("_")[2])
    rec("1.8-virtual (extra)", "large: 16 virtual RematSpillSave vars of 512 KiB, var_ids 5..20, backing offsets 0..7.5 MiB; "
        "sg00 and sg01 name them differently and permute the offsets",
        "PARTLY" if a == b_ else False,
        f"names differ (sg00 '-t125_i0_RematSpillSave0_sg0000', sg01 '-t125_i256_RematSpillSave0_sg0000'), but the offsets "
        f"are NOT permuted: var_id → offset identical in both cores ({a == b_}), and RematSpillSaveN → offset identical "
        f"({same_by_save}); e.g. var 5 / Save0 → {a[5]:#x}, var 6 / Save1 → {a[6]:#x}")
    ok = True
    ev = []
    for n in NEFFS:
        d = (GT / n).read_bytes()
        q = lambda o: struct.unpack_from("<Q", d, o)[0]
        dec = zlib.decompressobj(31)
        tar = dec.decompress(d[0x400:])
        names = [m.name for m in tarfile.open(fileobj=io.BytesIO(tar)).getmembers()]
        c = zlib.compressobj(1, zlib.DEFLATED, -15, 8)
        raw = c.compress(tar) + c.flush()
        checks = [q(0) == 2, q(8) == 0x400, q(0x10) == len(d) - 0x400, q(0x18) == 2, q(0x20) == 0,
                  d[0x400:0x404] == b"\x1f\x8b\x08\x00", d[0x408:0x40a] == b"\x04\x03", not any(dec.unused_data),
                  (len(d) - 0x400) % 10240 == 0, names[-1] == "neff.json" and names[:-1] == sorted(names[:-1]),
                  raw == d[0x40a:0x40a + len(raw)], q(0x228) == 2]
        ok &= all(checks)
        ev.append(f"{n[7:12]}: {sum(checks)}/{len(checks)} (0x220 = {q(0x220):#x})")
    rec("1.x-container (extra)", "header words 0x000..0x020 and 0x228, gzip flags/XFL/OS, zero padding to 10 240, "
        "member order (sorted, neff.json last), deflate = zlib level 1 memLevel 8", ok, "; ".join(ev))


SECTIONS = [("ex-", "Byte strings quoted in the draft"), ("0.1", "§0.1 The two NEFFs"), ("1.9", "§1.9 Engines, queues, semaphores"),
            ("2.0", "§2.0 Conventions"), ("2.1", "§2.1 0x01 Ldweights"), ("2.2", "§2.2 0x02 Matmul"),
            ("2.3", "§2.3 0xA0 EventSemaphore"), ("2.4", "§2.4 0xA4 Nop"), ("2.5", "§2.5 0xB1 SetOrderingMode"),
            ("2.6", "§2.6 0xCC PseudoBranchLabel"), ("2.7", "§2.7 0xD4 DMA"), ("2.8", "§2.8 0x23 ActivationTableLoad"),
            ("2.9", "§2.9 Opcodes already in SPEC.md"), ("3.", "§3 TensorTensor slot order (dataflow)"),
            ("4.4", "§4.4 matmul_small bundle walk"), ("1.8", "Outside the required scope (§1), spot checks"),
            ("1.x", "")]


def write_markdown(path: Path) -> None:
    head = (Path(__file__).parent / "draft-verification.head.md").read_text()
    c = Counter(st for _, _, st, _ in RESULTS)
    lines = [head.replace("{{counts}}", ", ".join(f"{k} {v}" for k, v in sorted(c.items()))), ""]
    done = set()
    for prefix, title in SECTIONS:
        rows = [r for r in RESULTS if r[0].startswith(prefix) and r[0] not in done]
        if not rows:
            continue
        if title:
            lines += [f"### {title}", "", "| id | status | claim (draft) | evidence (recomputed from the bytes) |", "|---|---|---|---|"]
        for cid, claim, st, ev in rows:
            done.add(cid)
            esc = lambda t: t.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {cid} | **{st}** | {esc(claim)} | {esc(ev)} |")
        lines.append("")
    rest = [r for r in RESULTS if r[0] not in done]
    assert not rest, rest
    lines.append((Path(__file__).parent / "draft-verification.tail.md").read_text())
    path.write_text("\n".join(lines))


def main():
    for f in (s_examples, s_extra, s01, s19, s20, s21, s22, s23, s24, s27, s29, s3, s44):
        f()
    for cid, claim, st, ev in RESULTS:
        print(f"{cid} | {st} | {claim} | {ev}")
    c = Counter(st for _, _, st, _ in RESULTS)
    print(f"# {len(RESULTS)} checks: {dict(c)}", file=sys.stderr)
    if "--write" in sys.argv:
        write_markdown(Path(__file__).resolve().parent.parent / "draft-verification.md")


if __name__ == "__main__":
    main()
