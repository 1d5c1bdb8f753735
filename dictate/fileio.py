"""The one way dictate writes a whole file: atomically, durably, with normal permissions.

:func:`atomic_write` writes a temporary file beside the target, fsyncs it, renames it over the
target and fsyncs the folder, so a reader (or the next start after a crash) sees either the old
file or the new one, never half of each. On any failure the temporary file is removed and the
exception propagates: the caller decides what to tell the user, and the old file is untouched.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: Path, data: bytes, *, keep_read_only: bool = True) -> None:
    """Replace ``path`` with ``data``.

    A new file gets the permissions any program would give it (0666 less the umask; the
    temporary file's private 0600 is not kept); an existing file keeps its permissions. A
    symbolic link is followed: the file it points to is replaced, and the link stays.

    Raises:
        PermissionError: ``path`` exists and is read-only (unless ``keep_read_only`` is False:
            the app's own files, which a strict umask may have created without write
            permission): this process may not write it, or (as for root, who may write
            anything) it has no write permission for anyone. A rename in a writable folder
            would otherwise replace a file its owner protected.
        OSError: Any other failure to write; the old file is untouched.
    """
    path = Path(os.path.realpath(path))
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    else:
        if keep_read_only and (not mode & 0o222 or not os.access(path, os.W_OK)):
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
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


@dataclass(frozen=True)
class TextFormat:
    """How a text file was written, so that saving it again keeps it that way: its line breaks
    (the editor works with ``\\n``) and a UTF-8 byte-order mark. Saving a Windows file used to
    turn its CRLF line breaks into LF, and drop the mark, without a word.

    Attributes:
        newline: ``"\\n"``, ``"\\r\\n"`` or ``"\\r"``: the most frequent in the file.
        bom: Whether the file starts with the UTF-8 byte-order mark.
    """

    newline: str = "\n"
    bom: bool = False

    @classmethod
    def of(cls, data: bytes) -> TextFormat:
        crlf = data.count(b"\r\n")
        lf = data.count(b"\n") - crlf
        cr = data.count(b"\r") - crlf
        newline = "\r\n" if crlf > max(lf, cr) else "\r" if cr > lf else "\n"
        return cls(newline, data.startswith(codecs.BOM_UTF8))

    @staticmethod
    def decode(data: bytes) -> str:
        """The text with ``\\n`` line breaks and no byte-order mark.

        Raises:
            UnicodeDecodeError: Not UTF-8.
        """
        return data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")

    def encode(self, text: str) -> bytes:
        """``text`` (``\\n`` line breaks) as this format's bytes."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")
