"""Talking to the running app from another process, without Qt (``dictate toggle``, a second
launch): where the one instance listens, and :func:`send_command`.

The app (:class:`dictate.ui.instance.InstanceServer`) listens with ``QLocalServer`` on
:func:`instance_address`. The protocol is one line per connection: the client sends a command
word and a line break, the app answers one line, ``ok`` or ``error <why>``, and closes.

On Unix the address is a full path, on which ``QLocalServer`` listens with a plain ``AF_UNIX``
socket, so the client here is Python's :mod:`socket`. On Windows the address is a pipe name
(``\\\\.\\pipe\\<name>``) and the client is ``QLocalSocket`` (imported only there; untested).
"""

from __future__ import annotations

import getpass
import os
import re
import socket
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
_MAX_UNIX_PATH = 100  # sockaddr_un holds 104 (macOS) to 108 (Linux) bytes


class InstanceNotResponding(DictateError):
    """Something listens on the instance address but did not answer in time."""


def instance_address() -> str:
    """Where the one running instance listens, the same for the app and its clients.

    ``$DICTATE_INSTANCE_ADDRESS`` if set. On Unix a full path: ``dictate.sock`` in
    ``$XDG_RUNTIME_DIR`` where that is a directory of this user, else ``dictate-<uid>.sock``
    in the temporary directory (macOS: the per-user ``$TMPDIR``). On Windows a pipe name with
    the user name in it.
    """
    override = os.environ.get(ADDRESS_ENV)
    if override:
        return override
    if sys.platform == "win32":
        user = re.sub(r"[^A-Za-z0-9_.-]", "_", _user_name()) or "user"
        return f"{APP_NAME}-{user}"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and _own_directory(runtime):
        path = os.path.join(runtime, f"{APP_NAME}.sock")
        if len(os.fsencode(path)) <= _MAX_UNIX_PATH:
            return path
    return os.path.join(tempfile.gettempdir(), f"{APP_NAME}-{os.getuid()}.sock")


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError, ImportError):
        return ""


def _own_directory(path: str) -> bool:
    try:
        info = os.stat(path)
    except OSError:
        return False
    return os.path.isdir(path) and info.st_uid == os.getuid()


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
    (:class:`dictate.ui.instance.DataFolderClaim`)."""
    return user_data_dir() / "instance.address"


def recorded_address() -> str | None:
    """The address written to :func:`address_file`, if any (its app may have gone since)."""
    try:
        text = address_file().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and "\n" not in text else None


def _send_unix(path: str, line: bytes, timeout: float) -> str | None:
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
