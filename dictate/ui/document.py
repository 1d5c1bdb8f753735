"""The document, a part of the main window: New, Open, Save and Save As, the title, and the
one message that stays while the text or its autosave journal cannot be written.

:class:`Document` is given what it works on (the window for its title and dialogs, the editor,
the journal, the message bars, the dictation controller); the window builds it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QStandardPaths, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

from dictate.editing.journal import Journal
from dictate.fileio import TextFormat, atomic_write
from dictate.ui.message_bar import MessageBar
from dictate.ui.run_states import State

if TYPE_CHECKING:
    from dictate.ui.editor import DictationEditor
    from dictate.ui.pipeline_runner import DictationController

log = logging.getLogger("dictate.ui")

FILE_FILTER = "Text (*.txt);;Markdown (*.md);;All files (*)"
_FILTER_SUFFIX = {"Text (*.txt)": ".txt", "Markdown (*.md)": ".md"}
_AUDIO = "*.wav *.flac *.ogg *.oga *.opus *.mp3"
OPEN_FILTER = f"Text and audio (*.txt *.md {_AUDIO});;{FILE_FILTER};;Audio ({_AUDIO})"
"""Open reads text, and transcribes audio files (:mod:`dictate.ui.audio_import`)."""

MAX_OPEN_BYTES = 32 * 2**20
"""Largest file Open reads: a dictated document is far smaller, and the editor and the
journal (which rewrites the whole text on load) slow down long before memory runs out."""

DICTATION_STOPPED = "dictation stopped"
"""The event after which "stop dictation first" is no longer true
(:meth:`MessageBar.no_longer_true`)."""


def ask_save_first(parent: QWidget) -> QMessageBox.StandardButton:
    """ "Save the current text first?" with Save (the default), Discard and Cancel (Escape);
    Alt+S and Alt+D choose, as on every other button of the app."""
    buttons = QMessageBox.StandardButton
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Unsaved text",
        "Save the current text first?",
        buttons.Save | buttons.Discard | buttons.Cancel,
        parent,
    )
    for button, text in ((buttons.Save, "&Save"), (buttons.Discard, "&Discard")):
        box.button(button).setText(text)
    box.setDefaultButton(buttons.Save)
    box.setEscapeButton(buttons.Cancel)
    return buttons(box.exec())


def start_folder(document: Path | None) -> str:
    """Where Open and Save As start: the current document's folder, else the user's documents
    folder (else home). Never the working directory: a launcher or the installer may have
    started the app in a source checkout, which is not where anyone keeps their texts."""
    if document is not None and document.parent.is_dir():
        return str(document.parent.resolve())
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return documents
    return str(Path.home())


def choose_save_path(parent: QWidget, document: Path | None = None) -> str | None:
    """The Save As dialog, in :func:`start_folder` of ``document`` (the current one's path);
    a name typed without an extension gets the chosen filter's (".txt" by default), before the
    dialog asks whether to replace an existing file. None: cancelled."""
    dialog = QFileDialog(parent, "Save as", start_folder(document), FILE_FILTER)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setDefaultSuffix(_FILTER_SUFFIX["Text (*.txt)"][1:])
    dialog.filterSelected.connect(
        lambda chosen: dialog.setDefaultSuffix(_FILTER_SUFFIX.get(chosen, "")[1:])
    )
    if not dialog.exec() or not dialog.selectedFiles():
        return None
    return dialog.selectedFiles()[0]


def _save_advice(exc: OSError) -> str:
    """What a user can do about a failed save, by its cause."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space, or choose another place with Save As."
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "it may not be changed there; choose another name or place with Save As."
    return "choose another place with Save As."


def _autosave_advice(exc: OSError) -> str:
    """What a user can do about an autosave that fails, by its cause (a read-only folder is not
    helped by freeing space)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "free some space, or save your text elsewhere with Save As."
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return (
            "the folder may not be written (read-only, or its permissions changed): make it "
            "writable, or save your text elsewhere with Save As."
        )
    if exc.errno in (errno.ENOENT, errno.ESTALE, errno.ENODEV, errno.EIO):
        return (
            "the folder or its disk went away: connect it again, or save your text elsewhere "
            "with Save As."
        )
    return "save your text elsewhere with Save As."


JOURNAL_RETRY_MS = 5000
"""How often a failing autosave journal is tried again."""


class Document(QObject):
    """The document in the window: its file, its format, whether it changed, its autosave.

    Args:
        window: The main window (its title, the parent of the file dialogs, its status bar).
        editor: The editor holding the text.
        journal: The autosave journal of the editor's buffer.
        messages: The window's message bar.
        write_problem: The bar that stays while the text or the journal cannot be written.
        controller: The dictation run (New and Open wait for it to stop).
    """

    def __init__(
        self,
        window: QMainWindow,
        editor: DictationEditor,
        journal: Journal,
        messages: MessageBar,
        write_problem: MessageBar,
        controller: DictationController,
    ) -> None:
        super().__init__(window)
        self._window = window
        self.editor = editor
        self.journal = journal
        self.messages = messages
        self.write_problem = write_problem
        self.controller = controller
        self.audio_import: Any = None  # dictate.ui.audio_import.AudioImport, set by the window
        self.path: Path | None = None
        self.text_format = TextFormat()  # the line breaks and byte-order mark Save keeps
        self.modified = False
        self._dialogs = 0  # >0 while a dialog decides the document's fate
        self._save_error: str | None = None
        self._journal_vanished = False
        self.retry_timer = QTimer(self)
        """Tries the failing autosave journal again, every :data:`JOURNAL_RETRY_MS`."""
        self.retry_timer.setInterval(JOURNAL_RETRY_MS)
        self.retry_timer.timeout.connect(self.retry_journal)
        editor.journalStateChanged.connect(self._on_journal_state)
        editor.textEdited.connect(self._on_text_edited)

    def _on_text_edited(self) -> None:
        self.modified = True
        self.update_title()

    @property
    def dialog_open(self) -> bool:
        """A dialog decides what becomes of the document (see :meth:`document_dialog`)."""
        return self._dialogs > 0

    def update_title(self) -> None:
        name = self.path.name if self.path else "Untitled"
        self._window.setWindowTitle(f"{'*' if self.modified else ''}{name} - dictate")

    @contextlib.contextmanager
    def document_dialog(self) -> Iterator[None]:
        """While a dialog decides what becomes of the document (save or discard it, open
        another), dictation may not start (:attr:`dialog_open`)."""
        self._dialogs += 1
        try:
            yield
        finally:
            self._dialogs -= 1

    def confirm_discard(self) -> bool:
        if not self.modified or not self.editor.text:
            return True
        with self.document_dialog():
            answer = ask_save_first(self._window)
            if answer == QMessageBox.StandardButton.Save:
                return self.save()
            return answer == QMessageBox.StandardButton.Discard

    def _refuse_while_dictating(self, what: str) -> bool:
        if self.controller.state == State.IDLE:
            return False
        busy = self.audio_import.busy  # a file is transcribed, not dictated
        self.messages.show_message(
            f"{what} replaces the document {'an audio file' if busy else 'dictation'} is writing "
            f"into: {'cancel the transcription' if busy else 'stop dictation'} first"
            f"{'' if busy else ' (F9)'}.",
            until=DICTATION_STOPPED,
        )
        return True

    def new(self) -> None:
        if self._refuse_while_dictating("New") or not self.confirm_discard():
            return
        self.load_text("", None)

    def load_text(self, text: str, path: Path | None, form: TextFormat | None = None) -> None:
        """Show ``text`` as the document, from ``path`` (None: a new document), whose line
        breaks and byte-order mark Save keeps (``form``; default plain ``\\n``, no mark)."""
        self.editor.set_text(text, str(path) if path else None)
        self.path = path
        self.text_format = form or TextFormat()
        self.modified = False
        self.update_title()
        self.audio_import.document_replaced()  # its timed transcript was the old document's
        if self._save_error is not None:  # it was about the document just closed
            self._save_error = None
            self._show_write_problem()

    def open(self, path: str | Path | None = None) -> None:
        """Open a text file; an audio file is transcribed instead (into this document or a
        new one: :mod:`dictate.ui.audio_import`)."""
        if path is not None and self.audio_import.open_if_audio(path):
            return
        if self._refuse_while_dictating("Open") or not self.confirm_discard():
            return
        if path is None:
            with self.document_dialog():
                chosen, _ = QFileDialog.getOpenFileName(
                    self._window, "Open", start_folder(self.path), OPEN_FILTER
                )
            if not chosen or self.audio_import.open_if_audio(chosen):
                return
            path = chosen
        try:
            size = Path(path).stat().st_size
            if size > MAX_OPEN_BYTES:
                self.messages.show_message(
                    f"Could not open {path}: it is {size / 2**20:,.0f} MB, more than dictate "
                    f"opens ({MAX_OPEN_BYTES // 2**20} MB). Open it in another editor, or split it."
                )
                return
            data = Path(path).read_bytes()
            form = TextFormat.of(data)
            text = form.decode(data)
        except UnicodeDecodeError as exc:
            self.messages.show_message(
                f"Could not open {path}: it is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} "
                f"at position {exc.start:,}). dictate opens UTF-8 text files: convert it first, "
                "for example with iconv -f latin1 -t utf-8."
            )
            return
        except (OSError, MemoryError) as exc:
            self.messages.show_message(f"Could not open {path}: {str(exc) or type(exc).__name__}")
            return
        self.load_text(text, Path(path), form)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self, path: str | Path | None = None) -> bool:
        if path is None:
            with self.document_dialog():
                chosen = choose_save_path(self._window, self.path)
            if not chosen:
                return False
            path = chosen
        if self._write(Path(path)):
            self.path = Path(path)
            self.editor.buffer.set_path(str(self.path))
            self.update_title()
            return True
        return False

    def _write(self, path: Path) -> bool:
        """Save the text (ending with a line break) atomically; on failure the text stays here
        and a message that stays until a save works says what failed and what to do."""
        text = self.editor.text
        if text and not text.endswith("\n"):
            text += "\n"
        try:
            atomic_write(path, self.text_format.encode(text))
        except OSError as exc:
            self._save_error = (
                f"Could not save {path}: {exc.strerror or exc}. Your text is still here: "
                f"{_save_advice(exc)}"
            )
            self._show_write_problem()
            return False
        self._save_error = None
        self._show_write_problem()
        self.modified = False
        self.update_title()
        # The name only: the status bar's permanent labels leave little room for a path.
        self._window.statusBar().showMessage(f"Saved {path.name}", 3000)
        return True

    def _on_journal_state(self, error: OSError | None) -> None:
        if error is None:
            self.retry_timer.stop()
            self._window.statusBar().showMessage("Autosave works again.", 5000)
            if self._journal_vanished:
                self._journal_vanished = False
                self.messages.add_message(
                    f"The autosave file {self.journal.path} was removed or replaced while "
                    "dictate ran; it was written again, with all of your text in it."
                )
        else:
            log.error("cannot write the journal %s: %s", self.journal.path, error)
            self.retry_timer.start()
            if error.errno in (errno.ENOENT, errno.ESTALE):
                # The file was deleted or replaced: made again at once (after the change being
                # made is applied: the rewrite holds it), not in a few seconds.
                self._journal_vanished = True
                QTimer.singleShot(0, self, self.retry_journal)
        self._show_write_problem()

    def retry_journal(self) -> bool:
        """Try to write the autosave journal again (every few seconds while it fails)."""
        return self.editor.buffer.retry_journal()

    def _show_write_problem(self) -> None:
        """One persistent message for what could not be written, until it can be."""
        problems = []
        error = self.editor.buffer.journal_error
        if error is not None:
            problems.append(
                f"Autosave failed: cannot write {self.journal.path} "
                f"({error.strerror or error}). Everything you dictate and type is kept while "
                "dictate runs, and autosave is retried every few seconds; "
                + _autosave_advice(error)
            )
        if self._save_error:
            problems.append(self._save_error)
        if problems:
            self.write_problem.show_message(
                " ".join(problems),
                [("Save &As…", lambda: self.save_as()), ("Retry &now", self.retry_journal)]
                if error is not None
                else [("Save &As…", lambda: self.save_as())],
            )
        else:
            self.write_problem.hide()

    def copy_all(self) -> None:
        QGuiApplication.clipboard().setText(self.editor.text)
