"""What the window's parts may use of the window: its public interface, as a Protocol.

A part (the history, the edit targets, the audio import, the export) is given the window typed
as :class:`Window`, not as the window's class: the window's modules import the parts, and a
part that imported the window's module back for its type made an import circle (counted by the
import-graph test, type-checking imports included). Nothing here imports a window module.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QStatusBar, QWidget

from dictate.config import Settings
from dictate.editing.journal import Journal
from dictate.ui.app_typing import AppTyping
from dictate.ui.dictation_run import DictationRun
from dictate.ui.dispatcher import EventDispatcher
from dictate.ui.document import Document
from dictate.ui.editor import DictationEditor
from dictate.ui.event_view import EventView
from dictate.ui.feedback import Feedback
from dictate.ui.message_bar import MessageBar
from dictate.ui.pipeline_runner import DictationController


class Window(Protocol):
    """The main window as its parts see it: the widgets and parts it holds, and Qt's own."""

    settings: Settings
    journal: Journal
    editor: DictationEditor
    messages: MessageBar
    controller: DictationController
    events: EventDispatcher
    document: Document
    dictation: DictationRun
    typing: AppTyping
    event_view: EventView
    feedback: Feedback
    kept_audio: Any  # dictate.ui.audio_keeper.AudioKeeper (it is given the window)

    # Qt's, of the main window
    def statusBar(self) -> QStatusBar: ...
    def windowTitle(self) -> str: ...
    def setWindowTitle(self, title: str) -> None: ...
    def centralWidget(self) -> QWidget | None: ...
    def addAction(self, action: QAction) -> None: ...

    # The window's own
    def widget(self) -> QMainWindow: ...
    def settings_changed(self) -> None: ...
    def show_voice_commands(self, activate: bool | None = None) -> None: ...
