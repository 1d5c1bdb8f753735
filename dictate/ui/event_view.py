"""The pipeline's events shown in the main window, a part of it: every event that changes text
goes through :func:`dictate.editing.apply.apply_event`, to the editor or to the typing queue
(:mod:`dictate.ui.edit_targets`), the same mapping ``dictate transcribe`` uses; the rest
(levels, partial words, errors, the end) only change what is shown. Also here: the latency
readout, "go to sleep", and the list of alternatives of "correct that"."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QMainWindow, QProgressBar

from dictate.editing.apply import EditTarget, apply_event
from dictate.events import Error, Event, Finalized, Finished, Level, Live, Partial, Pending, Segment
from dictate.text.stage import live_partial
from dictate.ui.app_log import words_log
from dictate.ui.app_typing import AppTyping
from dictate.ui.editor import DictationEditor
from dictate.ui.feedback import Feedback
from dictate.ui.message_bar import MessageBar
from dictate.ui.pipeline_runner import DictationController
from dictate.writing.live_mask import LiveMask

log = logging.getLogger("dictate.ui")


class EventView(QObject):
    """Applies the pipeline's events to the window (subscribed to the event dispatcher as
    "document").

    Args:
        window: The main window (its status bar).
        editor: The editor the text goes into.
        controller: The dictation run (its clock, for the latency readout).
        typing: The typing into other applications (its queue takes the text while there is one).
        feedback: The overlay.
        messages: The window's message bar.
        history: The dictation history (sentences written into the window).
        announcements: What is said to screen readers.
        level: The input level meter.
        latency_label: The latency readout.
        dropped_label: The notice of audio blocks dropped in the run.
        edit_target: Makes where the text goes now (typing queue or editor).
        device_lost: Called on a fatal error with the ways out (choose microphone, resume).
        refresh_devices: Lists the microphones afresh (``rescan``) after a run ended in error.
    """

    asleepChanged = Signal(bool)
    """ "Go to sleep" (True) or awake again (False)."""

    def __init__(
        self,
        window: QMainWindow,
        editor: DictationEditor,
        controller: DictationController,
        typing: AppTyping,
        feedback: Feedback,
        messages: MessageBar,
        history: Any,
        announcements: Any,
        level: QProgressBar,
        latency_label: QLabel,
        dropped_label: QLabel,
        edit_target: Callable[[], EditTarget],
        device_lost: Callable[[str], None],
        refresh_devices: Callable[[bool], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._editor = editor
        self._controller = controller
        self._typing = typing
        self._feedback = feedback
        self._messages = messages
        self._history = history
        self._announcements = announcements
        self._level = level
        self._latency_label = latency_label
        self._dropped_label = dropped_label
        self._edit_target = edit_target
        self._device_lost = device_lost
        self._refresh_devices = refresh_devices
        self.punctuation_latency_ms: float | None = None
        self._segment_closed: dict[int, float] = {}
        self._heard: deque[tuple[list[str], list[list[str]]]] = deque(maxlen=100)
        self._partial_segment = 0
        self.mask = LiveMask()
        """The live words' obscenities and slurs masked (:mod:`dictate.writing.live_mask`)."""
        self._shown_segment = 0
        self._live: Live | None = None  # the last live punctuation of the words being spoken
        self._asleep = False
        self._corrections: Any = None  # the list of alternatives ("correct that"), once shown
        self.learning: Any = None  # dictate.ui.word_learning.WordLearning, set by the window

    @property
    def asleep(self) -> bool:
        """ "Go to sleep" was said: listening for "wake up" only."""
        return self._asleep

    @property
    def partial_segment(self) -> int:
        """The segment whose partial words are shown now (0: none yet)."""
        return self._partial_segment

    def handle_event(self, event: Event) -> None:
        """Apply one pipeline event to the window (called on the GUI thread)."""
        self._feedback.on_event(event, self._live, self._shown_segment)
        typing = self._typing.typist is not None
        if isinstance(event, Pending):
            self._shown_segment = max(self._shown_segment, event.segment)
        if isinstance(event, Finalized) and not typing:
            heard = event.heard if event.heard is not None else list(event.sentences)
            self._history.window_sentences(event.sentences, heard, event.continues)
        if apply_event(self._edit_target(), event):
            if isinstance(event, Pending):
                self._show_latency(event.segment)
            elif isinstance(event, Finalized) and not typing and event.rewrites:
                # Each rewrite to the vocabulary is an undo step of its own.
                pairs = [(written, heard) for each in event.rewrites for written, heard in each]
                try:
                    steps = self._editor.buffer.split_rewrites(pairs)
                except ValueError:  # a bug: the text is as it was, undo takes the sentence
                    log.exception("%d vocabulary rewrites could not be undo steps", len(pairs))
                    words_log.info("the rewrites: %s", pairs)
                else:
                    log.info("%d vocabulary rewrites: %d made undo steps", len(pairs), steps)
        elif isinstance(event, Level):
            self._level.setValue(max(-60, min(0, round(event.dbfs))))
        elif isinstance(event, (Partial, Live)) and self._asleep:
            pass  # asleep: words heard are not dictation (only "wake up" is listened for)
        elif isinstance(event, Partial):
            # Typing into other applications: words not final yet are the overlay's, never
            # this document's (nor its journal's).
            if event.segment > self._shown_segment and not typing:
                self._partial_segment = event.segment
                text = live_partial(self._live, event.segment, event.words)
                self._editor.edits.set_dictation(partial=self.mask(text))
                words_log.info("live %d: %s", event.segment, self._editor.buffer.partial)
        elif isinstance(event, Live):
            # The words being spoken, punctuated with the pending words (display only).
            if event.segment > self._shown_segment:
                self._live = event
                if not typing:
                    self._partial_segment = event.segment
                    partial = self.mask(event.partial)
                    self._editor.edits.set_dictation(partial=partial, live=event.pending)
                    words_log.info("live %d: %s", event.segment, self._editor.buffer.partial)
        elif isinstance(event, Segment):
            self._on_segment(event)
        elif isinstance(event, Error):
            if event.fatal:
                self._device_lost(event.message)
            else:
                self._messages.show_message(event.message)
        elif isinstance(event, Finished):
            self._on_finished(event)

    def _on_segment(self, event: Segment) -> None:
        if event.first_pass is not None:  # replaced: what by, and what was greyed until now
            said, greyed = " ".join(w.text for w in event.words), self._editor.buffer.partial
            # the words themselves only with DICTATE_LOG_WORDS=1 (words_log)
            log.info("segment %d: %d words settled by %s", event.segment, len(event.words),
                     event.settled_by)  # fmt: skip
            words_log.info("segment %d: %s %r; greyed: %r", event.segment, event.settled_by,
                           said, greyed)  # fmt: skip
        if event.shown is not None and words_log.isEnabledFor(logging.INFO):
            # its own live words until now, as they were shown (masked)
            said = " ".join(w.text for w in event.words)
            words_log.info("settled %d: %s | live: %s", event.segment, said,
                           self.mask(" ".join(event.shown)))  # fmt: skip
        self._segment_closed[event.segment] = event.end
        if event.words:  # for "correct that": what else was heard for these words
            self._heard.append(([w.text for w in event.words], event.alternatives or []))

    def _on_finished(self, event: Finished) -> None:
        if self._asleep:
            self.set_asleep(False, say=False)  # "Stopped." says it
        if self._typing.typist is None:  # into this window: its last sentence has its end
            self._history.release()
        self._typing.close_run()
        if event.reason == "error":
            # The device may be gone, or another may have appeared: list them afresh.
            QTimer.singleShot(0, lambda: self._refresh_devices(True))
        self._editor.edits.clear_dictation()
        self._level.setValue(-60)
        self._partial_segment = self._shown_segment = 0
        self._live = None
        self._segment_closed.clear()
        if event.dropped_blocks:
            self._dropped_label.setText(f"{event.dropped_blocks} audio blocks dropped")

    def offer_corrections(self) -> None:
        """ "Correct ...": the alternatives for the selection, in a list right under it."""
        from dictate.editing.alternatives import alternatives
        from dictate.ui.correction_list import CorrectionList

        editor = self._editor
        selection = editor.buffer.selection
        if selection is None:
            return
        if self._corrections is None:
            self._corrections = CorrectionList(editor.viewport())
            self._corrections.chosen.connect(self.choose_correction)
            editor.textEdited.connect(self._corrections.hide)
        options = alternatives(editor.buffer.text[slice(*selection)], self._heard)
        start = editor.textCursor()
        start.setPosition(start.selectionStart())  # right under the words' first letter
        self._corrections.offer(options, editor.cursorRect(start).bottomLeft())

    def choose_correction(self, number: int) -> bool:
        """Put alternative ``number`` in place of the selection; False if there is none."""
        from dictate.editing import voice_edits

        shown = self._corrections is not None and self._corrections.isVisible()
        text = self._corrections.option(number) if self._corrections is not None else None
        selection = self._editor.buffer.selection
        if not shown or text is None or selection is None:
            return False
        heard = self._editor.buffer.text[selection[0] : selection[1]]
        self._editor.edits.voice(lambda buffer: voice_edits.replace_selection(buffer, text))
        if self.learning is not None:
            self.learning.corrected(heard, text)
        if self._corrections is not None:
            self._corrections.hide()
        return True

    def set_asleep(self, sleeping: bool, say: bool = True) -> None:
        """ "Go to sleep" (listening on, for "wake up" only) or awake again: said in the status
        bar, the overlay, the tray's tooltip (:attr:`asleepChanged`) and (``say``) to screen
        readers."""
        self._asleep = sleeping
        if say:
            self._announcements.asleep(sleeping)
        text = "Asleep: say \u201cwake up\u201d to dictate again" if sleeping else ""
        if sleeping:
            self._window.statusBar().showMessage(text)
        else:
            self._window.statusBar().showMessage("Awake: listening.", 3000)
        overlay = self._feedback.visible_overlay()
        if overlay is not None:
            if sleeping:
                overlay.set_partial("")
            overlay.set_state(text or "Listening")
        self.asleepChanged.emit(sleeping)

    def _show_latency(self, segment: int) -> None:
        """Pending words of ``segment`` are shown: how long after its speech ended (when it
        was said, by the microphone's clock: a recogniser that has fallen behind shows in
        it), for live dictation only."""
        end = self._segment_closed.pop(segment, None)
        said = None if end is None else self._controller.wall_time(end)
        if said is not None:
            self.punctuation_latency_ms = 1000 * (time.monotonic() - said)
            log.info("latency %.2f s (segment %d)", self.punctuation_latency_ms / 1000, segment)
            self._latency_label.setText(f"Latency {self.punctuation_latency_ms / 1000:.1f} s")
            self._latency_label.setToolTip(
                "From the end of a phrase said to its words shown in the text"
            )
