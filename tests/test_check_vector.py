"""The vectorised checker (``check_stream``: columns, vector prefilters, scalar checks on the marked
rows) finds exactly what checking bundle by bundle finds, in the same order, with the same messages."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from neff_support import large, small

from tongasm.check.bundle_checks import BUNDLE_CHECKS
from tongasm.check.act import residency_rule
from tongasm.check.registry import CheckSet, Finding
from tongasm.check.runner import check_bundle, check_stream
from tongasm.check.vectorized import VECTOR
from tongasm.decode.bundle import why_undecodable
from tongasm.isa import DecisionSet, build_formats, each_reading
from tongasm.isa.targets import GEN2, GEN3, Target
from tongasm.neff import read_neff

ROOT = Path(__file__).parent / "golden" / "vectors"


def scalar_check(data: bytes, target: Target, ds: DecisionSet, stream: str | None,
                 checks: CheckSet | None = None) -> list[tuple[int, str, str | None, object, str]]:
    """Bundle by bundle, with check_bundle (the reference the vectorised path must equal)."""
    fs = build_formats(ds)
    out = []
    rule = residency_rule(ds, checks or CheckSet())
    for off in range(0, len(data) - len(data) % 64, 64):
        raw = data[off:off + 64]
        sel = fs.select(raw[0], raw)
        if sel is None:
            cid = "bundle.layout" if fs.variants(raw[0]) else "bundle.opcode"
            out.append((off, cid, "opcode", raw[0], why_undecodable(raw, fs)))
            continue
        for f in check_bundle(sel[0], sel[1], raw, target=target, decisions=ds, stream=stream, checks=checks):
            out.append((off, f.check, f.field, f.value, f.message))
        if rule is not None:  # the rule on the stream's order of bundles (N-35), after the bundle's checks
            for f in rule.visit(stream, raw[0], sel[1]):
                out.append((off, f.check, f.field, f.value, f.message))
    return out


def vector_check(data: bytes, target: Target, ds: DecisionSet, stream: str | None,
                 checks: CheckSet | None = None) -> list[tuple[int, str, str | None, object, str]]:
    fs: list[Finding] = check_stream(data, target=target, decisions=ds, stream=stream, checks=checks)
    return [(f.offset or 0, f.check, f.field, f.value, f.message) for f in fs if f.check != "stream.length"]


def test_every_bundle_check_has_a_vector_form() -> None:
    """A check without one still runs (on every row), but slowly: keep them all vectorised."""
    missing = sorted({c.id for c in BUNDLE_CHECKS} - set(VECTOR))
    assert not missing, missing


def _golden_streams() -> list[tuple[str, bytes, DecisionSet, Target]]:
    out = []
    for p in sorted(ROOT.glob("**/*.json")):
        case = json.loads(p.read_text())
        if "streams" not in case["expect"]:
            continue
        ds = DecisionSet.parse(case.get("decisions") or [])
        target = GEN3 if (case.get("target") or case["kernel"].get("arch")) == "gen3" else GEN2
        for name, bundles in case["expect"]["streams"].items():
            out.append((name, bytes.fromhex("".join(bundles)), ds, target))
    return out


def test_golden_streams_agree() -> None:
    for name, data, ds, target in _golden_streams():
        assert vector_check(data, target, ds, name) == scalar_check(data, target, ds, name)


def test_real_neff_streams_agree() -> None:
    for path in (small(), large()):
        neff = read_neff(path)
        for s in neff.streams():
            data = bytes(neff.stream_data(s))[:64 * 4000]
            assert vector_check(data, GEN3, DecisionSet(), s.stream) == scalar_check(data, GEN3, DecisionSet(), s.stream)


def _seed_bundles() -> list[bytes]:
    seen = []
    for _name, data, _ds, _t in _golden_streams():
        seen += [data[i:i + 64] for i in range(0, len(data), 64)]
    return sorted(set(seen))


SEEDS = _seed_bundles()
READINGS = each_reading()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(SEEDS), st.lists(st.tuples(st.integers(1, 63), st.integers(0, 255)),
                                                            max_size=4)), min_size=1, max_size=12),
       st.sampled_from(READINGS), st.sampled_from([GEN2, GEN3]), st.sampled_from([None, "dve", "pool", "act", "sp"]),
       st.booleans())
def test_mutated_streams_agree(bundles, ds, target, stream, pedantic) -> None:
    data = bytearray()
    for seed, patches in bundles:
        b = bytearray(seed)
        for off, v in patches:
            b[off] = v
        data += b
    checks = CheckSet(pedantic=pedantic)
    assert vector_check(bytes(data), target, ds, stream, checks) == scalar_check(bytes(data), target, ds, stream,
                                                                                   checks)
