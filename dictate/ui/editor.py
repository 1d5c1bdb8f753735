"""The editor: a thin Qt view of the dictation buffer (:mod:`dictate.editing.buffer`).

The buffer owns the text, the dictation point, the greyed region (pending words, then the
partial words being spoken), undo and the journal, in code points. This widget shows the text
with the region at the dictation point (:mod:`dictate.ui.shown_document`, where Qt's UTF-16
positions are converted) and forwards what the user does; the pipeline's and voice's changes
of the buffer are shown by its ``edits`` (:mod:`dictate.ui.buffer_edits`).

How user input reaches the buffer: before any user input that could change the document (every
key press, an input method's commit, paste, drop, the context menu, a middle-click paste) the
region is taken out of the document, so the document is exactly the real text; Qt applies the
input; the document is compared with the text it was and the difference goes to the buffer as
one edit; the region is put back at the dictation point (where the cursor now is, unless text is
selected). A cursor move (mouse click, or anything else outside a key press) moves the dictation
point. Everything the editor changes itself happens with its change signals ignored.

The dictation point is the cursor moved out of any word it is inside ("caf|é" puts the greyed
words after "café", never inside it). After a mouse click the region moves only once no
double-click can follow (or at once when dictation or the user needs the point): moving it at
the first click would reflow the text under the mouse, and the second click would select
another word.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

from PySide6.QtCore import QEvent, QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDropEvent,
    QFocusEvent,
    QFont,
    QInputMethodEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QApplication, QMenu, QPlainTextEdit, QWidget

from dictate.editing.buffer import DictationBuffer
from dictate.editing.journal import Journal
from dictate.editing.text import (
    diff,
    fit_to_context,
    from_utf16,
    normalize_newlines,
    word_end,
)
from dictate.ui.buffer_edits import BufferEdits
from dictate.ui.shown_document import ShownDocument, region_formats

__all__ = ["DictationEditor", "fit_to_context"]

log = logging.getLogger("dictate.ui")


class DictationEditor(QPlainTextEdit):
    """A plain-text editor with a dictation point and a greyed, untouchable dictation region."""

    textEdited = Signal()
    """The real text changed (user edit, undo/redo or finalized dictation)."""
    journalStateChanged = Signal(object)
    """The journal could not be written (an OSError), or works again (None)."""

    def __init__(
        self,
        journal: Journal | None = None,
        parent: QWidget | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Document")
        self.setAccessibleDescription(
            "Your text. Dictated words that may still change are shown greyed at the cursor."
        )
        self.buffer = DictationBuffer(journal, clock)
        self.buffer.on_journal_state = self.journalStateChanged.emit
        self.document().setUndoRedoEnabled(False)
        self.setTabChangesFocus(True)  # Tab and Shift+Tab leave the editor; Ctrl+Tab types a tab
        # What the document shows, kept in step with it; the editor changes it only there.
        self._shown = ShownDocument(self.document(), lambda: region_formats(self.palette()))
        self.edits = BufferEdits(
            self.buffer,
            self._shown,
            self._settle,
            self.selection,
            self.set_selection,
            self.textEdited.emit,
        )
        """The pipeline's, voice's, undo's and redo's changes of the buffer, shown."""
        self._editing = 0  # >0 while Qt applies a user edit (region out of the document)
        self._edit_hint: int | None = None  # UTF-16 start of the user's edit
        self._pressing = False  # inside a left-button mouse press
        self._pressed_at: int | None = None  # where the last click put the cursor (buffer)
        # Adds to the context menu: the menu, and the buffer position it was opened at.
        self.extend_menu: Callable[[QMenu, int], object] | None = None
        # A click's cursor move reaches the dictation point after the double-click interval.
        self._click_move = QTimer(self)
        self._click_move.setSingleShot(True)
        self._click_move.setInterval(QApplication.doubleClickInterval())
        self._click_move.timeout.connect(self._follow_cursor)
        self.document().contentsChange.connect(self._on_contents_change)
        self.cursorPositionChanged.connect(self._on_cursor_moved)
        # A click at the end of a selection only collapses it: no position changes.
        self.selectionChanged.connect(self._on_cursor_moved)

    @property
    def journal(self) -> Journal | None:
        return self.buffer.journal

    @property
    def text(self) -> str:
        """The document without the dictation region."""
        return self.buffer.text

    @property
    def dictation_point(self) -> int:
        """Where the region is shown and the next finalized sentence goes (code points); a
        click still waiting for the double-click interval is applied first."""
        self._settle()
        return self.buffer.point

    @property
    def pending_text(self) -> str:
        return self.buffer.pending

    @property
    def partial_text(self) -> str:
        return self.buffer.partial

    def shown_text(self) -> str:
        """What the document holds, as the buffer counts it (``\\n`` for a line break)."""
        return normalize_newlines(self.document().toRawText())

    def selection(self) -> tuple[int, int]:
        """The user's cursor (anchor, position) in the buffer's positions."""
        cursor = self.textCursor()
        display = self._shown.display()
        return (
            self._shown.real_from_doc(cursor.anchor(), display),
            self._shown.real_from_doc(cursor.position(), display),
        )

    def set_selection(self, anchor: int, position: int | None = None) -> None:
        """Put the cursor (and selection) at buffer positions, without moving the dictation
        point (a plain cursor move does: see :meth:`move_cursor`)."""
        position = anchor if position is None else position
        display = self._shown.display()
        # A selection that starts at the dictation point starts after the greyed words, so they
        # are not drawn as selected (they never are: copy and delete leave them alone).
        start = min(anchor, position) if anchor != position else -1
        cursor = self.textCursor()
        cursor.setPosition(self._shown.doc_from_real(anchor, display, anchor == start))
        cursor.setPosition(
            self._shown.doc_from_real(position, display, position == start),
            QTextCursor.MoveMode.KeepAnchor,
        )
        with self._shown.quietly():
            self.setTextCursor(cursor)

    def move_cursor(self, pos: int) -> None:
        """Move the cursor to buffer position ``pos``: the dictation point goes with it (to the
        end of the word, if ``pos`` is inside one)."""
        self._click_move.stop()
        self.buffer.move_point(word_end(self.buffer.text, pos))
        self.edits.refresh(None, (pos, pos))

    def set_text(self, text: str, path: str | None = None) -> None:
        """Replace everything (New, Open, recovery); clears undo and the region."""
        self._click_move.stop()
        self.buffer.load(text, path)
        self.edits.rebuild()
        self.set_selection(len(self.buffer.text))

    @contextlib.contextmanager
    def _user_edit(self) -> Iterator[None]:
        """Take the region out for user input; afterwards hand the edit to the buffer."""
        if self._editing:
            yield
            return
        self._click_move.stop()  # the edit puts the dictation point at the cursor itself
        self._shown.hide_region()
        self._editing += 1
        self._edit_hint = None
        try:
            yield
        finally:
            self._editing -= 1
            self._finish_user_edit()

    def _finish_user_edit(self) -> None:
        new = self.shown_text()
        cursor = self.textCursor()
        anchor, position = from_utf16(new, cursor.anchor()), from_utf16(new, cursor.position())
        changed = new != self._shown.real
        if changed:
            hint = None if self._edit_hint is None else from_utf16(new, self._edit_hint)
            pos, removed, inserted = diff(self._shown.real, new, hint)
            self._shown.real = new
            self.buffer.replace(pos, pos + len(removed), inserted, point=word_end(new, position))
        elif anchor == position:
            self.buffer.move_point(word_end(new, position))
        if self._shown.real != self.buffer.text:  # the buffer normalised what Qt inserted
            self._shown.real = self.buffer.text
            self.edits.rebuild()
        else:
            self.edits.show_region()
        self.set_selection(anchor, position)
        if changed:
            self.textEdited.emit()

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        if self._shown.quiet:
            return
        if self._editing:
            hint = self._edit_hint
            self._edit_hint = position if hint is None else min(hint, position)
            return
        # An edit that reached the document outside the wrapped entry points. Apply it if it
        # kept clear of the region; otherwise show the buffer again (the region is never
        # edited into text).
        old = self._shown.display()
        new = self.shown_text()
        pos, gone, came = diff(old, new, from_utf16(new, position))
        p, r = self._shown.point, len(self._shown.region)
        if pos + len(gone) <= p or pos >= p + r:
            real = pos if pos + len(gone) <= p else pos - r
            log.warning("editor: an edit outside the usual paths, applied at %d", real)
            point = p + len(came) - len(gone) if pos + len(gone) <= p else p
            self.buffer.replace(real, real + len(gone), came, point=point)
            self.textEdited.emit()
        else:
            log.warning("editor: an edit into the greyed region was refused")
        self.edits.rebuild()
        self.set_selection(self.buffer.point)

    def _on_cursor_moved(self) -> None:
        if self._shown.quiet or self._editing:
            return
        anchor, position = self.selection()
        if anchor != position:
            self._click_move.stop()
            if not self._pressing:  # e.g. Select All: not drawn over the greyed words
                self.set_selection(anchor, position)
            return  # a selection: the dictation point stays where it was
        if self._pressing:
            self._click_move.start()  # a click: see the module docstring
            return
        self._follow_cursor()

    def _follow_cursor(self) -> None:
        """The dictation point goes where the cursor is (out of the word it is in)."""
        anchor, position = self.selection()
        if anchor != position:
            return
        if (
            word_end(self.buffer.text, position) != self.buffer.point
            or self._shown.doc_from_real(position, self._shown.display())
            != self.textCursor().position()
        ):
            self.move_cursor(position)

    def _settle(self) -> None:
        """Apply a click's move of the dictation point now, if it is still waiting."""
        if self._click_move.isActive():
            self._click_move.stop()
            self._follow_cursor()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        # Until the button is released: Qt moves the cursor again on release.
        self._pressing = event.button() == Qt.MouseButton.LeftButton
        super().mousePressEvent(event)
        anchor, position = self.selection()
        self._pressed_at = position if self._pressing and anchor == position else None

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        """Select the word where the first click landed in the text: greyed words growing in
        front of it while the user speaks may have moved it from under the mouse."""
        if event.button() != Qt.MouseButton.LeftButton or self._pressed_at is None:
            super().mouseDoubleClickEvent(event)
            return
        self._pressing = True
        cursor = self.textCursor()
        cursor.setPosition(self._shown.doc_from_real(self._pressed_at, self._shown.display()))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self.setTextCursor(cursor)
        event.accept()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._pressing = False  # a release that went elsewhere
        super().focusOutEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Undo):
            self.edits.undo()
            return
        if event.matches(QKeySequence.StandardKey.Redo):
            self.edits.redo()
            return
        if (
            event.key() == Qt.Key.Key_Tab
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            with self._user_edit():
                self.textCursor().insertText("\t")
            return
        with self._user_edit():
            super().keyPressEvent(event)

    def inputMethodEvent(self, event: QInputMethodEvent) -> None:
        if not event.commitString() and not event.replacementLength():
            super().inputMethodEvent(event)  # only the preedit text, drawn by the layout
            return
        with self._user_edit():
            super().inputMethodEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        with self._user_edit():
            super().dropEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton:  # X11's selection paste
            with self._user_edit():
                super().mouseReleaseEvent(event)
            return
        try:
            super().mouseReleaseEvent(event)
        finally:
            if event.button() == Qt.MouseButton.LeftButton:
                self._pressing = False
                anchor, position = self.selection()
                if anchor != position:  # a drag, double or triple click: see set_selection
                    self.set_selection(anchor, position)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        """Qt's own menu, shown outside a user edit: it runs an event loop of its own, and the
        pipeline's events that arrive there must find the greyed words shown as usual. Its
        editing actions go through the same wrapped entry points as the keys; undo and redo
        are the editor's own (the Edit menu), so Qt's are left out."""
        menu = self.createStandardContextMenu()
        editing = {"edit-cut": self.cut, "edit-paste": self.paste, "edit-delete": self._delete}
        for action in menu.actions():
            name = action.objectName()
            if name in ("edit-undo", "edit-redo"):
                menu.removeAction(action)
            elif name in editing:
                action.triggered.disconnect()
                action.triggered.connect(editing[name])
        if self.extend_menu is not None:  # the window's own items (play the sentence's audio)
            self.extend_menu(menu, self._menu_position(event))
        menu.exec(event.globalPos())

    def _menu_position(self, event: QContextMenuEvent) -> int:
        """The buffer position the context menu is about: the text under the mouse for a
        right-click (Qt leaves the cursor where it was), the cursor for the menu key."""
        if event.reason() != QContextMenuEvent.Reason.Mouse:
            return self.selection()[1]
        # A right-click reaches the editor through its viewport: the position is the viewport's.
        at = self.cursorForPosition(event.pos()).position()
        return self._shown.real_from_doc(at, self._shown.display())

    def createMimeDataFromSelection(self) -> QMimeData:
        """Copy, cut and drag carry the selected real text, never the greyed words."""
        anchor, position = self.selection()
        data = QMimeData()
        data.setText(self.buffer.text[min(anchor, position) : max(anchor, position)])
        return data

    def selected_text(self) -> str:
        anchor, position = self.selection()
        return self.buffer.text[min(anchor, position) : max(anchor, position)]

    # Edit menu entry points (the same as the keys, with the region kept out).
    def cut(self) -> None:
        with self._user_edit():
            super().cut()

    def paste(self) -> None:
        with self._user_edit():
            super().paste()

    def _delete(self) -> None:
        with self._user_edit():
            self.textCursor().removeSelectedText()

    def set_font_size(self, points: int) -> None:
        font = QFont(self.font())
        font.setPointSize(max(6, min(72, points)))
        self.setFont(font)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and not self._shown.quiet:
            selection = self.selection()
            self.edits.refresh(None, selection)  # greys are mixed from the palette
