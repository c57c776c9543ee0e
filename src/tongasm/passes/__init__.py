"""Passes between the IR and codegen: flattening (with loop unrolling) and Select lowering."""

from .lower_select import lower_item, lower_select
from .program import ProgramItem, flatten

__all__ = ["ProgramItem", "flatten", "lower_item", "lower_select"]
