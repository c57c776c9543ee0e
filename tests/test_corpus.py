"""The real-NEFF corpus in the suite: every file opens, is the file PROVENANCE.tsv names, writes back
byte for byte, and every bundle that has a layout decodes, is explained, round-trips through text
and passes ``check``.

The corpus (96 compiled NEFFs, ``shared/groundtruth/corpus``) is found by ``corpus_support``; the
tests skip when it is absent (and fail under ``TONGASM_REQUIRE_CORPUS=1``, as in CI).

:data:`KNOWN_EXCEPTIONS` lists, by (opcode, check id), the problems the survey still finds on correct
compiler output, each with why: every one is a wrong layout or a wrong rule being fixed. An entry
that no longer occurs fails the test too, so the table shrinks as they are fixed.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import defaultdict

from corpus_support import corpus_dir, corpus_files

from tongasm.isa.fields import BUNDLE_SIZE
from tongasm.neff import load_dir, unpack_neff
from tongasm.neff.container import TAR_STYLES
from tongasm.neff.neff import Neff
from tongasm.neff.survey import survey

#: (opcode, check id) -> why correct compiler output still fails it. Besides check ids, "decoded",
#: "unexplained" and "roundtrip" name the survey's own columns.
KNOWN_EXCEPTIONS: dict[tuple[int, str], str] = {}  # none left: every line with a layout is clean


def test_every_corpus_file_opens_and_is_the_file_provenance_names() -> None:
    files = corpus_files()
    assert len(files) == 96
    listed = {f.relative for f in files}
    on_disk = {str(p.relative_to(corpus_dir())) for p in corpus_dir().rglob("*.neff")}
    assert on_disk == listed, "PROVENANCE.tsv and the corpus directory disagree"
    for f in files:
        data = f.path.read_bytes()
        assert len(data) == f.size and hashlib.sha256(data).hexdigest() == f.sha256, f.relative
        neff = Neff.from_bytes(data, path=str(f.path))
        assert neff.kelf.target_name == f.target, f.relative
        assert neff.info is not None and neff.info.tool_version == f.compiler, f.relative
        assert list(neff.streams()), f.relative


def test_every_corpus_file_writes_back_byte_for_byte() -> None:
    """repack (the gzip member reused), a fresh deflate of the rebuilt tar, and unpack + pack."""
    styles: dict[str, list[str]] = defaultdict(list)
    bad = []
    for f in corpus_files():
        data = f.path.read_bytes()
        neff = Neff.from_bytes(data)
        assert neff.tar_style is not None, f"{f.relative}: {neff.tar_style_why}"
        styles[neff.tar_style.name].append(f.compiler)
        if neff.to_bytes() != data:
            bad.append(f"{f.relative} (repack)")
        if neff.to_bytes(reuse=False) != data:
            bad.append(f"{f.relative} (fresh deflate)")
        with tempfile.TemporaryDirectory() as d:
            unpack_neff(neff, f"{d}/u")
            if load_dir(f"{d}/u").to_bytes() != data:
                bad.append(f"{f.relative} (unpack + pack)")
    assert not bad, f"{len(bad)} write-backs differ: {bad[:10]}"
    # the styles are the compilers': 2.14 writes libarchive pax, 2.23 plain ustar (R-40)
    assert {s.name for s in TAR_STYLES} >= set(styles)
    assert {c.split(".")[1] for c in styles["pax-times"]} == {"14"} and len(styles["pax-times"]) == 80
    assert {c.split(".")[1] for c in styles["ustar"]} == {"23"} and len(styles["ustar"]) == 16


def test_the_survey_of_the_whole_corpus_is_clean_where_there_is_a_layout() -> None:
    files = corpus_files()
    sv = survey([corpus_dir()], workers=2)
    assert not sv.unreadable and len(sv.files) == len(files)
    # the survey counts every bundle of every engine stream, counted here without it
    want: dict[tuple[str, str], int] = defaultdict(int)
    for f in files:
        neff = Neff.read(f.path)
        for s in neff.streams():
            want[(neff.target.name, s.stream)] += len(neff.stream_data(s)) // BUNDLE_SIZE
    got: dict[tuple[str, str], int] = defaultdict(int)
    for x in sv.lines.values():
        got[(x.target, x.engine)] += x.bundles
        assert 0 < len(x.files) <= len(files) and x.distinct <= x.bundles
        assert x.unexplained <= x.decoded and x.roundtrip <= x.decoded
        if not x.has_layout:
            assert x.decoded == 0 and x.roundtrip == 0, x.key
    assert got == want and sum(want.values()) > 1_000_000
    problems: dict[tuple[int, str], list[str]] = defaultdict(list)
    for x in sv.sorted_lines():
        if not x.has_layout:
            continue
        where = f"{x.target}/{x.engine}/{x.opcode:#04x}"
        if x.decoded < x.bundles:
            problems[(x.opcode, "decoded")].append(f"{where}: {x.bundles - x.decoded} not decoded "
                                                   f"{x.examples.get('undecoded')}")
        if x.unexplained:
            problems[(x.opcode, "unexplained")].append(f"{where}: {x.unexplained} with unexplained bytes "
                                                       f"{x.examples.get('unexplained')}")
        if x.roundtrip < x.decoded:
            problems[(x.opcode, "roundtrip")].append(f"{where}: {x.decoded - x.roundtrip} differ through text "
                                                     f"{x.examples.get('roundtrip')}")
        for check, n in x.findings.items():
            problems[(x.opcode, check)].append(f"{where}: {n} {check} {x.examples.get(check)}")
    new = {k: v for k, v in problems.items() if k not in KNOWN_EXCEPTIONS}
    assert not new, "real compiler output fails: " + "; ".join(f"{line}" for v in new.values() for line in v)
    stale = sorted(k for k in KNOWN_EXCEPTIONS if k not in problems)
    assert not stale, ("fixed, remove from KNOWN_EXCEPTIONS: "
                       + ", ".join(f"({op:#04x}, {check!r})" for op, check in stale))
