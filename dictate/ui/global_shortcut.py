"""The global shortcut, a part of the main window: taken from the settings, and what a press
and a release do (toggle, or push-to-talk: dictate while it is held). See
:mod:`dictate.ui.hotkey`."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMainWindow

from dictate.config import Settings
from dictate.ui.dictation_run import DictationRun
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.run_states import State

log = logging.getLogger("dictate.ui")


class GlobalShortcut(QObject):
    """The shortcut of the settings, held while the app runs.

    Args:
        window: The main window (its status bar says a shortcut that cannot be taken).
        settings: The user's settings (the shortcut, push-to-talk).
        controller: The dictation run (its state).
        dictation: What a press and a release start and stop.
    """

    def __init__(
        self,
        window: QMainWindow,
        settings: Settings,
        controller: DictationController,
        dictation: DictationRun,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._settings = settings
        self._controller = controller
        self._dictation = dictation
        self.hotkey: Any = None  # dictate.ui.hotkey.GlobalHotkey, while one is taken

    def start(self) -> None:
        """Take the global shortcut from the settings (the app does this at start; tests and
        the self-test do not); a shortcut that cannot be taken is said once, not fatal."""
        from dictate.ui.hotkey import GlobalHotkey, HotkeyError

        self.close()
        if not self._settings.hotkey:
            return
        try:
            self.hotkey = GlobalHotkey(self._settings.hotkey, self._window)
        except HotkeyError as exc:
            self._window.statusBar().showMessage(
                f"Global shortcut {self._settings.hotkey}: {exc}", 15000
            )
            log.info("global shortcut %s not taken: %s", self._settings.hotkey, exc)
            return
        self.hotkey.activated.connect(self.pressed)
        self.hotkey.released.connect(self.released)

    def settings_changed(self, hotkey_before: str) -> None:
        """Take the shortcut again if the settings changed it (and one was taken)."""
        if self._settings.hotkey != hotkey_before and self.hotkey is not None:
            self.start()

    def close(self) -> None:
        if self.hotkey is not None:
            self.hotkey.close()
            self.hotkey = None

    def _push_to_talk(self) -> bool:
        hotkey = self.hotkey
        return self._settings.push_to_talk and hotkey is not None and hotkey.reports_release

    def pressed(self) -> None:
        """The global shortcut went down: toggle, or with push-to-talk start dictating."""
        if self._push_to_talk():
            self._dictation.start()
        else:
            self._dictation.toggle()

    def released(self) -> None:
        """The global shortcut came up: with push-to-talk, stop (everything said is
        committed, as Stop does)."""
        if self._push_to_talk() and self._controller.state != State.IDLE:
            self._dictation.stop()
