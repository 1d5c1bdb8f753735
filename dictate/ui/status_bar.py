"""The window's status bar: a message gets the room the permanent labels leave it ("Text goes
to: ...", "Engine: ..."). At the window's minimum width they leave about 10 pixels, so while a
message is shown the labels that can wait (:data:`YIELDS`: the engine, punctuation and latency
labels) step aside for it, and come back when it goes; what still does not fit is elided, with
the whole message as the bar's tooltip. Two texts never run into each other, and none is cut
without a way to read the rest. Resizing the window lays the message out again."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QStatusBar, QWidget

_MARGIN = 24
"""Pixels kept free beside the message: the bar's own margins and the space between items."""
YIELDS = "yields_to_messages"
"""A permanent widget with this Qt property true is hidden while a message needs its room."""


class ElidingStatusBar(QStatusBar):
    """A :class:`QStatusBar` whose :meth:`showMessage` elides the text to fit (module docstring)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._whole = ""
        self._until: float | None = None  # time.monotonic() the message goes at (None: stays)
        self._stepped_aside: list[QWidget] = []
        self._drawn = ""  # the text last given to QStatusBar.showMessage
        self.messageChanged.connect(self._on_changed)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self._whole = text
        timeout = timeout or 0
        self._until = time.monotonic() + timeout / 1000 if timeout > 0 else None
        self._show(timeout)

    def currentMessage(self) -> str:
        """The message as it was given, whole ("" when none is shown); what is drawn may be
        elided (:meth:`drawn_message`)."""
        return self._whole if super().currentMessage() else ""

    def drawn_message(self) -> str:
        """The message as the bar draws it: elided where it does not fit."""
        return super().currentMessage()

    def room(self) -> int:
        """Pixels the message may take: the bar's width less its visible permanent labels."""
        taken = sum(
            w.width()
            for w in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if w.isVisible() and w.isWindow() is False
        )
        return max(0, self.width() - taken - _MARGIN)

    def _show(self, timeout: int) -> None:
        self._give_back()
        need = self.fontMetrics().horizontalAdvance(self._whole)
        for widget in self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if need <= self.room():
                break
            if widget.property(YIELDS) and widget.isVisible():
                widget.hide()
                self._stepped_aside.append(widget)
        elide = Qt.TextElideMode.ElideRight
        elided = self._drawn = self.fontMetrics().elidedText(self._whole, elide, self.room())
        super().showMessage(elided, timeout)
        self.setToolTip(self._whole if elided != self._whole else "")

    def _give_back(self) -> None:
        for widget in self._stepped_aside:
            widget.show()
        self._stepped_aside = []

    def _on_changed(self, text: str) -> None:
        if text and text != self._drawn:  # shown by Qt itself (an action's status tip)
            self._whole, self._until, self._drawn = text, None, text
            self.setToolTip("")
        if not text:  # the message went (its time was up, or it was cleared)
            self._whole, self._until = "", None
            self.setToolTip("")
            self._give_back()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._whole and self.drawn_message():
            left = None if self._until is None else self._until - time.monotonic()
            self._show(0 if left is None else max(1, round(1000 * left)))
