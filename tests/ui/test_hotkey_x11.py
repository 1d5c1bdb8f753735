"""The global shortcut under a real X server: pressed in any window it toggles; Caps Lock does
not block it; a shortcut another client holds is refused with one clear message."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from pulse import need
from xserver import XServer

from dictate.ui.hotkey import HotkeyError, parse_shortcut

HOLDER = r"""
import sys
from PySide6.QtCore import QCoreApplication, QTimer
from dictate.ui.hotkey import GlobalHotkey, HotkeyError

app = QCoreApplication(sys.argv[:1])
try:
    hotkey = GlobalHotkey(sys.argv[1])
except HotkeyError as exc:
    print(f"refused: {exc}", flush=True)
    sys.exit(3)
hotkey.activated.connect(lambda: print("activated", flush=True))
hotkey.released.connect(lambda: print("released", flush=True))
print("ready", flush=True)
QTimer.singleShot(int(sys.argv[2]), app.quit)
app.exec()
hotkey.close()
"""


@pytest.fixture
def xserver() -> Iterator[XServer]:
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    with XServer() as server:
        yield server


def press(server: XServer, *keys: str) -> None:
    subprocess.run(["xdotool", "key", *keys], env=server.env(), check=True, timeout=20)


@pytest.mark.slow
def test_the_shortcut_fires_anywhere_and_caps_lock_does_not_block_it(xserver: XServer) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, "Ctrl+Alt+D", "3000"],
        env=xserver.env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "ready"
    press(xserver, "ctrl+alt+d")
    press(xserver, "ctrl+alt+x")  # another key: nothing
    press(xserver, "Caps_Lock")
    press(xserver, "ctrl+alt+d")
    second = subprocess.run(
        [sys.executable, "-c", HOLDER, "Ctrl+Alt+D", "100"],
        env=xserver.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 3
    assert "Ctrl+Alt+D is taken by another application" in second.stdout
    out, _ = holder.communicate(timeout=30)
    assert out.split() == ["activated", "released", "activated", "released"]


@pytest.mark.slow
def test_holding_the_shortcut_is_one_press_and_one_release_for_push_to_talk(
    xserver: XServer,
) -> None:
    """Held for 1.5 s the key auto-repeats (X sends a release and a press for each repeat);
    the app sees one press when it goes down and one release when it comes up."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, "Ctrl+Alt+D", "4000"],
        env=xserver.env(),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "ready"
    env = xserver.env()
    subprocess.run(["xdotool", "keydown", "ctrl+alt+d"], env=env, check=True, timeout=20)
    time.sleep(1.5)
    subprocess.run(["xdotool", "keyup", "ctrl+alt+d"], env=env, check=True, timeout=20)
    out, _ = holder.communicate(timeout=30)
    assert out.split() == ["activated", "released"]


def test_shortcuts_are_parsed_or_refused_clearly() -> None:
    assert parse_shortcut("Ctrl+Alt+D") == (["ctrl", "alt"], "D")
    assert parse_shortcut("F9") == ([], "F9")
    with pytest.raises(HotkeyError, match="no modifier"):
        parse_shortcut("D")
    with pytest.raises(HotkeyError, match="not a modifier"):
        parse_shortcut("Hyper+D")
    with pytest.raises(HotkeyError, match="empty"):
        parse_shortcut("")


def test_without_x11_the_message_says_to_bind_dictate_toggle(
    monkeypatch: pytest.MonkeyPatch, qtbot: object
) -> None:
    from dictate.ui.hotkey import GlobalHotkey

    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(HotkeyError, match="bind `dictate toggle`"):
        GlobalHotkey("Ctrl+Alt+D")
