"""The main window: editor, dictation toolbar, menus, status bar, messages, autosave."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import html
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QObject,
    QStandardPaths,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QCloseEvent, QFont, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
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

from dictate.commands import BREAKS, CommandKind
from dictate.config import Settings, save_settings
from dictate.dictation import live_partial
from dictate.editing.journal import Journal
from dictate.errors import AudioError, DictateError, ModelError, as_sentence
from dictate.events import (
    Command,
    Error,
    Event,
    Finalized,
    Finished,
    Level,
    Live,
    Partial,
    Pending,
    Segment,
)
from dictate.fileio import TextFormat, atomic_write
from dictate.ui.controller import DictationController, Loaded
from dictate.ui.dialogs import SettingsDialog, device_choices, engine_choices
from dictate.ui.editor import DictationEditor
from dictate.ui.find_bar import FindBar

log = logging.getLogger("dictate.ui")

DICTATE_KEY = "F9"
JOURNAL_RETRY_MS = 5000
FILE_FILTER = "Text (*.txt);;Markdown (*.md);;All files (*)"
_FILTER_SUFFIX = {"Text (*.txt)": ".txt", "Markdown (*.md)": ".md"}


DICTATION_STOPPED = "dictation stopped"
"""The event after which "stop dictation first" is no longer true
(:meth:`MessageBar.no_longer_true`)."""


class ToolbarPicker(QComboBox):
    """A toolbar list that gives the keyboard back to the text when its list closes without a
    choice (Escape, a click elsewhere): focus left in it after Ctrl+M, Escape made the next
    typed letters pick another microphone instead of reaching the text."""

    popupClosed = Signal()

    def showPopup(self) -> None:
        super().showPopup()
        # Escape closes the popup without hidePopup(): watch its window instead.
        container = self.view().window()
        if container is not self.window():
            container.removeEventFilter(self)
            container.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Hide and watched is self.view().window():
            # After the event loop: the closing popup hands the focus back to this list first.
            QTimer.singleShot(0, self, self.popupClosed.emit)
        return super().eventFilter(watched, event)


class MessageBar(QFrame):
    """A message inside the window with up to two actions and a close button."""

    def __init__(self, parent: QWidget | None = None, dismissable: bool = True) -> None:
        super().__init__(parent)
        self.dismissable = dismissable
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Message" if dismissable else "Problem saving your text")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons: list[QPushButton] = []
        self.close_button = QPushButton("&Dismiss")
        self.close_button.clicked.connect(self.hide)
        self._row = QHBoxLayout(self)
        self._row.addWidget(self.label, 1)
        self._row.addWidget(self.close_button)
        self.close_button.setVisible(dismissable)
        self.until: str | None = None
        self.hide()

    def show_message(
        self,
        text: str,
        actions: list[tuple[str, object]] | None = None,
        *,
        until: str | None = None,
    ) -> None:
        """Show ``text`` (replacing what is shown) with its action buttons; ``until`` names the
        event after which it is no longer true (see :meth:`no_longer_true`)."""
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        self.until = until
        self._add_buttons(actions)
        self.label.setText(as_sentence(text))
        self.show()

    def add_message(self, text: str, actions: list[tuple[str, object]] | None = None) -> None:
        """Show ``text`` below what is shown, if anything is, instead of replacing it: a notice
        that comes later must not hide a problem the user has not read yet."""
        if self.isHidden() or not self.label.text():
            self.show_message(text, actions)
            return
        self.until = None  # the whole is no longer one event's message
        self._add_buttons(actions)
        self.label.setText(f"{self.label.text()}\n{as_sentence(text)}")

    def no_longer_true(self, event: str) -> None:
        """``event`` happened: hide the message if it was only true until then ("stop
        dictation first", once dictation has stopped)."""
        if self.until == event and not self.isHidden():
            self.hide()

    def _add_buttons(self, actions: list[tuple[str, object]] | None) -> None:
        for label, slot in actions or []:
            button = QPushButton(label)
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            if self.dismissable:
                button.clicked.connect(self.hide)
            self._row.insertWidget(self._row.count() - 1, button)
            self.buttons.append(button)


class _TypingSignals(QObject):
    """Brings the typing thread's results to the GUI thread."""

    failed = Signal(object)
    scratched = Signal(str)
    typed = Signal(str)


MAX_OPEN_BYTES = 32 * 2**20
"""Largest file Open reads: a dictated document is far smaller, and the editor and the
journal (which rewrites the whole text on load) slow down long before memory runs out."""


def ask_save_first(parent: QWidget) -> QMessageBox.StandardButton:
    """ "Save the current text first?" with Save (the default), Discard and Cancel (Escape);
    Alt+S and Alt+D choose, as on every other button of the app."""
    buttons = QMessageBox.StandardButton
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Unsaved text",
        "Save the current text first?",
        buttons.Save | buttons.Discard | buttons.Cancel,
        parent,
    )
    for button, text in ((buttons.Save, "&Save"), (buttons.Discard, "&Discard")):
        box.button(button).setText(text)
    box.setDefaultButton(buttons.Save)
    box.setEscapeButton(buttons.Cancel)
    return buttons(box.exec())


def start_folder(document: Path | None) -> str:
    """Where Open and Save As start: the current document's folder, else the user's documents
    folder (else home). Never the working directory: a launcher or the installer may have
    started the app in a source checkout, which is not where anyone keeps their texts."""
    if document is not None and document.parent.is_dir():
        return str(document.parent.resolve())
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return documents
    return str(Path.home())


def choose_save_path(parent: QWidget, document: Path | None = None) -> str | None:
    """The Save As dialog, in :func:`start_folder` of ``document`` (the current one's path);
    a name typed without an extension gets the chosen filter's (".txt" by default), before the
    dialog asks whether to replace an existing file. None: cancelled."""
    dialog = QFileDialog(parent, "Save as", start_folder(document), FILE_FILTER)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setDefaultSuffix(_FILTER_SUFFIX["Text (*.txt)"][1:])
    dialog.filterSelected.connect(
        lambda chosen: dialog.setDefaultSuffix(_FILTER_SUFFIX.get(chosen, "")[1:])
    )
    if not dialog.exec() or not dialog.selectedFiles():
        return None
    return dialog.selectedFiles()[0]


def _save_advice(exc: OSError) -> str:
    """What a user can do about a failed save, by its cause."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space, or choose another place with Save As."
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "it may not be changed there; choose another name or place with Save As."
    return "choose another place with Save As."


def _autosave_advice(exc: OSError) -> str:
    """What a user can do about an autosave that fails, by its cause (a read-only folder is not
    helped by freeing space)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space, or save your text elsewhere with Save As."
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return (
            "the folder may not be written (read-only, or its permissions changed): make it "
            "writable, or save your text elsewhere with Save As."
        )
    if exc.errno in (errno.ENOENT, errno.ESTALE, errno.ENODEV, errno.EIO):
        return (
            "the folder or its disk went away: connect it again, or save your text elsewhere "
            "with Save As."
        )
    return "save your text elsewhere with Save As."


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
        self.text_format = TextFormat()  # the line breaks and byte-order mark Save keeps
        self._sphinx_noted = False
        self.modified = False
        self.punctuation_latency_ms: float | None = None
        self._segment_closed: dict[int, float] = {}
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
        self.controller.pipelineEvent.connect(self.handle_event)
        self.controller.loaded.connect(self._on_loaded)
        self.controller.failed.connect(self._on_start_failed)
        self.controller.stateChanged.connect(self._on_state)
        self.controller.stateChanged.connect(self._sound_on_state)
        self.controller.pipelineEvent.connect(self._sound_on_event)  # after handle_event

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
            self.save_action,
            self.save_as_action,
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
        help_menu = menus.addMenu("&Help")
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
        self.editor.setFocus()  # Ctrl+M, arrows, Return: then back to the text

    def _on_engine_chosen(self, index: int) -> None:
        self.settings.engine, self.settings.vosk_model = self.engine_combo.itemData(index)
        self.controller.forget_engine()
        self._settings_changed()
        self.editor.setFocus()

    def _back_to_text(self) -> None:
        self.editor.setFocus()

    def _focus_mic(self) -> None:
        self.refresh_devices(rescan=True)  # a device may have come back since the list was made
        self.mic_combo.setFocus()
        self.mic_combo.showPopup()

    def _settings_changed(self) -> None:
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
            hotkey = self.settings.hotkey
            dialog.apply_to(self.settings)
            self._apply_settings(hotkey)

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

    def start_refused(self) -> str | None:
        """Why dictation cannot start now, or None (whether it then starts is up to the
        microphone and the models: that is reported in the window)."""
        if self._document_dialogs:
            # `dictate start` or the global shortcut behind "Save the current text first?" or
            # Open: the words would miss the text being saved, or go into a document about to
            # be replaced.
            return "answer the open dialog first"
        if QApplication.activeModalWidget() is not None:
            # Settings, the speech model dialog...: this window, and its Stop, cannot be
            # reached until it is closed.
            return "close the open dialog first"
        return None

    def start_dictation(self, source_factory: object = None) -> None:
        if self.controller.state != "idle":  # `dictate start` while already dictating
            return
        refused = self.start_refused()
        if refused:
            # Seen once the dialog is closed: it must still be true then.
            self.messages.show_message(
                f"Dictation did not start: {refused}, then start it again (F9)."
            )
            return
        self.messages.hide()
        self._typist = self._make_typist() if self.settings.target == "apps" else None
        if self._typist is not None and self.settings.show_overlay:
            self._show_overlay()
        self.controller.start(source_factory)

    def _show_overlay(self) -> None:
        """The always-on-top overlay for dictation into other applications: level, partial and
        pending words, never taking the focus (see dictate/ui/overlay.py)."""
        from dictate.ui.overlay import DictationOverlay

        if self.overlay is None:
            self.overlay = DictationOverlay()  # no parent: not minimised with this window
            self.overlay.moved.connect(self._on_overlay_moved)
        self.overlay.clear()
        self.overlay.set_state(f"Listening — typing with {self._typist.typist.backend.name}")
        self.overlay.place(self.settings.overlay_position)
        self.overlay.show()

    def _on_overlay_moved(self, x: int, y: int) -> None:
        self.settings.overlay_position = [x, y]
        self._settings_changed()

    def attach_tray(self) -> None:
        """The tray icon (where the desktop has a tray): state, start/stop, target, quit. The
        app does this at start; tests and the self-test do not."""
        from dictate.ui.tray import create_tray

        def show() -> None:
            self.showNormal()
            self.raise_()
            self.activateWindow()

        def quit_app() -> None:
            self.close()

        self.tray = create_tray(self.toggle_dictation, self.set_target, show, quit_app, self)
        if self.tray is not None:
            self._update_tray()
            self.controller.stateChanged.connect(self._update_tray)

    def _update_tray(self, state: str | None = None) -> None:
        tray = getattr(self, "tray", None)
        if tray is not None:
            state = state or str(self.controller.state)
            tray.set_state(state in ("starting", "listening"), self.settings.target)

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
        self._hotkey.activated.connect(self.toggle_dictation)

    def set_target(self, target: str) -> None:
        """Where finalized text goes: "window" (the editor) or "apps" (typed into the
        focused application); takes effect at the next start of dictation."""
        self.settings.target = target
        self._show_target()
        self._update_tray()
        self._settings_changed()

    def _show_target(self) -> None:
        """The menu's tick and the status bar say where dictated text goes (the tick alone was
        easy to miss: the window looked the same either way)."""
        apps = self.settings.target == "apps"
        self.target_action.setChecked(apps)
        where = "other applications" if apps else "this window"
        self.target_label.setText(f"Text goes to: {where}")

    def _on_target_toggled(self) -> None:
        self.set_target("apps" if self.target_action.isChecked() else "window")

    def _make_typist(self) -> Any:
        """The typing queue for the "apps" target, or None (with a message) when no backend
        works: then the text comes into this window, never lost."""
        from dictate.errors import TypingError
        from dictate.output.chooser import choose_backend
        from dictate.output.typist import TypingContext, Typist

        try:
            backend = choose_backend(
                self.settings.typing_backend,
                clipboard_fallback=self.settings.clipboard_fallback,
                clipboard=lambda text: QGuiApplication.clipboard().setText(text),
            )
        except TypingError as exc:
            self.messages.show_message(
                f"{exc}. Dictated text comes into this window instead.",
                [("Type into &this window", lambda: self.set_target("window"))],
            )
            return None
        if self._typing_context is None:
            self._typing_context = TypingContext()
        # One context for every run: a new run continues what the last one typed in that window.
        return self.typing_queue(Typist(backend, self._typing_context))

    def typing_queue(self, typist: Any) -> Any:
        """``typist``'s calls on a thread of their own (typing must not stall this window),
        its results brought back to this thread by signals."""
        from dictate.output.typist import TypingQueue

        signals = _TypingSignals(self)
        # The previous run's queue may still be typing its last sentences: this one waits.
        earlier = self._typing_closed
        queue = TypingQueue(
            typist,
            signals.failed.emit,
            signals.scratched.emit,
            after=earlier,
            on_typed=signals.typed.emit,
        )
        self._typing_closed = None
        signals.failed.connect(lambda exc: self._on_typing_failed(queue, exc))
        signals.scratched.connect(self._on_scratched)
        signals.typed.connect(lambda text: self._on_typed(queue, text))
        return queue

    # -- feedback: the overlay's "✓ Committed" and the sounds (Settings: feedback_sounds) ------

    def _on_typed(self, queue: Any, text: str) -> None:
        """``queue`` typed ``text`` into another application: say so, for a moment."""
        if queue is self._typist and self.overlay is not None and self.overlay.isVisible():
            clipboard = queue.typist.backend.name == "clipboard"
            self.overlay.show_committed("On the clipboard" if clipboard else "Committed")
        self._play_sound("committed")

    def _sound_on_state(self, state: str) -> None:
        if state == "listening":
            self._start_sound = "due"  # played when the first input level shows audio coming

    def _sound_on_event(self, event: Event) -> None:
        if isinstance(event, Level) and self._start_sound == "due":
            self._start_sound = "played"
            self._play_sound("start")
        elif isinstance(event, Finished) and self._start_sound:
            self._start_sound = ""
            self._play_sound("stop")

    def _play_sound(self, name: str) -> None:
        """Play the feedback sound ``name`` if the settings say so; never blocks or raises."""
        if not self.settings.feedback_sounds:
            return
        if self._sounds is None:
            from dictate.output.sounds import FeedbackSounds

            self._sounds = FeedbackSounds()
        self._sounds.play(name)

    def _on_typing_failed(self, queue: Any, exc: Exception) -> None:
        """Typing failed: what was not typed, and everything after it, comes into this
        window, in order."""
        if self._typist is queue:
            self._typist = None
        if self._typing_closed is queue:  # drained here: closing must not bring it in again
            self._typing_closed = None
        for kind, arg in queue.drain():
            if kind in ("sentences", "continued"):
                self.editor.insert_final(arg, "", kind == "continued")
            elif kind == "new_line":
                self.editor.insert_break(paragraph=bool(arg))
        self.messages.show_message(
            f"Typing into the other application failed ({exc}); the dictated text is kept in "
            "this window from here on.",
            [("Type into &this window", lambda: self.set_target("window"))],
        )

    def _on_scratched(self, result: str) -> None:
        said = {
            "typed": "Scratched what was typed last.",
            "moved": "The focus moved to another window since; nothing was deleted.",
            "clipboard": "Text put on the clipboard cannot be taken back; undo it where you "
            "pasted it.",
            "": "Nothing to scratch.",
        }
        self.statusBar().showMessage(said.get(result, ""), 5000)

    def stop_dictation(self) -> None:
        self.controller.stop()

    def _on_state(self, state: str) -> None:
        if state == "idle":
            self.messages.no_longer_true(DICTATION_STOPPED)
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
        # Short in the status bar, which the messages share; the whole description as its tip.
        self.engine_label.setText(f"Engine: {loaded.engine_label.split(' (', 1)[0]}")
        self.engine_label.setToolTip(loaded.engine_label)
        if loaded.punctuation_off:
            self.provider_label.setText("Punctuation off")
            self.provider_label.setToolTip(f"Punctuation is off: {loaded.punctuation_off}.")
            self.statusBar().showMessage(f"Punctuation is off: {loaded.punctuation_off}.", 15000)
        else:
            self.provider_label.setText(
                f"Punctuation on {loaded.provider.replace('ExecutionProvider', '')}"
            )
            self.provider_label.setToolTip("")
        if "low accuracy" in loaded.engine_label and not self._sphinx_noted:
            self._sphinx_noted = True  # once a session: it came back after every settings change
            self.messages.add_message(
                "Dictating with the bundled PocketSphinx engine, which is much less accurate. "
                "Install a Vosk model for better results.",
                [("&Get a model…", self.offer_model)],
            )

    def _close_typing(self) -> None:
        """The run ended: the typing queue types what is queued, then its thread ends."""
        if self._typist is not None:
            self._typist.close()
            self._typing_closed, self._typist = self._typist, None

    def _on_start_failed(self, error: BaseException) -> None:
        """Starting failed: the message, and the ways out that fit the kind of error."""
        self.dictate_action.setChecked(False)
        self._close_typing()
        if self.overlay is not None:  # it said "Listening"; the message is in this window
            self.overlay.clear()
            self.overlay.hide()
        actions: list[tuple[str, object]]
        if isinstance(error, ModelError):  # a missing or broken speech or punctuation model
            actions = [
                ("&Get a model…", self.offer_model),
                ("&Use the bundled engine", self._use_bundled_engine),
            ]
        elif isinstance(error, AudioError):
            actions = [
                ("&Choose microphone", self._focus_mic),
                ("&Try again", self.start_dictation),
            ]
        else:
            actions = [("&Try again", self.start_dictation)]
        message = (
            str(error)
            if isinstance(error, DictateError)
            else (f"dictation could not start: {error!r}")
        )
        self.messages.show_message(message, actions)

    def _use_bundled_engine(self) -> None:
        self.settings.engine, self.settings.vosk_model = "sphinx", None
        self.controller.forget_engine()
        self.refresh_engines()
        self._settings_changed()

    def handle_event(self, event: Event) -> None:
        """Apply one pipeline event to the window (called on the GUI thread)."""
        overlay = self.overlay if self.overlay is not None and self.overlay.isVisible() else None
        if overlay is not None:
            self._overlay_event(overlay, event)
        if isinstance(event, Level):
            self.level.setValue(max(-60, min(0, round(event.dbfs))))
        elif isinstance(event, Partial):
            # Typing into other applications: words not final yet are the overlay's, never
            # this document's (nor its journal's).
            if event.segment > self._shown_segment and self._typist is None:
                self._partial_segment = event.segment
                text = live_partial(self._live, event.segment, event.words)
                self.editor.set_dictation(partial=text)
        elif isinstance(event, Live):
            # The words being spoken, punctuated with the pending words (display only).
            if event.segment > self._shown_segment:
                self._live = event
                if self._typist is None:
                    self._partial_segment = event.segment
                    self.editor.set_dictation(partial=event.partial, live=event.pending)
        elif isinstance(event, Segment):
            self._segment_closed[event.segment] = time.monotonic()
        elif isinstance(event, Finalized):
            if self._typist is not None:
                kind = "continued" if event.continues else "sentences"
                self._typist.submit(kind, event.sentences)
            else:
                self.editor.insert_final(event.sentences, event.pending, event.continues)
        elif isinstance(event, Command):
            self._on_command(event)
        elif isinstance(event, Pending):
            self._shown_segment = max(self._shown_segment, event.segment)
            clear_partial = self._partial_segment <= event.segment
            if self._typist is None:
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
                    ("&Choose microphone", self._focus_mic),
                    ("&Resume dictation", self.start_dictation),
                ]
            self.messages.show_message(event.message, actions)
        elif isinstance(event, Finished):
            self._close_typing()
            if event.reason == "error":
                # The device may be gone, or another may have appeared: list them afresh.
                QTimer.singleShot(0, lambda: self.refresh_devices(rescan=True))
            self.editor.clear_dictation()
            self.level.setValue(-60)
            self._partial_segment = self._shown_segment = 0
            self._live = None
            self._segment_closed.clear()
            if event.dropped_blocks:
                self.dropped_label.setText(f"{event.dropped_blocks} audio blocks dropped")

    def _on_command(self, event: Command) -> None:
        """A voice command: the pipeline has done its part (see :class:`Command`)."""
        typed = event.kind in BREAKS or event.kind == CommandKind.SCRATCH
        if self._typist is not None and typed:
            self._typed_command(event)
            return
        if event.kind in BREAKS:
            self.editor.insert_break(paragraph=event.kind == CommandKind.NEW_PARAGRAPH)
        elif event.kind == CommandKind.SCRATCH:
            removed = self.editor.scratch(event.target or "auto")
            said = {
                "pending": "Scratched the words not yet final.",
                "sentence": "Scratched the last sentence (Ctrl+Z brings it back).",
            }
            self.statusBar().showMessage(said.get(removed, "Nothing to scratch."), 5000)
        elif event.kind == CommandKind.UNDO:
            self.editor.undo_edit()
        elif event.kind == CommandKind.STOP:
            self.statusBar().showMessage("Stopped dictating (voice command).", 5000)

    def _overlay_event(self, overlay: Any, event: Event) -> None:
        if isinstance(event, Level):
            overlay.set_level(event.dbfs)
        elif isinstance(event, Partial):
            overlay.set_partial(live_partial(self._live, event.segment, event.words))
        elif isinstance(event, Live):
            if event.segment > self._shown_segment:  # as handle_event: not a stale one
                overlay.set_pending(event.pending)
                overlay.set_partial(event.partial)
        elif isinstance(event, Pending):
            overlay.set_pending(event.text)
            overlay.set_partial("")
        elif isinstance(event, Finalized):
            overlay.set_pending(event.pending or "")
        elif isinstance(event, Finished):
            overlay.clear()
            overlay.hide()

    def _typed_command(self, event: Command) -> None:
        """A command while typing into another application: Return, or BackSpace over what
        this app typed there last (never after the focus moved to another window)."""
        assert self._typist is not None
        if event.kind == CommandKind.SCRATCH:
            if event.target != "pending":  # pending words were only on the overlay
                self._typist.submit("scratch")
        else:
            self._typist.submit("new_line", event.kind == CommandKind.NEW_PARAGRAPH)

    def about_text(self) -> str:
        """Version, the models in use and their licences (Help > About)."""
        from dictate import __version__
        from dictate.errors import DictateError
        from dictate.store.resolve import resolve_punctuator_model

        try:
            punctuator = resolve_punctuator_model(None)
            config = json.loads((punctuator / "config.json").read_text(encoding="utf-8"))
            model = f"{config.get('model_version', '?')} ({punctuator})"
        except (DictateError, OSError, ValueError) as exc:
            model = f"not found ({exc})"
        engine = self.engine_label.toolTip() or self.engine_label.text().removeprefix("Engine: ")
        return (
            f"<b>dictate {__version__}</b>: offline dictation with streaming punctuation."
            f"<p>Speech engine: {html.escape(engine)}.<br>"
            f"Punctuation model: {html.escape(model)}.</p>"
            "<p>Licences: the punctuation model is trained on TED talk transcripts published "
            "under CC BY-NC-ND 4.0, so it is bound by that licence (attribution, "
            "non-commercial use), and also on Wikipedia text (CC BY-SA 4.0, Wikipedia "
            "contributors), the AMI Meeting Corpus (CC BY 4.0), the Schema-Guided Dialogue "
            "dataset (CC BY-SA 4.0) and public-domain books and speeches. "
            "Vosk and its official English models: Apache 2.0. "
            "PocketSphinx and its bundled English model: BSD. Silero VAD: MIT. "
            "Qt for Python (PySide6): LGPLv3. ONNX Runtime: MIT.</p>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About dictate", self.about_text())

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

    def _update_title(self) -> None:
        name = self.path.name if self.path else "Untitled"
        self.setWindowTitle(f"{'*' if self.modified else ''}{name} - dictate")

    @contextlib.contextmanager
    def _document_dialog(self) -> Iterator[None]:
        """While a dialog decides what becomes of the document (save or discard it, open
        another), dictation may not start: see :meth:`start_dictation`."""
        self._document_dialogs += 1
        try:
            yield
        finally:
            self._document_dialogs -= 1

    def _confirm_discard(self) -> bool:
        if not self.modified or not self.editor.text:
            return True
        with self._document_dialog():
            answer = ask_save_first(self)
            if answer == QMessageBox.StandardButton.Save:
                return self.save()
            return answer == QMessageBox.StandardButton.Discard

    def _refuse_while_dictating(self, what: str) -> bool:
        if self.controller.state == "idle":
            return False
        self.messages.show_message(
            f"{what} replaces the document dictation is writing into: stop dictation first (F9).",
            until=DICTATION_STOPPED,
        )
        return True

    def new_document(self) -> None:
        if self._refuse_while_dictating("New") or not self._confirm_discard():
            return
        self.load_text("", None)

    def load_text(self, text: str, path: Path | None, form: TextFormat | None = None) -> None:
        """Show ``text`` as the document, from ``path`` (None: a new document), whose line
        breaks and byte-order mark Save keeps (``form``; default plain ``\\n``, no mark)."""
        self.editor.set_text(text, str(path) if path else None)
        self.path = path
        self.text_format = form or TextFormat()
        self.modified = False
        self._update_title()
        if self._save_error is not None:  # it was about the document just closed
            self._save_error = None
            self._show_write_problem()

    def open_document(self, path: str | Path | None = None) -> None:
        if self._refuse_while_dictating("Open") or not self._confirm_discard():
            return
        if path is None:
            with self._document_dialog():
                chosen, _ = QFileDialog.getOpenFileName(
                    self, "Open", start_folder(self.path), FILE_FILTER
                )
            if not chosen:
                return
            path = chosen
        try:
            size = Path(path).stat().st_size
            if size > MAX_OPEN_BYTES:
                self.messages.show_message(
                    f"Could not open {path}: it is {size / 2**20:,.0f} MB, more than dictate "
                    f"opens ({MAX_OPEN_BYTES // 2**20} MB). Open it in another editor, or split it."
                )
                return
            data = Path(path).read_bytes()
            form = TextFormat.of(data)
            text = form.decode(data)
        except UnicodeDecodeError as exc:
            self.messages.show_message(
                f"Could not open {path}: it is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                f"at position {exc.start:,}). dictate opens UTF-8 text files: convert it first, "
                "for example with iconv -f latin1 -t utf-8."
            )
            return
        except (OSError, MemoryError) as exc:
            self.messages.show_message(f"Could not open {path}: {str(exc) or type(exc).__name__}")
            return
        self.load_text(text, Path(path), form)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self, path: str | Path | None = None) -> bool:
        if path is None:
            with self._document_dialog():
                chosen = choose_save_path(self, self.path)
            if not chosen:
                return False
            path = chosen
        if self._write(Path(path)):
            self.path = Path(path)
            self.editor.buffer.set_path(str(self.path))
            self._update_title()
            return True
        return False

    def _write(self, path: Path) -> bool:
        """Save the text (ending with a line break) atomically; on failure the text stays here
        and a message that stays until a save works says what failed and what to do."""
        text = self.editor.text
        if text and not text.endswith("\n"):
            text += "\n"
        try:
            atomic_write(path, self.text_format.encode(text))
        except OSError as exc:
            self._save_error = (
                f"Could not save {path}: {exc.strerror or exc}. Your text is still here: "
                f"{_save_advice(exc)}"
            )
            self._show_write_problem()
            return False
        self._save_error = None
        self._show_write_problem()
        self.modified = False
        self._update_title()
        # The name only: the status bar's permanent labels leave little room for a path.
        self.statusBar().showMessage(f"Saved {path.name}", 3000)
        return True

    # -- write failures --------------------------------------------------------------------

    def _on_journal_state(self, error: OSError | None) -> None:
        if error is None:
            self._retry_timer.stop()
            self.statusBar().showMessage("Autosave works again.", 5000)
            if self._journal_vanished:
                self._journal_vanished = False
                self.messages.add_message(
                    f"The autosave file {self.journal.path} was removed or replaced while "
                    "dictate ran; it was written again, with all of your text in it."
                )
        else:
            log.error("cannot write the journal %s: %s", self.journal.path, error)
            self._retry_timer.start()
            if error.errno in (errno.ENOENT, errno.ESTALE):
                # The file was deleted or replaced: made again at once (after the change being
                # made is applied: the rewrite holds it), not in a few seconds.
                self._journal_vanished = True
                QTimer.singleShot(0, self, self.retry_journal)
        self._show_write_problem()

    def retry_journal(self) -> bool:
        """Try to write the autosave journal again (every few seconds while it fails)."""
        return self.editor.buffer.retry_journal()

    def _show_write_problem(self) -> None:
        """One persistent message for what could not be written, until it can be."""
        problems = []
        error = self.editor.buffer.journal_error
        if error is not None:
            problems.append(
                f"Autosave failed: cannot write {self.journal.path} "
                f"({error.strerror or error}). Everything you dictate and type is kept while "
                "dictate runs, and autosave is retried every few seconds; "
                + _autosave_advice(error)
            )
        if self._save_error:
            problems.append(self._save_error)
        if problems:
            self.write_problem.show_message(
                " ".join(problems),
                [("Save &As…", lambda: self.save_as()), ("Retry &now", self.retry_journal)]
                if error is not None
                else [("Save &As…", lambda: self.save_as())],
            )
        else:
            self.write_problem.hide()

    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self.editor.text)

    # -- closing ---------------------------------------------------------------------------

    def finish_dictation(self, timeout: float = 20.0) -> None:
        """Stop, wait for the run to flush, and apply its last events (nothing is lost)."""
        if self.controller.state == "idle":
            return
        self.controller.stop()
        self.statusBar().showMessage("Finishing dictation…")
        deadline = time.monotonic() + timeout
        while self.controller.state != "idle" and time.monotonic() < deadline:
            self.controller.wait(0.05)
            QCoreApplication.processEvents()
        self.statusBar().clearMessage()

    def _finish_typing(self) -> None:
        """Let the last run's queue type what it holds before the app quits (its thread would
        die with the process); what it could not type comes into this window."""
        queue, self._typing_closed = self._typing_closed, None
        if queue is None:
            return
        for kind, arg in queue.drain():
            if kind in ("sentences", "continued"):
                self.editor.insert_final(arg, "", kind == "continued")
            elif kind == "new_line":
                self.editor.insert_break(paragraph=bool(arg))

    def closeEvent(self, event: QCloseEvent) -> None:
        self.finish_dictation()
        self._finish_typing()
        if not self._confirm_discard():
            event.ignore()
            return
        self.editor.buffer.close_journal(clean=True)
        if self.overlay is not None:
            self.overlay.close()
        hotkey = getattr(self, "_hotkey", None)
        if hotkey is not None:
            hotkey.close()
        event.accept()
