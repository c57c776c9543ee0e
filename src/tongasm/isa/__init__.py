"""The Tonga ISA as data: enums and their wire LUTs, the D-n decisions, the targets, descriptor
codecs and one declarative table per bundle format."""

from .decisions import DECISIONS, DEFAULT_DECISIONS, Decision, DecisionSet, each_reading
from .enums import AccType, AluOp, CodeGenMode, Dtype, Engine, MemsetMode, UpdateMode, WaitMode
from .fields import BUNDLE_SIZE, Conf, Field, Format, Kind
from .formats import FormatSet, build_formats
from .opcodes import ISA_OPCODE_NAMES, OPCODES, opcode_name
from .targets import GEN2, GEN3, TARGETS, Target, get_target

__all__ = [
    "AccType", "AluOp", "BUNDLE_SIZE", "CodeGenMode", "Conf", "DECISIONS", "DEFAULT_DECISIONS",
    "Decision", "DecisionSet", "Dtype", "Engine", "FORMATS", "Field", "Format", "FormatSet", "GEN2",
    "GEN3", "ISA_OPCODE_NAMES", "Kind", "MemsetMode", "OPCODES", "TARGETS", "Target", "UpdateMode",
    "WaitMode", "build_formats", "each_reading", "get_target", "opcode_name",
]


def __getattr__(name: str) -> FormatSet:
    if name == "FORMATS":  # built on first use
        return build_formats(DEFAULT_DECISIONS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
