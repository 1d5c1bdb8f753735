"""The window keeps each dictation session's audio (dictate/ui/audio_keeper.py): a finalized
sentence is linked to its time, played back from the editor's context menu and by "play that
back", nothing is kept when the setting is off, and after a crash the audio never shown as text
is recognised again (dictate/ui/audio_recovery.py).

Playback goes to a fake sounddevice (as in test_sounds.py): what reaches the output stream is
compared sample for sample, which a real sound card would not let us read back, and the tests
run where there is none.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PySide6.QtTest import QTest

from dictate.asr.engine import Word
from dictate.audio.capture import AudioBlock
from dictate.audio.format import SAMPLE_RATE
from dictate.audio.playback import Player
from dictate.editing.apply import EventDocument, apply_event
from dictate.editing.audio_links import MARGIN_S, AudioLinks
from dictate.editing.session_audio import TappedSource, read_span
from dictate.events import Command, Event, Finalized, Finished, Pending, Segment
from dictate.text.stage import TextStage

BLOCK = SAMPLE_RATE // 10


def speech(seconds: float, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(round(seconds * SAMPLE_RATE)) * 3000).astype(np.int16)


class Source:
    """A microphone's blocks, from memory."""

    name, dropped_blocks = "microphone", 0

    def __init__(self, audio: np.ndarray) -> None:
        self.audio = audio

    def blocks(self) -> Iterator[AudioBlock]:
        for at in range(0, len(self.audio), BLOCK):
            yield AudioBlock(self.audio[at : at + BLOCK], at / SAMPLE_RATE)

    def stop(self) -> None:
        pass


class FakeStream:
    def __init__(self, sd: FakeSounddevice, channels: int, **kwargs: Any) -> None:
        self.sd, self.channels, self.latency = sd, channels, kwargs.get("latency", 0.1)

    def start(self) -> None:
        pass

    def write(self, samples: np.ndarray) -> None:
        self.sd.written.append(np.array(samples))
        self.sd.wrote.set()
        self.sd.gate.wait(5)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.sd.closed += 1
        self.sd.done.set()


class FakeSounddevice:
    """sounddevice as far as the player uses it: a 16 kHz output device that records what it
    is given (``gate`` cleared: each write waits, as a real stream waits for the sound card)."""

    class PortAudioError(Exception):
        pass

    def __init__(self) -> None:
        self.written: list[np.ndarray] = []
        self.closed = 0
        self.wrote, self.done, self.gate = threading.Event(), threading.Event(), threading.Event()
        self.gate.set()

    def query_devices(self, device: Any, kind: str) -> dict[str, Any]:
        return {"name": "default", "default_samplerate": float(SAMPLE_RATE)}

    def OutputStream(self, channels: int = 1, **kwargs: Any) -> FakeStream:  # sounddevice's name
        return FakeStream(self, channels, **kwargs)

    def played(self) -> np.ndarray:
        assert self.done.wait(5)
        return np.concatenate(self.written)


@pytest.fixture
def fake_sd(monkeypatch: pytest.MonkeyPatch) -> FakeSounddevice:
    sd = FakeSounddevice()
    monkeypatch.setattr("dictate.audio.devices.sounddevice_module", lambda: sd)
    return sd


def _words(*timed: tuple[str, float, float]) -> list[Word]:
    return [Word(text, start, end) for text, start, end in timed]


def dictate_session(window: Any, audio: np.ndarray, events: list[Event]) -> TappedSource:
    """A run: its audio through the tap (as the pipeline reads it), its events as the
    controller delivers them."""
    source = window.kept_audio.tap(Source(audio))
    assert isinstance(source, TappedSource)
    for _ in source.blocks():
        pass
    for event in events:
        window.controller.pipelineEvent.emit(event)
    return source


MET = Segment(0.1, 1, 0.4, 1.7, "silence", _words(("we", 0.5, 0.8), ("met", 0.8, 1.1),
              ("at", 1.1, 1.2), ("nine", 1.2, 1.6)))  # fmt: skip
LEFT = Segment(0.2, 2, 2.0, 2.9, "silence", _words(("we", 2.1, 2.3), ("left", 2.3, 2.8)))
RUN = [
    MET,
    Finalized(0.1, 1, ["We met at 9."], pending="", spoken=["We met at nine."]),
    Pending(0.1, 1, ""),
    LEFT,
    Finalized(0.2, 2, ["We left."], pending=""),
    Pending(0.2, 2, ""),
    Finished(0.3, "stopped", 3.0, 0),
]


def _cursor_at(window: Any, pos: int) -> None:
    cursor = window.editor.textCursor()
    cursor.setPosition(pos)
    window.editor.setTextCursor(cursor)


def test_the_sentence_at_the_cursor_plays_its_own_audio_from_the_context_menu(
    window: Any, fake_sd: FakeSounddevice
) -> None:
    from PySide6.QtWidgets import QMenu

    audio = speech(3.0)
    source = dictate_session(window, audio, RUN)
    assert window.editor.text == "We met at 9. We left."
    assert not source.recorder.open  # Finished closed the file
    _cursor_at(window, window.editor.text.index("met"))
    menu = QMenu()
    window.editor.extend_menu(menu, window.editor.selection()[1])
    [play] = [a for a in menu.actions() if a.text() == "Play the audio of this sentence"]
    play.trigger()
    played = fake_sd.played()
    start, end = round((0.5 - MARGIN_S) * SAMPLE_RATE), round((1.6 + MARGIN_S) * SAMPLE_RATE)
    np.testing.assert_array_equal(played[: end - start], audio[start:end] / 32768.0)
    assert not played[end - start :].any()  # silence after it: the stream plays it out
    # After a restart the link is still there (read from the index beside the journal).
    again = AudioLinks(window.kept_audio.folder).load()
    [link] = [k for k in again.links if k.text == "We left."]
    assert (link.start, link.end) == (2.1, 2.8) and again.sessions[link.session].ended


def test_typed_text_has_no_audio_and_says_so(window: Any, fake_sd: FakeSounddevice) -> None:
    dictate_session(window, speech(3.0), RUN)
    window.editor.edits.voice(
        lambda buffer: buffer.voice_edit(len(buffer.text), len(buffer.text), " Typed here.")
    )
    _cursor_at(window, window.editor.text.index("Typed"))
    assert not window.kept_audio.play_at_cursor()
    assert "No audio for this sentence" in window.statusBar().currentMessage()
    assert not fake_sd.written


def test_play_that_back_is_a_voice_command_that_plays_the_last_sentence(
    window: Any, fake_sd: FakeSounddevice
) -> None:
    events: list[Event] = []
    stage = TextStage(None, events.append, commands=True)
    stage.segment(3, _words(("play", 3.0, 3.2), ("that", 3.2, 3.4), ("back", 3.4, 3.7)), ())
    stage.finish(3)
    [command] = [e for e in events if isinstance(e, Command)]
    assert (command.kind, command.spoken) == ("play", "play that back")
    document = EventDocument()  # a target without audio: the command changes no text
    assert apply_event(document, command) and document.text == ""

    audio = speech(3.0)
    dictate_session(window, audio, RUN)
    window.controller.pipelineEvent.emit(command)
    played = fake_sd.played()
    start, end = round((2.1 - MARGIN_S) * SAMPLE_RATE), round((2.8 + MARGIN_S) * SAMPLE_RATE)
    np.testing.assert_array_equal(played[: end - start], audio[start:end] / 32768.0)


def test_playback_stops_when_asked(fake_sd: FakeSounddevice) -> None:
    fake_sd.gate.clear()  # each chunk waits, as a sound card would
    done: list[str] = []
    player = Player()
    player.play(speech(5.0), done.append)
    assert fake_sd.wrote.wait(5) and player.playing
    player.stop(timeout=0)
    fake_sd.gate.set()
    assert fake_sd.done.wait(5)
    player.stop()
    assert done == [""] and len(fake_sd.written) <= 2  # 0.1 s chunks: stopped at once


def test_while_playing_back_the_microphone_is_muted_and_escape_stops_it(
    window: Any, qtbot: Any, fake_sd: FakeSounddevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Play that back" said while dictating: the speakers' sound must not reach the
    recogniser (it would dictate the sentence again), nor the kept file."""
    from PySide6.QtCore import Qt

    import dictate.ui.audio_keeper as keeper_module

    audio = speech(3.0)
    dictate_session(window, audio, RUN)
    fake_sd.gate.clear()  # the sound plays until the gate opens
    keeper = window.kept_audio
    assert keeper.play(keeper.links.last())
    assert fake_sd.wrote.wait(5)
    assert "Escape stops it" in window.statusBar().currentMessage()
    # The next run (dictation goes on) reads its microphone while the sound plays.
    mic = speech(1.0, seed=2)
    source = keeper.tap(Source(mic))
    blocks = [b.samples for b in source.blocks()]
    assert not np.concatenate(blocks).any() and source.muted_blocks == len(blocks)
    QTest.keyClick(window.editor, Qt.Key.Key_Escape)
    fake_sd.gate.set()
    qtbot.waitUntil(lambda: not keeper.player.playing, timeout=5_000)
    assert len(fake_sd.written) <= 3  # stopped at once, not played to its end
    qtbot.waitUntil(lambda: not keeper._escape.isEnabled(), timeout=5_000)
    # Muted a moment more (the sound may still be in the buffers), then the microphone again.
    assert keeper.muted()
    monkeypatch.setattr(keeper_module, "ECHO_S", 0.0)
    keeper._played("")
    assert not keeper.muted()
    blocks = [b.samples for b in source.blocks()]
    np.testing.assert_array_equal(np.concatenate(blocks), mic)
    source.recorder.close()
    kept = read_span(source.recorder.path)
    assert not kept[: len(mic)].any()  # the muted run's file holds the silence it was fed
    np.testing.assert_array_equal(kept[len(mic) :], mic)


def test_nothing_is_kept_when_the_setting_is_off_and_turning_it_off_offers_to_delete(
    window: Any, monkeypatch: pytest.MonkeyPatch, fake_sd: FakeSounddevice
) -> None:
    keeper = window.kept_audio
    dictate_session(window, speech(3.0), RUN)
    assert keeper.store().sessions()
    monkeypatch.setattr(keeper, "confirm", lambda parent: True)
    window.settings.keep_audio = False
    keeper.settings_changed(True, window)
    assert not keeper.store().sessions() and not AudioLinks(keeper.folder).load().links
    source = Source(speech(1.0))
    assert keeper.tap(source) is source  # off: the pipeline reads the microphone as it is
    assert not keeper.store().sessions()
    _cursor_at(window, 3)
    assert not keeper.play_at_cursor()
    assert "keeping the audio is off" in window.statusBar().currentMessage()


def test_after_a_crash_the_audio_never_shown_is_recognised_again_and_offered(
    window: Any, qtbot: Any
) -> None:
    """The run is killed 3 s in: the first sentence was shown (its segment ends at 1.7 s); the
    words said after it were only partial words on screen, never journaled."""
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.ui.audio_recovery import offer_unshown_audio
    from dictate.ui.main_window import MainWindow

    audio = speech(3.0)
    source = dictate_session(window, audio, RUN[:3])  # no Finished: the process died
    assert source.recorder.open
    heard: list[np.ndarray] = []

    def recognise(samples: np.ndarray, settings: Any, before: np.ndarray, progress: Any) -> str:
        heard.append(samples)
        np.testing.assert_array_equal(before, audio[: round(1.7 * SAMPLE_RATE)])
        return "and then we left"

    restarted = MainWindow(Settings(engine="sphinx"), Journal(window.journal.path), False)
    qtbot.addWidget(restarted)
    restarted.document.load_text("We met at 9.", None)
    assert offer_unshown_audio(restarted, recognise) == "and then we left"
    # The audio after the shown sentence's segment, up to the last flush (1 s) less the
    # encoder's block.
    [tail] = heard
    start = round(1.7 * SAMPLE_RATE)
    assert len(tail) >= 2 * SAMPLE_RATE - start - 4096
    np.testing.assert_array_equal(tail, audio[start : start + len(tail)])
    message = restarted.messages
    assert "and then we left" in message.label.text()
    _cursor_at(restarted, len(restarted.editor.text))
    [add] = [b for b in message.buttons if "Add them" in b.text()]
    add.click()
    assert restarted.editor.text == "We met at 9. And then we left"
    # Offered once: the session is marked ended.
    assert offer_unshown_audio(restarted, recognise) == "" and len(heard) == 1
    source.recorder.close()
    restarted.document.modified = False
    restarted.close()


def test_after_a_crash_the_window_is_usable_while_the_tail_is_recognised(
    window: Any, qtbot: Any
) -> None:
    """The unshown tail was recognised on the GUI thread before the window showed (48-110 s
    after a kill, and no window after 7.5 min for a 10-minute tail): now on a thread of its
    own, with its progress in the status bar. The recogniser here waits for the test's word,
    so that the window can be seen usable while it works."""
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.ui.audio_recovery import recover_in_background
    from dictate.ui.main_window import MainWindow

    audio = speech(3.0)
    source = dictate_session(window, audio, RUN[:3])  # no Finished: the process died
    crashed = source.recorder.session
    release = threading.Event()

    def recognise(samples: np.ndarray, settings: Any, before: np.ndarray, progress: Any) -> str:
        progress(0.5)
        assert release.wait(60)
        return "and then we left"

    restarted = MainWindow(Settings(engine="sphinx"), Journal(window.journal.path), False)
    qtbot.addWidget(restarted)
    restarted.document.load_text("We met at 9.", None)
    thread = recover_in_background(restarted, recognise)
    assert thread is not None and thread.is_alive()  # returned at once, still recognising
    qtbot.waitUntil(lambda: "50%" in restarted.statusBar().currentMessage())
    assert "Recognising the last" in restarted.statusBar().currentMessage()
    restarted.editor.insertPlainText(" Typed meanwhile.")  # the window is usable
    assert restarted.editor.text.endswith("Typed meanwhile.")
    assert not restarted.kept_audio.links.sessions[crashed].ended
    release.set()
    qtbot.waitUntil(lambda: "and then we left" in restarted.messages.label.text())
    thread.join(10)
    assert restarted.kept_audio.links.sessions[crashed].ended  # offered once
    assert restarted.statusBar().currentMessage() == ""
    source.recorder.close()
    restarted.document.modified = False
    restarted.close()


def test_read_span_of_the_kept_file_is_what_the_pipeline_read(window: Any) -> None:
    audio = speech(2.0)
    source = dictate_session(window, audio, [])
    source.recorder.close()
    np.testing.assert_array_equal(read_span(source.recorder.path), audio)


@pytest.mark.slow
def test_the_unshown_tail_is_recognised_by_the_real_recogniser(tmp_path: Any) -> None:
    """The bundled recording (four phrases, flite) kept as a crashed session whose first half
    was shown: the bundled PocketSphinx engine and the punctuator hear the last phrase again."""
    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.session_audio import AudioStore, SessionRecorder
    from dictate.paths import asset_path
    from dictate.ui.audio_recovery import recognise_speech, unshown_audio

    audio = np.concatenate([b.samples for b in FileSource(asset_path("sample_en.wav")).blocks()])
    folder = tmp_path / "audio"
    recorder = SessionRecorder(folder, "crashed")
    recorder.write(audio)
    recorder.close()
    links = AudioLinks(folder)
    half = len(audio) / SAMPLE_RATE / 2
    links.append({"op": "session", "session": "crashed"})
    links.append({"op": "covered", "session": "crashed", "until": half})
    found = unshown_audio(AudioLinks(folder).load(), AudioStore(folder, 10**9))
    assert found is not None and found[1] == half
    text = recognise_speech(found[2], Settings(engine="sphinx"), before=found[3])
    assert "thank you" in text.lower(), text


POPUP = pytest.mark.qt_log_ignore(  # the offscreen platform cannot do these for a popup menu
    "does not support propagateSizeHints", "does not support raise", "grabbing the keyboard"
)


def _right_click_menu(window: Any, at: int) -> list[str]:
    """Right-click the text at buffer position ``at`` as the mouse does (the event reaches the
    editor through its viewport); the menu's items, and the one named ``choose`` triggered."""
    from PySide6.QtCore import QPoint, QTimer
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication, QMenu

    editor = window.editor
    cursor = editor.textCursor()
    cursor.setPosition(at)  # no selection: the dictated text has no greyed words now
    rect = editor.cursorRect(cursor)
    where = QPoint(rect.right() + 2, rect.center().y())
    seen: list[str] = []

    def answer() -> None:
        menu = QApplication.activePopupWidget()
        if not isinstance(menu, QMenu):
            QTimer.singleShot(20, answer)
            return
        seen.extend(a.text() for a in menu.actions())
        [play] = [a for a in menu.actions() if a.text().startswith("Play the audio")]
        menu.close()
        play.trigger()

    QTimer.singleShot(20, answer)
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, where, editor.viewport().mapToGlobal(where)
    )
    QApplication.sendEvent(editor.viewport(), event)
    return seen


@POPUP
def test_the_context_menu_plays_the_sentence_right_clicked_not_the_one_at_the_cursor(
    window: Any, fake_sd: FakeSounddevice
) -> None:
    audio = speech(3.0)
    dictate_session(window, audio, RUN)
    assert window.editor.text == "We met at 9. We left."
    _cursor_at(window, window.editor.text.index("met"))  # the cursor in the first sentence
    seen = _right_click_menu(window, window.editor.text.index("left"))
    assert "Play the audio of this sentence" in seen
    played = fake_sd.played()
    start, end = round((2.1 - MARGIN_S) * SAMPLE_RATE), round((2.8 + MARGIN_S) * SAMPLE_RATE)
    np.testing.assert_array_equal(played[: end - start], audio[start:end] / 32768.0)
    assert window.editor.selection() == (3, 3)  # the right-click did not move the cursor


@POPUP
def test_the_context_menu_opened_on_the_selection_plays_the_selection(
    window: Any, fake_sd: FakeSounddevice
) -> None:
    audio = speech(3.0)
    dictate_session(window, audio, RUN)
    text = window.editor.text
    window.editor.set_selection(0, len(text))
    seen = _right_click_menu(window, text.index("left"))
    assert "Play the audio of the selection" in seen
    assert len(fake_sd.played()) > round(2.0 * SAMPLE_RATE)  # both sentences
