"""The files of an assembled output directory: ``<stream>.bin``, ``census.bin``, ``memory.json`` and
``manifest.json``, written atomically through :func:`tongasm.io.outputs.write_output_dir`.

Kept apart from :mod:`tongasm.codegen.assembler` so that ``tongasm asm`` (text → streams) writes its
directory without importing the encoder, the lowerings and the checks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, BinaryIO
from collections.abc import Callable

from ..isa.enums import ENGINE_STREAM
from ..io.outputs import MANIFEST_TOOL, WRITTEN_KEY, content_digest, manifest_files, write_output_dir

STREAM_NAMES = tuple(ENGINE_STREAM.values())
CENSUS_FILE = "census.bin"
MANIFEST_FILE = "manifest.json"
MEMORY_FILE = "memory.json"


def listed(*keys: str) -> Callable[[Path], set[str]]:
    """What an earlier manifest in the output directory lists under ``keys``: the files an earlier run
    wrote and this one may drop (``asm`` keeps ``memory.json``: the edited streams still run with it)."""
    return lambda out: manifest_files(out / MANIFEST_FILE, keys)


def write_streams(out_dir: str | os.PathLike[str], streams: dict[str, bytes], manifest: dict[str, Any],
                  census: bytes | None = None, extra: dict[str, bytes] | None = None) -> list[Path]:
    """Write ``<stream>.bin`` files, an optional census, extra files and ``manifest.json`` atomically."""
    files: dict[str, bytes | Callable[[BinaryIO], None]] = {f"{n}.bin": d for n, d in streams.items()}
    if census is not None:
        files[CENSUS_FILE] = census
    files.update(extra or {})
    written = {n: content_digest(d) for n, d in files.items() if isinstance(d, bytes | bytearray | memoryview)}
    files[MANIFEST_FILE] = (json.dumps({**manifest, "tool": MANIFEST_TOOL, WRITTEN_KEY: written}, indent=1)
                            + "\n").encode()
    return write_output_dir(out_dir, files, stale=listed("streams", "census"))
