"""``dictate bench replay``: how long recovery takes to replay a journal, and its peak memory.

The journal is written in the app's own format
(:func:`dictate.editing.journal_records.encode_record`, the snapshot in pieces as
:meth:`dictate.editing.journal.Journal.reset` writes it) straight to a file, not record by record
through :class:`dictate.editing.journal.Journal` (a million fsyncs would take an hour and
measure the disk, not the replay). Each run replays it in a fresh process
and reads its peak resident memory (``VmHWM``: Linux keeps ``ru_maxrss`` across ``exec``, so a
child started by a process that built a 100 MB document would report the parent's peak).
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dictate.editing.journal_records import encode_record, snapshot_records
from dictate.editing.journal_replay import replay

WORDS = ("the", "journal", "keeps", "every", "change", "café", "naïve", "😀", "words", "and")


def write_journal(path: Path, doc_chars: int, records: int, seed: int = 0) -> str:
    """A journal of a ``doc_chars`` document followed by ``records`` edits (small insertions
    and deletions at random places, as typing and dictation make them); returns the text the
    replay must rebuild."""
    rng = random.Random(seed)
    sentence = " ".join(rng.choice(WORDS) for _ in range(12)) + ". "
    text = (sentence * (doc_chars // len(sentence) + 1))[:doc_chars]
    pieces = [*snapshot_records(text), {"op": "path", "path": None}]
    # The edits are applied to a list of small pieces here too, or writing the benchmark would
    # cost what the replay no longer does.
    with path.open("wb") as fh:
        for seq, record in enumerate(pieces, start=1):
            fh.write(encode_record({"seq": seq, **record}))
        seq = len(pieces)
        chunk = 4096
        parts = [text[i : i + chunk] for i in range(0, len(text), chunk)] or [""]
        lengths = [len(p) for p in parts]
        for _ in range(records):
            index = rng.randrange(len(parts))
            start = sum(lengths[:index])
            part = parts[index]
            at = rng.randrange(len(part) + 1)
            if part and rng.random() < 0.3:
                removed = part[at : at + rng.randint(1, 8)]
                inserted = ""
            else:
                removed, inserted = "", rng.choice(WORDS) + " "
            seq += 1
            record = {"seq": seq, "op": "edit", "pos": start + at, "del": removed}
            fh.write(encode_record({**record, "ins": inserted, "at": start + at}))
            parts[index] = part[:at] + inserted + part[at + len(removed) :]
            lengths[index] = len(parts[index])
    return "".join(parts)


def peak_mib() -> float:
    """This process's peak resident memory, in MiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # macOS: bytes; rough


def _child(path: str | None) -> None:
    if path is None:  # the interpreter with the journal module imported, for comparison
        print(json.dumps({"seconds": 0, "peak_mib": peak_mib(), "chars": 0, "damaged": False}))
        return
    started = time.perf_counter()
    got = replay(Path(path))
    seconds = time.perf_counter() - started
    assert got is not None
    print(
        json.dumps(
            {"seconds": seconds, "peak_mib": peak_mib(), "chars": len(got.text),
             "damaged": got.damaged}
        )
    )  # fmt: skip


def bench_replay(doc_chars: int, records: int, runs: int) -> dict[str, Any]:
    """Replay a journal of a ``doc_chars`` document and ``records`` edits ``runs`` times."""
    with tempfile.TemporaryDirectory(prefix="dictate-bench-replay-") as tmp:
        path = Path(tmp) / "document.jsonl"
        expected = write_journal(path, doc_chars, records)
        size = path.stat().st_size
        baseline = _run_child(None)
        results = [_run_child(path) for _ in range(runs)]
    if any(r["damaged"] or r["chars"] != len(expected) for r in results):
        raise RuntimeError("the replay did not rebuild the document")
    return {
        "document_chars": doc_chars,
        "records": records,
        "journal_bytes": size,
        "seconds_runs": [round(r["seconds"], 3) for r in results],
        "seconds_median": round(statistics.median(r["seconds"] for r in results), 3),
        "peak_mib_median": round(statistics.median(r["peak_mib"] for r in results), 1),
        "interpreter_mib": round(baseline["peak_mib"], 1),
    }


def _run_child(path: Path | None) -> dict[str, Any]:
    arg = "None" if path is None else repr(str(path))
    code = f"from dictate.bench.journal import _child; _child({arg})"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=3600
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def format_replay(result: dict[str, Any]) -> str:
    return (
        f"journal of {result['records']:,} records on a {result['document_chars']:,}-character "
        f"document ({result['journal_bytes']:,} bytes): replay median "
        f"{result['seconds_median']} s (runs {result['seconds_runs']}), peak memory "
        f"{result['peak_mib_median']} MiB (the interpreter alone: {result['interpreter_mib']} MiB)"
    )
