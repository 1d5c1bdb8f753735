"""The window tells the truth about a recogniser that has fallen behind: how far behind, in the
status bar while listening and as Stop works through what is left; a latency readout from the
end of what was said (not from when a segment reached the window); audio that could not be
stored, and kept audio that stopped being written, said at once, not after Stop.

The run's numbers (how far behind, when a phrase was said) come from the controller, whose
real sources are tested in tests/audio/test_capture.py and tests/test_busy_machine_x11.py;
here they are set, so that the window's reading of them can be checked exactly."""

from __future__ import annotations

import errno
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runs import reach

from dictate.asr.engine import Word
from dictate.events import Pending, Segment
from dictate.ui.run_states import State


@pytest.fixture
def run(window: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The controller's view of a live run, as numbers the test sets (no run is left behind:
    closing the window would wait for it)."""
    numbers: dict[str, Any] = {"behind": 0.0, "lost": 0, "said_at": None}
    controller = window.controller
    monkeypatch.setattr(controller, "behind", lambda: numbers["behind"])
    monkeypatch.setattr(controller, "lost_blocks", lambda: numbers["lost"])
    monkeypatch.setattr(
        controller,
        "wall_time",
        lambda t: None if numbers["said_at"] is None else numbers["said_at"] + t,
    )
    yield numbers
    reach(controller, State.IDLE)


def test_the_status_bar_says_how_far_behind_and_stop_shows_what_is_left(
    window: Any, run: dict[str, Any]
) -> None:
    controller = window.controller
    window.dictation.dropped_label.setText(
        "12 audio blocks lost: they could not be stored"
    )  # a last run's
    reach(controller, State.STARTING)
    reach(controller, State.LISTENING)
    assert window.dictation.dropped_label.text() == ""  # the notice belongs to its run
    assert window.dictation.showing_progress
    window.dictation.show_progress()
    assert window.statusBar().currentMessage() == "Listening…"
    run["behind"] = 12.4
    window.dictation.show_progress()
    assert window.statusBar().currentMessage() == "Catching up: 12 s behind"
    run["lost"] = 3
    window.dictation.show_progress()
    assert window.dictation.dropped_label.text() == "3 audio blocks lost: they could not be stored"
    reach(controller, State.STOPPING)
    window.dictation.show_progress()
    assert window.statusBar().currentMessage() == "Finishing: 12 s left…"
    assert "12 s of what was said" in window.dictation.finishing_bar.toolTip()
    assert (
        window.dictation.finishing_bar.isVisible() and window.dictation.finishing_bar.value() == 0
    )
    run["behind"] = 3.1
    window.dictation.show_progress()
    assert window.dictation.finishing_bar.value() == 75
    run["behind"] = 0.0
    window.dictation.show_progress()
    assert window.statusBar().currentMessage() == "Finishing…"
    assert not window.dictation.finishing_bar.isVisible()
    reach(controller, State.IDLE)
    assert not window.dictation.showing_progress


def test_a_message_shown_meanwhile_is_not_overwritten_by_the_same_state(
    window: Any, run: dict[str, Any]
) -> None:
    reach(window.controller, State.LISTENING)
    window.dictation.show_progress()
    window.statusBar().showMessage("Playing the last sentence (2.0 s)…")
    window.dictation.show_progress()
    assert window.statusBar().currentMessage() == "Playing the last sentence (2.0 s)…"
    run["behind"] = 5
    window.dictation.show_progress()  # a change of state is news: it is shown
    assert window.statusBar().currentMessage() == "Catching up: 5 s behind"


def test_the_latency_is_from_the_end_of_what_was_said(window: Any, run: dict[str, Any]) -> None:
    """A phrase that ended 20 s ago (a recogniser far behind) shows 20 s, not the few
    milliseconds its words took from the second pass to the screen (183 ms was shown once
    while the text was 20 s behind)."""
    run["said_at"] = time.monotonic() - 25.0  # audio time 0 was 25 s ago
    window.events.dispatch(Segment(0.0, 1, 3.0, 5.0, "silence", [Word("hello", 3.0, 5.0)]))
    window.events.dispatch(Pending(0.1, 1, "Hello"))
    assert window.event_view.punctuation_latency_ms == pytest.approx(20_000, abs=2_000)
    assert window.dictation.latency_label.text().startswith("Latency 2")
    assert window.dictation.latency_label.text().endswith(" s")


def test_kept_audio_that_stops_being_written_is_said_at_once(
    window: Any, run: dict[str, Any], tmp_path: Path
) -> None:
    """A full disk cannot be made on demand here: the recorder's own failure path is given the
    error a full disk raises (what libsndfile's write then reports)."""
    from dictate.editing.session_audio import SessionRecorder

    keeper = window.kept_audio
    keeper.recorder = SessionRecorder(tmp_path, "session")
    reach(window.controller, State.LISTENING)
    window.dictation.show_progress()
    assert not window.messages.isVisible()
    keeper.recorder._fail(OSError(errno.ENOSPC, "No space left on device"))
    window.dictation.show_progress()
    assert window.messages.isVisible()
    said = window.messages.label.text()
    assert "not being kept" in said and "No space left on device" in said
    window.messages.hide()
    window.dictation.show_progress()
    assert not window.messages.isVisible()  # said once, not twice a second
    keeper.recorder = None


def test_closing_far_behind_asks_and_cancel_keeps_the_window_and_the_run(
    window: Any, run: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing waited for every word, minutes on a loaded machine, with no way out; now the
    person is asked. Cancel (Escape) keeps the window open and the dictation going."""
    from dictate.ui.leave_question import Leave

    asked: list[tuple[float, bool]] = []

    def ask(parent: Any, behind: float, can_leave: bool) -> Leave:
        asked.append((behind, can_leave))
        return Leave.CANCEL

    monkeypatch.setattr("dictate.ui.dictation_run.ask_to_leave", ask)
    reach(window.controller, State.LISTENING)
    run["behind"] = 42.0
    window.close()
    assert window.isVisible() and window.controller.state == State.LISTENING
    # This window keeps no audio of the run (no real source was tapped): quitting would lose
    # the words, so it is not offered.
    assert asked == [(42.0, False)]
    run["behind"] = 0.0


def test_the_question_says_what_quitting_now_does() -> None:
    from dictate.ui.leave_question import question_text

    kept = question_text(41.6, True)
    assert kept.startswith("Recognition is 42 s behind what you said.")
    assert "next time dictate starts" in kept and "lose" not in kept
    assert "quitting now would lose those words" in question_text(3, False)


@pytest.mark.parametrize("button", ["Quit now", "Wait for them", "Cancel"])
def test_the_question_s_buttons(window: Any, button: str) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from dictate.ui.leave_question import Leave, ask_to_leave

    seen: list[str] = []

    def press() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.extend(b.text().replace("&", "") for b in box.buttons())
        [chosen] = [b for b in box.buttons() if b.text().replace("&", "") == button]
        chosen.click()

    QTimer.singleShot(0, press)
    answer = ask_to_leave(window, 30.0, True)
    assert sorted(seen) == ["Cancel", "Quit now", "Wait for them"]
    assert answer == {"Quit now": Leave.QUIT, "Wait for them": Leave.WAIT}.get(button, Leave.CANCEL)


class _SlowReader:
    """A machine too busy to recognise in real time, made on demand: the microphone's capture
    thread (a recording played at real-time speed) keeps pace and keeps the audio, and the
    pipeline reads each block late, as a starved recogniser thread does."""

    def __init__(self, source: Any, delay: float) -> None:
        self.source, self.delay = source, delay

    def __getattr__(self, name: str) -> Any:
        if name == "source":
            raise AttributeError(name)
        return getattr(self.source, name)

    def blocks(self) -> Iterator[Any]:
        for block in self.source.blocks():
            time.sleep(self.delay)
            yield block


@pytest.mark.slow
def test_quit_now_while_far_behind_leaves_the_rest_to_the_next_start(
    window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real window, recogniser and kept audio: a recording said while recognition falls
    behind, the window closed with "Quit now". It closes without recognising the rest, and the
    next start recognises the rest from the kept audio: the words shown and the words offered
    are the recording's (the same engine heard it; a word cut at another point may differ)."""
    import json
    import re

    import soundfile as sf

    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.events import Finished
    from dictate.paths import asset_path
    from dictate.ui.audio_recovery import offer_unshown_audio
    from dictate.ui.leave_question import Leave
    from dictate.ui.main_window import MainWindow

    asked: list[tuple[float, bool]] = []

    def ask(parent: Any, behind: float, can_leave: bool) -> Leave:
        asked.append((behind, can_leave))
        return Leave.QUIT

    monkeypatch.setattr("dictate.ui.dictation_run.ask_to_leave", ask)
    events: list[Any] = []
    window.events.subscribe("observer", events.append)
    recording = asset_path("sample_en.wav")
    window.dictation.start(lambda: _SlowReader(FileSource(recording, realtime=True), 0.3))
    controller = window.controller
    qtbot.waitUntil(lambda: controller.behind() >= 4.0, timeout=300_000)
    window.document.modified = False
    window.close()
    assert not window.isVisible()
    assert len(asked) == 1 and asked[0][0] >= 4.0 and asked[0][1]
    [finished] = [e for e in events if isinstance(e, Finished)]
    assert finished.reason == "left"
    shown = re.findall(r"[\w']+", window.editor.text.lower())
    restarted = MainWindow(Settings(engine="sphinx"), Journal(window.journal.path), False)
    qtbot.addWidget(restarted)
    [kept] = restarted.kept_audio.store().sessions()
    captured = sf.info(str(kept.path)).duration  # the microphone stopped at the close
    offered = offer_unshown_audio(restarted).lower().split()
    phrases = json.loads(recording.with_suffix(".json").read_text())["phrases"]
    said = " ".join(p["text"] for p in phrases if p["end"] <= captured).split()
    assert said and offered  # the rest was not lost: it is offered
    assert len(shown) + len(offered) >= 0.8 * len(said)
    restarted.document.modified = False
    restarted.close()
