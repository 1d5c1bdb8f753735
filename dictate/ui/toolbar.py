"""The dictation toolbar, a part of the main window: the Dictate button, the microphone
picker, the input level meter and the speech engine picker."""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import QProgressBar, QToolBar, QToolButton, QWidget

from dictate.config import Settings
from dictate.ui.dialogs import device_choices, engine_choices
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.run_states import State
from dictate.ui.toolbar_picker import ToolbarPicker

log = logging.getLogger("dictate.ui")

_MAIN_ACTION_STYLE = """
QToolButton#dictate-button {
    background: palette(highlight); color: palette(highlighted-text);
    border: 1px solid palette(dark); border-radius: 4px; padding: 4px 12px; margin: 2px;
}
QToolButton#dictate-button:hover { border-color: palette(text); }
QToolButton#dictate-button:focus { border: 2px solid palette(text); }
QToolButton#dictate-button:checked { background: #b71c1c; color: white; }
QToolButton#dictate-button:disabled { background: palette(mid); color: palette(window); }
"""
"""The Dictate button: the accent colour and its text colour (contrast as the theme's own
selection), dark red with white (6.6:1) while dictating."""


class DictationToolbar(QToolBar):
    """The toolbar and its pickers.

    Args:
        settings: The user's settings (the chosen microphone and engine are written there).
        controller: The dictation run (devices are rescanned only while it is idle; a new
            engine is loaded at its next start).
        dictate_action: The Dictate action, the toolbar's first button.
        settings_changed: Called after a picker changed the settings.
        editor: Where the focus goes back after a choice.
    """

    def __init__(
        self,
        settings: Settings,
        controller: DictationController,
        dictate_action: QAction,
        settings_changed: Callable[[], None],
        editor: QWidget,
    ) -> None:
        super().__init__("Dictation")
        self.setObjectName("dictation-toolbar")
        self._settings = settings
        self._controller = controller
        self._settings_changed = settings_changed
        self._editor = editor
        self.addAction(dictate_action)
        button = self.widgetForAction(dictate_action)
        if isinstance(button, QToolButton):
            self._main_action(button, dictate_action)
        self.mic_combo = self._picker("Microphone", "Microphone (Ctrl+M)", self._on_mic_chosen)
        self.refresh_devices()
        self.level = QProgressBar()
        self.level.setRange(-60, 0)
        self.level.setValue(-60)
        self.level.setTextVisible(False)
        self.level.setMaximumWidth(140)
        self.level.setMaximumHeight(10)  # a thin bar reads as a meter, not as a text field
        self.level.setAccessibleName("Input level")
        self.level.setToolTip("Input level (dBFS)")
        self.addWidget(self.level)
        name = "Speech engine and model"
        self.engine_combo = self._picker(name, name, self._on_engine_chosen)
        self.refresh_engines()

    @staticmethod
    def _main_action(button: QToolButton, action: QAction) -> None:
        """The Dictate button reads as the window's main action (issue 53: it looked like a
        label): bold, on the accent colour (red while dictating), its key in its text; as wide
        as its widest label, so that the controls after it stay put."""
        key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

        def follow() -> None:  # the text changes with the state (dictation_run._SHOWN)
            text = action.text().replace("&", "")
            shown = f"{text} ({key})" if text == "Dictate" and key else text
            button.setAccessibleName(text)  # the key is the action's shortcut, said apart
            if action.iconText() != shown:
                action.setIconText(shown)  # what a tool button shows; menus show text()

        action.changed.connect(follow)
        follow()
        button.setObjectName("dictate-button")
        button.setAccessibleDescription(action.toolTip())
        font = QFont(button.font())
        font.setBold(True)
        button.setFont(font)
        button.setStyleSheet(_MAIN_ACTION_STYLE)
        button.ensurePolished()
        metrics = button.fontMetrics()
        labels = (f"Dictate ({key})", "Starting…", "Stop dictating", "Finishing…")
        extra = max(map(metrics.horizontalAdvance, labels)) - metrics.horizontalAdvance(
            action.iconText()
        )
        button.setMinimumWidth(button.sizeHint().width() + extra)

    def _picker(self, name: str, tip: str, chosen: Callable[[int], None]) -> ToolbarPicker:
        """A picker on the toolbar; after a choice (or Escape) the focus is back in the text."""
        picker = ToolbarPicker()
        picker.setAccessibleName(name)
        picker.setToolTip(tip)
        picker.activated.connect(chosen)
        picker.popupClosed.connect(self._editor.setFocus)
        self.addWidget(picker)
        return picker

    def refresh_devices(self, rescan: bool = False) -> None:
        """Fill the microphone picker; ``rescan`` makes PortAudio look for devices again
        (only while no stream is open: after a run, or before one)."""
        if rescan and self._controller.state == State.IDLE:
            from dictate.audio.devices import refresh_devices
            from dictate.errors import DictateError

            try:
                refresh_devices()
            except DictateError as exc:
                log.warning("cannot rescan audio devices: %s", exc)
        self.mic_combo.clear()
        choices, error = device_choices()
        for label, name in choices:
            self.mic_combo.addItem(label, name)
        for i in range(self.mic_combo.count()):
            if self.mic_combo.itemData(i) == self._settings.input_device:
                self.mic_combo.setCurrentIndex(i)
        if error:
            self.mic_combo.setToolTip(error)

    def refresh_engines(self) -> None:
        self.engine_combo.clear()
        for label, engine, model in engine_choices():
            self.engine_combo.addItem(label, (engine, model))
            if (engine, model) == (self._settings.engine, self._settings.first_pass_model):
                self.engine_combo.setCurrentIndex(self.engine_combo.count() - 1)

    def choose_mic(self, index: int) -> None:
        """The microphone at ``index`` of the picker was chosen (as with the mouse)."""
        self.mic_combo.setCurrentIndex(index)
        self._on_mic_chosen(index)

    def _on_mic_chosen(self, index: int) -> None:
        self._settings.input_device = self.mic_combo.itemData(index)
        self._settings_changed()
        self._editor.setFocus()  # Ctrl+M, arrows, Return: then back to the text

    def _on_engine_chosen(self, index: int) -> None:
        self._settings.engine, self._settings.first_pass_model = self.engine_combo.itemData(index)
        self._controller.forget_engine()
        self._settings_changed()
        self._editor.setFocus()

    def focus_mic(self) -> None:
        """Ctrl+M: the microphone picker, open (the devices listed afresh: one may have come
        back since the list was made)."""
        self.refresh_devices(rescan=True)
        self.mic_combo.setFocus()
        self.mic_combo.showPopup()
