"""The bridge between the plain-Python pipeline and the window.

Loading a recogniser (Vosk takes seconds) and the punctuation model happens on a worker thread,
never on the GUI thread; the pipeline's callbacks arrive on its worker threads and are re-emitted
as a Qt signal, which Qt queues to the GUI thread.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any

from PySide6.QtCore import QObject, Signal

from dictate.config import Settings
from dictate.errors import AudioDeviceError, DictateError, close_quietly
from dictate.events import Event, Finished
from dictate.run.pipeline import Pipeline
from dictate.ui.loaded_models import HOT_SETTINGS, build_for, load_models, pipeline_key, switch_for
from dictate.ui.loaded_models import run_options as run_options
from dictate.ui.run_states import State, Trigger, next_state

log = logging.getLogger("dictate.ui")

#: Settings a run takes when it starts and keeps to its end.
RUN_SETTINGS = (
    "input_device", "engine", "first_pass_model", "second_pass", "silence_ms", "max_segment_s",
    "commit_after_ms", "mode",
    "min_right_words", "written_forms", "voice_commands", "replacements", "target",
    "typing_backend", "clipboard_fallback",
)  # fmt: skip


class DictationController(QObject):
    """Starts and stops dictation runs; everything slow happens off the GUI thread.

    The dictation state (:class:`State`) has one owner: this object, on the GUI thread. Worker
    threads (loading, the pipeline's threads) only emit signals, which Qt queues to the GUI
    thread in the order they were emitted; the slots there change the state. Each run works
    on a snapshot of the settings taken when it starts.
    """

    pipelineEvent = Signal(object)
    """A pipeline event (see :mod:`dictate.run.pipeline`)."""
    loaded = Signal(object)
    """:class:`Loaded`, once engine and punctuator are ready."""
    failed = Signal(object)
    """Starting failed: the exception (a :class:`DictateError` for what the user can fix: no
    microphone (:class:`AudioDeviceError`), a missing or broken model (:class:`ModelError`)...)."""
    stateChanged = Signal(object)
    """The run's new :class:`~dictate.ui.run_states.State`."""
    micOpened = Signal()
    """The microphone is open and its audio kept, while the models may still be loading."""
    switched = Signal(object)
    """A live run switched to another recogniser or Whisper model (:class:`Loaded`)."""
    switchFailed = Signal(str)
    """A live run cannot switch to the recogniser or model chosen during it (why, as a
    clause); it goes on with its own."""
    _runStarted = Signal()
    _startFailed = Signal(object)

    def __init__(self, settings: Settings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.state = State.IDLE
        self.pipelineEvent.connect(self._on_pipeline_event)  # first: before the window's slots
        self._runStarted.connect(self._on_run_started)
        self._startFailed.connect(self._on_start_failed)
        self._pipeline: Pipeline | None = None
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._stop_early = False
        self.run_settings: Settings | None = None
        """The snapshot the current (or last) run started with."""
        self._rescan = False
        """The last run ended in an error: PortAudio lists the devices afresh before the next
        (the device may have come back, or the sound server restarted)."""
        self._build_when_idle = False  # settings changed during a run: built at its end
        self._run: Any = None
        """What the current (or last) run runs: the pipeline, or a file's parallel run."""
        self.tap_source: Any = None
        """Called with each run's source on the starting thread, returns the source to read
        (the window's kept audio wraps it: dictate/ui/audio_keeper.py); None: as it is."""

    def move(self, trigger: Trigger) -> bool:
        """``trigger`` happened to the run (the run's own workers report them; a test may
        too): take the :data:`~dictate.ui.run_states.TRANSITIONS` move for it; False where
        there is none."""
        assert threading.current_thread() is threading.main_thread(), "GUI thread only"
        state = next_state(self.state, trigger)
        if state is None:
            log.debug("%s ignored while %s", trigger, self.state)
            return False
        if state != self.state:
            self._set_state(state)
        return True

    def _set_state(self, state: State) -> None:
        self.state = state
        self.stateChanged.emit(state)
        if state == State.IDLE and self._build_when_idle:
            self._build_when_idle = False
            self.preload()

    def start(self, source_factory: Any = None, run_factory: Any = None) -> None:
        """Start dictation from the chosen microphone (or ``source_factory()``, for files).

        ``run_factory(engine, model, segmenter_options, text_options, commit_after, on_event)``,
        for a file, may return a run to use instead of the pipeline (the parallel decode,
        :class:`~dictate.run.file_decode.ParallelRun`: ``start``, ``stop``, ``wait``, ``running``,
        its events to ``on_event``), or None for the pipeline."""
        if not self.move(Trigger.START):
            return
        self._stop_early = False
        snapshot = self.run_settings = dataclasses.replace(self.settings)
        threading.Thread(
            target=self._start,
            args=(source_factory, snapshot, run_factory),
            name="dictate-start",
            daemon=True,
        ).start()

    def preload(self) -> None:
        """Load recogniser, punctuator and pipeline in the background now, so that pressing
        the dictation key later starts at once (loading holds Python's lock for a while)."""
        threading.Thread(target=self._preload, name="dictate-preload", daemon=True).start()

    def preload_now(self) -> None:
        """Load everything on this thread (benchmarks and tests)."""
        with self._lock:
            self._ready_pipeline(self.settings)

    def _preload(self) -> None:
        snapshot = dataclasses.replace(self.settings)
        try:
            with self._lock:
                self._ready_pipeline(snapshot)
        except Exception as exc:  # reported again, with a way out, when dictation starts
            log.info("preloading failed: %s", exc)

    def _ready_pipeline(self, s: Settings) -> Pipeline:
        """The pipeline for settings ``s`` and the vocabulary's files now, reused across runs; a
        change of either builds a new one around the loaded models (no process restarted)."""
        from dictate.writing.vocabulary import load_vocabulary

        vocabulary = load_vocabulary()
        key = pipeline_key(s, vocabulary)
        if self._pipeline is not None and self._cache.get("key") == key:
            return self._pipeline
        load_models(self._cache, s)
        built, loaded = build_for(self._cache, s, vocabulary, self._on_event)
        old = self._pipeline
        self._pipeline = built.pipeline
        # The old pipeline's second decode of commands may hold a child process (the window's
        # sphinx): ended now, not when the app quits (one more per settings change).
        if old is not None:
            old.close()
        self._cache["key"], self._cache["off"] = key, built.punctuation_off
        self.loaded.emit(loaded)
        return self._pipeline

    def _switch_run(self) -> None:
        """On a worker thread, during a run: load the recogniser or Whisper model the settings
        name now beside the run, and hand them to it; it takes them between two segments
        (:meth:`~dictate.run.pipeline.Pipeline.switch_to`), keeping its pending words. Another
        language (punctuation on or off) waits for the next run."""
        from dictate.writing.vocabulary import load_vocabulary

        with self._lock:
            running, run = self._pipeline, self.run_settings
            if running is None or self._run is not running or run is None:
                return
            changed = {name: getattr(self.settings, name) for name in HOT_SETTINGS
                       if getattr(run, name) != getattr(self.settings, name)}  # fmt: skip
            target = dataclasses.replace(run, **changed)
            try:
                vocabulary = load_vocabulary()
                key = pipeline_key(target, vocabulary)
                if not changed or self._cache.get("key") == key:
                    return
                load_models(self._cache, target)
                switch, off, loaded = switch_for(
                    self._cache, target, vocabulary, self._on_event, running.engine
                )
            except Exception as exc:  # the run goes on as it was; reported again at the next
                log.info("loading the changed recogniser during the run failed: %s", exc)
                self.switchFailed.emit(f"it could not be loaded ({exc})")
                return
            if off != self._cache.get("off"):  # another language: the next run's pipeline
                for part in (switch.recognizer, *switch.refiners):
                    close_quietly(part, log, "a part not switched to")
                self.switchFailed.emit("it hears another language, so it starts with the next "
                                       "run (press F9 twice to restart now)")  # fmt: skip
                return

            def switched() -> None:
                self.run_settings = dataclasses.replace(self.run_settings or target, **changed)
                self.loaded.emit(loaded)
                self.switched.emit(loaded)

            switch.done = switched
            running.switch_to(switch)
            self._cache["key"] = key

    def second_pass(self) -> Any:
        """The second pass loaded for the current run's settings (None: none or not yet)."""
        return self._cache.get("second")

    def _microphone(self, s: Settings) -> Any:
        """The chosen microphone; PortAudio re-lists the devices first after a failed run, and
        whenever the device cannot be found (no stream is open at this point)."""
        from dictate.audio.capture import MicrophoneSource
        from dictate.audio.devices import refresh_devices

        if self._rescan:
            refresh_devices()
        try:
            return MicrophoneSource(s.input_device)
        except AudioDeviceError as exc:
            log.info("no microphone (%s); asking PortAudio for the devices again", exc)
            refresh_devices()
            return MicrophoneSource(s.input_device)

    def _start(self, source_factory: Any, settings: Settings, run_factory: Any = None) -> None:
        """On a worker thread: load, open the source, start; the outcome goes to the GUI thread
        as signals."""
        source = None
        try:
            if source_factory is None and run_factory is None:
                # The microphone first, before waiting for a load that may be under way (the
                # app preloads at start): what is said meanwhile is kept (and written to the
                # kept audio) and recognised once the models are ready.
                source = self._microphone(settings)
                if self.tap_source is not None:
                    source = self.tap_source(source)
                source.start()
                self.micOpened.emit()
            with self._lock:
                pipeline = self._ready_pipeline(settings)
                run = None
                if run_factory is not None:
                    engine, model = self._cache["engine"], self._cache["model"]
                    run = run_factory(engine, model, *run_options(settings), self._on_event)
                if run is not None:
                    self._run = run
                    run.start()
                    self._runStarted.emit()
                    return
                self._run = pipeline
                if source is None:
                    source = source_factory() if source_factory else self._microphone(settings)
                    if self.tap_source is not None:
                        source = self.tap_source(source)
                pipeline.start(source)
                # After start, so that a Stop pressed meanwhile finds the pipeline running. A
                # short run may finish first: its Finished reaches the GUI thread before this
                # signal, sets the state idle, and _on_run_started then leaves it so.
                self._runStarted.emit()
        except Exception as exc:
            if not isinstance(exc, (DictateError, ValueError)):
                log.exception("starting dictation failed")  # a bug: keep its traceback
            if source is not None and hasattr(source, "close"):
                source.close()  # the microphone opened before the load that failed
            self._startFailed.emit(exc)

    def _on_run_started(self) -> None:
        if not self.move(Trigger.READY):
            return
        if self._stop_early:  # Stop was pressed while it was still starting
            self.stop()

    def _on_start_failed(self, exc: BaseException) -> None:
        self.move(Trigger.FAILED)
        self.failed.emit(exc)

    def _on_pipeline_event(self, event: Event) -> None:
        if isinstance(event, Finished):
            self._rescan = event.reason == "error"
            self.move(Trigger.FINISHED)

    def _on_event(self, event: Event) -> None:
        """The pipeline's callback, on its threads: a signal (queued to the GUI thread)."""
        self.pipelineEvent.emit(event)

    @property
    def pipeline(self) -> Pipeline | None:
        return self._pipeline  # the pipeline loaded for the runs (None until one is built)

    def behind(self) -> float:
        """Seconds said in the current run not settled yet (0: idle, or no live source)."""
        run = self._run
        if self.state not in (State.LISTENING, State.STOPPING) or not hasattr(run, "behind"):
            return 0.0
        return float(run.behind())

    def wall_time(self, audio_time: float) -> float | None:
        """When (``time.monotonic()``) the current run's audio at ``audio_time`` was said;
        None where it was not said live."""
        run = self._run
        return run.wall_time(audio_time) if hasattr(run, "wall_time") else None

    def lost_blocks(self) -> int:
        """Audio blocks of the current run that could not be stored anywhere (lost)."""
        run = self._run
        return int(run.lost_blocks()) if hasattr(run, "lost_blocks") else 0

    def stop(self) -> None:
        """Stop listening; the rest of the run (draining, flushing) arrives as events."""
        if self.state == State.STARTING:
            self._stop_early = True
            self.move(Trigger.STOP)
            return
        run = self._run
        if self.state == State.LISTENING and run is not None and run.running:
            self.move(Trigger.STOP)
            run.stop()

    def leave(self) -> None:
        """Stop now, leaving what recognition has not reached (the window is closing far
        behind; the audio is kept): :meth:`~dictate.run.pipeline.Pipeline.leave`. A run that
        cannot leave its rest (a file's) is stopped as :meth:`stop` does."""
        run = self._run
        if self.state == State.LISTENING or not hasattr(run, "leave"):
            self.stop()
        if self.state == State.STOPPING and hasattr(run, "leave"):
            run.leave()

    def release(self, timeout: float = 5.0) -> None:
        """Free the loaded pipeline and engine (the window is closing): the recogniser's and
        the command decoder's child processes end now. Where a load still holds the lock after
        ``timeout`` seconds, they are left to end with the app."""
        if not self._lock.acquire(timeout=max(timeout, 0.0)):
            return
        try:
            pipeline, self._pipeline = self._pipeline, None
            engine = self._cache.get("engine")
            self._cache.clear()
        finally:
            self._lock.release()
        close_quietly(pipeline, log, "the pipeline")
        close_quietly(engine, log, "the recogniser's engine")

    def wait(self, timeout: float) -> bool:
        """Block at most ``timeout`` seconds until the current run has finished (closing the
        window); False if it has not. While a start is still loading (its thread holds the
        lock for seconds) this returns after ``timeout`` too, so the caller's event loop runs."""
        if not self._lock.acquire(timeout=max(timeout, 0.0)):
            return False
        try:
            run = self._run
        finally:
            self._lock.release()
        return run is None or run.wait(timeout)

    def waiting_settings(self) -> bool:
        """Whether a run is on and some setting it uses has changed since it started (the
        change applies from the next run; a recogniser or Whisper model is switched to during
        a live run instead: :meth:`switching`)."""
        run = self.run_settings
        waits = [n for n in RUN_SETTINGS if n not in HOT_SETTINGS or not self._live_pipeline()]
        return (
            self.state != State.IDLE
            and run is not None
            and any(getattr(run, name) != getattr(self.settings, name) for name in waits)
        )

    def switching(self) -> bool:
        """Whether a live run will switch to another recogniser or Whisper model when it is
        loaded (:meth:`_switch_run`)."""
        run = self.run_settings
        return (
            self._live_pipeline()
            and run is not None
            and any(getattr(run, n) != getattr(self.settings, n) for n in HOT_SETTINGS)
        )

    def _live_pipeline(self) -> bool:
        return (
            self.state == State.LISTENING
            and self._run is not None
            and (self._run is self._pipeline)
        )

    def forget_engine(self) -> None:
        """Settings changed, or were confirmed (Settings > OK): the pipeline is built for them
        in the background, now if idle, else when the run ends; what did not change is kept
        (:meth:`_ready_pipeline` compares the settings: docs/performance.md)."""
        self.move(Trigger.SETTINGS)
        self._build_when_idle = True
        if self.state == State.IDLE:
            self._build_when_idle = False
            self.preload()
        elif self.switching():
            threading.Thread(target=self._switch_run, name="dictate-switch", daemon=True).start()
