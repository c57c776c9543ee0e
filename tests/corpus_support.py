"""Where the real-NEFF corpus is (96 compiled NEFFs of five compiler versions and two targets).

The corpus lives outside the repository, in ``shared/groundtruth/corpus`` beside the checkout (CI
lays a copy of shared/ there); ``TONGASM_CORPUS`` overrides the place. It is 45 MB, so a clone does
not carry it. When it is missing the corpus tests are skipped with a reason that says so (``pytest
-rs`` lists them), except under ``TONGASM_REQUIRE_CORPUS=1`` (set by ``.ci/run``), where a missing
corpus fails them: in CI the real bytes must not silently vanish from the suite.
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@cache
def _find() -> Path | None:
    env = os.environ.get("TONGASM_CORPUS")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / "shared" / "groundtruth" / "corpus",
                   ROOT.parent.parent / "shared" / "groundtruth" / "corpus",
                   Path("/work/shared/groundtruth/corpus")]
    for c in candidates:
        if (c / "PROVENANCE.tsv").is_file():
            return c
    return None


def corpus_dir() -> Path:
    """The corpus directory; skips (or, under TONGASM_REQUIRE_CORPUS=1, fails) the test when absent."""
    d = _find()
    if d is None:
        why = ("the real-NEFF corpus (shared/groundtruth/corpus, PROVENANCE.tsv) was not found beside the "
               "checkout; set TONGASM_CORPUS")
        if os.environ.get("TONGASM_REQUIRE_CORPUS") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return d


@dataclass(frozen=True)
class CorpusFile:
    """One line of PROVENANCE.tsv."""

    path: Path
    relative: str  # e.g. "yolox-trn1/MODULE_1.neff"
    repo: str
    commit: str
    sha256: str
    size: int
    target: str  # kelf-0.json target string: "sunda", "cayman"
    compiler: str
    license: str
    hlo: str  # the companion HLO's relative path, or ""


def corpus_files() -> list[CorpusFile]:
    """Every corpus NEFF, in PROVENANCE.tsv order."""
    d = corpus_dir()
    out: list[CorpusFile] = []
    with open(d / "PROVENANCE.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            out.append(CorpusFile(d / row["file"], row["file"], row["repo"], row["commit"], row["sha256"],
                                  int(row["bytes"]), row["target"], row["compiler"], row["license"],
                                  row.get("hlo") or ""))
    return out


@dataclass(frozen=True)
class CorpusBundle:
    """One real bundle: the file it is in, its stream (``sg00.dve``), its index there and its 64 bytes."""

    file: CorpusFile
    stream: str
    index: int
    raw: bytes


@cache
def corpus_bundles(opcodes: frozenset[int]) -> tuple[CorpusBundle, ...]:
    """Every bundle of the corpus whose opcode byte is in ``opcodes``, in file and stream order."""
    from tongasm.neff import read_neff

    out: list[CorpusBundle] = []
    for f in corpus_files():
        n = read_neff(f.path)
        for s in n.streams():
            data = n.stream_data(s)
            for i in range(len(data) // 64):
                if data[64 * i] in opcodes:
                    out.append(CorpusBundle(f, s.name, i, bytes(data[64 * i:64 * i + 64])))
    return tuple(out)


def assert_explained(raws: list[bytes], layout: str, target: object) -> None:
    """Each real bundle explains as ``layout``: no decode error, no unexplained byte, every row with a
    confidence, no error finding (the acceptance every family's corpus test states)."""
    from tongasm.text.explain import explain_bundle

    for raw in raws:
        ex = explain_bundle(raw, target=target)  # type: ignore[arg-type]
        assert ex.layout == layout and not ex.error and ex.unexplained == [], raw.hex()
        assert all(r.conf for r in ex.rows), raw.hex()
        assert not [f for f in ex.findings if f.severity == "error"], raw.hex()


def assert_text_round_trip(bundles: list[CorpusBundle], engine: str, target: object) -> None:
    """The real bundles, one stream per file, list with no ``.bytes`` line and assemble back to the
    same bytes."""
    from collections import defaultdict

    from tongasm.text.assembler import assemble_text
    from tongasm.text.fast import fast_listing
    from tongasm.text.listing import StreamInput

    by_stream: dict[str, list[bytes]] = defaultdict(list)
    for b in bundles:
        by_stream[f"{b.file.relative.split('/')[-1].split('.')[0]}.{engine}"].append(b.raw)
    ins = [StreamInput(name, b"".join(rows)) for name, rows in by_stream.items()]
    lines = list(fast_listing(ins, target=target))  # type: ignore[arg-type]
    assert not [line for line in lines if ".bytes" in line]
    prog = assemble_text("\n".join(lines))
    for s in ins:
        assert bytes(prog.streams[s.name]) == bytes(s.data), s.name
