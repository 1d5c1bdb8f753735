"""Pipeline events applied to a :class:`DictationBuffer` without a window.

The command line (``dictate transcribe``, ``dictate punctuate --commands``) and the tests use
this to get exactly the text the window would show for the same events: finalized sentences at
the dictation point, line and paragraph breaks, "scratch that" and "undo that".
"""

from __future__ import annotations

from dictate.commands import BREAKS, CommandKind
from dictate.editing.buffer import DictationBuffer
from dictate.events import Command, Event, Finalized, Pending


class EventDocument:
    """A document built from pipeline events (no journal, no undo limit beyond the buffer's)."""

    def __init__(self) -> None:
        self.buffer = DictationBuffer()

    def apply(self, event: Event) -> None:
        """Apply one event; events other than these three change nothing."""
        buffer = self.buffer
        if isinstance(event, Finalized):
            buffer.finalize(event.sentences, event.pending, event.continues)
        elif isinstance(event, Pending):
            buffer.set_pending(event.text)
        elif isinstance(event, Command):
            if event.kind in BREAKS:
                buffer.insert_break(paragraph=event.kind == CommandKind.NEW_PARAGRAPH)
            elif event.kind == CommandKind.SCRATCH:
                buffer.scratch(event.target or "auto")
            elif event.kind == CommandKind.UNDO:
                buffer.undo()

    @property
    def text(self) -> str:
        """The document's text (pending words not included: they are not final)."""
        return self.buffer.text
