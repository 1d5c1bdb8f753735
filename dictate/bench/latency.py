"""``dictate bench latency``: how long after the end of each spoken sentence its words are shown,
punctuated, final in the window and typed into another application, with commit on pause.

A recording is played through the app's own path at real-time speed: a real
:class:`~dictate.ui.main_window.MainWindow` (offscreen) whose controller loads the recogniser,
the punctuation model and Silero VAD exactly as for a microphone, the pipeline's callbacks
turned into the controller's Qt signal and applied on the GUI thread by
:meth:`MainWindow.handle_event`. Each event is time-stamped when the pipeline emits it (on its
worker thread) and when the window has applied it.

**Clock.** The file is read with ``FileSource`` in blocks of ``block_ms``, and each block is
handed to the pipeline when its *last* sample is due (``t0 + block.end``), as a microphone
delivers a block once it has been captured. (Not ``FileSource(realtime=True)``, whose capture
thread queues the blocks ahead of a busy pipeline: here a block's lateness is the
pipeline's.) So source time ``t`` has been spoken by wall time ``t0 + t``, and the end of a
sentence's speech is ``t0 + Segment.end``, the voice activity detector's end of speech.

A **sentence** is a stretch of speech followed by a silence longer than the commit time: one or
more segments, the next beginning more than ``commit_after`` after the last one ended. For each,
milliseconds from its end of speech to

* ``partial``: its last partial words shown in the window (may be negative: the recogniser
  can have the last word before the detector's end of speech);
* ``pending``: its words shown punctuated (the first :class:`~dictate.events.Live` event with
  its last partial words, or :class:`~dictate.events.Pending` event of its last segment);
* ``final``: the :class:`~dictate.events.Finalized` event that completes it applied to the
  window's document (``committed``: by the pause, not by the end of the run);
* ``typed``: that text arrived in another application's window, typed by the window's own
  typing path (target "apps": a :class:`~dictate.output.typist.TypingQueue` over a
  :class:`~dictate.output.typist.Typist` and :func:`~dictate.output.chooser.choose_backend`), in
  a second run of the same recording; needs an X display.

Also, for every partial result, the time from the pipeline emitting it on the audio thread (the
recogniser reported it) to the window having shown it.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dictate.bench.latency_report import (
    FINAL_MARGIN_MS,
    PARTIAL_TARGET_MS,
    Run,
    Stamped,
    partial_to_shown,
    sentences_of,
    summary,
)
from dictate.bench.receiver import Receiver
from dictate.bench.recording import Recording, make_recording
from dictate.errors import DictateError, InputError

MEASURES = ("segment_closed", "partial", "pending", "final", "typed_first", "typed")
NOT_MEASURED_NO_DISPLAY = "not measured (no display)"


# -- the clock -----------------------------------------------------------------------------------


class MicrophonePaced:
    """A :class:`~dictate.audio.capture.FileSource` whose blocks are handed on when their last
    sample is due, as a microphone's are; ``t0`` is when it started. The pacing is this
    class's alone (not ``realtime=True``, whose capture thread would queue the blocks ahead of
    a busy consumer), so a block's lateness is the pipeline's."""

    dropped_blocks = 0

    def __init__(self, source: Any) -> None:
        self.source = source
        self.name = source.name
        self.t0: float | None = None
        self.lateness: list[float] = []
        """Seconds each block came after it was due (the pipeline's audio thread was busy)."""
        self._stop = threading.Event()

    def blocks(self) -> Iterator[Any]:
        blocks = self.source.blocks()
        self.t0 = t0 = time.monotonic()  # FileSource paces from its first block, read next
        for block in blocks:
            delay = t0 + block.end - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)
            self.lateness.append(max(0.0, time.monotonic() - (t0 + block.end)))
            yield block

    def stop(self) -> None:
        self._stop.set()
        self.source.stop()


# -- one run through the window ------------------------------------------------------------------


def _run_window(
    audio: Path,
    engine: str | None,
    model: str | None,
    commit_after_ms: int,
    block_ms: int,
    target: str,
    receiver: Receiver | None = None,
    second_pass: str = "off",
) -> Run:
    """One run of ``audio`` into a real window (``target`` "window", or "apps": typed)."""
    from PySide6.QtCore import QEventLoop, QTimer

    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.events import Error, Finished
    from dictate.ui.app import application
    from dictate.ui.main_window import MainWindow

    application()
    with tempfile.TemporaryDirectory(prefix="dictate-bench-") as tmp:
        settings = Settings(
            engine=engine,
            first_pass_model=model,
            first_run_done=True,
            commit_after_ms=commit_after_ms,
            target=target,
            second_pass=second_pass,  # off by default: as measured before the second pass
        )
        window = MainWindow(settings, Journal(Path(tmp) / "j.jsonl"), False)
        window.document.load_text("", None)
        window.show()
        try:
            controller = window.controller
            labels: dict[str, str] = {}
            controller.loaded.connect(
                lambda loaded: labels.update(engine=loaded.engine_label, provider=loaded.provider)
            )
            controller.preload_now()  # loading is startup's cost, not dictation's
            pipeline = controller.pipeline  # the pipeline the window dictates with
            assert pipeline is not None
            emitted: dict[int, tuple[Any, float]] = {}
            deliver = pipeline.sink.on_event

            def stamp(event: Any) -> None:  # on the pipeline's threads, as it emits
                emitted[id(event)] = (event, time.monotonic())
                deliver(event)

            pipeline.sink.on_event = stamp
            records: list[Stamped] = []
            loop = QEventLoop()

            def stamp_shown(event: Any) -> None:
                """After every part of the window took the event: the time it is shown."""
                now = time.monotonic()
                records.append(Stamped(event, emitted.get(id(event), (event, now))[1], now))
                if isinstance(event, Finished):
                    loop.quit()

            window.events.subscribe("observer", stamp_shown)
            source = MicrophonePaced(FileSource(audio, block_ms=block_ms))
            failures: list[BaseException] = []

            def failed(exc: BaseException) -> None:
                failures.append(exc)
                loop.quit()

            controller.failed.connect(failed)
            QTimer.singleShot(0, lambda: window.dictation.start(lambda: source))
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(loop.quit)
            guard.start(round(1000 * (60 + 3 * _seconds(audio))))
            loop.exec()
            guard.stop()
            if failures:
                raise DictateError(f"dictation did not start: {failures[0]}")
            errors = [r.event.message for r in records if isinstance(r.event, Error)]
            if errors:
                raise DictateError(f"the pipeline failed: {errors[0]}")
            if not records or not isinstance(records[-1].event, Finished):
                raise DictateError("the run did not finish in time")
            backend = ""
            if target == "apps":
                typist = window.typing.closed_typist  # the run's typing queue, closed at Finished
                if typist is None:
                    raise DictateError("the window had no typing backend (or typing failed)")
                backend = typist.typist.backend.name
                typist.close(wait=True)  # everything queued has been typed
                time.sleep(0.5)  # the receiver's last change reaches its reader
            run = Run(
                target,
                source.t0 or 0.0,
                records,
                source.lateness,
                labels.get("engine", ""),
                labels.get("provider", ""),
                window.editor.text,
                list(receiver.changes) if receiver is not None else [],
                backend,
            )
            return run
        finally:
            window.document.modified = False
            window.close()  # a run still going is stopped and flushed first
            window.deleteLater()


def _typed_run(
    audio: Path,
    engine: str | None,
    model: str | None,
    commit_after_ms: int,
    block_ms: int,
    second_pass: str = "off",
) -> Run:
    """A run with the target "apps": typed into a receiving window given the focus."""
    receiver = Receiver()
    try:
        receiver.focus()
        return _run_window(
            audio, engine, model, commit_after_ms, block_ms, "apps", receiver, second_pass
        )
    finally:
        receiver.close()


def _seconds(audio: Path) -> float:
    from dictate.audio.audiofile import read_audio_info

    info = read_audio_info(audio)
    return info.frames / info.sample_rate


# -- the benchmark -------------------------------------------------------------------------------


def display_available() -> bool:
    """An X display to type into (the receiver is an X window)."""
    return bool(os.environ.get("DISPLAY")) and not os.environ.get("WAYLAND_DISPLAY")


def _typing_problem() -> str:
    """Why the app could not type here ("not measured (...)"), or "" if it can."""
    from dictate.errors import TypingError
    from dictate.output.backends import close_backend
    from dictate.output.chooser import choose_backend

    try:
        close_backend(choose_backend())
    except TypingError as exc:
        return f"not measured ({exc})"
    return ""


def bench_latency(
    audio: Path | None,
    engine: str | None,
    model: str | None,
    commit_after_ms: int,
    *,
    sentences: int = 6,
    gap_ms: int | None = None,
    block_ms: int = 30,
    runs: int = 1,
    typed: bool = True,
    progress: Callable[[str], object] | None = None,
    second_pass: str = "off",
) -> dict[str, Any]:
    """Run the benchmark (see the module docstring); a plain dict of the results."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    say = progress or (lambda _: None)
    commit_after = commit_after_ms / 1000
    gap = (gap_ms / 1000) if gap_ms is not None else max(3.0, commit_after + 2.0)
    if gap_ms is not None and audio is None and gap <= commit_after + 0.6:
        raise InputError(
            f"--gap-ms {gap_ms} leaves no time to commit: it must exceed --commit-after by "
            "more than 600 ms (the segmenter's 500 ms of silence, and some)"
        )
    with tempfile.TemporaryDirectory(prefix="dictate-latency-") as tmp:
        recording = (
            make_recording(Path(tmp), sentences, gap)
            if audio is None
            else Recording(Path(audio), round(_seconds(Path(audio)), 3))
        )
        typed_note = ""
        if not typed:
            typed_note = "not measured (--no-typed)"
        elif not display_available():
            typed_note = NOT_MEASURED_NO_DISPLAY
        else:
            typed_note = _typing_problem()
        rows: list[dict[str, Any]] = []
        partials: list[float] = []
        lateness: list[float] = []
        per_run: list[dict[str, Any]] = []
        engine_label = provider = backend = ""
        for number in range(runs):
            say(f"run {number + 1}/{runs}: dictating into the window ({recording.seconds} s)")
            run = _run_window(
                recording.path, engine, model, commit_after_ms, block_ms, "window", None,
                second_pass,
            )  # fmt: skip
            engine_label, provider = run.engine, run.provider
            run_rows = sentences_of(run, commit_after)
            if not typed_note:
                say(f"run {number + 1}/{runs}: typing into another application")
                try:
                    typed_run = _typed_run(
                        recording.path, engine, model, commit_after_ms, block_ms, second_pass
                    )
                except DictateError as exc:
                    typed_note = f"not measured ({exc})"
                    say(f"typing: {typed_note}")
                else:
                    backend = typed_run.typing_backend
                    lateness += typed_run.lateness
                    typed_rows = sentences_of(typed_run, commit_after)
                    if len(typed_rows) == len(run_rows):
                        for row, typed_row in zip(run_rows, typed_rows, strict=True):
                            for key in ("typed_first_ms", "typed_ms"):
                                row[key] = typed_row.get(key)
                            row["typed_committed"] = typed_row["committed"]
                            row["typed_text"] = typed_row["text"]
                    else:  # the runs heard the recording differently: no pairs to make
                        say(
                            f"note: the typing run heard {len(typed_rows)} sentences, the "
                            f"window run {len(run_rows)}; its times are left out"
                        )
            for row in run_rows:
                row["run"] = number + 1
            rows += run_rows
            run_partials = partial_to_shown(run)
            partials += run_partials
            lateness += run.lateness
            per_run.append(
                {
                    "run": number + 1,
                    "sentences": len(run_rows),
                    "committed": sum(1 for r in run_rows if r["committed"]),
                    **{
                        f"{m}_ms_median": summary(
                            [r[f"{m}_ms"] for r in run_rows if r.get(f"{m}_ms") is not None]
                        )["median"]
                        for m in MEASURES
                    },
                    "partial_to_shown_ms_median": summary(run_partials)["median"],
                    "text": run.text,
                }
            )
    result: dict[str, Any] = {
        "audio": "generated with espeak-ng" if audio is None else str(audio),
        "audio_seconds": recording.seconds,
        "spoken": recording.sentences,
        "engine": engine_label,
        "second_pass": second_pass,
        "punctuation_provider": provider,
        "commit_after_ms": commit_after_ms,
        "block_ms": block_ms,
        "gap_ms": round(1000 * gap) if audio is None else None,
        "clock": (
            f"blocks of {block_ms} ms are handed to the pipeline when their last sample is due "
            "(t0 + block end), as a microphone delivers them; end of speech = t0 + the voice "
            "activity detector's segment end; FileSource alone yields a block at its start "
            f"time, which would flatter every figure by one block ({block_ms} ms)"
        ),
        "runs": per_run,
        "sentences": rows,
        "partial_to_shown_ms": partials,
        "block_lateness_ms": summary([1000 * x for x in lateness]),
        "typing_backend": backend or None,
        "typed": typed_note or "measured",
        "summary": {
            **{
                f"{m}_ms": summary([r[f"{m}_ms"] for r in rows if r.get(f"{m}_ms") is not None])
                for m in MEASURES
            },
            "partial_to_shown_ms": summary(partials),
        },
        "targets": {
            "partial_to_shown_ms": PARTIAL_TARGET_MS,
            "final_ms_p95": commit_after_ms + FINAL_MARGIN_MS,
        },
    }
    s = result["summary"]
    result["verdict"] = {
        "partial_to_shown": None
        if s["partial_to_shown_ms"]["p95"] is None
        else s["partial_to_shown_ms"]["p95"] <= PARTIAL_TARGET_MS,
        "final": None
        if s["final_ms"]["p95"] is None
        else s["final_ms"]["p95"] <= commit_after_ms + FINAL_MARGIN_MS,
        "typed": None
        if s["typed_ms"]["p95"] is None
        else s["typed_ms"]["p95"] <= commit_after_ms + FINAL_MARGIN_MS,
        "all_committed": all(r["committed"] for r in rows) and bool(rows),
    }
    return result
