"""Where the text of a transcribed audio file goes: at the cursor of the open document, or
into a new one; asked once, with "remember my choice" (Settings can change it later)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

#: The choices, as the settings store them (``Settings.audio_file_target``; None: ask).
AUDIO_TARGETS = (
    ("cursor", "At the &cursor in this document"),
    ("new", "Into a &new document"),
)


class AudioTargetDialog(QDialog):
    """Asks where the text of ``name`` goes; :meth:`choice` and :attr:`remember` once accepted."""

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Transcribe audio file")
        self.setAccessibleName("Where the transcribed text goes")
        layout = QVBoxLayout(self)
        question = QLabel(f"Where should the text of {name} go?")
        question.setWordWrap(True)
        layout.addWidget(question)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for value, label in AUDIO_TARGETS:
            button = QRadioButton(label)
            self.group.addButton(button)
            self.buttons[value] = button
            layout.addWidget(button)
        self.buttons["cursor"].setChecked(True)
        self.remember = QCheckBox("&Remember my choice (Settings can change it)")
        layout.addWidget(self.remember)
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = box.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Transcribe")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        layout.addWidget(box)

    def choice(self) -> str:
        """ "cursor" or "new"."""
        return next(value for value, button in self.buttons.items() if button.isChecked())


def ask_audio_target(parent: QWidget, name: str) -> tuple[str, bool] | None:
    """The user's choice and whether to remember it; None if cancelled."""
    dialog = AudioTargetDialog(name, parent)
    if not dialog.exec():
        return None
    return dialog.choice(), dialog.remember.isChecked()
