"""The text layer: the disassembly listing, ``explain``, the text assembler and ``diff``.

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
    from .diff import Diff, diff_sides, diff_streams
    from .explain import Explanation, explain_bundle, render_text

_EXPORTS = {
    "TextProgram": "assembler", "TextSyntaxError": "assembler", "assemble_file": "assembler",
    "assemble_text": "assembler", "Explanation": "explain", "explain_bundle": "explain", "render_text": "explain",
    "Diff": "diff", "diff_sides": "diff", "diff_streams": "diff",
}

__all__ = ["Diff", "Explanation", "StreamInput", "TextProgram", "TextSyntaxError", "assemble_file", "assemble_text",
           "diff_sides", "diff_streams", "explain_bundle", "listing", "listing_json", "render_text"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
