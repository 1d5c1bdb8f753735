"""The receiving application of ``dictate bench latency``: a Qt text window in its own
process on the X display, which reports every change of its text with the time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time

from dictate.errors import DictateError

RECEIVER = r"""
import json, sys, time
from PySide6.QtWidgets import QApplication, QPlainTextEdit

app = QApplication(sys.argv[:1])
edit = QPlainTextEdit()
edit.setWindowTitle("dictate-bench-receiver")
edit.resize(700, 300)
edit.move(40, 40)
edit.textChanged.connect(
    lambda: print(f"{time.monotonic():.6f}\t{json.dumps(edit.toPlainText())}", flush=True)
)
edit.show()
edit.raise_()
edit.activateWindow()
print(f"ready\t{int(edit.winId())}", flush=True)
app.exec()
"""


class Receiver:
    """A Qt text window in its own process on the X display, given the keyboard focus; it
    reports (monotonic time, whole text) after every change. CLOCK_MONOTONIC is the same
    clock in every process of the machine."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
        env.update(QT_QPA_PLATFORM="xcb")
        self.changes: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-c", RECEIVER],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip().split("\t")
        if first[0] != "ready":
            self.close()
            raise DictateError("the receiving window did not start on the X display")
        self.window = int(first[1])
        self._reader = threading.Thread(target=self._read, name="bench-receiver", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            stamp, _, text = line.rstrip("\n").partition("\t")
            self.changes.append((float(stamp), json.loads(text)))

    def focus(self) -> None:
        """Give it the keyboard focus (where there is no window manager, nothing else does).

        Raises:
            DictateError: It could not be focused (then typing would go elsewhere).
        """
        if shutil.which("xdotool") is None:
            time.sleep(0.5)  # activateWindow() with a window manager
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            subprocess.run(
                ["xdotool", "windowfocus", "--sync", str(self.window)],
                capture_output=True,
                timeout=10,
            )
            focused = subprocess.run(
                ["xdotool", "getwindowfocus"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            if focused == str(self.window):
                return
            time.sleep(0.1)
        raise DictateError("could not give the receiving window the keyboard focus")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
