"""Talking to the running app from another process, without Qt (``dictate toggle``, a second
launch): where the one instance listens, and :func:`send_command`.

The app (:class:`dictate.ui.instance_server.InstanceServer`) listens with ``QLocalServer`` on
:func:`instance_address`. The protocol is one line per connection: the client sends a command
word and a line break, the app answers one line, ``ok`` or ``error <why>``, and closes.

On Unix the address is a full path, on which ``QLocalServer`` listens with a plain ``AF_UNIX``
socket, so the client here is Python's :mod:`socket`. On Windows the address is a pipe name
(``\\\\.\\pipe\\<name>``) and the client is ``QLocalSocket`` (imported only there; untested).

Whoever listens on the address receives the user's commands, so on Unix the socket must lie in
a folder no other user can write to (:func:`folder_problem`), and the client connects only to a
socket of this user (another user may have bound the address first): see
:class:`UnsafeInstanceAddress`.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import stat
import sys
import tempfile
import time
from pathlib import Path

from dictate.errors import DictateError
from dictate.paths import APP_NAME, user_data_dir

COMMANDS = ("toggle", "start", "stop", "show", "quit", "reload")
"""What the running app carries out: start or stop dictation, bring its window up, quit, read
the settings file again (after ``dictate devices --use`` changed it)."""
PING = "ping"
"""Answered ``ok`` by the app itself (nothing is carried out): is it there and answering?"""
MAX_LINE = 100
"""The longest command line (bytes, without its line break) the app reads."""
ADDRESS_ENV = "DICTATE_INSTANCE_ADDRESS"
"""Overrides :func:`instance_address` (tests; two separate instances side by side)."""
SOCKET_NAME = f"{APP_NAME}.sock"
"""The socket's file name in the folder :func:`instance_address` chooses."""
_MAX_UNIX_PATH = 100  # sockaddr_un holds 104 (macOS) to 108 (Linux) bytes


class InstanceNotResponding(DictateError):
    """Something listens on the instance address but did not answer in time."""


class UnsafeInstanceAddress(DictateError):
    """The instance address is a socket of another user, or lies in a folder another user
    controls: whoever listens there would receive this user's commands, so none is sent."""


def instance_address() -> str:
    """Where the one running instance listens, the same for the app and its clients.

    ``$DICTATE_INSTANCE_ADDRESS`` if set. On Unix a full path, ``dictate.sock`` in the first
    private folder of this user (its own, no permissions for group or others; see
    :func:`private_folder_problem`) of: ``$XDG_RUNTIME_DIR``; ``dictate-<uid>`` in the
    temporary directory (macOS: the per-user ``$TMPDIR``), made by the app where it is missing;
    ``run`` in the user's cache folder, in case another user took the name in the shared
    temporary directory first. On Windows a pipe name with the user name in it.
    """
    override = os.environ.get(ADDRESS_ENV)
    if override:
        return override
    if sys.platform == "win32":
        user = re.sub(r"[^A-Za-z0-9_.-]", "_", _user_name()) or "user"
        return f"{APP_NAME}-{user}"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and private_folder_problem(runtime) is None:
        path = os.path.join(runtime, SOCKET_NAME)
        if _fits(path):
            return path
    fallbacks = _fallback_folders()
    for folder in fallbacks:
        path = os.path.join(folder, SOCKET_NAME)
        if _fits(path) and (not os.path.lexists(folder) or private_folder_problem(folder) is None):
            return path
    # None will do: the first one, which the client and the app refuse, saying why.
    return os.path.join(fallbacks[0], SOCKET_NAME)


def _fallback_folders() -> list[str]:
    """Where the socket goes without a usable ``$XDG_RUNTIME_DIR``: a folder of this user's own
    in the temporary directory (on this machine only, unlike a home folder shared over the
    network), else one in the user's cache folder."""
    from platformdirs import user_cache_path

    cache = user_cache_path(APP_NAME, appauthor=False) / "run"
    return [os.path.join(tempfile.gettempdir(), f"{APP_NAME}-{os.geteuid()}"), str(cache)]


def _fits(path: str) -> bool:
    return len(os.fsencode(path)) <= _MAX_UNIX_PATH


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return ""


def private_folder_problem(path: str) -> str | None:
    """Why ``path`` is not a private folder of this user (not a folder, a link, another user's,
    or open to group or others), or None if it is one. Such a folder is where the socket may go
    by default: no one else can put a socket there or read what is in it."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder" + (" but a symbolic link" if stat.S_ISLNK(info.st_mode) else "")
    if info.st_uid != os.geteuid():
        return f"belongs to {describe_user(info.st_uid)}, not to you ({describe_user()})"
    if info.st_mode & 0o077:
        return f"is open to other users (permissions {stat.S_IMODE(info.st_mode):o}, not 700)"
    return None


def folder_problem(path: str) -> str | None:
    """Why another user could control what is in the folder ``path``, or None if no one can.

    A socket's folder must be this user's and not writable by group or others; or root's (the
    temporary directory itself, for a bare name) and either not writable by others or sticky,
    where no one may remove or rename another's file. Otherwise its owner, or anyone who can
    write to it, could replace this user's socket between the client's check and its connection.
    A symbolic link to the folder counts as the folder only if it is this user's or root's.
    """
    me = os.geteuid()
    try:
        link = os.lstat(path)
        info = os.stat(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (me, 0):
        return f"is a symbolic link of {describe_user(link.st_uid)}, not yours ({describe_user()})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if info.st_uid not in (me, 0):
        return f"belongs to {describe_user(info.st_uid)}, not to you ({describe_user()})"
    writable_by_others = info.st_mode & 0o022
    if writable_by_others and not (info.st_uid == 0 and info.st_mode & stat.S_ISVTX):
        return (
            f"can be written to by other users (permissions {stat.S_IMODE(info.st_mode):o}, "
            "not 700)"
        )
    return None


def describe_user(uid: int | None = None) -> str:
    """``user alice (uid 1001)`` for messages; this process's user by default."""
    uid = os.geteuid() if uid is None else uid
    try:
        import pwd

        return f"user {pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


def socket_path(address: str) -> Path:
    """The file a Unix address names (``QLocalServer`` puts a bare name in the temp folder)."""
    return Path(address if os.path.isabs(address) else os.path.join(tempfile.gettempdir(), address))


def send_command(command: str, timeout: float = 5.0, address: str | None = None) -> str | None:
    """Send one command to the running app and return its answer line (``"ok"``, or
    ``"error ..."``), without its line break.

    Args:
        command: One of :data:`COMMANDS`, or :data:`PING`.
        timeout: Seconds to wait for the connection and the answer together.
        address: Where to connect. By default :func:`instance_address`, and where nothing
            answers there, the address the running app recorded in the data folder
            (:func:`recorded_address`): a shell whose ``$XDG_RUNTIME_DIR`` differs from the app's
            still reaches it.

    Returns:
        The answer, or None when no instance is running there (no socket, or a stale one left by
        an instance that crashed).

    Raises:
        InstanceNotResponding: An instance is there but did not answer within ``timeout``, or
            closed the connection without an answer (it is starting up, busy, or quitting).
        UnsafeInstanceAddress: The socket, or its folder, is another user's (Unix): nothing was
            sent, as it would reach whoever listens there.
        ValueError: ``command`` is not one word that fits on a line.
    """
    if not re.fullmatch(r"[a-z]+", command) or len(command) > MAX_LINE:
        raise ValueError(f"not a command word: {command!r}")
    line = (command + "\n").encode("ascii")
    if address is not None:
        return _send(address, line, timeout)
    here = instance_address()
    reply = _send(here, line, timeout)
    if reply is None:
        recorded = recorded_address()
        if recorded and recorded != here:
            # The app runs, but this environment names another address (XDG_RUNTIME_DIR differs).
            reply = _send(recorded, line, timeout)
    return reply


def _send(address: str, line: bytes, timeout: float) -> str | None:
    if sys.platform == "win32":
        return _send_qt(address, line, timeout)
    return _send_unix(str(socket_path(address)), line, timeout)


def address_file() -> Path:
    """Where the app that holds the data folder writes the address it listens on
    (:class:`dictate.ui.data_folder_claim.DataFolderClaim`)."""
    return user_data_dir() / "instance.address"


def recorded_address() -> str | None:
    """The address written to :func:`address_file`, if any (its app may have gone since)."""
    try:
        text = address_file().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and "\n" not in text else None


def check_socket(path: str) -> bool:
    """Whether there is a socket of this user at ``path`` to connect to (False: nothing there,
    or a file that is no socket, which nobody listens on).

    Checked with ``lstat`` (a link is not followed) before connecting: the folder is this user's
    or root's and no one else can replace what is in it (:func:`folder_problem`), so the socket
    checked is the one connected to.

    Raises:
        UnsafeInstanceAddress: The folder or the socket is another user's, or the socket is a
            symbolic link (it may lead to anyone's socket).
    """
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        return False  # nothing there (a missing folder, or a file in the way)
    problem = folder_problem(folder)
    if problem:
        raise UnsafeInstanceAddress(
            f"not sending the command to dictate at {path}: its folder {folder} {problem}, so "
            "another user's program could be listening there; use a private folder: set "
            "XDG_RUNTIME_DIR to a folder of yours with permissions 700 (or have the folder's "
            "owner or root remove it)"
        )
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if info.st_uid != os.geteuid():
        raise UnsafeInstanceAddress(
            f"not sending the command to dictate at {path}: that socket belongs to "
            f"{describe_user(info.st_uid)}, not to you ({describe_user()}), so it is not your "
            "dictate listening there; have its owner or root remove it, or set XDG_RUNTIME_DIR "
            "to a private folder of yours"
        )
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeInstanceAddress(
            f"not sending the command to dictate at {path}: it is a symbolic link, not the "
            "socket dictate makes; remove it"
        )
    return stat.S_ISSOCK(info.st_mode)


def _send_unix(path: str, line: bytes, timeout: float) -> str | None:
    if not check_socket(path):
        return None
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
            return None  # nothing there, or a socket file nobody listens on
        except TimeoutError as exc:  # the app's backlog is full: it is there but stuck
            raise InstanceNotResponding(f"dictate at {path} did not accept the connection") from exc
        except OSError as exc:  # a socket of another user, a path too long...
            raise InstanceNotResponding(f"cannot connect to dictate at {path}: {exc}") from exc
        answer = b""
        try:
            sock.sendall(line)
            while b"\n" not in answer and len(answer) <= MAX_LINE:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                sock.settimeout(left)
                chunk = sock.recv(256)
                if not chunk:
                    break
                answer += chunk
        except TimeoutError as exc:
            raise InstanceNotResponding(
                f"dictate at {path} did not answer within {timeout:g} s"
            ) from exc
        except OSError as exc:  # reset or broken pipe: it went away mid-way (quitting)
            raise InstanceNotResponding(f"dictate at {path} closed the connection: {exc}") from exc
    if b"\n" not in answer:
        raise InstanceNotResponding(f"dictate at {path} closed the connection without an answer")
    return answer.split(b"\n", 1)[0].decode("utf-8", errors="replace")


def _send_qt(address: str, line: bytes, timeout: float) -> str | None:
    """The client through ``QLocalSocket`` (Windows named pipes; works on Unix too). Its blocking
    calls need no event loop and no application object."""
    from PySide6.QtNetwork import QLocalSocket

    deadline = time.monotonic() + timeout

    def left_ms() -> int:
        return max(0, int(1000 * (deadline - time.monotonic())))

    sock = QLocalSocket()
    sock.connectToServer(address)
    if not sock.waitForConnected(left_ms()):
        error = sock.error()
        missing = (
            QLocalSocket.LocalSocketError.ServerNotFoundError,
            QLocalSocket.LocalSocketError.ConnectionRefusedError,
        )
        if error in missing:
            return None
        raise InstanceNotResponding(f"cannot connect to dictate at {address}: {sock.errorString()}")
    try:
        sock.write(line)
        sock.waitForBytesWritten(left_ms())
        answer = b""
        while b"\n" not in answer and len(answer) <= MAX_LINE:
            waited = sock.bytesAvailable() > 0 or sock.waitForReadyRead(left_ms())
            chunk = bytes(sock.readAll().data())  # also what came with the server's close
            answer += chunk
            if not waited and not chunk:
                break
    finally:
        sock.abort()
    if b"\n" not in answer:
        raise InstanceNotResponding(f"dictate at {address} did not answer within {timeout:g} s")
    return answer.split(b"\n", 1)[0].decode("utf-8", errors="replace")
