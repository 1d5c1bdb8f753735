"""Where ``dictate transcribe`` and ``dictate punctuate`` print the dictated text."""

from __future__ import annotations

from typing import TextIO

from dictate.editing.apply import EditTarget, EventDocument, apply_event
from dictate.editing.text import separator
from dictate.events import Event


class TextOutput(EditTarget):
    """The text of a run's events on ``stdout``: each sentence as soon as it is final (a live
    pipe sees it at once), or, with voice commands (``whole``), the whole document when the
    run ends, since "scratch that" and "undo that" can take back what was dictated.
    """

    def __init__(self, stdout: TextIO, whole: bool) -> None:
        self._stdout = stdout
        self._document = EventDocument() if whole else None
        self.written = False
        """Whether any text was printed."""

    def apply(self, event: Event) -> None:
        apply_event(self._document or self, event)

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        text = " ".join(sentences)
        if text:
            self._stdout.write((separator(text) if self.written else "") + text)
            self._stdout.flush()
            self.written = True

    def close(self) -> None:
        """Print the document (``whole``) and end the last line."""
        text = self._document.text.strip() if self._document is not None else ""
        if text:
            self._stdout.write(text)
            self.written = True
        if self.written:
            self._stdout.write("\n")
            self._stdout.flush()
