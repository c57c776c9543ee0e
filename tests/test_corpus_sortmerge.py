"""The two corpus graphs whose Pool engine runs the sort custom ops (S-121), run whole: yolox-trn1
MODULE_14856528739640727327 (9 HLO sorts of f32[142]) and MODULE_15023315273075843957 (14 of f32[346]).

Every partial_sort gets keys made here (integers + 0.5 with many ties, so the stable order is tested); the
last merge of each chain, reached through the NEFF's own DMAs between the merges (merge 4's out spilled to
DRAM and reloaded), must hold numpy's sort of those keys and their stable argsort: the expected rows come
from numpy, not from the simulator. Against the HLO reference the graphs are run when jax and a reference
are there (the HLO's AwsNeuronArgMax has no rewrite in the oracle yet: the test skips, saying why).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from corpus_support import corpus_dir
from tongasm.isa import DecisionSet
from tongasm.isa.enums import Dtype
from tongasm.neff import read_neff
from tongasm.neff.run import core_program, run_neff
from tongasm.numeric import numpy_dtype
from tongasm.sim.machine import SimError
from tongasm.sim.semantics import gpsimd

GRAPHS = [("MODULE_14856528739640727327", 9, 142), ("MODULE_15023315273075843957", 14, 346)]


def _path(module: str) -> Path:
    return corpus_dir() / "yolox-trn1" / f"{module}.neff"


def _inputs(path: Path) -> dict[str, np.ndarray]:
    neff = read_neff(path)
    rng = np.random.default_rng(0)
    out: dict[str, np.ndarray] = {}
    for g in neff.graphs:
        for v in core_program(neff, g).memory.variables:
            if v.kind == "Input" and v.name not in out and v.dtype is not None and v.shape is not None:
                t = numpy_dtype(Dtype[v.dtype])
                out[v.name] = (rng.integers(0, 4, v.shape) if t.kind in "iub" else rng.random(v.shape)).astype(t)
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("module", "sorts", "n"), GRAPHS)
def test_every_sort_chain_leaves_the_stable_argsort_of_its_keys(module: str, sorts: int, n: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = _path(module)
    rng = np.random.default_rng(1)
    injected: list[np.ndarray] = []
    finals: list[np.ndarray] = []
    real = gpsimd._custom_run

    def spy(c: gpsimd.Ctx, where: str, name: str, args: list[dict[str, int]]) -> None:
        if name == "partial_sort_multicore_compute":
            keys = c.m.tensor_view(c.engine, args[1]["addr"], 1, ((1, n),), 10).reshape(n)
            keys[:] = rng.integers(0, n // 2, n).astype(np.float32) + 0.5
            injected.append(np.array(keys))
        real(c, where, name, args)
        if name == "partial_merge_multicore_compute" and \
                int(c.m.tensor_view(c.engine, args[2]["addr"], 1, ((1, 1),), 8).reshape(1)[0]) == 2:
            finals.append(np.array(c.m.tensor_view(c.engine, args[0]["addr"], 1, ((1, 2 * n),), 10).reshape(2 * n)))

    monkeypatch.setattr(gpsimd, "_custom_run", spy)
    neff = read_neff(path)
    run_neff(neff, _inputs(path), seed=0)
    assert len(injected) == len(finals) == sorts
    want = {(np.sort(k).tobytes(), np.argsort(k, kind="stable").astype(np.float32).tobytes()) for k in injected}
    got = {(f[:n].tobytes(), f[n:].tobytes()) for f in finals}
    assert got == want


@pytest.mark.slow
def test_under_stop_the_graph_stops_at_its_first_sort() -> None:
    path = _path(GRAPHS[0][0])
    with pytest.raises(SimError, match="I-37129-0.*custom op 'partial_sort_multicore_compute'.*S-77"):
        run_neff(read_neff(path), _inputs(path), seed=0, decisions=DecisionSet.parse(["S-121=stop"]))


@pytest.mark.slow
@pytest.mark.parametrize(("module", "sorts", "n"), GRAPHS)
def test_the_graph_against_its_hlo_reference(module: str, sorts: int, n: int) -> None:
    pytest.importorskip("jax")
    from tongasm.oracle.harness import check_neff
    from tongasm.oracle.xla import OracleUnavailable, load_hlo

    path = _path(module)
    try:
        from tongasm.oracle.harness import prepare

        prepare(path, read_neff(path), 0)
    except OracleUnavailable as e:
        calls = load_hlo(path.with_suffix(".hlo.pb").read_bytes()).custom_calls()
        pytest.skip(f"no reference for {module}: {e} (custom calls: {', '.join(calls)})")
    r = check_neff(path, 0)
    assert r.ran, r.why
    bad = [c.name for c in r.outputs if not c.matched]
    assert not bad, f"{len(bad)} of {len(r.outputs)} outputs differ from the reference: {', '.join(bad[:10])}"
