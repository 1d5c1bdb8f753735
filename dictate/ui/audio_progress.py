"""An audio file being transcribed: whether a file is audio at all, the source that says how
far it has been read, and the bar above the text with the time left and Cancel
(:mod:`dictate.ui.audio_import` runs it)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from dictate.audio.capture import AudioBlock, FileSource

AUDIO_SUFFIXES = frozenset(
    {".wav", ".wave", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff", ".au"}
)
AUDIO_FILTER = "Audio (*.wav *.flac *.ogg *.oga *.opus *.mp3 *.aif *.aiff *.au)"


def _magic_is_audio(head: bytes) -> bool:
    """Whether a file's first bytes are those of an audio container (a WAV named .txt)."""
    return (
        (head[:4] == b"RIFF" and head[8:12] in (b"WAVE", b"RF64"))
        or head[:4] in (b"fLaC", b"OggS", b"RF64", b".snd")
        or (head[:4] == b"FORM" and head[8:12] in (b"AIFF", b"AIFC"))
        or head[:3] == b"ID3"
        # An MPEG layer III frame (a UTF-16 text's byte-order mark FF FE is not one).
        or (len(head) > 1 and head[0] == 0xFF and head[1] in (0xFB, 0xFA, 0xF3, 0xF2, 0xE3, 0xE2))
    )


def is_audio_file(path: str | Path) -> bool:
    """An audio file by its name, or by its first bytes whatever its name."""
    path = Path(path)
    if path.suffix.lower() in AUDIO_SUFFIXES:
        return True
    try:
        with path.open("rb") as file:
            return path.is_file() and _magic_is_audio(file.read(12))
    except OSError:
        return False


def clock(seconds: float) -> str:
    """``1:02:03`` or ``2:03``."""
    whole = int(max(0.0, seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def time_left(done: float, total: float, elapsed: float) -> float | None:
    """Seconds left at the speed so far (audio seconds done per second); None: not known yet."""
    if done <= 0 or elapsed < 1.0:
        return None
    return max(0.0, total - done) * elapsed / done


def said_left(seconds: float) -> str:
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5)} s left"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


RATE_WINDOW_S = 6.0
"""The speed behind the time left is that of the last this many seconds of progress: the first
stretches of a file are slower (the recognisers still load), and parts of a recording with
more speech per minute are decoded slower; since the first words, it said 60 s with 16 s left
(benchmarks/window_file.py)."""
RATE_AFTER_S = 2.0
"""Seconds of progress measured before a time left is said at all."""


class ProgressSource(FileSource):
    """A :class:`FileSource` that says how far it has read (:attr:`done_s`, audio seconds; read
    from the GUI thread while the pipeline's audio thread writes it) and since when."""

    done_s = 0.0
    started: float | None = None
    speech: tuple[float, float, float] | None = None
    """Seconds of speech the workers decoded (in any order: the words come in order, while the
    workers decode ahead), of speech read and of audio read, where the run says them (the
    parallel decode): the time left is then counted in speech, what decoding costs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.moves: deque[tuple[float, float]] = deque()
        """When progress moved, and to where, over the last :data:`RATE_WINDOW_S`."""

    def seconds_left(self, now: float) -> float | None:
        """Seconds left at the speed of the last :data:`RATE_WINDOW_S` of progress, counted
        from when it last moved (progress comes a stretch at a time); None until it has been
        measured for :data:`RATE_AFTER_S`. Called twice a second with the clock."""
        total, done = self.work()
        moves = self.moves
        if done > 0 and (not moves or done > moves[-1][1]):
            moves.append((now, done))
        while len(moves) > 2 and moves[-1][0] - moves[1][0] >= RATE_WINDOW_S:
            moves.popleft()
        if len(moves) < 2:
            return None
        (since, then), (moved_at, moved) = moves[0], moves[-1]
        if moved_at - since < RATE_AFTER_S:
            return None
        left = time_left(moved - then, total - then, moved_at - since)
        return None if left is None else max(0.0, left - (now - moved_at))

    def work(self) -> tuple[float, float]:
        """(all, done): seconds of speech where the run says them, the speech in the audio not
        read yet counted at the density of what was read (a recording whose last part is mostly
        silence was said to need five times the time it took, counted in audio); else seconds
        of audio."""
        audio = self.info.duration
        if self.speech is None:
            return audio, min(self.done_s, audio)
        done, read, read_s = self.speech
        density = read / read_s if read_s > 0 else 1.0
        return read + max(0.0, audio - read_s) * density, done

    def blocks(self) -> Iterator[AudioBlock]:
        self.started = time.monotonic()
        for block in super().blocks():
            self.done_s = block.end
            yield block


class AudioProgress(QWidget):
    """The bar above the text while a file is transcribed: what, how far, time left, Cancel."""

    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        self.bar.setFormat("%p%")
        self.bar.setAccessibleName("Transcription progress")
        self.cancel = QPushButton("&Cancel transcription")
        self.cancel.setToolTip("Stop here: the text transcribed so far is kept")
        layout.addWidget(self.label, 2)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.cancel)
        self.hide()
