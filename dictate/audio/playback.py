"""Playing recorded speech back: 16 kHz mono samples on an output device, on a thread of its own.

:meth:`Player.play` returns at once; the samples are resampled (soxr) to the device's own rate
and written to a PortAudio output stream (sounddevice) a tenth of a second at a time, so
:meth:`Player.stop` (or a new :meth:`Player.play`) ends them within that. A failure (no
PortAudio, no output device) never raises: it is handed to ``on_done`` as words.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE

log = logging.getLogger("dictate.audio.playback")

CHUNK_SECONDS = 0.1
"""Seconds written to the stream at a time: how soon a stop is heard."""
LATENCY = 0.1
"""The stream's latency; silence this long (and a little more) ends the sound, so the stream's
buffers have played it out before the stream stops."""


class Player:
    """One sound at a time on ``device`` (None: the system's default output)."""

    def __init__(self, device: int | str | None = None) -> None:
        self.device = device
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def playing(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def play(self, samples: np.ndarray, on_done: Callable[[str], None] | None = None) -> None:
        """Play 16 kHz mono int16 ``samples`` (what was playing stops first); ``on_done`` is
        called on the player's thread when they end: with "" (played or stopped), or what
        failed."""
        with self._lock:
            self.stop()
            self._stop = stop = threading.Event()
            self._thread = threading.Thread(
                target=self._run,
                args=(samples, stop, on_done),
                name="dictate-playback",
                daemon=True,
            )
            self._thread.start()

    def stop(self, timeout: float = 1.0) -> None:
        """Stop what is playing (waits up to ``timeout`` s for the stream to close)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(
        self, samples: np.ndarray, stop: threading.Event, on_done: Callable[[str], None] | None
    ) -> None:
        error = ""
        try:
            self._play_now(samples, stop)
        except Exception as exc:  # no PortAudio, no output device, the server went away
            log.warning("playing the audio back failed: %s", exc)
            error = str(exc) or type(exc).__name__
        if on_done is not None:
            try:
                on_done(error)
            except Exception:
                log.exception("after playback")

    def _play_now(self, samples: np.ndarray, stop: threading.Event) -> None:
        from dictate.audio.devices import sounddevice_module, stream_closed, stream_opened

        sd = sounddevice_module()
        info: Any = sd.query_devices(self.device, kind="output")
        rate = int(info["default_samplerate"]) or SAMPLE_RATE
        sound = np.asarray(samples, dtype=np.float32) / 32768.0
        if rate != SAMPLE_RATE and len(sound):
            import soxr

            sound = soxr.resample(sound, SAMPLE_RATE, rate).astype(np.float32)
        options = {"device": self.device, "samplerate": rate, "dtype": "float32"}
        try:
            stream = sd.OutputStream(channels=1, latency=LATENCY, **options)
        except sd.PortAudioError:  # a device that takes no mono: the same on both channels
            stream = sd.OutputStream(channels=2, latency=LATENCY, **options)
        tail = np.zeros(round((LATENCY + 0.1) * rate), dtype=np.float32)
        sound = np.concatenate([sound, tail])
        chunk = max(1, round(CHUNK_SECONDS * rate))
        stream_opened(stream, "playback")
        try:
            stream.start()
            for at in range(0, len(sound), chunk):
                if stop.is_set():
                    break
                part = sound[at : at + chunk]
                stream.write(np.repeat(part[:, None], 2, axis=1) if stream.channels == 2 else part)
            stream.stop()
        finally:
            stream.close()
            stream_closed(stream)
