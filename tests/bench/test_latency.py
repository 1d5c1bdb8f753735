"""``dictate bench latency`` end to end: a recording made with espeak-ng, played at real-time
speed through the window's own dictation path (Silero VAD, the bundled PocketSphinx engine, the
shipped punctuation model, commit on pause), offscreen and with no display to type into."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from pulse import need

from dictate.bench.latency import NOT_MEASURED_NO_DISPLAY
from dictate.bench.latency_report import format_latency, percentile
from dictate.cli import main

COMMIT_MS = 1000


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """No display: the typed measure is skipped (and nothing is typed into the user's apps)."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.slow
def test_every_sentence_is_committed_by_its_pause_and_timed(
    no_display: None, capsys: pytest.CaptureFixture[str]
) -> None:
    need(shutil.which("espeak-ng") is not None, "espeak-ng is not installed")
    need(shutil.which("sox") is not None, "sox is not installed")
    args = ["bench", "latency", "--sentences", "2", "--gap-ms", "2000"]
    began = time.monotonic()
    code = main([*args, "--commit-after", str(COMMIT_MS), "--engine", "sphinx", "--json"])
    took = time.monotonic() - began
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)
    assert result["commit_after_ms"] == COMMIT_MS and result["block_ms"] == 30
    assert result["engine"].startswith("PocketSphinx")
    assert result["typed"] == NOT_MEASURED_NO_DISPLAY
    assert len(result["spoken"]) == 2
    # The recording is real time: the run cannot be faster than the audio.
    assert took >= result["audio_seconds"]

    rows = result["sentences"]
    assert len(rows) == 2, rows
    for row, spoken in zip(rows, result["spoken"], strict=True):
        # Final by the pause, before the run ended, and never before the commit time.
        assert row["committed"], row
        assert row["text"], row
        # Never before the commit time; how long after is the benchmark's to report (a busy
        # machine made it 3.8 s once: no time limit here).
        assert row["final_ms"] >= COMMIT_MS, row
        assert row["final_emitted_ms"] <= row["final_ms"]
        # The segment closes after the segmenter's 500 ms of silence (idle, well before the
        # commit time; on a loaded machine the recogniser lags, so only the order is checked:
        # CI saw 1575 ms); punctuated words come after the recogniser's partial words, the
        # final text after both.
        assert 450 < row["segment_closed_ms"] <= row["final_ms"]
        assert row["pending_by"] in ("live", "pending")
        assert -1000 < row["partial_ms"] <= row["pending_ms"] < row["final_ms"]
        # The detector's end of speech is near where the generated speech ends.
        assert abs(row["speech_end_s"] - spoken["end"]) < 0.3
        assert row.get("typed_ms") is None

    summary = result["summary"]
    for key in ("segment_closed_ms", "partial_ms", "pending_ms", "final_ms"):
        assert summary[key]["n"] == 2
        assert summary[key]["median"] <= summary[key]["p95"] <= summary[key]["max"]
    assert summary["typed_ms"]["n"] == 0
    partials = result["partial_to_shown_ms"]
    assert len(partials) >= 4 and all(ms >= 0 for ms in partials)
    assert summary["partial_to_shown_ms"]["n"] == len(partials)
    assert result["targets"] == {"partial_to_shown_ms": 150.0, "final_ms_p95": COMMIT_MS + 200}
    assert result["verdict"]["all_committed"] is True
    assert result["block_lateness_ms"]["max"] >= 0

    # What the command prints without --json.
    printed = format_latency(result)
    for needle in (
        "last partial words shown",
        "partial: recogniser -> shown in window",
        "punctuated pending words shown",
        "final text in the window",
        "<= 150",
        f"p95 <= {COMMIT_MS + 200}",
        "when their last sample is due",
        "every sentence committed by its pause: yes",
    ):
        assert needle in printed, printed
    typed = next(line for line in printed.splitlines() if "typed into another app" in line)
    assert typed.endswith(NOT_MEASURED_NO_DISPLAY)


def test_gap_must_leave_time_to_commit(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "latency", "--gap-ms", "1000", "--commit-after", "1000"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--gap-ms 1000 leaves no time to commit" in err[0]


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([5.0], 0.95) == 5.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert percentile([0.0, 100.0], 0.95) == pytest.approx(95.0)
