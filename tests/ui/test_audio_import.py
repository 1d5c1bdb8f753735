"""Audio files in the window (dictate/ui/audio_import.py), offscreen: the File menu, the
ask-once question and the remembered choice, progress, dropping a file, one run at a time, a
bad file's message, and (slow) a real transcription cancelled half-way that keeps its text."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile
from PySide6.QtCore import QMimeData, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot
from runs import reach

from dictate.events import Finalized, Finished, Pending
from dictate.run.sink import final_text
from dictate.ui.audio_import import NOT_WHILE_TRANSCRIBING
from dictate.ui.audio_progress import ProgressSource, clock, is_audio_file, said_left, time_left
from dictate.ui.dialogs import SettingsDialog
from dictate.ui.dialogs.audio_target import AudioTargetDialog
from dictate.ui.main_window import MainWindow
from dictate.ui.run_states import State

DATA = Path(__file__).resolve().parents[1] / "data"
SPEECH = DATA / "en_phrases.wav"


@pytest.fixture
def tone(tmp_path: Path) -> Path:
    """Three seconds of a quiet tone at 44.1 kHz stereo, as FLAC."""
    t = np.arange(3 * 44_100) / 44_100
    samples = (0.1 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    path = tmp_path / "tone.flac"
    soundfile.write(str(path), np.stack([samples, samples], axis=1), 44_100)
    return path


@pytest.fixture
def started(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """controller.start replaced: the run is "listening" at once and nothing is loaded; each
    start's source factory is recorded. The run ends (Finished) after the test."""
    factories: list[Any] = []

    def start(factory: Any = None, run_factory: Any = None) -> None:
        factories.append(factory)
        reach(window.controller, State.LISTENING)

    monkeypatch.setattr(window.controller, "start", start)
    monkeypatch.setattr(window.controller, "stop", lambda: None)
    yield factories
    if window.controller.state != State.IDLE:
        window.controller.pipelineEvent.emit(Finished(1.0, "stopped", 1.0, 0))


def answer_dialog(choice: str, remember: bool) -> list[str]:
    """Answer the where-question when it opens; the list gets its text."""
    seen: list[str] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, AudioTargetDialog):
            QTimer.singleShot(10, answer)
            return
        seen.append(dialog.findChildren(type(dialog.remember))[0].text())
        dialog.buttons[choice].setChecked(True)
        dialog.remember.setChecked(remember)
        dialog.accept()

    QTimer.singleShot(0, answer)
    return seen


def test_the_file_menu_offers_transcribe_and_export(window: MainWindow) -> None:
    file_menu = window.menuBar().actions()[0].menu()
    assert isinstance(file_menu, QMenu)
    texts = [a.text() for a in file_menu.actions()]
    assert "&Transcribe audio file…" in texts and "&Export transcript…" in texts
    assert texts.index("&Transcribe audio file…") == texts.index("&Open…") + 1
    assert window.audio_import.transcribe_action.shortcut().toString() == "Ctrl+Shift+O"
    assert not window.audio_import.export_action.isEnabled()  # no audio in this document


def test_audio_files_are_known_by_name_or_by_their_first_bytes(tmp_path: Path, tone: Path) -> None:
    wav_named_txt = tmp_path / "recording.txt"
    wav_named_txt.write_bytes(SPEECH.read_bytes()[:4096])
    utf16 = tmp_path / "notes.txt"
    utf16.write_bytes("Notes".encode("utf-16"))  # FF FE: not an MPEG frame
    plain = tmp_path / "plain.txt"
    plain.write_text("Hello.", encoding="utf-8")
    assert is_audio_file(tone) and is_audio_file(SPEECH) and is_audio_file(wav_named_txt)
    assert not is_audio_file(utf16) and not is_audio_file(plain)
    assert is_audio_file(tmp_path / "missing.MP3") and not is_audio_file(tmp_path / "gone.txt")


def test_time_left_and_clock() -> None:
    assert clock(3725) == "1:02:05" and clock(65.4) == "1:05"
    assert time_left(0, 100, 5) is None and time_left(10, 100, 0.5) is None
    assert time_left(30, 90, 10) == pytest.approx(20)  # 3 audio seconds a second
    assert said_left(20) == "about 20 s left" and said_left(600) == "about 10 min left"
    assert said_left(9000) == "about 2.5 h left"


def test_the_time_left_follows_the_speed_of_the_last_seconds(tone: Path) -> None:
    """Progress a stretch at a time, slow while the recognisers start, then fast (as
    benchmarks/window_file.py measured a 3-minute recording): the time left follows the recent
    speed, counted from the last move, and is not said before 2 s of progress."""
    source = ProgressSource(tone)
    source.info = replace(source.info, frames=180 * source.info.sample_rate)
    said: dict[float, float | None] = {}
    done = 0.0
    for tick in range(0, 60):  # twice a second
        now = tick / 2
        if now >= 3 and tick % 2 == 0:  # from 3 s on, every second: 2 s of audio, then 10
            done = min(180.0, done + (2.0 if now < 8 else 10.0))
        source.done_s = done
        said[now] = source.seconds_left(now)
    assert said[3.0] is None and said[4.5] is None  # one move, then under 2 s of them
    assert said[6.0] == pytest.approx((180 - 8) / 2.0)  # the slow start's speed: 2 s a second
    # 6 s later the speed is the fast one's (10 s a second), less what passed since the move
    assert said[14.5] == pytest.approx((180 - 80) / 10.0 - 0.5)
    assert said[20.0] == pytest.approx(4.0) and said[24.0] == 0.0  # 180 s done at 24 s


@pytest.mark.parametrize("content", [b"", b"RIFF not really a wave file at all", b"\x00" * 64])
def test_a_bad_audio_file_gets_one_clear_message(
    window: MainWindow, started: list[Any], tmp_path: Path, content: bytes
) -> None:
    bad = tmp_path / "broken.wav"
    bad.write_bytes(content)
    window.document.open(bad)
    message = window.messages.label.text()
    assert message.startswith("Could not transcribe the audio file:") and str(bad) in message
    assert "not UTF-8" not in message and not started and not window.audio_import.busy
    window.audio_import.transcribe(tmp_path / "missing.mp3")
    assert "does not exist" in window.messages.label.text()
    assert not started and not window.audio_import.progress.isVisibleTo(window)


def test_asked_once_then_the_remembered_choice_and_settings_change_it(
    window: MainWindow, started: list[Any], tone: Path
) -> None:
    window.editor.set_text("Notes from before.")
    window.document.modified = False
    seen = answer_dialog("new", remember=True)
    assert window.audio_import.transcribe(tone)
    assert seen and "Remember my choice" in seen[0]
    assert window.settings.audio_file_target == "new"
    assert window.editor.text == "" and len(started) == 1  # a new document
    assert window.audio_import.progress.isVisibleTo(window)
    window.controller.pipelineEvent.emit(Finished(1.0, "end_of_audio", 3.0, 0))
    assert not window.audio_import.busy and not window.audio_import.progress.isVisibleTo(window)
    window.editor.set_text("Second document.")
    window.document.modified = False
    assert window.audio_import.transcribe(tone)  # no question: a dialog would block here
    assert window.editor.text == "" and len(started) == 2
    window.controller.pipelineEvent.emit(Finished(1.0, "end_of_audio", 3.0, 0))
    dialog = SettingsDialog(window.settings, window)
    assert dialog.audio_target.currentData() == "new"
    dialog.audio_target.setCurrentIndex(dialog.audio_target.findData(None))
    dialog.apply_to(window.settings)
    assert window.settings.audio_file_target is None  # asked again next time


def test_at_the_cursor_keeps_the_document_and_not_remembered_asks_again(
    window: MainWindow, started: list[Any], tone: Path
) -> None:
    window.editor.set_text("Before. After.")
    answer_dialog("cursor", remember=False)
    assert window.audio_import.transcribe(tone)
    assert window.settings.audio_file_target is None
    assert window.editor.text == "Before. After." and len(started) == 1
    assert started[0]() is window.audio_import.source  # the factory gives the file's source


def test_progress_says_how_far_and_the_time_left(
    window: MainWindow, started: list[Any], tone: Path
) -> None:
    window.audio_import.transcribe(tone)
    source = window.audio_import.source
    assert isinstance(source, ProgressSource)
    progress = window.audio_import.progress
    window.audio_import.show_progress()
    assert "loading the speech models" in progress.label.text()
    source.started = time.monotonic()
    window.audio_import.show_progress()  # what it does before the first words are in
    assert (
        progress.label.text() == "Transcribing tone.flac: 0:00 of 0:03, decoding the first words…"
    )
    source.done_s = 0.5
    window.audio_import.show_progress()  # progress from the first words: no time left yet
    assert progress.label.text() == "Transcribing tone.flac: 0:00 of 0:03"
    assert [done for _, done in source.moves] == [0.5]
    # The speed since then (not since the start: loading is not speed), once measured for 2 s.
    source.moves[0] = (time.monotonic() - 4.0, 0.5)
    source.done_s = 1.0  # 0.5 s in 4 s
    window.audio_import.show_progress()
    assert progress.label.text() == "Transcribing tone.flac: 0:01 of 0:03, about 15 s left"
    assert progress.bar.value() == 333
    assert not window.dictation.dictate_action.isChecked()  # the microphone is not on
    assert window.statusBar().currentMessage() == "Transcribing tone.flac…"
    window.dictation.show_progress()  # the dictation's twice-a-second line: not "Listening…"
    assert window.statusBar().currentMessage() == "Transcribing tone.flac…"


def test_no_dictation_while_transcribing_and_no_file_while_dictating(
    window: MainWindow, started: list[Any], tone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.audio_import.transcribe(tone)
    stopped: list[bool] = []
    monkeypatch.setattr(window.controller, "stop", lambda: stopped.append(True))
    window.dictation.toggle()  # F9
    assert window.messages.label.text() == NOT_WHILE_TRANSCRIBING and not stopped
    window.messages.hide()
    window.dictation.start()  # `dictate start`, the global shortcut
    assert window.messages.label.text() == NOT_WHILE_TRANSCRIBING and len(started) == 1
    window.document.new()
    assert "cancel the transcription first" in window.messages.label.text()
    window.audio_import.progress.cancel.click()
    assert stopped == [True] and "Cancelling tone.flac" in window.audio_import.progress.label.text()
    window.controller.pipelineEvent.emit(Finished(1.0, "stopped", 1.2, 0))
    assert "cancelled at 0:01 of 0:03" in window.statusBar().currentMessage()
    reach(window.controller, State.LISTENING)  # now dictating from the microphone
    window.audio_import.transcribe(tone)
    assert "cannot be transcribed while you dictate" in window.messages.label.text()
    assert len(started) == 1
    reach(window.controller, State.IDLE)


def test_cancel_keeps_the_finalized_text_and_commits_the_pending_words(
    window: MainWindow, started: list[Any], tone: Path
) -> None:
    """The pipeline's part of Cancel (stop, flush, Finalized) as events; the real run is in
    the slow test below and in tests/test_audio_file_x11.py."""
    window.editor.set_text("Before.")
    window.editor.moveCursor(QTextCursor.MoveOperation.End)
    window.settings.audio_file_target = "cursor"  # remembered: not asked
    window.audio_import.transcribe(tone)
    window.events.dispatch(Finalized(0.5, 1, ["Hello there."], pending="how are"))
    window.events.dispatch(Pending(0.6, 1, "how are"))
    window.audio_import.cancel()
    for event in (
        Finalized(0.8, 1, ["How are."], pending=""),
        Pending(0.8, 1, ""),
        Finished(0.9, "stopped", 1.0, 0),
    ):
        window.controller.pipelineEvent.emit(event)
    assert window.editor.text == "Before. Hello there. How are."
    assert window.editor.pending_text == ""


def test_dropping_an_audio_file_transcribes_it(
    window: MainWindow, started: list[Any], tone: Path, qtbot: QtBot
) -> None:
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(tone))])
    viewport = window.editor.viewport()
    where = QPointF(10, 10)
    enter = QDragEnterEvent(
        where.toPoint(), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        where, Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(viewport, drop)
    qtbot.waitUntil(lambda: len(started) == 1, timeout=2000)
    assert window.audio_import.source is not None
    assert window.audio_import.source.info.path == tone
    assert window.editor.text == ""  # the file's name was not dropped in as text


@pytest.mark.slow
def test_a_real_transcription_cancelled_half_way_keeps_its_text(
    window: MainWindow, tmp_path: Path, qtbot: QtBot
) -> None:
    """The bundled engine on the speech fixture said three times (32 s): Cancel after some of
    it; the document holds exactly what the run finalized, nothing greyed, and it said so."""
    samples, rate = soundfile.read(str(SPEECH), dtype="int16")
    long = tmp_path / "three times.flac"
    soundfile.write(str(long), np.concatenate([samples] * 3), rate)
    events: list[Any] = []
    window.events.subscribe("observer", events.append)
    assert window.audio_import.transcribe(long)
    source = window.audio_import.source
    assert source is not None
    qtbot.waitUntil(lambda: source.done_s > 8.0, timeout=60_000)
    window.audio_import.cancel()
    qtbot.waitUntil(lambda: not window.audio_import.busy, timeout=60_000)
    finished = [e for e in events if isinstance(e, Finished)]
    assert finished[-1].reason == "stopped" and finished[-1].audio_seconds < 30
    assert window.editor.text == final_text(events) != ""
    assert window.editor.pending_text == "" and window.controller.state == State.IDLE
    assert "cancelled at" in window.statusBar().currentMessage()


@pytest.mark.slow
def test_several_recognisers_give_the_window_the_same_text_as_one(
    window: MainWindow, tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PocketSphinx and two cores the window decodes a file with one recogniser per core
    (dictate.run.file_decode): its document, events and progress are those of the pipeline run
    with one."""
    import dictate.ui.audio_import as audio_import
    from dictate.events import Segment
    from dictate.run.file_decode import ParallelRun

    samples, rate = soundfile.read(str(SPEECH), dtype="int16")
    long = tmp_path / "twice.wav"
    soundfile.write(str(long), np.concatenate([samples] * 2), rate)
    window.settings.audio_file_target = "new"
    texts, words, runs = [], [], []
    for workers in (1, 2):
        monkeypatch.setattr(audio_import, "window_workers", lambda n=workers: n)
        events: list[Any] = []
        window.events.subscribe("observer", events.append)
        assert window.audio_import.transcribe(long)
        source = window.audio_import.source
        assert source is not None
        qtbot.waitUntil(lambda: not window.audio_import.busy, timeout=120_000)
        window.events.unsubscribe(events.append)
        runs.append(window.controller._run)
        assert [e.reason for e in events if isinstance(e, Finished)] == ["end_of_audio"]
        assert source.done_s == pytest.approx(source.info.duration, abs=0.01)  # to its end
        texts.append(window.editor.text)
        words.append([w.text for e in events if isinstance(e, Segment) for w in e.words])
        window.document.modified = False
    assert isinstance(runs[1], ParallelRun) and not isinstance(runs[0], ParallelRun)
    assert texts[0] == texts[1] != "" and words[0] == words[1]


def test_export_writes_the_timed_transcript_of_the_audio_in_this_document(
    window: MainWindow, started: list[Any], tone: Path, tmp_path: Path
) -> None:
    from dictate.asr.engine import Word
    from dictate.events import Segment

    window.audio_import.transcribe(tone)
    said = [Word("hello", 0.5, 0.9), Word("there", 1.0, 1.4)]
    for event in (
        Segment(1.5, 1, 0.4, 1.5, "silence", said),
        Finalized(1.6, 1, ["Hello there."], pending=""),
        Finished(1.7, "end_of_audio", 3.0, 0),
    ):
        window.controller.pipelineEvent.emit(event)
    assert window.editor.text == "Hello there."
    assert window.audio_import.export_action.isEnabled()
    srt, vtt, md = tmp_path / "out.srt", tmp_path / "out.vtt", tmp_path / "out"
    assert window.audio_import.export(srt) and window.audio_import.export(vtt)
    assert window.audio_import.export(md, ".md")  # the format chooser's answer
    assert "00:00:00,500 --> " in srt.read_text(encoding="utf-8")
    assert "Hello there." in srt.read_text(encoding="utf-8")
    assert vtt.read_text(encoding="utf-8").startswith("WEBVTT")
    assert "Hello there." in md.read_text(encoding="utf-8")
    assert not list(tmp_path.glob("*.tmp*"))  # written atomically, nothing left beside
    window.document.modified = False  # New without the "save first?" question
    window.document.new()  # another document: nothing of that audio in it
    assert not window.audio_import.export_action.isEnabled()
