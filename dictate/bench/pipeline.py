"""``dictate bench pipeline``: real-time factor and display latency of each recogniser, with the
whole pipeline (voice activity detection, recognition, punctuation) on a WAV file."""

from __future__ import annotations

import statistics
import time
from typing import Any

from dictate.bench.punctuator import percentile
from dictate.errors import DictateError

LENGTH_BINS = (1, 2, 4, 8, 10, 15, 40, float("inf"))
"""Segment lengths (seconds) by which the latency is also reported."""


def _timed_run(
    engine: Any, model: Any, source: Any, asleep: bool = False, second_pass: Any = None
) -> tuple[float, list[Any], str, float]:
    """One run of a fresh pipeline (a fresh punctuator: no state from the run before): its
    time, its events, why punctuation was off ("" if it was on) and the CPU time it took
    (every thread of this process). ``asleep``: as after "go to sleep" (the recogniser listens
    for "wake up"; nothing is punctuated). ``second_pass``: a loaded one (None: none)."""
    from dictate.events import Error
    from dictate.run.assembly import build_pipeline

    events: list[Any] = []
    built = build_pipeline(engine, model, events.append, second_pass=second_pass)
    pipeline = built.pipeline
    pipeline.text.asleep = asleep
    began, cpu = time.perf_counter(), time.process_time()
    pipeline.run(source)
    elapsed = time.perf_counter() - began
    cpu = time.process_time() - cpu
    failures = [e.message for e in events if isinstance(e, Error)]
    if failures:
        raise DictateError(f"the pipeline failed: {failures[0]}")
    return elapsed, events, built.punctuation_off, cpu


def _latencies(events: list[Any]) -> dict[str, list[float]]:
    from dictate.events import Finalized, Pending, Segment

    closed: dict[int, Segment] = {}
    shown: dict[int, float] = {}
    for event in events:
        if isinstance(event, Segment) and event.words:
            closed[event.segment] = event
        elif isinstance(event, (Pending, Finalized)) and event.segment not in shown:
            shown[event.segment] = event.time
    # From the segmenter's close (``closed``), not from the Segment event: with a second pass
    # that event comes when the segment's words are settled, after the decode.
    from_close = [shown[k] - (s.closed or s.time) for k, s in closed.items() if k in shown]
    from_speech = [shown[k] - s.end for k, s in closed.items() if k in shown]
    by_length: dict[str, list[float]] = {}
    for k, s in closed.items():
        if k in shown:
            label = next(f"<= {b:g} s" for b in LENGTH_BINS if s.end - s.start <= b)
            by_length.setdefault(label, []).append(shown[k] - (s.closed or s.time))
    return {"from_segment_close": from_close, "from_speech_end": from_speech, **by_length}


def bench_pipeline(
    audio: str,
    engines: list[str],
    model: str | None,
    punctuator_dir: str | None,
    runs: int,
    second_pass: str | None = None,
) -> dict[str, Any]:
    """Measure each engine on ``audio``; see the ``bench pipeline`` help for the definitions.
    ``second_pass``: the Whisper model after each engine ("auto", a name or folder; None or
    "off": none, as before there was one)."""
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.asr.registry import engine_spec
    from dictate.audio.capture import FileSource
    from dictate.punctuation.model import load_punctuation_model

    punctuation_model = load_punctuation_model(punctuator_dir)
    duration = FileSource(audio).info.duration
    results: dict[str, Any] = {"audio": audio, "audio_seconds": round(duration, 3), "engines": {}}
    for name in engines:
        chooses_model = engine_spec(name).model_kind != "bundled"
        engine = load_engine(name, model if chooses_model else None)
        second = load_second_pass(second_pass, engine)
        times, cpu_awake, cpu_asleep = [], [], []
        words = 0
        for _ in range(runs):
            elapsed, events, off, cpu = _timed_run(
                engine, punctuation_model, FileSource(audio), second_pass=second
            )
            times.append(elapsed)
            cpu_awake.append(cpu)
            words = sum(len(e.words) for e in events if type(e).__name__ == "Segment")
            cpu_asleep.append(
                _timed_run(
                    engine, punctuation_model, FileSource(audio), asleep=True, second_pass=second
                )[3]
            )
        _, live, off, _ = _timed_run(
            engine, punctuation_model, FileSource(audio, realtime=True), second_pass=second
        )
        lat = _latencies(live)
        results["engines"][name] = {
            "label": engine.label,
            "second_pass": second.label if second is not None else None,
            "punctuation": f"off: {off}" if off else "on",
            "words": words,
            "rtf_runs": [round(t / duration, 4) for t in times],
            "rtf_median": round(statistics.median(times) / duration, 4),
            "latency_close_ms_median": round(1000 * statistics.median(lat["from_segment_close"]), 1)
            if lat["from_segment_close"]
            else None,
            "latency_close_ms_max": round(1000 * max(lat["from_segment_close"]), 1)
            if lat["from_segment_close"]
            else None,
            "latency_close_ms_p95": round(1000 * percentile(lat["from_segment_close"], 0.95), 1)
            if lat["from_segment_close"]
            else None,
            "latency_close_by_length": {
                label: {
                    "n": len(values),
                    "p50_ms": round(1000 * percentile(values, 0.5), 1),
                    "p95_ms": round(1000 * percentile(values, 0.95), 1),
                }
                for label, values in lat.items()
                if label.startswith("<=")
            },
            "latency_speech_end_ms_median": round(
                1000 * statistics.median(lat["from_speech_end"]), 1
            )
            if lat["from_speech_end"]
            else None,
            "segments": len(lat["from_segment_close"]),
            # CPU seconds per second of audio: the share of one core listening takes.
            "cpu_per_audio_s_awake": round(statistics.median(cpu_awake) / duration, 4),
            "cpu_per_audio_s_asleep": round(statistics.median(cpu_asleep) / duration, 4),
        }
    return results
