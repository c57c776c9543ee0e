"""How much a NEFF may make tongasm spend: named limits on the container and its members.

A NEFF is a few megabytes of gzip that may inflate to anything; a hostile one (a gzip bomb, a tar
of a million members, a JSON member nested a million deep, a ``.dbg`` protobuf declaring tables of
hundreds of millions of ids) must be refused with a loud :class:`~tongasm.neff.errors.NeffError`
(exit 2) naming the member, the figure and the limit, *before* the memory is spent, not by the
machine running out of it. Each limit is one :class:`~tongasm.io.limits.Limit` here, with its default, the corpus
figure it was chosen against (the largest over the 96 real NEFFs of the corpus, inflated) and the
environment variable that overrides it, as
``TONGASM_MAX_INSTRUCTIONS`` does for unrolling.
"""

from __future__ import annotations

from functools import partial

from ..io.limits import Limit
from .errors import NeffError


class LimitExceeded(NeffError):
    """A NEFF past one of the limits here (exit 2, like any unusable NEFF): refused as soon as the
    figure is known, whatever else may be wrong with the file."""


#: A NEFF's limit: the one :class:`~tongasm.io.limits.Limit` machinery, raising :class:`LimitExceeded`.
_neff = partial(Limit, error_class=LimitExceeded)

#: The tar inside the payload, inflated (corpus largest: 20,695,040 bytes, yolox MODULE_15023315273075843957).
MAX_TAR_BYTES = _neff("the inflated tar", 1 << 29, "TONGASM_MAX_NEFF_TAR_BYTES",
                      "512 MiB: 25x the corpus's largest inflated tar (20.7 MB)")
#: Members in one NEFF (corpus largest: 183).
MAX_MEMBERS = _neff("the member count", 10_000, "TONGASM_MAX_NEFF_MEMBERS",
                    "10,000: 54x the corpus's most members (183)")
#: One member's size (corpus largest: 4,236,480 bytes, a yolox sg00/PE.bin).
MAX_MEMBER_BYTES = _neff("the member size", 1 << 27, "TONGASM_MAX_NEFF_MEMBER_BYTES",
                         "128 MiB: 31x the corpus's largest member (4.2 MB)")
#: One JSON member's size (corpus largest: 2,292,843 bytes, a yolox sg00/SP.json).
MAX_JSON_BYTES = _neff("the JSON member size", 1 << 26, "TONGASM_MAX_NEFF_JSON_BYTES",
                       "64 MiB: 29x the corpus's largest JSON member (2.3 MB)")
#: Nesting of arrays/objects in a JSON member (corpus deepest: 21, a moe klir.debuginfo.json).
MAX_JSON_DEPTH = _neff("the JSON nesting depth", 256, "TONGASM_MAX_NEFF_JSON_DEPTH",
                       "256: 12x the corpus's deepest JSON member (21), well below Python's recursion limit")
#: Values (array elements and object members, counted as the commas and opening brackets outside
#: strings, plus one) in one JSON member (corpus most: 203,261, a yolox sg00/SP.json). Parsed, a
#: value costs Python 50-100 bytes: 64 MiB of ``[],`` would become 1.4 GB of empty lists.
MAX_JSON_VALUES = _neff("the JSON value count", 1 << 22, "TONGASM_MAX_NEFF_JSON_VALUES",
                        "4,194,304: 20x the corpus's most values in one JSON member (203,261)")
#: Values in all the JSON members of one NEFF that a command reads (corpus most: 260,594, yolox
#: MODULE_15023315273075843957): a NEFF keeps its parsed members, 64 graphs of them.
MAX_NEFF_JSON_VALUES = _neff("the JSON value count of the NEFF", 1 << 23, "TONGASM_MAX_NEFF_ALL_JSON_VALUES",
                             "8,388,608: 32x the corpus's most values in one NEFF's JSON members (260,594)")
#: One ``.dbg`` protobuf member's size (corpus largest: 764,276 bytes).
MAX_DBG_BYTES = _neff("the debug-info member size", 1 << 25, "TONGASM_MAX_NEFF_DBG_BYTES",
                      "32 MiB: 43x the corpus's largest .dbg member (764 KB)")
#: Entries (instructions) in one ``.dbg`` member (corpus most: 66,195, an asm PE .dbg).
MAX_DBG_ENTRIES = _neff("the debug-info entry count", 1 << 20, "TONGASM_MAX_NEFF_DBG_ENTRIES",
                        "1,048,576: 15x the corpus's most .dbg entries (66,195)")
#: Ids in one ``.dbg`` entry's parent-id / dependency tables (corpus most: 420).
MAX_DBG_IDS = _neff("the debug-info id table size", 1 << 16, "TONGASM_MAX_NEFF_DBG_IDS",
                    "65,536: 156x the corpus's largest table in one entry (420 ids)")

#: Ids in the parent-id / dependency tables of one ``.dbg`` member, all entries together (corpus most:
#: 71,220, a yolox debug_info_backend_PE.dbg; 331,576 in one NEFF, all members together).
MAX_DBG_TOTAL_IDS = _neff("the debug-info id count", 1 << 21, "TONGASM_MAX_NEFF_DBG_TOTAL_IDS",
                          "2,097,152: 29x the corpus's most ids in one .dbg member (71,220)")
#: Graphs (cores' programs) in one NEFF's kelf-0.json (corpus most: 2). Each graph run keeps a whole
#: machine state, so a NEFF of thousands of tiny graphs would exhaust the memory.
MAX_GRAPHS = _neff("the graph count", 64, "TONGASM_MAX_NEFF_GRAPHS",
                   "64: 32x the corpus's most graphs in one NEFF (2)")

LIMITS: tuple[Limit, ...] = (MAX_TAR_BYTES, MAX_MEMBERS, MAX_MEMBER_BYTES, MAX_JSON_BYTES, MAX_JSON_DEPTH,
                             MAX_JSON_VALUES, MAX_NEFF_JSON_VALUES,
                             MAX_DBG_BYTES, MAX_DBG_ENTRIES, MAX_DBG_IDS, MAX_DBG_TOTAL_IDS, MAX_GRAPHS)
