"""Package names imported on first use (PEP 562), so importing a package does not import all of it.

A package lists which of its modules holds each name it re-exports::

    __getattr__, __dir__ = lazy_exports(__name__, {"read_neff": "neff", "NeffError": "errors"})

``from tongasm.neff import read_neff`` then imports ``tongasm.neff.neff`` at that moment, and a
command that needs only ``tongasm.neff.select`` does not pay for the rest. (A name that is also a
submodule's name must be bound eagerly instead: importing the submodule sets the package attribute.)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str | tuple[str, str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name of ``exports`` is read from its module
    (``"module"``, or ``("module", "name there")``) on first access, then kept in the package."""

    def __getattr__(name: str) -> Any:
        entry = exports.get(name)
        if entry is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attr = (entry, name) if isinstance(entry, str) else entry
        value = getattr(importlib.import_module(f"{package}.{module}"), attr)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
