"""Voice commands: detection on the command test set and false triggers on plain text.

    python benchmarks/voice_commands.py [--seeds 5] [--dev2012 ../shared/data/iwslt/dev2012.tsv]
                                        [--failures]

Detection runs every line of ``tests/data/voice_commands.tsv`` with ``--seeds`` draws of its
word times; false triggers feed the plain text of ``dev2012.tsv`` as dictation segments with
pauses where a speaker makes them, at the default rates and at two harsher ones (a pause after
30% of all words, and after every word: no pause rule at all). See dictate/evaluation/commands.py
for the timing model.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dictate.evaluation.commands import (
    Timing,
    measure_detection,
    measure_false_triggers,
    read_command_cases,
)

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=ROOT / "tests" / "data" / "voice_commands.tsv")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--dev2012", default=ROOT.parent / "shared/data/iwslt/dev2012.tsv")
    parser.add_argument("--failures", action="store_true", help="list every miss and trigger")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    cases = read_command_cases(args.cases)
    detection = measure_detection(cases, seeds=args.seeds)
    # The same cases when the pauses may be shorter than the 0.25 s that sets a command apart.
    hesitant = measure_detection(cases, seeds=args.seeds, timing=Timing(pause=(0.15, 1.2)))
    result: dict[str, object] = {
        "cases": len(cases),
        "seeds": args.seeds,
        "detection_rate": round(detection.detection_rate, 4),
        "positives": detection.positives,
        "detected": detection.detected,
        "negatives": detection.negatives,
        "negatives_triggered": detection.false_triggers,
        "detection_rate_pauses_from_0.15s": round(hesitant.detection_rate, 4),
        "negatives_triggered_pauses_from_0.15s": hesitant.false_triggers,
    }
    dev = Path(args.dev2012)
    if dev.is_file():
        from dictate.evaluation.readers import read_reference

        reference = read_reference(dev)
        for name, rates in {
            "default": {},
            "pause_after_30pct_of_words": {"p_hesitation": 0.3},
            "pause_after_every_word": {
                "p_hesitation": 1.0, "p_pause_comma": 1.0, "p_pause_end": 1.0
            },
        }.items():  # fmt: skip
            found = measure_false_triggers(reference.words, reference.tags, **rates)
            result[f"dev2012_{name}"] = {
                "words": found.words,
                "segments": found.segments,
                "false_triggers": len(found.triggers),
                "per_10k_words": round(found.per_10k_words, 3),
            }
            if args.failures:
                for label, text in found.triggers:
                    print(f"false trigger ({name}): {label}: {text}")
    if args.failures:
        for utterance, expected, got in detection.failures:
            print(f"miss: {utterance!r}: expected {expected}, found {got}")
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
