"""Should a long pause close the sentence a commit left open? (issue 53)

A pause commits the pending words; where the decoder finds no sentence end there, the sentence
is committed open and its mark is decided later, with the next words as right context (or at
Stop). A rule "a pause of several seconds closes it" would put the sentence's end mark at the
pause instead. This measures, on text none of the decoder's tuning used as a test
(dev2012 of IWSLT, as docs/commit-on-pause.md), what each choice gets right at every commit the
decoder left open:

* the segments and their cuts come from the dictation simulator (``simulate_segments``, seeds
  0..2), and **every** segment end is taken as a long pause, so every cut commits;
* at each commit left open, the truth is the reference's tag after the last committed word:
  a sentence end (full stop, question mark) or not;
* **deferred** (the app's rule): the tag the decoder put there in the end, once the next words
  came; right when it says "sentence end" exactly where the truth does;
* **close on a long pause**: a sentence end, always; right at true sentence ends only.

Whether closing pays depends on how often a long pause falls at a sentence end (``f``), which
text cannot tell: the script prints the break-even ``f`` above which closing would be right
more often. Run: ``.venv/bin/python benchmarks/long_pause.py ../shared/data/iwslt/dev2012.tsv
--words 20000``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dictate.evaluation.readers import read_reference
from dictate.evaluation.simulate import simulate_segments
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.labels import MARK_TAG
from dictate.punctuation.model import load_punctuation_model

SENTENCE_END = {"PERIOD", "QUESTION"}


def measure(words: list[str], tags: list[str], model: object, seed: int) -> dict[str, int]:
    segments = simulate_segments(words, tags, seed=seed)
    punctuator = StreamingPunctuator(model)
    decided: list[str] = []  # the final tag of every word, in order
    open_at: list[int] = []  # word index of the last word of each commit left open

    def collect(update: object) -> None:
        closes = getattr(update, "closes", "")
        if closes and decided:
            decided[-1] = MARK_TAG.get(closes, decided[-1])
        for sentence in getattr(update, "finalized", ()):
            decided.extend(sentence.tags)

    for segment in segments:
        collect(punctuator.feed(segment))
        done = punctuator.commit()
        collect(done)
        if decided and decided[-1] not in SENTENCE_END and punctuator._revisable is not None:
            open_at.append(len(decided) - 1)
    collect(punctuator.flush())
    assert len(decided) == len(words), (len(decided), len(words))
    counts = dict.fromkeys(("open_end", "open_mid", "deferred_end_ok", "deferred_mid_ok"), 0)
    for index in open_at[:-1]:  # the last one is closed by the flush (Stop), not a decision
        true_end = tags[index] in SENTENCE_END
        said_end = decided[index] in SENTENCE_END
        key = "end" if true_end else "mid"
        counts[f"open_{key}"] += 1
        counts[f"deferred_{key}_ok"] += said_end == true_end
    counts["commits"] = len(segments)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("reference", help="IWSLT .tsv (dev2012)")
    parser.add_argument("--words", type=int, default=20000, help="its first N words")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--model", default=str(Path(__file__).resolve().parents[1] / "models"
                                              / "punctuator"))  # fmt: skip
    args = parser.parse_args()
    reference = read_reference(args.reference)
    reference_words = reference.words[: args.words]
    reference_tags = reference.tags[: args.words]
    model = load_punctuation_model(Path(args.model))
    total: dict[str, int] = {}
    for seed in range(args.seeds):
        counts = measure(list(reference_words), list(reference_tags), model, seed)
        print(json.dumps({"seed": seed, **counts}), flush=True)
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    ends, mids = total["open_end"], total["open_mid"]
    x = total["deferred_end_ok"] / ends if ends else 0.0
    y = total["deferred_mid_ok"] / mids if mids else 0.0
    # Right per long pause: closing f*1 + (1-f)*0; deferring f*x + (1-f)*y.
    # Closing is better when f > y / (1 - x + y).
    breakeven = y / (1 - x + y) if (1 - x + y) else 1.0
    print(json.dumps({
        "words": len(reference_words), "commits": total["commits"],
        "left_open": ends + mids, "open_at_true_end": ends, "open_mid_sentence": mids,
        "deferred_right_at_ends": round(x, 3), "deferred_right_mid": round(y, 3),
        "share_of_open_commits_at_true_ends": round(ends / (ends + mids), 3) if ends + mids else 0,
        "closing_pays_when_share_of_long_pauses_at_sentence_ends_exceeds": round(breakeven, 3),
    }, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
