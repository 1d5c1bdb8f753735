"""``dictate --self-test``: the whole app run offscreen on the bundled sample recording."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from dictate.ui.app import application

SELF_TEST_MIN_ACCURACY = 0.8
"""The bundled engine recognises the flite sample word for word (100%, measured); espeak-ng
speech it gets about a quarter right, which no longer passes."""


def self_test(
    timeout: float = 180.0,
    sample: Path | None = None,
    transcript: str | None = None,
    second_pass: str | None = None,
) -> int:
    """Run the whole app offscreen on the bundled sample recording.

    Exit status 0 only if dictation finished, the editor holds exactly the finalized text, the
    journal replays to it, the text was punctuated, and its words match the sample's transcript
    (``sample_en.json``) with at least :data:`SELF_TEST_MIN_ACCURACY` word accuracy.
    ``second_pass``: :attr:`Settings.second_pass` of the run (None: the app's default).
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from dictate.asr.registry import SPHINX
    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.editing.journal_replay import replay
    from dictate.evaluation.metrics import word_accuracy
    from dictate.events import Error, Event, Finished
    from dictate.paths import asset_path
    from dictate.run.sink import final_text
    from dictate.ui.main_window import MainWindow

    application()
    if sample is None:
        sample = asset_path("sample_en.wav")
        meta = json.loads(asset_path("sample_en.json").read_text(encoding="utf-8"))
        transcript = " ".join(phrase["text"] for phrase in meta["phrases"])
    assert transcript is not None, "a sample needs its transcript"
    # Nothing of the test among the user's data: its sentences are not what they said.
    settings = Settings(engine=SPHINX.name, first_run_done=True, history=False, keep_audio=False)
    if second_pass is not None:
        settings.second_pass = second_pass
    with tempfile.TemporaryDirectory(prefix="dictate-self-test-") as tmp:
        journal = Journal(Path(tmp) / "journal.jsonl")
        window = MainWindow(settings, journal, save_settings_on_change=False)
        window.document.load_text("", None)
        window.show()
        events: list[Event] = []
        window.events.subscribe("observer", events.append)
        window.dictation.start(lambda: FileSource(sample))
        deadline = time.monotonic() + timeout
        while not any(isinstance(e, Finished) for e in events):
            if time.monotonic() > deadline:
                print("self-test: FAILED: dictation did not finish in time", file=sys.stderr)
                return 1
            QCoreApplication.processEvents()
            time.sleep(0.01)
        QCoreApplication.processEvents()
        errors = [e.message for e in events if isinstance(e, Error)]
        expected = final_text(events)
        shown = window.editor.text
        journaled = replay(journal.path)
        window.document.modified = False  # nothing to save: close without asking
        window.close()
    problems = []
    if errors:
        problems.append(f"errors: {errors}")
    if shown != expected:
        problems.append(f"editor holds {shown!r}, the pipeline finalized {expected!r}")
    accuracy = word_accuracy(transcript, shown)
    if accuracy < SELF_TEST_MIN_ACCURACY:
        problems.append(
            f"word accuracy {accuracy:.0%} is below {SELF_TEST_MIN_ACCURACY:.0%}: heard "
            f"{shown!r} for {transcript!r}"
        )
    if not shown.rstrip().endswith((".", "?", "!")):
        problems.append(f"the text was not punctuated: {shown!r}")
    if journaled is None or journaled.text != shown:
        problems.append("the journal does not match the editor")
    if problems:
        print("self-test: FAILED: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(
        f"self-test: OK: word accuracy {accuracy:.0%} (at least {SELF_TEST_MIN_ACCURACY:.0%} "
        f"needed), punctuated and journaled: {shown}"
    )
    return 0
