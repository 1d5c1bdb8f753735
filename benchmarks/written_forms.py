"""Written forms benchmark: the pass rate of :func:`dictate.writing.forms.written` on the case
table, per class and overall, and its speed.

    python benchmarks/written_forms.py [--failures] [--json] [--table PATH]

The table (``tests/writing/written_cases.tsv``) has one case a line,
``class<TAB>spoken<TAB>written``; lines starting with ``#`` are comments. A case passes when
the output equals the written side exactly. The speed is the median time of one sentence over
the whole table, repeated.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dictate.writing.forms import written  # noqa: E402

TABLE = ROOT / "tests" / "writing" / "written_cases.tsv"


def load_cases(path: Path = TABLE) -> list[tuple[str, str, str]]:
    """The cases of a table: (class, spoken, written)."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise ValueError(f"{path}:{number}: expected 3 tab-separated fields, got {len(parts)}")
        kind, spoken, expected = parts
        cases.append((kind, spoken, expected))
    return cases


def score(cases: list[tuple[str, str, str]]) -> dict[str, tuple[int, int]]:
    """(passed, total) per class, and under "overall"."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for kind, spoken, expected in cases:
        ok = written(spoken) == expected
        for key in (kind, "overall"):
            counts[key][0] += ok
            counts[key][1] += 1
    return {key: (passed, total) for key, (passed, total) in counts.items()}


def speed(cases: list[tuple[str, str, str]], rounds: int = 20) -> dict[str, float]:
    """Microseconds per sentence: median and 99th percentile over ``rounds`` passes."""
    texts = [spoken for _, spoken, _ in cases]
    per_sentence = []
    for _ in range(rounds):
        for text in texts:
            start = time.perf_counter()
            written(text)
            per_sentence.append((time.perf_counter() - start) * 1e6)
    per_sentence.sort()
    return {
        "sentences": len(per_sentence),
        "median_us": round(statistics.median(per_sentence), 1),
        "p99_us": round(per_sentence[int(len(per_sentence) * 0.99)], 1),
        "max_us": round(per_sentence[-1], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--failures", action="store_true", help="print every failing case")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--table", type=Path, default=TABLE, help="the case table")
    args = parser.parse_args(argv)
    cases = load_cases(args.table)
    results = score(cases)
    timing = speed(cases)
    if args.json:
        rates = {
            k: {"passed": p, "total": n, "rate": round(p / n, 4)} for k, (p, n) in results.items()
        }
        print(json.dumps({"classes": rates, "speed": timing}, indent=2))
        return 0
    if args.failures:
        for kind, spoken, expected in cases:
            got = written(spoken)
            if got != expected:
                print(f"{kind}\t{spoken!r}\n\texpected {expected!r}\n\tgot      {got!r}")
        print()
    width = max(len(k) for k in results)
    for key in sorted(results, key=lambda k: (k == "overall", k)):
        passed, total = results[key]
        print(f"{key:<{width}}  {passed:>3}/{total:<3}  {100 * passed / total:5.1f}%")
    print(
        f"speed: median {timing['median_us']} µs, p99 {timing['p99_us']} µs, "
        f"max {timing['max_us']} µs per sentence ({timing['sentences']} sentences)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
