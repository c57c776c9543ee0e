"""Named limits on what hostile input may make tongasm spend: one :class:`Limit` machinery for every floor.

A size taken from an input (a NEFF member's, a shape, an allocation, a loop's trip count, a repeat
count) must not drive an allocation or a loop past what any real input needs: the figure is checked
against a named limit *before* the memory is spent and refused (exit 2) with one line naming what,
the figure (shortened by :func:`~tongasm.errors.brief_int` when huge), the limit and the environment
variable that raises it. Each floor declares its limits with the error class its callers expect
(:class:`~tongasm.neff.limits.LimitExceeded` for a NEFF, :class:`~tongasm.sim.machine.SimLimitExceeded`
in the simulator, :class:`InputLimitExceeded` for a kernel, a listing or an array), so a limit
keeps its package's exit code and ``except`` clauses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import InputError, TongasmError, UsageError, brief_int


class InputLimitExceeded(InputError):
    """An input past one of the limits declared on :class:`Limit` (exit 2): refused as soon as the
    figure is known, before the memory it would take is spent."""


#: The message of a limit: ``{where}``, ``{name}``, ``{figure}``, ``{limit}``, ``{unit}`` (with its
#: leading space when there is one) and ``{env}``.
DEFAULT_TEMPLATE = "{where}: {name} is {figure}{unit}, more than the limit of {limit}{unit}; refused ({env} raises the limit)"


@dataclass(frozen=True)
class Limit:
    """One bound on what an input may cost: ``default`` unless ``$env`` is set (a positive integer;
    read at each use, so tests and fuzzers may lower it). Past it, :meth:`check` raises ``error``
    with ``template`` filled in (figures with thousands separators when ``grouped``)."""

    name: str  # what is bounded, as messages say it
    default: int
    env: str
    doc: str  # why this default (the largest real figure it was chosen against)
    error_class: type[TongasmError] = field(default=InputLimitExceeded, compare=False)
    template: str = DEFAULT_TEMPLATE
    grouped: bool = False

    def value(self) -> int:
        text = os.environ.get(self.env, "").strip()
        if not text:
            return self.default
        if not text.isdigit() or len(text) > 18 or int(text) < 1:
            raise UsageError(f"{self.env} must be a positive integer, got {text[:40]!r}")
        return int(text)

    def check(self, figure: int, where: str, unit: str = "") -> None:
        """Refuse ``figure`` above the limit: ``error_class`` naming ``where``, the figure and the limit."""
        if figure > self.value():
            raise self.error(figure, where, unit)

    def show(self, n: int) -> str:
        """A figure as this limit's messages write it."""
        if self.grouped and -(10 ** 20) < n < 10 ** 20:
            return f"{n:,}"
        return brief_int(n)

    def error(self, figure: int | str, where: str, unit: str = "") -> TongasmError:
        """The refusal of ``figure`` (a number, or a text such as ``"at least 5000"``), not raised."""
        shown = self.show(figure) if isinstance(figure, int) else figure
        return self.error_class(self.template.format(where=where, name=self.name, figure=shown,
                                                     limit=self.show(self.value()), unit=f" {unit}" if unit else "",
                                                     env=self.env))
