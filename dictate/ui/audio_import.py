"""Audio files in the window: File > Transcribe audio file, File > Open of an audio file, and
an audio file dropped on the window, transcribed into the document at the dictation point or
into a new document; a progress bar with the time left and Cancel; File > Export of the timed
transcript.

A file runs through the same controller and pipeline as dictation
(:class:`~dictate.ui.pipeline_runner.DictationController`, off the GUI thread), with a
:class:`~dictate.ui.audio_progress.ProgressSource` instead of the microphone, so its events
reach the document exactly as dictated ones do, and the window stays usable. With PocketSphinx
on a machine of several cores it runs with one recogniser per core instead
(:mod:`dictate.ui.parallel_import`), with the same words and events, only sooner. One run at a
time: while a file is transcribed
the microphone cannot dictate, and while dictating no file can be transcribed; both are said.
Cancel stops reading the file; what was heard is still recognised, punctuated and committed
(the pipeline's Stop), so every word finalized so far stays, and the pending words become text.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QBoxLayout,
    QFileDialog,
)

from dictate.asr.loader import AUTO
from dictate.errors import DictateError
from dictate.events import Error, Event, Finished
from dictate.ui.audio_progress import (
    AUDIO_FILTER,
    AudioProgress,
    ProgressSource,
    clock,
    is_audio_file,
    said_left,
)
from dictate.ui.document import start_folder
from dictate.ui.parallel_import import parallel_run_factory, window_workers
from dictate.ui.run_states import State

if TYPE_CHECKING:
    from dictate.ui.window_api import Window

log = logging.getLogger("dictate.ui")

PROGRESS_MS = 250
NOT_WHILE_TRANSCRIBING = (
    "An audio file is being transcribed: dictation from the microphone is not possible until it "
    "ends. Cancel the transcription (in the bar above the text) to dictate now; what was "
    "transcribed so far is kept."
)


class AudioImport(QObject):
    """Audio files into ``window``'s document (see the module's docstring)."""

    def __init__(self, window: Window) -> None:
        super().__init__(window.widget())
        self.window = window
        self.source: ProgressSource | None = None
        """The file being transcribed; None when none is."""
        self.transcript: Any = None
        """The timed transcript of the audio transcribed into this document (for Export);
        None when the document holds none (or ``dictate.timed.transcript`` is missing)."""
        self._transcript_class = _transcript_class()
        self._cancelled = False
        self.progress = AudioProgress()
        self.progress.cancel.clicked.connect(self.cancel)
        central = window.centralWidget()
        layout = central.layout() if central is not None else None
        assert isinstance(layout, QBoxLayout)
        layout.insertWidget(layout.indexOf(window.messages) + 1, self.progress)
        self._timer = QTimer(self)
        self._timer.setInterval(PROGRESS_MS)
        self._timer.timeout.connect(self.show_progress)
        controller = window.controller
        window.events.subscribe("audio_import", self._on_event)
        controller.stateChanged.connect(self._on_state)  # after the window's _on_state
        controller.failed.connect(self._on_failed)
        self.transcribe_action = self._action(
            "&Transcribe audio file…", "Ctrl+Shift+O", lambda: self.choose_file()
        )
        self.export_action = self._action("&Export transcript…", "Ctrl+E", lambda: self.export())
        self.export_action.setEnabled(False)
        self.export_action.setToolTip(
            "Export the timed transcript (SRT, VTT, Markdown, JSON) of the audio file "
            "transcribed into this document (Ctrl+E)"
        )
        for widget in (window.editor.viewport(), window.widget()):
            widget.setAcceptDrops(True)
            widget.installEventFilter(self)

    def _action(self, text: str, shortcut: str, slot: Any) -> QAction:
        action = QAction(text, self.window.widget())
        action.setShortcut(QKeySequence(shortcut))
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{text.replace('&', '').rstrip('…')} ({keys})")
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    @property
    def busy(self) -> bool:
        return self.source is not None

    def refuses_dictation(self) -> bool:
        """While a file is transcribed, dictation can neither start nor stop it: say so."""
        if self.busy:
            self.window.messages.show_message(NOT_WHILE_TRANSCRIBING)
        return self.busy

    # -- starting ----------------------------------------------------------------------------

    def open_if_audio(self, path: str | Path) -> bool:
        """File > Open: an audio file is transcribed (True), anything else is not ours."""
        if not is_audio_file(path):
            return False
        self.transcribe(path)
        return True

    def choose_file(self) -> None:
        """File > Transcribe audio file: choose one, then :meth:`transcribe` it."""
        if self._refused():
            return
        window = self.window
        with window.document.document_dialog():
            chosen, _ = QFileDialog.getOpenFileName(
                window.widget(),
                "Transcribe audio file",
                start_folder(window.document.path),
                f"{AUDIO_FILTER};;All files (*)",
            )
        if chosen:
            self.transcribe(chosen)

    def _refused(self) -> bool:
        """A run is on (a file, or dictation): say so; True if nothing may start now."""
        window = self.window
        if self.busy:
            window.messages.show_message(
                f"{self.source.info.path.name if self.source else 'A file'} is being transcribed: "
                "cancel it, or wait until it ends, to transcribe another file."
            )
            return True
        if window.controller.state != State.IDLE:
            from dictate.ui.document import DICTATION_STOPPED

            window.messages.show_message(
                "An audio file cannot be transcribed while you dictate: stop dictation first (F9), "
                "then transcribe it again.",
                until=DICTATION_STOPPED,
            )
            return True
        refused = window.dictation.start_refused()
        if refused:
            window.messages.show_message(f"The audio file was not transcribed: {refused}.")
            return True
        return False

    def transcribe(self, path: str | Path) -> bool:
        """Transcribe ``path`` into the document (where: asked, or the remembered choice);
        False if it did not start (said in the window)."""
        window = self.window
        if self._refused():
            return False
        try:
            source = ProgressSource(path)
        except DictateError as exc:
            window.messages.show_message(f"Could not transcribe the audio file: {exc}")
            return False
        except Exception as exc:  # never a crash for a file
            log.warning("cannot open audio file: %s", type(exc).__name__)
            window.messages.show_message(f"Could not transcribe {path}: {exc}")
            return False
        where = self._where(source.info.path.name)
        if where is None:
            return False
        if where == "new":
            if not window.document.confirm_discard():
                return False
            window.document.load_text("", None)
        window.messages.hide()
        self.source, self._cancelled = source, False
        self.transcript = self._transcript_class() if self._transcript_class else None
        self.export_action.setEnabled(False)
        self.progress.cancel.setEnabled(True)
        self.show_progress()
        self.progress.show()
        self._timer.start()
        window.typing.into_this_window()  # a file's text comes here, whatever the target
        log.info("transcribing an audio file of %.0f s", source.info.duration)  # never its name
        workers = window_workers()
        window.controller.start(
            lambda: self._ready(source),
            parallel_run_factory(
                source, workers, window.controller.second_pass, window.settings.second_pass == AUTO
            ),
        )
        return True

    def _where(self, name: str) -> str | None:
        """ "cursor" or "new": the remembered choice, else asked (None: cancelled). An empty
        document is not asked about: both choices are the same there."""
        window = self.window
        remembered = window.settings.audio_file_target
        if remembered in ("cursor", "new"):
            return remembered
        if not window.editor.text.strip():
            return "cursor"
        from dictate.ui.dialogs.audio_target import ask_audio_target

        with window.document.document_dialog():
            answer = ask_audio_target(window.widget(), name)
        if answer is None:
            return None
        choice, remember = answer
        if remember:
            window.settings.audio_file_target = choice
            window.settings_changed()
        return choice

    def _ready(self, source: ProgressSource) -> ProgressSource:
        """The source factory, on the controller's loading thread with the pipeline built: a
        file has no one to stop it, so "stop dictating" said in it stops nothing."""
        self._set_stop_command(False)
        return source

    def _set_stop_command(self, on: bool) -> None:
        text = getattr(self.window.controller.pipeline, "text", None)
        if text is not None:
            text.stop_command = on

    # -- while it runs -----------------------------------------------------------------------

    def show_progress(self) -> None:
        source = self.source
        if source is None:
            return
        total = source.info.duration
        done = min(source.done_s, total)
        self.progress.bar.setValue(round(1000 * done / total) if total else 0)
        window = self.window
        window.document.update_title()  # and how far, as the task bar shows it
        window.setWindowTitle(f"{self.progress.bar.value() // 10}% {window.windowTitle()}")
        name = source.info.path.name
        if self._cancelled:
            text = f"Cancelling {name}: committing the words heard so far…"
        elif source.started is None:
            text = f"Transcribing {name}: loading the speech models…"
        elif done >= total:
            text = f"Transcribing {name}: {clock(total)}, finishing the last words…"
        else:
            text = f"Transcribing {name}: {clock(done)} of {clock(total)}"
            left = source.seconds_left(time.monotonic())
            if left is not None:
                text += f", {said_left(left)}"
            elif done <= 0:  # the recognisers start, and the first phrase is decoded
                text += ", decoding the first words…"
        self.progress.label.setText(text)
        self.progress.bar.setToolTip(text)

    def cancel(self) -> None:
        """Stop transcribing: everything finalized stays, the pending words are committed."""
        if not self.busy:
            return
        self._cancelled = True
        self.progress.cancel.setEnabled(False)
        self.show_progress()
        self.window.controller.stop()

    def _on_state(self, state: State) -> None:
        if not self.busy or state == State.IDLE:
            return
        window = self.window
        window.dictation.dictate_action.setChecked(False)  # the microphone is not on
        window.dictation.dictate_action.setText("&Dictate")
        name = self.source.info.path.name if self.source else ""
        window.statusBar().showMessage(f"Transcribing {name}…")

    def _on_event(self, event: Event) -> None:
        if not self.busy:
            return
        if self.transcript is not None:
            try:
                self.transcript.add(event)
            except Exception:  # the export is a courtesy: the text is in the document
                log.exception("the timed transcript failed")
                self.transcript = None
        if isinstance(event, Error):  # without the microphone's ways out
            log.warning("transcription: %s", event.message)
            self.window.messages.show_message(event.message)
        elif isinstance(event, Finished):
            self._finished(event)

    def _finished(self, event: Finished) -> None:
        source, self.source = self.source, None
        self._timer.stop()
        self.progress.hide()
        self._set_stop_command(True)
        self.window.document.update_title()
        if source is None:
            return
        log.info("transcription ended: %s at %.1f s", event.reason, event.audio_seconds)
        name = source.info.path.name
        if event.reason == "error":
            said = f"Transcription of {name} failed at {clock(event.audio_seconds)}"
        elif event.reason == "stopped":
            said = (
                f"Transcription of {name} cancelled at {clock(event.audio_seconds)} of "
                f"{clock(source.info.duration)}; the text so far is kept"
            )
        else:
            said = f"Transcribed {name} ({clock(source.info.duration)})"
        self.window.statusBar().showMessage(said + ".", 15000)
        self.export_action.setEnabled(self.transcript is not None)

    def _on_failed(self, error: BaseException) -> None:
        """Starting failed (no model...): the message says so, with a file's way out."""
        source, self.source = self.source, None
        if source is None:
            return
        self._timer.stop()
        self.progress.hide()
        self._set_stop_command(True)
        self.window.document.update_title()
        text = str(error) if isinstance(error, DictateError) else repr(error)
        self.window.messages.show_message(
            f"Could not transcribe {source.info.path.name}: {text}",
            [("&Try again", lambda: self.transcribe(source.info.path))],
        )

    def document_replaced(self) -> None:
        """New or Open: the timed transcript was the old document's."""
        if not self.busy:
            self.transcript = None
            self.export_action.setEnabled(False)

    # -- dropping ----------------------------------------------------------------------------

    @staticmethod
    def _dropped_audio(event: QDropEvent | QDragEnterEvent) -> Path | None:
        data = event.mimeData()
        if data is None or not data.hasUrls():
            return None
        files = [Path(url.toLocalFile()) for url in data.urls() if url.isLocalFile()]
        return files[0] if len(files) == 1 and is_audio_file(files[0]) else None

    def eventFilter(self, watched: QObject, event: Any) -> bool:
        kind = event.type()
        if kind in (event.Type.DragEnter, event.Type.DragMove, event.Type.Drop):
            path = self._dropped_audio(event)
            if path is None:
                return False
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            if kind == event.Type.Drop:
                QTimer.singleShot(0, self, lambda: self.transcribe(path))  # after the drag ends
            return True
        return False

    def export(self, path: str | Path | None = None, form: str | None = None) -> bool:
        """File > Export: the timed transcript (:func:`dictate.ui.export.export_transcript`)."""
        from dictate.ui.export import export_transcript

        return export_transcript(self.window, self.transcript, path, form)


def _transcript_class() -> Any:
    """``dictate.timed.transcript.Transcript``, or None where it is not there (no Export then)."""
    import importlib

    try:
        return importlib.import_module("dictate.timed.transcript").Transcript
    except ImportError:
        return None
