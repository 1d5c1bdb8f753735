"""The first-start speech model dialog: download a Vosk model (on a worker thread), import one, or
go on with the bundled engine."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMenu,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dictate.errors import DictateError, DownloadCancelled, as_sentence
from dictate.store.catalog import CATALOG, RECOMMENDED, CatalogEntry, find_entry, format_size

log = logging.getLogger("dictate.ui")


class _DownloadSignals(QObject):
    """What the download thread tells the dialog. It never touches a widget itself: every
    message, error or not, is shown by the dialog's slots, which Qt runs on the GUI thread
    (the signals are emitted on the download thread, so the connections are queued).

    ``progress`` carries (bytes done, total) as Python ints, whole: a Qt ``int`` has 32 bits,
    and a model over 2 GiB overflowed it on every update (``"qlonglong"`` works as well, but
    PySide's type stubs accept only Python types).
    """

    progress = Signal(object, object)
    finished = Signal(str)
    failed = Signal(str)
    retrying = Signal(str)


def _download(name: str, signals: _DownloadSignals, cancel: threading.Event) -> None:
    """Download and install ``name`` (on the download thread): every outcome, an error or an
    unexpected exception included, goes to the dialog as a signal, never as a window built
    here (Qt widgets on a thread other than the GUI's crash the app)."""
    from dictate.store.store import ModelStore

    try:
        path = ModelStore().download(
            name,
            progress=lambda done, total: signals.progress.emit(done, total or 0),
            cancel=cancel,
            on_retry=signals.retrying.emit,
        )
    except DownloadCancelled:
        signals.failed.emit("Download cancelled; nothing was installed.")
    except DictateError as exc:
        signals.failed.emit(str(exc))
    except Exception as exc:
        log.exception("download failed")
        signals.failed.emit(f"Download failed: {exc!r}")
    else:
        signals.finished.emit(str(path))


def model_choice(entry: CatalogEntry) -> str:
    """One line of the model list: the name, the download size and what the catalogue says of
    its accuracy and needs (it has no figures for accuracy, only these words), and whether it
    is the recommended one."""
    recommended = " (recommended)" if entry.recommended else ""
    return f"{entry.name}{recommended}: {format_size(entry.approx_bytes)}, {entry.description}"


class ModelDialog(QDialog):
    """First start without a Vosk model: download one of the catalogue's (the recommended one
    chosen), import one, or go on with the bundled English engine. The download runs on a
    worker thread with progress, cancel and retry.

    A child of the main window, centred over it whenever it is shown and whenever the window
    moves or resizes while it is up: at the first start it comes up right after the window,
    before a window manager has placed that window, and was left where the window was not.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Speech model")
        self.entry = find_entry(RECOMMENDED)
        self.installed_path: Path | None = None
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        self._signals = _DownloadSignals()
        self._signals.progress.connect(self._on_progress)
        self._signals.finished.connect(self._on_finished)
        self._signals.failed.connect(self._on_failed)
        self._signals.retrying.connect(self._on_retrying)
        self.message = QLabel(
            "No Vosk speech model is installed. Dictation works now with the bundled "
            "PocketSphinx English engine, but it is much less accurate.\n\n"
            "Download one of these models (the recommended one suits most computers), or "
            "import one you already have."
        )
        self.message.setWordWrap(True)
        self.models = QListWidget()
        self.models.setAccessibleName("Speech models to download")
        self.models.addItems([model_choice(entry) for entry in CATALOG])
        # Each line whole, wrapped, never behind a horizontal scroll bar (seen under Xvfb: the
        # descriptions were cut at the dialog's edge).
        self.models.setWordWrap(True)
        self.models.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.models.setCurrentRow(CATALOG.index(self.entry))
        self.models.currentRowChanged.connect(self._on_model_chosen)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Download progress")
        self.progress.setVisible(False)
        self.download_button = QPushButton("&Download")
        self.import_button = QPushButton("&Import from disk…")
        self.cancel_button = QPushButton("&Cancel download")
        self.cancel_button.setVisible(False)
        self.later_button = QPushButton("Use the &bundled engine for now")
        self.download_button.clicked.connect(self.start_download)
        imports = QMenu(self.import_button)
        imports.addAction("A model &folder…", lambda: self.import_model(zipped=False))
        imports.addAction("A &zip file…", lambda: self.import_model(zipped=True))
        self.import_button.setMenu(imports)
        self.cancel_button.clicked.connect(self._cancel.set)
        self.later_button.clicked.connect(self.reject)
        row = QHBoxLayout()
        for button in (
            self.download_button,
            self.import_button,
            self.cancel_button,
            self.later_button,
        ):
            row.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.models)
        layout.addWidget(self.progress)
        layout.addLayout(row)
        if parent is not None:
            parent.installEventFilter(self)

    def _on_model_chosen(self, row: int) -> None:
        if 0 <= row < len(CATALOG):
            self.entry = CATALOG[row]

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.centre_over_parent()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The window moved or resized while this is up (a window manager placing it): follow."""
        if (
            watched is self.parentWidget()
            and event.type() in (QEvent.Type.Move, QEvent.Type.Resize)
            and self.isVisible()
        ):
            self.centre_over_parent()
        return super().eventFilter(watched, event)

    def centre_over_parent(self) -> None:
        """Put the dialog's centre on the main window's, kept on the window's screen."""
        parent = self.parentWidget()
        if parent is None:
            return
        frame = self.frameGeometry()
        frame.moveCenter(parent.geometry().center())
        screen = parent.screen().availableGeometry() if parent.screen() else None
        if screen is not None and screen.isValid():
            frame.moveLeft(max(screen.left(), min(frame.left(), screen.right() - frame.width())))
            frame.moveTop(max(screen.top(), min(frame.top(), screen.bottom() - frame.height())))
        self.move(frame.topLeft())

    def start_download(self) -> None:
        self._cancel.clear()
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.cancel_button.setVisible(True)
        self.download_button.setEnabled(False)
        self.import_button.setEnabled(False)
        self.models.setEnabled(False)
        self.message.setText(f"Downloading {self.entry.name}…")
        signals, cancel, name = self._signals, self._cancel, self.entry.name

        self._worker = threading.Thread(
            target=_download, args=(name, signals, cancel), name="dictate-download", daemon=True
        )
        self._worker.start()

    def done(self, result: int) -> None:
        """Closing the dialog in any way but a finished install (Later, Escape, the window's
        close button) cancels a download in progress: nothing goes on unseen."""
        if result != QDialog.DialogCode.Accepted:
            self._cancel.set()
        super().done(result)

    def _on_progress(self, done: int, total: int) -> None:
        if total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * done / total))
            self.progress.setFormat(f"{done * 100 // total}%")

    def _on_finished(self, path: str) -> None:
        self.installed_path = Path(path)
        self.accept()

    def _on_failed(self, message: str) -> None:
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.download_button.setEnabled(True)
        self.download_button.setText("&Retry download")
        self.import_button.setEnabled(True)
        self.models.setEnabled(True)
        self.message.setText(as_sentence(message))

    def _on_retrying(self, why: str) -> None:
        """A failed attempt: said while the retry waits (offline, the bar only kept moving)."""
        if not self._cancel.is_set():
            self.message.setText(f"Downloading {self.entry.name}: {why}…")

    def import_model(self, zipped: bool = False, path: str | None = None) -> None:
        """Install a model the user has: a folder, or a zip as the upstream page has them
        (``path``: chosen in a file dialog when None)."""
        from dictate.store.store import ModelStore

        if path is None:
            if zipped:
                path, _ = QFileDialog.getOpenFileName(
                    self, "Vosk model zip file", "", "Zip files (*.zip);;All files (*)"
                )
            else:
                path = QFileDialog.getExistingDirectory(self, "Vosk model folder")
        if not path:
            return
        try:
            self.installed_path = ModelStore().import_path(Path(path))
        except DictateError as exc:
            self.message.setText(as_sentence(str(exc)))
            return
        self.accept()
