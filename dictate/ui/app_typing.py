"""Typing into other applications, a part of the main window: the typing queue of a run (its
calls on a thread of their own, their results brought back to the GUI thread), what it typed
kept in the history, and what it could not type brought into the window's editor, in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

from dictate.config import Settings
from dictate.output.typist import NO_FOCUS, Call
from dictate.ui.feedback import Feedback
from dictate.ui.message_bar import MessageBar


def typing_advice(exc: BaseException) -> str:
    """What the user can do about a failed typing, by its cause."""
    said = str(exc)
    if NO_FOCUS in said:
        return "Click into the window to type into, then dictate again (F9)."
    if any(words in said for words in ("not installed", "not found", "No such file")):
        return "Install it, or choose another typing method in Settings (Ctrl+,)."
    if any(words in said for words in ("refused", "denied", "not allowed", "permission")):
        return "Allow dictate to type there, or choose another typing method in Settings (Ctrl+,)."
    return "Check the window you dictate into, or choose another typing method in Settings."


class _TypingSignals(QObject):
    """Brings the typing thread's results to the GUI thread."""

    failed = Signal(object)
    scratched = Signal(str)
    typed = Signal(str, str, bool)  # the text, where it went, whether it continued


class AppTyping(QObject):
    """The typing queues into other applications.

    Args:
        window: The main window (its status bar).
        settings: The user's settings (the typing backend, the clipboard fallback).
        messages: The window's message bar.
        feedback: The overlay ("Committed") and the sounds.
        history: The dictation history (what was typed, and where).
        announcements: What is said to screen readers.
        editor_target: Makes the target that puts text into the window's editor.
        into_window: Makes the window the target (a message's "Type into this window").
    """

    def __init__(
        self,
        window: QMainWindow,
        settings: Settings,
        messages: MessageBar,
        feedback: Feedback,
        history: Any,
        announcements: Any,
        editor_target: Callable[[], Any],
        into_window: Callable[[], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._settings = settings
        self._messages = messages
        self._feedback = feedback
        self._history = history
        self._announcements = announcements
        self._editor_target = editor_target
        self._into_window = into_window
        self._typist: Any = None  # the run's queue (target "apps"), or None
        self._closed: Any = None  # the last run's queue, closed, maybe still typing
        self._context: Any = None  # what was typed last, and where (all runs)

    @property
    def typist(self) -> Any:
        """The run's typing queue into other applications, or None (text into the window)."""
        return self._typist

    @property
    def closed_typist(self) -> Any:
        """The last run's typing queue, closed at its end (it may still be typing), or None."""
        return self._closed

    def start_run(self, typist: Any = None) -> Any:
        """A run starts: its queue if the target is "apps" (None where no backend works: the
        text comes into the window), else None; with ``typist``
        (:class:`~dictate.output.typist.Typist`), a queue over it whatever the target."""
        if typist is not None:
            self._typist = self.queue_for(typist)
        else:
            self._typist = self.make_typist() if self._settings.target == "apps" else None
        return self._typist

    def into_this_window(self) -> None:
        """The next run's text comes into the window, whatever the target (a file's)."""
        self._typist = None

    def type_into_apps(self, text: str) -> None:
        """Type ``text`` where dictation types (another application): through the run's queue
        while dictating, else through a queue for this text alone; nothing where no typing
        backend works (the message says why)."""
        queue = self._typist if self._typist is not None else self.make_typist()
        if queue is None:
            return
        queue.submit(Call.SENTENCES, [text])
        if queue is not self._typist:  # not dictating: the queue of this one text
            queue.close()
            self._closed = queue

    def make_typist(self) -> Any:
        """A typing queue for the "apps" target, or None (with a message) when no backend
        works: then the text comes into the window, never lost."""
        from dictate.errors import TypingError
        from dictate.output.chooser import choose_backend
        from dictate.output.typist import TypingContext, Typist

        try:
            backend = choose_backend(
                self._settings.typing_backend,
                clipboard_fallback=self._settings.clipboard_fallback,
                clipboard=lambda text: QGuiApplication.clipboard().setText(text),
            )
        except TypingError as exc:
            self._messages.show_message(
                f"{exc}. Dictated text comes into this window instead.",
                [("Type into this &window", self._into_window)],
            )
            self._announcements.typing_failed()
            return None
        if self._context is None:
            self._context = TypingContext()
        # One context for every run: a new run continues what the last one typed in that window.
        return self.queue_for(Typist(backend, self._context))

    def queue_for(self, typist: Any) -> Any:
        """``typist``'s calls on a thread of their own (typing must not stall the window),
        its results brought back to this thread by signals."""
        from dictate.output.typist import TypingQueue

        signals = _TypingSignals(self)
        # The previous run's queue may still be typing its last sentences: this one waits.
        earlier = self._closed
        queue = TypingQueue(
            typist,
            signals.failed.emit,
            signals.scratched.emit,
            after=earlier,
            on_typed=lambda text, continued: signals.typed.emit(
                text, self._history.where(typist.backend), continued
            ),
        )
        self._closed = None
        signals.failed.connect(lambda exc: self._on_typing_failed(queue, exc))
        signals.scratched.connect(self._on_scratched)
        signals.typed.connect(
            lambda text, where, continued: self._on_typed(queue, text, where, continued)
        )
        return queue

    def _on_typed(self, queue: Any, text: str, where: str = "", continued: bool = False) -> None:
        """``queue`` typed ``text`` into ``where`` (``continued``: it goes on with a sentence
        committed open): say so for a moment; keep it in the history."""
        self._history.typed(text, where, continued)
        overlay = self._feedback.visible_overlay()
        if queue is self._typist and overlay is not None:
            clipboard = queue.typist.backend.name == "clipboard"
            overlay.show_committed("On the clipboard" if clipboard else "Committed")
        self._feedback.play("committed")

    def _on_typing_failed(self, queue: Any, exc: Exception) -> None:
        """Typing failed: what was not typed, and everything after it, comes into the
        window, in order."""
        if self._typist is queue:
            self._typist = None
        if self._closed is queue:  # drained here: closing must not bring it in again
            self._closed = None
        self._bring_back(queue)
        self._history.typing_failed(exc)
        self._announcements.typing_failed()
        self._messages.show_message(
            f"Typing into the other application failed ({exc}); the dictated text is kept in "
            f"this window from here on, and in View > History. {typing_advice(exc)}",
            [("Type into this &window", self._into_window)],
        )

    def _on_scratched(self, result: str) -> None:
        said = {
            "typed": "Scratched what was typed last.",
            "moved": "The focus moved to another window since; nothing was deleted.",
            "clipboard": "Text put on the clipboard cannot be taken back; undo it where you "
            "pasted it.",
            "": "Nothing to scratch.",
        }
        self._window.statusBar().showMessage(said.get(result, ""), 5000)

    def close_run(self) -> None:
        """The run ended: its queue types what is queued, then its thread ends."""
        if self._typist is not None:
            self._typist.close()
            self._closed, self._typist = self._typist, None

    def finish(self) -> None:
        """Let the last run's queue type what it holds before the app quits (its thread would
        die with the process); what it could not type comes into the window."""
        queue, self._closed = self._closed, None
        if queue is not None:
            self._bring_back(queue)

    def _bring_back(self, queue: Any) -> None:
        """What ``queue`` did not type (it failed, or the app quits) comes into the window,
        in order: sentences and line breaks (a "scratch that" of typed text has nothing here
        to take back)."""
        editor = self._editor_target()
        for kind, arg in queue.drain():
            if kind in (Call.SENTENCES, Call.CONTINUED):
                self._history.failed(arg, kind == Call.CONTINUED)  # not typed: kept as failed
                editor.finalize(arg, "", kind == Call.CONTINUED)
            elif kind == Call.NEW_LINE:
                editor.line_break(paragraph=bool(arg))
            elif kind == Call.KEY:
                editor.press_key(str(arg))
