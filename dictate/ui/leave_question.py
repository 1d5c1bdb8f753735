"""The question asked when the window closes while recognition is behind what was said: wait
for it, quit now and leave the rest to the next start, or keep the window open.

A loaded machine can be minutes behind the speaker (issue 37); closing the window then waits
for every word, which nobody expects from a close button. Quitting now loses nothing where the
run's audio is kept: the next start recognises it from the kept audio and offers the words
(:mod:`dictate.ui.audio_recovery`). Where it is not kept, only waiting keeps the words, and the
question says so.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtWidgets import QMessageBox, QWidget


class Leave(Enum):
    WAIT = "wait"
    """Wait for the rest to be recognised, then close."""
    QUIT = "quit"
    """Close now; the rest is recognised from the kept audio at the next start."""
    CANCEL = "cancel"
    """Keep the window open (dictation goes on, or goes on finishing)."""


def question_text(behind: float, can_leave: bool) -> str:
    text = f"Recognition is {behind:.0f} s behind what you said"
    if can_leave:
        return (
            f"{text}. Wait for those words, or quit now: their audio is kept, and the next "
            "time dictate starts it recognises them and offers them to you."
        )
    return f"{text}, and the audio is not being kept: quitting now would lose those words."


def ask_to_leave(parent: QWidget, behind: float, can_leave: bool) -> Leave:
    """Ask; Wait is the default, Escape keeps the window open."""
    box = QMessageBox(QMessageBox.Icon.Question, "Still recognising", "", parent=parent)
    box.setText(question_text(behind, can_leave))
    wait = box.addButton("&Wait for them", QMessageBox.ButtonRole.AcceptRole)
    leave = None
    if can_leave:
        leave = box.addButton("&Quit now", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(wait)
    box.setEscapeButton(cancel)
    box.exec()
    clicked = box.clickedButton()
    if clicked is wait:
        return Leave.WAIT
    if leave is not None and clicked is leave:
        return Leave.QUIT
    return Leave.CANCEL
