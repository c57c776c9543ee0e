"""Start-up and small-input latency of whole ``tongasm`` processes, against ``python -c "import numpy"``.

    python benchmarks/startup.py                       # this interpreter's environment (the venv)
    python benchmarks/startup.py --python /other/venv/bin/python     # another install (before/after)
    python benchmarks/startup.py --repeat 9 --kernel 100000 --json startup.json

What a user waits for when a command answers at once: every figure is a fresh process of the
installed ``tongasm`` script beside the interpreter, timed in CPU (user + system of that process,
from ``wait4``: robust to the other load on a shared machine) and in wall time, the best of
``--repeat`` rounds. Each round runs the baseline and every command once, in turn, so a change of
load reaches both sides of a ratio alike. The baseline is ``python -c "import numpy"`` with the same
interpreter in the same rounds. Before timing, each command runs once (the warm-up writes the
``.pyc`` files a normal install has; ``PYTHONDONTWRITEBYTECODE`` is removed from the children's
environment so that they can).

Sections (the targets of the start-up work):
  start-up   ``tongasm --help``, ``--version`` and ``tongasm COMMAND --help`` of every command
             (target: <= 2x the baseline)
  one bundle ``disasm``, ``decode``, ``explain``, ``check`` and ``asm`` of a one-bundle file
             (target: <= 3x the baseline)
  real NEFF  ``disasm``, ``decode``, ``check``, ``explain`` and ``neff info`` of a small corpus NEFF
             (reported; skipped when the corpus is absent)
  kernel     whole processes on a BIR JSON kernel of ``--kernel`` instructions (default 100,000):
             ``tongasm assemble`` against a process doing ``json.load`` of the same file with the
             garbage collector off, and ``tongasm check`` of the assembled streams against a process
             that imports tongasm and runs ``decode_stream`` on the same streams (targets: <= 2x, CPU)

The package versions the interpreter resolved (numpy, ml_dtypes, protobuf) are printed first: the
figures depend on them (``import ml_dtypes`` alone costs more than numpy with some releases).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
EXAMPLE = ROOT / "examples" / "vector_add.json"
sys.path.insert(0, str(HERE))

RESULTS: list[dict[str, Any]] = []


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a normal install has (or writes) its .pyc files
    env["TONGASM_NO_PROGRESS"] = "1"
    return env


#: exit codes a command may end with (1: ``check`` reported findings, as it does on some real NEFFs)
FINDINGS_OK = (0, 1)


def run_once(argv: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """CPU (user + system) and wall seconds of one process; it must exit with a code in ``ok``."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert p.stderr is not None
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in ok:
        raise SystemExit(f"{' '.join(argv)} exited {p.returncode}: {err.decode(errors='replace')[-2000:]}")
    return ru.ru_utime + ru.ru_stime, wall


def measure(cases: dict[str, list[str]], baseline: list[str], repeat: int, env: dict[str, str],
            ok: tuple[int, ...] = (0,)) -> tuple[tuple[float, float], dict[str, tuple[float, float]]]:
    """Best CPU and best wall time of the baseline and of each case, in alternating rounds."""
    run_once(baseline, env)
    for argv in cases.values():
        run_once(argv, env, ok)  # warm-up: .pyc files, page cache
    base: list[tuple[float, float]] = []
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(repeat):
        base.append(run_once(baseline, env))
        for k, argv in cases.items():
            got[k].append(run_once(argv, env, ok))

    def best(xs: list[tuple[float, float]]) -> tuple[float, float]:
        return min(x[0] for x in xs), min(x[1] for x in xs)

    return best(base), {k: best(v) for k, v in got.items()}


def report(section: str, what: str, value: tuple[float, float], base: tuple[float, float], base_what: str,
           limit: float | None) -> None:
    cpu, wall = value
    ratio, wall_ratio = cpu / base[0], wall / base[1]
    verdict = "reported" if limit is None else (f"<={limit:g}x: " + ("meets" if ratio <= limit else "MISSES"))
    print(f"  {what:44} {cpu * 1000:9.0f} ms CPU {ratio:5.2f}x   {wall * 1000:9.0f} ms wall {wall_ratio:5.2f}x"
          f"   [{verdict}]", flush=True)
    RESULTS.append({"section": section, "what": what, "cpu": cpu, "wall": wall, "baseline_cpu": base[0],
                    "baseline_wall": base[1], "baseline": base_what, "ratio": ratio, "wall_ratio": wall_ratio,
                    "target": limit, "meets": None if limit is None else ratio <= limit})


def versions(python: str, env: dict[str, str]) -> str:
    code = ("import importlib.metadata as m, platform\n"
            "v = lambda n: m.version(n) if any(d.metadata['Name'].lower().replace('-', '_') == n.replace('-', '_') "
            "for d in m.distributions()) else 'absent'\n"
            "print(f\"Python {platform.python_version()}, tongasm {v('tongasm')}, numpy {v('numpy')}, "
            "ml_dtypes {v('ml_dtypes')}, protobuf {v('protobuf')}\")")
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, env=env).stdout.strip()


def corpus_neff() -> Path | None:
    env = os.environ.get("TONGASM_CORPUS")
    for c in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "groundtruth" / "corpus",
                                             ROOT.parent.parent / "shared" / "groundtruth" / "corpus",
                                             Path("/work/shared/groundtruth/corpus")]:
        neff = c / "attention-trn2" / "baseline_attention.neff"
        if neff.is_file():
            return neff
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter of the install to measure (its bin/ holds the tongasm script)")
    ap.add_argument("--repeat", type=int, default=7, help="rounds; each figure is the best (default 7)")
    ap.add_argument("--kernel", type=int, default=100_000, metavar="N",
                    help="instructions of the whole-process kernel (0: skip that section)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = ap.parse_args()
    python = args.python
    tongasm = str(Path(python).parent / "tongasm")
    env = child_env()
    numpy = [python, "-c", "import numpy"]
    print(f"tongasm start-up on {platform.machine()}, {os.cpu_count()} cores; {versions(python, env)}")
    print(f"  baseline: {python} -c 'import numpy', measured in the same rounds; best of {args.repeat}")

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        run_once([tongasm, "assemble", str(EXAMPLE), "-o", str(d / "k"), "-q"], env)
        (d / "one.bin").write_bytes((d / "k" / "dve.bin").read_bytes()[:64])  # a float32 TensorTensor add
        with open(d / "one.s", "wb") as fh:
            subprocess.run([tongasm, "disasm", str(d / "one.bin")], stdout=fh, stderr=subprocess.DEVNULL, check=True,
                           env=env)

        print("start-up (target <= 2x)")
        commands = ["assemble", "check", "checks", "opcodes", "decode", "disasm", "asm", "explain", "run", "formats",
                    "neff", "decisions"]
        cases = {"tongasm --help": [tongasm, "--help"], "tongasm --version": [tongasm, "--version"],
                 **{f"tongasm {c} --help": [tongasm, c, "--help"] for c in commands}}
        base, got = measure(cases, numpy, args.repeat, env)
        for k, v in got.items():
            report("startup", k, v, base, "import numpy", 2)

        print("one-bundle file (target <= 3x)")
        one = str(d / "one.bin")
        cases = {"disasm one.bin": [tongasm, "disasm", one], "decode one.bin": [tongasm, "decode", one],
                 "explain one.bin:0": [tongasm, "explain", f"{one}:0"],
                 "check one.bin": [tongasm, "check", "--engine", "dve", "-q", one],
                 "asm one.s": [tongasm, "asm", str(d / "one.s"), "-o", str(d / "asm"), "-q"]}
        base, got = measure(cases, numpy, args.repeat, env)
        for k, v in got.items():
            report("one-bundle", k, v, base, "import numpy", 3)

        neff = corpus_neff()
        if neff is None:
            print("real NEFF: skipped (the corpus was not found; set TONGASM_CORPUS)")
        else:
            print(f"real NEFF: {neff.parent.name}/{neff.name} ({neff.stat().st_size:,} bytes; reported)")
            n = str(neff)
            cases = {"disasm NEFF": [tongasm, "disasm", n, "-o", str(d / "neff.s")],
                     "decode NEFF": [tongasm, "decode", n],
                     "check NEFF": [tongasm, "check", "-q", n],
                     "explain NEFF:sg00/pe:0": [tongasm, "explain", f"{n}:sg00/pe:0"],
                     "neff info NEFF": [tongasm, "neff", "info", n]}
            base, got = measure(cases, numpy, args.repeat, env, FINDINGS_OK)
            for k, v in got.items():
                report("neff", k, v, base, "import numpy", None)

        if args.kernel:
            from kernels import write_kernel

            path = d / "kernel.json"
            size = write_kernel(path, args.kernel)
            out = d / "kout"
            print(f"kernel: BIR JSON of {args.kernel:,} instructions ({size / 2**20:,.1f} MiB), whole processes "
                  "(target <= 2x, CPU)")
            rounds = max(3, args.repeat // 2)
            load = [python, "-c", f"import gc, json\ngc.disable()\njson.load(open({str(path)!r}))"]
            base, got = measure({"assemble": [tongasm, "assemble", str(path), "-o", str(out), "-q"]}, load, rounds, env)
            report("kernel", f"tongasm assemble ({args.kernel:,} instrs)", got["assemble"], base,
                   "json.load, GC off", 2)
            streams = sorted(str(p) for p in out.glob("*.bin"))
            decode = [python, "-c", "import sys, tongasm\nfor p in sys.argv[1:]:\n"
                                    "    tongasm.decode_stream(open(p, 'rb').read())", *streams]
            base, got = measure({"check": [tongasm, "check", "-q", *streams]}, decode, rounds, env, FINDINGS_OK)
            bundles = sum(Path(s).stat().st_size for s in streams) // 64
            report("kernel", f"tongasm check of its streams ({bundles:,} bundles)", got["check"], base,
                   "import tongasm + decode_stream", 2)

    missed = [r for r in RESULTS if r["meets"] is False]
    print(f"\n{len(RESULTS)} figures; {len(missed)} above target" +
          (": " + ", ".join(r["what"] for r in missed) if missed else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
