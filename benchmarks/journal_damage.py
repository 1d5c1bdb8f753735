"""One damaged byte in the snapshot of an autosave journal that has later changes: how much of
the text comes back, and whether every later change still applies.

    python benchmarks/journal_damage.py [--cases 300] [--seed 1] [--json]

Each case writes a journal of a 27,000-character document (two snapshot pieces), then six later
changes at random places (appended sentences, deletions, replacements, insertions), and changes
one random byte of a random snapshot record to one of ``\\0 " { , 9 a \\xff \\\\ :`` or a random
byte. It reports the cases where the replay lost more than a few characters (the text differs
from what was written over a longer stretch than LOST_SLACK characters) and those where a later
change is missing.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import tempfile
from pathlib import Path

from dictate.editing.journal import Journal
from dictate.editing.journal_replay import replay

DOC = "".join(f"Sentence {i:05d} says café, naïve and 😀. " for i in range(600))
LOST_SLACK = 40
"""Characters of difference counted as "a few" (a byte read around costs one or two)."""
BYTES = [0, ord('"'), ord("{"), ord(","), ord("9"), ord("a"), 0xFF, ord("\\"), ord(":")]


def one_case(rng: random.Random, path: Path, case: int) -> dict[str, object] | None:
    text = DOC
    journal = Journal(path)
    journal.reset(text, None)
    markers = []
    for k in range(6):
        kind = rng.choice(["final", "delete", "replace", "insert"])
        if kind == "final":
            words = f" Later {case}-{k}."
            journal.final(len(text), words, "", len(text) + len(words))
            text += words
            markers.append(words)
            continue
        pos, n = rng.randrange(0, len(text) - 20), rng.randrange(1, 15)
        if kind == "delete":
            journal.edit(pos, text[pos : pos + n], "")
            text = text[:pos] + text[pos + n :]
        elif kind == "replace":
            journal.edit(pos, text[pos : pos + n], f"X{k}")
            text = text[:pos] + f"X{k}" + text[pos + n :]
        else:
            markers.append(f" ins{k} ")
            journal.edit(pos, "", f" ins{k} ")
            text = text[:pos] + f" ins{k} " + text[pos:]
    journal.close(clean=False)
    raw = bytearray(path.read_bytes())
    lines = raw.split(b"\n")
    snapshot = [
        i for i, line in enumerate(lines) if b'"op":"reset"' in line or b'"op":"more"' in line
    ]
    index = rng.choice(snapshot)
    at = sum(len(line) + 1 for line in lines[:index]) + rng.randrange(len(lines[index]))
    old = raw[at]
    raw[at] = rng.choice([*BYTES, rng.randrange(256)])
    if raw[at] == old:
        return None
    path.write_bytes(bytes(raw))
    got = replay(path)
    shown = got.text if got is not None else ""
    same = 0
    while same < min(len(shown), len(text)) and shown[same] == text[same]:
        same += 1
    end = 0
    while end < min(len(shown), len(text)) - same and shown[-1 - end] == text[-1 - end]:
        end += 1
    return {
        "differing": len(text) - same - end,
        "later_missing": sum(m in text and m not in shown for m in markers),
        "repaired": getattr(got, "repaired_records", 0),  # 0 before the checksum repaired
        "read_around": got.salvaged_records if got is not None else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # every case logs its damage
    rng = random.Random(args.seed)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for case in range(args.cases):
            result = one_case(rng, Path(folder) / f"{case}.jsonl", case)
            if result is not None:
                results.append(result)
    summary = {
        "cases": len(results),
        "lost_more_than_a_few": sum(r["differing"] > LOST_SLACK for r in results),  # type: ignore[operator]
        "a_later_change_missing": sum(bool(r["later_missing"]) for r in results),
        "repaired_exactly": sum(r["differing"] == 0 and r["repaired"] > 0 for r in results),  # type: ignore[operator]
        "read_around": sum(r["read_around"] > 0 for r in results),  # type: ignore[operator]
    }
    print(json.dumps(summary) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
