"""Dictation runs, a part of the main window: starting and stopping, where the text goes (the
window, or other applications), and what the window says of the run: its state, how far
behind recognition is, the progress of Stop through what is left, the engines loaded, and why
a start failed with the ways out. The run itself is :class:`~dictate.ui.pipeline_runner.
DictationController`'s (its states are a table there)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QProgressBar

from dictate.config import Settings
from dictate.errors import AudioError, DictateError, ModelError
from dictate.ui.app_typing import AppTyping
from dictate.ui.dispatcher import EventDispatcher
from dictate.ui.document import DICTATION_STOPPED, Document
from dictate.ui.feedback import Feedback
from dictate.ui.leave_question import Leave, ask_to_leave
from dictate.ui.message_bar import MessageBar
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.run_states import State
from dictate.ui.status_bar import YIELDS

if TYPE_CHECKING:
    from dictate.ui.loaded_models import Loaded

log = logging.getLogger("dictate.ui")

DICTATE_KEY = "F9"

CATCHING_UP_S = 2.0
"""Seconds behind the microphone past which the window says it is catching up."""

_SHOWN = {
    State.IDLE: ("&Dictate", ""),
    State.STARTING: ("Starting…", "Loading…"),
    State.LISTENING: ("Stop &dictating", "Listening…"),
    State.STOPPING: ("Finishing…", "Finishing…"),
}
"""What the Dictate action and the status bar say in each state."""


class DictationRun(QObject):
    """Start, stop and the state of dictation; owns the Dictate and target actions and the
    status bar's labels of the run (the window places them).

    Args:
        window: The main window (its status bar; the actions' parent).
        settings: The user's settings (the target, the overlay, the engine).
        controller: The dictation run's controller.
        document: The document (dictation waits while a dialog decides its fate).
        typing: Typing into other applications.
        feedback: The overlay.
        messages: The window's message bar.
        events: The pipeline's events (:meth:`finish` waits while they still come).
        ways_out: What the window offers when a start fails or the device is lost:
            ``offer_model``, ``focus_mic``, ``refresh_devices`` (with ``rescan``),
            ``refresh_engines`` and ``settings_changed``.
    """

    targetChanged = Signal(str)
    """Where finalized text goes changed: "window" or "apps" (the tray shows it)."""

    def __init__(
        self,
        window: QMainWindow,
        settings: Settings,
        controller: DictationController,
        document: Document,
        typing: AppTyping,
        feedback: Feedback,
        messages: MessageBar,
        events: EventDispatcher,
        ways_out: dict[str, Callable[..., Any]],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._settings = settings
        self._controller = controller
        self._document = document
        self._typing = typing
        self._feedback = feedback
        self._messages = messages
        self._events = events
        self._ways_out = ways_out
        self.audio_import: Any = None  # dictate.ui.audio_import.AudioImport, set by the window
        self.kept_audio: Any = None  # dictate.ui.audio_keeper.AudioKeeper, set by the window
        self._sphinx_noted = False
        self._build_widgets()
        controller.loaded.connect(self._on_loaded)
        controller.failed.connect(self._on_start_failed)
        controller.stateChanged.connect(self._on_state)
        controller.micOpened.connect(self._on_mic_opened)

    def _build_widgets(self) -> None:
        window = self._window
        self.dictate_action = QAction("&Dictate", window)
        self.dictate_action.setShortcut(QKeySequence(DICTATE_KEY))
        self.dictate_action.setCheckable(True)
        self.dictate_action.setToolTip(f"Start or stop dictation ({DICTATE_KEY})")
        self.dictate_action.triggered.connect(self.toggle)
        self.target_action = QAction("&Type into other applications", window)
        self.target_action.setShortcut(QKeySequence("Ctrl+Shift+T"))
        self.target_action.setToolTip("Type into other applications (Ctrl+Shift+T)")
        self.target_action.setCheckable(True)  # ticked by show_target
        self.target_action.triggered.connect(self._on_target_toggled)
        for action in (self.dictate_action, self.target_action):
            window.addAction(action)
        self.target_label = QLabel()
        self.target_label.setToolTip(
            "Where dictated text goes; Dictation > Type into other applications (Ctrl+Shift+T) "
            "changes it"
        )
        self.engine_label = QLabel("Engine: not loaded")
        self.provider_label = QLabel("Punctuation: -")
        self.latency_label = QLabel("")
        self.dropped_label = QLabel("")
        self.finishing_bar = QProgressBar()  # what Stop has left to recognise
        self.finishing_bar.setMaximumWidth(160)
        self.finishing_bar.setAccessibleName("Speech left to recognise")
        self.finishing_bar.hide()
        self._progress_text = ""
        self._finishing_from = 0.0
        self._progress_timer = QTimer(self)  # how far behind recognition is: show_progress
        self._progress_timer.setInterval(500)
        self._progress_timer.timeout.connect(self.show_progress)
        self.show_target()

    @property
    def showing_progress(self) -> bool:
        """The status bar says twice a second how far behind recognition is
        (:meth:`show_progress`): while listening and finishing."""
        return self._progress_timer.isActive()

    def engines_loaded(self) -> str:
        """The engines of the last run, described (Help > About); "not loaded" before one."""
        label = self.engine_label
        return label.toolTip() or label.text().removeprefix("Engine: ")

    def place_labels(self) -> None:
        """Put the run's labels and bar in the window's status bar."""
        bar = self._window.statusBar()
        bar.addPermanentWidget(self.target_label)
        for label in (self.engine_label, self.provider_label, self.latency_label):
            label.setProperty(YIELDS, True)  # hidden while a status message needs the room
            bar.addPermanentWidget(label)
        bar.addWidget(self.dropped_label)
        bar.addPermanentWidget(self.finishing_bar)

    def toggle(self) -> None:
        if self._controller.state == State.IDLE:
            self.start()
        else:
            self.stop()

    def start_refused(self) -> str | None:
        """Why dictation cannot start now, or None (whether it then starts is up to the
        microphone and the models: that is reported in the window)."""
        if self._document.dialog_open:
            # `dictate start` or the global shortcut behind "Save the current text first?" or
            # Open: the words would miss the text being saved, or go into a document about to
            # be replaced.
            return "answer the open dialog first"
        if QApplication.activeModalWidget() is not None:
            # Settings, the speech model dialog...: the window, and its Stop, cannot be
            # reached until it is closed.
            return "close the open dialog first"
        return None

    def start(self, source_factory: object = None) -> None:
        if self.audio_import.refuses_dictation() or self._controller.state != State.IDLE:
            return
        refused = self.start_refused()
        if refused:
            # Seen once the dialog is closed: it must still be true then.
            self._messages.show_message(
                f"Dictation did not start: {refused}, then start it again (F9)."
            )
            return
        self._messages.hide()
        typist = self._typing.start_run()
        if typist is not None and self._settings.show_overlay:
            self._feedback.show_overlay(typist.typist.backend.name)
        self._controller.start(source_factory)

    def stop(self) -> None:
        if not self.audio_import.refuses_dictation():  # a file's run is stopped by its Cancel
            self._controller.stop()

    def set_target(self, target: str) -> None:
        """Where finalized text goes: "window" (the editor) or "apps" (typed into the
        focused application); takes effect at the next start of dictation."""
        self._settings.target = target
        self.show_target()
        self.targetChanged.emit(target)
        self._ways_out["settings_changed"]()

    def show_target(self) -> None:
        """The menu's tick and the status bar say where dictated text goes (the tick alone was
        easy to miss: the window looked the same either way)."""
        apps = self._settings.target == "apps"
        self.target_action.setChecked(apps)
        where = "other applications" if apps else "this window"
        self.target_label.setText(f"Text goes to: {where}")

    def _on_target_toggled(self) -> None:
        self.set_target("apps" if self.target_action.isChecked() else "window")

    def _on_state(self, state: State) -> None:
        if state == State.IDLE:
            self._messages.no_longer_true(DICTATION_STOPPED)
        if state == State.STARTING:
            self.dropped_label.setText("")  # the notice belongs to its run
            self.latency_label.setText("")
        self._progress_text = ""
        self._finishing_from = 0.0
        self.finishing_bar.hide()
        if self.audio_import.busy and state != State.IDLE:
            self._progress_timer.stop()
            return  # no microphone: the file's progress line says what is done (audio_import)
        if state in (State.LISTENING, State.STOPPING):
            self._progress_timer.start()
        else:
            self._progress_timer.stop()
        self.dictate_action.setChecked(state in (State.STARTING, State.LISTENING))
        action, status = _SHOWN[state]
        self.dictate_action.setText(action)
        self._window.statusBar().showMessage(status)
        overlay = self._feedback.visible_overlay()
        if state == State.STOPPING and overlay is not None:
            overlay.set_state("Finishing…")  # not "Listening" once Stop was pressed

    def _on_mic_opened(self) -> None:
        """The microphone is open while the models still load: what is said now is kept."""
        if self._controller.state == State.STARTING:
            self._window.statusBar().showMessage(
                "Listening… (the recogniser is loading; what you say now is recognised once "
                "it is ready)"
            )

    def show_progress(self) -> None:
        """Twice a second while dictating: how far behind recognition is, in the status bar
        and the overlay ("Catching up: 12 s behind"), the progress of Stop through what is
        left, audio that could not be stored, and kept audio that stopped being written."""
        state = self._controller.state
        if state not in (State.LISTENING, State.STOPPING) or self.audio_import.busy:
            return
        behind = self._controller.behind()
        lost = self._controller.lost_blocks()
        if lost:
            self.dropped_label.setText(f"{lost} audio blocks lost: they could not be stored")
        if self.kept_audio is not None:
            self.kept_audio.check_recording()
        if state == State.STOPPING and behind >= CATCHING_UP_S:
            self._finishing_from = max(self._finishing_from, behind)
            done = 1 - behind / self._finishing_from
            self.finishing_bar.setValue(round(100 * done))
            self.finishing_bar.show()
            text = f"Finishing: {behind:.0f} s left…"  # short: the status bar is crowded
            self.finishing_bar.setToolTip(
                f"{behind:.0f} s of what was said before Stop are still being recognised; the "
                "window can be used meanwhile"
            )
        elif state == State.STOPPING:
            self.finishing_bar.hide()
            text = "Finishing…"
        elif behind >= CATCHING_UP_S:
            text = f"Catching up: {behind:.0f} s behind"
        else:
            text = "Listening…"
        if text == self._progress_text:
            return  # a message shown meanwhile (played audio, a command) stays
        self._progress_text = text
        log.info("status: %s", text)
        self._window.statusBar().showMessage(text)
        overlay, typist = self._feedback.visible_overlay(), self._typing.typist
        if overlay is not None and typist is not None:
            backend = typist.typist.backend.name
            listening = state == State.LISTENING and behind < CATCHING_UP_S
            overlay.set_state(f"Listening — typing with {backend}" if listening else text)

    def _on_loaded(self, loaded: Loaded) -> None:
        # Short in the status bar, which the messages share; the whole description as its tip.
        shown = [loaded.engine_label, *([loaded.second_pass] if loaded.second_pass else [])]
        self.engine_label.setText("Engine: " + " + ".join(s.split(" (", 1)[0] for s in shown))
        self.engine_label.setToolTip("; final words: ".join(shown))
        if loaded.punctuation_off:
            self.provider_label.setText("Punctuation off")
            self.provider_label.setToolTip(f"Punctuation is off: {loaded.punctuation_off}.")
            self._window.statusBar().showMessage(
                f"Punctuation is off: {loaded.punctuation_off}.", 15000
            )
        else:
            self.provider_label.setText(
                f"Punctuation on {loaded.provider.replace('ExecutionProvider', '')}"
            )
            self.provider_label.setToolTip("")
        if loaded.low_accuracy and not (loaded.second_pass or self._sphinx_noted):
            self._sphinx_noted = True  # once a session: it came back after every settings change
            self._messages.add_message(
                "Dictating with the bundled PocketSphinx engine alone, which is much less "
                "accurate. Turn the second pass (Whisper) on in Settings, or install a Vosk "
                "model.",
                [("&Get a model…", self._ways_out["offer_model"])],
            )

    def _on_start_failed(self, error: BaseException) -> None:
        """Starting failed: the message, and the ways out that fit the kind of error."""
        self.dictate_action.setChecked(False)
        self._typing.close_run()
        self._feedback.hide_overlay()  # it said "Listening"; the message is in the window
        actions: list[tuple[str, object]]
        if isinstance(error, ModelError):  # a missing or broken speech or punctuation model
            actions = [
                ("&Get a model…", self._ways_out["offer_model"]),
                ("&Use the bundled engine", self._use_bundled_engine),
            ]
        elif isinstance(error, AudioError):
            actions = [
                ("&Choose microphone", self._ways_out["focus_mic"]),
                ("&Try again", self.start),
            ]
        else:
            actions = [("&Try again", self.start)]
        message = (
            str(error)
            if isinstance(error, DictateError)
            else (f"dictation could not start: {error!r}")
        )
        self._messages.show_message(message, actions)

    def device_lost(self, message: str) -> None:
        """A fatal error of the run (the microphone went away): the message, the devices
        listed afresh, and the ways out."""
        self._ways_out["refresh_devices"](False)
        self._messages.show_message(
            message,
            [
                ("&Choose microphone", self._ways_out["focus_mic"]),
                ("&Resume dictation", self.start),
            ],
        )

    def close(self) -> bool:
        """The window is closing: the run ends and its last events are applied
        (:meth:`finish`). Where recognition is :data:`CATCHING_UP_S` or more behind, the person
        is asked first (:func:`~dictate.ui.leave_question.ask_to_leave`): wait, quit now
        leaving the rest to the next start (only where the run's audio is kept), or keep the
        window open (False)."""
        behind = self._controller.behind()
        if self._controller.state != State.IDLE and behind >= CATCHING_UP_S:
            keeper = self.kept_audio
            can_leave = keeper is not None and keeper.keeping
            choice = ask_to_leave(self._window, behind, can_leave)
            if choice is Leave.CANCEL:
                return False
            if choice is Leave.QUIT and can_leave:
                self._controller.leave()  # the capture stops: the file holds all that was said
                keeper.leave_for_next_start()
        self.finish()
        return True

    def finish(self, timeout: float = 20.0) -> None:
        """Stop, wait for the run to flush, and apply its last events (nothing is lost). The
        wait goes on while events still come (a loaded machine catching up takes longer than
        any fixed time); it ends after ``timeout`` seconds without one (what is left of the
        run is then in its kept audio, recognised at the next start)."""
        if self._controller.state == State.IDLE:
            return
        self._controller.stop()
        self._window.statusBar().showMessage("Finishing dictation…")
        last = [time.monotonic()]

        def arrived(event: object) -> None:
            last[0] = time.monotonic()

        self._events.subscribe("observer", arrived)
        try:
            while self._controller.state != State.IDLE and time.monotonic() - last[0] < timeout:
                self._controller.wait(0.05)
                QCoreApplication.processEvents()
        finally:
            self._events.unsubscribe(arrived)
        self._window.statusBar().clearMessage()

    def _use_bundled_engine(self) -> None:
        from dictate.asr.registry import SPHINX

        self._settings.engine, self._settings.first_pass_model = SPHINX.name, None
        self._controller.forget_engine()
        self._ways_out["refresh_engines"]()
        self._ways_out["settings_changed"]()
