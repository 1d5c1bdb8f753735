"""``dictate bench gui`` (how long the window's event loop stalls during dictation) and
``dictate bench editor`` (the editor's cost per key press and per pipeline event)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dictate.bench.file_decode import _rss_mb
from dictate.bench.punctuator import peak_rss_mb, percentile


def bench_gui(
    audio: Path,
    engine: str | None,
    model: str | None,
    runs: int,
    second_pass: str | None = None,
    cpu: bool = False,
) -> dict[str, Any]:
    """Dictate ``audio`` at real-time speed into the window (offscreen unless a display is set)
    while a 5 ms timer records the gaps between its ticks; report the longest stalls, and each
    segment's settled words as the window's thread got them, in seconds after its speech ended
    (as the audio was said: the source's start plus the segment's end).
    ``second_pass``: the window's setting for this run (None: "off", as before there was one).
    With ``cpu``, no timer (its ticks cost CPU): the CPU each run used, by thread and in the
    child processes (:class:`dictate.bench.cpu.CpuMeter`), and the start-up's."""
    from dictate.bench.cpu import CpuMeter

    startup = CpuMeter()
    startup.start(from_process_start=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QTimer

    from dictate.asr.registry import OFF
    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.events import Event, Finished, Segment
    from dictate.ui.app import application
    from dictate.ui.main_window import MainWindow

    application()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dictate-bench-") as tmp:
        settings = Settings(
            engine=engine,
            first_pass_model=model,
            second_pass=second_pass or OFF,
            first_run_done=True,
        )
        # One window, dictated into ``runs`` times, as a person starts and stops dictation:
        # its memory is the window's over a session, not a fresh window's each run.
        window = MainWindow(settings, Journal(Path(tmp) / "j.jsonl"), False)
        # The history kept as with any dictation, not in the user's: it holds the words.
        window.history.path = Path(tmp) / "history.jsonl"
        window.document.load_text("", None)
        window.show()
        window.controller.preload_now()  # loading is startup's cost, not dictation's
        loaded_peak = round(peak_rss_mb(), 1)  # the window and its models, before dictation
        started = startup.stop()
        events: list[Event] = []
        finished = [False]
        sources: list[Any] = []
        settled: list[float] = []

        def observe(event: Event) -> None:
            events.append(event)
            finished[0] = finished[0] or isinstance(event, Finished)
            said = sources[-1].origin if sources else None
            if isinstance(event, Segment) and event.words and said is not None:
                settled.append(time.monotonic() - (said + event.end))

        def source() -> Any:  # 30 ms blocks at real-time speed, as the microphone delivers them
            sources.append(FileSource(audio, block_ms=30, realtime=True))
            return sources[-1]

        window.events.subscribe("observer", observe)
        for _ in range(runs):
            events.clear()
            settled.clear()
            finished[0] = False
            before = len(window.editor.text)
            gaps: list[float] = []
            clock = QElapsedTimer()
            clock.start()
            last = [clock.nsecsElapsed()]

            def tick(gaps: list[float] = gaps, last: list[int] = last, clock: Any = clock) -> None:
                now = clock.nsecsElapsed()
                gaps.append((now - last[0]) / 1e6)
                last[0] = now

            timer = QTimer()
            timer.setInterval(5)
            timer.timeout.connect(tick)
            meter = CpuMeter()
            meter.start()
            if not cpu:
                timer.start()
            window.dictation.start(source)
            deadline = time.monotonic() + 600
            # The window's own event loop until the run has finished (until 2026-12-06 this
            # polled every millisecond, which cost the main thread about 2.5 CPU-s a run).
            loop = QEventLoop()
            check = QTimer()
            check.setInterval(50)

            def poll(
                loop: QEventLoop = loop, meter: CpuMeter = meter, until: float = deadline
            ) -> None:
                if cpu:
                    meter.sample()  # the run's threads, before they end
                if finished[0] or time.monotonic() > until:
                    loop.quit()

            check.timeout.connect(poll)
            check.start()
            loop.exec()
            check.stop()
            while window.controller.state != "idle" and time.monotonic() < deadline:
                QCoreApplication.processEvents()  # the run's threads wound down
                time.sleep(0.01)
            timer.stop()
            used = meter.stop()
            gaps = sorted(gaps) or [0.0]  # (none with ``cpu``: no timer)
            text = window.editor.text[before:].strip()
            results.append(
                {
                    "max_stall_ms": round(gaps[-1], 1),
                    "p99_ms": round(gaps[int(0.99 * (len(gaps) - 1))], 1),
                    "over_50ms": sum(1 for g in gaps if g > 50),
                    "ticks": len(gaps),
                    "text_chars": len(text),
                    "text": text,
                    "peak_rss_mb": round(peak_rss_mb(), 1),  # the window's process, so far
                    "rss_mb": round(_rss_mb(os.getpid()), 1),  # at the end of the run
                    "settled_s": [round(x, 3) for x in settled],
                    "settled_p50_s": round(percentile(settled, 0.5), 3) if settled else None,
                    "settled_p95_s": round(percentile(settled, 0.95), 3) if settled else None,
                    **(asdict(used) if cpu else {}),
                }
            )
        window.document.modified = False
        window.close()
    cpu_report = {}
    if cpu:
        cpu_report = {"startup_cpu_s": started.cpu_s,
                      "cpu_s_median": statistics.median(r["cpu_s"] for r in results)}  # fmt: skip
    return {
        "audio": str(audio),
        "platform": os.environ.get("QT_QPA_PLATFORM", "default"),
        "second_pass": second_pass or OFF,
        "runs": results,
        "max_stall_ms_median": statistics.median(r["max_stall_ms"] for r in results),
        "settled_p95_s_median": statistics.median(r["settled_p95_s"] or 0.0 for r in results),
        "loaded_peak_rss_mb": loaded_peak,
        "peak_rss_mb": max(r["peak_rss_mb"] for r in results),
        "rss_mb": results[-1]["rss_mb"],
        **cpu_report,
    }


def bench_editor(chars: int, keys: int, runs: int) -> dict[str, Any]:
    """Per-keystroke cost of the editor on a long document with greyed words shown: ``keys``
    real key presses (letters, emoji, Backspace, arrows) into a document of about ``chars``
    characters (one emoji per line, so positions are converted on every step), each journaled
    and fsynced like in the app; then ``keys`` pending updates and finalized sentences.
    Medians and 95th percentiles over all runs, in milliseconds."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    from dictate.editing.journal import Journal
    from dictate.ui.app import application
    from dictate.ui.editor import DictationEditor

    application()
    line = "A line of dictated text, with an emoji 😀 and some more words here.\n"
    text = line * max(1, chars // len(line))
    plan: list[tuple[Qt.Key, str]] = [
        (Qt.Key.Key_A, "a"),
        (Qt.Key.Key_unknown, "👍"),
        (Qt.Key.Key_Backspace, ""),
        (Qt.Key.Key_Left, ""),
        (Qt.Key.Key_Up, ""),
        (Qt.Key.Key_Space, " "),
    ]
    key_ms: list[float] = []
    event_ms: list[float] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="dictate-bench-") as tmp:
            editor = DictationEditor(Journal(Path(tmp) / "j.jsonl"))
            editor.resize(800, 600)
            editor.show()
            editor.set_text(text)
            editor.move_cursor(len(text) // 2)
            editor.edits.set_dictation(pending="words still pending here")
            for i in range(keys):
                key, typed = plan[i % len(plan)]
                event = QKeyEvent(QEvent.Type.KeyPress, key, Qt.KeyboardModifier.NoModifier, typed)
                start = time.perf_counter()
                QApplication.sendEvent(editor, event)
                key_ms.append(1000 * (time.perf_counter() - start))
            for i in range(keys):
                start = time.perf_counter()
                if i % 4 == 3:
                    editor.edits.insert_final([f"Sentence {i}."], "next words")
                else:
                    editor.edits.set_dictation(pending=f"next words {i}")
                event_ms.append(1000 * (time.perf_counter() - start))
            editor.close()
            editor.deleteLater()
    return {
        "document_chars": len(text),
        "keys_per_run": keys,
        "runs": runs,
        "key_ms_median": round(statistics.median(key_ms), 3),
        "key_ms_p95": round(statistics.quantiles(key_ms, n=20)[-1], 3),
        "event_ms_median": round(statistics.median(event_ms), 3),
        "event_ms_p95": round(statistics.quantiles(event_ms, n=20)[-1], 3),
    }
