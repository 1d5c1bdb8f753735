"""What the global shortcut does in the window: toggle, or push-to-talk (dictate while held).

The shortcut is a stand-in QObject with the real GlobalHotkey's signals (a real grab is tested
in test_hotkey_x11.py and test_portal_shortcuts.py); the window is the real one, offscreen, and
its controller's start and stop are recorded instead of opening a microphone."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal

from dictate.ui.run_states import State


class Shortcut(QObject):
    activated = Signal()
    released = Signal()

    def __init__(self, reports_release: bool) -> None:
        super().__init__()
        self.reports_release = reports_release

    def close(self) -> None:
        pass


def wire(
    window: Any, monkeypatch: pytest.MonkeyPatch, reports_release: bool
) -> tuple[list[str], Shortcut]:
    """The window's controller recording starts and stops, and the shortcut it took."""
    calls: list[str] = []

    def start(*args: object) -> None:
        calls.append("start")
        monkeypatch.setattr(window.controller, "state", State.LISTENING)

    def stop() -> None:
        calls.append("stop")
        monkeypatch.setattr(window.controller, "state", State.IDLE)

    monkeypatch.setattr(window.controller, "start", start)
    monkeypatch.setattr(window.controller, "stop", stop)
    shortcut = Shortcut(reports_release)
    monkeypatch.setattr("dictate.ui.hotkey.GlobalHotkey", lambda *args: shortcut)
    window.shortcut.start()
    return calls, shortcut


def test_push_to_talk_dictates_while_the_shortcut_is_held(
    window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings.push_to_talk = True
    calls, shortcut = wire(window, monkeypatch, reports_release=True)
    shortcut.activated.emit()
    shortcut.activated.emit()  # a second press while held (a portal may repeat it): no stop
    assert calls == ["start"]
    shortcut.released.emit()
    assert calls == ["start", "stop"]
    shortcut.released.emit()  # already stopped: nothing
    assert calls == ["start", "stop"]


def test_without_push_to_talk_or_without_releases_the_shortcut_toggles(
    window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings.push_to_talk = True
    calls, shortcut = wire(window, monkeypatch, reports_release=False)  # no releases: Windows
    shortcut.activated.emit()
    shortcut.released.emit()
    shortcut.activated.emit()
    assert calls == ["start", "stop"]
    window.settings.push_to_talk = False
    calls, shortcut = wire(window, monkeypatch, reports_release=True)
    shortcut.activated.emit()
    shortcut.released.emit()
    assert calls == ["start"]
    shortcut.activated.emit()
    assert calls == ["start", "stop"]


def test_settings_offer_push_to_talk_and_say_how_to_bind_the_key_where_it_cannot_be_taken(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dictate.config import Settings
    from dictate.ui.dialogs import SettingsDialog
    from dictate.ui.hotkey import can_take_shortcuts

    assert can_take_shortcuts({"DISPLAY": ":1"})
    assert not can_take_shortcuts({"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "sway"})
    assert can_take_shortcuts({"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "KDE"})
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "sway")
    settings = Settings()
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert not dialog.bindings.isHidden()
    assert "bindsym --release" in dialog.bindings.text()
    dialog.push_to_talk.setChecked(True)
    dialog.apply_to(settings)
    assert settings.push_to_talk
