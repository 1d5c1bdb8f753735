"""The crash harness (benchmarks/crash_harness.py) in small: the real window is SIGKILLed at
random moments during pipeline events and key presses, restarted on its journal, and must
recover exactly what it showed. The closing note reports the 100-kill run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
