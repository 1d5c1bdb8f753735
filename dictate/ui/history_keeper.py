"""The window's dictation history (:mod:`dictate.editing.history`): what it records (every
finalized sentence, into this window or typed into another application, and the typing that
failed), the View > History dialog, "type again", and what a failed typing tells the user.

Nothing is written while Settings > "Keep a history" is off; turning it off offers to delete
what was kept.

A sentence a pause committed open (no sentence end yet) is held back until what completes it
comes: the words that go on with it, or the mark decided after it (when the next sentence
begins, or at Stop). So the history keeps each sentence once and whole, as the document and the
other application have it ("We met at noon." and not "We met at noon" then a lone "."). A
held sentence is written as it is when something else comes first (a line break, another
target, the next run's first sentence), when a run into this window ends, and when the window
closes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QApplication, QMessageBox

from dictate.editing.history import FAILED, OK, OTHER_APP, WINDOW, History
from dictate.editing.text import SENTENCE_END, fit_to_context, separator
from dictate.ui.app_typing import typing_advice

if TYPE_CHECKING:
    from pathlib import Path

    from dictate.ui.window_api import Window

log = logging.getLogger("dictate.ui")

TYPE_AGAIN_DELAY_MS = 3000
"""Time to click into the application "Type again" types into."""


ENDS = (*SENTENCE_END, "\u2026")
"""A text that ends with one of these (before closing quotes and brackets) ends its sentence."""


def ends_open(text: str) -> bool:
    """Whether ``text``'s last sentence has no end yet (a pause committed it open)."""
    return not text.rstrip().rstrip("\"')]}\u201d\u2019").endswith(ENDS)


def joined(before: str, text: str) -> str:
    """``text`` after ``before`` in one sentence (a mark attached, words after a space)."""
    return before + separator(text) + text if text else before


@dataclass
class _Held:
    """A sentence left open, waiting for what completes it."""

    text: str
    target: str
    status: str
    heard: str


class HistoryKeeper:
    """The history of ``window``: records what it is told, shows it, types it again."""

    def __init__(self, window: Window) -> None:
        self._window = window
        self._store: History | None = None
        self._failed_once = False
        self._held: _Held | None = None
        self.last_where = OTHER_APP
        """Where the last sentence typed into another application went."""
        self.dialog: Any = None
        self.path: Path | None = None
        """The history file (None: the user's,
        :func:`~dictate.editing.history.default_history_path`); set before the first sentence
        is kept (a benchmark's window keeps its own)."""

    @property
    def on(self) -> bool:
        return bool(self._window.settings.history)

    def store(self) -> History:
        """The history, with the limits the settings give now."""
        settings = self._window.settings
        first = self._store is None
        if self._store is None:
            self._store = History(self.path)
        self._store.keep_days = settings.history_days
        self._store.max_bytes = settings.history_max_mb * 2**20
        if first and self.on:  # once a session: the sentences past their days go
            try:
                self._store.prune()
            except OSError as exc:
                log.warning("the history could not be pruned: %s", exc)
        return self._store

    def record(
        self, text: str, target: str, status: str = OK, heard: str = "", continues: bool = False
    ) -> None:
        """Keep ``text`` (nothing when the history is off), and ``heard``, the text as
        recognised where the vocabulary rewrote words of it; a failure to write is said once.
        ``continues``: ``text`` goes on with the sentence a pause committed open (its words,
        or the mark decided after it): joined to it in one entry. A text whose last sentence
        is open is held until then (see the module's doc)."""
        if not self.on:
            return
        held, self._held = self._held, None
        if held is not None and continues and (held.target, held.status) == (target, status):
            if heard or held.heard:  # as recognised, where either differs from its text
                heard = joined(held.heard or held.text, heard or text)
            text = joined(held.text, text)
        elif held is not None:
            self._write(held.text, held.target, held.status, held.heard)
        if not any(c.isalnum() for c in text):
            return  # no word in it: a lone mark is not a thing said
        if ends_open(text):
            self._held = _Held(text, target, status, heard)
            return
        self._write(text, target, status, heard)

    def release(self) -> None:
        """Write the sentence held open as it is (a run into this window ended, the window
        closes)."""
        held, self._held = self._held, None
        if held is not None and self.on:
            self._write(held.text, held.target, held.status, held.heard)

    def _write(self, text: str, target: str, status: str, heard: str) -> None:
        try:
            self.store().add(text, target, status, heard)
        except OSError as exc:
            log.warning("the history could not be written: %s", exc)
            if not self._failed_once:
                self._failed_once = True
                self._window.statusBar().showMessage(
                    f"The dictation history could not be written ({exc.strerror or exc}); "
                    "dictation goes on.",
                    15000,
                )
            return
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.reload()

    def window_sentences(
        self, sentences: list[str], heard: list[str] | None = None, continues: bool = False
    ) -> None:
        """Sentences finalized into this window; ``heard``: each as recognised;
        ``continues``: as :attr:`dictate.events.Finalized.continues`."""
        text = " ".join(s for s in sentences if s)
        said = " ".join(s for s in heard if s) if heard is not None else ""
        # heard is kept only where it differs (History.add)
        self.record(text, WINDOW, heard=said, continues=continues)

    def where(self, backend: Any) -> str:
        """Where ``backend`` types now (called on the typing thread, right after it typed)."""
        if not self.on:
            return OTHER_APP
        from dictate.output.window_title import window_title

        return window_title(backend) or OTHER_APP

    def typed(self, text: str, where: str, continues: bool = False) -> None:
        self.last_where = where
        self.record(text.strip(), where, continues=continues)

    def failed(self, sentences: list[str], continues: bool = False) -> None:
        """Sentences that could not be typed (they are put in the window)."""
        text = " ".join(s for s in sentences if s)
        self.record(text, self.last_where, FAILED, continues=continues)

    def typing_failed(self, exc: BaseException) -> None:
        """Say on the overlay that typing failed and where the words are."""
        overlay = self._window.feedback.overlay
        if overlay is not None and overlay.isVisible():
            overlay.set_state("Typing failed: the words go to the dictate window")
            overlay.show_notice(f"Typing failed ({exc}). {typing_advice(exc)}", 15000)

    def show(self) -> None:
        """View > History: one dialog, not modal, raised."""
        from dictate.ui.dialogs.history import HistoryDialog

        if self.dialog is None:
            self.dialog = HistoryDialog(self.store, self.type_again, self._window.widget())
        self.dialog.reload()
        self.dialog.show()
        self.dialog.raise_()
        self.dialog.activateWindow()

    def type_again(self, text: str) -> str:
        """Put ``text`` in again: at the cursor in this window, or typed through the typist
        when dictation goes to other applications (after :data:`TYPE_AGAIN_DELAY_MS`, to click
        into that application). What is done, in words."""
        window = self._window
        if window.settings.target != "apps":
            editor = window.editor

            def insert(buffer: Any) -> Any:
                at = buffer.point
                fitted = fit_to_context(text, buffer.text[:at], buffer.text[at:])
                return buffer.voice_edit(at, at, fitted)

            editor.edits.voice(insert)
            return "Put in the text at the cursor."
        from PySide6.QtCore import QTimer

        QTimer.singleShot(TYPE_AGAIN_DELAY_MS, lambda: self._type_now(text))
        seconds = TYPE_AGAIN_DELAY_MS // 1000
        return f"Click into the window to type into: the text is typed in {seconds} seconds."

    def _type_now(self, text: str) -> None:
        window = self._window
        if QApplication.activeWindow() is not None:  # the focus is still in dictate
            window.statusBar().showMessage(
                "Not typed: the keyboard focus was still in dictate. Click into the other "
                "application within the seconds given.",
                10000,
            )
            return
        window.typing.type_into_apps(text)

    def settings_changed(self, was_on: bool, parent: Any) -> None:
        """History turned off: offer to delete what it kept."""
        if not self.on:
            self._held = None  # kept nothing more from the moment it was turned off
        question = "Delete the dictation history kept so far?"
        if was_on and not self.on and self.store().entries() and self.confirm(parent, question):
            self.store().clear()

    @staticmethod
    def confirm(parent: Any, question: str) -> bool:
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            parent, "Dictation history", question, buttons.Yes | buttons.No, buttons.No
        )
        return bool(answer == buttons.Yes)
