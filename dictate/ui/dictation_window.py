"""The dictation side of the main window: starting and stopping, where the text goes (this
window's editor, or typed into other applications through a typing queue), the pipeline's
events shown as they arrive, the overlay and the feedback sounds.

Every event that changes text goes through :func:`dictate.editing.apply.apply_event`, to the
editor or to the typing queue (:mod:`dictate.ui.edit_targets`), the same mapping ``dictate
transcribe`` uses; the rest (levels, partial words, errors, the end) only
change what is shown.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QProgressBar

from dictate.config import Settings
from dictate.dictation import live_partial
from dictate.editing.apply import EditTarget, apply_event
from dictate.errors import AudioError, DictateError, ModelError
from dictate.events import Error, Event, Finalized, Finished, Level, Live, Partial, Pending, Segment
from dictate.output.typist import Call
from dictate.ui.dispatcher import EventDispatcher
from dictate.ui.document_window import DICTATION_STOPPED, DocumentWindow
from dictate.ui.edit_targets import EditorTarget, WindowTypingTarget
from dictate.ui.history_keeper import typing_advice

if TYPE_CHECKING:
    from dictate.ui.pipeline_runner import Loaded

log = logging.getLogger("dictate.ui")

CATCHING_UP_S = 2.0
"""Seconds behind the microphone past which the window says it is catching up."""


class _TypingSignals(QObject):
    """Brings the typing thread's results to the GUI thread."""

    failed = Signal(object)
    scratched = Signal(str)
    typed = Signal(str, str)  # the text, and where it went (dictate.editing.history)


class DictationWindow(DocumentWindow):
    """Dictation in :class:`~dictate.ui.main_window.MainWindow` (which builds the widgets,
    actions and labels named here, and sets the state in its ``__init__``)."""

    targetChanged = Signal(str)
    """Where finalized text goes changed: "window" or "apps" (the tray shows it)."""

    settings: Settings
    dictate_action: QAction
    target_action: QAction
    target_label: QLabel
    engine_label: QLabel
    provider_label: QLabel
    latency_label: QLabel
    dropped_label: QLabel
    level: QProgressBar
    finishing_bar: QProgressBar
    events: EventDispatcher
    _progress_timer: QTimer
    _progress_text: str
    _finishing_from: float
    punctuation_latency_ms: float | None
    _segment_closed: dict[int, float]
    _partial_segment: int
    _shown_segment: int
    _live: Live | None
    _typist: Any
    _typing_closed: Any
    _typing_context: Any
    overlay: Any
    _sounds: Any
    _start_sound: str
    _sphinx_noted: bool
    _asleep: bool = False
    _corrections: Any = None  # the list of alternatives ("correct that"), once shown
    _heard: Any  # the last segments' words and alternatives (a deque), for "correct that"
    history: Any  # the dictation history (dictate.ui.history_keeper.HistoryKeeper)
    announcements: Any  # to screen readers (dictate.ui.announcer.WindowAnnouncements)

    if TYPE_CHECKING:  # MainWindow's: it has the pickers, the settings file and the tray

        def settings_changed(self) -> None: ...
        def offer_model(self) -> None: ...
        def _focus_mic(self) -> None: ...
        def refresh_devices(self, rescan: bool = False) -> None: ...
        def refresh_engines(self) -> None: ...
        def show_voice_commands(self, activate: bool | None = None) -> None: ...

    # -- what the other parts may read and ask (never the private names) --------------------

    @property
    def typist(self) -> Any:
        """The run's typing queue into other applications, or None (text into this window)."""
        return self._typist

    @property
    def closed_typist(self) -> Any:
        """The last run's typing queue, closed at its end (it may still be typing), or None."""
        return self._typing_closed

    @property
    def asleep(self) -> bool:
        """ "Go to sleep" was said: listening for "wake up" only."""
        return self._asleep

    @property
    def partial_segment(self) -> int:
        """The segment whose partial words are shown now (0: none yet)."""
        return self._partial_segment

    def into_this_window(self) -> None:
        """The next run's text comes into this window, whatever the target (a file's)."""
        self._typist = None

    def type_into_apps(self, text: str) -> None:
        """Type ``text`` where dictation types (another application): through the run's queue
        while dictating, else through a queue for this text alone; nothing where no typing
        backend works (the message says why)."""
        from dictate.output.typist import Call

        queue = self._typist
        if queue is None:  # not dictating: a queue for this one text
            queue = self._make_typist()
            if queue is None:
                return
            queue.submit(Call.SENTENCES, [text])
            queue.close()
            self._typing_closed = queue
            return
        queue.submit(Call.SENTENCES, [text])

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
        if self.audio_import.refuses_dictation() or self.controller.state != "idle":
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

    def stop_dictation(self) -> None:
        if not self.audio_import.refuses_dictation():  # a file's run is stopped by its Cancel
            self.controller.stop()

    def set_target(self, target: str) -> None:
        """Where finalized text goes: "window" (the editor) or "apps" (typed into the
        focused application); takes effect at the next start of dictation."""
        self.settings.target = target
        self._show_target()
        self.targetChanged.emit(target)
        self.settings_changed()

    def _show_target(self) -> None:
        """The menu's tick and the status bar say where dictated text goes (the tick alone was
        easy to miss: the window looked the same either way)."""
        apps = self.settings.target == "apps"
        self.target_action.setChecked(apps)
        where = "other applications" if apps else "this window"
        self.target_label.setText(f"Text goes to: {where}")

    def _on_target_toggled(self) -> None:
        self.set_target("apps" if self.target_action.isChecked() else "window")

    def _on_state(self, state: str) -> None:
        if state == "idle":
            self.messages.no_longer_true(DICTATION_STOPPED)
        if state == "starting":
            self.dropped_label.setText("")  # the notice belongs to its run
            self.latency_label.setText("")
        self._progress_text = ""
        self._finishing_from = 0.0
        self.finishing_bar.hide()
        if state in ("listening", "stopping"):
            self._progress_timer.start()
        else:
            self._progress_timer.stop()
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
        if state == "stopping" and self.overlay is not None and self.overlay.isVisible():
            self.overlay.set_state("Finishing…")  # not "Listening" once Stop was pressed

    def _build_progress(self) -> None:
        """The status bar's bar for what Stop has left to recognise, and the timer that says
        how far behind recognition is (:meth:`_show_progress`)."""
        self.finishing_bar = QProgressBar()
        self.finishing_bar.setMaximumWidth(160)
        self.finishing_bar.setAccessibleName("Speech left to recognise")
        self.finishing_bar.hide()
        self.statusBar().addPermanentWidget(self.finishing_bar)
        self._progress_text = ""
        self._finishing_from = 0.0
        self._progress_timer = QTimer(self)
        self._progress_timer.setInterval(500)
        self._progress_timer.timeout.connect(self._show_progress)

    def _on_mic_opened(self) -> None:
        """The microphone is open while the models still load: what is said now is kept."""
        if self.controller.state == "starting":
            self.statusBar().showMessage(
                "Listening… (the recogniser is loading; what you say now is recognised once "
                "it is ready)"
            )

    def _show_progress(self) -> None:
        """Twice a second while dictating: how far behind recognition is, in the status bar
        and the overlay ("Catching up: 12 s behind"), the progress of Stop through what is
        left, audio that could not be stored, and kept audio that stopped being written."""
        state = self.controller.state
        if state not in ("listening", "stopping"):
            return
        behind = self.controller.behind()
        lost = self.controller.lost_blocks()
        if lost:
            self.dropped_label.setText(f"{lost} audio blocks lost: they could not be stored")
        keeper = getattr(self, "kept_audio", None)
        if keeper is not None:
            keeper.check_recording()
        if state == "stopping" and behind >= CATCHING_UP_S:
            self._finishing_from = max(self._finishing_from, behind)
            done = 1 - behind / self._finishing_from
            self.finishing_bar.setValue(round(100 * done))
            self.finishing_bar.show()
            text = f"Finishing: {behind:.0f} s left…"  # short: the status bar is crowded
            self.finishing_bar.setToolTip(
                f"{behind:.0f} s of what was said before Stop are still being recognised; the "
                "window can be used meanwhile"
            )
        elif state == "stopping":
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
        self.statusBar().showMessage(text)
        if self.overlay is not None and self.overlay.isVisible() and self._typist is not None:
            backend = self._typist.typist.backend.name
            listening = state == "listening" and behind < CATCHING_UP_S
            self.overlay.set_state(f"Listening — typing with {backend}" if listening else text)

    def _on_loaded(self, loaded: Loaded) -> None:
        # Short in the status bar, which the messages share; the whole description as its tip.
        shown = [loaded.engine_label, *([loaded.second_pass] if loaded.second_pass else [])]
        self.engine_label.setText("Engine: " + " + ".join(s.split(" (", 1)[0] for s in shown))
        self.engine_label.setToolTip("; final words: ".join(shown))
        if loaded.punctuation_off:
            self.provider_label.setText("Punctuation off")
            self.provider_label.setToolTip(f"Punctuation is off: {loaded.punctuation_off}.")
            self.statusBar().showMessage(f"Punctuation is off: {loaded.punctuation_off}.", 15000)
        else:
            self.provider_label.setText(
                f"Punctuation on {loaded.provider.replace('ExecutionProvider', '')}"
            )
            self.provider_label.setToolTip("")
        if "low accuracy" in loaded.engine_label and not (loaded.second_pass or self._sphinx_noted):
            self._sphinx_noted = True  # once a session: it came back after every settings change
            self.messages.add_message(
                "Dictating with the bundled PocketSphinx engine alone, which is much less "
                "accurate. Turn the second pass (Whisper) on in Settings, or install a Vosk "
                "model.",
                [("&Get a model…", self.offer_model)],
            )

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
        from dictate.asr.registry import SPHINX

        self.settings.engine, self.settings.vosk_model = SPHINX.name, None
        self.controller.forget_engine()
        self.refresh_engines()
        self.settings_changed()

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
        self.settings_changed()

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
            self.announcements.typing_failed()
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
            on_typed=lambda text: signals.typed.emit(text, self.history.where(typist.backend)),
        )
        self._typing_closed = None
        signals.failed.connect(lambda exc: self._on_typing_failed(queue, exc))
        signals.scratched.connect(self._on_scratched)
        signals.typed.connect(lambda text, where: self._on_typed(queue, text, where))
        return queue

    def _on_typed(self, queue: Any, text: str, where: str = "") -> None:
        """``queue`` typed ``text`` into ``where``: say so for a moment; keep it in the history."""
        self.history.typed(text, where)
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
        self._bring_back(queue)
        self.history.typing_failed(exc)
        self.announcements.typing_failed()
        self.messages.show_message(
            f"Typing into the other application failed ({exc}); the dictated text is kept in "
            f"this window from here on, and in View > History. {typing_advice(exc)}",
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

    def _close_typing(self) -> None:
        """The run ended: the typing queue types what is queued, then its thread ends."""
        if self._typist is not None:
            self._typist.close()
            self._typing_closed, self._typist = self._typist, None

    def handle_event(self, event: Event) -> None:
        """Apply one pipeline event to the window (called on the GUI thread)."""
        overlay = self.overlay if self.overlay is not None and self.overlay.isVisible() else None
        if overlay is not None:
            self._overlay_event(overlay, event)
        if isinstance(event, Pending):
            self._shown_segment = max(self._shown_segment, event.segment)
        if isinstance(event, Finalized) and self._typist is None:
            self.history.window_sentences(event.sentences)
        if apply_event(self._edit_target(), event):
            if isinstance(event, Pending):
                self._show_latency(event.segment)
        elif isinstance(event, Level):
            self.level.setValue(max(-60, min(0, round(event.dbfs))))
        elif isinstance(event, (Partial, Live)) and self._asleep:
            pass  # asleep: words heard are not dictation (only "wake up" is listened for)
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
            if event.first_pass is not None:  # replaced: what by, and what was greyed until now
                said, greyed = " ".join(w.text for w in event.words), self.editor.buffer.partial
                log.info(
                    "segment %d: %s %r; greyed: %r", event.segment, event.settled_by, said, greyed
                )
            self._segment_closed[event.segment] = event.end
            if event.words:  # for "correct that": what else was heard for these words
                self._heard.append(([w.text for w in event.words], event.alternatives or []))
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
            if self._asleep:
                self.set_asleep(False, say=False)  # "Stopped." says it
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

    def offer_corrections(self) -> None:
        """ "Correct ...": the alternatives for the selection, in a list right under it."""
        from dictate.editing.alternatives import alternatives
        from dictate.ui.correction_list import CorrectionList

        selection = self.editor.buffer.selection
        if selection is None:
            return
        if self._corrections is None:
            self._corrections = CorrectionList(self.editor.viewport())
            self._corrections.chosen.connect(self.choose_correction)
            self.editor.textEdited.connect(self._corrections.hide)
        options = alternatives(self.editor.buffer.text[slice(*selection)], self._heard)
        start = self.editor.textCursor()
        start.setPosition(start.selectionStart())  # right under the words' first letter
        self._corrections.offer(options, self.editor.cursorRect(start).bottomLeft())

    def choose_correction(self, number: int) -> bool:
        """Put alternative ``number`` in place of the selection; False if there is none."""
        from dictate.editing import voice_edits

        shown = self._corrections is not None and self._corrections.isVisible()
        text = self._corrections.option(number) if self._corrections is not None else None
        if not shown or text is None or self.editor.buffer.selection is None:
            return False
        self.editor.voice(lambda buffer: voice_edits.replace_selection(buffer, text))
        if self._corrections is not None:
            self._corrections.hide()
        return True

    def set_asleep(self, sleeping: bool, say: bool = True) -> None:
        """ "Go to sleep" (listening on, for "wake up" only) or awake again: said in the status
        bar, the overlay, the tray's tooltip and (``say``) to screen readers."""
        self._asleep = sleeping
        if say:
            self.announcements.asleep(sleeping)
        text = "Asleep: say \u201cwake up\u201d to dictate again" if sleeping else ""
        if sleeping:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().showMessage("Awake: listening.", 3000)
        if self.overlay is not None and self.overlay.isVisible():
            if sleeping:
                self.overlay.set_partial("")
            self.overlay.set_state(text or "Listening")
        tray = getattr(self, "tray", None)
        if tray is not None:
            tray.setToolTip(f"dictate: {text}" if sleeping else "dictate")

    def _edit_target(self) -> EditTarget:
        """Where dictated text goes now: typed into other applications, or this editor."""
        if self._typist is not None:
            return WindowTypingTarget(self, self._typist)
        return EditorTarget(self)

    def _show_latency(self, segment: int) -> None:
        """Pending words of ``segment`` are shown: how long after its speech ended (when it
        was said, by the microphone's clock: a recogniser that has fallen behind shows in
        it), for live dictation only."""
        end = self._segment_closed.pop(segment, None)
        said = None if end is None else self.controller.wall_time(end)
        if said is not None:
            self.punctuation_latency_ms = 1000 * (time.monotonic() - said)
            log.info("latency %.2f s (segment %d)", self.punctuation_latency_ms / 1000, segment)
            self.latency_label.setText(f"Latency {self.punctuation_latency_ms / 1000:.1f} s")
            self.latency_label.setToolTip(
                "From the end of a phrase said to its words shown in the text"
            )

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

    def _finish_typing(self) -> None:
        """Let the last run's queue type what it holds before the app quits (its thread would
        die with the process); what it could not type comes into this window."""
        queue, self._typing_closed = self._typing_closed, None
        if queue is not None:
            self._bring_back(queue)

    def _bring_back(self, queue: Any) -> None:
        """What ``queue`` did not type (it failed, or the app quits) comes into this window,
        in order: sentences and line breaks (a "scratch that" of typed text has nothing here
        to take back)."""
        editor = EditorTarget(self)
        for kind, arg in queue.drain():
            if kind in (Call.SENTENCES, Call.CONTINUED):
                self.history.failed(arg)  # not typed: kept as failed
                editor.finalize(arg, "", kind == Call.CONTINUED)
            elif kind == Call.NEW_LINE:
                editor.line_break(paragraph=bool(arg))
            elif kind == Call.KEY:
                editor.press_key(str(arg))
