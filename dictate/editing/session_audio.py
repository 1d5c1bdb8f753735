"""The audio behind the words: each dictation session's sound, kept beside the autosave journal.

One FLAC file per dictation run (a *session*), 16 kHz mono 16-bit, in ``audio/`` beside the
journal (``~/.local/share/dictate/journal/audio/<session>.flac`` on Linux), written as it is
captured: :class:`TappedSource` hands every block the microphone captures to a
:class:`SessionRecorder` (on the microphone's capture thread, never waiting for recognition),
which writes it through libsndfile (``soundfile``) and flushes the file to disk twice a second
(:data:`FLUSH_SECONDS`), so a crash loses at most that half second and the FLAC encoder's last
block (4,096 samples, 0.26 s): what was said is on disk within about 0.8 s. Nothing is held in
memory beyond the encoder's block: an hour of dictation is about 80 MB on disk and nothing in
RAM.

A file cut off by a crash has no length in its header (libsndfile reports 2**63 - 1 frames) and
soundfile's own ``read`` fails at its end; :func:`read_span` reads any file, finished or not, up
to where its data ends.

The folder is this user's only (0700) and each file too (0600), like the journal: it holds what
the user said. :class:`AudioStore` keeps the folder within a size (the oldest sessions are
deleted first, never the one being recorded) and clears it. Which sentence was said when is in
:mod:`dictate.editing.audio_links`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE
from dictate.fileio import PRIVATE_FILE, UnreadableFile, fsync_dir, open_regular, private_dir

log = logging.getLogger("dictate.editing.session_audio")

FLUSH_SECONDS = 0.5
"""Seconds of audio written between two flushes to disk (what a crash may cost, at most, beside
the encoder's last block). Measured through a microphone with 4 and 6 busy processes beside the
window, a kill found at most 0.3 s said but not on disk (docs/recovery.md)."""
SUFFIX = ".flac"
UNKNOWN_LENGTH = 2**63 - 1
"""What libsndfile says a FLAC file's length is when its header was never finished (a crash)."""


def audio_folder(journal: Path) -> Path:
    """Where the sessions' audio is kept: ``audio/`` beside the journal ``journal``."""
    return journal.parent / "audio"


def new_session_name(now: float | None = None) -> str:
    """A session's name: its start time and a random part (two runs in one second differ);
    names sort by time."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    return f"{stamp}-{secrets.token_hex(3)}"


class SessionRecorder:
    """Writes one session's audio to ``<folder>/<session>.flac`` as it comes.

    :meth:`write` runs on the microphone's capture thread (or the pipeline's audio thread),
    :meth:`close` on any thread; a failure to write (a full disk) is logged and ends the
    recording, never the dictation (:attr:`error` says why).
    """

    def __init__(self, folder: Path, session: str, flush_seconds: float = FLUSH_SECONDS) -> None:
        import soundfile

        self.session = session
        self.path = folder / f"{session}{SUFFIX}"
        self.flush_samples = max(1, round(flush_seconds * SAMPLE_RATE))
        self.samples = 0
        """Samples written so far."""
        self.error: Exception | None = None
        self._unflushed = 0
        self._lock = threading.Lock()
        private_dir(folder)
        # Made private before libsndfile opens it (it keeps the mode of a file it truncates).
        os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
        fsync_dir(folder)
        self._file: Any = soundfile.SoundFile(
            str(self.path), "w", SAMPLE_RATE, 1, "PCM_16", format="FLAC"
        )
        self._inode = os.stat(self.path).st_ino

    @property
    def seconds(self) -> float:
        return self.samples / SAMPLE_RATE

    @property
    def open(self) -> bool:
        return self._file is not None

    def write(self, samples: np.ndarray) -> None:
        """Append 16 kHz mono int16 ``samples``; flushed to disk every :data:`FLUSH_SECONDS`."""
        with self._lock:
            if self._file is None or not len(samples):
                return
            try:
                self._file.write(np.asarray(samples, dtype=np.int16))
                self.samples += len(samples)
                self._unflushed += len(samples)
                if self._unflushed >= self.flush_samples:
                    self._flush()
            except Exception as exc:  # a full disk, a removed folder: the dictation goes on
                self._fail(exc)

    def _flush(self) -> None:
        self._file.flush()  # libsndfile's sf_write_sync: the encoded frames, then fsync
        self._unflushed = 0
        # Writing on to a file whose folder was removed succeeds, into a file no one will
        # find: the audio would be lost in silence.
        try:
            replaced = os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:
            replaced = True
        if replaced:
            raise OSError(f"{self.path} was removed (or its folder) while it was written")

    def _fail(self, exc: Exception) -> None:
        log.warning("the session's audio %s could not be written: %s", self.path, exc)
        self.error = exc
        with contextlib.suppress(Exception):
            self._file.close()
        self._file = None

    def close(self) -> None:
        """Finish the file (its header then says its length); idempotent."""
        with self._lock:
            if self._file is None:
                return
            try:
                self._file.close()
            except Exception as exc:
                self._fail(exc)
            self._file = None


class TappedSource:
    """An audio source whose every block is also written to ``recorder``: the pipeline reads
    it as it reads ``source`` (same blocks, same times), so a word's time in the recogniser's
    results is its time in the session's file.

    A microphone writes the blocks itself, on its capture thread, as they are captured
    (:meth:`~dictate.audio.capture.MicrophoneSource.keep`): the file never waits for a
    recogniser that has fallen behind, so after a crash it holds all but the last second said.
    Another source's blocks are written as the pipeline reads them.

    While ``muted()`` is true (the window plays kept audio back through the speakers, which the
    microphone would hear and the recogniser write down again), the blocks are silence, in the
    file too."""

    def __init__(
        self, source: Any, recorder: SessionRecorder, muted: Callable[[], bool] | None = None
    ) -> None:
        self.source = source
        self.recorder = recorder
        self.name = source.name
        self.muted = muted
        self._muted_here = 0
        self.at_capture = hasattr(source, "keep")
        """Whether the blocks are written as captured (else as the pipeline reads them)."""
        if self.at_capture:
            source.keep(recorder, muted)

    def __getattr__(self, name: str) -> Any:
        # The source's own state (its backlog, clock, start time) reads through.
        if name == "source":
            raise AttributeError(name)
        return getattr(self.source, name)

    @property
    def muted_blocks(self) -> int:
        """Blocks replaced by silence so far."""
        if self.at_capture:
            return int(getattr(self.source, "muted_blocks", 0))
        return self._muted_here

    @property
    def dropped_blocks(self) -> int:
        return int(getattr(self.source, "dropped_blocks", 0))

    def blocks(self) -> Iterator[Any]:
        if self.at_capture:
            yield from self.source.blocks()
            return
        for block in self.source.blocks():
            if self.muted is not None and self.muted():
                block = replace(block, samples=np.zeros_like(block.samples))
                self._muted_here += 1
            self.recorder.write(block.samples)
            yield block

    def stop(self) -> None:
        self.source.stop()


def _read_frames(handle: Any, count: int) -> np.ndarray:
    """Up to ``count`` frames from an open soundfile, as int16, also at the end of a file whose
    header was never finished (soundfile's ``read`` seeks past its end there, and fails)."""
    from soundfile import _ffi, _snd  # libsndfile itself: sf_readf_short does not seek

    out = np.zeros(count, dtype=np.int16)
    got = _snd.sf_readf_short(handle._file, _ffi.cast("short *", out.ctypes.data), count)
    return out[: max(0, int(got))]


def read_span(path: Path, start: float = 0.0, end: float | None = None) -> np.ndarray:
    """The samples of ``path`` from ``start`` to ``end`` seconds (None: to where its data ends),
    16 kHz mono int16; fewer where the file is shorter (a crash cut it).

    Raises:
        OSError: The file is missing or cannot be read, or is not a regular file of its own (a
            named pipe would hang the read for ever; a symbolic link would offer another
            recording as the words said).
    """
    import soundfile

    try:
        raw = open_regular(path, follow=False)
    except UnreadableFile as exc:
        raise OSError(str(exc)) from None
    try:
        with raw, soundfile.SoundFile(raw) as handle:
            first = max(0, round(start * handle.samplerate))
            want = None if end is None else max(0, round(end * handle.samplerate) - first)
            if first:
                handle.seek(first)
            parts, got = [], 0
            while want is None or got < want:
                step = SAMPLE_RATE * 10 if want is None else min(SAMPLE_RATE * 10, want - got)
                part = _read_frames(handle, step)
                if not len(part):
                    break
                parts.append(part)
                got += len(part)
    except soundfile.LibsndfileError as exc:
        raise OSError(f"cannot read {path}: {exc}") from None
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)


def duration(path: Path) -> float:
    """Seconds of audio in ``path``, counted to where its data ends if its header has no length.

    Raises:
        OSError: The file is missing or cannot be read.
    """
    import soundfile

    try:
        frames = soundfile.info(str(path)).frames
    except Exception as exc:
        raise OSError(f"cannot read {path}: {exc}") from None
    if frames < UNKNOWN_LENGTH:
        return float(frames) / SAMPLE_RATE
    return len(read_span(path)) / SAMPLE_RATE


@dataclass(frozen=True)
class StoredSession:
    session: str
    path: Path
    size: int


class AudioStore:
    """The sessions' audio in ``folder``: listing, the size limit, deleting.

    Args:
        folder: The audio folder (:func:`audio_folder` of the journal).
        max_bytes: The most the folder's FLAC files may take; the oldest sessions go first.
    """

    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes

    def path(self, session: str) -> Path:
        return self.folder / f"{session}{SUFFIX}"

    def sessions(self) -> list[StoredSession]:
        """The sessions kept, oldest first (their names sort by time)."""
        found = []
        with contextlib.suppress(OSError):
            for path in self.folder.iterdir():
                if path.suffix == SUFFIX and path.is_file():
                    with contextlib.suppress(OSError):
                        found.append(StoredSession(path.stem, path, path.stat().st_size))
        return sorted(found, key=lambda s: s.session)

    def total_bytes(self) -> int:
        return sum(s.size for s in self.sessions())

    def start(self, flush_seconds: float = FLUSH_SECONDS) -> SessionRecorder:
        """A new session's recorder (the folder made private first).

        Raises:
            OSError: The folder or the file cannot be made.
        """
        return SessionRecorder(self.folder, new_session_name(), flush_seconds)

    def enforce_limit(self, keep: str | None = None) -> list[str]:
        """Delete the oldest sessions until the rest fit in :attr:`max_bytes` (never ``keep``,
        the one being recorded); the names deleted."""
        sessions = self.sessions()
        total = sum(s.size for s in sessions)
        deleted = []
        for stored in sessions:
            if total <= self.max_bytes:
                break
            if stored.session == keep:
                continue
            try:
                stored.path.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("could not delete the session's audio %s: %s", stored.path, exc)
                continue
            total -= stored.size
            deleted.append(stored.session)
        return deleted

    def delete(self, sessions: list[str]) -> None:
        for session in sessions:
            with contextlib.suppress(FileNotFoundError):
                self.path(session).unlink()

    def clear(self, keep: str | None = None) -> list[str]:
        """Delete every session's audio but ``keep``; the names deleted."""
        names = [s.session for s in self.sessions() if s.session != keep]
        self.delete(names)
        return names
