"""The main window: it builds its parts and gives each what it needs, lays out the editor,
the toolbar, the menus and the status bar, and holds the settings.

The parts, each a class that owns its state and widgets (no base class of the app's own):
the document (:class:`~dictate.ui.document.Document`), a dictation run
(:class:`~dictate.ui.dictation_run.DictationRun`), the pipeline's events shown
(:class:`~dictate.ui.event_view.EventView`), typing into other applications
(:class:`~dictate.ui.app_typing.AppTyping`), the overlay and the sounds
(:class:`~dictate.ui.feedback.Feedback`), the toolbar (:class:`~dictate.ui.toolbar.
DictationToolbar`), the global shortcut, the kept audio, the history, the audio file import.
Pipeline events reach them through one :class:`~dictate.ui.dispatcher.EventDispatcher`.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from PySide6.QtGui import QAction, QCloseEvent, QFont, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMessageBox, QVBoxLayout, QWidget

from dictate.config import Settings, save_settings
from dictate.editing.journal import Journal
from dictate.ui.announcer import WindowAnnouncements
from dictate.ui.app_typing import AppTyping
from dictate.ui.audio_import import AudioImport
from dictate.ui.audio_keeper import AudioKeeper
from dictate.ui.dialogs import SettingsDialog
from dictate.ui.dictation_run import DictationRun
from dictate.ui.dispatcher import EventDispatcher
from dictate.ui.document import Document
from dictate.ui.edit_actions import EditActions, make_action
from dictate.ui.edit_targets import EditorTarget, WindowTypingTarget
from dictate.ui.editor import DictationEditor
from dictate.ui.event_view import EventView
from dictate.ui.feedback import Feedback
from dictate.ui.find_bar import FindBar
from dictate.ui.first_start import FirstStartGuide
from dictate.ui.global_shortcut import GlobalShortcut
from dictate.ui.history_keeper import HistoryKeeper
from dictate.ui.message_bar import MessageBar
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.run_states import State
from dictate.ui.silence_watch import SilenceWatch
from dictate.ui.status_bar import ElidingStatusBar
from dictate.ui.tier_calibration import TierCalibration
from dictate.ui.toolbar import DictationToolbar
from dictate.ui.word_learning import WordLearning

log = logging.getLogger("dictate.ui")


class MainWindow(QMainWindow):
    """The dictation window.

    Args:
        settings: User settings (saved when changed).
        journal: The autosave journal; every change of the text goes through it.
        save_settings_on_change: Write settings to disk when the user changes them.
    """

    dictation: DictationRun
    toolbar: DictationToolbar

    def __init__(
        self, settings: Settings, journal: Journal, save_settings_on_change: bool = True
    ) -> None:
        super().__init__()
        self.setStatusBar(ElidingStatusBar(self))  # first: the parts add labels to it
        self.settings = settings
        self.journal = journal
        self.save_settings_on_change = save_settings_on_change
        self.tray: Any = None  # the tray icon, once attached (attach_tray)
        self.history = HistoryKeeper(self)  # what was dictated, where (View > History)
        self.setWindowTitle("dictate")
        self.resize(900, 640)

        self.editor = DictationEditor(journal)
        if settings.font_family:
            self.editor.setFont(QFont(settings.font_family))
        self.editor.set_font_size(settings.font_size)
        self.messages = MessageBar()
        self.write_problem = MessageBar(dismissable=False)
        self.find_bar = FindBar(self.editor)
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(4, 4, 4, 4)
        for widget in (self.write_problem, self.messages, self.find_bar):
            layout.addWidget(widget)
        layout.addWidget(self.editor, 1)
        self.setCentralWidget(central)

        self.controller = DictationController(settings, self)
        self.events = EventDispatcher()  # every part that handles pipeline events, in order
        self.controller.pipelineEvent.connect(self.events.dispatch)
        self.document = Document(
            self, self.editor, journal, self.messages, self.write_problem, self.controller
        )
        self.announcements = WindowAnnouncements(self)  # to screen readers
        self.feedback = Feedback(settings, self.settings_changed, self)
        self.typing = AppTyping(
            self,
            settings,
            self.messages,
            self.feedback,
            self.history,
            self.announcements,
            lambda: EditorTarget(self),
            lambda: self.dictation.set_target("window"),
        )
        ways_out = {
            "offer_model": self.offer_model,
            "focus_mic": lambda: self.toolbar.focus_mic(),
            "refresh_devices": self._refresh_devices,
            "refresh_engines": lambda: self.toolbar.refresh_engines(),
            "settings_changed": self.settings_changed,
        }
        self.dictation = DictationRun(
            self,
            settings,
            self.controller,
            self.document,
            self.typing,
            self.feedback,
            self.messages,
            self.events,
            ways_out,
        )
        self.toolbar = DictationToolbar(
            settings,
            self.controller,
            self.dictation.dictate_action,
            self.settings_changed,
            self.editor,
        )
        self.addToolBar(self.toolbar)
        self.event_view = EventView(
            self,
            self.editor,
            self.controller,
            self.typing,
            self.feedback,
            self.messages,
            self.history,
            self.announcements,
            self.toolbar.level,
            self.dictation.latency_label,
            self.dictation.dropped_label,
            self._edit_target,
            self.dictation.device_lost,
            self._refresh_devices,
        )
        self.events.subscribe("document", self.event_view.handle_event)
        self.controller.stateChanged.connect(self.feedback.sound_on_state)
        self.controller.switched.connect(self._switched)
        self.controller.switchFailed.connect(self._switch_failed)
        self.events.subscribe("sounds", self.feedback.sound_on_event)
        self.kept_audio = AudioKeeper(self)  # each session's audio
        self.event_view.learning = WordLearning(self.settings, self.messages)
        self.silence = SilenceWatch(self)  # a microphone giving only digital silence is said
        self.shortcut = GlobalShortcut(self, settings, self.controller, self.dictation)

        self._build_actions()
        self.audio_import = AudioImport(self)  # audio files
        self.tiers = TierCalibration(self)  # which Whisper model "auto" dictates with
        self.document.audio_import = self.dictation.audio_import = self.audio_import
        self.dictation.kept_audio = self.kept_audio
        self._build_menus()
        self.dictation.place_labels()
        self.document.update_title()

    def _refresh_devices(self, rescan: bool = False) -> None:
        self.toolbar.refresh_devices(rescan)

    def _edit_target(self) -> Any:
        """Where dictated text goes now: typed into other applications, or this editor."""
        typist = self.typing.typist
        return EditorTarget(self) if typist is None else WindowTypingTarget(self, typist)

    def widget(self) -> QMainWindow:
        """The window as a widget: the parent of a part's dialogs and actions."""
        return self

    def _action(self, text: str, shortcut: Any, slot: Any) -> QAction:
        return make_action(self, text, shortcut, slot)

    def _build_actions(self) -> None:
        document = self.document
        self.new_action = self._action("&New", QKeySequence.StandardKey.New, document.new)
        # QAction.triggered(bool) would arrive as the first argument: these take no flag.
        self.open_action = self._action(
            "&Open…", QKeySequence.StandardKey.Open, lambda: document.open()
        )
        self.save_action = self._action(
            "&Save", QKeySequence.StandardKey.Save, lambda: document.save()
        )
        self.save_as_action = self._action("Save &As…", "Ctrl+Shift+S", lambda: document.save_as())
        self.copy_all_action = self._action("&Copy All", "Ctrl+Shift+C", document.copy_all)
        self.quit_action = self._action("&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.edit_actions = EditActions(self, self.editor, self.find_bar)
        self.settings_action = self._action("&Settings…", "Ctrl+,", self.open_settings)
        self.bigger_action = self._action(
            "&Larger text", QKeySequence.StandardKey.ZoomIn, lambda: self._zoom(1)
        )
        self.smaller_action = self._action(
            "S&maller text", QKeySequence.StandardKey.ZoomOut, lambda: self._zoom(-1)
        )
        self.focus_mic_action = self._action(
            "Choose &microphone", "Ctrl+M", lambda: self.toolbar.focus_mic()
        )
        self.get_model_action = self._action("&Get a speech model…", None, self.offer_model)
        self.about_action = self._action(
            "&About dictate",
            None,
            lambda: QMessageBox.about(self, "About dictate", self.about_text()),
        )
        self.history_action = self._action("Dictation &history…", "Ctrl+H", self.history.show)
        self.vocabulary_action = self._action("&Your words…", None, self.show_vocabulary)

    def _build_menus(self) -> None:
        self.voice_commands_action = self._action(
            "&Voice commands…", "F1", lambda: self.show_voice_commands(True)
        )
        self.guide = FirstStartGuide(self)  # above the text until words are dictated
        importing = self.audio_import
        menus: dict[str, list[QAction | None]] = {  # None: a separator
            "&File": [
                self.new_action,
                self.open_action,
                importing.transcribe_action,
                self.save_action,
                self.save_as_action,
                importing.export_action,
                self.copy_all_action,
                self.quit_action,
            ],
            "&Edit": self.edit_actions.menu(),
            "D&ictation": [
                self.dictation.dictate_action,
                self.dictation.target_action,
                self.focus_mic_action,
                self.get_model_action,
                self.vocabulary_action,
                self.settings_action,
            ],
            "&View": [self.bigger_action, self.smaller_action, self.history_action],
            "&Help": [self.guide.action, self.voice_commands_action, self.about_action],
        }
        for title, actions in menus.items():
            menu = self.menuBar().addMenu(title)
            for action in actions:
                if action is None:
                    menu.addSeparator()
                else:
                    menu.addAction(action)

    def settings_changed(self) -> None:
        if self.controller.waiting_settings():  # a run keeps the settings it started with
            self.messages.show_message(
                "Changed settings apply from the next dictation run: press F9 twice to restart "
                "dictation now (what was heard is kept)."
            )
        elif self.controller.switching():
            self.messages.show_message(
                "Loading the recogniser chosen while you dictate: it takes over at your next "
                "pause, and nothing said is lost."
            )
        if not self.save_settings_on_change:
            return
        try:
            save_settings(self.settings)
        except OSError as exc:
            self.messages.show_message(
                f"Could not save the settings ({exc.strerror or exc}); they apply until dictate "
                "closes. Free some space or check the permissions of the settings folder."
            )

    def _switched(self, loaded: Any) -> None:
        self.messages.show_message(
            f"Now recognising with {loaded.engine_label}"
            + (f" and {loaded.second_pass}." if loaded.second_pass else ".")
        )

    def _switch_failed(self, why: str) -> None:
        self.messages.show_message(
            f"The recogniser chosen is not used in this dictation run: {why}. Nothing said is "
            "lost; it goes on with the one it had."
        )

    def open_settings(self) -> None:
        self.toolbar.refresh_devices(rescan=True)
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
        self.dictation.show_target()
        self.shortcut.settings_changed(hotkey_before)
        self.controller.forget_engine()
        if self.settings.font_family:
            self.editor.setFont(QFont(self.settings.font_family))
        self.editor.set_font_size(self.settings.font_size)
        self.toolbar.refresh_devices()
        self.toolbar.refresh_engines()
        self.settings_changed()

    def _zoom(self, step: int) -> None:
        self.settings.font_size = max(6, min(72, self.settings.font_size + step))
        self.editor.set_font_size(self.settings.font_size)
        self.settings_changed()

    def attach_tray(self) -> None:
        """The tray icon (where the desktop has a tray): state, start/stop, target, quit. The
        app does this at start; tests and the self-test do not."""
        from dictate.ui.tray import attach_tray

        self.tray = attach_tray(self)

    def about_text(self) -> str:
        """Version, the models in use and their licences (Help > About)."""
        from dictate.ui.about import about_html

        return about_html(self.dictation.engines_loaded())

    def show_vocabulary(self) -> None:
        """Dictation > Your words (the vocabulary), modal: its changes apply from the next
        run; how the recogniser mishears the new entries is heard in the background."""
        from dictate.ui.dialogs.vocabulary import VocabularyDialog
        from dictate.writing.vocabulary_harvest import start_harvest

        if VocabularyDialog(self).exec():
            start_harvest(self.settings.second_pass)

    def show_voice_commands(self, activate: bool | None = None) -> None:
        """The voice commands (Help > Voice commands, "what can I say"): one dialog, not modal,
        raised; it takes the focus if ``activate`` (None: unless typing into other apps)."""
        from dictate.ui.dialogs import VoiceCommandsDialog

        if activate is None:  # the application typed into keeps the focus
            activate = self.settings.target != "apps" or self.controller.state == State.IDLE
        VoiceCommandsDialog.show_for(self, activate, self.dictation.dictate_action)

    def offer_model(self) -> None:
        from dictate.ui.dialogs import ModelDialog

        dialog = ModelDialog(self)
        dialog.exec()
        self.settings.first_run_done = True
        if dialog.installed_path is not None:
            from dictate.asr.registry import VOSK

            model = dialog.installed_path.name
            self.settings.engine, self.settings.first_pass_model = VOSK.name, model
            self.controller.forget_engine()
        self.toolbar.refresh_engines()
        self.settings_changed()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.dictation.close():
            event.ignore()
            return
        self.typing.finish()
        self.history.release()  # a sentence still held open goes in as it is
        if not self.document.confirm_discard():
            event.ignore()
            return
        self.editor.buffer.close_journal(clean=True)
        self.controller.release()  # the recogniser's child processes end with the window
        self.guide.mic_test.stop(wait=2.0)  # a microphone test's device is closed too
        self.tiers.stop()  # a measurement under way ends with the window
        self.feedback.close()
        self.shortcut.close()
        event.accept()
