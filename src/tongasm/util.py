"""Small shared helpers: reading large inputs without copies, atomic file and directory output.

Inputs: :func:`read_buffer` memory-maps a bundle stream (read-only) instead of reading it, so a
stream of gigabytes costs address space, not a copy in memory.

Outputs are written to a temporary file or directory beside the target and moved into place only
when everything succeeded, so an error never leaves a partial file behind. Content can be given as
bytes or as a function that writes it piece by piece to the open temporary file (for outputs too
large to build in memory first).
"""

from __future__ import annotations

import mmap
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO
from collections.abc import Callable, Iterable, Mapping

from .errors import InputError

Content = bytes | bytearray | memoryview | Callable[[BinaryIO], None]


def read_buffer(path: str | os.PathLike[str]) -> memoryview | bytes:
    """The bytes of a file without copying them: a read-only memory map of a regular, non-empty file
    (as a :class:`memoryview`); otherwise (an empty file, a pipe, a device, a file system that
    cannot map) the file read whole. Raises :class:`OSError` like :func:`open`.

    The map lives as long as the view (or any numpy array or slice made from it) is referenced.
    """
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_size > 0:
            try:
                return memoryview(mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ))
            except (OSError, ValueError):
                pass  # cannot map here: fall back to reading
        return fh.read()


def drop_pages(buf: object, start: int, stop: int) -> None:
    """Let the OS drop the pages of bytes ``[start, stop)`` of a mapped buffer (from
    :func:`read_buffer`) that a sequential reader is done with, so a long pass over a huge stream does
    not keep the whole file resident. The bytes stay readable (a later access reads them again); a
    buffer that is not a memory map is left alone."""
    mm = getattr(buf, "obj", None)
    if not isinstance(mm, mmap.mmap) or not hasattr(mm, "madvise"):
        return
    page = mmap.PAGESIZE
    a = -(-start // page) * page
    b = len(mm) if stop >= len(mm) else stop // page * page
    if b > a:
        try:
            mm.madvise(mmap.MADV_DONTNEED, a, b - a)
        except (OSError, ValueError, AttributeError):
            pass


def read_head(path: str | os.PathLike[str], n: int = 64) -> bytes:
    """The first ``n`` bytes of a file (to sniff its kind without reading it all)."""
    with open(path, "rb") as fh:
        return fh.read(n)


def atomic_write(path: Path, data: Content) -> None:
    """Write ``data`` (bytes, or a function that writes to an open binary file) to ``path`` via a
    temporary file in the same directory and a rename; on any error the temporary file is removed
    and ``path`` is left as it was."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=parent)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if callable(data):
                data(fh)
            else:
                fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # the mode open() would give (mkstemp makes it private)
        os.replace(tmp, path)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_output_dir(out_dir: str | os.PathLike[str], files: Mapping[str, Content],
                     stale: Iterable[str] = ()) -> list[Path]:
    """Write ``files`` (name → bytes) into ``out_dir`` atomically.

    A file's content is bytes, or a function that writes it to an open binary file (for outputs too
    large to build in memory first). Everything is written into a temporary directory beside
    ``out_dir`` first and then moved in: a new ``out_dir`` appears in one rename, complete; into an
    existing one each file is renamed over its old version. On an error the temporary directory is
    removed and ``out_dir`` is left as it was.
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
        if not out.exists() and _rename_dir(tmp, out):
            return [out / fname for fname in files]
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


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _rename_dir(tmp: Path, out: Path) -> bool:
    """Move a finished temporary directory to the (absent) ``out`` in one step, with the permissions
    a plain mkdir would have given it; False when that cannot be done (the caller moves file by file)."""
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        os.rename(tmp, out)
    except OSError:
        return False
    return True


class paused_gc:
    """Pause the cyclic garbage collector for a bulk job (a context manager).

    Encoding a million instructions allocates millions of short-lived objects that are never in
    cycles; generation-2 collections would rescan the whole IR again and again. Reference counting
    still frees everything as usual; the collector resumes afterwards.
    """

    def __enter__(self) -> paused_gc:
        import gc

        self.was_enabled = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        import gc

        if self.was_enabled:
            gc.enable()
