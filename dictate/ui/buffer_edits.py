"""Changes of the dictation buffer made by the pipeline (finalized sentences, pending and
partial words), by voice (corrections, "scratch that", line breaks) and by undo and redo, each
shown in the editor's document at once (:class:`~dictate.ui.editor.DictationEditor` owns one
:class:`BufferEdits` as ``edits``; the user's own typing goes the other way, from the document
to the buffer, in the editor)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from dictate.editing.buffer import Change, DictationBuffer
from dictate.editing.text import diff
from dictate.ui.shown_document import ShownDocument, map_position

log = logging.getLogger("dictate.ui")
_T = TypeVar("_T")


class BufferEdits:
    """The buffer's changes, shown.

    Args:
        buffer: The editor's buffer.
        shown: What the editor's document shows.
        settle: Applies a click's move of the dictation point still waiting (before a change
            that needs the point).
        selection: The editor's cursor (anchor, position), in buffer positions.
        set_selection: Puts the editor's cursor at buffer positions.
        edited: Says that the real text changed (the editor's ``textEdited``).
    """

    def __init__(
        self,
        buffer: DictationBuffer,
        shown: ShownDocument,
        settle: Callable[[], None],
        selection: Callable[[], tuple[int, int]],
        set_selection: Callable[[int, int], None],
        edited: Callable[[], None],
    ) -> None:
        self.buffer = buffer
        self._shown = shown
        self._settle = settle
        self._selection = selection
        self._set_selection = set_selection
        self._edited = edited

    def show_region(self) -> None:
        self._shown.show_region(self.buffer.point, self.buffer.region_parts())

    def rebuild(self) -> None:
        """Show the buffer afresh (a safety net; the normal path changes only what changed)."""
        self._shown.rebuild(self.buffer.text, self.buffer.point, self.buffer.region_parts())

    def refresh(self, change: Change | None, cursor: tuple[int, int] | None) -> None:
        """After the buffer changed: take the region out, apply ``change``, put the region
        back at the dictation point, and put the cursor at ``cursor`` (buffer positions;
        None: at the dictation point)."""
        self._shown.hide_region()
        if change is not None:
            self._shown.apply_change(change)
        if self._shown.real != self.buffer.text:  # never expected; show the buffer as it is
            log.error("editor out of step with the buffer; showing the buffer afresh")
            self.rebuild()
        else:
            self.show_region()
        anchor, position = cursor if cursor is not None else (self.buffer.point,) * 2
        limit = len(self.buffer.text)
        self._set_selection(min(anchor, limit), min(position, limit))

    def after_pipeline_change(self, change: Change | None, old_point: int) -> None:
        anchor, position = self._selection()
        if change is not None:
            if anchor == position:
                anchor = position = map_position(position, change, position == old_point)
            else:
                lo, hi = min(anchor, position), max(anchor, position)
                lo2, hi2 = map_position(lo, change, True), map_position(hi, change, False)
                anchor, position = (lo2, hi2) if anchor <= position else (hi2, lo2)
        if anchor == position:
            anchor = position = self.buffer.point if change is not None else position
        self.refresh(change, (anchor, position))
        if change is not None:
            self._edited()

    def insert_final(
        self, sentences: str | list[str], pending: str | None = None, continues: bool = False
    ) -> None:
        """Insert finalized sentences at the dictation point (journaled before they appear);
        the pending words become ``pending`` (see :meth:`DictationBuffer.finalize`)."""
        self._settle()
        old = self.buffer.point
        selected = self.buffer.selection is not None
        change = self.buffer.finalize(sentences, pending, continues)
        if selected and self.buffer.selection is None and change is not None:
            # The words replaced a selection made by voice: the cursor goes after them.
            self.refresh(change, None)
            self._edited()
            return
        self.after_pipeline_change(change, old)

    def set_dictation(
        self, pending: str | None = None, partial: str | None = None, live: str | None = None
    ) -> None:
        """Show the pending text and/or the live partial words (greyed, replaced in place). A
        click waiting for the double-click interval keeps waiting: these updates come many
        times a second while the user speaks, and need no new dictation point."""
        if pending is not None:
            self.buffer.set_pending(pending)
        if partial is not None:
            self.buffer.set_partial(partial, live)
        self.after_pipeline_change(None, self.buffer.point)

    def clear_dictation(self) -> None:
        self.buffer.clear_dictation()
        self.after_pipeline_change(None, self.buffer.point)

    def scratch(self, what: str = "auto") -> str:
        """Remove the pending words, else the last dictated sentence (see the buffer)."""
        self._settle()
        old_text = self.buffer.text
        old = self.buffer.point
        result = self.buffer.scratch(what)
        change = None
        if self.buffer.text != old_text:
            pos, removed, inserted = diff(old_text, self.buffer.text)
            change = Change(pos, removed, inserted)
        self.after_pipeline_change(change, old)
        return result

    def voice(self, action: Callable[[DictationBuffer], _T]) -> _T:
        """Carry out a correction by voice on the buffer (an action of
        :mod:`dictate.editing.voice_edits`) and show it: the voice selection selected, else the
        cursor at the dictation point."""
        self._settle()
        old_text = self.buffer.text
        result = action(self.buffer)
        change = None
        if self.buffer.text != old_text:
            change = Change(*diff(old_text, self.buffer.text))
        self.refresh(change, self.buffer.selection)
        if change is not None:
            self._edited()
        return result

    def insert_break(self, paragraph: bool = False) -> None:
        self._settle()
        old = self.buffer.point
        self.after_pipeline_change(self.buffer.insert_break(paragraph), old)

    def can_undo(self) -> bool:
        return self.buffer.can_undo()

    def can_redo(self) -> bool:
        return self.buffer.can_redo()

    def undo(self) -> None:
        self._settle()
        change = self.buffer.undo()
        if change is not None:
            self.refresh(change, None)
            self._edited()

    def redo(self) -> None:
        self._settle()
        change = self.buffer.redo()
        if change is not None:
            self.refresh(change, None)
            self._edited()
