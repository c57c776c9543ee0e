"""The vendor profiler's listing as an oracle: ``tongasm disasm --syntax profile`` against neuron-profile.

``corpus/attention-trn2/profile/<case>.aligned.jsonl`` holds, for every instruction the hardware
traced (1,976 bundles of 7 NEFFs), ``neuron-profile``'s mnemonic, instruction type and decoded
operand text, aligned to graph, engine and bundle index (program counter - 66 on Activation, DVE and
PE, - 61 on Pool, - 49 on SP) with the bundle's 64 bytes. Each bundle is read from the NEFF itself,
decoded by tongasm, printed in the profiler's syntax (:mod:`tongasm.text.profile`) and compared with
the profiler's text word by word: every operand of every aligned bundle must agree.

Two kinds of token are not compared with a field, and each is listed below with why:

* :data:`RUNTIME`: values the bytes do not hold (a DRAM variable's device address is where the
  runtime placed it): the test learns each variable's base from its first DMA and then requires
  every other DMA of that variable to agree, so the offsets the bytes hold are still checked;
* the forms' :class:`~tongasm.text.profile.Unlocated` tokens (:data:`UNLOCATED`): printed with one
  value in every aligned bundle, with every byte that could hold them zero.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tongasm.decode.bundle import DecodedBundle, decode_bundle
from tongasm.isa.formats import build_formats
from tongasm.neff.neff import Neff
from tongasm.text.profile import (
    ENGINE_COLUMN, FORMS, Named, ProfileContext, Unlocated, context_of_graph, instruction_type, mnemonic,
    operand_words, queue_role, spell, split_words,
)

from corpus_support import corpus_dir

#: The program counter of bundle 0, per engine column (the corpus README; constant in every file).
PC_BASE = {"Activation": 66, "DVE": 66, "PE": 66, "Pool": 61, "SP": 49}
#: Tokens whose value the bytes do not hold, with why.
RUNTIME = {
    "src_addr_imm": "a DRAM side's device address is the runtime's placement of the variable (plus the offset "
                    "the bytes hold); an SBUF side is SBUF_DEVICE_BASE + the bytes' address and is compared",
    "dst_addr_imm": "as src_addr_imm",
}
#: Every Unlocated token of the forms, with why (from the forms themselves; listed for the report).
UNLOCATED = {(layout, t.name): t.value.why for layout, form in FORMS.items() for t in form.tokens
             if isinstance(t, Named) and isinstance(t.value, Unlocated)}
FS = build_formats()


@dataclass(frozen=True)
class Row:
    """One aligned bundle of the profiler's listing."""

    case: str  # the NEFF's file stem
    graph: str
    engine: str  # the profiler's engine column
    bundle: int
    pc: int
    mnemonic: str
    itype: str
    operands: str
    raw: bytes


def _rows() -> list[Row]:
    out = []
    for p in sorted((corpus_dir() / "attention-trn2" / "profile").glob("*.aligned.jsonl")):
        case = p.name.removesuffix(".aligned.jsonl")
        for line in p.read_text().splitlines():
            r = json.loads(line)
            out.append(Row(case, r["sg"], r["engine"], r["bundle"], r["pc"], r["mnemonic"], r["instruction_type"],
                           r["operands"], bytes.fromhex(r["bundle_hex"])))
    return out


@cache
def _neff(case: str) -> Neff:
    return Neff.read(corpus_dir() / "attention-trn2" / f"{case}.neff")


def _stream(row: Row) -> str:
    return next(k for k, v in ENGINE_COLUMN.items() if v == row.engine)


def key_words(words: list[str]) -> Iterator[tuple[str, str]]:
    """(key, word) per word: ``name=value`` by its name, a semaphore wait/update by its lane, a bare word
    by its position among the bare words (so an extra or a missing token shows as one key)."""
    n: Counter[str] = Counter()
    for w in words:
        if w.startswith("S[") or w.startswith("E["):
            k = "update" if w.endswith("@complete") else "wait"
        elif "=" in w:
            k = w.split("=", 1)[0]
        else:
            k = "bare"
        n[k] += 1
        yield f"{k}#{n[k]}", w


def _sem_role(word: str) -> str | None:
    m = re.match(r"S\[\d+\] \((\w+)\)", word)
    return m.group(1) if m else None


@dataclass
class Result:
    bundles: int = 0
    bundles_agree: int = 0
    operands: int = 0
    operands_agree: int = 0
    unlocated: int = 0
    runtime: int = 0


@cache
def oracle() -> tuple[Result, dict[tuple[str, str], list[str]]]:
    """Compare every aligned bundle; the result and the disagreements by (layout, operand key)."""
    rows = _rows()
    # the runtime's DRAM placement, learnt per (case, graph, variable) from the first DMA that names it
    bases: dict[tuple[str, str, int], int] = {}
    contexts: dict[tuple[str, str], ProfileContext] = {}
    res = Result()
    bad: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        neff = _neff(row.case)
        es = neff.graph(row.graph).streams[_stream(row)]
        data = neff.stream_data(es)
        assert row.pc - row.bundle == PC_BASE[row.engine], row
        assert data[row.bundle * 64:row.bundle * 64 + 64] == row.raw, f"{row}: the NEFF's bundle differs"
        d = decode_bundle(data, row.bundle * 64, formats=FS)
        for side in ("src", "dst"):
            m = re.search(rf"\b{side}_addr_imm=(0x[0-9a-f]+)", row.operands)
            var = d.fields.get(f"{side}.var", 0) | d.fields.get(f"{side}.var_hi", 0) << 16
            if m and var and d.fields.get(f"{side}.addr_mode") == 0x10:
                base = int(m.group(1), 16) - d.fields[f"{side}.addr"]
                assert bases.setdefault((row.case, row.graph, var), base) == base, \
                    f"{row}: var {var} at {base:#x}, elsewhere at {bases[(row.case, row.graph, var)]:#x}"
        ck = (row.case, row.graph)
        if ck not in contexts:
            contexts[ck] = context_of_graph(neff, row.graph)
        ctx = contexts[ck]
        ctx.dram_bases = {v: b for (c, g, v), b in bases.items() if (c, g) == ck}
        ours = dict(key_words(operand_words(d, ctx)))
        theirs = dict(key_words(split_words(row.operands)))
        ours["mnemonic#1"], theirs["mnemonic#1"] = mnemonic(d, FS), row.mnemonic
        ours["type#1"], theirs["type#1"] = instruction_type(d), row.itype
        res.bundles += 1
        ok = True
        for k in sorted(set(ours) | set(theirs)):
            name = k.split("#")[0]
            if (d.fmt.name, name) in UNLOCATED:
                res.unlocated += 1
            if name in RUNTIME:
                res.runtime += 1
            res.operands += 1
            if ours.get(k) == theirs.get(k):
                res.operands_agree += 1
            else:
                ok = False
                bad.setdefault((d.fmt.name, name), []).append(
                    f"{row.case}:{row.graph}/{row.engine}:{row.bundle}: tongasm {ours.get(k)!r}, profiler {theirs.get(k)!r}")
        if ok and " ".join(operand_words(d, ctx)) != row.operands:
            ok = False
            bad.setdefault((d.fmt.name, "order"), []).append(f"{row}: the words agree, their order does not")
        res.bundles_agree += ok
    return res, bad


def test_every_operand_of_every_aligned_bundle_agrees() -> None:
    res, bad = oracle()
    assert res.bundles == 1976
    report = "\n".join(f"{k}: {len(v)} disagree, e.g. {v[0]}" for k, v in sorted(bad.items()))
    assert not bad, f"{res}\n{report}"
    assert res.operands_agree == res.operands


def test_roles_from_the_neffs_tables() -> None:
    """The semaphore roles come from def.json's queues (respelled) and the engines' increments."""
    assert queue_role("qActDynamicHW", "act") == "qScalarDynamicHW"
    assert queue_role("qSPDynamicHW", "sp") == "qSyncDynamicHW"
    assert queue_role("qPoolDynamic", "pool") == "qGpSimdDynamic"
    seen: Counter[str] = Counter()
    for row in _rows():
        ctx = context_of_graph(_neff(row.case), row.graph) if row.bundle == -1 else None
        assert ctx is None
        for w in re.findall(r"S\[\d+\] \(\w+\)", row.operands):
            seen[_sem_role(w) or ""] += 1
    # every role the profiler prints is one the NEFF's tables give (hand-checked list of the roles seen)
    assert set(seen) == {"Scalar", "Tensor", "Vector", "qGpSimdDynamic", "qScalarDynamicHW", "qSyncDynamicHW"}


def test_spelling() -> None:
    assert spell("ALU op", "mult") == "MULTIPLY"
    assert spell("wire dtype", "FLOAT32") == "fp32"
    assert spell("ALU op", "max") == "MAX"


@pytest.mark.parametrize("hexs, words", [
    # hand-read from the bytes: a wait on S[6] >= 12 (+0x04 = 5, +0x05 = 6, +0x08 = 12), an increment of S[6]
    # (+0x06 = 0x13, +0x07 = 6), Reciprocal of [1,1,1,1][4,1,1,1] fp32 (0x0A) at 0x8030 -> 0x8040, 128 lanes
    ("48100000050613060c00000000000000308000000100000001000000010000000100000004000100010001000000000000000000"
     "0a0a800000000000", None),
])
def test_hand_read_bundle(hexs: str, words: list[str] | None) -> None:
    raw = bytes.fromhex(hexs.ljust(128, "0"))
    d = decode_bundle(raw, formats=FS)
    assert isinstance(d, DecodedBundle)
    assert d.fmt.name == "Reciprocal"
    ctx = ProfileContext(roles={6: "Vector"})
    assert mnemonic(d, FS) == "RECIPROCAL"
    text = " ".join(operand_words(d, ctx))
    assert text.startswith("S[6] (Vector)>=12 S[6] (Vector)++@complete"), text


def _cases() -> list[str]:
    return sorted(p.name.removesuffix(".aligned.jsonl")
                  for p in (Path(__file__).parent.parent.parent / "x").glob("*"))
