"""Make docs/screenshot.png: the window dictating the bundled sample recording, as a person sees it.

    xvfb-run -s "-screen 0 1280x800x24" .venv/bin/python docs/screenshot.py [OUT.png]

The real window runs on the X server (Qt's xcb platform) and dictates ``assets/sample_en.wav``
at real-time speed through the real pipeline (the bundled PocketSphinx engine, the shipped
punctuation model). The picture is taken once a sentence is final and more words are still
greyed after it, so it shows both; the window is grabbed with Qt (``QWidget.grab``), so the
picture holds the window only. Nothing is written to the user's files: settings and the journal
go to a temporary folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main(out: Path) -> int:
    if not os.environ.get("DISPLAY"):
        print(
            "screenshot: no X display; run it under xvfb-run (its docstring says how)",
            file=sys.stderr,
        )
        return 2
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    from PySide6.QtCore import QCoreApplication

    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.events import Event, Finalized, Finished, Pending
    from dictate.paths import asset_path
    from dictate.ui.app import application
    from dictate.ui.main_window import MainWindow

    application()
    with tempfile.TemporaryDirectory(prefix="dictate-screenshot-") as tmp:
        os.environ["DICTATE_CONFIG"] = str(Path(tmp) / "settings.json")
        window = MainWindow(
            Settings(engine="sphinx", first_run_done=True, font_size=15),
            Journal(Path(tmp) / "journal.jsonl"),
            save_settings_on_change=False,
        )
        window.document.load_text("Notes from Tuesday\n\n", None)
        window.resize(900, 560)
        window.show()
        events: list[Event] = []
        window.controller.pipelineEvent.connect(events.append)
        window.dictation.start(lambda: FileSource(asset_path("sample_en.wav"), realtime=True))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.01)
            final = next((i for i, e in enumerate(events) if isinstance(e, Finalized)), None)
            later = [e for e in events[final or 0 :] if isinstance(e, Pending)]
            if final is not None and later and len(later[-1].text.split()) >= 3:
                break  # a sentence is final and words are greyed after it
            if any(isinstance(e, Finished) for e in events):
                break
        for _ in range(30):  # let the last update paint
            QCoreApplication.processEvents()
            time.sleep(0.01)
        saved = window.grab().save(str(out))
        window.dictation.stop()
        while not any(isinstance(e, Finished) for e in events):
            QCoreApplication.processEvents()
            time.sleep(0.01)
        window.document.modified = False
        window.close()
    if not saved:
        print(f"screenshot: could not write {out}", file=sys.stderr)
        return 1
    print(f"screenshot: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshot.png")))
