"""The crash harness (benchmarks/crash_harness.py) in small: the real window is SIGKILLed at
random moments during pipeline events and key presses, restarted on its journal, and must
recover exactly what it showed; with one byte of the first record changed after the kill, the
question still comes and at most a few characters differ; with the data folder removed while the
window runs, the recovery is exact. The closing note reports the 100-kill runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "benchmarks" / "crash_harness.py"


@pytest.mark.slow
def test_kills_at_random_moments_lose_duplicate_and_reorder_nothing() -> None:
    done = subprocess.run(
        [sys.executable, str(HARNESS), "--kills", "6", "--seeds", "3", "--steps", "120", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary = json.loads(done.stdout)["summary"]
    assert summary["kills"] == 6 and summary["exact"] == 6
    assert summary["lost_sentences"] == summary["duplicated_sentences"] == summary["reordered"] == 0
    assert summary["sentences_shown_at_kill_median"] > 0


def _harness(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(HARNESS), "--kills", "4", "--seeds", "2", "--json", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    summary: dict[str, Any] = json.loads(done.stdout)["summary"]
    return summary


@pytest.mark.slow
def test_a_bad_byte_in_the_first_record_after_a_kill_still_recovers_the_document() -> None:
    summary = _harness("--steps", "80", "--fault", "damage-first")
    assert summary["kills"] == summary["asked"] == summary["damaged_journals"] == 4
    assert summary["exact"] + summary["close"] == 4
    assert summary["duplicated_sentences"] == summary["reordered"] == 0


@pytest.mark.slow
def test_the_data_folder_removed_while_running_loses_nothing() -> None:
    summary = _harness("--steps", "120", "--fault", "remove-data")
    assert summary["kills"] == summary["exact"] == 4
    assert summary["lost_sentences"] == summary["duplicated_sentences"] == 0
