"""The one way dictate writes a whole file: atomically, durably, with normal permissions.

:func:`atomic_write` writes a temporary file beside the target, fsyncs it, renames it over the
target and fsyncs the folder, so a reader (or the next start after a crash) sees either the old
file or the new one, never half of each. On any failure the temporary file is removed and the
exception propagates: the caller decides what to tell the user, and the old file is untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``.

    A new file gets the permissions any program would give it (0666 less the umask; the
    temporary file's private 0600 is not kept); an existing file keeps its permissions. A
    symbolic link is followed: the file it points to is replaced, and the link stays.
    """
    path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if os.name == "posix":
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """:func:`atomic_write` of ``text`` as UTF-8."""
    atomic_write(path, text.encode("utf-8"))


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (POSIX; a no-op elsewhere)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
