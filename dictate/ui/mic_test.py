"""A microphone's level without dictating: the first-start guide's "Test the microphone"
(:mod:`dictate.ui.first_start`). The device is opened as dictation opens it
(:class:`~dictate.audio.capture.MicrophoneSource`) for :data:`TEST_S` seconds on a thread of
its own; nothing it hears is recognised or kept."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)

TEST_S = 5.0
"""Seconds the microphone stays open for a test."""
EVERY_S = 0.1
"""Seconds between two levels said (the loudest block of each stretch)."""


class MicrophoneTest(QObject):
    """Opens a microphone for a few seconds and says its level (:attr:`level`, dBFS, on the
    GUI thread through the signal), then :attr:`ended` with "" or what went wrong."""

    level = Signal(float)
    ended = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source: Any = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, device: str | int | None) -> bool:
        """Open ``device`` (None: the system default) and measure; False if a test runs."""
        if self.running:
            return False
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._run, args=(device,), name="dictate-mic-test", daemon=True
        )
        self._thread.start()
        return True

    def stop(self, wait: float = 0.0) -> None:
        """End the test now (dictation starts: the microphone is the run's); ``wait``: seconds
        to wait for the device to be closed (the window closes)."""
        self._stopping.set()
        source = self._source
        if source is not None:
            source.stop()
        thread = self._thread
        if wait and thread is not None:
            thread.join(wait)

    def _run(self, device: str | int | None) -> None:
        from dictate.audio.capture import MicrophoneSource
        from dictate.audio.resample import level_dbfs

        try:
            self._source = source = MicrophoneSource(device)
            log.info("microphone test: %s", source.name)
            if self._stopping.is_set():  # stopped while it was being opened
                source.stop()
            began = time.monotonic()
            said_at, loudest = began, -100.0
            for block in source.blocks():
                loudest = max(loudest, level_dbfs(block.samples))
                now = time.monotonic()
                if now - said_at >= EVERY_S:
                    self.level.emit(loudest)
                    said_at, loudest = now, -100.0
                if now - began >= TEST_S or self._stopping.is_set():
                    source.stop()
        except Exception as exc:  # no PortAudio, no such device, it failed: said, never raised
            log.warning("microphone test failed: %s", exc)
            self._say_ended(f"the microphone could not be opened: {exc}")
            return
        finally:
            self._source = None
        self._say_ended("")

    def _say_ended(self, failure: str) -> None:
        with contextlib.suppress(RuntimeError):  # the window is gone: no one to tell
            self.ended.emit(failure)
