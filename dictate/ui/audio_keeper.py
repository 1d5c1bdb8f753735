"""The window's kept audio (:mod:`dictate.editing.session_audio`): recording each dictation run
into the editor, linking its finalized sentences to their time (:mod:`dictate.editing.audio_links`),
and playing a sentence back (the editor's context menu, the voice command "play that back").

Audio is kept only while Settings > "Keep the audio of what I dictate" is on, for runs into this
window from a microphone (an audio file transcribed at full speed is not copied: the file is
there); turning it off stops the recording at once and offers to delete what was kept. The
folder is kept within Settings' size, oldest sessions first.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut

from dictate.audio.format import SAMPLE_RATE
from dictate.audio.playback import Player
from dictate.editing.audio_links import AudioLinks, Clip, WordClock
from dictate.editing.session_audio import (
    AudioStore,
    SessionRecorder,
    TappedSource,
    audio_folder,
    read_span,
)
from dictate.events import Command, Event, Finalized, Finished, Pending, Segment
from dictate.ui.run_states import State

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu

    from dictate.ui.window_api import Window

log = logging.getLogger("dictate.ui")

GAP_S = 0.3
"""Silence played between two clips that are not one stretch of audio."""
ECHO_S = 0.5
"""The microphone stays muted this long after playback ends: its sound may still be on its
way through the output's and the input's buffers."""
NO_AUDIO = "typed, edited since, or its audio was deleted (oldest first, past the size in Settings)"


class _Signals(QObject):
    played = Signal(str)  # "" or what failed, from the player's thread


class AudioKeeper:
    """The kept audio of ``window``: see the module docstring."""

    def __init__(self, window: Window) -> None:
        self._window = window
        self.folder = audio_folder(window.journal.path)
        self.links = AudioLinks(self.folder).load()
        self.clock = WordClock()
        self.recorder: SessionRecorder | None = None
        self.player = Player()
        self._lock = threading.Lock()  # the recorder is made on the controller's thread
        self._segment_ends: dict[int, float] = {}
        self._covered = 0.0
        self._warned = False  # the loss of this run's kept audio was said
        self._not_kept: str | None = None  # why this run's audio could not be kept at all
        self._at_capture = False  # this run's audio is written as captured, not as recognised
        self._signals = _Signals()
        self._signals.played.connect(self._played)
        self._echo_until = 0.0  # monotonic time: the microphone is muted until then
        self._escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), window.widget())
        self._escape.activated.connect(self.stop)
        self._escape.setEnabled(False)  # only while playing: Escape is the find bar's too
        controller = window.controller
        controller.tap_source = self.tap
        window.events.subscribe("kept_audio", self.event)
        controller.failed.connect(lambda _error: self.end_session())
        window.editor.extend_menu = self.add_menu_items

    @property
    def on(self) -> bool:
        return bool(self._window.settings.keep_audio)

    def store(self) -> AudioStore:
        return AudioStore(self.folder, self._window.settings.audio_max_mb * 2**20)

    # -- recording ----------------------------------------------------------------------------

    def tap(self, source: Any) -> Any:
        """``source`` with its audio kept, or as it is (off, typing into other applications,
        a file read at full speed, or the folder cannot be written). On the controller's
        starting thread."""
        window = self._window
        self._warned, self._not_kept = False, None
        if not self.on or window.typing.typist is not None or not getattr(source, "realtime", True):
            return source
        store = self.store()
        try:
            self._forget(store.enforce_limit())
            recorder = store.start()
            with self._lock:
                self.links.append({"op": "session", "session": recorder.session})
        except OSError as exc:
            log.warning("the audio of this session cannot be kept: %s", exc)
            self._not_kept = str(exc)  # said in the window by check_recording, on its thread
            return source
        tapped = TappedSource(source, recorder, self.muted)
        with self._lock:
            self.recorder = recorder
            self._warned = False
            self._at_capture = tapped.at_capture
        return tapped

    def check_recording(self) -> None:
        """While dictating (the GUI thread, twice a second): if the kept audio could not be
        started or stopped being written (its folder removed, a full disk), say so once, at
        once; the dictation goes on and its words are kept in the text and the journal."""
        recorder = self.recorder
        why = self._not_kept
        if why is None and recorder is not None and recorder.error is not None:
            why = str(recorder.error)
        if why is None or self._warned:
            return
        self._warned = True
        self._not_kept = None
        self._window.messages.show_message(
            f"The audio of this dictation is not being kept: {why}. Your words are still "
            f"recognised and saved; check the folder {self.folder} and the free disk space, "
            "or turn keeping the audio off in Settings."
        )

    def muted(self) -> bool:
        """Whether the microphone is muted now (on the audio thread): while the window plays
        kept audio back, and :data:`ECHO_S` after, so "play that back" said while dictating
        does not dictate the sentence a second time."""
        return self.player.playing or time.monotonic() < self._echo_until

    def event(self, event: Event) -> None:
        """One pipeline event (the GUI thread, in order)."""
        recorder = self.recorder
        if recorder is None:
            return
        if isinstance(event, Segment):
            self.clock.heard(event.words)
            self._segment_ends[event.segment] = event.end
            return
        if isinstance(event, Finalized):
            said = event.spoken or event.sentences
            heard = event.heard or event.sentences
            for sentence, spoken, as_heard in zip(event.sentences, said, heard, strict=False):
                span = self.clock.time(spoken)
                if span is not None and sentence.strip():
                    start, end = span
                    link = {"session": recorder.session, "start": start, "end": end}
                    if as_heard != sentence:  # the vocabulary rewrote words: both are kept
                        link["heard"] = as_heard
                    self.append({"op": "link", **link, "text": sentence})
        if isinstance(event, (Finalized, Pending, Command)):
            until = self._segment_ends.get(event.segment)
            if until is not None and until > self._covered:
                self._covered = until
                self.append({"op": "covered", "session": recorder.session, "until": until})
        elif isinstance(event, Finished):
            self.end_session()

    @property
    def keeping(self) -> bool:
        """Whether all of this run's audio is on disk however far behind recognition is:
        kept as it is captured, and its file not failed."""
        recorder = self.recorder
        return recorder is not None and recorder.error is None and self._at_capture

    def leave_for_next_start(self) -> None:
        """The window closes with recognition behind: the file is finished but the session
        is not marked ended, so the next start recognises its audio past what was shown
        (:mod:`dictate.ui.audio_recovery`) and offers the words."""
        with self._lock:
            recorder, self.recorder = self.recorder, None
        if recorder is not None:
            recorder.close()

    def end_session(self) -> None:
        """The run ended (or keeping was turned off): the file is finished."""
        with self._lock:
            recorder, self.recorder = self.recorder, None
        if recorder is None:
            return
        recorder.close()
        self.append({"op": "end", "session": recorder.session})
        self.clock.clear()
        self._segment_ends.clear()
        self._covered = 0.0
        self._forget(self.store().enforce_limit())

    def append(self, record: dict[str, Any]) -> None:
        try:
            with self._lock:
                self.links.append(record)
        except OSError as exc:
            log.warning("the audio links could not be written: %s", exc)

    def _forget(self, sessions: list[str]) -> None:
        try:
            with self._lock:
                self.links.forget(sessions)
        except OSError as exc:
            log.warning("the audio links could not be rewritten: %s", exc)

    def settings_changed(self, was_on: bool, parent: Any) -> None:
        """Keeping turned off: the recording stops now, and what was kept may be deleted; the
        size may have shrunk: the oldest sessions go."""
        if was_on and not self.on:
            self.end_session()
            if self.store().sessions() and self.confirm(parent):
                self.delete_all()
        elif self.on:
            keep = self.recorder.session if self.recorder is not None else None
            self._forget(self.store().enforce_limit(keep))

    def delete_all(self) -> None:
        keep = self.recorder.session if self.recorder is not None else None
        self._forget(self.store().clear(keep))

    @staticmethod
    def confirm(parent: Any) -> bool:
        from PySide6.QtWidgets import QMessageBox

        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            parent,
            "Kept audio",
            "Delete the audio of your dictation kept so far?",
            buttons.Yes | buttons.No,
            buttons.No,
        )
        return bool(answer == buttons.Yes)

    # -- playing back ---------------------------------------------------------------------------

    def add_menu_items(self, menu: QMenu, at: int) -> None:
        """The editor's context menu, opened at buffer position ``at``: play the selection if
        it was opened on it, else the sentence there (not the one at the cursor)."""
        menu.addSeparator()
        selection = self._selection()
        if selection is not None and selection[0] <= at <= selection[1]:
            menu.addAction("Play the audio of the selection", self.play_at_cursor)
        else:
            menu.addAction("Play the audio of this sentence", lambda: self.play_at(at))
        if self.player.playing:
            menu.addAction("Stop playing", self.stop)

    def _selection(self) -> tuple[int, int] | None:
        anchor, position = self._window.editor.selection()
        return (min(anchor, position), max(anchor, position)) if anchor != position else None

    def play_at_cursor(self) -> bool:
        editor = self._window.editor
        selection = self._selection()
        if selection is not None:
            return self.play(self.links.find(editor.buffer.text, *selection), "the selection")
        return self.play_at(editor.selection()[1])

    def play_at(self, position: int) -> bool:
        """Play the sentence at buffer position ``position``."""
        return self.play(self.links.find(self._window.editor.buffer.text, position))

    def play_back(self) -> bool:
        """ "Play that back": the selection, else the last finalized sentence."""
        selection = self._selection() or self._window.editor.buffer.selection
        if selection is not None:
            text = self._window.editor.buffer.text
            return self.play(self.links.find(text, *selection), "the selection")
        return self.play(self.links.last(), "the last sentence")

    def samples(self, clips: list[Clip]) -> np.ndarray | None:
        """The clips' audio, one after another; None if a clip's file is gone."""
        parts: list[np.ndarray] = []
        store = self.store()
        for clip in clips:
            try:
                part = read_span(store.path(clip.session), clip.start, clip.end)
            except OSError:
                return None
            if parts:
                parts.append(np.zeros(round(GAP_S * SAMPLE_RATE), dtype=np.int16))
            parts.append(part)
        return np.concatenate(parts) if parts else None

    def play(self, clips: list[Clip], what: str = "this sentence") -> bool:
        """Play ``clips``; where there is no audio, say why. Whether it plays."""
        if not clips:
            why = NO_AUDIO if self.on else "keeping the audio is off (Settings)"
            self._say(f"No audio for {what}: {why}.")
            return False
        samples = self.samples(clips)
        if samples is None or not len(samples):
            self._say(f"No audio for {what}: its audio was deleted.")
            return False
        seconds = len(samples) / SAMPLE_RATE
        dictating = self._window.controller.state != State.IDLE
        muted = "; the microphone is muted meanwhile" if dictating else ""
        self._say(f"Playing {what} ({seconds:.1f} s; Escape stops it{muted})…", 0)
        self._echo_until = float("inf")  # until it has ended (the player's thread may lag)
        self._escape.setEnabled(True)
        self.player.play(samples, self._signals.played.emit)
        return True

    def stop(self) -> None:
        self.player.stop()

    def _played(self, error: str) -> None:
        self._echo_until = time.monotonic() + ECHO_S
        if not self.player.playing:  # not a second sound that replaced this one
            self._escape.setEnabled(False)
        if error:
            self._say(f"The audio could not be played: {error}.")
        else:
            self._window.statusBar().clearMessage()

    def _say(self, text: str, ms: int = 6000) -> None:
        self._window.statusBar().showMessage(text, ms)

    def close(self) -> None:
        self.player.stop()
        self.end_session()
        with contextlib.suppress(Exception):
            self.links.close()
