"""Small shared helpers: atomic file and directory output.

Outputs are written to a temporary file or directory beside the target and moved into place only
when everything succeeded, so an error never leaves a partial file behind.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterable, Mapping, Union

from .errors import InputError


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and a rename."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=parent)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


Content = Union[bytes, bytearray, memoryview, Callable[[BinaryIO], None]]


def write_output_dir(out_dir: str | os.PathLike[str], files: Mapping[str, Content],
                     stale: Iterable[str] = ()) -> list[Path]:
    """Write ``files`` (name → bytes) into ``out_dir`` atomically.

    A file's content is bytes, or a function that writes it to an open binary file (for outputs too
    large to build in memory first). Everything is written into a temporary directory beside
    ``out_dir`` first and then moved in.
    Names in ``stale`` that this call does not produce are removed from ``out_dir``, so the
    directory matches what was just written.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"output path {out} exists and is not a directory")
    parent = out.parent if str(out.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    except OSError as e:
        raise InputError(f"cannot create output directory {out}: {e.strerror or e}") from None
    written: list[Path] = []
    try:
        for fname, data in files.items():
            with open(tmp / fname, "wb") as fh:
                if callable(data):
                    data(fh)
                else:
                    fh.write(data)
        out.mkdir(exist_ok=True)
        for fname in files:
            os.replace(tmp / fname, out / fname)
            written.append(out / fname)
        for name in stale:
            if name not in files and (out / name).is_file():
                (out / name).unlink()
    except OSError as e:
        raise InputError(f"cannot write to {out}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return written


class paused_gc:
    """Pause the cyclic garbage collector for a bulk job (a context manager).

    Encoding a million instructions allocates millions of short-lived objects that are never in
    cycles; generation-2 collections would rescan the whole IR again and again. Reference counting
    still frees everything as usual; the collector resumes afterwards.
    """

    def __enter__(self) -> "paused_gc":
        import gc

        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.was_enabled:
            gc.enable()
