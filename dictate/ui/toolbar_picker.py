"""The toolbar's lists (microphone, speech engine)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtWidgets import QComboBox


class ToolbarPicker(QComboBox):
    """A toolbar list that gives the keyboard back to the text when its list closes without a
    choice (Escape, a click elsewhere): focus left in it after Ctrl+M, Escape made the next
    typed letters pick another microphone instead of reaching the text."""

    popupClosed = Signal()

    def showPopup(self) -> None:
        super().showPopup()
        # Escape closes the popup without hidePopup(): watch its window instead.
        container = self.view().window()
        if container is not self.window():
            container.removeEventFilter(self)
            container.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Hide and watched is self.view().window():
            # After the event loop: the closing popup hands the focus back to this list first.
            QTimer.singleShot(0, self, self.popupClosed.emit)
        return super().eventFilter(watched, event)
