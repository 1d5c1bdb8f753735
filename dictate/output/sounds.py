"""Feedback sounds: a short tone when dictation starts and stops and when text went out.

Someone dictating into another application need not look at the screen: a rising two-note chime
says the microphone is listening, a falling one that dictation stopped, and a short high tick
that words were typed into the other application. The sounds are synthesised here with numpy
(no sound files) and played on the default output device through PortAudio (sounddevice), on a
thread of their own: :meth:`FeedbackSounds.play` only queues the sound's name, so the GUI
thread never waits for the sound server. Nothing can fail loudly: a missing PortAudio, no output
device or a sound server that went away is logged once and the sound is skipped.

The tones are pure (a fundamental and two soft harmonics with a bell-like decay), which Silero
VAD does not take for speech, so a sound the microphone hears back does not open a segment.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections import deque
from typing import Any

import numpy as np

log = logging.getLogger("dictate.output")

SOUNDS = ("start", "stop", "committed")
"""The sounds there are: dictation started (rising), stopped (falling), text typed (a tick)."""

RATE = 48000
"""The rate the sounds are made at when the output device does not say its own."""
PEAK = 0.3
"""Every sound's peak amplitude (about -10 dBFS): clearly heard, never startling."""
TAIL_SECONDS = 0.03
"""Silence at the end of each sound."""
LATENCY = 0.1
"""The output stream's latency (s). With PortAudio's ALSA host and the sound server behind it,
a shorter one (its default "high" is 35 ms) now and then underran at the start and played the
sound more than a second late."""
LEAD_SECONDS = 0.05
"""Silence written before a sound: the first tens of milliseconds of a new stream can be lost
(seen with PortAudio's ALSA host in front of PulseAudio), and the tick is only 45 ms long."""
FLUSH_SECONDS = 0.1
"""Silence written after a sound beyond the stream's latency: stopping a stream drops what is
still in its buffers (ALSA), and the sound must have left them by then."""

C5, G5, E6, A6 = 523.25, 783.99, 1318.51, 1760.0

# (frequency Hz, start s, length s, decay time constant s) of each note.
_NOTES: dict[str, list[tuple[float, float, float, float]]] = {
    "start": [(C5, 0.0, 0.11, 0.05), (G5, 0.08, 0.16, 0.07)],
    "stop": [(G5, 0.0, 0.11, 0.05), (C5, 0.08, 0.16, 0.07)],
    "committed": [(A6, 0.0, 0.045, 0.012), (E6, 0.0, 0.045, 0.008)],
}
_LEVELS = {"start": 1.0, "stop": 1.0, "committed": 0.7}
"""Each sound's peak relative to :data:`PEAK` (the tick comes often: it is quieter)."""

ATTACK_SECONDS = 0.004
"""A note's rise time: a note that starts at full amplitude clicks."""
RELEASE_SECONDS = 0.012
"""A note's final fade to exactly zero: one cut short clicks too."""


def note(frequency: float, seconds: float, decay: float, rate: int = RATE) -> np.ndarray:
    """One bell-like note: a sine with two soft harmonics, a short rise, an exponential decay
    with time constant ``decay`` and a fade to zero at the end; peak 1 (float32)."""
    t = np.arange(round(seconds * rate)) / rate
    phase = 2 * np.pi * frequency * t
    wave = np.sin(phase) + 0.25 * np.sin(2 * phase) + 0.06 * np.sin(3 * phase)
    envelope = np.exp(-t / decay) * np.minimum(1.0, t / ATTACK_SECONDS)
    release = min(len(t), max(1, round(RELEASE_SECONDS * rate)))
    envelope[len(t) - release :] *= np.linspace(1.0, 0.0, release)
    out = wave * envelope
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    return (out / peak if peak > 0 else out).astype(np.float32)


def synthesize(name: str, rate: int = RATE) -> np.ndarray:
    """The sound ``name`` (one of :data:`SOUNDS`) as mono float32 samples at ``rate``, with
    :data:`TAIL_SECONDS` of silence at the end.

    Raises:
        ValueError: No such sound.
    """
    if name not in _NOTES:
        raise ValueError(f"no feedback sound {name!r}; there are {', '.join(SOUNDS)}")
    notes = _NOTES[name]
    length = max(start + seconds for _, start, seconds, _ in notes) + TAIL_SECONDS
    out = np.zeros(round(length * rate), dtype=np.float64)
    for frequency, start, seconds, decay in notes:
        samples = note(frequency, seconds, decay, rate)
        begin = round(start * rate)
        out[begin : begin + len(samples)] += samples
    out *= PEAK * _LEVELS[name] / float(np.max(np.abs(out)))
    return out.astype(np.float32)


class FeedbackSounds:
    """Plays :data:`SOUNDS` one after another on a thread of its own; never blocks, never raises.

    A sound asked for while the same one is still waiting to be played is played once. A
    failure to play (no PortAudio, no output device, a PortAudio error) is logged once, as a
    warning, until a sound plays again; the sound is skipped.

    Args:
        device: The output device (PortAudio index or name); None for the system's default.
    """

    def __init__(self, device: int | str | None = None) -> None:
        self.device = device
        self.played: list[str] = []
        """The names of the sounds that were played, in order (the last 100)."""
        self.failures = 0
        """How many sounds could not be played."""
        self._waiting: deque[str] = deque()
        self._busy = False  # the thread is playing a sound
        self._closed = False
        self._warned = False
        self._cache: dict[tuple[str, int], np.ndarray] = {}
        self._condition = threading.Condition()
        self._thread: threading.Thread | None = None
        self._at_exit = False  # close() is registered to run at exit

    def play(self, name: str) -> None:
        """Queue the sound ``name`` and return at once (a no-op after :meth:`close`).

        Raises:
            ValueError: No such sound (a bug in the caller, not a failure to play).
        """
        if name not in SOUNDS:
            raise ValueError(f"no feedback sound {name!r}; there are {', '.join(SOUNDS)}")
        with self._condition:
            if self._closed or name in self._waiting:
                return
            self._waiting.append(name)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="dictate-sounds", daemon=True
                )
                self._thread.start()
            self._condition.notify_all()

    def wait(self, timeout: float = 5.0) -> bool:
        """Wait until every queued sound has been played (or failed); False on timeout."""
        with self._condition:
            return self._condition.wait_for(lambda: not self._waiting and not self._busy, timeout)

    def close(self, timeout: float = 1.0) -> None:
        """Play nothing more; wait up to ``timeout`` s for a sound that is playing to end."""
        with self._condition:
            self._closed = True
            self._waiting.clear()
            self._condition.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._condition:
                self._condition.wait_for(lambda: self._waiting or self._closed)
                if self._closed:
                    self._condition.notify_all()
                    return
                name = self._waiting.popleft()
                self._busy = True
            try:
                self._play_now(name)
            except Exception as exc:  # no output device, PortAudio missing or failing...
                self.failures += 1
                if not self._warned:
                    self._warned = True
                    log.warning("feedback sound %r not played: %s", name, exc)
                else:
                    log.debug("feedback sound %r not played: %s", name, exc)
            else:
                self._warned = False
                self.played = [*self.played[-99:], name]
            finally:
                with self._condition:
                    self._busy = False
                    self._condition.notify_all()

    def _samples(self, name: str, rate: int) -> np.ndarray:
        key = (name, rate)
        if key not in self._cache:
            self._cache[key] = synthesize(name, rate)
        return self._cache[key]

    def _play_now(self, name: str) -> None:
        """Play ``name`` to its end on this thread (the sounds' own)."""
        from dictate.audio.devices import sounddevice_module, stream_closed, stream_opened

        sd = sounddevice_module()
        if not self._at_exit:
            # Registered after sounddevice's own exit handler, which shuts PortAudio down, so
            # it runs before it (last registered, first run): a sound still playing ends first.
            self._at_exit = True
            atexit.register(self.close, 1.0)
        info: Any = sd.query_devices(self.device, kind="output")
        rate = int(info["default_samplerate"]) or RATE
        samples = self._samples(name, rate)
        options = {"device": self.device, "samplerate": rate, "dtype": "float32"}
        try:
            stream = sd.OutputStream(channels=1, latency=LATENCY, **options)
        except sd.PortAudioError:  # a device that takes no mono: the same on both channels
            stream = sd.OutputStream(channels=2, latency=LATENCY, **options)
        lead = np.zeros(round(LEAD_SECONDS * rate), dtype=np.float32)
        flush = np.zeros(round((stream.latency + FLUSH_SECONDS) * rate), dtype=np.float32)
        samples = np.concatenate([lead, samples, flush])
        if stream.channels == 2:
            samples = np.repeat(samples[:, None], 2, axis=1)
        # Registered as open, so that a device rescan (refresh_devices) does not shut PortAudio
        # down under it.
        stream_opened(stream, "feedback sounds")
        try:
            stream.start()
            stream.write(samples)  # returns when the sound has been played (and some silence)
            stream.stop()
        finally:
            stream.close()
            stream_closed(stream)
