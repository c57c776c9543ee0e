"""The text layer: the disassembly listing, ``explain``, and the text assembler."""

from .assembler import TextProgram, TextSyntaxError, assemble_file, assemble_text
from .explain import Explanation, explain_bundle, render_text
from .listing import StreamInput, listing, listing_json

__all__ = ["Explanation", "StreamInput", "TextProgram", "TextSyntaxError", "assemble_file", "assemble_text",
           "explain_bundle", "listing", "listing_json", "render_text"]
