"""The settings dialog (the choices it offers of microphones and engines: :mod:`.choices`)."""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFontComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from dictate.config import (
    AUDIO_MB_RANGE,
    COMMIT_AFTER_MS,
    COMMIT_AFTER_RANGE,
    HISTORY_DAYS_RANGE,
    HISTORY_MB_RANGE,
    Settings,
)
from dictate.ui.dialogs.choices import (
    device_choices,
    engine_choices,
    second_pass_choices,
)
from dictate.ui.dialogs.replacements_table import ReplacementsTable
from dictate.ui.hotkey import DESKTOP_BINDINGS, HotkeyError, can_take_shortcuts, parse_shortcut
from dictate.writing.replacements import parse_replacements

log = logging.getLogger("dictate.ui")


def auto_reason() -> str:
    """Why "auto" dictates with the model it does (``dictate models tiers`` says more)."""
    from dictate.asr import tiers

    choice = tiers.current_choice()
    if choice is None:
        return f"Whisper {tiers.auto_model('live')} until measured, in the background"
    return f"Whisper {choice.live}: {choice.why}"


class SettingsDialog(QDialog):
    """Everything in :class:`Settings`, saved by the caller when accepted."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        form = QFormLayout()
        self.device = QComboBox()
        devices, error = device_choices()
        for label, name in devices:
            self.device.addItem(label, name)
        if error:
            self.device.setToolTip(error)
        self._select(self.device, settings.input_device)
        if settings.input_device and self.device.currentData() != settings.input_device:
            # Saved as a name, an index or part of one (the settings file, `dictate devices
            # --use`), or a device not plugged in now: OK keeps it, not another device.
            self.device.addItem(f"{settings.input_device} (as saved)", settings.input_device)
            self.device.setCurrentIndex(self.device.count() - 1)
        self.engine = QComboBox()
        for label, engine, model in engine_choices():
            self.engine.addItem(label, (engine, model))
        self._select(self.engine, (settings.engine, settings.first_pass_model))
        self.second_pass = QComboBox()
        for text, choice in second_pass_choices(settings.second_pass):
            self.second_pass.addItem(text, choice)
        self._select(self.second_pass, settings.second_pass)
        self.second_pass.setToolTip(
            "Whisper decodes each sentence again once you pause, and its words replace the "
            "speech engine's: slower to become final, much more accurate. Automatic uses it "
            "after English speech: of the Whisper models installed, the most accurate for files, "
            "and for dictation the most accurate that this computer was measured to keep up with "
            f"({auto_reason()})."
        )
        self.silence = QSpinBox()
        self.silence.setRange(100, 3000)
        self.silence.setSingleStep(50)
        self.silence.setSuffix(" ms")
        self.silence.setValue(settings.silence_ms)
        self.commit = QCheckBox("&Commit the words after a pause of")
        self.commit.setChecked(settings.commit_after_ms is not None)
        self.commit_after = QSpinBox()
        self.commit_after.setRange(*COMMIT_AFTER_RANGE)
        self.commit_after.setSingleStep(100)
        self.commit_after.setSuffix(" ms")
        self.commit_after.setValue(settings.commit_after_ms or COMMIT_AFTER_MS)
        self.commit_after.setEnabled(self.commit.isChecked())
        self.commit.toggled.connect(self.commit_after.setEnabled)
        self.commit.setToolTip(
            "After this much silence the greyed words become text (or are typed into the other "
            "application) without waiting for the next sentence. Shorter is faster; the "
            "punctuation of a sentence you pause inside is then decided with less context."
        )
        self.max_segment = QDoubleSpinBox()
        self.max_segment.setRange(2.0, 120.0)
        self.max_segment.setSuffix(" s")
        self.max_segment.setValue(settings.max_segment_s)
        self.mode = QComboBox()
        self.mode.addItem("Streaming (sentences finalized when the next begins)", "streaming")
        self.mode.addItem("Baseline (every pause ends a sentence)", "baseline")
        self._select(self.mode, settings.mode)
        self.right_words = QSpinBox()
        self.right_words.setRange(1, 20)
        self.right_words.setValue(settings.min_right_words)
        self.font_family = QFontComboBox()
        if settings.font_family:
            self.font_family.setCurrentFont(QFont(settings.font_family))
        self.font_size = QSpinBox()
        self.font_size.setRange(6, 72)
        self.font_size.setValue(settings.font_size)
        for box in (
            self.silence, self.commit_after, self.max_segment, self.right_words, self.font_size
        ):  # fmt: skip
            # A number out of range becomes the nearest allowed one, not the old value again.
            box.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
            box.setToolTip(f"{box.minimum():g} to {box.maximum():g}")
        self.font_size.setAccessibleName("Font size")
        font_row = QWidget()  # font and size on one row: the dialog fits a 1024x768 screen
        font_layout = QHBoxLayout(font_row)
        font_layout.setContentsMargins(0, 0, 0, 0)
        font_layout.addWidget(self.font_family, 1)
        font_layout.addWidget(self.font_size)
        rows: list[tuple[str | QCheckBox, QWidget]] = [
            ("&Microphone", self.device),
            ("Speech &engine", self.engine),
            ("&Final words (second pass)", self.second_pass),
            ("&Silence that ends a segment", self.silence),
            (self.commit, self.commit_after),
            ("Ma&ximum segment", self.max_segment),
            ("P&unctuation mode", self.mode),
            ("Words after a sentence &before it is final", self.right_words),
            ("Editor font and si&ze", font_row),
        ]
        for row_label, widget in rows:
            if isinstance(row_label, QCheckBox):
                widget.setAccessibleName("Pause before the words are committed")
                form.addRow(row_label, widget)
            elif widget is font_row:
                self.font_family.setAccessibleName("Editor font")
                font_label = QLabel(row_label)
                font_label.setBuddy(self.font_family)
                form.addRow(font_label, widget)
            else:
                widget.setAccessibleName(row_label.replace("&", ""))
                form.addRow(row_label, widget)
        self.written_forms = QCheckBox("Write &numbers, dates and money as digits ($25, 9:30 a.m.)")
        self.written_forms.setChecked(settings.written_forms)
        self.voice_commands = QCheckBox(
            "&Voice commands and spoken punctuation (\u201cnew paragraph\u201d, \u201ccomma\u201d)"
        )
        self.voice_commands.setChecked(settings.voice_commands)
        form.addRow(self.written_forms)
        form.addRow(self.voice_commands)
        from dictate.output.chooser import BACKENDS

        self.target = QComboBox()
        self.target.addItem("This window", "window")
        self.target.addItem("Other applications (typed where the keyboard focus is)", "apps")
        self._select(self.target, settings.target)
        self.target.setAccessibleName("Dictated text goes to")
        form.addRow("Dictated text &goes to", self.target)
        self.audio_target = QComboBox()  # File > Transcribe audio file; Open of an audio file
        for label, value in (("Ask each time", None), ("At the cursor", "cursor")):
            self.audio_target.addItem(label, value)
        self.audio_target.addItem("Into a new document", "new")
        self._select(self.audio_target, settings.audio_file_target)
        self.audio_target.setAccessibleName("Text of transcribed audio files goes")
        form.addRow("Text of audio f&iles goes", self.audio_target)
        self.backend = QComboBox()
        self.backend.addItem("Automatic", None)
        for name in BACKENDS:
            self.backend.addItem(name, name)
        self._select(self.backend, settings.typing_backend)
        self.backend.setAccessibleName("Typing method")
        form.addRow("T&yping method", self.backend)
        self.clipboard_fallback = QCheckBox(
            "&Put text on the clipboard when it cannot be typed (paste it yourself)"
        )
        self.clipboard_fallback.setChecked(settings.clipboard_fallback)
        form.addRow(self.clipboard_fallback)
        self.show_overlay = QCheckBox("Sho&w the overlay while typing into other applications")
        self.show_overlay.setChecked(settings.show_overlay)
        form.addRow(self.show_overlay)
        self.feedback_sounds = QCheckBox(
            "Play a short soun&d when dictation starts and stops, and when text is typed "
            "into another application"
        )
        self.feedback_sounds.setChecked(settings.feedback_sounds)
        form.addRow(self.feedback_sounds)
        self.announce = QCheckBox(
            "Ann&ounce dictation to screen readers (each sentence; listening, stopped, asleep)"
        )
        self.announce.setChecked(settings.announce)
        form.addRow(self.announce)
        self.hotkey = QKeySequenceEdit(QKeySequence(settings.hotkey))
        self.hotkey.setMaximumSequenceLength(1)
        self.hotkey.setClearButtonEnabled(True)
        self.hotkey.setAccessibleName("Global shortcut to start and stop dictation")
        form.addRow("Global s&hortcut", self.hotkey)
        self.push_to_talk = QCheckBox(
            "Ho&ld the shortcut to talk: dictate while it is held (push-to-talk; X11, and "
            "Wayland desktops with the shortcuts portal)"
        )
        self.push_to_talk.setChecked(settings.push_to_talk)
        form.addRow(self.push_to_talk)
        bindings = QLabel(
            "Where the app cannot take a shortcut (Wayland without the shortcuts portal, "
            'macOS), bind "dictate toggle" in the desktop\'s keyboard settings:\n'
            + "\n".join(DESKTOP_BINDINGS)
        )
        bindings.setTextFormat(Qt.TextFormat.PlainText)
        bindings.setWordWrap(True)
        bindings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bindings.setVisible(not can_take_shortcuts())
        self.bindings = bindings
        form.addRow(bindings)
        self.history = QCheckBox("&Keep a history of what is dictated (View > History), for")
        self.history.setChecked(settings.history)
        self.history_days = QSpinBox()
        self.history_days.setRange(*HISTORY_DAYS_RANGE)
        self.history_days.setSuffix(" days")
        self.history_days.setValue(settings.history_days)
        self.history_mb = QSpinBox()
        self.history_mb.setRange(*HISTORY_MB_RANGE)
        self.history_mb.setSuffix(" MB at most")
        self.history_mb.setValue(settings.history_max_mb)
        limits = QHBoxLayout()
        for box, name in ((self.history_days, "Days"), (self.history_mb, "Size")):
            box.setAccessibleName(f"{name} the history keeps")
            box.setEnabled(settings.history)
            self.history.toggled.connect(box.setEnabled)
            limits.addWidget(box)
        form.addRow(self.history, limits)
        self.keep_audio = QCheckBox("Keep the audio of dictation, up to a &quota of")
        self.keep_audio.setToolTip(
            "To play sentences back and to recognise the last words again after a crash; the "
            "oldest sessions are deleted first."
        )
        self.keep_audio.setChecked(settings.keep_audio)
        self.audio_mb = QSpinBox()
        self.audio_mb.setRange(*AUDIO_MB_RANGE)
        self.audio_mb.setSuffix(" MB")
        self.audio_mb.setValue(settings.audio_max_mb)
        self.audio_mb.setAccessibleName("Size the kept audio may take")
        self.audio_mb.setEnabled(settings.keep_audio)
        self.keep_audio.toggled.connect(self.audio_mb.setEnabled)
        form.addRow(self.keep_audio, self.audio_mb)
        self.learn_words = QCheckBox("Learn words from my corrections (\u201ccorrect that\u201d)")
        self.learn_words.setChecked(settings.learn_words)
        form.addRow(self.learn_words)
        self.replacements = ReplacementsTable(settings.replacements)
        add = QPushButton("&Add replacement")
        add.clicked.connect(lambda: self.replacements.add_and_edit())
        remove = QPushButton("Delete replacemen&t")
        remove.clicked.connect(self.replacements.remove_selected)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        table_label = QLabel("&Replacements (spoken \u2192 written, after the written forms):")
        table_label.setBuddy(self.replacements)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        # What OK refused, until it is fixed (a message box would hide the table to fix).
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        self.problem.hide()
        # The form scrolls where the screen is small (its rows are taller than 768 pixels).
        page = QWidget()
        page.setLayout(form)
        scroll = QScrollArea()
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = scroll.verticalScrollBar().sizeHint().width()
        scroll.setMinimumWidth(page.minimumSizeHint().width() + bar)  # never scrolls sideways
        self.form_area = scroll
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(table_label)
        layout.addWidget(self.replacements)
        layout.addLayout(row)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self._fit_screen(page)

    def _fit_screen(self, page: QWidget) -> None:
        """Open showing the whole form where the screen has room, else as tall as it allows."""
        screen = self.screen()
        room = screen.availableGeometry().height() if screen is not None else 768
        rest = self.sizeHint().height() - self.form_area.sizeHint().height()
        height = min(page.sizeHint().height() + rest + 8, int(room * 0.9))
        self.resize(self.sizeHint().width(), max(height, self.minimumSizeHint().height()))

    def _hotkey_text(self) -> str:
        return self.hotkey.keySequence().toString(QKeySequence.SequenceFormat.PortableText)

    def problems(self) -> list[str]:
        """What OK refuses: replacements the app would leave out (a written form without a
        spoken phrase, a phrase given twice...), a global shortcut the app would refuse, and an
        editor font that is not installed."""
        entries = [
            {"spoken": s, "written": w}
            for s, w in self.replacements.rows()
            if s.strip() or w.strip()
        ]
        _, found = parse_replacements(entries)
        if self._hotkey_text():
            try:
                parse_shortcut(self._hotkey_text())
            except HotkeyError as exc:
                found.append(f"the global shortcut: {exc}")
        family = self.font_family.currentText().strip()
        if family and family not in QFontDatabase.families():
            # Stored as typed, then shown as whatever font Qt fell back to.
            found.append(f"the editor font: no font named {family!r} is installed")
        return found

    def accept(self) -> None:
        self.replacements.drop_empty_rows()  # rows left empty go
        found = self.problems()
        if found:
            self.problem.setText("Not saved: " + "; ".join(found) + ".")
            self.problem.show()
            return
        super().accept()

    @staticmethod
    def _select(combo: QComboBox, value: object) -> None:
        for i in range(combo.count()):
            if combo.itemData(i) == value:
                combo.setCurrentIndex(i)
                return

    def apply_to(self, settings: Settings) -> None:
        settings.input_device = self.device.currentData()
        settings.engine, settings.first_pass_model = self.engine.currentData()
        settings.second_pass = self.second_pass.currentData()
        settings.silence_ms = self.silence.value()
        settings.max_segment_s = self.max_segment.value()
        settings.commit_after_ms = self.commit_after.value() if self.commit.isChecked() else None
        settings.mode = self.mode.currentData()
        settings.min_right_words = self.right_words.value()
        settings.font_family = self.font_family.currentFont().family()
        settings.font_size = self.font_size.value()
        settings.written_forms = self.written_forms.isChecked()
        settings.voice_commands = self.voice_commands.isChecked()
        settings.replacements = self.replacements.entries()
        settings.target = self.target.currentData()
        settings.audio_file_target = self.audio_target.currentData()
        settings.typing_backend = self.backend.currentData()
        settings.clipboard_fallback = self.clipboard_fallback.isChecked()
        settings.show_overlay = self.show_overlay.isChecked()
        settings.feedback_sounds = self.feedback_sounds.isChecked()
        settings.announce = self.announce.isChecked()
        settings.hotkey = self._hotkey_text()
        settings.push_to_talk = self.push_to_talk.isChecked()
        settings.history = self.history.isChecked()
        settings.history_days = self.history_days.value()
        settings.history_max_mb = self.history_mb.value()
        settings.keep_audio = self.keep_audio.isChecked()
        settings.learn_words = self.learn_words.isChecked()
        settings.audio_max_mb = self.audio_mb.value()
