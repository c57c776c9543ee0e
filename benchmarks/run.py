"""tongasm benchmarks: every figure next to a baseline measured in the same run.

    python benchmarks/run.py            # the full run (1 M-instruction / 1 M-bundle sizes)
    python benchmarks/run.py --quick    # 10x smaller, for a smoke test
    python benchmarks/run.py --only decode,disasm --json results.json

These machines are noisy, so each figure is the best of a few repeats and is printed as a ratio
against a baseline timed in the same process (or, for memory, in sibling processes), beside the
target of issue 6. Not part of the test suite; ``make bench`` runs it.

Sections
  decode  tongasm.decode_stream on a 1 M-bundle mixed stream vs a bare numpy structured-dtype view
          extracting the same fields (target: ratio >= 0.5 and >= 5 M bundles/s)
  disasm  the listing (tongasm disasm's text) vs capstone's Python disasm() on x86-64 code, both
          making one text line per instruction (target: ratio >= 1; needs `pip install capstone`)
  encode  IR objects -> bundle bytes, 1 M instructions, flat and loop-structured (target: 250 k/s)
          and a floor: the same number of 64-byte struct.pack calls
  memory  `tongasm assemble` on a 1 M-instruction BIR JSON: peak RSS / file size (target <= 4),
          next to json.load of the same file
  sim     TensorTensor and TensorCopy on full 128-partition tiles vs the numpy expression on the
          same SBUF data (target: ratio >= 0.5)
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import struct
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
    t_ours = best(lambda: list(fast_listing(streams)))
    rate = (n + 3) / t_ours  # + header and .stream lines
    try:
        import capstone
    except ImportError:
        report("disasm", "listing (text lines)", rate, "instr/s", None, "capstone (not installed: "
               "pip install capstone)", ">=1x capstone", None)
        return
    code = x86_text()
    if code is None:
        report("disasm", "listing (text lines)", rate, "instr/s", None, "capstone (no x86-64 ELF found)",
               ">=1x capstone", None)
        return
    code = code[:3_000_000]
    md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    count = [0]

    def cs() -> None:
        lines = [f"{i.address:08x}:  {i.mnemonic} {i.op_str}" for i in md.disasm(code, 0x1000)]
        count[0] = len(lines)

    t_cs = best(cs)
    base = count[0] / t_cs
    report("disasm", "listing (text lines)", rate, "instr/s", base,
           f"capstone {capstone.__version__} disasm() -> text, {count[0]:,} x86-64 instrs", ">=1x", rate >= base)


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
    for label, build in (("flat (1 object per instruction)", kernel_ir), ("loop (1000-instr body unrolled)", looped_kernel_ir)):
        k = build(n)
        t = best(lambda k=k: assemble(k, check="off"), repeat=2)  # type: ignore[misc]
        report("encode", f"IR -> bytes, {label}", n / t, "instr/s", n / t_floor, "bare struct.pack floor",
               ">=250k/s", n / t >= 250_000)
        del k
        gc.collect()


# --- memory --------------------------------------------------------------------------------------------

# VmHWM (the peak resident set of this process image); ru_maxrss would carry the parent's peak
# across fork + exec on Linux.
_RSS = ("{body}\nprint([int(l.split()[1]) * 1024 for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")


def _peak(body: str) -> int:
    out = subprocess.run([sys.executable, "-c", _RSS.format(body=body)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


def bench_memory(n: int) -> None:
    print(f"memory: BIR JSON of {n:,} instructions -> streams")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "kernel.json"
        size = write_kernel(path, n)
        idle = _peak("import tongasm.cli")
        slurp = _peak(f"import json\njson.load(open({str(path)!r}))")
        t = time.perf_counter()
        peak = _peak(f"from tongasm.cli import main\nrc = main(['assemble', {str(path)!r}, '-o', "
                     f"{str(Path(d) / 'out')!r}, '-q'])\nassert rc == 0")
        dt = time.perf_counter() - t
        print(f"  file {size / 2**20:,.0f} MiB; interpreter + imports {idle / 2**20:,.0f} MiB; "
              f"assemble took {dt:,.1f} s ({n / dt:,.0f} instr/s with the validator)")
        report("memory", "assemble peak RSS / JSON size", peak / size, "x file", slurp / size,
               f"json.load peak ({slurp / 2**20:,.0f} MiB)", "<=4x", peak / size <= 4)
        RESULTS[-1].update(peak_rss=peak, file_size=size, json_load_rss=slurp, seconds=dt)


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


SECTIONS = {"decode": bench_decode, "disasm": bench_disasm, "encode": bench_encode, "memory": bench_memory,
            "sim": bench_sim}


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
