"""The bridge between the plain-Python pipeline and the window.

Loading a recogniser (Vosk takes seconds) and the punctuation model happens on a worker thread,
never on the GUI thread; the pipeline's callbacks arrive on its worker threads and are re-emitted
as a Qt signal, which Qt queues to the GUI thread.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from dictate.config import Settings
from dictate.errors import AudioDeviceError, DictateError
from dictate.pipeline import Event, Finished, Pipeline

log = logging.getLogger("dictate.ui")


@dataclass(frozen=True)
class Loaded:
    """What was loaded for a run: shown in the status bar."""

    engine_label: str
    provider: str
    punctuation_off: str = ""
    """Why punctuation is off for this speech model ("" when it runs)."""


class DictationController(QObject):
    """Starts and stops dictation runs; everything slow happens off the GUI thread."""

    pipelineEvent = Signal(object)
    """A pipeline event (see :mod:`dictate.pipeline`)."""
    loaded = Signal(object)
    """:class:`Loaded`, once engine and punctuator are ready."""
    failed = Signal(str)
    """Starting failed (no microphone, model missing...): a message for the user."""
    stateChanged = Signal(str)
    """"idle", "starting", "listening" or "stopping"."""

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.state = "idle"
        self._pipeline: Pipeline | None = None
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stop_early = False
        self._rescan = False
        """The last run ended in an error: PortAudio lists the devices afresh before the next
        (the device may have come back, or the sound server restarted)."""

    def _set_state(self, state: str) -> None:
        self.state = state
        self.stateChanged.emit(state)

    def start(self, source_factory: Any = None) -> None:
        """Start dictation from the chosen microphone (or ``source_factory()``, for files)."""
        if self.state != "idle":
            return
        self._stop_early = False
        self._set_state("starting")
        threading.Thread(
            target=self._start, args=(source_factory,), name="dictate-start", daemon=True
        ).start()

    def preload(self) -> None:
        """Load recogniser, punctuator and pipeline in the background now, so that pressing
        the dictation key later starts at once (loading holds Python's lock for a while)."""
        threading.Thread(target=self._preload, name="dictate-preload", daemon=True).start()

    def preload_now(self) -> None:
        """Load everything on this thread (benchmarks and tests)."""
        with self._lock:
            self._ready_pipeline()

    def _preload(self) -> None:
        try:
            with self._lock:
                self._ready_pipeline()
        except Exception as exc:  # reported again, with a way out, when dictation starts
            log.info("preloading failed: %s", exc)

    def _ready_pipeline(self) -> Pipeline:
        """The pipeline for the current settings, built once and reused across runs."""
        from dictate.asr.engine import load_engine
        from dictate.asr.language import punctuation_mismatch, speech_model_language
        from dictate.asr.segmenter import SegmenterOptions
        from dictate.paths import resolve_punctuator_model
        from dictate.punctuation.decoder import StreamingOptions, make_punctuator
        from dictate.punctuation.model import PunctuationModel

        s = self.settings
        key = (s.engine, s.vosk_model, s.mode, s.min_right_words, s.silence_ms, s.max_segment_s)
        if self._pipeline is not None and self._cache.get("key") == key:
            return self._pipeline
        if self._cache.get("engine_key") != (s.engine, s.vosk_model):
            engine: Any = load_engine(s.engine, s.vosk_model)
            if engine.name == "sphinx":
                # PocketSphinx holds the GIL while decoding: keep it out of the GUI's process.
                from dictate.asr.process_engine import ProcessEngine

                engine = ProcessEngine("sphinx")
            self._cache["engine"] = engine
            self._cache["engine_key"] = (s.engine, s.vosk_model)
        if "model" not in self._cache:
            self._cache["model"] = PunctuationModel(resolve_punctuator_model())
        model = self._cache["model"]
        engine = self._cache["engine"]
        off = punctuation_mismatch(
            speech_model_language(engine.name, engine.model_path), model.config.language
        )
        punctuator = (
            None
            if off
            else make_punctuator(model, s.mode, StreamingOptions(min_right_words=s.min_right_words))
        )
        options = SegmenterOptions(silence_ms=s.silence_ms, max_segment_s=s.max_segment_s)
        self._pipeline = Pipeline(self._cache["engine"], punctuator, self._on_event, options)
        self._cache["key"] = key
        self.loaded.emit(Loaded(engine.label, model.provider, off))
        return self._pipeline

    def _microphone(self) -> Any:
        """The chosen microphone; PortAudio re-lists the devices first after a failed run, and
        whenever the device cannot be found (no stream is open at this point)."""
        from dictate.audio.capture import MicrophoneSource
        from dictate.audio.devices import refresh_devices

        if self._rescan:
            refresh_devices()
        try:
            return MicrophoneSource(self.settings.input_device)
        except AudioDeviceError as exc:
            log.info("no microphone (%s); asking PortAudio for the devices again", exc)
            refresh_devices()
            return MicrophoneSource(self.settings.input_device)

    def _start(self, source_factory: Any) -> None:
        try:
            with self._lock:
                pipeline = self._ready_pipeline()
                source = source_factory() if source_factory else self._microphone()
                # Before start: a short run can finish (and set "idle") before start returns.
                self._set_state("listening")
                pipeline.start(source)
        except (DictateError, ValueError) as exc:
            self._set_state("idle")
            self.failed.emit(str(exc))
            return
        except Exception as exc:  # never let a bug kill the app silently
            log.exception("starting dictation failed")
            self._set_state("idle")
            self.failed.emit(f"dictation could not start: {exc!r}")
            return
        if self._stop_early:  # Stop was pressed while it was still starting
            self.stop()

    def _on_event(self, event: Event) -> None:
        self.pipelineEvent.emit(event)
        if isinstance(event, Finished):
            self._rescan = event.reason == "error"
            self._set_state("idle")

    def stop(self) -> None:
        """Stop listening; the rest of the run (draining, flushing) arrives as events."""
        if self.state == "starting":
            self._stop_early = True
            return
        with self._lock:
            pipeline = self._pipeline
        if pipeline is not None and pipeline.running:
            self._set_state("stopping")
            pipeline.stop()

    def wait(self, timeout: float) -> bool:
        """Block until the current run has finished (closing the window)."""
        with self._lock:
            pipeline = self._pipeline
        return pipeline is None or pipeline.wait(timeout)

    def forget_engine(self) -> None:
        """Rebuild next time (a setting changed); the recogniser is reloaded if it changed."""
        self._cache.pop("key", None)
