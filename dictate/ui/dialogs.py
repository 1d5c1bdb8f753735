"""Settings and the first-start speech model dialog."""

from __future__ import annotations

import logging
import threading
from collections import Counter
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFontComboBox,
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QListWidget,
    QMenu,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dictate.config import COMMIT_AFTER_MS, COMMIT_AFTER_RANGE, Settings
from dictate.errors import DictateError, DownloadCancelled, as_sentence
from dictate.store.catalog import CATALOG, RECOMMENDED, CatalogEntry, find_entry, format_size
from dictate.ui.hotkey import HotkeyError, parse_shortcut
from dictate.writing.replacements import parse_replacements

log = logging.getLogger("dictate.ui")


def engine_choices() -> list[tuple[str, str | None, str | None]]:
    """(label, engine, model) for every recogniser the user can pick."""
    from dictate.store.store import ModelStore

    choices: list[tuple[str, str | None, str | None]] = [("Automatic (best installed)", None, None)]
    try:
        for model in ModelStore().installed():
            choices.append((f"Vosk: {model.name}", "vosk", model.name))
    except OSError as exc:
        log.warning("cannot list Vosk models: %s", exc)
    choices.append(("PocketSphinx (bundled English, low accuracy)", "sphinx", None))
    return choices


def device_choices() -> tuple[list[tuple[str, str | None]], str | None]:
    """(label, device name) of every microphone, and an error message if there are none."""
    from dictate.audio.devices import list_input_devices

    choices: list[tuple[str, str | None]] = [("System default microphone", None)]
    try:
        devices = list_input_devices()
    except DictateError as exc:
        return choices, str(exc)
    names = Counter(device.name for device in devices)
    for device in devices:
        # Two sound-server sources may share a description ("Monitor of Null Output").
        where = device.key if names[device.name] > 1 and device.pulse_source else device.host_api
        choices.append((f"{device.name} ({where})", device.key))
    return choices, None


class SettingsDialog(QDialog):
    """Everything in :class:`Settings`, saved by the caller when accepted."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setAccessibleName("Settings")
        form = QFormLayout()
        self.device = QComboBox()
        devices, error = device_choices()
        for label, name in devices:
            self.device.addItem(label, name)
        if error:
            self.device.setToolTip(error)
        self._select(self.device, settings.input_device)
        self.engine = QComboBox()
        for label, engine, model in engine_choices():
            self.engine.addItem(label, (engine, model))
        self._select(self.engine, (settings.engine, settings.vosk_model))
        self.silence = QSpinBox()
        self.silence.setRange(100, 3000)
        self.silence.setSingleStep(50)
        self.silence.setSuffix(" ms")
        self.silence.setValue(settings.silence_ms)
        self.commit = QCheckBox("&Commit the words after a pause of")
        self.commit.setChecked(settings.commit_after_ms is not None)
        self.commit_after = QSpinBox()
        self.commit_after.setRange(*COMMIT_AFTER_RANGE)
        self.commit_after.setSingleStep(100)
        self.commit_after.setSuffix(" ms")
        self.commit_after.setValue(settings.commit_after_ms or COMMIT_AFTER_MS)
        self.commit_after.setEnabled(self.commit.isChecked())
        self.commit.toggled.connect(self.commit_after.setEnabled)
        self.commit.setToolTip(
            "After this much silence the greyed words become text (or are typed into the other "
            "application) without waiting for the next sentence. Shorter is faster; the "
            "punctuation of a sentence you pause inside is then decided with less context."
        )
        self.max_segment = QDoubleSpinBox()
        self.max_segment.setRange(2.0, 120.0)
        self.max_segment.setSuffix(" s")
        self.max_segment.setValue(settings.max_segment_s)
        self.mode = QComboBox()
        self.mode.addItem("Streaming (sentences finalized when the next begins)", "streaming")
        self.mode.addItem("Baseline (every pause ends a sentence)", "baseline")
        self._select(self.mode, settings.mode)
        self.right_words = QSpinBox()
        self.right_words.setRange(1, 20)
        self.right_words.setValue(settings.min_right_words)
        self.font_family = QFontComboBox()
        if settings.font_family:
            self.font_family.setCurrentFont(QFont(settings.font_family))
        self.font_size = QSpinBox()
        self.font_size.setRange(6, 72)
        self.font_size.setValue(settings.font_size)
        for box in (
            self.silence, self.commit_after, self.max_segment, self.right_words, self.font_size
        ):  # fmt: skip
            # A number out of range becomes the nearest allowed one, not the old value again.
            box.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToNearestValue)
            box.setToolTip(f"{box.minimum():g} to {box.maximum():g}")
        rows: list[tuple[str | QCheckBox, QWidget]] = [
            ("&Microphone", self.device),
            ("Speech &engine", self.engine),
            ("&Silence that ends a segment", self.silence),
            (self.commit, self.commit_after),
            ("Ma&ximum segment", self.max_segment),
            ("P&unctuation mode", self.mode),
            ("Words after a sentence &before it is final", self.right_words),
            ("Editor &font", self.font_family),
            ("Font si&ze", self.font_size),
        ]
        for row_label, widget in rows:
            if isinstance(row_label, QCheckBox):
                widget.setAccessibleName("Pause before the words are committed")
            else:
                widget.setAccessibleName(row_label.replace("&", ""))
            form.addRow(row_label, widget)
        self.written_forms = QCheckBox("Write &numbers, dates and money as digits ($25, 9:30 a.m.)")
        self.written_forms.setChecked(settings.written_forms)
        self.voice_commands = QCheckBox(
            "&Voice commands and spoken punctuation (\u201cnew paragraph\u201d, \u201ccomma\u201d)"
        )
        self.voice_commands.setChecked(settings.voice_commands)
        form.addRow(self.written_forms)
        form.addRow(self.voice_commands)
        from dictate.output.chooser import BACKENDS

        self.target = QComboBox()
        self.target.addItem("This window", "window")
        self.target.addItem("Other applications (typed where the keyboard focus is)", "apps")
        self._select(self.target, settings.target)
        self.target.setAccessibleName("Dictated text goes to")
        form.addRow("Dictated text &goes to", self.target)
        self.backend = QComboBox()
        self.backend.addItem("Automatic", None)
        for name in BACKENDS:
            self.backend.addItem(name, name)
        self._select(self.backend, settings.typing_backend)
        self.backend.setAccessibleName("Typing method")
        form.addRow("T&yping method", self.backend)
        self.clipboard_fallback = QCheckBox(
            "&Put text on the clipboard when it cannot be typed (paste it yourself)"
        )
        self.clipboard_fallback.setChecked(settings.clipboard_fallback)
        form.addRow(self.clipboard_fallback)
        self.show_overlay = QCheckBox("Sho&w the overlay while typing into other applications")
        self.show_overlay.setChecked(settings.show_overlay)
        form.addRow(self.show_overlay)
        self.feedback_sounds = QCheckBox(
            "Play a short soun&d when dictation starts and stops, and when text is typed "
            "into another application"
        )
        self.feedback_sounds.setChecked(settings.feedback_sounds)
        form.addRow(self.feedback_sounds)
        self.hotkey = QKeySequenceEdit(QKeySequence(settings.hotkey))
        self.hotkey.setMaximumSequenceLength(1)
        self.hotkey.setClearButtonEnabled(True)
        self.hotkey.setAccessibleName("Global shortcut to start and stop dictation")
        form.addRow("Global s&hortcut (X11, Windows)", self.hotkey)
        self.replacements = QTableWidget(0, 2)
        self.replacements.setHorizontalHeaderLabels(["Spoken", "Written"])
        self.replacements.horizontalHeader().setStretchLastSection(True)
        self.replacements.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.replacements.setTabKeyNavigation(False)  # Tab leaves the table, as everywhere
        self.replacements.setAccessibleName("Replacements")
        for entry in settings.replacements:
            self.add_replacement(entry.get("spoken", ""), entry.get("written", ""))
        add = QPushButton("&Add replacement")
        add.clicked.connect(lambda: self._add_and_edit())
        remove = QPushButton("Delete replacemen&t")
        remove.clicked.connect(self._remove_replacement)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        table_label = QLabel("&Replacements (spoken \u2192 written, after the written forms):")
        table_label.setBuddy(self.replacements)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        # What OK refused, until it is fixed (a message box would hide the table to fix).
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020")
        self.problem.hide()
        row_height = self.replacements.verticalHeader().defaultSectionSize()
        self.replacements.setMinimumHeight(row_height * 6)  # five rows in view
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(table_label)
        layout.addWidget(self.replacements)
        layout.addLayout(row)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)

    def add_replacement(self, spoken: str = "", written: str = "") -> int:
        """Append a row to the replacements table; its index."""
        index = self.replacements.rowCount()
        self.replacements.insertRow(index)
        self.replacements.setItem(index, 0, QTableWidgetItem(spoken))
        self.replacements.setItem(index, 1, QTableWidgetItem(written))
        return index

    def _add_and_edit(self) -> None:
        index = self.add_replacement()
        self.replacements.setCurrentCell(index, 0)
        item = self.replacements.item(index, 0)
        if item is not None:
            self.replacements.editItem(item)

    def _remove_replacement(self) -> None:
        rows = sorted({i.row() for i in self.replacements.selectedIndexes()}, reverse=True)
        if not rows and self.replacements.currentRow() >= 0:
            rows = [self.replacements.currentRow()]
        for index in rows:
            self.replacements.removeRow(index)

    def _rows(self) -> list[tuple[str, str]]:
        """(spoken, written) of every row of the replacements table."""
        rows = []
        for index in range(self.replacements.rowCount()):
            cells = [self.replacements.item(index, c) for c in (0, 1)]
            spoken, written = (cell.text() if cell is not None else "" for cell in cells)
            rows.append((spoken, written))
        return rows

    def _hotkey_text(self) -> str:
        return self.hotkey.keySequence().toString(QKeySequence.SequenceFormat.PortableText)

    def problems(self) -> list[str]:
        """What OK refuses: replacements the app would leave out (a written form without a
        spoken phrase, a phrase given twice...), a global shortcut the app would refuse, and an
        editor font that is not installed."""
        entries = [{"spoken": s, "written": w} for s, w in self._rows() if s.strip() or w.strip()]
        _, found = parse_replacements(entries)
        if self._hotkey_text():
            try:
                parse_shortcut(self._hotkey_text())
            except HotkeyError as exc:
                found.append(f"the global shortcut: {exc}")
        family = self.font_family.currentText().strip()
        if family and family not in QFontDatabase.families():
            # Stored as typed, then shown as whatever font Qt fell back to.
            found.append(f"the editor font: no font named {family!r} is installed")
        return found

    def accept(self) -> None:
        for index, (spoken, written) in reversed(list(enumerate(self._rows()))):
            if not spoken.strip() and not written.strip():
                self.replacements.removeRow(index)  # rows left empty go
        found = self.problems()
        if found:
            self.problem.setText("Not saved: " + "; ".join(found) + ".")
            self.problem.show()
            return
        super().accept()

    def replacement_entries(self) -> list[dict[str, str]]:
        """The table's rows with a spoken phrase, as the settings file stores them."""
        return [
            {"spoken": spoken.strip(), "written": written}
            for spoken, written in self._rows()
            if spoken.strip()
        ]

    @staticmethod
    def _select(combo: QComboBox, value: object) -> None:
        for i in range(combo.count()):
            if combo.itemData(i) == value:
                combo.setCurrentIndex(i)
                return

    def apply_to(self, settings: Settings) -> None:
        settings.input_device = self.device.currentData()
        settings.engine, settings.vosk_model = self.engine.currentData()
        settings.silence_ms = self.silence.value()
        settings.max_segment_s = self.max_segment.value()
        settings.commit_after_ms = self.commit_after.value() if self.commit.isChecked() else None
        settings.mode = self.mode.currentData()
        settings.min_right_words = self.right_words.value()
        settings.font_family = self.font_family.currentFont().family()
        settings.font_size = self.font_size.value()
        settings.written_forms = self.written_forms.isChecked()
        settings.voice_commands = self.voice_commands.isChecked()
        settings.replacements = self.replacement_entries()
        settings.target = self.target.currentData()
        settings.typing_backend = self.backend.currentData()
        settings.clipboard_fallback = self.clipboard_fallback.isChecked()
        settings.show_overlay = self.show_overlay.isChecked()
        settings.feedback_sounds = self.feedback_sounds.isChecked()
        settings.hotkey = self._hotkey_text()


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
