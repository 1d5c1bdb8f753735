"""The one way dictate writes a whole file: atomically, durably, with normal permissions; and
how it makes and reads its own files: private, and checked before they are parsed.

:func:`atomic_write` writes a temporary file beside the target, fsyncs it, renames it over the
target and fsyncs the folder, so a reader (or the next start after a crash) sees either the old
file or the new one, never half of each. On any failure the temporary file is removed and the
exception propagates: the caller decides what to tell the user, and the old file is untouched.

The app's own files hold what the user said (the journal, the log, copies of damaged journals)
or how they work (the settings): :func:`private_dir` and ``private=True`` make them readable by
this user only (folders 0700, files 0600), whatever the umask. :func:`read_regular` reads a file
only if it is a regular file of a sane size (a FIFO would hang the read, ``/dev/zero`` would
fill the memory), and :func:`check_json_depth` refuses JSON nested too deep for the parser
(a 100,000-deep array crashes it with a RecursionError).
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def atomic_write(
    path: Path, data: bytes, *, keep_read_only: bool = True, private: bool = False
) -> None:
    """Replace ``path`` with ``data``.

    A new file gets the permissions any program would give it (0666 less the umask; the
    temporary file's private 0600 is not kept); an existing file keeps its permissions. With
    ``private`` (the app's own files) it is 0600 either way. A symbolic link is followed (the
    file it points to is replaced, and the link stays), unless ``private``: the app's own files
    are never links, so a link there is replaced by the file and what it pointed to is left
    alone (a ``vocabulary.jsonl`` linked to another file had that file overwritten and made
    0600).

    Raises:
        PermissionError: ``path`` exists and is read-only (unless ``keep_read_only`` is False:
            the app's own files, which a strict umask may have created without write
            permission): this process may not write it, or (as for root, who may write
            anything) it has no write permission for anyone. A rename in a writable folder
            would otherwise replace a file its owner protected.
        OSError: Any other failure to write; the old file is untouched.
    """
    path = (
        Path(os.path.realpath(path.parent)) / path.name if private else Path(os.path.realpath(path))
    )
    try:
        info = path.stat(follow_symlinks=not private)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISLNK(info.st_mode):
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "it is a folder, not a file", str(path))
        # A device or a named pipe (`-o /dev/null`, `-o fifo`) takes the data as a stream: a
        # rename would put a regular file in its place (as root, in place of /dev/null).
        with open(path, "wb") as stream:
            stream.write(data)
        return
    if info is None:
        mode = 0o666 & ~_umask()
    else:
        mode = info.st_mode & 0o7777
        if keep_read_only and (not mode & 0o222 or not os.access(path, os.W_OK)):
            raise PermissionError(errno.EACCES, "the file is read-only", str(path))
    if private:
        mode = PRIVATE_FILE
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


def atomic_write_text(path: Path, text: str, *, private: bool = False) -> None:
    """:func:`atomic_write` of ``text`` as UTF-8."""
    atomic_write(path, text.encode("utf-8"), private=private)


def private_dir(path: Path) -> Path:
    """Make the app's own folder ``path`` (and missing parents, as ``mkdir -p`` would, but 0700:
    ``journal/audio`` made again after the data folder was removed made the data folder 0755)
    and make ``path`` itself 0700 if this user owns it: a folder made by an older version
    (0755) is closed too. Parents that existed are left as they are (they are the user's).

    Raises:
        OSError: The folder cannot be made.
    """
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):  # mkdir -p made them 0755: the data folder, made again
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR)
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    if os.name == "posix":
        info = path.stat()
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) != PRIVATE_DIR:
            with contextlib.suppress(OSError):  # a read-only filesystem: nothing to close
                os.chmod(path, PRIVATE_DIR)
    return path


def make_private(path: Path) -> None:
    """Make an existing file of the app's 0600 (an older version left it 0644); a file that is
    not there, or not this user's, is left alone."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        info = os.stat(path)
        if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o077)


def names_open_file(path: Path, fh: Any) -> bool:
    """Whether ``path`` still names the file open as ``fh`` (not deleted, not replaced: the data
    folder removed while the app ran, its filesystem unmounted). One stat and one fstat."""
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fh.fileno())
    return (now.st_dev, now.st_ino) == (opened.st_dev, opened.st_ino) and opened.st_nlink > 0


def open_private(path: Path, mode: str = "ab") -> Any:
    """Open the app's own file ``path`` for appending (``"ab"``, ``"a"``): created 0600, and
    made 0600 if it was not.

    Raises:
        OSError: It cannot be opened; ELOOP where it is a symbolic link: the app's own files
            are never links, and records appended through one went to the file it named."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, PRIVATE_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symbolic link, and the app writes its own "
                          "files only in place, never through a link: move the link away",
                          str(path)) from None  # fmt: skip
        raise
    try:
        if os.name == "posix":
            info = os.fstat(fd)
            if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
                os.fchmod(fd, PRIVATE_FILE)
        if "b" in mode:
            return os.fdopen(fd, mode)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


class UnreadableFile(ValueError):
    """A file that must not be read as it is: not a regular file, too big, or nested too deep.
    ``str()`` says what it is, in words for a message."""


def describe_file_type(mode: int) -> str:
    """What a non-regular file is, in words (``stat.S_IFMT`` of ``mode``)."""
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((words for test, words in kinds if test(mode)), "not a regular file")


def open_regular(path: Path, *, follow: bool = True) -> BinaryIO:
    """``path`` open for reading, only if it is a regular file (a symbolic link to one is
    followed, unless ``follow`` is False: for the app's own files, which are never links, so a
    link there is not the app's). It is opened without blocking, so a named pipe is refused
    instead of waiting for a writer, and checked after opening (the file read is the file
    checked).

    Raises:
        FileNotFoundError: There is no such file.
        UnreadableFile: It is not a regular file.
        OSError: It cannot be opened (ELOOP: a link, where ``follow`` is False).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode  # before fdopen, which names a folder by its descriptor
        if not stat.S_ISREG(mode):
            raise UnreadableFile(f"{path} is {describe_file_type(mode)}, not a file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


MAX_LINE = 1 << 20
"""The longest line :func:`bounded_lines` gives (bytes): a record of the app's is far shorter."""


def bounded_lines(fh: BinaryIO, limit: int = MAX_LINE) -> Iterator[bytes | None]:
    """The lines of ``fh`` as ``for line in fh`` gives them, except that a line longer than
    ``limit`` bytes is read past in pieces and given as None (damage): a damaged file of one
    1 GB line took 2.2 GB of memory and froze the window for 80 s when read whole."""
    while True:
        line = fh.readline(limit)
        if not line:
            return
        if len(line) < limit or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):  # the rest of the long line, piece by piece
            line = fh.readline(limit)
        yield None


def seek_tail(fh: BinaryIO, max_bytes: int | None) -> int:
    """Put ``fh`` at the first whole line of its last ``max_bytes`` bytes (None: at its start),
    so that a log of records far over its size is read in bounded time and memory (a 1 GB
    history froze the window for 80 s); the bytes skipped, older records."""
    size = os.fstat(fh.fileno()).st_size
    if max_bytes is None or size <= max_bytes:
        return 0
    fh.seek(size - max_bytes - 1)
    for _ in bounded_lines(fh):  # the rest of the line the cut fell in (ends at its newline)
        break
    return fh.tell()


def read_regular(path: Path, limit: int | None) -> bytes:
    """The bytes of ``path``, only if it is a regular file (a symbolic link to one is followed)
    of at most ``limit`` bytes (None: any size).

    Opened with :func:`open_regular`; a file that grows past ``limit`` while it is read is
    refused too.

    Raises:
        FileNotFoundError: There is no such file.
        UnreadableFile: It is not a regular file, or bigger than ``limit``.
        OSError: It cannot be read.
    """
    with open_regular(path) as fh:
        info = os.fstat(fh.fileno())
        if limit is not None and info.st_size > limit:
            raise UnreadableFile(
                f"{path} is {info.st_size:,} bytes, more than the {limit:,} it may have"
            )
        data = fh.read() if limit is None else fh.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise UnreadableFile(f"{path} grew past the {limit:,} bytes it may have")
    return data


_JSON_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


def json_depth(text: str) -> int:
    """How deeply ``text`` (JSON) nests arrays and objects, counted without parsing it: the
    strings are taken out first (brackets in them do not count), then the brackets counted."""
    deepest = depth = 0
    for char in _JSON_STRINGS.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def check_json_depth(text: str, limit: int, what: Path | str) -> None:
    """Refuse JSON that nests deeper than ``limit`` before it is parsed.

    Raises:
        UnreadableFile: It does; ``what`` (a file, a record) is named in the message.
    """
    depth = json_depth(text)
    if depth > limit:
        raise UnreadableFile(f"{what} nests {depth:,} levels deep (at most {limit} are allowed)")


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
