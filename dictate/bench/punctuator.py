"""``dictate bench punctuator``: model latency per window, streaming throughput, peak memory."""

from __future__ import annotations

import random
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from dictate.evaluation.simulate import simulate_segments
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.labels import PERIOD, O
from dictate.punctuation.model import PunctuationModel
from dictate.punctuation.options import StreamingOptions

WINDOW_TOKENS: tuple[int, ...] = (32, 64, 128, 256)

# Everyday English words for a synthetic stream when no text is given: the model's speed
# depends on token counts, not on meaning.
_WORDS = (
    "the of and to a in that is was he for it with as his on be at by i this had not are but "
    "from or have an they which one you were her all she there would their we him been has when "
    "who will more no if out so said what up its about into than them can only other new some "
    "could time these two may then do first any my now such like our over man me even most made "
    "after also did many before must through back years where much your way well down should "
    "because each just those people how too little state good very make world still own see men "
    "work long get here between both life being under never day same another know while last "
    "might us great old year off come since against go came right used take three"
).split()


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation."""
    return float(np.quantile(np.asarray(values, dtype=np.float64), q))


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS bytes.
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def window_latency(
    model: PunctuationModel, tokens: int, runs: int, seed: int = 0
) -> dict[str, Any]:
    """Latency of one model call on a single window of ``tokens`` tokens (specials included)."""
    if tokens > model.config.max_length:
        return {
            "tokens": tokens,
            "skipped": f"longer than the model's max_length {model.config.max_length}",
        }
    rng = np.random.default_rng(seed)
    vocab = model.tokenizer.vocab_size
    ids = rng.integers(1000 if vocab > 2000 else 0, vocab, size=(1, tokens), dtype=np.int64)
    mask = np.ones_like(ids)
    for _ in range(3):  # warm-up: the first runs allocate arenas
        model.run_ids(ids, mask)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        model.run_ids(ids, mask)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "tokens": tokens,
        "runs": runs,
        "median_ms": statistics.median(times),
        "p95_ms": percentile(times, 0.95),
    }


def synthetic_stream(n_words: int, seed: int) -> tuple[list[str], list[str]]:
    """Words and tags for a stream of ``n_words`` words with sentences of 5-25 words."""
    rng = random.Random(seed)
    words: list[str] = []
    tags: list[str] = []
    while len(words) < n_words:
        length = rng.randint(5, 25)
        words.extend(rng.choice(_WORDS) for _ in range(length))
        tags.extend([O] * (length - 1) + [PERIOD])
    return words[:n_words], tags[:n_words]


def streaming_throughput(
    model: PunctuationModel,
    words: Sequence[str],
    tags: Sequence[str],
    *,
    repeats: int,
    seed: int,
    options: StreamingOptions | None = None,
) -> dict[str, Any]:
    """Words per second through :class:`StreamingPunctuator`, median of ``repeats`` runs."""
    segments = simulate_segments(words, tags, seed=seed)
    rates: list[float] = []
    updates: list[float] = []
    for _ in range(repeats):
        punctuator = StreamingPunctuator(model, options)
        started = time.perf_counter()
        for segment in segments:
            t0 = time.perf_counter()
            punctuator.feed(segment)
            updates.append((time.perf_counter() - t0) * 1000)
        punctuator.flush()
        rates.append(len(words) / (time.perf_counter() - started))
    return {
        "words": len(words),
        "segments": len(segments),
        "repeats": repeats,
        "words_per_second_median": statistics.median(rates),
        "update_ms_median": statistics.median(updates),
        "update_ms_p95": percentile(updates, 0.95),
    }


def bench_punctuator(
    model: PunctuationModel,
    *,
    runs: int = 50,
    stream_words: Sequence[str] | None = None,
    stream_tags: Sequence[str] | None = None,
    repeats: int = 3,
    seed: int = 0,
) -> dict[str, Any]:
    """All punctuator figures as one JSON-ready dict."""
    if stream_words is None or stream_tags is None:
        stream_words, stream_tags = synthetic_stream(5_000, seed)
        source = "synthetic"
    else:
        source = "text"
    return {
        "model_dir": str(model.model_dir),
        "model_version": model.config.model_version,
        "provider": model.provider,
        "provider_note": model.session_info.note,
        "threads": model.threads,
        "windows": [window_latency(model, t, runs, seed) for t in WINDOW_TOKENS],
        "streaming": {
            "source": source,
            **streaming_throughput(model, stream_words, stream_tags, repeats=repeats, seed=seed),
        },
        "peak_rss_mb": peak_rss_mb(),
    }


def format_punctuator(result: dict[str, Any]) -> str:
    """Human-readable table of :func:`bench_punctuator`'s result."""
    lines = [
        f"model     {result['model_dir']} (version {result['model_version']})",
        f"provider  {result['provider']}, {result['threads']} threads"
        + (f" ({result['provider_note']})" if result["provider_note"] else ""),
        "",
        "tokens  median ms  p95 ms",
    ]
    for w in result["windows"]:
        if "skipped" in w:
            lines.append(f"{w['tokens']:>6}  skipped: {w['skipped']}")
        else:
            lines.append(f"{w['tokens']:>6}  {w['median_ms']:>9.2f}  {w['p95_ms']:>6.2f}")
    s = result["streaming"]
    lines += [
        "",
        f"streaming  {s['words']} {s['source']} words in {s['segments']} segments, "
        f"median of {s['repeats']} runs: {s['words_per_second_median']:.0f} words/s; "
        f"per update median {s['update_ms_median']:.2f} ms, p95 {s['update_ms_p95']:.2f} ms",
        f"peak memory (RSS)  {result['peak_rss_mb']:.0f} MiB",
    ]
    return "\n".join(lines)
