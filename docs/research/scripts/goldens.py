"""Write golden vectors tests/golden/real/<NN>_<opcode>_<variant>.json from real NEFF bundles.

Each vector's "hex" is copied by this script from the NEFF member sgNN/<Engine>.bin (gzip at 0x400,
ustar tar) of /work/shared/groundtruth; the per-field values are sliced from those same bytes with the
layouts of layouts.py, and the readings are text written for this research (readings() below), not
tongasm output. What it checks: that every non-zero byte of each chosen bundle is covered by a named
field of its layout and that reserved-zero fields are zero (it raises otherwise).
Run from any directory: python3 goldens.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from layouts import LAYOUTS, F
from neffload import bir_names, defjson, stream, u16

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "tests" / "golden" / "real"
SMALL, LARGE = "matmul_small.neff", "matmul_large.neff"
WIRE = {0x07: "fp16", 0x0A: "fp32", 0x08: "int32", 0x06: "bf16"}
OPNAME = {0x01: "ldweights", 0x02: "matmul", 0x23: "acttableload", 0x41: "tensortensor", 0x46: "copy", 0x47: "cast",
          0x49: "memset", 0xA0: "eventsemaphore", 0xA4: "nop", 0xB1: "setorderingmode", 0xCC: "pseudobranchlabel",
          0xD4: "dma"}


def bundle(n, g, e, i) -> bytes:
    s = stream(n, g, e)
    return s[64 * i:64 * i + 64]


def find(n, g, e, pred, nth=0):
    s = stream(n, g, e)
    k = 0
    for i in range(len(s) // 64):
        b = s[64 * i:64 * i + 64]
        if pred(b):
            if k == nth:
                return i
            k += 1
    raise LookupError((n, g, e))


def sem_owner(n, g, s):
    q = defjson(n, g)["dma_queue"]
    for name, v in q.items():
        if s in v["semaphore_set"]:
            return f"queue semaphore of {name} (owner {v['owner']}): DMA completions, +16 each"
    return {4: "Activation completion counter (+1 per Activation 0x46/0x47)",
            5: "PE completion counter (+1 per Matmul)",
            6: "DVE completion counter (+1 per DVE 0x41/0x46/0x47/0x49)"}.get(s, "semaphore")


def addr4_text(a):
    if 0x2000000 <= a < 0x2400000:
        r = a - 0x2000000
        return f"PSUM partition 0, bank {r >> 11}, byte {r & 0x7ff:#x} (offset {r:#x})"
    return f"SBUF partition {a >> 18}, byte {a & 0x3ffff:#x}"


def var_text(n, g, b, off):
    mode, v = b[off + 7], u16(b, off + 4)
    d = defjson(n, g)
    if mode == 0x20:
        vid = next(x for x in d["var"].values() if x.get("type") == "dge-table")["list"][v]
        name = next(k for k, x in d["var"].items() if x.get("var_id") == vid)
        return f"DGE-table entry {v} → var_id {vid} ({name})"
    if v == 0:
        return "var 0 = SBUF (state-buffer)"
    name, x = next((k, x) for k, x in d["var"].items() if x.get("var_id") == v)
    return f"var_id {v} = {name} (type {x['type']})"


ENG_OF_SEM = {4: "Activation", 5: "PE", 6: "DVE"}


def producer(n, g, sem, value):
    """Which bundle makes sem[sem] reach value: the value-th completion (engine semaphores) or the
    (value/16)-th DMA signalling it (queue semaphores)."""
    if value <= 0:
        return ""
    if sem in ENG_OF_SEM:
        e = ENG_OF_SEM[sem]
        k = 0
        s = stream(n, g, e)
        for i in range(len(s) // 64):
            b = s[64 * i:64 * i + 64]
            if b[6] == 0x13 and b[7] == sem:
                k += 1
                if k == value:
                    return f"; reached by completion #{value} = {e}[{i}] (opcode {b[0]:#04x}, {bir_names(n, g, e)[i]})"
        return "; UNREACHABLE"
    k = 0
    for e in ("SP", "Pool", "Activation"):
        s = stream(n, g, e)
        for i in range(len(s) // 64):
            b = s[64 * i:64 * i + 64]
            if b[0] == 0xD4 and b[0x0D] == sem:
                k += b[0x0E]
                if k >= value:
                    return f"; reached when DMA {e}[{i}] ({bir_names(n, g, e)[i]}) completes"
    return "; UNREACHABLE"


def reading(f: F, val: int, b: bytes, src) -> str:
    n, g, e, i = src
    nm = f.name
    if f.kind == "reserved-zero":
        if val:
            return "NON-ZERO?"
        if f.meaning and f.meaning != "reserved-zero":
            return "zero, as in every real bundle of this opcode; " + f.meaning
        return "reserved-zero, observed zero in every real bundle of this opcode"
    if nm == "opcode":
        return {0x01: "Ldweights (LoadStationary)", 0x02: "Matmul", 0x23: "ActivationTableLoad", 0x41: "TensorTensorArithOp",
                0x46: "Copy", 0x47: "Cast", 0x49: "Memset", 0xA0: "EventSemaphore", 0xA4: "Nop", 0xB1: "SetOrderingMode",
                0xCC: "PseudoBranchLabel", 0xD4: "PseudoDmaDirect2d (DMA)"}[val]
    if nm == "inst_word_len":
        return "64-byte bundle (16 dwords)"
    if nm == "reserved_02":
        return "reserved, zero"
    if nm in ("wait_mode", "wait1_mode"):
        return {0: "no wait", 5: "sem_ge_imm: wait until sem[idx] >= value"}.get(val, "?")
    if nm in ("wait_idx", "wait1_idx"):
        lane = "+0x08" if nm == "wait_idx" else "+0x24"
        if (nm == "wait_idx" and not b[4]) or (nm == "wait1_idx" and not b[0x20]):
            return "no wait (zero)"
        return f"s{val}: {sem_owner(n, g, val)}; threshold at {lane}"
    if nm == "update_mode":
        return {0: "no update", 0x13: "sem_inc: sem[idx] += 1 at completion"}.get(val, "?")
    if nm == "update_idx":
        return "no update (zero)" if not val and not (b[6] if f.off == 7 else b[0x22]) else f"s{val}: {sem_owner(n, g, val)}"
    if nm in ("sync_value", "wait1_value"):
        if nm == "sync_value" and not b[4]:
            return "zero (no wait; sem_inc writes no value)"
        if nm == "wait1_value" and not b[0x20]:
            return "zero (no second wait)"
        s = b[5] if nm == "sync_value" else b[0x21]
        extra = f" = {val // 16} completed DMA(s) on that queue semaphore" if s >= 8 else ""
        return f"threshold {val}{extra}{producer(n, g, s, val)}"
    if nm == "update_value":
        return "zero (no update)"
    if nm.endswith(".addr") and f.kind == "addr4":
        return addr4_text(val)
    if ".step" in nm and f.kind == "signed":
        return f"{val} element(s)"
    if ".num" in nm and f.kind == "unsigned":
        return f"{val}"
    if nm.endswith("dtype") and f.kind.startswith("enum"):
        return f"wire {val:#04x} = {WIRE.get(val, '?')}"
    if nm == "is_transpose":
        return "PE transpose (moving = identity), PSUM result in the input dtype" if val else "ordinary matmul operand"
    if nm == "num_rows":
        return f"K = {val} partitions"
    if nm == "num_active_cols":
        return f"M = {val} columns / output partitions"
    if nm in ("row_group", "col_group"):
        return "0x0F: all 128 rows/columns" if val == 0x0F else f"{val:#x}"
    if nm == "psum_flags":
        return {0: "interior of an accumulation group: accumulate into PSUM", 1: "START: first of a group, overwrite PSUM",
                2: "STOP: last of a group (accumulate, then readers may proceed)", 3: "START|STOP: single-matmul group (overwrite)"}[val]
    if nm in ("perf_variant", "perf_opt_dtype", "perf_dst_dtype", "perf_opt_src", "ordering_mode", "act_tbl_sel", "qos",
              "sync_command"):
        if nm == "act_tbl_sel":
            return "function set 0 = exp_and_others (act_info.json act_func_sets[0] = Activation.json activation_function_sets[0])"
        return "0 (the only value seen)"
    if nm == "dma_semaphore":
        return f"s{val}: {sem_owner(n, g, val)}"
    if nm == "dma_sem_increment":
        return f"+{val} to s{b[0x0D]} when the DMA has completed"
    if nm.endswith(".addr") and f.kind == "addr8":
        off = f.off
        if b[off + 7] == 0x10 and u16(b, off + 4) == 0:
            return f"SBUF word: {addr4_text(val)}"
        return f"byte offset {val:#x} in the variable"
    if nm.endswith(".var"):
        return var_text(n, g, b, f.off - 4)
    if nm.endswith(".var_hi"):
        return "var_id bits 16..23: 0"
    if nm.endswith(".addr_mode"):
        return {0x10: "0x10 physical var_id addressing", 0x20: "0x20 DGE-table immediate addressing"}[val]
    if ".step" in nm:
        return f"{val:#x} bytes" + (" (one SBUF partition)" if val == 0x40000 else " (row pitch)" if nm.endswith("step0") else " (dummy: num1 = 1)")
    if nm.endswith(".elem_size"):
        return f"{val} contiguous bytes per row"
    if nm == "op":
        return {4: "add"}.get(val, "?")
    if nm == "num_partitions":
        return f"{val} partitions"
    if nm == "element_count":
        return f"{val} elements per partition"
    if nm == "fill":
        return "fill bits 0 (= +0.0)"
    return ""


def fields_for(b: bytes, src) -> list[dict]:
    name, layout = LAYOUTS[b[0]]
    out = []
    covered = set()
    for f in layout:
        v = f.value(b)
        if f.kind == "reserved-zero" and v != 0:
            raise AssertionError(f"{src}: reserved field {f.name} non-zero")
        if v != 0:
            covered.update(range(f.off, f.off + f.size))
        out.append({"offset": f"0x{f.off:02X}", "width": f.width, "name": f.name, "kind": f.kind,
                    "value": v, "reading": reading(f, v, b, src), "confidence": f.conf, "decision": f.decision})
    nz = {k for k in range(64) if b[k]}
    assert nz <= covered, (src, sorted(nz - covered))
    return out


def variants():
    V = []

    def add(slug, n, g, e, i, note):
        V.append((slug, n, g, e, i, note))

    # Ldweights
    add("ldweights_transpose", SMALL, "sg00", "PE", 3, "Ldweights of the x tile for a PE transpose (+0x22 = 1); waits s8 (identity DMA).")
    add("ldweights_plain_wait_act", SMALL, "sg00", "PE", 8, "Plain Ldweights of the transposed tile T (SBUF 0x4000); waits s4 (Activation copy).")
    i = find(LARGE, "sg00", "PE", lambda b: b[0] == 1 and not b[0x22] and b[4] and 24 <= b[5] < 40 and b[0x10] == 0xF6)
    add("ldweights_plain_wait_pool_queue", LARGE, "sg00", "PE", i, "Large: tile base ending in 0xF8 (ADDR4 low byte 0xF6); waits for a Pool queue DMA.")
    i = find(LARGE, "sg00", "PE", lambda b: b[0] == 1 and not b[4])
    add("ldweights_no_wait", LARGE, "sg00", "PE", i, "Ldweights without any wait.")
    i = find(LARGE, "sg00", "PE", lambda b: b[0] == 1 and b[4] and b[5] == 6)
    add("ldweights_wait_dve", LARGE, "sg00", "PE", i, "Ldweights carrying the wait on DVE semaphore 6 for the next Matmul (PSUM bank released by a TT, or a DVE copy landed).")
    # Matmul
    add("matmul_flags03_transpose", SMALL, "sg00", "PE", 4, "Transpose: moving = identity, flags 0x03, fp16 written to PSUM 0x2000800.")
    add("matmul_flags01_first", SMALL, "sg00", "PE", 9, "First of a 2-Matmul group (N = 64), fp32 PSUM overwrite.")
    add("matmul_flags02_last", SMALL, "sg00", "PE", 11, "Last of the group: accumulate and close.")
    i = find(LARGE, "sg00", "PE", lambda b: b[0] == 2 and b[0x2B] == 0)
    add("matmul_flags00_middle", LARGE, "sg00", "PE", i, "Interior of a 32-Matmul group (N = 512): accumulate.")
    i = find(LARGE, "sg00", "PE", lambda b: b[0] == 2 and b[4] and b[0x2B] == 1)
    add("matmul_flags01_wait_dve", LARGE, "sg00", "PE", i, "Group start that waits on s6 for the TT that drained the bank.")
    # EventSemaphore
    add("eventsemaphore_one_wait", SMALL, "sg00", "PE", 2, "One wait: s24 >= 16 (x tile landed).")
    add("eventsemaphore_two_waits", LARGE, "sg00", "Pool", 6858, "Two waits: s32 >= 4112 and s6 >= 603.")
    add("eventsemaphore_self_wait_dve", LARGE, "sg00", "DVE", 8, "DVE waits on its own completion counter s6 >= 1.")
    # control
    add("nop_final", SMALL, "sg00", "Pool", 6, "Block1-final-DMA-NOP: waits for the output DMA.")
    add("setorderingmode_prologue", SMALL, "sg00", "SP", 0, "Stream prologue bundle 0.")
    add("pseudobranchlabel_prologue", SMALL, "sg00", "SP", 1, "Stream prologue bundle 1.")
    add("acttableload_set0", SMALL, "sg00", "Activation", 2, "Load activation function set 0.")
    # DMA
    add("dma_sp_sbuf_from_file", SMALL, "sg00", "SP", 2, "SP: identity constant (file var 4) → SBUF 0x37B00.")
    add("dma_pool_sbuf_from_dge_x", SMALL, "sg00", "Pool", 2, "Pool: x (DGE entry 0) → SBUF 0x37C00.")
    add("dma_pool_sbuf_from_dge_y_sg01", SMALL, "sg01", "Pool", 3, "Pool of core sg01: y columns 64.. (offset 0x80) → SBUF.")
    add("dma_pool_dge_from_sbuf_fp32_to_fp16", SMALL, "sg00", "Pool", 5, "Pool: SBUF fp32 → output0 (DGE entry 2) fp16, converting.")
    i = find(LARGE, "sg00", "Pool", lambda b: b[0] == 0xD4 and b[0x2F] == 0x20)
    add("dma_pool_dge_from_sbuf_fp16", LARGE, "sg00", "Pool", i, "Pool: fp16 staging tile → output0, no conversion, 4 KiB rows.")
    i = find(LARGE, "sg00", "Pool", lambda b: b[0] == 0xD4 and b[0x17] == 0x20 and u16(b, 0x14) == 1 and b[4] == 5 and b[5] == 5)
    add("dma_pool_sbuf_from_dge_y_wait_pe", LARGE, "sg00", "Pool", i, "Pool: y tile → SBUF, issued after s5 (PE) reaches a threshold.")
    i = find(LARGE, "sg00", "Activation", lambda b: b[0] == 0xD4)
    add("dma_act_spill_to_virtual", LARGE, "sg00", "Activation", i, "Activation: SBUF → virtual spill variable (RematSpillSave).")
    i = find(LARGE, "sg00", "SP", lambda b: b[0] == 0xD4 and 5 <= u16(b, 0x14) <= 20 and b[4])
    add("dma_sp_reload_from_virtual", LARGE, "sg00", "SP", i, "SP: virtual spill variable → SBUF (reload).")
    # existing opcodes
    add("tensortensor_add_psum_acc", LARGE, "sg00", "DVE", 9, "TT add: in0 = PSUM bank 4, in1 = out = SBUF accumulator 0x5000 (R-7).")
    add("copy_act_psum_int32", SMALL, "sg00", "Activation", 3, "Copy of two fp16 transposes as 128 int32 (PSUM → SBUF).")
    add("copy_act_psum_fp32", SMALL, "sg00", "Activation", 4, "Copy of the fp32 product (PSUM → SBUF).")
    i = find(LARGE, "sg00", "DVE", lambda b: b[0] == 0x46)
    add("copy_dve_psum_int32", LARGE, "sg00", "DVE", i, "DVE copy of 8 transposes as 512 int32.")
    i = find(LARGE, "sg00", "Activation", lambda b: b[0] == 0x47)
    add("cast_act_fp32_to_fp16", LARGE, "sg00", "Activation", i, "Activation cast of an accumulator fp32 → fp16 staging.")
    i = find(LARGE, "sg00", "DVE", lambda b: b[0] == 0x47)
    add("cast_dve_fp32_to_fp16", LARGE, "sg00", "DVE", i, "DVE cast of an accumulator fp32 → fp16 staging.")
    add("memset_zero_no_wait", LARGE, "sg00", "DVE", 2, "Memset accumulator 0x5000 to fp32 0.")
    i = find(LARGE, "sg00", "DVE", lambda b: b[0] == 0x49 and b[4] and b[5] == 4)
    add("memset_zero_wait_act", LARGE, "sg00", "DVE", i, "Memset that waits for the Activation cast of the same accumulator.")
    return V


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for p in OUT.glob("*.json"):
        p.unlink()
    for k, (slug, n, g, e, i, note) in enumerate(variants(), 1):
        b = bundle(n, g, e, i)
        src = (n, g, e, i)
        op = b[0]
        name = f"{k:02d}_{OPNAME[op]}_{slug.split('_', 1)[1] if slug.startswith(OPNAME[op]) else slug}.json"
        doc = {
            "source": {"neff": n, "graph": g, "engine": e, "index": i, "bir_name": bir_names(n, g, e)[i]},
            "provenance": ("hex copied by docs/research/scripts/goldens.py from member "
                           f"{g}/{e}.bin of /work/shared/groundtruth/{n} (bytes {64 * i}..{64 * i + 63}); "
                           "field values sliced from those bytes with docs/research/scripts/layouts.py; readings "
                           "written for this research from the bytes, def.json and the cited docs, not from tongasm"),
            "layout": LAYOUTS[op][0],
            "hex": b.hex(),
            "fields": fields_for(b, src),
            "notes": note,
        }
        (OUT / name).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(name, bir_names(n, g, e)[i])


if __name__ == "__main__":
    main()
