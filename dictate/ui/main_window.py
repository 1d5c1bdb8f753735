"""The main window: editor, dictation toolbar, menus, status bar, messages, autosave."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QFont, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from dictate.config import Settings, save_settings
from dictate.journal import Journal
from dictate.pipeline import (
    Error,
    Event,
    Finalized,
    Finished,
    Level,
    Partial,
    Pending,
    Segment,
)
from dictate.ui.controller import DictationController, Loaded
from dictate.ui.dialogs import SettingsDialog, device_choices, engine_choices
from dictate.ui.editor import DictationEditor

log = logging.getLogger("dictate.ui")

DICTATE_KEY = "F9"
FILE_FILTER = "Text (*.txt);;Markdown (*.md);;All files (*)"


class MessageBar(QFrame):
    """A message inside the window with up to two actions and a close button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Message")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons: list[QPushButton] = []
        self.close_button = QPushButton("Dismiss")
        self.close_button.clicked.connect(self.hide)
        self._row = QHBoxLayout(self)
        self._row.addWidget(self.label, 1)
        self._row.addWidget(self.close_button)
        self.hide()

    def show_message(self, text: str, actions: list[tuple[str, object]] | None = None) -> None:
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        for label, slot in actions or []:
            button = QPushButton(label)
            button.clicked.connect(slot)
            button.clicked.connect(self.hide)
            self._row.insertWidget(self._row.count() - 1, button)
            self.buttons.append(button)
        self.label.setText(text)
        self.show()


class MainWindow(QMainWindow):
    """The dictation window.

    Args:
        settings: User settings (saved when changed).
        journal: The autosave journal; every change of the text goes through it.
        save_settings_on_change: Write settings to disk when the user changes them.
    """

    def __init__(
        self, settings: Settings, journal: Journal, save_settings_on_change: bool = True
    ) -> None:
        super().__init__()
        self.settings = settings
        self.journal = journal
        self._save_settings = save_settings_on_change
        self.path: Path | None = None
        self.modified = False
        self.punctuation_latency_ms: float | None = None
        self._segment_closed: dict[int, float] = {}
        self._partial_segment = 0
        self._shown_segment = 0
        self.setWindowTitle("dictate")
        self.resize(900, 640)

        self.editor = DictationEditor(journal)
        if settings.font_family:
            self.editor.setFont(QFont(settings.font_family))
        self.editor.set_font_size(settings.font_size)
        self.editor.textEdited.connect(self._on_text_edited)
        self.messages = MessageBar()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.messages)
        layout.addWidget(self.editor, 1)
        self.setCentralWidget(central)

        self.controller = DictationController(settings, self)
        self.controller.pipelineEvent.connect(self.handle_event)
        self.controller.loaded.connect(self._on_loaded)
        self.controller.failed.connect(self._on_start_failed)
        self.controller.stateChanged.connect(self._on_state)

        self._build_actions()
        self._build_toolbar()
        self._build_menus()
        self._build_status()
        self._update_title()

    # -- construction ----------------------------------------------------------------------

    def _action(
        self, text: str, shortcut: QKeySequence | QKeySequence.StandardKey | str | None, slot: Any
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{text.replace('&', '').rstrip('…')} ({keys})")
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        self.dictate_action = self._action("&Dictate", DICTATE_KEY, self.toggle_dictation)
        self.dictate_action.setCheckable(True)
        self.dictate_action.setToolTip(f"Start or stop dictation ({DICTATE_KEY})")
        self.new_action = self._action("&New", QKeySequence.StandardKey.New, self.new_document)
        self.open_action = self._action("&Open…", QKeySequence.StandardKey.Open, self.open_document)
        self.save_action = self._action("&Save", QKeySequence.StandardKey.Save, self.save)
        self.save_as_action = self._action("Save &As…", "Ctrl+Shift+S", self.save_as)
        self.copy_all_action = self._action("&Copy All", "Ctrl+Shift+C", self.copy_all)
        self.quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.undo_action = self._action(
            "&Undo", QKeySequence.StandardKey.Undo, self.editor.undo_edit
        )
        self.redo_action = self._action(
            "&Redo", QKeySequence.StandardKey.Redo, self.editor.redo_edit
        )
        self.settings_action = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.bigger_action = self._action(
            "&Larger text", QKeySequence.StandardKey.ZoomIn, lambda: self._zoom(1)
        )
        self.smaller_action = self._action(
            "S&maller text", QKeySequence.StandardKey.ZoomOut, lambda: self._zoom(-1)
        )
        self.focus_mic_action = self._action("Choose &microphone", "Ctrl+M", self._focus_mic)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Dictation")
        bar.setObjectName("dictation-toolbar")
        bar.addAction(self.dictate_action)
        self.mic_combo = QComboBox()
        self.mic_combo.setAccessibleName("Microphone")
        self.mic_combo.setToolTip("Microphone (Ctrl+M)")
        self.refresh_devices()
        self.mic_combo.activated.connect(self._on_mic_chosen)
        bar.addWidget(self.mic_combo)
        self.level = QProgressBar()
        self.level.setRange(-60, 0)
        self.level.setValue(-60)
        self.level.setTextVisible(False)
        self.level.setMaximumWidth(140)
        self.level.setAccessibleName("Input level")
        self.level.setToolTip("Input level (dBFS)")
        bar.addWidget(self.level)
        self.engine_combo = QComboBox()
        self.engine_combo.setAccessibleName("Speech engine and model")
        self.engine_combo.setToolTip("Speech engine and model")
        self.refresh_engines()
        self.engine_combo.activated.connect(self._on_engine_chosen)
        bar.addWidget(self.engine_combo)
        self.addToolBar(bar)

    def _build_menus(self) -> None:
        menus = self.menuBar()
        file_menu = menus.addMenu("&File")
        for action in (
            self.new_action,
            self.open_action,
            self.save_action,
            self.save_as_action,
            self.copy_all_action,
            self.quit_action,
        ):
            file_menu.addAction(action)
        edit = menus.addMenu("&Edit")
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        dictation = menus.addMenu("D&ictation")
        dictation.addAction(self.dictate_action)
        dictation.addAction(self.focus_mic_action)
        dictation.addAction(self.settings_action)
        view = menus.addMenu("&View")
        view.addAction(self.bigger_action)
        view.addAction(self.smaller_action)

    def _build_status(self) -> None:
        self.engine_label = QLabel("Engine: not loaded")
        self.provider_label = QLabel("Punctuation: -")
        self.latency_label = QLabel("")
        self.dropped_label = QLabel("")
        for label in (self.engine_label, self.provider_label, self.latency_label):
            self.statusBar().addPermanentWidget(label)
        self.statusBar().addWidget(self.dropped_label)

    # -- pickers ---------------------------------------------------------------------------

    def refresh_devices(self, rescan: bool = False) -> None:
        """Fill the microphone picker; ``rescan`` makes PortAudio look for devices again
        (only while no stream is open: after a run, or before one)."""
        if rescan and self.controller.state == "idle":
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
            if self.mic_combo.itemData(i) == self.settings.input_device:
                self.mic_combo.setCurrentIndex(i)
        if error:
            self.mic_combo.setToolTip(error)

    def refresh_engines(self) -> None:
        self.engine_combo.clear()
        for label, engine, model in engine_choices():
            self.engine_combo.addItem(label, (engine, model))
            if (engine, model) == (self.settings.engine, self.settings.vosk_model):
                self.engine_combo.setCurrentIndex(self.engine_combo.count() - 1)

    def _on_mic_chosen(self, index: int) -> None:
        self.settings.input_device = self.mic_combo.itemData(index)
        self._settings_changed()

    def _on_engine_chosen(self, index: int) -> None:
        self.settings.engine, self.settings.vosk_model = self.engine_combo.itemData(index)
        self.controller.forget_engine()
        self._settings_changed()

    def _focus_mic(self) -> None:
        self.mic_combo.setFocus()
        self.mic_combo.showPopup()

    def _settings_changed(self) -> None:
        if self._save_settings:
            save_settings(self.settings)

    def open_settings(self) -> None:
        self.refresh_devices(rescan=True)
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            dialog.apply_to(self.settings)
            self.controller.forget_engine()
            if self.settings.font_family:
                self.editor.setFont(QFont(self.settings.font_family))
            self.editor.set_font_size(self.settings.font_size)
            self.refresh_devices()
            self.refresh_engines()
            self._settings_changed()

    def _zoom(self, step: int) -> None:
        self.settings.font_size = max(6, min(72, self.settings.font_size + step))
        self.editor.set_font_size(self.settings.font_size)
        self._settings_changed()

    # -- dictation -------------------------------------------------------------------------

    def toggle_dictation(self) -> None:
        if self.controller.state == "idle":
            self.start_dictation()
        else:
            self.stop_dictation()

    def start_dictation(self, source_factory: object = None) -> None:
        self.messages.hide()
        self.controller.start(source_factory)

    def stop_dictation(self) -> None:
        self.controller.stop()

    def _on_state(self, state: str) -> None:
        self.dictate_action.setChecked(state in ("starting", "listening"))
        self.dictate_action.setText(
            {"idle": "&Dictate", "starting": "Starting…", "stopping": "Finishing…"}.get(
                state, "Stop &dictating"
            )
        )
        self.statusBar().showMessage(
            {"listening": "Listening…", "starting": "Loading…", "stopping": "Finishing…"}.get(
                state, ""
            )
        )

    def _on_loaded(self, loaded: Loaded) -> None:
        self.engine_label.setText(f"Engine: {loaded.engine_label}")
        self.provider_label.setText(
            f"Punctuation on {loaded.provider.replace('ExecutionProvider', '')}"
        )
        if "low accuracy" in loaded.engine_label:
            self.messages.show_message(
                "Dictating with the bundled PocketSphinx engine, which is much less accurate. "
                "Install a Vosk model for better results.",
                [("Get a model…", self.offer_model)],
            )

    def _on_start_failed(self, message: str) -> None:
        self.dictate_action.setChecked(False)
        actions: list[tuple[str, object]]
        if "model" in message.lower():  # missing or corrupt speech / punctuation model
            actions = [
                ("Get a model…", self.offer_model),
                ("Use the bundled engine", self._use_bundled_engine),
            ]
        else:
            actions = [("Choose microphone", self._focus_mic), ("Try again", self.start_dictation)]
        self.messages.show_message(message, actions)

    def _use_bundled_engine(self) -> None:
        self.settings.engine, self.settings.vosk_model = "sphinx", None
        self.controller.forget_engine()
        self.refresh_engines()
        self._settings_changed()

    def handle_event(self, event: Event) -> None:
        """Apply one pipeline event to the window (called on the GUI thread)."""
        if isinstance(event, Level):
            self.level.setValue(max(-60, min(0, round(event.dbfs))))
        elif isinstance(event, Partial):
            if event.segment > self._shown_segment:
                self._partial_segment = event.segment
                self.editor.set_dictation(partial=" ".join(event.words))
        elif isinstance(event, Segment):
            self._segment_closed[event.segment] = time.monotonic()
        elif isinstance(event, Finalized):
            self.editor.insert_final(event.text)
        elif isinstance(event, Pending):
            self.journal.pending(event.text)
            self._shown_segment = max(self._shown_segment, event.segment)
            clear_partial = self._partial_segment <= event.segment
            self.editor.set_dictation(pending=event.text, partial="" if clear_partial else None)
            closed = self._segment_closed.pop(event.segment, None)
            if closed is not None:
                self.punctuation_latency_ms = 1000 * (time.monotonic() - closed)
                self.latency_label.setText(f"Latency {self.punctuation_latency_ms:.0f} ms")
        elif isinstance(event, Error):
            actions: list[tuple[str, object]] = []
            if event.fatal:
                self.refresh_devices()
                actions = [
                    ("Choose microphone", self._focus_mic),
                    ("Resume dictation", self.start_dictation),
                ]
            self.messages.show_message(event.message, actions)
        elif isinstance(event, Finished):
            if event.reason == "error":
                # The device may be gone, or another may have appeared: list them afresh.
                QTimer.singleShot(0, lambda: self.refresh_devices(rescan=True))
            self.editor.clear_dictation()
            self.journal.pending("")
            self.level.setValue(-60)
            self._partial_segment = self._shown_segment = 0
            self._segment_closed.clear()
            if event.dropped_blocks:
                self.dropped_label.setText(f"{event.dropped_blocks} audio blocks dropped")

    def offer_model(self) -> None:
        from dictate.ui.dialogs import ModelDialog

        dialog = ModelDialog(self)
        dialog.exec()
        self.settings.first_run_done = True
        if dialog.installed_path is not None:
            self.settings.engine, self.settings.vosk_model = "vosk", dialog.installed_path.name
            self.controller.forget_engine()
        self.refresh_engines()
        self._settings_changed()

    # -- documents -------------------------------------------------------------------------

    def _on_text_edited(self) -> None:
        self.undo_action.setEnabled(self.editor.can_undo())
        self.redo_action.setEnabled(self.editor.can_redo())
        self.modified = True
        self._update_title()
        self.journal.maybe_compact(
            self.editor.text, self.editor.pending_text, str(self.path) if self.path else None
        )

    def _update_title(self) -> None:
        name = self.path.name if self.path else "Untitled"
        self.setWindowTitle(f"{'*' if self.modified else ''}{name} - dictate")

    def _confirm_discard(self) -> bool:
        if not self.modified or not self.editor.text:
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved text",
            "Save the current text first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_document(self) -> None:
        if self.controller.state != "idle" or not self._confirm_discard():
            return
        self.load_text("", None)

    def load_text(self, text: str, path: Path | None) -> None:
        self.journal.reset(text, str(path) if path else None)
        self.editor.set_text(text)
        self.path = path
        self.modified = False
        self._update_title()

    def open_document(self, path: str | Path | None = None) -> None:
        if self.controller.state != "idle" or not self._confirm_discard():
            return
        if path is None:
            chosen, _ = QFileDialog.getOpenFileName(self, "Open", "", FILE_FILTER)
            if not chosen:
                return
            path = chosen
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            self.messages.show_message(f"Could not open {path}: {exc}")
            return
        self.load_text(text, Path(path))

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self, path: str | Path | None = None) -> bool:
        if path is None:
            chosen, _ = QFileDialog.getSaveFileName(self, "Save as", "", FILE_FILTER)
            if not chosen:
                return False
            path = chosen
        if self._write(Path(path)):
            self.path = Path(path)
            self.journal.set_path(str(self.path))
            self._update_title()
            return True
        return False

    def _write(self, path: Path) -> bool:
        import os
        import tempfile

        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(self.editor.text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            self.messages.show_message(f"Could not save {path}: {exc}. Your text is still here.")
            return False
        self.modified = False
        self._update_title()
        self.statusBar().showMessage(f"Saved {path}", 3000)
        return True

    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self.editor.text)

    # -- closing ---------------------------------------------------------------------------

    def finish_dictation(self, timeout: float = 20.0) -> None:
        """Stop, wait for the run to flush, and apply its last events (nothing is lost)."""
        if self.controller.state == "idle":
            return
        self.controller.stop()
        deadline = time.monotonic() + timeout
        while self.controller.state != "idle" and time.monotonic() < deadline:
            self.controller.wait(0.05)
            QCoreApplication.processEvents()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.finish_dictation()
        if not self._confirm_discard():
            event.ignore()
            return
        self.journal.close(clean=True)
        event.accept()
