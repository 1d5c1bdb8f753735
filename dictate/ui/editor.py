"""The editor: a thin Qt view of the dictation buffer (:mod:`dictate.editing.buffer`).

The buffer owns the text, the dictation point, the greyed region (pending words, then the
partial words being spoken), undo and the journal, in code points. This widget shows the text
with the region at the dictation point and forwards what the user does. Qt counts positions in
UTF-16 units; every conversion between the two happens here, in ``_to_*``/``_from_*`` helpers
over the string the document shows.

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

Size: one widget. Every input path (keys, input methods, paste, drop, menus, clicks) takes the
greyed region out and puts it back around the same document state and UTF-16 mapping.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from PySide6.QtCore import QEvent, QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import (
    QClipboard,
    QColor,
    QContextMenuEvent,
    QDropEvent,
    QFocusEvent,
    QFont,
    QGuiApplication,
    QInputMethodEvent,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPalette,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QApplication, QMenu, QPlainTextEdit, QWidget

from dictate.editing.buffer import Change, DictationBuffer
from dictate.editing.journal import Journal
from dictate.editing.text import (
    diff,
    fit_to_context,
    from_utf16,
    normalize_newlines,
    to_utf16,
    word_end,
)

__all__ = ["DictationEditor", "fit_to_context", "release_clipboard"]

log = logging.getLogger("dictate.ui")
_T = TypeVar("_T")


def release_clipboard() -> None:
    """Give Qt's clipboard a copy it made itself of text this app copied (call before Python
    exits; :func:`dictate.ui.app.application` connects it to ``aboutToQuit``).

    :meth:`DictationEditor.createMimeDataFromSelection` makes its QMimeData in Python. Where
    Qt's clipboard outlives the interpreter (the offscreen platform keeps it in a global that
    is destroyed at process exit), deleting that object then calls into a finalized Python
    and the process ends in SIGSEGV. Only data made by this app (in Python) is replaced, so
    what another application owns is left alone; the text stays the same.
    """
    from shiboken6 import Shiboken

    clipboard = QGuiApplication.clipboard()
    modes = [QClipboard.Mode.Clipboard]
    if clipboard.supportsSelection():
        modes.append(QClipboard.Mode.Selection)
    for mode in modes:
        data = clipboard.mimeData(mode)
        if data is not None and Shiboken.createdByPython(data):
            clipboard.setText(data.text(), mode)


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
        # What the document shows, kept in step with it: the real text as shown, and the region
        # (its text) shown at ``_shown_point`` of it.
        self._real = ""
        self._shown_point = 0
        self._shown_region = ""
        self._quiet = 0  # >0 while the editor changes the document itself
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

    # -- what the buffer holds -------------------------------------------------------------

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

    # -- coordinates -----------------------------------------------------------------------

    def _display(self) -> str:
        p = self._shown_point
        return self._real[:p] + self._shown_region + self._real[p:]

    def _real_from_doc(self, pos16: int, display: str) -> int:
        d = from_utf16(display, pos16)
        p, r = self._shown_point, len(self._shown_region)
        if d <= p:
            return d
        if d <= p + r:
            return p
        return d - r

    def _doc_from_real(self, pos: int, display: str, after_region: bool = False) -> int:
        """Qt's position of buffer position ``pos``; at the dictation point, before the region
        unless ``after_region``."""
        before = pos < self._shown_point or (pos == self._shown_point and not after_region)
        d = pos if before else pos + len(self._shown_region)
        return to_utf16(display, d)

    def selection(self) -> tuple[int, int]:
        """The user's cursor (anchor, position) in the buffer's positions."""
        cursor = self.textCursor()
        display = self._display()
        return (
            self._real_from_doc(cursor.anchor(), display),
            self._real_from_doc(cursor.position(), display),
        )

    def set_selection(self, anchor: int, position: int | None = None) -> None:
        """Put the cursor (and selection) at buffer positions, without moving the dictation
        point (a plain cursor move does: see :meth:`move_cursor`)."""
        position = anchor if position is None else position
        display = self._display()
        # A selection that starts at the dictation point starts after the greyed words, so they
        # are not drawn as selected (they never are: copy and delete leave them alone).
        start = min(anchor, position) if anchor != position else -1
        cursor = self.textCursor()
        cursor.setPosition(self._doc_from_real(anchor, display, anchor == start))
        cursor.setPosition(
            self._doc_from_real(position, display, position == start),
            QTextCursor.MoveMode.KeepAnchor,
        )
        with self._quietly():
            self.setTextCursor(cursor)

    def move_cursor(self, pos: int) -> None:
        """Move the cursor to buffer position ``pos``: the dictation point goes with it (to the
        end of the word, if ``pos`` is inside one)."""
        self._click_move.stop()
        self.buffer.move_point(word_end(self.buffer.text, pos))
        self._refresh(None, (pos, pos))

    @contextlib.contextmanager
    def _quietly(self) -> Iterator[None]:
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    # -- keeping the document in step with the buffer ----------------------------------------

    def _formats(self) -> dict[str, QTextCharFormat]:
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
        return {"pending": pending, "space": pending, "partial": partial}

    def _hide_region(self) -> None:
        if not self._shown_region:
            return
        display = self._display()
        p = self._shown_point
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(to_utf16(display, p))
            cursor.setPosition(
                to_utf16(display, p + len(self._shown_region)), QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
        self._shown_region = ""

    def _show_region(self) -> None:
        assert not self._shown_region
        self._shown_point = self.buffer.point
        parts = self.buffer.region_parts()
        if not parts:
            return
        formats = self._formats()
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(to_utf16(self._real, self._shown_point))
            for piece, kind in parts:
                cursor.insertText(piece, formats[kind])
        self._shown_region = "".join(piece for piece, _ in parts)

    def _apply_change(self, change: Change) -> None:
        """Apply a change of the real text to the document (the region is out of it)."""
        start = to_utf16(self._real, change.pos)
        end = start + to_utf16(change.removed, len(change.removed))
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(change.inserted, QTextCharFormat())
        self._real = (
            self._real[: change.pos]
            + change.inserted
            + self._real[change.pos + len(change.removed) :]
        )

    def _rebuild(self) -> None:
        """Show the buffer afresh (a safety net; the normal path changes only what changed)."""
        with self._quietly():
            cursor = QTextCursor(self.document())
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(self.buffer.text, QTextCharFormat())
        self._real = self.buffer.text
        self._shown_region = ""
        self._show_region()

    def _refresh(self, change: Change | None, cursor: tuple[int, int] | None) -> None:
        """After the buffer changed: take the region out, apply ``change``, put the region
        back at the dictation point, and put the cursor at ``cursor`` (buffer positions;
        None: at the dictation point)."""
        self._hide_region()
        if change is not None:
            self._apply_change(change)
        if self._real != self.buffer.text:  # never expected; show the buffer as it is
            log.error("editor out of step with the buffer; showing the buffer afresh")
            self._rebuild()
        else:
            self._show_region()
        anchor, position = cursor if cursor is not None else (self.buffer.point,) * 2
        limit = len(self.buffer.text)
        self.set_selection(min(anchor, limit), min(position, limit))

    @staticmethod
    def _map(pos: int, change: Change, after_insert: bool) -> int:
        """Where ``pos`` is after ``change``; a position at an insertion moves after it only
        if ``after_insert``."""
        end = change.pos + len(change.removed)
        if pos < change.pos or (pos == change.pos and not after_insert and not change.removed):
            return pos
        if pos < end:
            return change.pos
        return pos + len(change.inserted) - len(change.removed)

    def _after_pipeline_change(self, change: Change | None, old_point: int) -> None:
        anchor, position = self.selection()
        if change is not None:
            if anchor == position:
                anchor = position = self._map(position, change, position == old_point)
            else:
                lo, hi = min(anchor, position), max(anchor, position)
                lo2, hi2 = self._map(lo, change, True), self._map(hi, change, False)
                anchor, position = (lo2, hi2) if anchor <= position else (hi2, lo2)
        if anchor == position:
            anchor = position = self.buffer.point if change is not None else position
        self._refresh(change, (anchor, position))
        if change is not None:
            self.textEdited.emit()

    # -- the pipeline's events and commands --------------------------------------------------

    def set_text(self, text: str, path: str | None = None) -> None:
        """Replace everything (New, Open, recovery); clears undo and the region."""
        self._click_move.stop()
        self.buffer.load(text, path)
        self._rebuild()
        self.set_selection(len(self.buffer.text))

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
            self._refresh(change, None)
            self.textEdited.emit()
            return
        self._after_pipeline_change(change, old)

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
        self._after_pipeline_change(None, self.buffer.point)

    def clear_dictation(self) -> None:
        self.buffer.clear_dictation()
        self._after_pipeline_change(None, self.buffer.point)

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
        self._after_pipeline_change(change, old)
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
        self._refresh(change, self.buffer.selection)
        if change is not None:
            self.textEdited.emit()
        return result

    def insert_break(self, paragraph: bool = False) -> None:
        self._settle()
        old = self.buffer.point
        self._after_pipeline_change(self.buffer.insert_break(paragraph), old)

    # -- undo / redo -----------------------------------------------------------------------

    def can_undo(self) -> bool:
        return self.buffer.can_undo()

    def can_redo(self) -> bool:
        return self.buffer.can_redo()

    def undo_edit(self) -> None:
        self._settle()
        change = self.buffer.undo()
        if change is not None:
            self._refresh(change, None)
            self.textEdited.emit()

    def redo_edit(self) -> None:
        self._settle()
        change = self.buffer.redo()
        if change is not None:
            self._refresh(change, None)
            self.textEdited.emit()

    # -- user input ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _user_edit(self) -> Iterator[None]:
        """Take the region out for user input; afterwards hand the edit to the buffer."""
        if self._editing:
            yield
            return
        self._click_move.stop()  # the edit puts the dictation point at the cursor itself
        self._hide_region()
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
        changed = new != self._real
        if changed:
            hint = None if self._edit_hint is None else from_utf16(new, self._edit_hint)
            pos, removed, inserted = diff(self._real, new, hint)
            self._real = new
            self.buffer.replace(pos, pos + len(removed), inserted, point=word_end(new, position))
        elif anchor == position:
            self.buffer.move_point(word_end(new, position))
        if self._real != self.buffer.text:  # the buffer normalised what Qt inserted
            self._real = self.buffer.text
            self._rebuild()
        else:
            self._show_region()
        self.set_selection(anchor, position)
        if changed:
            self.textEdited.emit()

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        if self._quiet:
            return
        if self._editing:
            hint = self._edit_hint
            self._edit_hint = position if hint is None else min(hint, position)
            return
        # An edit that reached the document outside the wrapped entry points. Apply it if it
        # kept clear of the region; otherwise show the buffer again (the region is never
        # edited into text).
        old = self._display()
        new = self.shown_text()
        pos, gone, came = diff(old, new, from_utf16(new, position))
        p, r = self._shown_point, len(self._shown_region)
        if pos + len(gone) <= p or pos >= p + r:
            real = pos if pos + len(gone) <= p else pos - r
            log.warning("editor: an edit outside the usual paths, applied at %d", real)
            point = p + len(came) - len(gone) if pos + len(gone) <= p else p
            self.buffer.replace(real, real + len(gone), came, point=point)
            self.textEdited.emit()
        else:
            log.warning("editor: an edit into the greyed region was refused")
        self._rebuild()
        self.set_selection(self.buffer.point)

    def _on_cursor_moved(self) -> None:
        if self._quiet or self._editing:
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
            or self._doc_from_real(position, self._display()) != self.textCursor().position()
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
        cursor.setPosition(self._doc_from_real(self._pressed_at, self._display()))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self.setTextCursor(cursor)
        event.accept()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._pressing = False  # a release that went elsewhere
        super().focusOutEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undo_edit()
            return
        if event.matches(QKeySequence.StandardKey.Redo):
            self.redo_edit()
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
        return self._real_from_doc(at, self._display())

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

    def find_text(self, needle: str, backward: bool = False, wrap: bool = True) -> bool:
        """Select the next (or previous) match of ``needle`` in the real text, ignoring case;
        the greyed words are never searched. False if there is none."""
        if not needle:
            return False
        pattern = re.compile(re.escape(needle), re.IGNORECASE)
        text = self.buffer.text
        anchor, position = self.selection()
        lo, hi = min(anchor, position), max(anchor, position)
        if backward:
            before = [m for m in pattern.finditer(text) if m.start() < lo]
            match = before[-1] if before else None
            if match is None and wrap:
                every = list(pattern.finditer(text))
                match = every[-1] if every else None
        else:
            match = pattern.search(text, hi)
            if match is None and wrap:
                match = pattern.search(text)
        if match is None:
            return False
        return self._select_found(match.start(), match.end() - match.start())

    def _select_found(self, start: int, length: int) -> bool:
        self.set_selection(start, start + length)
        self.ensureCursorVisible()
        return True

    def set_font_size(self, points: int) -> None:
        font = QFont(self.font())
        font.setPointSize(max(6, min(72, points)))
        self.setFont(font)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and not self._quiet:
            selection = self.selection()
            self._refresh(None, selection)  # greys are mixed from the palette


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` towards ``b`` (greying text on any palette, dark or light)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )
