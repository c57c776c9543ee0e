"""The NEFF package's error: an unusable NEFF (or unpacked NEFF directory) is exit code 2."""

from __future__ import annotations

from ..errors import InputError


class NeffError(InputError):
    """A NEFF that cannot be used: bad header, truncated, bad gzip or tar, unsafe member names,
    members that are not what the format says, an unsupported target. The message names the file,
    the member or field and what is wrong. Exit code 2 (unusable input)."""

    exit_code = 2
