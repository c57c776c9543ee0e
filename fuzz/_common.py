"""Shared driver of the fuzz harnesses: atheris when asked to fuzz, a plain-Python fallback otherwise.

Every harness defines ``TestOneInput(data: bytes)`` which returns normally or raises
:class:`tongasm.errors.TongasmError` is caught inside it; anything else escaping is a crash.

    python fuzz/fuzz_decode.py [libFuzzer options] [CORPUS_DIR ...]   # atheris (pip install atheris)
    python fuzz/fuzz_decode.py --replay DIR_OR_FILE ...               # run every file once, no atheris
    python fuzz/fuzz_decode.py --random N [--seed S] [CORPUS_DIR ...] # N mutated/random inputs, no atheris

The fallback modes exist so that the harnesses run (and are tested) where atheris is not installed;
``--random`` mutates the files of the given corpus directories (or, with none, the harness's own
``fuzz/corpus/<name>``) with Python's ``random`` — a crude fuzzer, but coverage-blind is better than
nothing. A crash prints the input's path (replay) or writes it to ``crash-<sha1>`` (random) and
re-raises.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Callable, Iterable, Iterator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# the harnesses run from a checkout: make `import tongasm` find src/ even without `pip install -e .`
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

#: Cap on the unrolled size of a fuzzed kernel: a large loop bound is a legal (slow) kernel, not a bug,
#: and an input that takes minutes to assemble would only stall the fuzzer.
MAX_UNROLLED = 2000
#: Inputs larger than this are skipped (the code under test is linear; big inputs only slow the fuzzer).
MAX_INPUT = 1 << 16


@contextlib.contextmanager
def capped_unrolling() -> Iterator[None]:
    """Lower tongasm's unrolling limit (see :data:`MAX_UNROLLED`) while fuzzing one input."""
    from tongasm.passes import program

    old, program.MAX_INSTRUCTIONS = program.MAX_INSTRUCTIONS, MAX_UNROLLED
    try:
        yield
    finally:
        program.MAX_INSTRUCTIONS = old


def instrumented(atheris: object, name: str) -> object:
    """``atheris.instrument_imports`` for tongasm when this run fuzzes with atheris, else a no-op context."""
    if atheris is None or name != "__main__" or sys.argv[1:2] in (["--replay"], ["--random"]):
        return contextlib.nullcontext()
    return atheris.instrument_imports(include=["tongasm"])  # type: ignore[attr-defined]


def corpus_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.is_file())
        elif p.is_file():
            yield p
        else:
            raise SystemExit(f"no such file or directory: {p}")


def replay(test: Callable[[bytes], None], paths: Iterable[str | Path], quiet: bool = False) -> int:
    """Run ``test`` once on every file; return how many were run."""
    n = 0
    for f in corpus_files(paths):
        try:
            test(f.read_bytes())
        except BaseException:
            sys.stderr.write(f"crash on {f}\n")
            raise
        n += 1
    if not quiet:
        print(f"replayed {n} input{'s' * (n != 1)}: no crash")
    return n


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """A few random edits: bit flips, byte sets, inserts, deletes, duplicated runs, splices, interesting ints."""
    if data and rng.random() < 0.3 and b"\n" in data:
        return _mutate_lines(rng, data, pool)
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        how = rng.randrange(8)
        if not b:
            b += rng.randbytes(rng.randint(1, 64))
            continue
        i = rng.randrange(len(b))
        if how == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif how == 1:
            b[i] = rng.randrange(256)
        elif how == 2:
            b[i:i] = rng.randbytes(rng.randint(1, 8))
        elif how == 3:
            del b[i:i + rng.randint(1, 16)]
        elif how == 4:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 32)]
        elif how == 5 and pool:
            other = rng.choice(pool)
            j = rng.randrange(len(other) + 1)
            b = b[:i] + other[j:j + rng.randint(1, 256)]
        elif how == 6:
            b[i:i + 1] = rng.choice([b"0", b"-1", b"255", b"256", b"65535", b"4294967296", b"1e308", b"-0",
                                     b"null", b"true", b"\"\"", b"[]", b"{}", b"\xff", b"\x00", b"\x80"])
        else:
            b[i] = rng.choice([0, 1, 0x7F, 0x80, 0xFF, ord(" "), ord(","), ord(";"), ord("["), ord("]")])
    return bytes(b[:MAX_INPUT])


def _mutate_lines(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """Text-aware edits: delete, duplicate, swap or splice lines; swap, drop or duplicate tokens in a line."""
    import re

    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(lines))
        how = rng.randrange(6)
        if how == 0 and len(lines) > 1:
            del lines[i]
        elif how == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif how == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how == 3 and pool:
            other = rng.choice(pool).split(b"\n")
            lines.insert(i, rng.choice(other))
        else:
            toks = re.split(rb"([\s,=:\[\]()|.+x/]+)", lines[i])
            if len(toks) > 1:
                k, m = rng.randrange(len(toks)), rng.randrange(len(toks))
                if how == 4:
                    toks[k] = toks[m]
                else:
                    toks[k] = rng.choice([b"", b"0", b"-1", b"0x", b"999999999999", b"r63", b"sem", b"float32",
                                          b"sb", b"psum.b7", b"[", b"]", b"(", b")", b"1.5", b"nan", b"inf"])
                lines[i] = b"".join(toks)
    return b"\n".join(lines)[:MAX_INPUT]


def random_run(test: Callable[[bytes], None], n: int, seed: int, corpus: list[str | Path],
               quiet: bool = False) -> int:
    """Run ``test`` on ``n`` inputs: mutated corpus files (mostly) and plain random bytes."""
    rng = random.Random(seed)
    pool = [f.read_bytes() for f in corpus_files(corpus)] if corpus else []
    t0 = time.monotonic()
    for k in range(n):
        if pool and rng.random() < 0.9:
            data = mutate(rng, rng.choice(pool), pool)
        else:
            data = rng.randbytes(rng.choice([0, 1, 63, 64, 65, 128, 200, rng.randint(0, 512)]))
        try:
            test(data)
        except BaseException:
            name = f"crash-{hashlib.sha1(data).hexdigest()}"
            Path(name).write_bytes(data)
            sys.stderr.write(f"crash on random input #{k} (seed {seed}); written to {name}\n")
            traceback.print_exc()
            raise
    if not quiet:
        print(f"ran {n} random input{'s' * (n != 1)} (seed {seed}) in {time.monotonic() - t0:.1f} s: no crash")
    return n


def main(name: str, test: Callable[[bytes], None], atheris_main: Callable[[], None]) -> None:
    """Dispatch on argv: ``--replay``/``--random`` run without atheris, anything else runs atheris."""
    argv = sys.argv[1:]
    if argv[:1] == ["--replay"]:
        replay(test, argv[1:] or [HERE / "corpus" / name])
        return
    if argv[:1] == ["--random"]:
        if len(argv) < 2:
            raise SystemExit("usage: --random N [--seed S] [CORPUS_DIR ...]")
        n, rest, seed = int(argv[1]), argv[2:], int(os.environ.get("FUZZ_SEED", "0"))
        if rest[:1] == ["--seed"]:
            seed, rest = int(rest[1]), rest[2:]
        corpus = rest or ([HERE / "corpus" / name] if (HERE / "corpus" / name).is_dir() else [])
        random_run(test, n, seed, corpus)
        return
    atheris_main()
