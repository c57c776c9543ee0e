"""The byte-map reference is generated from the declarations and kept current in the repo."""

from __future__ import annotations

import os
from pathlib import Path

from tongasm.isa import DecisionSet, build_formats
from tongasm.isa.decisions import DECISIONS
from tongasm.isa.reference import formats_json, formats_markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "formats.md"


def test_docs_formats_md_is_current():
    text = formats_markdown()
    if os.environ.get("TONGASM_UPDATE_GOLDEN"):
        DOC.write_text(text)
    assert DOC.read_text() == text, "docs/formats.md is stale: regenerate with `tongasm formats --format markdown`"


def test_every_layout_and_field_is_documented_with_its_confidence():
    fs = build_formats(DecisionSet())
    text = DOC.read_text()
    for fmt in fs.by_name.values():
        assert f"### {fmt.name}\n" in text
        for f in fmt.fields:
            row = next(line for line in text.split(f"### {fmt.name}\n")[1].splitlines() if f"| `{f.name}` |" in line)
            assert f"| `+{f.offset:#04x}` |" in row and f"| {f.conf.value} |" in row
            if f.decision:
                assert f.decision.split("=")[0] in DECISIONS, (fmt.name, f.name, f.decision)
                assert f"| {f.decision} |" in row


def test_every_decision_is_listed_with_all_its_readings():
    """Every wire decision (D-n, R-n, N-n) is in the byte-map document; the simulator's S-n are
    semantics and are listed by `tongasm decisions` instead."""
    text = DOC.read_text()
    for d in DECISIONS.values():
        if d.kind == "simulator":
            continue
        line = next(line for line in text.splitlines() if line.startswith(f"| {d.id} |"))
        for c in d.choices:
            assert f"`{c}`" in line


def test_json_form_matches_the_declarations():
    data = {f["name"]: f for f in formats_json()}
    fs = build_formats(DecisionSet())
    assert set(data) == set(fs.by_name)
    for name, fmt in fs.by_name.items():
        assert [r["name"] for r in data[name]["fields"]] == [f.name for f in fmt.fields]
        assert [r["offset"] for r in data[name]["fields"]] == [f.offset for f in fmt.fields]


def test_an_alternative_reading_changes_the_rendered_map():
    # D-1=zero makes +0x01 a constant 0x00 on the SP ops: the map must say so
    alt = formats_markdown(DecisionSet.parse(["D-1=zero"]))
    assert "(decisions D-1=zero)" in alt
    sp_row = alt.split("### RegisterMove.reg\n")[1].split("`inst_word_len`")[1].splitlines()[0]
    assert "= 0x0 |" in sp_row
    assert "= 0x10 |" in formats_markdown().split("### RegisterMove.reg\n")[1].split("`inst_word_len`")[1].splitlines()[0]


def test_formats_command(capsys):
    import json

    from tongasm.cli import main

    assert main(["formats", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == DOC.read_text()
    assert main(["formats", "TensorTensor", "--format", "json"]) == 0
    (tt,) = json.loads(capsys.readouterr().out)
    assert tt["name"] == "TensorTensor" and {"0x41", "0x51", "0x8a", "0x8e"} <= set(tt["opcodes"])
    assert main(["formats", "Memset"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Memset: 0x49") and "+0x3e  u16        dst.num3" in out
    assert main(["formats", "NoSuchLayout"]) == 2
    assert "unknown layout" in capsys.readouterr().err


def _evidence_of(label: str, paths: list[str]) -> tuple[str, list]:
    from tongasm.neff import read_neff
    from tongasm.neff.evidence import corpus_evidence

    root = Path(paths[0]).parent if len(paths) > 1 else None
    return label, corpus_evidence([(str(Path(p).relative_to(root)) if root else p, read_neff(p)) for p in paths])


def test_docs_decisions_evidence_md_is_current() -> None:
    """docs/decisions-evidence.md is the evidence report over both matmul NEFFs and each folder of the
    corpus, regenerated here (two processes: the YOLOX folder's 345 k distinct bundles take the most)."""
    from concurrent.futures import ProcessPoolExecutor

    from corpus_support import corpus_dir
    from neff_support import large, small

    from tongasm.neff.evidence import evidence_markdown

    corpus = corpus_dir()  # skips when the corpus is absent
    sets = [(small().name, [str(small())]), (large().name, [str(large())])]
    sets += [(d.name, sorted(str(p) for p in d.glob("*.neff"))) for d in sorted(corpus.iterdir()) if d.is_dir()]
    order = sorted(range(len(sets)), key=lambda k: -len(sets[k][1]))  # the largest first
    with ProcessPoolExecutor(max_workers=2) as ex:
        done = dict(zip(order, ex.map(_evidence_of, *zip(*[sets[k] for k in order]))))
    want = evidence_markdown([done[k] for k in range(len(sets))])
    doc = Path(__file__).resolve().parents[1] / "docs" / "decisions-evidence.md"
    if os.environ.get("TONGASM_UPDATE_GOLDEN"):
        doc.write_text(want)
    assert doc.read_text() == want, (
        "docs/decisions-evidence.md is stale: regenerate it with tongasm decisions --evidence SMALL --evidence LARGE "
        + " ".join(f"--evidence CORPUS/{label}" for label, _p in sets[2:]) + " --format markdown "
        "(or TONGASM_UPDATE_GOLDEN=1 pytest tests/test_docs.py)")


ARCH = DOC.parent / "architecture.md"
SRC = DOC.parents[1] / "src" / "tongasm"
#: the layers whose modules are named per family in the grid of docs/architecture.md
GRID_FOLDERS = ("isa/layouts", "isa/decisions", "ir", "codegen", "check", "sim/semantics", "sim/reference")


def _grid() -> dict[str, set[str]]:
    """The module names each column of the architecture page's family grid gives, by folder."""
    lines = ARCH.read_text().split("## The family × layer grid")[1].split("\n## ")[0].splitlines()
    rows = [line for line in lines if line.startswith("|")]
    head = [c.strip().strip("`").rstrip("/") for c in rows[0].strip("|").split("|")]
    out: dict[str, set[str]] = {h: set() for h in head if h in GRID_FOLDERS}
    for row in rows[2:]:
        for h, cell in zip(head, row.strip("|").split("|")):
            if h in out:
                out[h].update(cell.split("`")[1::2])
    return out


def test_architecture_grid_names_real_modules() -> None:
    """Every module the grid names exists in its column's folder (a rename must update the page)."""
    missing = [f"{folder}/{m}" for folder, mods in _grid().items() for m in mods
               if m.endswith(".py") and not (SRC / m if "/" in m else SRC / folder / m).is_file()]
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_architecture_names_every_family_module() -> None:
    """Every module of the per-family layers is named on the architecture page (in the grid or among
    the shared rooms), so a new module lands in a room a reader can find."""
    text = ARCH.read_text()
    unnamed = []
    for folder in GRID_FOLDERS:
        for p in sorted((SRC / folder).glob("*.py")):
            name = p.name
            if name == "__init__.py" and folder not in ("sim/reference",):
                continue
            stem = p.stem
            if f"`{name}`" not in text and f"{folder}/{name}" not in text and not _in_brace_list(text, folder, stem):
                unnamed.append(f"{folder}/{name}")
    assert not unnamed, f"modules docs/architecture.md does not place: {unnamed}"


def _in_brace_list(text: str, folder: str, stem: str) -> bool:
    """``folder/{a,b,c}.py`` in the page names ``a``, ``b`` and ``c``."""
    import re

    for m in re.finditer(re.escape(folder) + r"/\{([^}]*)\}\.py", text):
        if stem in [s.strip() for s in m.group(1).split(",")]:
            return True
    return False
