"""Every bundle layout tongasm knows, as :class:`~tongasm.isa.layout.Layout` records, one module
per family: :mod:`.sp` (register-lane ops), :mod:`.tensor` (TensorTensor, CopyPredicated,
TensorCopy, Memset, MoveShape), :mod:`.pe` (Ldweights, Matmul and the book's PE members), :mod:`.dma`
(PseudoDmaDirect2d and the book's DMA members), :mod:`.control` (EventSemaphore, Nop, SetOrderingMode,
PseudoBranchLabel and the book's SP sync/control members), and the next families: :mod:`.reduce`
(TensorReduce, the cross-lane reduce, Reciprocal, Pool, Iota), :mod:`.act` (Activate, ActivationTableLoad, the
accumulator read-outs), :mod:`.dve` (TensorScalar, BNStats, BNStatsAggregate); and, from the real
bytes, :mod:`.gpsimd` (the Pool engine's TensorScalarAddr, custom ops, gather pair and AffineSelect),
:mod:`.move` (LoadMaskSelect, StreamShuffle, StreamTranspose), :mod:`.search` (Max8, MatchValueLoad,
MatchReplace8) and :mod:`.batchnorm` (BatchNormGradAccumulate, BatchNormParamLoad, BatchNormBackProp).

Each module lists its *builders*: functions of a :class:`~tongasm.isa.decisions.DecisionSet` that
return the family's records (a decision may change a layout's fields). :func:`layouts` gives every
record for a selection, in declaration order; :func:`register` adds a builder (a new family, or a
test's toy layout) and drops the cached format tables.

What is built when (so that a command pays only for the layouts it touches): the builders run when
a :class:`~tongasm.isa.formats.FormatSet` is made (cheap: they return records), and each layout's
codec (:class:`~tongasm.isa.fields.Format`: the generated encoder/decoder and the field-overlap
checks) is compiled the first time that layout is read from the set (``by_name[...]``,
``by_opcode[...]``, ``select``, iteration). Neither this package nor the formats are imported by
``import tongasm``, ``tongasm --help`` or commands that read no bundle. To add a layout: declare its
record in ``<family>.py``, give the module a ``BUILDERS`` list and add it to ``_BUILDERS`` below;
nothing else is needed for laziness. Keep a layout module's imports light (numpy, ml_dtypes and the
simulator belong inside the functions that use them): every module listed here is imported whenever
any format is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..decisions import DecisionSet
from ..layout import Layout
from . import sp, tensor
from . import control, dma, pe  # the PE, DMA and sync/control families
from . import act, scalar, reduce  # the vector families of the next-families chapter
from . import gpsimd  # the Pool-engine (GPSIMD) opcodes of real output
from . import move  # the DVE data-movement family
from . import batchnorm, search  # the DVE search and batch-norm backward families

Builder = Callable[[DecisionSet], list[Layout]]

_BUILDERS: list[Builder] = [*sp.BUILDERS, *tensor.BUILDERS,
                            *pe.BUILDERS, *dma.BUILDERS, *control.BUILDERS,
                            *reduce.BUILDERS, *act.BUILDERS, *scalar.BUILDERS, *gpsimd.BUILDERS,
                            *move.BUILDERS, *search.BUILDERS, *batchnorm.BUILDERS]
_listeners: list[Callable[[], None]] = []


def builders() -> tuple[Builder, ...]:
    """The registered builders, in declaration order (a cache key for what is built from them)."""
    return tuple(_BUILDERS)


def layouts(ds: DecisionSet, among: tuple[Builder, ...] | None = None) -> Iterator[Layout]:
    """Every layout record for a decision selection, in declaration order (of the given builders,
    by default the registered ones)."""
    for build in builders() if among is None else among:
        yield from build(ds)


def register(builder: Builder) -> Callable[[], None]:
    """Add a family's builder; returns a function that removes it again. Cached tables are dropped."""
    _BUILDERS.append(builder)
    _changed()

    def unregister() -> None:
        if builder in _BUILDERS:
            _BUILDERS.remove(builder)
            _changed()

    return unregister


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever the set of layouts changes (caches built from them subscribe)."""
    _listeners.append(listener)


def _changed() -> None:
    for listener in _listeners:
        listener()
