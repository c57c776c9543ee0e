"""What a NEFF's graph says about its semaphores: the role of each, for the profiler's syntax.

The vendor profiler prints a semaphore with its role (``S[40] (qScalarDynamicHW)``, ``S[4] (Scalar)``).
The bytes hold only the number; the role is in the graph's own tables: the ``def.json`` DMA queue
whose ``semaphore_set`` holds it, else the one engine whose stream increments it
(:func:`tongasm.text.profile.semaphore_roles`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.formats import build_formats
from ..text.profile import ProfileContext, semaphore_roles
from .neff import Neff


def profile_context(neff: Neff, graph: str, decisions: DecisionSet = DEFAULT_DECISIONS,
                    dram_bases: Mapping[int, int] | None = None) -> ProfileContext:
    """The profile context of one graph: its ``def.json`` queues and its streams' semaphore increments
    (``dram_bases``: where the runtime placed the DRAM variables, by variable id, when known)."""
    g = neff.graph(graph)
    queues = [(q.name, q.owner, q.semaphore_set) for q in g.definition.dma_queues.values()]
    streams = {s.stream: neff.stream_data(s) for s in g.streams.values()}
    roles = semaphore_roles(queues, streams, build_formats(decisions))
    return ProfileContext(decisions, neff.target.name, roles, dict(dram_bases or {}))
