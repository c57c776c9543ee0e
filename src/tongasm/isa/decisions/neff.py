"""The NEFF container decisions of the real-NEFF chapter (``neff-and-real-opcodes.md`` §1.3-§1.6),
each with the behaviour its readings imply: R-1..R-6 govern what a NEFF repack copies or recomputes
(header hash, kelp version, unknown words, UUID, gzip MTIME, member order); they affect no bundle.
The tar style decisions are in :mod:`.archive`; the bundle decisions the same chapter read are with
their families (:mod:`.tensor`, :mod:`.pe`, :mod:`.dma`, :mod:`.control`).
"""

from __future__ import annotations

import hashlib
import time
import uuid as _uuid
from collections.abc import Iterable, Mapping

from .base import Decision, Reading


class HeaderHash(Decision):
    id = "R-1"
    subject = "NEFF header hash (0x0AC, 32 bytes) on a repack"
    reason = ("the 16-byte digest is not MD5/SHA of anything in the file that was tried (§1.3); the runtime "
              "accepts the original, so copying it is the only reading known to load")
    COPY = Reading("copy", "copy the input's 32 bytes (its input is unknown: not MD5/SHA of anything in the file)")
    MD5_PAYLOAD = Reading("md5-payload", "MD5 of the payload (everything after the header) in the first 16 bytes, "
                                         "rest zero")
    ZERO = Reading("zero", "all 32 bytes zero")

    def digest(self, payload: bytes) -> tuple[bytes, bytes] | None:
        """The (first 16, last 16) bytes of the hash field for ``payload``, or None to copy."""
        if self.reading is self.MD5_PAYLOAD:
            return hashlib.md5(payload).digest(), bytes(16)
        if self.reading is self.ZERO:
            return bytes(16), bytes(16)
        return None


class KelpVersionMajor(Decision):
    id = "R-2"
    subject = "NEFF header word 0x018 (kelp_version_major)"
    COPY = Reading("copy", "copy the input's word (2 in both real files; the book's 1 is contradicted)")


class UnknownHeaderWords(Decision):
    id = "R-3"
    subject = "NEFF header words 0x220 and 0x228 (meaning unknown)"
    COPY = Reading("copy", "copy both from the input NEFF; no header is written without a template")
    GRAPH_COUNT = Reading("graph-count", "0x228 = number of graphs in kelf-0.json (inferred); 0x220 copied")

    def word_0x228(self, graphs: int) -> int | None:
        """The word at 0x228 for a NEFF of ``graphs`` graphs, or None to copy."""
        return graphs if self.reading is self.GRAPH_COUNT else None


class HeaderUuid(Decision):
    id = "R-4"
    subject = "NEFF header UUID (0x0CC) on a repack"
    KEEP = Reading("keep", "keep the input's UUID")
    FRESH = Reading("fresh", "draw a fresh RFC 4122 version-4 UUID")

    def uuid(self) -> bytes | None:
        """A new UUID, or None to keep the input's."""
        return _uuid.uuid4().bytes if self.reading is self.FRESH else None


class GzipMtime(Decision):
    id = "R-5"
    subject = "gzip MTIME of a repacked NEFF payload"
    COPY = Reading("copy", "copy the input's MTIME")
    NOW = Reading("now", "the current time")

    def mtime(self, original: int) -> int:
        return original if self.reading is self.COPY else int(time.time()) & 0xFFFFFFFF


class MemberOrder(Decision):
    id = "R-6"
    subject = "order of the tar members of a NEFF"
    reason = ("the compilers do not agree: of the 96 corpus files 78 (2.14) and 6 (2.23, trn1) are in plain byte "
              "order, 7 (2.23, trn2) and both matmul files in byte order with neff.json last, and 5 in neither: 3 "
              "(2.23, moe: neff.json last, a '*.klir.debuginfo.json' among sg00's members) and 2 (2.14: the "
              "custom-op libbuiltincustomop_cpu*.stripped.so members right after kelf-0.json); only the input's "
              "own order reproduces every file")
    INPUT_ORDER = Reading("input-order", "the input's order; members it did not have follow in byte order (every "
                                         "real file)")
    NEFF_JSON_LAST = Reading("neff-json-last", "byte order of the paths, neff.json moved to the end (9 of 98 real "
                                               "files: the trn2 attention kernels and both matmul files)")
    BYTE_ORDER = Reading("byte-order", "plain byte order of the paths (84 of 98 real files: most of 2.14's and the "
                                       "trn1 2.23 kernels)")

    def order(self, names: Iterable[str], input_order: Mapping[str, int] | None = None) -> list[str]:
        """The member names in the order a writer emits them."""
        names = list(names)
        by_bytes = sorted(names, key=lambda s: s.encode())
        if self.reading is self.BYTE_ORDER:
            return by_bytes
        if self.reading is self.NEFF_JSON_LAST:
            return [n for n in by_bytes if n != "neff.json"] + (["neff.json"] if "neff.json" in names else [])
        pos = input_order or {}
        return sorted(names, key=lambda s: (0, pos[s], b"") if s in pos else (1, 0, s.encode()))


# --- writing a NEFF from a kernel (tongasm.neff.build): what the real files cannot settle ---------------

class NeffInterface(Decision):
    id = "R-80"
    subject = "which variables of a kernel a NEFF written from it takes as inputs and outputs"
    reason = ("a real NEFF's inputs and outputs are its def.json 'input'/'output' variables, named in neff.json "
              "(matmul_small: x, y -> output0; the 2.23 sunda attention files: input0..input3 -> output0); a BIR "
              "kernel says Input/Output by its allocations' kind, but the example kernels keep their operands as "
              "'Internal' SBUF tensors that a run gives with -i (vector_add's a, b, mask): what the kernel reads "
              "before anything writes it can only come from outside")
    LIVE_IN = Reading("live-in", "inputs: kind Input, and every other variable whose first access in program order "
                                 "is a read; outputs: kind Output (and ExternalOutput...); any other DRAM variable "
                                 "is a 'virtual' (private) variable")
    KINDS = Reading("kinds", "only the allocation kinds: Input -> input, Output -> output; the rest private")

    def is_input(self, kind: str | None, read_first: bool) -> bool:
        """Whether a variable of allocation ``kind`` (None: not given) whose first access is a read
        (``read_first``) is an input of the NEFF."""
        if kind == "Input":
            return True
        if self.reading is self.KINDS or kind in ("Output", "ExternalOutput", "ExternalOutputParameter"):
            return False
        return read_first


class NeffStaging(Decision):
    id = "R-81"
    subject = "a kernel's inputs and outputs that are not in DRAM (SBUF, PSUM) in a NEFF written from it"
    reason = ("the runtime hands a NEFF its inputs and takes its outputs as DRAM buffers (def.json 'input'/'output' "
              "variables, reached by the DMAs through their var_id); every real kernel moves its data between "
              "DRAM and SBUF with 0xD4 DMAs on a queue's engine and waits on their completion semaphore (R-15); "
              "a DMA side is DRAM or SBUF, never PSUM (dma.operands)")
    DMA = Reading("dma", "each becomes a DRAM variable of its name and bytes: Pool DMAs load the inputs before "
                         "anything else (every engine's first bundle waits on their semaphore) and store the "
                         "outputs once every engine has signalled it is done; a PSUM output is first copied to "
                         "free SBUF by a DVE copy")
    REFUSE = Reading("refuse", "refuse a kernel whose inputs or outputs are not DRAM variables")

    @property
    def staged(self) -> bool:
        return self.reading is self.DMA


class NeffToolVersion(Decision):
    id = "R-82"
    subject = "info.json tool_version (and what the files call the compiler) of a NEFF written from a kernel"
    reason = ("every 2.23 corpus file (16) says '2.23.6484.0+3b612583'; whether the runtime compares it with its "
              "own version is unknown, so the string of the files whose layout is followed is the one known to load")
    COMPILER = Reading("compiler", "'2.23.6484.0+3b612583': the compiler whose files' layout the writer follows")
    TONGASM = Reading("tongasm", "'tongasm <version>': says who wrote the file (never seen by a runtime)")

    def tool_version(self, compiler: str, tongasm: str) -> str:
        return compiler if self.reading is self.COMPILER else f"tongasm {tongasm}"


class NeffFreshHeader(Decision):
    id = "R-83"
    subject = "the header fields of a NEFF written from a kernel that R-1..R-5 copy on a repack (no input to copy)"
    reason = ("R-1's digest input is unknown (§1.3); packaging_version 2 is 'tgz + md5' in KLR's NEFF writer; the "
              "UUID is an RFC 4122 v4 in both matmul files; 0x220 is 0x209C00 in matmul_small (one graph of "
              "five small streams), meaning unknown; the 2.23 gzip MTIME is what R-5 copies")
    DERIVED = Reading("derived", "hash = MD5 of the payload (first 16 bytes, rest zero); UUID = a v4 UUID made from "
                                 "the MD5 of the payload (the same kernel gives the same file); 0x220 = 0x209C00 (as "
                                 "matmul_small), 0x228 = the number of graphs; gzip MTIME 0")
    RANDOM = Reading("random", "as derived, but a fresh random v4 UUID and the gzip MTIME of now")
    ZERO = Reading("zero", "hash, UUID, 0x220 and gzip MTIME zero; 0x228 = the number of graphs")

    WORD_0x220 = 0x209C00

    def fields(self, payload: bytes, graphs: int) -> dict[str, int | bytes]:
        """Header values for a fresh NEFF of ``payload`` (its MD5 is the digest and, v4-formatted, the UUID)."""
        if self.reading is self.ZERO:
            return {"hash": bytes(16), "hash_rest": bytes(16), "uuid": bytes(16), "unknown_0x220": 0,
                    "unknown_0x228": graphs}
        digest = hashlib.md5(payload).digest()
        u = _uuid.uuid4().bytes if self.reading is self.RANDOM else _uuid.UUID(bytes=digest, version=4).bytes
        return {"hash": digest, "hash_rest": bytes(16), "uuid": u, "unknown_0x220": self.WORD_0x220,
                "unknown_0x228": graphs}

    def gzip_mtime(self) -> int:
        return int(time.time()) & 0xFFFFFFFF if self.reading is self.RANDOM else 0


class NeffCopiedFields(Decision):
    id = "R-84"
    subject = ("def.json and sidecar fields of a NEFF written from a kernel whose derivation is unknown "
               "(runtime_event_count, runtime_semaphore_count, runtime_statebuffer_reservation, neff_features, "
               "fp8_conversion_config, act_semaphore, cc_streams, a virtual variable's backing_variable_off)")
    reason = ("the same in every graph of the 2.23 files (cayman: the 22 graphs of the 10 trn2 corpus files and "
              "the two matmul NEFFs; sunda: the 6 trn1 files): 12 events, 3 runtime semaphores, act_semaphore 12, "
              "no cc streams; cayman reserves SBUF 229368..229375 (evtaccel) and lists neff_feature_vnc, sunda "
              "neither; every 2.23 'virtual' variable has backing_variable_off 0")
    COPY = Reading("copy", "the values of the target's 2.23 files, as they are")


class NeffDmaQueues(Decision):
    id = "R-86"
    subject = "the def.json dma_queue table of a NEFF written from a kernel"
    reason = ("the 2.23 files declare one queue per engine that issues DMAs, 16 queues owning a block of 16 "
              "semaphores from 8 (8..23, 24..39, 40..55; which engine gets which block varies: cayman pool 24..39 "
              "and sp 8..23 in 7 graphs, pool 8..23 with sp/act/dve at 24.. or 40.. in 9, none in 10 graphs "
              "without queues; sunda pool 8..23 in all 6), named qPoolDynamic (with dynamic_dma scratch 0/16384), "
              "qSPDynamicHW, qActDynamicHW; no PE or DVE DynamicHW queue was seen")
    PER_ENGINE = Reading("per-engine", "one queue per engine whose bundles hold a DMA, owning the block of the "
                                       "semaphores they signal (one block per engine, refused otherwise, S-64); the "
                                       "staging's Pool DMAs (R-81) take Pool's block, else the lowest free one; a "
                                       "pe or dve queue is named qPEDynamicHW / qDVEDynamicHW by analogy")


class NeffTables(Decision):
    id = "R-85"
    subject = "the activation-function and DVE table members of a NEFF written from a kernel"
    reason = ("the tables (act_info.json, <set>.json, <set>_bkt.bin, <set>_ctrl.bin, default_*_table.bin) are the "
              "compiler's data, which tongasm does not have; the simulator reads none of them (it computes each "
              "function). The sets a graph loads are named in Activation.json activation_function_sets, which "
              "R-21 makes the index of every ActivationTableLoad")
    NAMES = Reading("names", "Activation.json lists the sets the Activation stream loads (in first-load order, "
                             "each ActivationTableLoad's +0x23 rewritten to its position under R-21=graph-table); no "
                             "table member is written, and no sidecar key names one (act_info, dve_tables), unless a real "
                             "NEFF to copy them from is given (--tables, D-36)")


class NeffFromListing(Decision):
    id = "D-35"
    subject = "what a NEFF written from a text listing (assemble LISTING.s --neff) takes besides its bundles"
    reason = ("a listing holds a graph's bundles, its target and decisions and, as comments, each bundle's BIR "
              "instruction name; a NEFF also needs every DRAM variable the bundles name by var_id (name, type, size; "
              "neff.json's dtype and shape), which no bundle says, and the graph's activation sets, which the "
              "ActivationTableLoad bytes index (R-21: graph-local in a NEFF). 'tongasm disasm FILE.neff' writes them "
              "as .var and .act_sets lines (the def.json entry as it is); a listing of each written example kernel "
              "assembles back to the identical NEFF. The DMA queues are derived from the bundles (R-86), the staging "
              "(R-81) is already bundles of the listing")
    VAR_LINES = Reading("var-lines", "the .var and .act_sets lines: a var_id the bundles name that no .var line "
                                     "gives, a 'file' variable (its .npy constant is not in a listing) or a "
                                     "'pointer' one is refused naming it; without .act_sets the 0x23 bytes are read "
                                     "in act_info.json's order, as a kernel's, and rewritten per R-21")


class NeffTableSource(Decision):
    id = "D-36"
    subject = "the activation and DVE table members of a NEFF written from a kernel or a listing, given a real NEFF to take them from (--tables)"
    reason = ("the tables are the compiler's data, which tongasm does not ship (R-85); they are the same bytes in every "
              "graph of one target and compiler: act_info.json, each set's <set>.json/_bkt.bin/_ctrl.bin and the DVE "
              "default_*_table.bin in the 22 cayman 2.23 graphs (12 loading a set), the 6 sunda 2.23 graphs and the "
              "80 sunda 2.14 graphs each have one digest per member; every graph holds act_info.json and the DVE tables "
              "(cayman four: control_fast, control_slow, datapath, opcode; sunda three: control, datapath, opcode) and "
              "exactly the sets its Activation.json lists, named in its sidecars (act_info, dve_tables). Another "
              "compiler's tables differ: 2.14's act_info.json has 20 sets in another order than 2.23's 21 (which "
              "act_func_set_id and R-21 follow), and its DVE tables other bytes")
    SAME_COMPILER = Reading("same-compiler", "copied from the given NEFF when its target and compiler are the writer's "
                                             "(2.23.6484.0+3b612583, R-82); another compiler's NEFF, or one lacking a "
                                             "set the kernel loads, is refused naming it")
    ANY_COMPILER = Reading("any-compiler", "copied from a given NEFF of the target whatever compiler wrote it (its "
                                           "act_info.json then may not be the one the kernel's set ids name)")

    @property
    def any_compiler(self) -> bool:
        return self.reading is self.ANY_COMPILER


class NeffDebugDeps(Decision):
    id = "D-37"
    subject = ("the source lines, dependency tables and unknown_6 of the backend .dbg entries of a NEFF written from "
               "a kernel or a listing")
    reason = ("a real backend entry names its Penguin parent ids, data dependencies (deps, kinds 1..4), the "
              "instructions it synchronises with (sync_deps, with kinds), unknown_6 and kernel_file/kernel_line "
              "(file 0 = the DebugInfo's source_file, the NKI Python file). Measured on matmul_small and 5 corpus "
              "files (1,508 entries): unknown_6 is 1 in 1,360 (3 in 148, the PE transposes); 663 sync deps point at "
              "another engine's entry, 621 of them with kind 4; the kinds' meanings are unknown. A BIR kernel has no "
              "Penguin layer (no parent ids) and its data dependencies are the compiler scheduler's, which the bundles "
              "do not say; the semaphore waits are in the bytes")
    SEMAPHORES = Reading("semaphores", "sync_deps: the instructions of other engines whose semaphore updates (an "
                                       "update lane, a DMA's completion semaphore) the instruction's waits count, kind "
                                       "4; no deps and no parent ids; unknown_6 1; kernel_file 0 and kernel_line the "
                                       "line of the instruction's name in the kernel JSON (for a listing: its first "
                                       "bundle's line), source_file that file; none for the staging (R-81)")
