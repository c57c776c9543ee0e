"""The Tonga ISA as data: enums and their wire LUTs, the D-n decisions, the targets, descriptor
codecs and one declarative table per bundle format.

The layouts and their compiled formats (:mod:`.formats`, :mod:`.layouts`) are imported on first use
of ``FormatSet``, ``build_formats`` or ``FORMATS``: ``tongasm --help`` and the commands that read no
bundle do not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .decisions import DECISIONS, DEFAULT_DECISIONS, Decision, DecisionSet, each_reading
from .enums import AccType, AluOp, CodeGenMode, Dtype, Engine, MemsetMode, UpdateMode, WaitMode
from .fields import BUNDLE_SIZE, Conf, Field, Format, Kind
from .opcodes import ISA_OPCODE_NAMES, OPCODES, opcode_name
from .targets import GEN2, GEN3, TARGETS, Target, get_target

if TYPE_CHECKING:
    from .formats import FormatSet, build_formats

__all__ = [
    "AccType", "AluOp", "BUNDLE_SIZE", "CodeGenMode", "Conf", "DECISIONS", "DEFAULT_DECISIONS",
    "Decision", "DecisionSet", "Dtype", "Engine", "FORMATS", "Field", "Format", "FormatSet", "GEN2",
    "GEN3", "ISA_OPCODE_NAMES", "Kind", "MemsetMode", "OPCODES", "TARGETS", "Target", "UpdateMode",
    "WaitMode", "build_formats", "each_reading", "get_target", "opcode_name",
]


def __getattr__(name: str) -> Any:
    if name in ("FormatSet", "build_formats", "FORMATS"):
        from . import formats

        if name == "FORMATS":  # built on first use
            return formats.build_formats(DEFAULT_DECISIONS)
        return getattr(formats, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
