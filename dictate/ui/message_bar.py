"""The message bar above the text: what went wrong or needs an answer, with buttons for the
ways out; it stays until dismissed or no longer true."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from dictate.errors import as_sentence


class MessageBar(QFrame):
    """A message inside the window with up to two actions and a close button."""

    def __init__(self, parent: QWidget | None = None, dismissable: bool = True) -> None:
        super().__init__(parent)
        self.dismissable = dismissable
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Message" if dismissable else "Problem saving your text")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons: list[QPushButton] = []
        self.close_button = QPushButton("&Dismiss")
        self.close_button.clicked.connect(self.hide)
        self._row = QHBoxLayout(self)
        self._row.addWidget(self.label, 1)
        self._row.addWidget(self.close_button)
        self.close_button.setVisible(dismissable)
        self.until: str | None = None
        self.hide()

    def show_message(
        self,
        text: str,
        actions: list[tuple[str, object]] | None = None,
        *,
        until: str | None = None,
    ) -> None:
        """Show ``text`` (replacing what is shown) with its action buttons; ``until`` names the
        event after which it is no longer true (see :meth:`no_longer_true`)."""
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        self.until = until
        self._add_buttons(actions)
        self.label.setText(as_sentence(text))
        self.show()

    def add_message(self, text: str, actions: list[tuple[str, object]] | None = None) -> None:
        """Show ``text`` below what is shown, if anything is, instead of replacing it: a notice
        that comes later must not hide a problem the user has not read yet."""
        if self.isHidden() or not self.label.text():
            self.show_message(text, actions)
            return
        self.until = None  # the whole is no longer one event's message
        self._add_buttons(actions)
        self.label.setText(f"{self.label.text()}\n{as_sentence(text)}")

    def no_longer_true(self, event: str) -> None:
        """``event`` happened: hide the message if it was only true until then ("stop
        dictation first", once dictation has stopped)."""
        if self.until == event and not self.isHidden():
            self.hide()

    def _add_buttons(self, actions: list[tuple[str, object]] | None) -> None:
        for label, slot in actions or []:
            button = QPushButton(label)
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            if self.dismissable:
                button.clicked.connect(self.hide)
            self._row.insertWidget(self._row.count() - 1, button)
            self.buttons.append(button)
