"""``dictate bench file``: the parallel decode of a file (:mod:`dictate.run.file_decode`) with each
number of workers: real-time factor (median of runs), speed-up over the fewest workers, peak
memory, and whether the words are those of the fewest workers' run (and, with ``sequential``,
of the sequential pipeline)."""

from __future__ import annotations

import multiprocessing
import os
import statistics
import threading
import time
from typing import Any

from dictate.errors import DictateError


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class _PeakMemory:
    """Samples the resident memory of this process and its children (Linux /proc) every
    50 ms: the peak of their sum, and of this process alone."""

    def __init__(self) -> None:
        self.total = self.main = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.05):
            main = _rss_mb(os.getpid())
            children = sum(_rss_mb(p.pid) for p in multiprocessing.active_children() if p.pid)
            self.main, self.total = max(self.main, main), max(self.total, main + children)

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _words(events: list[Any]) -> list[Any]:
    from dictate.events import Segment

    return [
        [(w.text, round(w.start, 4), round(w.end, 4)) for w in e.words]
        for e in events
        if isinstance(e, Segment)
    ]


def bench_file(
    audio: str,
    engine_name: str | None,
    model: str | None,
    punctuator_dir: str | None,
    workers: list[int],
    runs: int,
    sequential: bool = False,
    second_pass: str | None = None,
) -> dict[str, Any]:
    """Decode ``audio`` ``runs`` times with each worker count; see ``bench file --help``.
    ``second_pass``: the Whisper model that refines each segment ("auto", a name or folder;
    None or "off": none, as before there was one)."""
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.audio.capture import FileSource
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import build_file_run
    from dictate.run.sink import final_text

    engine = load_engine(engine_name, model)
    # Every run decodes in worker processes (one worker too): here the second pass only checks
    # commands and decodes again what sampled, on one thread, as `transcribe --workers` does.
    second = load_second_pass(second_pass, engine, threads=1, use="files")
    punctuation = load_punctuation_model(punctuator_dir)
    duration = FileSource(audio).info.duration
    result: dict[str, Any] = {
        "audio": audio,
        "audio_seconds": round(duration, 3),
        "engine": engine.label,
        "second_pass": second.label if second is not None else None,
        "cpus": os.cpu_count(),
        "workers": {},
    }
    reference: tuple[Any, str] | None = None
    for count in sorted(set(workers)):
        times, peak, peak_main, same = [], 0.0, 0.0, True
        exact = False
        for _ in range(runs):
            events: list[Any] = []
            with _PeakMemory() as memory:
                began = time.perf_counter()
                run, _ = build_file_run(
                    audio, engine, punctuation, events.append, None, None, second, count, True
                )
                decoded = run.run()
                times.append(time.perf_counter() - began)
            if decoded is None or decoded.reason != "end_of_audio":
                errors = "; ".join(decoded.errors) if decoded else "see the log"
                raise DictateError(f"the decode failed: {errors}")
            exact = decoded.exact
            peak, peak_main = max(peak, memory.total), max(peak_main, memory.main)
            got = (_words(events), final_text(events))
            reference = reference or got
            same = same and got == reference
        median = statistics.median(times)
        first = result["workers"].get(str(min(workers)), {}).get("rtf_median") or median / duration
        result["workers"][str(count)] = {
            "rtf_runs": [round(t / duration, 4) for t in times],
            "rtf_median": round(median / duration, 4),
            "speedup": round(first / (median / duration), 2),
            "peak_rss_mb": round(peak, 1),
            "peak_rss_main_mb": round(peak_main, 1),
            "identical_to_fewest": same,
            "exact_engine": exact,
            "segments": len(reference[0]) if reference else 0,
        }
    if sequential and reference is not None:
        from dictate.run.assembly import build_pipeline

        events = []
        built = build_pipeline(engine, punctuation, events.append, second_pass=second, live=False)
        began = time.perf_counter()
        built.pipeline.run(FileSource(audio))
        elapsed = time.perf_counter() - began
        got = (_words(events), final_text(events))
        result["sequential"] = {
            "rtf": round(elapsed / duration, 4),
            "words_identical": got[0] == reference[0],
            "text_identical": got[1] == reference[1],
        }
    return result


def format_file(result: dict[str, Any]) -> str:
    lines = [
        f"{result['audio']}: {result['audio_seconds']} s of audio, {result['engine']}"
        + (f" + {result['second_pass']}" if result.get("second_pass") else "")
        + f", {result['cpus']} CPUs"
    ]
    for count, r in result["workers"].items():
        lines.append(
            f"{count} worker(s): real-time factor {r['rtf_median']} (median; runs "
            f"{r['rtf_runs']}), speed-up {r['speedup']}x, peak memory {r['peak_rss_mb']} MB "
            f"(main process {r['peak_rss_main_mb']} MB), words identical to the fewest "
            f"workers' run: {'yes' if r['identical_to_fewest'] else 'NO'}"
        )
    if "sequential" in result:
        s = result["sequential"]
        lines.append(
            f"sequential pipeline: real-time factor {s['rtf']}, words identical: "
            f"{'yes' if s['words_identical'] else 'NO'}, text identical: "
            f"{'yes' if s['text_identical'] else 'NO'}"
        )
    return "\n".join(lines)
