"""What the editor's document shows, kept in step with it: the real text, and the greyed region
(pending words, then the partial words being spoken) shown at a point of it.

The buffer (:mod:`dictate.editing.buffer`) counts positions in code points; Qt counts them in
UTF-16 units. Every conversion between the two happens here, over the string the document shows
(:meth:`ShownDocument.display`), and every change the editor makes to its own document goes
through here, with :attr:`ShownDocument.quiet` set (the editor ignores its document's change
signals while it is).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from PySide6.QtGui import QPalette, QTextCharFormat, QTextCursor, QTextDocument

from dictate.editing.buffer import Change
from dictate.editing.text import from_utf16, to_utf16
from dictate.ui.text_view import PARTIAL_MIX, PENDING_MIX, mix


def region_formats(palette: QPalette) -> dict[str, QTextCharFormat]:
    """How the region's parts are drawn on ``palette``: pending words grey, partial words
    lighter, italic and dotted."""
    base = palette.color(QPalette.ColorRole.Text)
    back = palette.color(QPalette.ColorRole.Base)
    pending = QTextCharFormat()
    pending.setForeground(mix(base, back, PENDING_MIX))
    partial = QTextCharFormat()
    partial.setForeground(mix(base, back, PARTIAL_MIX))
    partial.setFontItalic(True)
    partial.setFontUnderline(True)
    partial.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DotLine)
    return {"pending": pending, "space": pending, "partial": partial}


def map_position(pos: int, change: Change, after_insert: bool) -> int:
    """Where buffer position ``pos`` is after ``change``; a position at an insertion moves
    after it only if ``after_insert``."""
    end = change.pos + len(change.removed)
    if pos < change.pos or (pos == change.pos and not after_insert and not change.removed):
        return pos
    if pos < end:
        return change.pos
    return pos + len(change.inserted) - len(change.removed)


class ShownDocument:
    """The editor's ``document`` as the buffer counts it.

    Args:
        document: The editor's document.
        formats: The region's formats now (they follow the palette: :func:`region_formats`).
    """

    def __init__(
        self, document: QTextDocument, formats: Callable[[], dict[str, QTextCharFormat]]
    ) -> None:
        self._document = document
        self._formats = formats
        self.real = ""
        """The real text, as the document shows it."""
        self.point = 0
        """Where in :attr:`real` the region is shown."""
        self.region = ""
        """The region's text as shown ("" while it is out of the document)."""
        self.quiet = 0
        """>0 while the document is changed here."""

    @contextlib.contextmanager
    def quietly(self) -> Iterator[None]:
        self.quiet += 1
        try:
            yield
        finally:
            self.quiet -= 1

    def display(self) -> str:
        """What the document shows: the real text with the region at its point."""
        return self.real[: self.point] + self.region + self.real[self.point :]

    def real_from_doc(self, pos16: int, display: str) -> int:
        """The buffer position of Qt's position ``pos16``; inside the region, its point."""
        d = from_utf16(display, pos16)
        p, r = self.point, len(self.region)
        if d <= p:
            return d
        if d <= p + r:
            return p
        return d - r

    def doc_from_real(self, pos: int, display: str, after_region: bool = False) -> int:
        """Qt's position of buffer position ``pos``; at the dictation point, before the region
        unless ``after_region``."""
        before = pos < self.point or (pos == self.point and not after_region)
        d = pos if before else pos + len(self.region)
        return to_utf16(display, d)

    def hide_region(self) -> None:
        """Take the region out of the document: it then shows the real text alone."""
        if not self.region:
            return
        display = self.display()
        p = self.point
        with self.quietly():
            cursor = QTextCursor(self._document)
            cursor.setPosition(to_utf16(display, p))
            cursor.setPosition(
                to_utf16(display, p + len(self.region)), QTextCursor.MoveMode.KeepAnchor
            )
            cursor.removeSelectedText()
        self.region = ""

    def show_region(self, point: int, parts: list[tuple[str, str]]) -> None:
        """Put the region's ``parts`` (text, kind) into the document at ``point``."""
        assert not self.region
        self.point = point
        if not parts:
            return
        formats = self._formats()
        with self.quietly():
            cursor = QTextCursor(self._document)
            cursor.setPosition(to_utf16(self.real, point))
            for piece, kind in parts:
                cursor.insertText(piece, formats[kind])
        self.region = "".join(piece for piece, _ in parts)

    def apply_change(self, change: Change) -> None:
        """Apply a change of the real text to the document (the region is out of it)."""
        start = to_utf16(self.real, change.pos)
        end = start + to_utf16(change.removed, len(change.removed))
        with self.quietly():
            cursor = QTextCursor(self._document)
            cursor.setPosition(start)
            cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(change.inserted, QTextCharFormat())
        self.real = (
            self.real[: change.pos]
            + change.inserted
            + self.real[change.pos + len(change.removed) :]
        )

    def rebuild(self, text: str, point: int, parts: list[tuple[str, str]]) -> None:
        """Show ``text`` afresh, with the region's ``parts`` at ``point``."""
        with self.quietly():
            cursor = QTextCursor(self._document)
            cursor.select(QTextCursor.SelectionType.Document)
            cursor.insertText(text, QTextCharFormat())
        self.real = text
        self.region = ""
        self.show_region(point, parts)
