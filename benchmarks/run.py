"""tongasm benchmarks: every figure next to a baseline measured in the same run.

    python benchmarks/run.py            # the full run (1 M-instruction / 1 M-bundle sizes)
    python benchmarks/run.py --quick    # 10x smaller, for a smoke test
    python benchmarks/run.py --only decode,disasm --json results.json

These machines are noisy, so each figure is the best of a few repeats and is printed as a ratio
against a baseline timed in the same process (or, for memory, in sibling processes), beside the
target of issue 6. Not part of the test suite; ``make bench`` runs it.

Sections (issue 6's targets, and issue 16's: what users wait for, against the strongest baseline)
  decode   tongasm.decode_stream on a 1 M-bundle mixed stream vs a bare numpy structured-dtype view
           extracting the same fields (target: ratio >= 0.5 and >= 5 M bundles/s)
  check    check_stream (every bundle check) vs decode_stream on the same bytes (target >= 0.5x);
           also on the real NEFFs' streams (reported)
  disasm   the listing (tongasm disasm's text) vs capstone's fastest Python API, disasm_lite(), one
           text line per instruction, timed in alternating rounds (target >= 1x; needs `pip install
           capstone`); capstone's disasm() and `objdump -d` per instruction reported beside it
  encode   IR objects -> bundle bytes, 1 M instructions: operand offsets from 8,128 values (the
           target: >= 250 k/s), from 64 tiles, and loop-structured, best of 3; the floor: 64-byte
           struct.pack calls; the encoder's memo miss rates on each kernel beside it
  memory   `tongasm assemble` on a 1 M-instruction BIR JSON: peak RSS / file size (target <= 4),
           next to json.load of the same file; and its CPU time vs json.load with GC off, each the
           best of three alternating runs (target <= 2x; wall time reported beside it)
  manifest manifest.json size / stream size (target <= 1); decode --format json rate (reported)
  startup  `tongasm --help` vs `python -c 'import numpy'`, fresh processes (target <= 2x); every command,
           one-bundle files, a real NEFF and whole 100k-instruction runs: benchmarks/startup.py
  sim      TensorTensor and TensorCopy on full 128-partition tiles vs numpy on the same SBUF views
           (issue 6: >= 0.5x); a kernel mix with CopyPredicated, Select and casts vs numpy doing the
           same maths on contiguous arrays (issue 16: >= 0.8x)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import struct
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from kernels import kernel_ir, looped_kernel_ir, write_kernel  # noqa: E402

RESULTS: list[dict[str, Any]] = []


def best(fn: Callable[[], Any], repeat: int = 3, number: int = 1) -> float:
    """Best wall time of one call: ``repeat`` timings of ``number`` calls each (after one warm-up),
    with the garbage collector paused."""
    fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t = time.perf_counter()
            for _ in range(number):
                fn()
            times.append((time.perf_counter() - t) / number)
        finally:
            gc.enable()
    return min(times)


def best_alternating(fns: list[Callable[[], Any]], repeat: int = 5) -> list[float]:
    """Best wall time of each function, timed in alternating rounds (after one warm-up each, the
    garbage collector paused): on a shared machine a change of load then reaches every side of a
    same-run ratio alike, instead of whichever side happened to be timed during it."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            gc.collect()
            gc.disable()
            try:
                t = time.perf_counter()
                fn()
                times[i].append(time.perf_counter() - t)
            finally:
                gc.enable()
    return [min(t) for t in times]


def report(section: str, what: str, value: float, unit: str, baseline: float | None, base_what: str,
           target: str, ok: bool | None) -> None:
    ratio = value / baseline if baseline else None
    verdict = "" if ok is None else ("meets" if ok else "MISSES")
    r = f"{ratio:6.2f}x" if ratio is not None else "      "
    v = f"{value:14,.0f}" if value >= 100 else f"{value:14.2f}"
    print(f"  {what:38} {v} {unit:10} {r}  vs {base_what}  [target {target}: {verdict}]", flush=True)
    RESULTS.append({"section": section, "what": what, "value": value, "unit": unit, "baseline": baseline,
                    "baseline_what": base_what, "ratio": ratio, "target": target, "meets": ok})


# --- decode -----------------------------------------------------------------------------------------

def mixed_stream(n_bundles: int) -> bytes:
    """A mixed stream of every in-scope layout: the benchmark kernel's streams, concatenated and tiled."""
    from tongasm.codegen import assemble

    asm = assemble(kernel_ir(min(n_bundles, 100_000)), check="off")
    data = b"".join(bytes(s) for s in asm.streams.values())
    reps = -(-n_bundles * 64 // len(data))
    return (data * reps)[:n_bundles * 64]


def bench_decode(n: int) -> None:
    from tongasm import decode_stream
    from tongasm.decode.batch import record_dtype
    from tongasm.isa import FORMATS

    print(f"decode: {n:,} bundles")
    data = mixed_stream(n)
    arr = np.frombuffer(data, dtype=np.uint8)
    cols = decode_stream(arr)
    # sanity: the columns agree with the scalar decoder on a sample
    from tongasm.decode import decode_bundle
    for i in range(0, n, max(n // 500, 1)):
        d = decode_bundle(data, i * 64)
        g = cols.groups[d.fmt.name]
        j = int(np.searchsorted(g.index, i))
        assert {k: int(v[j]) for k, v in g.fields.items()} == d.fields, i

    def baseline() -> None:
        # a bare structured view per layout: select its bundles by opcode, copy out every field
        opc = arr[0::64]
        for fmt in FORMATS:
            rec = arr.view(record_dtype(fmt))
            sel = rec[np.isin(opc, list(fmt.opcodes))]
            for name in rec.dtype.names:
                np.ascontiguousarray(sel[name])

    t_ours = best(lambda: decode_stream(arr))
    t_base = best(baseline)
    rate = n / t_ours
    report("decode", "decode_stream", rate, "bundles/s", n / t_base, "structured view", ">=0.5x and >=5M/s",
           rate / (n / t_base) >= 0.5 and rate >= 5e6)


# --- check --------------------------------------------------------------------------------------------

def real_streams() -> list[tuple[str, bytes]]:
    """Every engine stream of the real NEFFs in ../shared/groundtruth (none if they are absent)."""
    from tongasm.neff import read_neff

    out = []
    for p in sorted((HERE.parent.parent / "shared" / "groundtruth").glob("*.neff")):
        nf = read_neff(p)
        out += [(s.stream, bytes(nf.stream_data(s))) for s in nf.streams()]
    return out


def bench_check(n: int) -> None:
    from tongasm import check_stream, decode_stream
    from tongasm.isa import GEN3

    print(f"check: {n:,} bundles")
    data = mixed_stream(n)
    arr = np.frombuffer(data, dtype=np.uint8)
    assert not check_stream(data), "the benchmark stream is legal"
    t_dec = best(lambda: decode_stream(arr))
    t_chk = best(lambda: check_stream(data))
    report("check", "check_stream, mixed stream", n / t_chk, "bundles/s", n / t_dec, "decode_stream, same bytes",
           ">=0.5x", t_dec / t_chk >= 0.5)
    real = real_streams()
    if real:
        m = sum(len(d) for _, d in real) // 64
        t_dec = best(lambda: [decode_stream(np.frombuffer(d, dtype=np.uint8)) for _, d in real])
        t_chk = best(lambda: [check_stream(d, stream=s, target=GEN3, unmodelled="note") for s, d in real])
        report("check", f"check_stream, real NEFFs ({len(real)} streams)", m / t_chk, "bundles/s", m / t_dec,
               f"decode_stream ({m:,} real bundles)", "reported", None)


# --- disasm -------------------------------------------------------------------------------------------

def x86_text() -> bytes | None:
    """The .text section of an x86-64 ELF on this machine (libc or the Python binary)."""
    cands = ["/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6",
             os.path.realpath(sys.executable)]
    for p in cands:
        try:
            b = Path(p).read_bytes()
        except OSError:
            continue
        if b[:4] != b"\x7fELF" or b[4] != 2 or struct.unpack_from("<H", b, 18)[0] != 62:  # ELF64, x86-64
            continue
        shoff, = struct.unpack_from("<Q", b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
        strtab = secs[shstrndx][4]
        for s in secs:
            name = b[strtab + s[0]: b.index(b"\0", strtab + s[0])]
            if name == b".text" and s[5] > 500_000:
                return b[s[4]: s[4] + s[5]]
    return None


def bench_disasm(n: int) -> None:
    from tongasm.text import StreamInput
    from tongasm.text.fast import fast_listing

    print(f"disasm: {n:,} bundles")
    data = mixed_stream(n)
    streams = [StreamInput("dve", data)]

    def ours() -> None:
        list(fast_listing(streams))

    try:
        import capstone
    except ImportError:
        report("disasm", "listing (text lines)", (n + 3) / best(ours), "instr/s", None, "capstone (not installed: "
               "pip install capstone)", ">=1x capstone", None)
        return
    code = x86_text()
    if code is None:
        report("disasm", "listing (text lines)", (n + 3) / best(ours), "instr/s", None,
               "capstone (no x86-64 ELF found)", ">=1x capstone", None)
        return
    code = code[:3_000_000]
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    count = [0]

    def lite() -> None:  # capstone's fastest Python API: tuples, no instruction objects
        lines = [f"{a:08x}:  {mn} {ops}" for a, _size, mn, ops in md.disasm_lite(code, 0x1000)]
        count[0] = len(lines)

    def full() -> None:
        lines = [f"{i.address:08x}:  {i.mnemonic} {i.op_str}" for i in md.disasm(code, 0x1000)]
        count[0] = len(lines)

    t_ours, t_lite = best_alternating([ours, lite])  # (rounds alternate: the same load for both)
    rate = (n + 3) / t_ours  # + header and .stream lines
    lite_rate = count[0] / t_lite
    report("disasm", "listing (text lines)", rate, "instr/s", lite_rate,
           f"capstone {capstone.__version__} disasm_lite() -> text, {count[0]:,} x86-64 instrs", ">=1x",
           rate >= lite_rate)
    t_full = best(full, repeat=2)
    report("disasm", "listing (text lines)", rate, "instr/s", count[0] / t_full, "capstone disasm() -> text",
           "reported", None)
    with tempfile.TemporaryDirectory() as d:  # objdump -d on the same bytes as a raw x86-64 blob
        blob = Path(d) / "code.bin"
        blob.write_bytes(code)
        cmd = ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", str(blob)]
        t_obj = float("inf")
        try:
            for _ in range(3):  # best of 3 runs
                t = time.perf_counter()
                out = subprocess.run(cmd, capture_output=True, check=True).stdout
                t_obj = min(t_obj, time.perf_counter() - t)
        except (OSError, subprocess.CalledProcessError):
            return
        n_obj = sum(1 for line in out.splitlines() if line[:1] == b" " and b":\t" in line)
        report("disasm", "listing (text lines)", rate, "instr/s", n_obj / t_obj,
               f"objdump -d ({n_obj:,} instrs, one process, best of 3)", "gap reported", None)


# --- encode -------------------------------------------------------------------------------------------

def bench_encode(n: int) -> None:
    from tongasm.codegen import assemble

    print(f"encode: {n:,} instructions")
    floor_vals = tuple(range(16))
    pk = struct.Struct("<16I").pack

    def floor() -> None:  # the least any encoder must do: one 64-byte pack per instruction
        out = bytearray()
        for _ in range(n):
            out += pk(*floor_vals)

    t_floor = best(floor)
    builds = (("flat, offsets from 8,128 values", lambda: kernel_ir(n)),
              ("flat, offsets from 64 tiles", lambda: kernel_ir(n, variety="tiles")),
              ("loop (1000-instr body unrolled)", lambda: looped_kernel_ir(n)))
    for label, build in builds:
        k = build()
        t = best(lambda k=k: assemble(k, check="off"), repeat=3)  # type: ignore[misc]
        report("encode", f"IR -> bytes, {label}", n / t, "instr/s", n / t_floor, "bare struct.pack floor",
               ">=250k/s", n / t >= 250_000)
        print("    " + encode_memo_rates(k))
        del k
        gc.collect()


def encode_memo_rates(kernel: Any) -> str:
    """How often the encoder's memos miss on a kernel (the bundles of every instruction, Selects
    lowered, through the encode functions' plans and per-operand memos): new plans, new operand
    heads and new (operand, slot) entries per instruction."""
    from tongasm.codegen.assembler import resolve_target
    from tongasm.codegen.common import Context
    from tongasm.codegen.generator import codegen_for, encoder_of
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.passes import lower
    from tongasm.passes.program import walk

    ctx = Context(resolve_target(kernel.arch, None), DEFAULT_DECISIONS)
    enc = encoder_of(ctx)
    n = 0
    for inst, _func, _it in walk(kernel):
        n += 1
        for x in lower(inst, DEFAULT_DECISIONS) or (inst,):
            enc.encode(x, codegen_for(x))
    slots = sum(len(m) for per in ctx.op_memo.values() for m in per.values())
    return (f"memo misses per instruction: plans {len(enc.plans) / n:.4f}, operand heads "
            f"{len(enc.interner.heads) / n:.4f}, (operand, slot) {slots / n:.4f} "
            f"({len(enc.plans):,} plans, {len(enc.interner.heads):,} heads, {slots:,} slot entries)")


# --- memory --------------------------------------------------------------------------------------------

# VmHWM (the peak resident set of this process image); ru_maxrss would carry the parent's peak
# across fork + exec on Linux.
_RSS = ("{body}\nprint([int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")


def _peak(body: str) -> int:
    out = subprocess.run([sys.executable, "-c", _RSS.format(body=body)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def _cpu_children() -> float:
    """User + system CPU seconds of the finished child processes (robust to other load on the
    machine, unlike wall time)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def bench_memory(n: int) -> None:
    print(f"memory: BIR JSON of {n:,} instructions -> streams")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "kernel.json"
        size = write_kernel(path, n)
        idle = _peak("import tongasm.cli")
        slurp = _peak(f"import json\njson.load(open({str(path)!r}))")
        # best of three alternating runs of each (the machine is shared: a run's CPU time too varies
        # with the load on the other core); the first assemble also gives the peak RSS
        runs: list[tuple[float, float]] = []
        loads: list[tuple[float, float]] = []
        peak = 0
        for _ in range(3):
            t, c = time.perf_counter(), _cpu_children()
            p = _peak(f"from tongasm.cli import main\nrc = main(['assemble', {str(path)!r}, '-o', "
                      f"{str(Path(d) / 'out')!r}, '-q'])\nassert rc == 0")
            runs.append((time.perf_counter() - t, _cpu_children() - c))
            peak = peak or p
            t, c = time.perf_counter(), _cpu_children()
            subprocess.run([sys.executable, "-c", f"import gc, json\ngc.disable()\njson.load(open({str(path)!r}))"],
                           check=True)
            loads.append((time.perf_counter() - t, _cpu_children() - c))
        dt, dc = min(r[0] for r in runs), min(r[1] for r in runs)
        t_load, c_load = min(r[0] for r in loads), min(r[1] for r in loads)
        print(f"  file {size / 2**20:,.0f} MiB; interpreter + imports {idle / 2**20:,.0f} MiB; "
              f"assemble took {dt:,.1f} s ({n / dt:,.0f} instr/s with the validator; {dc:,.1f} s of CPU); "
              f"best of 3")
        report("memory", "assemble peak RSS / JSON size", peak / size, "x file", slurp / size,
               f"json.load peak ({slurp / 2**20:,.0f} MiB)", "<=4x", peak / size <= 4)
        RESULTS[-1].update(peak_rss=peak, file_size=size, json_load_rss=slurp, seconds=dt, cpu_seconds=dc)
        # CPU time is the figure: on a shared machine the two processes' wall times see different loads
        report("memory", "assemble (validator on), CPU time", dc, "s", c_load, "json.load, GC off, same file (CPU s)",
               "<=2x", dc <= 2 * c_load)
        report("memory", "assemble (validator on), wall time", dt, "s", t_load, "json.load, GC off, same file",
               "reported", None)


# --- manifest and decode --format json ------------------------------------------------------------------

def bench_manifest(n: int) -> None:
    from tongasm.cli import main as cli

    n = min(n, 200_000)
    print(f"manifest: {n:,} instructions")
    with tempfile.TemporaryDirectory() as d:
        path, out = Path(d) / "kernel.json", Path(d) / "out"
        write_kernel(path, n)
        assert cli(["assemble", str(path), "-o", str(out), "-q", "--warn"]) == 0
        streams = sum(p.stat().st_size for p in out.glob("*.bin"))
        man = (out / "manifest.json").stat().st_size
        report("manifest", "manifest.json size", man, "bytes", streams, "the streams it describes", "<=1x",
               man <= streams)
        dve = out / "dve.bin"
        m = dve.stat().st_size // 64
        t = time.perf_counter()
        with open(Path(d) / "d.json", "wb") as fh:
            subprocess.run([sys.executable, "-m", "tongasm", "decode", str(dve), "--format", "json"], stdout=fh,
                           check=True)
        dt = time.perf_counter() - t
        report("manifest", "decode --format json", m / dt, "bundles/s", None, "(one process, start-up included)",
               "reported", None)


# --- startup ------------------------------------------------------------------------------------------------

def bench_startup(_n: int) -> None:
    print("startup: fresh processes, best of 7")

    def run(*cmd: str) -> float:
        times = []
        for _ in range(7):
            t = time.perf_counter()
            subprocess.run([sys.executable, *cmd], capture_output=True, check=True)
            times.append(time.perf_counter() - t)
        return min(times)

    t_numpy = run("-c", "import numpy")
    t_help = run("-m", "tongasm", "--help")
    report("startup", "tongasm --help", t_help * 1000, "ms", t_numpy * 1000, "python -c 'import numpy' (ms)",
           "<=2x", t_help <= 2 * t_numpy)


# --- sim ----------------------------------------------------------------------------------------------

def bench_sim(_n: int) -> None:
    import ml_dtypes

    from tongasm.codegen import assemble
    from tongasm.ir.builder import KernelBuilder
    from tongasm.isa import GEN2, DecisionSet
    from tongasm.sim.execute import execute
    from tongasm.sim.machine import Machine
    from tongasm.sim.scheduler import load_streams

    print("sim: one 128 x 512 tile per instruction, operands in SBUF")
    kb = KernelBuilder()
    a = kb.sbuf("a", bytes_per_partition=2048)
    b = kb.sbuf("b", bytes_per_partition=2048, addr=2048)
    c = kb.sbuf("c", bytes_per_partition=2048, addr=4096)
    f32, bf16 = "float32", "bfloat16"
    kb.tensor_tensor(c.tile(f32, 128, 512), a.tile(f32, 128, 512), b.tile(f32, 128, 512), "add")
    kb.tensor_tensor(c.tile(f32, 128, 512), a.tile(f32, 128, 512), b.tile(f32, 128, 512), "mult")
    kb.tensor_tensor(c.tile(bf16, 128, 512), a.tile(bf16, 128, 512), b.tile(bf16, 128, 512), "add")
    kb.tensor_copy(c.tile(f32, 128, 512), a.tile(f32, 128, 512))
    kb.tensor_copy(c.tile(bf16, 128, 512), a.tile(f32, 128, 512))
    asm = assemble(kb.build())
    bundles = load_streams({"dve": bytes(asm.streams["dve"])})[0].bundles
    m = Machine(GEN2)
    ds = DecisionSet()
    m.sbuf[:] = np.random.default_rng(0).integers(0, 60, m.sbuf.size, dtype=np.uint8)  # finite values

    def view(addr: int, dt: Any) -> np.ndarray:
        return np.ndarray((128, 512), dtype=dt, buffer=m.sbuf, offset=addr,
                          strides=(m.sbuf_stride, np.dtype(dt).itemsize))

    A, B, C = view(0, np.float32), view(2048, np.float32), view(4096, np.float32)
    Ab, Bb, Cb = view(0, ml_dtypes.bfloat16), view(2048, ml_dtypes.bfloat16), view(4096, ml_dtypes.bfloat16)
    bf = ml_dtypes.bfloat16
    cases = [
        ("TensorTensor add f32", lambda: np.add(A, B, out=C)),
        ("TensorTensor mult f32", lambda: np.multiply(A, B, out=C)),
        # the same maths as the engine: through float32, rounded once into bf16
        ("TensorTensor add bf16", lambda: np.copyto(Cb, (Ab.astype(np.float32) + Bb.astype(np.float32)).astype(bf))),
        ("TensorCopy f32", lambda: np.copyto(C, A)),
        ("TensorCopy f32->bf16 (cast)", lambda: np.copyto(Cb, A.astype(bf))),
    ]
    for (what, ref), d in zip(cases, bundles):
        t_sim = best(lambda: execute(m, "dve", d, ds), repeat=7, number=100)
        t_np = best(ref, repeat=7, number=100)
        report("sim", what, 128 * 512 / t_sim, "elem/s", 128 * 512 / t_np, "numpy on the same SBUF views", ">=0.5x",
               t_np / t_sim >= 0.5)
    bench_sim_mix()


def bench_sim_mix() -> None:
    """A kernel mix (arithmetic, casts, CopyPredicated, Select, Memset) against numpy doing the same
    maths on contiguous arrays: the user's alternative, not the simulator's own memory layout."""
    import ml_dtypes

    from tongasm.codegen import assemble
    from tongasm.ir.builder import KernelBuilder
    from tongasm.isa import GEN2, DecisionSet
    from tongasm.sim.execute import execute
    from tongasm.sim.machine import Machine
    from tongasm.sim.scheduler import load_streams

    kb = KernelBuilder()
    a = kb.sbuf("a", bytes_per_partition=2048)
    b = kb.sbuf("b", bytes_per_partition=2048, addr=2048)
    c = kb.sbuf("c", bytes_per_partition=2048, addr=4096)
    mk = kb.sbuf("m", bytes_per_partition=512, addr=6144)
    f32, bf16 = "float32", "bfloat16"
    t = {x: x.tile(f32, 128, 512) for x in (a, b, c)}
    kb.tensor_tensor(t[c], t[a], t[b], "add")
    kb.tensor_tensor(t[c], t[a], t[b], "mult")
    kb.tensor_tensor(c.tile(bf16, 128, 512), a.tile(bf16, 128, 512), b.tile(bf16, 128, 512), "add")
    kb.tensor_copy(c.tile(bf16, 128, 512), t[a])
    kb.copy_predicated(t[c], mk.tile("uint8", 128, 512), t[a])
    kb.select(t[c], mk.tile("uint8", 128, 512), t[a], kb.imm(f32, 0.0))
    kb.memset(t[c], 0)
    asm = assemble(kb.build())
    bundles = load_streams({"dve": bytes(asm.streams["dve"])})[0].bundles
    m = Machine(GEN2)
    ds = DecisionSet()
    rng = np.random.default_rng(0)
    m.sbuf[:] = rng.integers(0, 60, m.sbuf.size, dtype=np.uint8)
    bf = ml_dtypes.bfloat16
    A, B = rng.random((128, 512), dtype=np.float32), rng.random((128, 512), dtype=np.float32)
    C = np.empty_like(A)
    Ab, Bb, Cb = A.astype(bf), B.astype(bf), np.empty((128, 512), dtype=bf)
    M = rng.integers(0, 2, (128, 512), dtype=np.uint8)
    zero = np.float32(0.0)

    def numpy_mix() -> None:
        np.add(A, B, out=C)
        np.multiply(A, B, out=C)
        np.copyto(Cb, (Ab.astype(np.float32) + Bb.astype(np.float32)).astype(bf))
        np.copyto(Cb, A.astype(bf))
        np.copyto(C, A, where=M != 0)
        np.copyto(C, np.where(M != 0, A, zero))
        C.fill(0)

    def sim_mix() -> None:
        for d in bundles:
            execute(m, "dve", d, ds)

    t_sim = best(sim_mix, repeat=7, number=20)
    t_np = best(numpy_mix, repeat=7, number=20)
    report("sim", f"kernel mix ({len(bundles)} bundles, 7 ops)", 7 * 128 * 512 / t_sim, "elem/s",
           7 * 128 * 512 / t_np, "numpy, same maths, contiguous arrays", ">=0.8x", t_np / t_sim >= 0.8)


SECTIONS = {"decode": bench_decode, "check": bench_check, "disasm": bench_disasm, "encode": bench_encode,
            "memory": bench_memory, "manifest": bench_manifest, "startup": bench_startup, "sim": bench_sim}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="10x smaller sizes (a smoke run)")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections (default: all)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    n = 100_000 if args.quick else 1_000_000
    print(f"tongasm benchmarks on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}{' (quick)' if args.quick else ''}")
    for name in args.only.split(","):
        SECTIONS[name.strip()](n if name != "disasm" else n // 5)
    missed = [r for r in RESULTS if r["meets"] is False]
    print(f"\n{len(RESULTS)} figures; {len(missed)} below target" + (": " + ", ".join(r["what"] for r in missed)
                                                                    if missed else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
