"""The first-start guide, a part of the main window: a panel above the text, not a dialog,
that says what a new user needs to begin (issue 53).

It says the key that starts dictating (the Dictate action's own shortcut, and the global
shortcut of the settings), the microphone listening (named as the microphone picker names it)
with its level while dictating, or for a few seconds on "Test the microphone"
(:mod:`dictate.ui.mic_test`; the microphone is never opened unasked), a button to change it,
where the text goes, and the recogniser. It goes away for
good (:attr:`~dictate.config.Settings.guide_done`) once words were dictated or the user hid it;
Help > Getting started shows it again. It logs when it is shown and hidden (names of devices and
engines only, never a word said): the tests of the real app read that.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dictate.events import Event, Finalized, Level
from dictate.ui.edit_actions import make_action
from dictate.ui.mic_test import TEST_S, MicrophoneTest
from dictate.ui.run_states import State

log = logging.getLogger(__name__)

_SOUND_SERVER_DEVICES = ("default", "pulse", "sysdefault")
"""PortAudio devices that record from the sound server's default source."""
NO_LEVEL = "start dictating, or test the microphone, and speak: the bar shows what it hears"
QUIET_DBFS = -50
"""A test whose loudest block was below this heard no voice (speech near a microphone is
-30 to -10 dBFS; a quiet room -60 or less)."""


def default_microphone(keys: list[str]) -> str | None:
    """The key (:attr:`~dictate.audio.devices.InputDevice.key`) of the microphone that "System
    default" records from, given the ``keys`` the picker lists; None where it cannot be told.
    PortAudio's default device; where that is the sound server, its default source."""
    from dictate.audio.devices import PULSE_PREFIX, default_pulse_source, sounddevice_module

    try:
        name = str(sounddevice_module().query_devices(kind="input")["name"])
    except Exception as exc:  # no PortAudio (DictateError), or no input (PortAudioError)
        log.info("no default microphone to name: %s", exc)
        return None
    pulse = [key for key in keys if key.startswith(PULSE_PREFIX)]
    if name in _SOUND_SERVER_DEVICES and pulse:  # pulse sources listed: a server answers
        source = default_pulse_source()
        if source is not None and PULSE_PREFIX + source in pulse:
            return PULSE_PREFIX + source
    return name


class FirstStartGuide(QFrame):
    """The guide of ``window`` (the main window: its settings, controller, dictation run and
    toolbar), put above its text; :attr:`action` is Help > Getting started."""

    def __init__(self, window: Any) -> None:
        super().__init__()
        self._window = window
        self._loaded: Any = None  # what the last run loaded (controller.loaded)
        self.setObjectName("first-start-guide")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Getting started")
        title = QLabel("Getting started")
        font = QFont(title.font())
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        title.setFont(font)
        self.key_label = self._label()
        self.mic_label = self._label()
        self.level = QProgressBar()
        self.level.setRange(-60, 0)
        self.level.setValue(-60)
        self.level.setTextVisible(False)
        self.level.setMaximumSize(140, 10)
        self.level.setAccessibleName("Microphone level")
        self.level_label = self._label()
        self.level_label.setText(NO_LEVEL)
        self.test_mic = QPushButton("Te&st the microphone")
        self.test_mic.setToolTip(
            f"Open the microphone for {TEST_S:g} s and show its level; nothing is recognised"
        )
        self.test_mic.clicked.connect(self.start_test)
        self.mic_test = MicrophoneTest(self)
        self.mic_test.level.connect(self._on_test_level)
        self.mic_test.ended.connect(self._on_test_ended)
        self._loudest = -100.0
        self.change_mic = QPushButton("Change micro&phone…")
        self.change_mic.setToolTip("Choose the microphone in the toolbar's list (Ctrl+M)")
        self.change_mic.clicked.connect(lambda: window.toolbar.focus_mic())
        self.target_label = self._label()
        self.engine_label = self._label()
        self.hide_button = QPushButton("Hide this &guide")
        self.hide_button.setToolTip("Help > Getting started shows it again")
        self.hide_button.clicked.connect(lambda: self.done_with("hidden by the user"))
        grid = QGridLayout()
        rows: list[tuple[str, Any]] = [
            ("Start:", self.key_label),
            ("Microphone:", self._row(self.mic_label, self.change_mic)),
            ("Level:", self._row(self.level, self.level_label, self.test_mic)),
            ("Text goes to:", self.target_label),
            ("Recogniser:", self.engine_label),
        ]
        for row, (name, shown) in enumerate(rows):
            label = QLabel(name)
            middle = not isinstance(shown, QLabel)  # beside a button or the bar: level with it
            grid.addWidget(
                label,
                row,
                0,
                Qt.AlignmentFlag.AlignVCenter if middle else Qt.AlignmentFlag.AlignTop,
            )
            if isinstance(shown, QLabel):
                label.setBuddy(shown)
                grid.addWidget(shown, row, 1)
            else:
                grid.addLayout(shown, row, 1)
        grid.setColumnStretch(1, 1)
        footer = QHBoxLayout()
        footer.addWidget(
            QLabel("This guide goes away once you have dictated; Help > Getting started brings it "
                   "back."), 1)  # fmt: skip
        footer.addWidget(self.hide_button)
        column = QVBoxLayout(self)
        column.addWidget(title)
        column.addLayout(grid)
        column.addLayout(footer)
        self.action: QAction = make_action(window, "&Getting started", None, self.show_again)
        self._mic_timer = QTimer(self)  # the picker is refilled item by item: name it once
        self._mic_timer.setSingleShot(True)
        self._mic_timer.setInterval(0)
        self._mic_timer.timeout.connect(self.show_microphone)
        self._connect(window)
        layout = window.centralWidget().layout()
        layout.insertWidget(layout.indexOf(window.editor), self)
        self.hide()
        if not window.settings.guide_done:
            self.show_again()

    @staticmethod
    def _label() -> QLabel:
        label = QLabel()
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)  # a device's name is not markup
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    @staticmethod
    def _row(*widgets: QWidget) -> QHBoxLayout:
        row = QHBoxLayout()
        for widget in widgets:
            row.addWidget(widget, 1 if isinstance(widget, QLabel) else 0)
        return row

    def _connect(self, window: Any) -> None:
        toolbar, controller = window.toolbar, window.controller
        toolbar.mic_combo.currentIndexChanged.connect(lambda _i: self._mic_timer.start())
        toolbar.engine_combo.currentIndexChanged.connect(lambda _i: self.show_engine())
        window.dictation.target_action.toggled.connect(lambda _on: self.show_target())
        controller.loaded.connect(self._on_loaded)
        controller.switched.connect(self._on_loaded)
        controller.stateChanged.connect(self._on_state)
        window.events.subscribe("guide", self._on_event, Level, Finalized)

    def text(self) -> str:
        """All the guide says, one line a row (tests, and what a screen reader reads)."""
        return "\n".join(
            label.text()
            for label in (
                self.key_label,
                self.mic_label,
                self.level_label,
                self.target_label,
                self.engine_label,
            )
        )

    def show_again(self) -> None:
        """Show the guide, its rows afresh (the first start; Help > Getting started)."""
        self.show_key()
        self.show_microphone()
        self.show_target()
        self.show_engine()
        self.show()
        log.info("first-start guide shown (microphone: %s)", self.mic_label.text())

    def done_with(self, why: str) -> None:
        """Hide the guide, and keep it hidden at the next starts."""
        if self.isHidden():
            return
        self.hide()
        log.info("first-start guide hidden: %s", why)
        if not self._window.settings.guide_done:
            self._window.settings.guide_done = True
            self._window.settings_changed()

    def show_key(self) -> None:
        action = self._window.dictation.dictate_action
        key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        hotkey = self._window.settings.hotkey
        anywhere = f" From any other application: {hotkey}." if hotkey else ""
        self.key_label.setText(
            f"Press {key} or the Dictate button in the toolbar to start dictating, and again to "
            f"stop.{anywhere}"
        )

    def show_microphone(self) -> None:
        if self.isHidden() and self._window.settings.guide_done:
            return  # not shown: no need to ask the sound server
        combo = self._window.toolbar.mic_combo
        labels = {combo.itemData(i): combo.itemText(i) for i in range(combo.count())}
        chosen = self._window.settings.input_device
        if chosen is not None:
            shown = labels.get(chosen, chosen)
        else:
            key = default_microphone([k for k in labels if isinstance(k, str)])
            named = labels.get(key, key) if key is not None else None
            if combo.count() <= 1:  # none listed but "System default"
                named = "none found. Connect one, then choose it here"
            shown = "the system default" + (f": {named}" if named else "")
        self.mic_label.setText(shown)

    def show_target(self) -> None:
        if self._window.settings.target == "apps":
            self.target_label.setText(
                "typed into the application you click into (Dictation > Type into other "
                "applications, Ctrl+Shift+T, brings it back to this window)."
            )
        else:
            self.target_label.setText(
                "this window. To type into other applications instead: Dictation > Type into "
                "other applications (Ctrl+Shift+T)."
            )

    def show_engine(self) -> None:
        loaded, settings = self._loaded, self._window.settings
        if loaded is not None:
            engine, whisper = loaded.engine_label, loaded.second_pass
        else:
            engine = self._window.toolbar.engine_combo.currentText() or "not chosen"
            whisper = {"off": "", "auto": "Whisper (English)"}.get(
                settings.second_pass, f"Whisper {settings.second_pass}"
            )
        if whisper:  # the engine's own accuracy note is not what the final words have
            engine = engine.split(" (", 1)[0]
            said = f"{engine} shows the words as you speak; {whisper} writes the final words."
        else:
            said = f'{engine}; no second pass (Settings > "Final words").'
        self.engine_label.setText(said)

    def _on_loaded(self, loaded: Any) -> None:
        self._loaded = loaded
        self.show_engine()
        if not self.isHidden():
            log.info("first-start guide: recogniser %s", self.engine_label.text())

    def _on_state(self, state: State) -> None:
        self.test_mic.setEnabled(state == State.IDLE)
        if state != State.IDLE:
            self.mic_test.stop()  # the microphone is the run's
        elif not self.mic_test.running:
            self.level.setValue(-60)
            self.level_label.setText(NO_LEVEL)

    def start_test(self) -> None:
        """ "Test the microphone": its level for a few seconds, without dictating."""
        if not self.test_mic.isEnabled():  # dictating (the run has it), or testing already
            return
        if self.mic_test.start(self._window.settings.input_device):
            self._loudest = -100.0
            self.test_mic.setEnabled(False)
            self.level_label.setText(f"testing for {TEST_S:g} s: speak, and the bar moves")

    def _on_test_level(self, dbfs: float) -> None:
        self._loudest = max(self._loudest, dbfs)
        self.level.setValue(max(-60, min(0, round(dbfs))))
        self.level_label.setText(f"{round(dbfs)} dBFS: testing, speak and the bar moves")

    def _on_test_ended(self, failure: str) -> None:
        self.test_mic.setEnabled(self._window.controller.state == State.IDLE)
        self.level.setValue(-60)
        loudest = round(self._loudest)
        if failure:
            said = f"{failure}. Choose another microphone, or check that it is connected"
        elif loudest < QUIET_DBFS:
            said = (f"it heard almost nothing (loudest {loudest} dBFS): check that it is not "
                    "muted, or choose another")  # fmt: skip
        else:
            said = f"it hears you (loudest {loudest} dBFS)"
        self.level_label.setText(said)
        log.info("microphone test ended: loudest %d dBFS%s", loudest, " (failed)" * bool(failure))

    def _on_event(self, event: Event) -> None:
        if self.isHidden():
            return
        if isinstance(event, Level):
            dbfs = max(-60, min(0, round(event.dbfs)))
            self.level.setValue(dbfs)
            self.level_label.setText(f"{dbfs} dBFS: the bar moves as you speak")
        elif isinstance(event, Finalized) and any(re.search(r"\w", s) for s in event.sentences):
            self.done_with("words were dictated")
