"""Decisions as behaviour: the registry, the bound decisions and the rule that nothing outside
``tongasm.isa.decisions`` interprets a reading by its name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tongasm.errors import UsageError
from tongasm.isa.decisions import DECISIONS, Decision, DecisionSet, Reading, each_reading
from tongasm.isa.decisions.spec import FreeDimOrder, PredicateFlags, UpdateModeWire
from tongasm.isa.enums import UpdateMode

SRC = Path(__file__).resolve().parents[1] / "src" / "tongasm"


def test_ids_are_unique_and_every_kind_is_known():
    assert len(DECISIONS) == len(set(DECISIONS))
    for did, info in DECISIONS.items():
        assert re.fullmatch(r"[DRNS]-\d+", did), did
        assert info.kind, did
        assert info.choices and info.default == info.choices[0]


@pytest.mark.parametrize("spec", ["D-6=sideways", "D-99=fixed", "X-1=a", "D-6", "=x"])
def test_unknown_ids_and_readings_fail_at_parse(spec):
    with pytest.raises(UsageError):
        DecisionSet.parse([spec])


def test_conflicting_readings_of_one_decision_are_refused():
    with pytest.raises(UsageError, match="twice"):
        DecisionSet.parse(["D-6=outermost-first", "d6=innermost-first"])
    # the same reading twice is harmless
    assert DecisionSet.parse(["D-6=outermost-first", "6=outermost-first"]) == DecisionSet.parse(["D-6=outermost-first"])


def test_ids_can_be_written_short():
    assert DecisionSet.parse(["d2=raw"]) == DecisionSet.parse(["2=raw"]) == DecisionSet.parse(["D-2=raw"])


def test_bound_decisions_follow_the_selection():
    d6 = DecisionSet().get(FreeDimOrder)
    assert d6.to_slots([(4, 2), (1, 8)]) == [(1, 8), (4, 2)]  # innermost first (the spec's default)
    alt = DecisionSet.parse(["D-6=outermost-first"]).get(FreeDimOrder)
    assert alt.to_slots([(4, 2), (1, 8)]) == [(4, 2), (1, 8)]
    # D-2: LUT 11 15 17 13 14 19 by default, the ordinal under raw
    assert DecisionSet().get(UpdateModeWire).wire(UpdateMode.sem_inc) == 0x13
    assert DecisionSet().get(UpdateModeWire).mode(0x13) is UpdateMode.sem_inc
    assert DecisionSet.parse(["D-2=raw"]).get(UpdateModeWire).wire(UpdateMode.sem_inc) == 3
    # D-14: the 0xE8 polarity flag
    assert DecisionSet().get(PredicateFlags).polarity(False) == 1
    assert DecisionSet.parse(["D-14=reverse-pred"]).get(PredicateFlags).polarity(False) == 0


def test_bound_decisions_compare_by_reading():
    assert DecisionSet().get(FreeDimOrder) == DecisionSet().get(FreeDimOrder)
    assert DecisionSet().get(FreeDimOrder) != DecisionSet.parse(["D-6=outermost-first"]).get(FreeDimOrder)
    assert len({DecisionSet().get(FreeDimOrder), DecisionSet().get(FreeDimOrder)}) == 1


def test_each_reading_sweeps_every_alternative_once():
    sets = each_reading()
    assert sets[0] == DecisionSet()
    alts = [s.describe()[0] for s in sets[1:]]
    want = [f"{d.id}={c}" for d in DECISIONS.values() if d.id[0] in "DRN" for c in d.choices[1:]]
    assert sorted(alts) == sorted(want)


def test_a_decision_must_declare_readings():
    with pytest.raises(TypeError, match="no reading"):
        type("Bad", (Decision,), {"id": "D-900", "subject": "x"})
    with pytest.raises(TypeError, match="twice"):
        type("Dup", (Decision,), {"id": "D-6", "subject": "x", "A": Reading("a", "a")})


def test_no_module_outside_the_registry_interprets_a_reading_by_name():
    """Readings are interpreted by the decision's own methods: no ``ds["D-6"] == ...`` and no
    ``.reading.name`` comparison anywhere else in the package."""
    bad = []
    # a reading name compared or tested for membership: ds["D-6"] == ..., ... != ds["D-6"], ds["D-6"] in (...)
    sel = r"""\[\s*["'][DRNS]-\d+["']\s*\]"""
    pattern = re.compile(rf"""{sel}\s*(==|!=|\bin\b|\bnot in\b)|(==|!=)\s*[\w.()]*{sel}|\.reading\.name\s*[!=]=""")
    for path in SRC.rglob("*.py"):
        if "decisions" in path.relative_to(SRC).parts[:2]:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                bad.append(f"{path.relative_to(SRC)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
