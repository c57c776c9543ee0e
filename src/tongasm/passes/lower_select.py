"""Select lowering (SPEC §4.6).

``Select(dst; predicate, on_true, on_false)`` has no bundle of its own. It becomes
``GenericCopy(dst ← on_false)`` followed by ``CopyPredicated(mask = predicate, src = on_true) → dst``.
D-17b: a scalar ``on_false`` lowers to a Memset (Const) of the scalar's bit pattern in the dst
dtype instead of the copy. D-24: the Select's wait goes on the first bundle, its update on the
last. Both parts keep the Select's engine (the compiler leaves the copy Unassigned for its
scheduler; tongasm has none, and splitting one Select over two streams would race).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..isa.enums import AccType, AluOp, Dtype, MemsetMode
from ..ir.instructions import CopyPredicated, GenericCopy, Instruction, Memset, Select
from ..ir.operands import FrozenMap, Immediate, SyncInfo
from ..numeric import NumericError, bit_pattern


def split_sync(sync: SyncInfo | None) -> tuple[SyncInfo | None, SyncInfo | None]:
    """D-24: waits go to the first bundle, updates to the last.

    The halves of one (shared, immutable) sync object are made once, so the encoder's memo of
    placed sync bands (keyed by the object) hits for every Select that carries it.
    """
    if not sync:
        return None, None
    hit = _SPLIT.get(id(sync))
    if hit is not None and hit[0] is sync:
        return hit[1], hit[2]
    first = SyncInfo(sync.waits, ()) if sync.waits else None
    last = SyncInfo((), sync.updates) if sync.updates else None
    if len(_SPLIT) >= _SPLIT_LIMIT:
        _SPLIT.clear()
    _SPLIT[id(sync)] = (sync, first, last)  # holds sync, so its id stays its own
    return first, last


_SPLIT: dict[int, tuple[SyncInfo, SyncInfo | None, SyncInfo | None]] = {}
_SPLIT_LIMIT = 10_000
#: The attributes of every lowered CopyPredicated (one read-only mapping for all of them).
_NO_ATTRS = FrozenMap()
_CP_ATTRS = FrozenMap({"reverse_pred": False, "op": AluOp.bypass, "acc": AccType.Idle})


def _memset_attrs(constant: int) -> FrozenMap:
    """The (shared, read-only) attributes of the Memset a scalar on_false lowers to."""
    hit = _MEMSET_ATTRS.get(constant)
    if hit is None:
        if len(_MEMSET_ATTRS) >= _SPLIT_LIMIT:
            _MEMSET_ATTRS.clear()
        hit = _MEMSET_ATTRS[constant] = FrozenMap({"mode": MemsetMode.Const, "constant_bits": constant})
    return hit


_MEMSET_ATTRS: dict[int, FrozenMap] = {}  # constant (a bit pattern: always an int) → attributes


def lower_select(sel: Select) -> list[Instruction]:
    """The two instructions a Select lowers to (raises EncodeError on malformed operands)."""
    if len(sel.ins) != 3 or len(sel.outs) != 1:
        raise EncodeError(f"Select needs ins = [predicate, on_true, on_false] and outs = [dst]; "
                          f"got {len(sel.ins)} input(s) and {len(sel.outs)} output(s)", check="operands.shape")
    pred, on_true, on_false = sel.ins
    dst = sel.outs[0]
    first_sync, last_sync = split_sync(sel.sync)
    first: Instruction
    if isinstance(on_false, Immediate):
        # D-17b: scalar on_false → Memset(Const) of the scalar's bit pattern in the dst dtype.
        if not isinstance(dst.dtype, Dtype):
            raise EncodeError(f"Select dst has an unknown dtype ordinal {dst.dtype}", check="enum.dtype")
        try:
            constant = bit_pattern(on_false.value, dst.dtype)
        except NumericError as e:
            raise EncodeError(f"Select on_false scalar: {e}", field="on_false", value=on_false.value, check="imm.value") from None
        first = Memset(sel.name, sel.engine, (), (dst,), _memset_attrs(constant), first_sync)
    else:
        first = GenericCopy(sel.name, sel.engine, (on_false,), (dst,), _NO_ATTRS, first_sync)
    second = CopyPredicated(sel.name, sel.engine, (pred, on_true), (dst,), _CP_ATTRS, last_sync)
    return [first, second]
