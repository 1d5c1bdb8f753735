"""The global shortcut in the window: taken from the settings, and what a press and a release
do (toggle, or push-to-talk: dictate while it is held). See :mod:`dictate.ui.hotkey`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

log = logging.getLogger("dictate.ui")

if TYPE_CHECKING:
    from dictate.ui.dictation_window import DictationWindow

    _Base = DictationWindow
else:
    _Base = object


class GlobalShortcutMixin(_Base):
    """For :class:`~dictate.ui.main_window.MainWindow`."""

    _hotkey: Any

    def start_global_hotkey(self) -> None:
        """Take the global shortcut from the settings (the app does this at start; tests and
        the self-test do not); a shortcut that cannot be taken is said once, not fatal."""
        from dictate.ui.hotkey import GlobalHotkey, HotkeyError

        old = getattr(self, "_hotkey", None)
        if old is not None:
            old.close()
            self._hotkey = None
        if not self.settings.hotkey:
            return
        try:
            self._hotkey = GlobalHotkey(self.settings.hotkey, self)
        except HotkeyError as exc:
            self.statusBar().showMessage(f"Global shortcut {self.settings.hotkey}: {exc}", 15000)
            log.info("global shortcut %s not taken: %s", self.settings.hotkey, exc)
            return
        self._hotkey.activated.connect(self._shortcut_pressed)
        self._hotkey.released.connect(self._shortcut_released)

    def _push_to_talk(self) -> bool:
        hotkey = getattr(self, "_hotkey", None)
        return self.settings.push_to_talk and hotkey is not None and hotkey.reports_release

    def _shortcut_pressed(self) -> None:
        """The global shortcut went down: toggle, or with push-to-talk start dictating."""
        if self._push_to_talk():
            self.start_dictation()
        else:
            self.toggle_dictation()

    def _shortcut_released(self) -> None:
        """The global shortcut came up: with push-to-talk, stop (everything said is
        committed, as Stop does)."""
        if self._push_to_talk() and self.controller.state != "idle":
            self.stop_dictation()
