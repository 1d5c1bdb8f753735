"""File > Export transcript: the timed transcript of an audio file transcribed into the
document (:mod:`dictate.ui.audio_import`) as SubRip or WebVTT subtitles, Markdown, JSON with
word times, or text, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFileDialog

from dictate.fileio import atomic_write
from dictate.ui.document import start_folder

if TYPE_CHECKING:
    from dictate.ui.window_api import Window

#: (file dialog filter, suffix, the transcript's method that writes it)
EXPORT_FORMATS = (
    ("SubRip subtitles (*.srt)", ".srt", "to_srt"),
    ("WebVTT subtitles (*.vtt)", ".vtt", "to_vtt"),
    ("Markdown with times (*.md)", ".md", "to_markdown"),
    ("JSON with word times (*.json)", ".json", "to_json"),
    ("Text (*.txt)", ".txt", "to_text"),
)


def choose_export_path(window: Window) -> tuple[str, str] | None:
    """The save dialog with the formats as its filters: (path, chosen filter); None: cancelled.
    A name typed without a suffix gets the chosen format's."""
    dialog = QFileDialog(
        window.widget(),
        "Export transcript",
        start_folder(window.document.path),
        ";;".join(f for f, _, _ in EXPORT_FORMATS),
    )
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setDefaultSuffix("srt")
    suffixes = {f: s for f, s, _ in EXPORT_FORMATS}
    dialog.filterSelected.connect(lambda f: dialog.setDefaultSuffix(suffixes.get(f, ".srt")[1:]))
    with window.document.document_dialog():
        if not dialog.exec() or not dialog.selectedFiles():
            return None
    return dialog.selectedFiles()[0], dialog.selectedNameFilter()


def export_transcript(
    window: Window, transcript: Any, path: str | Path | None = None, form: str | None = None
) -> bool:
    """Write ``transcript`` in the format ``form`` (a suffix such as ".srt"), else the file's
    suffix, else the chosen filter's; False (said in the window) if nothing was written."""
    if transcript is None:
        window.messages.show_message(
            "Nothing to export: Export writes the timed transcript of an audio file "
            "transcribed into this document (File > Transcribe audio file)."
        )
        return False
    chosen_filter = ""
    if path is None:
        chosen = choose_export_path(window)
        if chosen is None:
            return False
        path, chosen_filter = chosen
    path = Path(path)
    suffix = form or path.suffix.lower()
    method = next((m for _, s, m in EXPORT_FORMATS if s == suffix), None)
    if method is None:
        method = next((m for f, _, m in EXPORT_FORMATS if f == chosen_filter), "to_srt")
    try:
        text = getattr(transcript, method)()
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        window.messages.show_message(
            f"Could not export to {path}: {exc.strerror or exc}. Choose another place."
        )
        return False
    window.statusBar().showMessage(f"Exported {path.name}", 5000)
    return True
