"""``dictate bench latency``: how long after the end of each spoken sentence its words are shown,
punctuated, final in the window and typed into another application, with commit on pause.

A recording is played through the app's own path at real-time speed: a real
:class:`~dictate.ui.main_window.MainWindow` (offscreen) whose controller loads the recogniser,
the punctuation model and Silero VAD exactly as for a microphone, the pipeline's callbacks
turned into the controller's Qt signal and applied on the GUI thread by
:meth:`MainWindow.handle_event`. Each event is time-stamped when the pipeline emits it (on its
worker thread) and when the window has applied it.

**Clock.** The file is read with ``FileSource(realtime=True)`` in blocks of ``block_ms``, and
each block is handed to the pipeline when its *last* sample is due (``t0 + block.end``), as a
microphone delivers a block once it has been captured. (``FileSource`` alone yields a block at
its *start* time, one block early: every figure would look one block better than a microphone
allows.) So source time ``t`` has been spoken by wall time ``t0 + t``, and the end of a
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

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.errors import DictateError, InputError

SENTENCES = [
    "please call me tomorrow morning about the meeting",
    "the weather is nice today so we will walk to the park",
    "i finished the report and sent it to the client",
    "thank you very much for your help last week",
    "we need to buy milk bread and eggs before dinner",
    "the train leaves at nine and arrives in the afternoon",
    "can you send me the latest version of the document",
    "my sister is visiting us next month with her children",
]
"""What the generated recording says, one sentence each (the first ``sentences`` of them)."""

LEAD_S = 1.0
"""Silence before the first sentence of a generated recording."""
PARTIAL_TARGET_MS = 150.0
"""Partial words shown at most this long after the recogniser reported them."""
FINAL_MARGIN_MS = 200.0
"""Final text shown at most ``commit_after_ms`` + this (95th percentile)."""
MEASURES = ("segment_closed", "partial", "pending", "final", "typed_first", "typed")
NOT_MEASURED_NO_DISPLAY = "not measured (no display)"


# -- the recording -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    path: Path
    seconds: float
    sentences: list[dict[str, Any]] = field(default_factory=list)
    """Generated only: each sentence's text and where its audio starts and ends (seconds)."""


def _speak(text: str, folder: Path, number: int) -> Any:
    """``text`` spoken by espeak-ng, as 16 kHz mono int16 (sox converts), trimmed of its own
    leading and trailing silence."""
    import numpy as np

    raw, converted = folder / f"s{number}-raw.wav", folder / f"s{number}.wav"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(raw), text],
        check=True,
        capture_output=True,
        timeout=60,
    )
    subprocess.run(
        ["sox", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(converted)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with wave.open(str(converted)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud):
        raise DictateError(f"espeak-ng produced no audible speech for {text!r}")
    return samples[loud[0] : loud[-1] + 1]


def make_recording(folder: Path, count: int, gap_s: float) -> Recording:
    """``count`` sentences spoken by espeak-ng, each followed by ``gap_s`` of silence, as a
    16 kHz mono WAV in ``folder``.

    Raises:
        DictateError: espeak-ng or sox is not installed.
    """
    import numpy as np

    for program in ("espeak-ng", "sox"):
        if shutil.which(program) is None:
            raise DictateError(
                f"{program} is not installed: it makes the test recording "
                "(e.g. sudo apt install espeak-ng sox), or pass a recording with --audio FILE"
            )
    rate = 16_000
    parts = [np.zeros(round(LEAD_S * rate), np.int16)]
    position = len(parts[0])
    spans = []
    for number, text in enumerate(SENTENCES[:count]):
        speech = _speak(text, folder, number)
        spans.append(
            {
                "text": text,
                "start": round(position / rate, 3),
                "end": round((position + len(speech)) / rate, 3),
            }
        )
        parts += [speech, np.zeros(round(gap_s * rate), np.int16)]
        position += len(speech) + len(parts[-1])
    path = folder / "sentences.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.concatenate(parts).astype("<i2").tobytes())
    return Recording(path, round(position / rate, 3), spans)


# -- the clock -----------------------------------------------------------------------------------


class MicrophonePaced:
    """A :class:`~dictate.audio.capture.FileSource` (``realtime=True``) whose blocks are handed
    on when their last sample is due, as a microphone's are; ``t0`` is when it started."""

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


# -- the receiving application ------------------------------------------------------------------

RECEIVER = r"""
import json, sys, time
from PySide6.QtWidgets import QApplication, QPlainTextEdit

app = QApplication(sys.argv[:1])
edit = QPlainTextEdit()
edit.setWindowTitle("dictate-bench-receiver")
edit.resize(700, 300)
edit.move(40, 40)
edit.textChanged.connect(
    lambda: print(f"{time.monotonic():.6f}\t{json.dumps(edit.toPlainText())}", flush=True)
)
edit.show()
edit.raise_()
edit.activateWindow()
print(f"ready\t{int(edit.winId())}", flush=True)
app.exec()
"""


class Receiver:
    """A Qt text window in its own process on the X display, given the keyboard focus; it
    reports (monotonic time, whole text) after every change. CLOCK_MONOTONIC is the same
    clock in every process of the machine."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if k != "WAYLAND_DISPLAY"}
        env.update(QT_QPA_PLATFORM="xcb")
        self.changes: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-c", RECEIVER],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().strip().split("\t")
        if first[0] != "ready":
            self.close()
            raise DictateError("the receiving window did not start on the X display")
        self.window = int(first[1])
        self._reader = threading.Thread(target=self._read, name="bench-receiver", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            stamp, _, text = line.rstrip("\n").partition("\t")
            self.changes.append((float(stamp), json.loads(text)))

    def focus(self) -> None:
        """Give it the keyboard focus (where there is no window manager, nothing else does).

        Raises:
            DictateError: It could not be focused (then typing would go elsewhere).
        """
        if shutil.which("xdotool") is None:
            time.sleep(0.5)  # activateWindow() with a window manager
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            subprocess.run(
                ["xdotool", "windowfocus", "--sync", str(self.window)],
                capture_output=True,
                timeout=10,
            )
            focused = subprocess.run(
                ["xdotool", "getwindowfocus"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            if focused == str(self.window):
                return
            time.sleep(0.1)
        raise DictateError("could not give the receiving window the keyboard focus")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


# -- one run through the window ------------------------------------------------------------------


@dataclass
class Stamped:
    """An event, when the pipeline emitted it and when the window had applied it."""

    event: Any
    emitted: float
    applied: float


@dataclass
class Run:
    target: str
    t0: float
    records: list[Stamped]
    lateness: list[float]
    engine: str
    provider: str
    text: str
    received: list[tuple[float, str]] = field(default_factory=list)
    typing_backend: str = ""


def _run_window(
    audio: Path,
    engine: str | None,
    model: str | None,
    commit_after_ms: int,
    block_ms: int,
    target: str,
    receiver: Receiver | None = None,
) -> Run:
    """One run of ``audio`` into a real window (``target`` "window", or "apps": typed)."""
    from PySide6.QtCore import QEventLoop, QObject, QTimer, Slot

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
            vosk_model=model,
            first_run_done=True,
            commit_after_ms=commit_after_ms,
            target=target,
        )
        window = MainWindow(settings, Journal(Path(tmp) / "j.jsonl"), False)
        window.load_text("", None)
        window.show()
        try:
            controller = window.controller
            labels: dict[str, str] = {}
            controller.loaded.connect(
                lambda loaded: labels.update(engine=loaded.engine_label, provider=loaded.provider)
            )
            controller.preload_now()  # loading is startup's cost, not dictation's
            pipeline = controller._pipeline  # the pipeline the window dictates with
            assert pipeline is not None
            emitted: dict[int, tuple[Any, float]] = {}
            deliver = pipeline.on_event

            def stamp(event: Any) -> None:  # on the pipeline's threads, as it emits
                emitted[id(event)] = (event, time.monotonic())
                deliver(event)

            pipeline.on_event = stamp
            records: list[Stamped] = []
            loop = QEventLoop()

            class Apply(QObject):
                """The window's slot, then the time stamp (queued to the GUI thread by Qt)."""

                @Slot(object)
                def apply(self, event: Any) -> None:
                    window.handle_event(event)
                    now = time.monotonic()
                    records.append(Stamped(event, emitted.get(id(event), (event, now))[1], now))
                    if isinstance(event, Finished):
                        loop.quit()

            applier = Apply()
            controller.pipelineEvent.disconnect(window.handle_event)
            controller.pipelineEvent.connect(applier.apply)
            source = MicrophonePaced(FileSource(audio, block_ms=block_ms, realtime=True))
            failures: list[BaseException] = []

            def failed(exc: BaseException) -> None:
                failures.append(exc)
                loop.quit()

            controller.failed.connect(failed)
            QTimer.singleShot(0, lambda: window.start_dictation(lambda: source))
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
                typist = window._typing_closed  # the run's typing queue, closed at Finished
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
            window.modified = False
            window.close()  # a run still going is stopped and flushed first
            window.deleteLater()


def _typed_run(
    audio: Path, engine: str | None, model: str | None, commit_after_ms: int, block_ms: int
) -> Run:
    """A run with the target "apps": typed into a receiving window given the focus."""
    receiver = Receiver()
    try:
        receiver.focus()
        return _run_window(audio, engine, model, commit_after_ms, block_ms, "apps", receiver)
    finally:
        receiver.close()


def _seconds(audio: Path) -> float:
    from dictate.audio.audiofile import read_audio_info

    info = read_audio_info(audio)
    return info.frames / info.sample_rate


# -- the analysis --------------------------------------------------------------------------------


def _norm(text: str) -> str:
    """Text as typed, compared without spaces and case (the typist fits both to the text
    before it)."""
    return "".join(text.split()).lower()


def _joined(records: list[Stamped]) -> str:
    """The text of the :class:`Finalized` events among ``records`` (a mark appended to words
    committed open goes right after them)."""
    from dictate.events import Finalized

    text = ""
    for r in records:
        if isinstance(r.event, Finalized):
            for sentence in r.event.sentences:
                joins = not text or (sentence[:1] in ".,;:!?" and r.event.continues)
                text += sentence if joins else " " + sentence
    return text


def sentences_of(run: Run, commit_after: float) -> list[dict[str, Any]]:
    """Each sentence of ``run`` (see the module docstring) with its times in milliseconds
    after its end of speech."""
    from dictate.events import Finalized, Finished, Live, Partial, Pending, Segment

    records = run.records
    segments = [
        (i, r.event)
        for i, r in enumerate(records)
        if isinstance(r.event, Segment) and r.event.words
    ]
    stretches: list[list[tuple[int, Any]]] = []
    for index, segment in segments:
        if stretches and segment.start - stretches[-1][-1][1].end <= commit_after:
            stretches[-1].append((index, segment))
        else:
            stretches.append([(index, segment)])
    finished = next(i for i, r in enumerate(records) if isinstance(r.event, Finished))
    results = []
    for number, stretch in enumerate(stretches):
        last_index, last = stretch[-1]
        ids = {s.segment for _, s in stretch}
        ends_at = stretches[number + 1][0][0] if number + 1 < len(stretches) else finished
        end = run.t0 + last.end

        def ms(wall: float, end: float = end) -> float:
            return round(1000 * (wall - end), 1)

        partials = [r for r in records if isinstance(r.event, Partial) and r.event.segment in ids]
        last_partial = partials[-1] if partials else None
        last_words = last_partial.event.words if last_partial else None
        covering = next(
            (
                r
                for r in records
                if (isinstance(r.event, Pending) and r.event.segment >= last.segment)
                or (
                    # The live punctuation of the last partial words (partial words can come
                    # back to an earlier result: only a Live made after it counts).
                    isinstance(r.event, Live)
                    and r.event.segment == last.segment
                    and last_partial is not None
                    and r.event.words == last_words
                    and r.emitted >= last_partial.emitted
                )
            ),
            None,
        )
        # What completes it: the commit after its pause; else (not committed) the last text
        # finalized before the next sentence, which may be the end of the run's flush. A mark a
        # commit left open gets later (with the next words, or at the end) is not waited for.
        finals = [
            i
            for i in range(last_index, ends_at)
            if isinstance(records[i].event, Finalized) and records[i].event.sentences
        ]
        final_index = next((i for i in finals if records[i].event.committed), None)
        if final_index is None and finals:
            final_index = finals[-1]
        final = records[final_index] if final_index is not None else None
        row: dict[str, Any] = {
            "sentence": number + 1,
            "speech_end_s": round(last.end, 3),
            "segments": len(stretch),
            "words": " ".join(w.text for _, s in stretch for w in s.words),
            "segment_closed_ms": ms(records[last_index].emitted),
            "partial_ms": ms(last_partial.applied) if last_partial else None,
            "pending_ms": ms(covering.applied) if covering else None,
            "pending_by": type(covering.event).__name__.lower() if covering else None,
            "final_ms": ms(final.applied) if final else None,
            "final_emitted_ms": ms(final.emitted) if final else None,
            "committed": bool(final and final.event.committed),
            "text": _joined(records[stretch[0][0] : ends_at]),
        }
        if run.target == "apps" and final_index is not None:
            # Typed when the receiver holds everything finalized up to this sentence's end.
            typed = _norm(_joined(records[: final_index + 1]))
            arrived = next(
                (stamp for stamp, text in run.received if _norm(text).startswith(typed)), None
            )
            row["typed_ms"] = ms(arrived) if arrived is not None else None
            began = next(
                (stamp for stamp, _ in run.received if stamp >= records[final_index].emitted), None
            )
            row["typed_first_ms"] = ms(began) if began is not None else None
        results.append(row)
    for before, row in itertools.pairwise(results):
        # A mark decided for words a commit left open, once the next words came, is the
        # previous sentence's.
        mark = row["text"][: len(row["text"]) - len(row["text"].lstrip(".,;:!? "))]
        if mark.strip():
            before["text"] += mark.rstrip()
            row["text"] = row["text"][len(mark) :]
    return results


def partial_to_shown(run: Run) -> list[float]:
    """Milliseconds from the pipeline emitting each partial result to the window having
    applied it."""
    from dictate.events import Partial

    return [
        round(1000 * (r.applied - r.emitted), 1)
        for r in run.records
        if isinstance(r.event, Partial)
    ]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile, interpolated between the nearest ranks (the largest value with one
    sample)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median": None, "p95": None, "max": None}
    return {
        "n": len(values),
        "median": round(statistics.median(values), 1),
        "p95": round(percentile(values, 0.95), 1),
        "max": round(max(values), 1),
    }


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
            run = _run_window(recording.path, engine, model, commit_after_ms, block_ms, "window")
            engine_label, provider = run.engine, run.provider
            run_rows = sentences_of(run, commit_after)
            if not typed_note:
                say(f"run {number + 1}/{runs}: typing into another application")
                try:
                    typed_run = _typed_run(recording.path, engine, model, commit_after_ms, block_ms)
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


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def format_latency(result: dict[str, Any]) -> str:
    """The printed report."""
    lines = [
        f"audio: {result['audio']} ({result['audio_seconds']} s"
        + (
            f", {len(result['spoken'])} sentences, {result['gap_ms']} ms silence after each)"
            if result["spoken"]
            else ")"
        ),
        f"engine: {result['engine']}; punctuation on {result['punctuation_provider']}; "
        f"commit after {result['commit_after_ms']} ms",
        f"clock: {result['clock']}",
        f"block lateness (the pipeline's audio thread behind real time): median "
        f"{_cell(result['block_lateness_ms']['median'])} ms, max "
        f"{_cell(result['block_lateness_ms']['max'])} ms",
        "",
        "per sentence, ms after its end of speech (segment closed / partial shown / punctuated "
        "pending shown / final in window / typed):",
    ]
    for r in result["sentences"]:
        lines.append(
            f"  run {r['run']} #{r['sentence']}: {_cell(r['segment_closed_ms'])} / "
            f"{_cell(r['partial_ms'])} / {_cell(r['pending_ms'])} ({r['pending_by'] or '-'}) / "
            f"{_cell(r['final_ms'])} / {_cell(r.get('typed_ms'))}"
            f"{'' if r['committed'] else '  NOT COMMITTED (final only at the end of the run)'}"
            f"  {r['text']!r}"
        )
    s, t = result["summary"], result["targets"]
    names = [
        ("segment_closed_ms", "segment closed (recogniser's final words)", ""),
        ("partial_ms", "last partial words shown", ""),
        (
            "partial_to_shown_ms",
            "partial: recogniser -> shown in window",
            f"<= {t['partial_to_shown_ms']:g}",
        ),
        ("pending_ms", "punctuated pending words shown", ""),
        ("final_ms", "final text in the window", f"p95 <= {t['final_ms_p95']:g}"),
        ("typed_first_ms", "its first character typed into another app", ""),
        ("typed_ms", "final text typed into another app", f"p95 <= {t['final_ms_p95']:g}"),
    ]
    lines += ["", f"{'':44} {'median':>8} {'p95':>8} {'max':>8} {'n':>4}  target"]
    for key, name, target in names:
        v = s[key]
        if key == "typed_first_ms" and result["typed"] != "measured":
            continue
        if key == "typed_ms" and result["typed"] != "measured":
            lines.append(f"{name:44} {result['typed']}")
            continue
        lines.append(
            f"{name:44} {_cell(v['median']):>8} {_cell(v['p95']):>8} {_cell(v['max']):>8} "
            f"{v['n']:>4}  {target}"
        )
    verdict = result["verdict"]

    def word(ok: bool | None) -> str:
        return "not measured" if ok is None else "met" if ok else "MISSED"

    lines += [
        "",
        f"targets: partial words shown <= {t['partial_to_shown_ms']:g} ms after the recogniser "
        f"reports them: {word(verdict['partial_to_shown'])} (p95); final text <= "
        f"{t['final_ms_p95']:g} ms (commit after + {FINAL_MARGIN_MS:g}) at p95: in the window "
        f"{word(verdict['final'])}, typed {word(verdict['typed'])}",
        f"every sentence committed by its pause: {'yes' if verdict['all_committed'] else 'NO'}",
        "p95: interpolated between the nearest ranks (with a handful of sentences it is close "
        "to the largest); times are taken after the window's handle_event returned (offscreen: "
        "no painting) and, typed, when the receiving window's text changed",
    ]
    if result["typing_backend"]:
        lines.append(f"typing backend: {result['typing_backend']}")
    return "\n".join(lines)
