"""The text layer: the disassembly listing, ``explain``, the text assembler and the BIR JSON reference.

The listing's names are bound here (its module and its function share the name ``listing``, so
the function must be bound after the module is imported); the assembler's and explain's names are
imported on first use, so ``disasm`` does not load ``explain`` and the checks behind it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports
from .listing import StreamInput, listing, listing_json

if TYPE_CHECKING:
    from .assembler import TextProgram, TextSyntaxError, assemble_file, assemble_text
    from .explain import Explanation, explain_bundle, render_text

_EXPORTS = {
    "TextProgram": "assembler", "TextSyntaxError": "assembler", "assemble_file": "assembler",
    "assemble_text": "assembler", "Explanation": "explain", "explain_bundle": "explain", "render_text": "explain",
}

__all__ = ["Explanation", "StreamInput", "TextProgram", "TextSyntaxError", "assemble_file", "assemble_text",
           "explain_bundle", "listing", "listing_json", "render_text"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
