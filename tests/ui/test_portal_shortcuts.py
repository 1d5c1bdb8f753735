"""The global shortcut on Wayland through the XDG GlobalShortcuts portal, over a real D-Bus
(a private dbus-daemon session bus). The portal itself is a stand-in (tests/fake_portal.py):
no desktop here runs xdg-desktop-portal with a GlobalShortcuts backend. Pressing and releasing
the shortcut reach the app as ``activated`` and ``released``; a desktop without the portal, or
one that refuses, gives one message that says how to bind the key in the desktop instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulse import need

from dictate.ui.hotkey import DESKTOP_BINDINGS, GlobalHotkey, HotkeyError
from dictate.ui.portal_shortcuts import portal_trigger

pytestmark = [pytest.mark.slow, pytest.mark.gui]
FAKE = Path(__file__).resolve().parents[1] / "fake_portal.py"


@pytest.fixture
def session_bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    need(shutil.which("dbus-daemon") is not None, "dbus-daemon is not installed")
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.delenv("DISPLAY", raising=False)
    try:
        yield address
    finally:
        daemon.terminate()
        daemon.wait(5)


def start_portal(mode: str = "ok") -> subprocess.Popen[str]:
    portal = subprocess.Popen(
        [sys.executable, str(FAKE), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    assert portal.stdout is not None
    assert portal.stdout.readline().strip() == "ready"
    return portal


def tell(portal: subprocess.Popen[str], what: str) -> str:
    assert portal.stdin is not None and portal.stdout is not None
    portal.stdin.write(what + "\n")
    portal.stdin.flush()
    return portal.stdout.readline().strip()


def test_the_trigger_is_written_in_the_portals_notation() -> None:
    assert portal_trigger(["ctrl", "alt"], "D") == "CTRL+ALT+d"
    assert portal_trigger(["meta"], "F9") == "LOGO+F9"


def test_press_and_release_come_through_the_portal(session_bus: str, qtbot) -> None:  # type: ignore[no-untyped-def]
    portal = start_portal()
    try:
        hotkey = GlobalHotkey("Ctrl+Alt+D")
        assert portal.stdout is not None
        assert portal.stdout.readline().strip() == "bind toggle-dictation CTRL+ALT+d"
        assert hotkey.reports_release
        with qtbot.waitSignal(hotkey.activated, timeout=5000):
            assert tell(portal, "press") == "sent Activated"
        with qtbot.waitSignal(hotkey.released, timeout=5000):
            assert tell(portal, "release") == "sent Deactivated"
        hotkey.close()
        assert portal.stdout.readline().strip() == "closed"
    finally:
        portal.kill()
        portal.wait(5)


@pytest.mark.parametrize(
    ("mode", "said"),
    [("absent", "has no GlobalShortcuts portal"), ("refuse", "the desktop refused it")],
)
def test_no_portal_or_a_refusal_says_how_to_bind_the_key_instead(
    session_bus: str, mode: str, said: str
) -> None:
    portal = start_portal(mode)
    try:
        with pytest.raises(HotkeyError, match=said) as caught:
            GlobalHotkey("Ctrl+Alt+D")
        assert "dictate toggle" in str(caught.value)
    finally:
        portal.kill()
        portal.wait(5)


def test_the_desktop_bindings_name_gnome_kde_and_sway() -> None:
    text = "\n".join(DESKTOP_BINDINGS)
    for desktop in ("GNOME", "KDE", "sway", "bindsym --release"):
        assert desktop in text
