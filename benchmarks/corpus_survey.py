"""The real-NEFF corpus survey (``tongasm neff survey``) against the decode_stream floor, in one run.

    python benchmarks/corpus_survey.py                  # the 96 corpus files, default workers
    python benchmarks/corpus_survey.py --workers 1      # one process
    python benchmarks/corpus_survey.py --naive 4        # also the bundle-by-bundle library path, on 4 files
    python benchmarks/corpus_survey.py --json out.json

survey  tongasm.neff.survey.survey over the corpus: wall and CPU seconds (this process and its
        workers), both passes' wall time (files: read, decode, check; bundles: explain and the text
        round trip of every distinct bundle).
floor   tongasm.decode_stream over every engine stream of the same files (already read), best of 3:
        no survey can be faster than decoding each bundle once. The ratio is survey / floor.
naive   (--naive N) what the library offered before the survey, bundle by bundle: decode_bundle,
        explain_bundle (unexplained bytes and checks) and the text round trip through assemble_text,
        on N middle-sized files, scaled to the corpus by bundle count (an estimate).

The machine is shared and noisy: the CPU seconds are the steadier figure; the target (issue: under a
minute on this 2-core machine) is for the wall time on an idle machine. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_support import corpus_dir  # noqa: E402

from tongasm.decode.batch import decode_stream  # noqa: E402
from tongasm.isa.fields import BUNDLE_SIZE  # noqa: E402
from tongasm.neff.neff import Neff  # noqa: E402
from tongasm.neff.survey import default_workers, neff_paths, survey  # noqa: E402


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def floor(paths: list[Path], repeats: int = 3) -> tuple[float, int]:
    """Best wall seconds of decode_stream over every engine stream, and the bundle count."""
    streams = [n.stream_data(s) for n in (Neff.read(p) for p in paths) for s in n.streams()]
    bundles = sum(len(d) // BUNDLE_SIZE for d in streams)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for d in streams:
            decode_stream(d)
        best = min(best, time.perf_counter() - t)
    return best, bundles


def naive(paths: list[Path], files: int) -> dict[str, Any]:
    """The bundle-by-bundle library path on the ``files`` smallest files, scaled to all by bundles."""
    from tongasm.decode.bundle import decode_bundle
    from tongasm.errors import DecodeError
    from tongasm.text.assembler import assemble_text
    from tongasm.text.explain import explain_bundle
    from tongasm.text.fast import stream_bodies

    neffs = [(p, Neff.read(p)) for p in paths]
    total = sum(len(n.stream_data(s)) // BUNDLE_SIZE for _p, n in neffs for s in n.streams())
    pick = sorted(neffs, key=lambda pn: sum(len(pn[1].stream_data(s)) for s in pn[1].streams()))
    pick = pick[len(pick) // 2:len(pick) // 2 + files]  # middle-sized files
    n_b = 0
    t = time.perf_counter()
    for _p, n in pick:
        target = n.target
        for s in n.streams():
            data = n.stream_data(s)
            for k in range(len(data) // BUNDLE_SIZE):
                raw = data[k * BUNDLE_SIZE:(k + 1) * BUNDLE_SIZE]
                try:
                    decode_bundle(raw)
                except DecodeError:
                    pass  # an opcode with no layout: explain_bundle still lists its bytes
                explain_bundle(raw, target=target, stream=s.stream)
            for k, text in enumerate(stream_bodies(data)):
                if not text.startswith(".bytes"):
                    assemble_text(f".stream x\n{text}\n", target=target)
            n_b += len(data) // BUNDLE_SIZE
    secs = time.perf_counter() - t
    return {"files": len(pick), "bundles": n_b, "seconds": secs,
            "estimate_all": secs * total / max(1, n_b), "bundles_all": total}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=None, help=f"survey processes (default {default_workers()})")
    ap.add_argument("--naive", type=int, default=0, metavar="N", help="also time the bundle-by-bundle path on N files")
    ap.add_argument("--naive-only", action="store_true", help="only the bundle-by-bundle path (with --naive)")
    ap.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    args = ap.parse_args()
    paths = neff_paths([corpus_dir()])
    print(f"corpus survey on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    if args.naive_only:
        nv = naive(paths, args.naive or 1)
        print(f"  bundle by bundle, {nv['files']} files, {nv['bundles']:,} bundles: {nv['seconds']:.1f} s; "
              f"scaled to {nv['bundles_all']:,} bundles ~{nv['estimate_all']:,.0f} s")
        return 0
    fl, bundles = floor(paths)
    c0 = _cpu()
    sv = survey(paths, workers=args.workers)
    cpu = _cpu() - c0
    workers = args.workers or default_workers()
    out: dict[str, Any] = {"files": len(paths), "bundles": bundles, "workers": workers,
                           "survey_wall": sv.seconds, "survey_cpu": cpu, "phases": sv.phases,
                           "decode_stream_floor": fl, "ratio": sv.seconds / fl}
    print(f"  survey, {len(paths)} files, {bundles:,} bundles, {workers} worker(s): {sv.seconds:6.1f} s wall "
          f"({', '.join(f'{k} {v:.1f} s' for k, v in sv.phases.items())}), {cpu:.1f} s CPU  "
          f"[target < 60 s wall: {'meets' if sv.seconds < 60 else 'MISSES'}]")
    print(f"  decode_stream floor, same streams:   {fl:6.2f} s wall ({bundles / fl:,.0f} bundles/s); "
          f"survey / floor {sv.seconds / fl:,.0f}x")
    if args.naive:
        nv = naive(paths, args.naive)
        out["naive"] = nv
        print(f"  bundle by bundle, {nv['files']} files, {nv['bundles']:,} bundles: {nv['seconds']:.1f} s; "
              f"scaled to {nv['bundles_all']:,} bundles ~{nv['estimate_all']:,.0f} s "
              f"({nv['estimate_all'] / sv.seconds:,.0f}x the survey)")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
