"""The editor: the user's text plus a greyed dictation region that the user's edits never touch.

The document holds the real text and, at the *dictation point*, a region that only displays the
dictation in progress: the pending words (punctuated, may still change) and the live partial
words of the segment being spoken, in two distinguishable styles. The region is not part of the
text: it is never journaled, saved, copied by Copy All or undone.

Rules (documented in the README):

* Finalized sentences are inserted at the dictation point as normal text, journaled and fsynced
  first, with spacing and the first letter's case fitted to the text before them.
* The dictation point follows the user's cursor: move the cursor (or type) and the greyed region
  moves there, and the next finalized sentence goes there. Text the user typed is never moved or
  overwritten by dictation.
* Before any user edit (keys, input methods, paste, drop, context menu) the region is taken out
  of the document and put back afterwards, so an edit can never land inside it.
* Undo/Redo is the editor's own stack of text operations (Qt's document undo is off, since it
  would record the region's updates): typing is grouped into words, a dictated sentence is one
  step, and undoing never touches the greyed region.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDropEvent,
    QFont,
    QInputMethodEvent,
    QKeyEvent,
    QKeySequence,
    QPalette,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from dictate.journal import Journal

_SENTENCE_END = (".", "?", "!", ":")
_TYPING_GROUP_SECONDS = 1.0


@dataclass
class Op:
    """``removed`` at ``pos`` was replaced by ``inserted``."""

    pos: int
    removed: str
    inserted: str
    kind: str  # "typing", "edit", "dictation"
    at: float = 0.0


def _diff(old: str, new: str, hint: int | None = None) -> tuple[int, str, str]:
    """The single replaced span that turns ``old`` into ``new``.

    ``hint`` (where Qt says the change began) breaks ties in repeated text: typing "l" into
    "he|llo" is an insertion at 2, not at 4.
    """
    start = 0
    limit = min(len(old), len(new))
    if hint is not None:
        limit = min(limit, max(0, hint))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, old[start:end_old], new[start:end_new]


def fit_to_context(text: str, before: str, after: str) -> str:
    """Adjust dictated ``text`` for insertion between ``before`` and ``after``.

    A space is added where it joins a word, and the first letter is capitalised only where a
    sentence begins (document start, after a line break or a sentence end); mid-sentence the
    punctuator's sentence-initial capital is lowered unless the word is "I" or all capitals.
    """
    if not text:
        return text
    stripped = before.rstrip(" \t")
    at_sentence_start = not stripped or stripped.endswith(("\n", *_SENTENCE_END))
    first = text.split(" ", 1)[0]
    if at_sentence_start:
        text = text[0].upper() + text[1:]
    elif (
        first[:1].isupper()
        and not first.isupper()
        and first not in ("I", "I'm", "I'll", "I've", "I'd")
    ):
        text = text[0].lower() + text[1:]
    if before and not before[-1].isspace():
        text = " " + text
    if after and not after[0].isspace():
        text = text + " "
    return text


class DictationEditor(QPlainTextEdit):
    """A plain-text editor with a dictation point and a greyed, untouchable dictation region."""

    textEdited = Signal()
    """The real text changed (user edit, undo/redo or finalized dictation)."""

    def __init__(self, journal: Journal | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Document")
        self.setAccessibleDescription(
            "Your text. Dictated words that may still change are shown greyed at the cursor."
        )
        self.journal = journal
        self.document().setUndoRedoEnabled(False)
        self._text = ""  # the real text: the document without the region
        self._point = 0  # dictation point, in real-text coordinates
        self._region = ""  # displayed region text
        self._pending = ""
        self._partial = ""
        self._quiet = 0  # >0 while the editor changes the document itself
        self._undo: list[Op] = []
        self._redo: list[Op] = []
        self.document().contentsChange.connect(self._on_contents_change)
        self.cursorPositionChanged.connect(self._on_cursor_moved)

    # -- the real text ---------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The document without the dictation region."""
        return self._text

    @property
    def dictation_point(self) -> int:
        return self._point

    @property
    def pending_text(self) -> str:
        return self._pending

    @property
    def partial_text(self) -> str:
        return self._partial

    def set_text(self, text: str) -> None:
        """Replace everything (New, Open, recovery); clears undo and the region."""
        self._pending = self._partial = ""
        with self._quietly():
            self.setPlainText(text)
            self._region = ""
        self._text = text
        self._point = len(text)
        self._undo.clear()
        self._redo.clear()
        cursor = self.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        self.setTextCursor(cursor)

    @contextlib.contextmanager
    def _quietly(self) -> Iterator[None]:
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    # -- coordinates -----------------------------------------------------------------------

    def _to_real(self, pos: int) -> int:
        if pos <= self._point:
            return pos
        if pos <= self._point + len(self._region):
            return self._point
        return pos - len(self._region)

    def _to_doc(self, pos: int) -> int:
        return pos if pos <= self._point else pos + len(self._region)

    def _user_cursor(self) -> tuple[int, int]:
        cursor = self.textCursor()
        return self._to_real(cursor.anchor()), self._to_real(cursor.position())

    def _set_user_cursor(self, anchor: int, position: int) -> None:
        cursor = self.textCursor()
        cursor.setPosition(self._to_doc(anchor))
        cursor.setPosition(self._to_doc(position), QTextCursor.MoveMode.KeepAnchor)
        with self._quietly():
            self.setTextCursor(cursor)

    # -- the region ------------------------------------------------------------------------

    def _formats(self) -> tuple[QTextCharFormat, QTextCharFormat]:
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Text)
        back = palette.color(QPalette.ColorRole.Base)
        pending = QTextCharFormat()
        pending.setForeground(_mix(base, back, 0.45))
        partial = QTextCharFormat()
        partial.setForeground(_mix(base, back, 0.6))
        partial.setFontItalic(True)
        partial.setFontUnderline(True)
        partial.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
        return pending, partial

    def _remove_region(self) -> None:
        if not self._region:
            return
        anchor, position = self._user_cursor()
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(self._point)
            cursor.setPosition(self._point + len(self._region), QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            self._region = ""
        self._set_user_cursor(anchor, position)

    def _render_region(self) -> None:
        anchor, position = self._user_cursor()
        self._remove_region()
        before = self._text[: self._point]
        after = self._text[self._point :]
        parts: list[tuple[str, QTextCharFormat]] = []
        pending_fmt, partial_fmt = self._formats()
        shown = ""
        for piece, fmt in ((self._pending, pending_fmt), (self._partial, partial_fmt)):
            if not piece:
                continue
            if shown:  # the space between pending and partial words stays unstyled
                parts.append((" ", pending_fmt))
                joined = piece
                shown += " "
            else:
                joined = fit_to_context(piece, before, "")
            parts.append((joined, fmt))
            shown += joined
        if shown and after and not after[0].isspace():
            parts.append((" ", pending_fmt))
            shown += " "
        if not shown:
            self._set_user_cursor(anchor, position)
            return
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(self._point)
            for piece, fmt in parts:
                cursor.insertText(piece, fmt)
            self._region = shown
        self._set_user_cursor(anchor, position)

    def set_dictation(self, pending: str | None = None, partial: str | None = None) -> None:
        """Show the pending text and/or the live partial words (greyed, replaced in place)."""
        if pending is not None:
            self._pending = pending
        if partial is not None:
            self._partial = partial
        self._render_region()

    def clear_dictation(self) -> None:
        self._pending = self._partial = ""
        self._remove_region()

    def insert_final(self, text: str) -> None:
        """Insert finalized sentences at the dictation point (journaled before they appear)."""
        if not text:
            return
        adjusted = fit_to_context(text, self._text[: self._point], self._text[self._point :])
        self._apply(Op(self._point, "", adjusted, "dictation", time.monotonic()), record=True)

    # -- applying operations ---------------------------------------------------------------

    def _apply(self, op: Op, record: bool, keep_cursor: bool = False) -> None:
        """Apply ``op`` to the real text and the document; journal it first."""
        if self.journal is not None:
            self.journal.edit(op.pos, op.removed, op.inserted)
        anchor, position = self._user_cursor()
        self._remove_region()
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(op.pos)
            cursor.setPosition(op.pos + len(op.removed), QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(op.inserted, QTextCharFormat())
        self._text = self._text[: op.pos] + op.inserted + self._text[op.pos + len(op.removed) :]
        delta = len(op.inserted) - len(op.removed)
        if op.kind == "dictation":
            # The user's cursor stays where it was unless it sat at the dictation point.
            shift = lambda p: p + delta if p >= op.pos else p  # noqa: E731
            self._point = op.pos + len(op.inserted)
            anchor, position = shift(anchor), shift(position)
        else:
            self._point = op.pos + len(op.inserted)
            anchor = position = self._point
        if record:
            self._undo.append(op)
            self._redo.clear()
        self._render_region()
        if not keep_cursor:
            self._set_user_cursor(anchor, position)
        self.textEdited.emit()

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        if self._quiet:
            return
        # A user edit. The region was taken out before it (see the event overrides), so the
        # document is the real text; an edit that slipped past them is mapped if it kept clear
        # of the region, and otherwise taken as it is.
        new_doc = self.toPlainText()
        if not self._region:
            new_text = new_doc
        else:
            old_doc = self._text[: self._point] + self._region + self._text[self._point :]
            pos, gone, came = _diff(old_doc, new_doc, position)
            if pos < self._point + len(self._region) and pos + len(gone) > self._point:
                new_text, self._region = new_doc, ""
            else:
                real = self._to_real(pos)
                new_text = self._text[:real] + came + self._text[real + len(gone) :]
                if real < self._point:
                    self._point += len(came) - len(gone)
        pos, gone, came = _diff(self._text, new_text, self._to_real(position))
        self._text = new_text
        self._point = min(self._point, len(new_text))
        if self.journal is not None:
            self.journal.edit(pos, gone, came)
        now = time.monotonic()
        last = self._undo[-1] if self._undo else None
        typing = not gone and len(came) == 1 and not came.isspace()
        if (
            typing
            and last is not None
            and last.kind == "typing"
            and last.pos + len(last.inserted) == pos
            and now - last.at < _TYPING_GROUP_SECONDS
        ):
            last.inserted += came
            last.at = now
        else:
            self._undo.append(Op(pos, gone, came, "typing" if typing else "edit", now))
        self._redo.clear()
        self.textEdited.emit()

    def _on_cursor_moved(self) -> None:
        if self._quiet:
            return
        cursor = self.textCursor()
        if cursor.hasSelection():
            return
        real = self._to_real(cursor.position())
        if real != self._point:
            self._point = real
            self._render_region()

    # -- undo / redo -----------------------------------------------------------------------

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_edit(self) -> None:
        if not self._undo:
            return
        op = self._undo.pop()
        self._apply(Op(op.pos, op.inserted, op.removed, "edit"), record=False)
        self._redo.append(op)

    def redo_edit(self) -> None:
        if not self._redo:
            return
        op = self._redo.pop()
        self._apply(Op(op.pos, op.removed, op.inserted, "edit"), record=False)
        self._undo.append(op)

    # -- user input: keep the region out of every edit -------------------------------------

    @contextlib.contextmanager
    def _around_user_edit(self) -> Iterator[None]:
        """Take the region out for a user edit; afterwards the dictation point is the cursor."""
        self._remove_region()
        try:
            yield
        finally:
            cursor = self.textCursor()
            if not cursor.hasSelection():
                self._point = self._to_real(cursor.position())
            self._render_region()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undo_edit()
            return
        if event.matches(QKeySequence.StandardKey.Redo):
            self.redo_edit()
            return
        if (
            event.text()
            or event.key() in (Qt.Key.Key_Backspace, Qt.Key.Key_Delete)
            or (
                event.matches(QKeySequence.StandardKey.Paste)
                or event.matches(QKeySequence.StandardKey.Cut)
            )
        ):
            with self._around_user_edit():
                super().keyPressEvent(event)
            return
        super().keyPressEvent(event)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        with self._around_user_edit():
            super().inputMethodEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        with self._around_user_edit():
            super().dropEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        with self._around_user_edit():
            menu = self.createStandardContextMenu()
            for action in menu.actions():
                if action.text().replace("&", "").startswith(("Undo", "Redo")):
                    menu.removeAction(action)
            menu.exec(event.globalPos())

    def set_font_size(self, points: int) -> None:
        font = QFont(self.font())
        font.setPointSize(max(6, min(72, points)))
        self.setFont(font)
        self._render_region()


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` towards ``b`` (greying text on any palette, dark or light)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )
