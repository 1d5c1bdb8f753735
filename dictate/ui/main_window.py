"""The main window: it builds the editor, the dictation toolbar, the menus and the status bar,
and holds the settings, the pickers, the tray icon and the global shortcut.

What the window does is in its bases: the document's file and autosave in
:class:`~dictate.ui.document_window.DocumentWindow`, dictation and its events in
:class:`~dictate.ui.dictation_window.DictationWindow`.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import deque
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QMessageBox,
    QProgressBar,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from dictate.config import Settings, save_settings
from dictate.editing.journal import Journal
from dictate.events import Live
from dictate.fileio import TextFormat
from dictate.ui.announcer import WindowAnnouncements
from dictate.ui.audio_import import AudioImport
from dictate.ui.audio_keeper import AudioKeeper
from dictate.ui.dialogs import SettingsDialog, device_choices, engine_choices
from dictate.ui.dictation_window import DictationWindow
from dictate.ui.dispatcher import EventDispatcher
from dictate.ui.editor import DictationEditor
from dictate.ui.find_bar import FindBar
from dictate.ui.global_shortcut import GlobalShortcutMixin
from dictate.ui.history_keeper import HistoryKeeper
from dictate.ui.message_bar import MessageBar
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.silence_watch import SilenceWatch
from dictate.ui.toolbar_picker import ToolbarPicker

log = logging.getLogger("dictate.ui")

DICTATE_KEY = "F9"
JOURNAL_RETRY_MS = 5000


class MainWindow(GlobalShortcutMixin, DictationWindow):
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
        self.text_format = TextFormat()  # the line breaks and byte-order mark Save keeps
        self._sphinx_noted = False
        self.modified = False
        self.punctuation_latency_ms: float | None = None
        self._segment_closed: dict[int, float] = {}
        self._heard: deque[tuple[list[str], list[list[str]]]] = deque(maxlen=100)
        self._partial_segment = 0
        self._shown_segment = 0
        self._live: Live | None = None  # the last live punctuation of the words being spoken
        self._typist: Any = None  # types finalized text into other applications ("apps" target)
        self._typing_closed: Any = None  # the last run's queue, closed, maybe still typing
        self._typing_context: Any = None  # what was typed last, and where (all runs)
        self.overlay: Any = None  # shown while typing into other applications
        self._sounds: Any = None  # the feedback sounds (dictate.output.sounds), once needed
        self._start_sound = ""  # "due" once listening, "played" at the first level; "" idle
        self._document_dialogs = 0  # >0 while a dialog decides the document's fate
        self.history = HistoryKeeper(self)  # what was dictated, where (View > History)
        self.setWindowTitle("dictate")
        self.resize(900, 640)

        self.editor = DictationEditor(journal)
        self.editor.journalStateChanged.connect(self._on_journal_state)
        self._journal_vanished = False
        self._retry_timer = QTimer(self)
        self._retry_timer.setInterval(JOURNAL_RETRY_MS)
        self._retry_timer.timeout.connect(self.retry_journal)
        self._save_error: str | None = None
        if settings.font_family:
            self.editor.setFont(QFont(settings.font_family))
        self.editor.set_font_size(settings.font_size)
        self.editor.textEdited.connect(self._on_text_edited)
        self.messages = MessageBar()
        self.write_problem = MessageBar(dismissable=False)
        self.find_bar = FindBar(self.editor)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.write_problem)
        layout.addWidget(self.messages)
        layout.addWidget(self.find_bar)
        layout.addWidget(self.editor, 1)
        self.setCentralWidget(central)

        self.controller = DictationController(settings, self)
        self.events = EventDispatcher()  # every part that handles pipeline events, in order
        self.controller.pipelineEvent.connect(self.events.dispatch)
        self.events.subscribe("document", self.handle_event)
        self.controller.loaded.connect(self._on_loaded)
        self.controller.failed.connect(self._on_start_failed)
        self.controller.stateChanged.connect(self._on_state)
        self.controller.micOpened.connect(self._on_mic_opened)
        self.controller.stateChanged.connect(self._sound_on_state)
        self.events.subscribe("sounds", self._sound_on_event)
        self.announcements = WindowAnnouncements(self)  # to screen readers
        self.kept_audio = AudioKeeper(self)  # each session's audio
        self.silence = SilenceWatch(self)  # a microphone giving only digital silence is said

        self._build_actions()
        self.audio_import = AudioImport(self)  # audio files
        self._build_toolbar()
        self._build_menus()
        self._build_status()
        self.update_title()

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
        # QAction.triggered(bool) would arrive as the first argument: these take no flag.
        self.open_action = self._action(
            "&Open…", QKeySequence.StandardKey.Open, lambda: self.open_document()
        )
        self.save_action = self._action("&Save", QKeySequence.StandardKey.Save, lambda: self.save())
        self.save_as_action = self._action("Save &As…", "Ctrl+Shift+S", lambda: self.save_as())
        self.copy_all_action = self._action("&Copy All", "Ctrl+Shift+C", self.copy_all)
        self.quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.undo_action = self._action(
            "&Undo", QKeySequence.StandardKey.Undo, self.editor.undo_edit
        )
        self.redo_action = self._action(
            "&Redo", QKeySequence.StandardKey.Redo, self.editor.redo_edit
        )
        editor = self.editor
        self.cut_action = self._action("Cu&t", QKeySequence.StandardKey.Cut, editor.cut)
        self.copy_action = self._action("&Copy", QKeySequence.StandardKey.Copy, editor.copy)
        self.paste_action = self._action("&Paste", QKeySequence.StandardKey.Paste, editor.paste)
        self.select_all_action = self._action(
            "Select &All", QKeySequence.StandardKey.SelectAll, editor.selectAll
        )
        self.find_action = self._action("&Find…", QKeySequence.StandardKey.Find, self.find_bar.open)
        self.find_next_action = self._action(
            "Find &Next", QKeySequence.StandardKey.FindNext, lambda: self.find_bar.find_next()
        )
        self.find_previous_action = self._action(
            "Find Pre&vious",
            QKeySequence.StandardKey.FindPrevious,
            lambda: self.find_bar.find_next(backward=True),
        )
        for action in (self.cut_action, self.copy_action, self.paste_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # Cut and Copy only with something selected, as in the right-click menu.
        for action in (self.cut_action, self.copy_action):
            action.setEnabled(False)
            editor.copyAvailable.connect(action.setEnabled)
        self.settings_action = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.bigger_action = self._action(
            "&Larger text", QKeySequence.StandardKey.ZoomIn, lambda: self._zoom(1)
        )
        self.smaller_action = self._action(
            "S&maller text", QKeySequence.StandardKey.ZoomOut, lambda: self._zoom(-1)
        )
        self.focus_mic_action = self._action("Choose &microphone", "Ctrl+M", self._focus_mic)
        self.get_model_action = self._action("&Get a speech model…", None, self.offer_model)
        self.about_action = self._action("&About dictate", None, self.show_about)
        self.target_action = self._action(
            "&Type into other applications", "Ctrl+Shift+T", self._on_target_toggled
        )
        self.target_action.setCheckable(True)  # ticked by _show_target
        self.history_action = self._action("Dictation &history…", "Ctrl+H", self.history.show)

    def _build_toolbar(self) -> None:
        bar = QToolBar("Dictation")
        bar.setObjectName("dictation-toolbar")
        bar.addAction(self.dictate_action)
        button = bar.widgetForAction(self.dictate_action)
        if button is not None:  # as wide as its widest label: the controls after it stay put
            metrics = button.fontMetrics()
            labels = ("Dictate", "Starting…", "Stop dictating", "Finishing…")
            extra = max(map(metrics.horizontalAdvance, labels)) - metrics.horizontalAdvance(
                self.dictate_action.text().replace("&", "")
            )
            button.setMinimumWidth(button.sizeHint().width() + extra)
        self.mic_combo = ToolbarPicker()
        self.mic_combo.setAccessibleName("Microphone")
        self.mic_combo.setToolTip("Microphone (Ctrl+M)")
        self.refresh_devices()
        self.mic_combo.activated.connect(self._on_mic_chosen)
        self.mic_combo.popupClosed.connect(self._back_to_text)
        bar.addWidget(self.mic_combo)
        self.level = QProgressBar()
        self.level.setRange(-60, 0)
        self.level.setValue(-60)
        self.level.setTextVisible(False)
        self.level.setMaximumWidth(140)
        self.level.setMaximumHeight(10)  # a thin bar reads as a meter, not as a text field
        self.level.setAccessibleName("Input level")
        self.level.setToolTip("Input level (dBFS)")
        bar.addWidget(self.level)
        self.engine_combo = ToolbarPicker()
        self.engine_combo.setAccessibleName("Speech engine and model")
        self.engine_combo.setToolTip("Speech engine and model")
        self.refresh_engines()
        self.engine_combo.activated.connect(self._on_engine_chosen)
        self.engine_combo.popupClosed.connect(self._back_to_text)
        bar.addWidget(self.engine_combo)
        self.addToolBar(bar)

    def _build_menus(self) -> None:
        menus = self.menuBar()
        file_menu = menus.addMenu("&File")
        for action in (
            self.new_action,
            self.open_action,
            self.audio_import.transcribe_action,
            self.save_action,
            self.save_as_action,
            self.audio_import.export_action,
            self.copy_all_action,
            self.quit_action,
        ):
            file_menu.addAction(action)
        edit = menus.addMenu("&Edit")
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        for action in (
            self.cut_action,
            self.copy_action,
            self.paste_action,
            self.select_all_action,
        ):
            edit.addAction(action)
        edit.addSeparator()
        for action in (self.find_action, self.find_next_action, self.find_previous_action):
            edit.addAction(action)
        dictation = menus.addMenu("D&ictation")
        dictation.addAction(self.dictate_action)
        dictation.addAction(self.target_action)
        dictation.addAction(self.focus_mic_action)
        dictation.addAction(self.get_model_action)
        dictation.addAction(self.settings_action)
        view = menus.addMenu("&View")
        view.addAction(self.bigger_action)
        view.addAction(self.smaller_action)
        view.addAction(self.history_action)
        help_menu = menus.addMenu("&Help")
        self.voice_commands_action = self._action(
            "&Voice commands…", "F1", lambda: self.show_voice_commands(True)
        )
        help_menu.addAction(self.voice_commands_action)
        help_menu.addAction(self.about_action)

    def _build_status(self) -> None:
        self.target_label = QLabel()
        self.target_label.setToolTip(
            "Where dictated text goes; Dictation > Type into other applications (Ctrl+Shift+T) "
            "changes it"
        )
        self._show_target()
        self.statusBar().addPermanentWidget(self.target_label)
        self.engine_label = QLabel("Engine: not loaded")
        self.provider_label = QLabel("Punctuation: -")
        self.latency_label = QLabel("")
        self.dropped_label = QLabel("")
        for label in (self.engine_label, self.provider_label, self.latency_label):
            self.statusBar().addPermanentWidget(label)
        self.statusBar().addWidget(self.dropped_label)
        self._build_progress()

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
        self.settings_changed()
        self.editor.setFocus()  # Ctrl+M, arrows, Return: then back to the text

    def _on_engine_chosen(self, index: int) -> None:
        self.settings.engine, self.settings.vosk_model = self.engine_combo.itemData(index)
        self.controller.forget_engine()
        self.settings_changed()
        self.editor.setFocus()

    def _back_to_text(self) -> None:
        self.editor.setFocus()

    def _focus_mic(self) -> None:
        self.refresh_devices(rescan=True)  # a device may have come back since the list was made
        self.mic_combo.setFocus()
        self.mic_combo.showPopup()

    def settings_changed(self) -> None:
        if self.controller.waiting_settings():  # a run keeps the settings it started with
            self.messages.show_message(
                "Changed settings apply from the next dictation run: press F9 twice to restart "
                "dictation now (what was heard is kept)."
            )
        if not self._save_settings:
            return
        try:
            save_settings(self.settings)
        except OSError as exc:
            self.messages.show_message(
                f"Could not save the settings ({exc.strerror or exc}); they apply until dictate "
                "closes. Free some space or check the permissions of the settings folder."
            )

    def open_settings(self) -> None:
        self.refresh_devices(rescan=True)
        dialog = SettingsDialog(self.settings, self)
        if dialog.exec():
            hotkey, history = self.settings.hotkey, self.settings.history
            audio = self.settings.keep_audio
            dialog.apply_to(self.settings)
            self._apply_settings(hotkey)
            self.history.settings_changed(history, self)
            self.kept_audio.settings_changed(audio, self)

    def reload_settings(self) -> None:
        """Take the settings file as it is now: another process changed it (``dictate devices
        --use``), and the next change here would otherwise write the old values back."""
        from dictate.config import load_settings

        saved = load_settings()
        if saved == self.settings:
            return
        hotkey = self.settings.hotkey
        for field in dataclasses.fields(saved):
            setattr(self.settings, field.name, getattr(saved, field.name))
        self._apply_settings(hotkey)

    def _apply_settings(self, hotkey_before: str) -> None:
        """Everything shown or held that depends on the settings, after they changed."""
        self._show_target()
        if self.settings.hotkey != hotkey_before and getattr(self, "_hotkey", None) is not None:
            self.start_global_hotkey()
        self.controller.forget_engine()
        if self.settings.font_family:
            self.editor.setFont(QFont(self.settings.font_family))
        self.editor.set_font_size(self.settings.font_size)
        self.refresh_devices()
        self.refresh_engines()
        self.settings_changed()

    def _zoom(self, step: int) -> None:
        self.settings.font_size = max(6, min(72, self.settings.font_size + step))
        self.editor.set_font_size(self.settings.font_size)
        self.settings_changed()

    # -- dictation -------------------------------------------------------------------------

    def attach_tray(self) -> None:
        """The tray icon (where the desktop has a tray): state, start/stop, target, quit. The
        app does this at start; tests and the self-test do not."""
        from dictate.ui.tray import attach_tray

        self.tray = attach_tray(self)

    # -- feedback: the overlay's "✓ Committed" and the sounds (Settings: feedback_sounds) ------

    def about_text(self) -> str:
        """Version, the models in use and their licences (Help > About)."""
        from dictate.ui.about import about_html

        engine = self.engine_label.toolTip() or self.engine_label.text().removeprefix("Engine: ")
        return about_html(engine)

    def show_about(self) -> None:
        QMessageBox.about(self, "About dictate", self.about_text())

    def show_voice_commands(self, activate: bool | None = None) -> None:
        """The voice commands (Help > Voice commands, "what can I say"): one dialog, not modal,
        raised; it takes the focus if ``activate`` (None: unless typing into other apps)."""
        from dictate.ui.dialogs import VoiceCommandsDialog

        if activate is None:  # the application typed into keeps the focus
            activate = self.settings.target != "apps" or self.controller.state == "idle"
        VoiceCommandsDialog.show_for(self, activate, self.dictate_action)

    def offer_model(self) -> None:
        from dictate.ui.dialogs import ModelDialog

        dialog = ModelDialog(self)
        dialog.exec()
        self.settings.first_run_done = True
        if dialog.installed_path is not None:
            from dictate.asr.registry import VOSK

            self.settings.engine, self.settings.vosk_model = VOSK.name, dialog.installed_path.name
            self.controller.forget_engine()
        self.refresh_engines()
        self.settings_changed()

    # -- closing ---------------------------------------------------------------------------

    def finish_dictation(self, timeout: float = 20.0) -> None:
        """Stop, wait for the run to flush, and apply its last events (nothing is lost). The
        wait goes on while events still come (a loaded machine catching up takes longer than
        any fixed time); it ends after ``timeout`` seconds without one (what is left of the
        run is then in its kept audio, recognised at the next start)."""
        if self.controller.state == "idle":
            return
        self.controller.stop()
        self.statusBar().showMessage("Finishing dictation…")
        last = [time.monotonic()]

        def arrived(event: object) -> None:
            last[0] = time.monotonic()

        self.events.subscribe("observer", arrived)
        try:
            while self.controller.state != "idle" and time.monotonic() - last[0] < timeout:
                self.controller.wait(0.05)
                QCoreApplication.processEvents()
        finally:
            self.events.unsubscribe(arrived)
        self.statusBar().clearMessage()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.finish_dictation()
        self._finish_typing()
        if not self.confirm_discard():
            event.ignore()
            return
        self.editor.buffer.close_journal(clean=True)
        self.controller.release()  # the recogniser's child processes end with the window
        if self.overlay is not None:
            self.overlay.close()
        hotkey = getattr(self, "_hotkey", None)
        if hotkey is not None:
            hotkey.close()
        event.accept()
