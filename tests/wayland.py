"""A real Wayland compositor (a headless sway) and a real receiving window for the typing tests.

:class:`Sway` starts ``sway`` with wlroots' headless backend (no GPU, no input devices, the
pixman renderer) in a private ``XDG_RUNTIME_DIR`` with a minimal config, and waits until its
socket answers. sway refuses to run as root: as root (CI, containers) it runs as an
unprivileged system user made once for it (:data:`USER`); root's clients still connect.
:class:`Receiver` is a Qt text window on it (``QT_QPA_PLATFORM=wayland``) that writes its whole
text to a file after every change, so a test types into it with the app's real backend and
reads back exactly what arrived. sway gives a new window the keyboard focus; the receiver says
when it has it.

:class:`FakeCompositor` answers on a Wayland socket with a registry of chosen interfaces and
nothing else: a compositor without the virtual-keyboard protocol (GNOME's, KDE's), as far as
wtype and the backend choice can tell.

Without sway the tests that need it are skipped (with sway's own last words where it would
not start), except under CI (``CI`` set), where they fail: CI installs it (``.ci/run``).
"""

from __future__ import annotations

import os
import pwd
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType

from pulse import need
from text_file import TextFile
from xserver import end_process

from dictate.output.backends.wayland import compositor_globals

USER = "dictate-test"
"""The unprivileged user sway runs as when the tests run as root."""

CONFIG = """\
xwayland disable
default_border none
focus_follows_mouse no
output HEADLESS-1 resolution 800x600
"""

RECEIVER = r"""
import sys
from pathlib import Path
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QPlainTextEdit

out = Path(sys.argv[1])
app = QApplication(sys.argv[:1])
edit = QPlainTextEdit()
edit.setWindowTitle("dictate-test-receiver")

def changed():
    tmp = out.with_suffix(".tmp")
    tmp.write_text(edit.toPlainText(), encoding="utf-8")
    tmp.replace(out)

def focus(window):
    if window is not None and window is edit.windowHandle():
        print("focused", flush=True)

edit.textChanged.connect(changed)
QGuiApplication.instance().focusWindowChanged.connect(focus)
changed()
edit.show()
app.exec()
"""


def _sway_user() -> tuple[int, int] | None:
    """The uid and gid sway runs as: None (this user) unless this is root, where
    :data:`USER` is made when missing."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        need(shutil.which("useradd") is not None, "sway cannot run as root, and no useradd")
        done = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            capture_output=True,
            text=True,
        )
        try:  # another test run may have made it meanwhile
            entry = pwd.getpwnam(USER)
        except KeyError:
            need(False, f"sway cannot run as root, and useradd failed: {done.stderr.strip()}")
            raise
    return entry.pw_uid, entry.pw_gid


class Sway:
    """A headless sway in a private runtime folder; ``env()`` points a client at it."""

    def __init__(self) -> None:
        need(shutil.which("sway") is not None, "sway is not installed")
        self.process: subprocess.Popen[bytes] | None = None
        self.runtime = Path()
        self.display = ""

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_SOCKET")}
        env.update(
            WAYLAND_DISPLAY=self.display,
            XDG_RUNTIME_DIR=str(self.runtime),
            XDG_SESSION_TYPE="wayland",
            XDG_CURRENT_DESKTOP="sway",
            QT_QPA_PLATFORM="wayland",
        )
        env.update(extra)
        return env

    def __enter__(self) -> Sway:
        user = _sway_user()
        self.runtime = Path(tempfile.mkdtemp(prefix="dwl", dir="/tmp"))
        (self.runtime / "config").write_text(CONFIG, encoding="utf-8")
        (self.runtime / "config").chmod(0o644)
        if user is not None:
            os.chown(self.runtime, *user)
        self.runtime.chmod(0o700)
        log = self.runtime / "sway.log"
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.runtime),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "WLR_BACKENDS": "headless",
            "WLR_LIBINPUT_NO_DEVICES": "1",
            "WLR_RENDERER": "pixman",
        }
        with log.open("wb") as err:
            self.process = subprocess.Popen(
                ["sway", "--config", str(self.runtime / "config")],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=err,
                cwd="/",
                user=None if user is None else user[0],
                group=None if user is None else user[1],
                extra_groups=None if user is None else [],
            )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and self.process.poll() is None:
            sockets = [p for p in self.runtime.glob("wayland-*") if p.suffix != ".lock"]
            if sockets and compositor_globals(self.env(WAYLAND_DISPLAY=sockets[0].name)):
                self.display = sockets[0].name
                return self
            time.sleep(0.05)
        tail = log.read_text(errors="replace").strip().splitlines()[-5:]
        self.stop()
        need(False, "sway could not start: " + " | ".join(tail))
        return self

    def stop(self) -> None:
        end_process(self.process)
        shutil.rmtree(self.runtime, ignore_errors=True)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class Receiver(TextFile):
    """The receiving text window on ``sway``, with the keyboard focus; :attr:`text` is what it
    holds."""

    def __init__(self, sway: Sway, folder: Path) -> None:
        self.file = folder / "received.txt"
        self.process = subprocess.Popen(
            [sys.executable, "-c", RECEIVER, str(self.file)],
            env=sway.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        line = self.process.stdout.readline().strip() if ready else ""  # "" if it ended
        if line != "focused":
            self.close()
            assert self.process.stderr is not None
            raise RuntimeError(f"the receiver did not get the focus: {self.process.stderr.read()}")

    def close(self) -> None:
        end_process(self.process)


def _message(obj: int, opcode: int, body: bytes = b"") -> bytes:
    return struct.pack("=II", obj, (8 + len(body)) << 16 | opcode) + body


def _string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return struct.pack("=I", len(data)) + data + b"\0" * (-len(data) % 4)


class FakeCompositor:
    """A Wayland socket whose registry lists ``interfaces`` and that answers syncs, nothing
    more: enough for a client to learn what the compositor offers (and give up)."""

    def __init__(self, folder: Path, interfaces: tuple[str, ...]) -> None:
        self.path = folder / "wayland-fake"
        self.interfaces = interfaces
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(self.path))
        self.server.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        data = b""
        with conn:
            while chunk := conn.recv(4096):
                data += chunk
                while len(data) >= 8:
                    obj, word = struct.unpack_from("=II", data)
                    size, opcode = word >> 16, word & 0xFFFF
                    if len(data) < size:
                        break
                    body, data = data[8:size], data[size:]
                    if obj != 1:
                        continue  # a request to a global: ignored
                    (new_id,) = struct.unpack_from("=I", body)
                    if opcode == 1:  # get_registry: every global
                        for name, interface in enumerate(self.interfaces, 1):
                            args = struct.pack("=I", name) + _string(interface)
                            conn.sendall(_message(new_id, 0, args + struct.pack("=I", 1)))
                    elif opcode == 0:  # sync: done, and the callback's id is free again
                        conn.sendall(
                            _message(new_id, 0, struct.pack("=I", 1))
                            + _message(1, 1, struct.pack("=I", new_id))
                        )

    def close(self) -> None:
        self.server.close()
