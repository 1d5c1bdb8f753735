"""The dictation overlay on a real X server never takes the keyboard focus.

A receiving text window (another process, see ``xserver.py``) has the focus; the overlay is
shown, raised, asked to activate and updated as during dictation in a third process, and
keystrokes typed with xdotool must still arrive in the receiver. A plain Qt window shown the same
way does take the focus, so the focus check can fail. There is no window manager on this
server, so what a window manager would do is checked through what it reads: the overlay's
``WM_HINTS`` input field is False (ICCCM: "never give me the focus"), a plain window's is True.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pytest
from pulse import need
from xserver import Receiver, XServer

pytestmark = pytest.mark.slow

# kind ("overlay" or "plain"): show, raise and activate the window as the app could, update it as
# dictation does, print "shown WID X Y W H", then keep updating until terminated. The overlay
# prints "moved X Y" when it is dragged.
SCRIPT = r"""
import itertools
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QWidget

kind = sys.argv[1]
app = QApplication(sys.argv[:1])
if kind == "overlay":
    from dictate.ui.overlay import DictationOverlay

    window = DictationOverlay()
    window.moved.connect(lambda x, y: print(f"moved {x} {y}", flush=True))
    window.set_state("Listening — typing into other applications")
    window.place(None)
else:
    window = QWidget()
    window.setWindowTitle("plain")
    window.resize(300, 80)
    window.move(360, 600)
window.show()
window.raise_()
window.activateWindow()

words = "the quick brown fox jumps over the lazy dog".split()
steps = itertools.count()

def update():
    i = next(steps)
    if kind == "overlay":
        window.set_level(-50 + (i * 7) % 45)
        window.set_pending(" ".join(words[: i % len(words)]))
        window.set_partial(words[i % len(words)])
    if i == 10:
        g = window.geometry()
        print(f"shown {int(window.winId())} {g.x()} {g.y()} {g.width()} {g.height()}", flush=True)

timer = QTimer()
timer.timeout.connect(update)
timer.start(30)
QTimer.singleShot(120_000, app.quit)  # never outlive a test that forgot it
app.exec()
"""


class Shown:
    """The window's process; :meth:`expect` reads what it prints, line by line."""

    def __init__(self, server: XServer, kind: str, folder: Path) -> None:
        self.log = folder / f"{kind}.stderr"
        with self.log.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SCRIPT, kind],
                env=server.env(),
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        words = self.expect("shown").split()
        self.window = int(words[1])
        self.x, self.y, self.width, self.height = (int(w) for w in words[2:])

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.strip())

    def expect(self, prefix: str, timeout: float = 20.0) -> str:
        """The next line that starts with ``prefix`` (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no {prefix!r} line; stderr: {self.log.read_text(errors='replace')}")
            if line.startswith(prefix):
                return line

    def __enter__(self) -> Shown:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture(scope="module")
def server() -> Iterator[XServer]:
    with XServer() as running:
        need(shutil.which("xdotool") is not None, "xdotool is not installed")
        need(shutil.which("xprop") is not None, "xprop (x11-utils) is not installed")
        yield running


@pytest.fixture
def receiver(server: XServer, tmp_path: Path) -> Iterator[Receiver]:
    window = Receiver(server, tmp_path)
    yield window
    window.close()


def xdotool(server: XServer, *args: str) -> None:
    subprocess.run(["xdotool", *args], env=server.env(), check=True, timeout=20)


def xprop(server: XServer, window: int, *names: str) -> str:
    result = subprocess.run(
        ["xprop", "-id", str(window), *names],
        env=server.env(),
        capture_output=True,
        text=True,
        check=True,
        timeout=20,
    )
    return result.stdout


def focus_stays(server: XServer, window: int, seconds: float) -> int:
    """The focused window after ``seconds`` of it being ``window`` (or the first other)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        focused = server.focused_window()
        if focused != window:
            return focused
        time.sleep(0.05)
    return server.focused_window()


def test_a_plain_window_shown_the_same_way_takes_the_focus(
    server: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    """The control: without it, the overlay's focus check could pass for any window."""
    assert server.focused_window() == receiver.window
    with Shown(server, "plain", tmp_path) as plain:
        deadline = time.monotonic() + 10
        while server.focused_window() != plain.window and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.focused_window() == plain.window
        assert "Client accepts input or input focus: True" in xprop(
            server, plain.window, "WM_HINTS"
        )


def test_the_overlay_never_takes_the_focus(
    server: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    assert server.focused_window() == receiver.window
    with Shown(server, "overlay", tmp_path) as overlay:
        assert overlay.window != receiver.window
        # Shown, raised, asked to activate and updated 10 times (and still updating): the
        # control takes the focus within milliseconds of the same calls.
        assert focus_stays(server, receiver.window, 1.5) == receiver.window
        hints = xprop(
            server,
            overlay.window,
            *("WM_HINTS", "_NET_WM_USER_TIME", "_NET_WM_WINDOW_TYPE", "_NET_WM_STATE"),
        )
        assert "Client accepts input or input focus: False" in hints  # a WM will not focus it
        assert "_NET_WM_USER_TIME(CARDINAL) = 0" in hints  # nor when it is mapped (EWMH)
        assert "_NET_WM_WINDOW_TYPE_UTILITY" in hints  # a tool window: not in the task bar
        assert "_NET_WM_STATE_ABOVE" in hints  # kept above the windows it is shown over
        xdotool(server, "type", "--", "still here")
        assert receiver.wait_for("still here") == "still here"
        assert server.focused_window() == receiver.window


def test_dragging_the_overlay_keeps_the_focus_where_it_was(
    server: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    with Shown(server, "overlay", tmp_path) as overlay:
        x, y = overlay.x + overlay.width // 2, overlay.y + overlay.height // 2
        xdotool(server, "mousemove", "--sync", str(x), str(y))
        xdotool(server, "mousedown", "1")
        for step in range(1, 5):
            xdotool(server, "mousemove", "--sync", str(x + 10 * step), str(y - 10 * step))
        xdotool(server, "mouseup", "1")
        assert overlay.expect("moved") == f"moved {overlay.x + 40} {overlay.y - 40}"
        # Qt does not focus a window that is clicked (a window manager would decide that, and
        # WM_HINTS tells it not to): the keystrokes still go to the receiver.
        assert focus_stays(server, receiver.window, 0.5) == receiver.window
        xdotool(server, "type", "--", "moved it")
        assert receiver.wait_for("moved it") == "moved it"
