"""One running instance: the app listens on :func:`dictate.instance_client.instance_address`
and carries out commands from other processes (``dictate toggle``, a second launch that only
says ``show``).

The protocol is in :mod:`dictate.instance_client` (its client is there too, without Qt).
"""

from __future__ import annotations

import logging
import os
import stat
import sys
import tempfile
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from dictate.instance_client import (
    COMMANDS,
    MAX_LINE,
    PING,
    describe_user,
    folder_problem,
    instance_address,
    socket_path,
)

__all__ = ["InstanceServer", "instance_address"]

log = logging.getLogger("dictate.ui")

CLIENT_TIMEOUT_MS = 3000
"""A client that has not sent its whole line by then, counted from its connection, is
disconnected, however it dribbles its bytes."""
FIRST_BYTE_TIMEOUT_MS = 1000
"""A client that has sent nothing by then is disconnected (``dictate toggle`` sends its line at
once; a connection that only waits holds a slot for nothing)."""
MAX_CLIENTS = 16
"""Connections served at once. A newcomer beyond that takes the slot of the oldest one that has
not sent its line yet (a local program gone wrong), so a real command always gets through."""
_PROBE_TIMEOUT_MS = 1000


class InstanceServer(QObject):
    """The app's end of the one-instance socket.

    Each connection may send one line, a command word (:data:`dictate.instance_client.COMMANDS`, or
    ``ping``), and gets one line back: ``ok``, or ``error <why>`` for an unknown command, a line
    too long or one that never ends in time, a connection pushed out by newer ones while it had
    not sent its line, or a command :attr:`refusal` refuses. A known
    command (not ``ping``) is then emitted as :attr:`commandReceived` on this object's (the GUI)
    thread, from the event loop, after the answer is on its way: what it does may take a while
    (a dialog), and the client should not wait.

    Args:
        address: Where to listen (default :func:`dictate.instance_client.instance_address`).
        parent: The Qt parent.
        client_timeout_ms: How long a client may take to send its line, from its connection.
        first_byte_timeout_ms: How long a client may take to send its first byte.
    """

    commandReceived = Signal(str)

    def __init__(
        self,
        address: str | None = None,
        parent: QObject | None = None,
        client_timeout_ms: int = CLIENT_TIMEOUT_MS,
        first_byte_timeout_ms: int = FIRST_BYTE_TIMEOUT_MS,
    ) -> None:
        super().__init__(parent)
        self.address = address or instance_address()
        self.client_timeout_ms = client_timeout_ms
        self.first_byte_timeout_ms = min(first_byte_timeout_ms, client_timeout_ms)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_new_connection)
        self._clients: set[_Client] = set()
        self._evicted_logged = False  # one warning, not one a connection (a flood)
        self.refusal: Callable[[str], str | None] | None = None
        """Why a command would be refused now (answered ``error <why>``; it is still emitted,
        and the window says why too), or None; the app sets this once its window is up."""

    @property
    def clients(self) -> int:
        """Connections open now (at most :data:`MAX_CLIENTS`)."""
        return len(self._clients)

    @property
    def listening(self) -> bool:
        """Whether this instance listens (after :meth:`listen`, unless that could not)."""
        return self._server.isListening()

    def listen(self) -> bool:
        """Take the address, unless another instance answers there.

        A socket left by an instance that crashed (nothing accepts connections on it) is removed
        first. Where listening fails for another reason (a folder that cannot be written), or
        must not be tried (the folder, or a socket there, is another user's: whoever controls it
        could take this user's commands, see :func:`dictate.instance_client.folder_problem`), that
        is logged and this still returns True: the window must open, only without remote control
        (:attr:`listening` says so).

        Returns:
            False if another running instance answers on the address (this one should hand it the
            command and quit); True otherwise.
        """
        if self._server.isListening():
            return True
        if sys.platform != "win32":
            problem = _prepare_folder(socket_path(self.address).parent)
            if problem:
                return self._cannot_listen(problem)
        lock = QLockFile(str(_lock_path(self.address)))
        locked = lock.tryLock(2000)  # two instances starting at once: one checks at a time
        if not locked:
            log.warning("cannot lock %s (%s); going on", lock.fileName(), lock.error())
        try:
            return self._listen_locked()
        finally:
            if locked:
                lock.unlock()

    def _listen_locked(self) -> bool:
        if sys.platform != "win32":
            problem = _socket_problem(socket_path(self.address))
            if problem:  # never probe another user's socket, nor replace what is not a socket
                return self._cannot_listen(problem)
        if _answers(self.address):
            return False
        QLocalServer.removeServer(self.address)  # stale: nothing answered
        if self._server.listen(self.address):
            log.info("listening for commands on %s", self._server.fullServerName())
            return True
        if _answers(self.address):  # another instance took it in between
            return False
        return self._cannot_listen(self._server.errorString())

    def _cannot_listen(self, why: str) -> bool:
        log.warning(
            "cannot listen for commands on %s (%s): `dictate toggle` and the like will not reach "
            "this window",
            self.address,
            why,
        )
        return True

    def close(self) -> None:
        """Stop listening (the socket file goes) and drop the clients."""
        self._server.close()
        for client in list(self._clients):
            client.drop("error quitting")  # its timers stop, it and its socket are deleted
        self._clients.clear()

    def _on_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            if sock is None:
                break
            if len(self._clients) >= MAX_CLIENTS and not self._evict_one():
                log.warning("too many command connections at once; closing one")
                sock.abort()
                sock.deleteLater()
                continue
            self._clients.add(_Client(self, sock))

    def _evict_one(self) -> bool:
        """Close the oldest connection that has not sent its line, making room for a newcomer:
        connections that hold slots without a command (slow, stuck, or a program gone wrong)
        must not keep ``dictate toggle`` out. False if every one has been answered already
        (they are on their way out)."""
        idle = [client for client in self._clients if not client.answered]
        if not idle:
            return False
        oldest = min(idle, key=lambda client: client.started)
        if not self._evicted_logged:
            log.warning("too many command connections at once; closing the oldest idle ones")
            self._evicted_logged = True
        oldest.drop("error too many connections")
        return True

    def _finished(self, client: _Client) -> None:
        self._clients.discard(client)

    def _handle_line(self, line: bytes) -> str:
        """The answer to one line; a command to carry out is emitted from the event loop."""
        command = line.strip().decode("utf-8", errors="replace").lower()
        if command == PING:
            return "ok"
        if command not in COMMANDS:
            shown = command if len(command) <= 20 and command.isprintable() else "(garbage)"
            log.warning("unknown command from another process: %r", shown)
            return "error unknown command"
        refused = self.refusal(command) if self.refusal is not None else None
        QTimer.singleShot(0, self, lambda: self.commandReceived.emit(command))
        return f"error {refused}" if refused else "ok"


class _Client(QObject):
    """One connection: its line, its answer, its deadlines.

    Two timers: one for the first byte (:attr:`InstanceServer.first_byte_timeout_ms`), one for
    the whole line counted from the connection (:attr:`InstanceServer.client_timeout_ms`),
    never restarted, so a client that sends a byte now and then is still gone by then.

    It refers to its server weakly: a child that held its parent would make a reference cycle,
    and the server dropped with connections still open (closing the app) would then be deleted
    by the garbage collector, in whichever thread happens to run it, while Qt still works on
    its children in the GUI thread (seen crashing in ``QObject::~QObject``).
    """

    def __init__(self, server: InstanceServer, sock: QLocalSocket) -> None:
        super().__init__(server)
        self._server = weakref.ref(server)
        self.socket = sock
        self.started = time.monotonic()
        """When it connected (the oldest idle one makes room for a newcomer)."""
        self.answered = False
        self._buffer = b""
        self._done = False
        self._timer = self._deadline(server.client_timeout_ms)
        self._first_byte_timer = self._deadline(server.first_byte_timeout_ms)
        sock.readyRead.connect(self._on_ready_read)
        sock.disconnected.connect(self._on_disconnected)
        if sock.bytesAvailable():
            self._on_ready_read()

    def _deadline(self, ms: int) -> QTimer:
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(self._on_timeout)
        timer.start(ms)
        return timer

    def _on_ready_read(self) -> None:
        data = bytes(self.socket.readAll().data())
        if self.answered:
            return  # one line per connection: the rest is ignored
        if data:
            self._first_byte_timer.stop()
        self._buffer += data
        line, newline, _ = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            self._answer("error line too long")
        elif newline:
            server = self._server()
            self._answer(server._handle_line(line) if server is not None else "error quitting")

    def _on_timeout(self) -> None:
        self.drop("error no command in time")

    def drop(self, why: str) -> None:
        """Close the connection now, telling the client ``why`` where it has no answer yet."""
        if not self.answered:
            self._answer(why)
        self.socket.abort()  # the answer did not go out in time either
        self._on_disconnected()

    def _answer(self, text: str) -> None:
        self.answered = True
        self._buffer = b""
        self.socket.write((text + "\n").encode("utf-8"))
        self.socket.flush()  # out now, not when the event loop next runs (a slot may hold it)
        self.socket.disconnectFromServer()  # after the rest of the answer is written

    def _on_disconnected(self) -> None:
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self._first_byte_timer.stop()
        server = self._server()
        if server is not None:
            server._finished(self)
        self.socket.deleteLater()
        self.deleteLater()


def _answers(address: str) -> bool:
    """Whether something accepts connections on ``address`` (a running instance, even one too
    busy to answer yet); a stale socket file refuses them."""
    probe = QLocalSocket()
    probe.connectToServer(address)
    connected = probe.waitForConnected(_PROBE_TIMEOUT_MS)
    error = probe.error()
    probe.abort()
    return connected or error == QLocalSocket.LocalSocketError.SocketTimeoutError


def _prepare_folder(folder: Path) -> str | None:
    """Make the socket's folder where it is missing (private to this user), and say why no one
    should listen in it (another user's, or writable by others), or None."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make the folder {folder}: {exc.strerror or exc}"
    problem = folder_problem(str(folder))
    if problem:
        return (
            f"the folder {folder} {problem}: a socket there could be replaced by another "
            "user's, who would then receive the commands; set XDG_RUNTIME_DIR to a private "
            "folder of yours"
        )
    return None


def _socket_problem(path: Path) -> str | None:
    """Why the app must not take over what is at ``path`` (another user's, or not a socket), or
    None (nothing there, or a socket of this user's)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if info.st_uid != os.geteuid():
        return f"{path} belongs to {describe_user(info.st_uid)}, not to you ({describe_user()})"
    if not stat.S_ISSOCK(info.st_mode):
        return f"{path} is not a socket"
    return None


def _lock_path(address: str) -> Path:
    if sys.platform != "win32":
        return Path(str(socket_path(address)) + ".lock")
    return Path(tempfile.gettempdir()) / (os.path.basename(address) + ".lock")
