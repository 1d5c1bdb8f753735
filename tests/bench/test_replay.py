"""``dictate bench replay``: the journal it writes replays to the text it says, and the command
prints its figures (the measured ones are in docs/recovery.md, not asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dictate.bench.journal import write_journal
from dictate.editing.journal_replay import replay


def test_the_benchmark_journal_replays_to_its_text(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    expected = write_journal(path, 70_000, 3000)
    got = replay(path)
    assert got is not None and not got.damaged and got.text == expected


def test_bench_replay_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "bench", "replay", "--chars", "50000",
         "--records", "500", "--runs", "2", "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["records"] == 500 and result["document_chars"] == 50_000
    assert len(result["seconds_runs"]) == 2 and result["peak_mib_median"] > 0
