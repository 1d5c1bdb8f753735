"""The crash harness for speech (benchmarks/crash_speech.py) in small: the real window dictates
a recording with the bundled recogniser, is SIGKILLed while a phrase is still being recognised,
and is started again as the app starts: the words said before the kill come back, those shown
from the journal, the rest recognised again from the kept audio and added from the message.
The closing note reports a longer run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "benchmarks" / "crash_speech.py"


@pytest.mark.slow
def test_words_said_just_before_a_kill_come_back_from_the_kept_audio() -> None:
    done = subprocess.run(
        [sys.executable, str(HARNESS), "--kills", "5", "--seed", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    summary = result["summary"]
    assert summary["kills"] >= 3, result
    # Every kill whose kept audio held words beyond the text says so, and offers them.
    assert summary["kills_with_words_from_audio"] >= 2, result
    assert summary["kills_with_a_message"] == summary["kills_with_words_from_audio"], result
    # The journal alone loses the words being recognised; with the audio nearly all come back
    # (the recogniser may hear a stretch cut at another point a little differently).
    said = summary["words_said_before_kills"]
    assert summary["recovered_by_journal"] < summary["recovered_with_audio"], result
    assert summary["recovered_with_audio"] >= 0.8 * said, result
    for kill in result["kills"]:
        assert kill["covered_s"] <= kill["kept_audio_s"], kill
