"""Checks of the sync/control family (semaphores, ordering mode, clears): the family checks their layout
records list, their vector forms, and the ids of the encoder refusals that name no other family.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..isa.decisions.control import OrderingMode
from ..isa.layouts.control import CLEAR_TABLE, SEM_MASK_WORDS
from .bundle_checks import BundleView, _f, bundle_check
from .registry import Finding, register_refusals
from .vectorized import by_classes, vector

# --- encoder refusals (level "encode") ---

_ENCODE = [
    ("engine.unassigned", "a DMA or sync/control instruction names the engine it runs on (it exists on every "
                          "engine)", "docs/bir-json.md"),
]
register_refusals(_ENCODE)


@bundle_check("ctrl.ordering_mode", "SetOrderingMode's mode is 0 (the only one seen) unless R-24=parameter", "R-24")
def _ordering_mode(b: BundleView) -> Iterator[Finding]:
    if not b.decisions.get(OrderingMode).takes_parameter and b.fields["ordering_mode"]:
        yield _f("ctrl.ordering_mode", "an ordering mode other than 0 has no known meaning (R-24=zero)",
                 "ordering_mode", b.fields["ordering_mode"], "0")


@bundle_check("ctrl.clear_range", "EventSemaphoreRangeClear: a range form has first <= last and no mask; a mask form "
              "no range", "book (isa/sp-sync-encoding.md)")
def _clear_range(b: BundleView) -> Iterator[Finding]:
    fv = b.fields
    mode = fv["clear_mode"]
    masks = [fv[f"sem_mask{k}"] for k in range(SEM_MASK_WORDS)]
    if mode not in CLEAR_TABLE.names:
        yield _f("ctrl.clear_range", "unknown clear mode", "clear_mode", mode, "1 range, 2 mask")
    elif CLEAR_TABLE.names[mode] == "range":
        if fv["range_first"] > fv["range_last"]:
            yield _f("ctrl.clear_range", "the range is empty (first > last)", "range_first", fv["range_first"],
                     f"<= {fv['range_last']}")
        if any(masks):
            yield _f("ctrl.clear_range", "a range clear with a mask set", "sem_mask0", masks[0], "0")
    elif fv["range_first"] or fv["range_last"]:
        yield _f("ctrl.clear_range", "a mask clear with a range set", "range_first", fv["range_first"], "0")


vector("ctrl.ordering_mode")(by_classes(_ordering_mode, "ordering_mode"))


vector("ctrl.clear_range")(by_classes(_clear_range, "clear_mode", "range_first", "range_last",
                                      *(f"sem_mask{k}" for k in range(SEM_MASK_WORDS))))
