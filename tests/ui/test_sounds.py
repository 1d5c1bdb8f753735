"""Feedback sounds (dictate/output/sounds.py): the tones, playing them off the GUI thread without
ever raising, through a real private PulseAudio server into its sink, and the window playing
them only when the settings say so."""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from recorder import Recorder

from dictate.errors import PortAudioMissing
from dictate.events import Finalized, Finished, Level
from dictate.output import sounds
from dictate.output.sounds import PEAK, SOUNDS, FeedbackSounds, synthesize
from dictate.output.typist import Typist
from dictate.ui.run_states import State


def dominant(samples: np.ndarray, rate: int) -> float:
    """The strongest frequency in ``samples`` (Hz)."""
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples)), n=1 << 16))
    return float(np.argmax(spectrum) * rate / (1 << 16))


# -- the tones --------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [48000, 44100, 16000])
def test_every_sound_is_short_moderate_and_without_clicks(rate: int) -> None:
    for name in SOUNDS:
        samples = synthesize(name, rate)
        assert samples.dtype == np.float32 and samples.ndim == 1, name
        assert np.all(np.isfinite(samples)), name
        seconds = len(samples) / rate
        assert seconds < (0.1 if name == "committed" else 0.35), (name, seconds)
        peak = float(np.max(np.abs(samples)))
        assert 0.15 <= peak <= PEAK + 1e-6, (name, peak)  # heard, never startling
        # It starts from silence and ends in it: a step at either end is a click (the rise
        # takes ATTACK_SECONDS, 4 ms).
        edge = round(0.001 * rate)
        assert samples[0] == 0.0 and np.max(np.abs(samples[:edge])) < 0.3 * peak, name
        assert np.max(np.abs(samples[-edge:])) == 0.0, name
        # No sudden jump anywhere (a discontinuity): the largest step of a 1.8 kHz sine at the
        # peak is well under a third of it at these rates.
        assert np.max(np.abs(np.diff(samples))) < 0.25 * peak + 2 * np.pi * 1760 / rate * peak


def test_start_rises_stop_falls_and_the_tick_is_high_and_short() -> None:
    rate = 48000
    start, stop, tick = (synthesize(name, rate) for name in ("start", "stop", "committed"))
    first, last = slice(0, round(0.07 * rate)), slice(round(0.12 * rate), round(0.22 * rate))
    assert dominant(start[first], rate) == pytest.approx(523.25, abs=5)
    assert dominant(start[last], rate) == pytest.approx(783.99, abs=5)
    assert dominant(stop[first], rate) == pytest.approx(783.99, abs=5)
    assert dominant(stop[last], rate) == pytest.approx(523.25, abs=5)
    assert dominant(tick, rate) > 1200
    loud = np.nonzero(np.abs(tick) > 0.1 * np.max(np.abs(tick)))[0]
    assert (loud[-1] - loud[0]) / rate < 0.05
    # The tick comes often: quieter than the start and stop chimes.
    assert np.max(np.abs(tick)) < np.max(np.abs(start))


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_the_sounds_are_not_speech_to_the_vad() -> None:
    """The microphone may hear the sounds back: they must not open a segment."""
    from dictate.asr.segmenter import CHUNK_SAMPLES, Segmenter, SileroVad

    for name in SOUNDS:
        for gain in (1.0, 3.0):  # as played, and much louder (a microphone next to a speaker)
            silence = np.zeros(8000, dtype=np.float32)
            audio = np.concatenate([silence, synthesize(name, 16000) * gain, silence])
            pcm = (np.clip(audio, -1, 1) * 32767).astype(np.int16)
            vad = SileroVad()
            chunks = range(0, len(pcm) - CHUNK_SAMPLES + 1, CHUNK_SAMPLES)
            probability = max(vad(pcm[i : i + CHUNK_SAMPLES]) for i in chunks)
            assert probability < 0.3, (name, gain, probability)
            segmenter = Segmenter()
            assert segmenter.process(pcm) + segmenter.flush() == [], (name, gain)


def test_an_unknown_sound_is_a_bug() -> None:
    with pytest.raises(ValueError, match="no feedback sound 'beep'"):
        synthesize("beep")
    with pytest.raises(ValueError, match="no feedback sound"):
        FeedbackSounds().play("beep")


# -- playing, with a stand-in for sounddevice ----------------------------------------------------


class FakePortAudioError(Exception):
    pass


class FakeStream:
    def __init__(self, sd: FakeSounddevice, **kwargs: Any) -> None:
        if sd.open_error:
            raise FakePortAudioError(sd.open_error)
        self.sd = sd
        self.channels = kwargs["channels"]
        self.latency = kwargs["latency"]
        self.closed = False

    def start(self) -> None:
        pass

    def write(self, samples: np.ndarray) -> None:
        self.sd.started.set()
        if self.sd.write_error:
            raise FakePortAudioError(self.sd.write_error)
        time.sleep(self.sd.seconds)
        # A test holds the "device" here to see who waits for it (a minute at most: a play()
        # that waited would then find the sound written, and fail, not hang).
        self.sd.playing.wait(60)
        self.sd.written.append(samples)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True
        self.sd.closed += 1


class FakeSounddevice:
    """sounddevice as far as FeedbackSounds uses it."""

    PortAudioError = FakePortAudioError

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.written: list[np.ndarray] = []
        self.started = threading.Event()
        self.playing = threading.Event()
        """Cleared: a write blocks until it is set (the sound is still playing)."""
        self.playing.set()
        self.closed = 0
        self.query_error = ""
        self.open_error = ""
        self.write_error = ""

    def query_devices(self, device: Any, kind: str) -> dict[str, Any]:
        assert kind == "output"
        if self.query_error:
            raise FakePortAudioError(self.query_error)
        return {"name": "default", "default_samplerate": 44100.0}

    def OutputStream(self, **kwargs: Any) -> FakeStream:  # sounddevice's name
        return FakeStream(self, **kwargs)


@pytest.fixture
def fake_sd(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSounddevice]:
    sd = FakeSounddevice()
    monkeypatch.setattr("dictate.audio.devices.sounddevice_module", lambda: sd)
    yield sd


def test_play_returns_at_once_and_plays_on_another_thread(fake_sd: FakeSounddevice) -> None:
    fake_sd.playing.clear()  # the sound plays until the test lets it end
    player = FeedbackSounds()
    player.play("start")  # returns while the sound is still playing: the GUI never waits
    assert fake_sd.started.wait(5)
    assert fake_sd.written == []  # still playing, on another thread
    fake_sd.playing.set()
    assert player.wait(5) and player.played == ["start"]
    written = fake_sd.written[0]
    # At the device's own rate, with silence before it and enough after it to leave the
    # stream's buffers before the stream stops.
    sound = synthesize("start", 44100)
    lead = round(sounds.LEAD_SECONDS * 44100)
    np.testing.assert_array_equal(written[lead : lead + len(sound)], sound)
    assert not written[:lead].any() and not written[lead + len(sound) :].any()
    tail = len(written) - lead - len(sound)
    assert tail >= round((sounds.LATENCY + sounds.FLUSH_SECONDS) * 44100)
    assert fake_sd.closed == 1
    player.close()


def test_sounds_play_in_order_and_one_already_waiting_is_not_queued_again(
    fake_sd: FakeSounddevice,
) -> None:
    fake_sd.seconds = 0.2
    player = FeedbackSounds()
    player.play("start")
    assert fake_sd.started.wait(5)  # playing: what comes now waits
    for _ in range(4):
        player.play("committed")  # words typed in quick succession: one tick
    player.play("stop")
    player.play("committed")  # still waiting: not again
    assert player.wait(10)
    assert player.played == ["start", "committed", "stop"]
    player.close()
    player.play("start")  # after close: nothing, and no error
    assert player.wait(1) and player.played == ["start", "committed", "stop"]


def test_no_portaudio_is_logged_once_and_never_raises(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def missing() -> Any:
        raise PortAudioMissing("no microphone support: libportaudio.so.2: not found")

    monkeypatch.setattr("dictate.audio.devices.sounddevice_module", missing)
    player = FeedbackSounds()
    with caplog.at_level(logging.DEBUG, "dictate.output"):
        for name in ("start", "committed", "stop"):
            player.play(name)
            assert player.wait(5)
    assert player.failures == 3 and player.played == []
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "libportaudio" in warnings[0].getMessage()
    player.close()


@pytest.mark.parametrize("where", ["query", "open", "write"])
def test_no_output_device_or_a_portaudio_error_never_raises(
    fake_sd: FakeSounddevice, where: str, caplog: pytest.LogCaptureFixture
) -> None:
    message = "Error querying device -1" if where == "query" else "Device unavailable [-9985]"
    setattr(fake_sd, f"{where}_error", message)
    player = FeedbackSounds()
    with caplog.at_level(logging.WARNING, "dictate.output"):
        player.play("start")
        player.play("stop")
        assert player.wait(5)
    assert player.failures == 2 and player.played == []
    assert [r.getMessage() for r in caplog.records] == [
        f"feedback sound 'start' not played: {message}"
    ]
    # A stream that was opened is closed and no longer counts as open (a device rescan may
    # shut PortAudio down again). Only this player's streams are looked at: a microphone whose
    # sound server vanished in another test of this process may still be open.
    from dictate.audio.devices import _open_streams

    assert fake_sd.closed == (2 if where == "write" else 0)
    assert "feedback sounds" not in _open_streams.values()
    # It works again: a later failure is told again.
    setattr(fake_sd, f"{where}_error", "")
    player.play("committed")
    assert player.wait(5) and player.played == ["committed"]
    setattr(fake_sd, f"{where}_error", message)
    with caplog.at_level(logging.WARNING, "dictate.output"):
        player.play("stop")
        assert player.wait(5)
    assert len(caplog.records) == 2
    player.close()


def test_a_real_portaudio_without_an_output_device_never_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """sounddevice itself, asked for a device that is not there (as with no sound card)."""
    try:
        import sounddevice  # noqa: F401
    except OSError:
        pytest.skip("no PortAudio")
    player = FeedbackSounds(device="no such output device")
    player.play("start")
    assert player.wait(10)
    assert player.failures == 1 and player.played == []
    player.close()


# -- a real sound server ----------------------------------------------------------------------


@pytest.mark.slow
def test_the_start_sound_reaches_the_sound_server(pulse_server: Any) -> None:
    """Played on the default output (PortAudio's ALSA "default", which goes to the private
    PulseAudio server's null sink) and recorded from that sink's monitor."""
    from pulse import SINK

    recorder = subprocess.Popen(
        ["parec", f"--device={SINK}.monitor", "--format=s16le", "--rate=48000", "--channels=1",
         "--latency-msec=20"],
        env=pulse_server.env(),
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert recorder.stdout is not None
    stdout = recorder.stdout
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: stdout.read(960), b"")))
    reader.start()
    try:
        time.sleep(0.3)  # recording
        player = FeedbackSounds()
        player.play("start")
        assert player.wait(15), "the sound did not finish"
        assert player.failures == 0 and player.played == ["start"]
        time.sleep(0.3)
    finally:
        recorder.terminate()
        reader.join(10)
        recorder.wait(10)
    recorded = np.frombuffer(b"".join(chunks), dtype=np.int16).astype(np.float32) / 32768
    peak = float(np.max(np.abs(recorded)))
    assert peak == pytest.approx(PEAK, rel=0.1), peak  # the whole sound, at its level
    loud = np.nonzero(np.abs(recorded) > 0.05)[0]
    heard = recorded[loud[0] : loud[-1] + 1]
    # Both notes, whole: rising from C5 to G5.
    assert 0.15 < len(heard) / 48000 < 0.3, len(heard) / 48000
    assert dominant(heard[: round(0.06 * 48000)], 48000) == pytest.approx(523.25, abs=5)
    assert dominant(heard[-round(0.08 * 48000) :], 48000) == pytest.approx(783.99, abs=5)
    player.close()


# -- the window ---------------------------------------------------------------------------------


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sounds the window asks for (none reaches a device)."""
    asked: list[str] = []
    monkeypatch.setattr(FeedbackSounds, "play", lambda self, name: asked.append(name))
    return asked


def run_with_sounds(window: Any, qtbot: Any) -> Recorder:
    """Start (listening, then audio), type a committed sentence, stop."""
    backend = Recorder()
    window.typing.start_run(Typist(backend))
    events = window.controller.pipelineEvent
    window.controller.stateChanged.emit(State.LISTENING)
    events.emit(Level(0.1, -30.0))
    events.emit(Level(0.2, -20.0))
    events.emit(Finalized(0.3, 1, ["Hello there"], pending="", committed=True))
    qtbot.waitUntil(lambda: backend.text == "Hello there")
    qtbot.wait(50)  # the typing thread's report reaches this thread
    events.emit(Finished(0.4, "stopped", 1.0, 0))
    return backend


def test_the_window_plays_nothing_when_sounds_are_off(
    window: Any, qtbot: Any, played: list[str]
) -> None:
    assert window.settings.feedback_sounds is False  # the default
    run_with_sounds(window, qtbot)
    assert played == [] and window.feedback.sounds is None  # sounddevice not even touched


def test_the_window_plays_start_committed_and_stop(
    window: Any, qtbot: Any, played: list[str]
) -> None:
    window.settings.feedback_sounds = True
    run_with_sounds(window, qtbot)
    # "start" once the microphone delivers (the first level), once; "stop" at Finished.
    assert played == ["start", "committed", "stop"]
    # A start that fails never started: no sound.
    played.clear()
    window.controller.stateChanged.emit(State.STARTING)
    window.controller.stateChanged.emit(State.IDLE)
    window.events.dispatch(Level(0.1, -30.0))
    assert played == []


def test_a_stop_without_a_level_still_sounds(window: Any, played: list[str]) -> None:
    """The microphone delivered nothing (it failed at once): the start was never heard, but
    someone not looking must still learn that dictation is over."""
    window.settings.feedback_sounds = True
    window.controller.stateChanged.emit(State.LISTENING)
    window.controller.pipelineEvent.emit(Finished(0.4, "error", 0.0, 0))
    assert played == ["stop"]


def test_the_window_really_plays_them_with_no_device(
    window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No stand-in for play: PortAudio failing costs nothing but a log line."""
    sd = SimpleNamespace(
        PortAudioError=FakePortAudioError,
        query_devices=lambda device, kind: (_ for _ in ()).throw(FakePortAudioError("no device")),
    )
    monkeypatch.setattr("dictate.audio.devices.sounddevice_module", lambda: sd)
    window.settings.feedback_sounds = True
    run_with_sounds(window, qtbot)
    assert window.feedback.sounds.wait(5)
    assert window.feedback.sounds.failures == 3 and window.feedback.sounds.played == []
