"""One running instance: the app listens on :func:`dictate.control.instance_address` and carries
out commands from other processes (``dictate toggle``, a second launch that only says ``show``).

The protocol is in :mod:`dictate.control` (its client is there too, without Qt).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from dictate.control import (
    COMMANDS,
    MAX_LINE,
    PING,
    address_file,
    instance_address,
    socket_path,
)
from dictate.fileio import atomic_write_text

__all__ = ["DataFolderClaim", "InstanceServer", "instance_address"]

log = logging.getLogger("dictate.ui")

CLIENT_TIMEOUT_MS = 3000
"""A client that has not sent its line by then is disconnected."""
MAX_CLIENTS = 16
"""Connections served at once; more are closed at once (a local program gone wrong)."""
_PROBE_TIMEOUT_MS = 1000


class InstanceServer(QObject):
    """The app's end of the one-instance socket.

    Each connection may send one line, a command word (:data:`dictate.control.COMMANDS`, or
    ``ping``), and gets one line back: ``ok``, or ``error <why>`` for an unknown command, a line
    too long or one that never ends in time, or a command :attr:`refusal` refuses. A known
    command (not ``ping``) is then emitted as :attr:`commandReceived` on this object's (the GUI)
    thread, from the event loop, after the answer is on its way: what it does may take a while
    (a dialog), and the client should not wait.

    Args:
        address: Where to listen (default :func:`dictate.control.instance_address`).
        parent: The Qt parent.
        client_timeout_ms: How long a client may take to send its line.
    """

    commandReceived = Signal(str)

    def __init__(
        self,
        address: str | None = None,
        parent: QObject | None = None,
        client_timeout_ms: int = CLIENT_TIMEOUT_MS,
    ) -> None:
        super().__init__(parent)
        self.address = address or instance_address()
        self.client_timeout_ms = client_timeout_ms
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_new_connection)
        self._clients: set[_Client] = set()
        self.refusal: Callable[[str], str | None] | None = None
        """Why a command would be refused now (answered ``error <why>``; it is still emitted,
        and the window says why too), or None; the app sets this once its window is up."""

    @property
    def listening(self) -> bool:
        """Whether this instance listens (after :meth:`listen`, unless that could not)."""
        return self._server.isListening()

    def listen(self) -> bool:
        """Take the address, unless another instance answers there.

        A socket left by an instance that crashed (nothing accepts connections on it) is removed
        first. Where listening fails for another reason (a folder that cannot be written), that is
        logged and this still returns True: the window must open, only without remote control
        (:attr:`listening` says so).

        Returns:
            False if another running instance answers on the address (this one should hand it the
            command and quit); True otherwise.
        """
        if self._server.isListening():
            return True
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
        if _answers(self.address):
            return False
        if sys.platform != "win32":
            path = socket_path(self.address)
            try:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            except OSError as exc:
                log.warning("cannot make the folder of %s: %s", self.address, exc)
            if path.exists() and not path.is_socket():  # never replace what is not a socket
                return self._cannot_listen("it is not a socket")
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
            client.socket.abort()
        self._clients.clear()

    def _on_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            if sock is None:
                break
            if len(self._clients) >= MAX_CLIENTS:
                log.warning("too many command connections at once; closing one")
                sock.abort()
                sock.deleteLater()
                continue
            self._clients.add(_Client(self, sock))

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
    """One connection: its line, its answer, its deadline."""

    def __init__(self, server: InstanceServer, sock: QLocalSocket) -> None:
        super().__init__(server)
        self.server = server
        self.socket = sock
        self._buffer = b""
        self._answered = False
        self._done = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timeout)
        self._timer.start(server.client_timeout_ms)
        sock.readyRead.connect(self._on_ready_read)
        sock.disconnected.connect(self._on_disconnected)
        if sock.bytesAvailable():
            self._on_ready_read()

    def _on_ready_read(self) -> None:
        data = bytes(self.socket.readAll().data())
        if self._answered:
            return  # one line per connection: the rest is ignored
        self._buffer += data
        line, newline, _ = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            self._answer("error line too long")
        elif newline:
            self._answer(self.server._handle_line(line))

    def _on_timeout(self) -> None:
        if not self._answered:
            self._answer("error no command in time")
        self.socket.abort()  # the answer did not go out in time either
        self._on_disconnected()

    def _answer(self, text: str) -> None:
        self._answered = True
        self._buffer = b""
        self.socket.write((text + "\n").encode("utf-8"))
        self.socket.flush()  # out now, not when the event loop next runs (a slot may hold it)
        self.socket.disconnectFromServer()  # after the rest of the answer is written

    def _on_disconnected(self) -> None:
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self.server._finished(self)
        self.socket.deleteLater()
        self.deleteLater()


class DataFolderClaim:
    """One app per data folder (the journal, the models), whatever address it listens on.

    The instance address depends on the environment (``$XDG_RUNTIME_DIR``): two shells that
    disagree on it would start two apps, and both would write the one journal, each replacing
    the other's unsaved text. The claim is a lock file in the data folder (a crashed holder's
    lock is stale and taken over), with the holder's address written beside it, so a second
    launch can hand its command to the first one wherever that one listens.

    Args:
        folder: The data folder (default :func:`dictate.paths.user_data_dir`).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.address_file = address_file() if folder is None else folder / address_file().name
        self.folder = self.address_file.parent
        self.lock_file = self.folder / "instance.lock"
        self._lock = QLockFile(str(self.lock_file))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never by age

    def claim(self, address: str, timeout_ms: int = 1000) -> bool:
        """Take the folder for this instance, which listens on ``address``.

        Returns:
            False if another running app holds the folder (it wrote its address for
            :func:`dictate.control.send_command` to find). True when this instance holds it
            now, or when it could not be locked for another reason than a holder (an
            unwritable folder: logged, and the app goes on, as it reports that folder's
            problems in its window).
        """
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("cannot make the data folder %s: %s", self.folder, exc)
            return True
        if self._lock.tryLock(timeout_ms):
            try:
                atomic_write_text(self.address_file, address + "\n")
            except OSError as exc:
                log.warning("cannot write %s: %s", self.address_file, exc)
            return True
        if self._lock.error() != QLockFile.LockError.LockFailedError:
            log.warning("cannot lock %s (%s); going on", self._lock.fileName(), self._lock.error())
            return True
        return False

    def holder(self) -> int | None:
        """The process id holding the folder (None if unknown)."""
        pid = self._lock.getLockInfo()[0]  # PySide6: (pid, host, app), pid 0 if unknown
        return int(pid) if pid > 0 else None

    def release(self) -> None:
        """Let the folder go (the lock file is removed)."""
        self._lock.unlock()


def _answers(address: str) -> bool:
    """Whether something accepts connections on ``address`` (a running instance, even one too
    busy to answer yet); a stale socket file refuses them."""
    probe = QLocalSocket()
    probe.connectToServer(address)
    connected = probe.waitForConnected(_PROBE_TIMEOUT_MS)
    error = probe.error()
    probe.abort()
    return connected or error == QLocalSocket.LocalSocketError.SocketTimeoutError


def _lock_path(address: str) -> Path:
    if sys.platform != "win32":
        return Path(str(socket_path(address)) + ".lock")
    return Path(tempfile.gettempdir()) / (os.path.basename(address) + ".lock")
