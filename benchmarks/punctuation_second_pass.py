"""Punctuation after the second pass: Whisper's own per-segment punctuation against the
streaming punctuator over Whisper's words, on the same decode of each recording.

    .venv/bin/python benchmarks/punctuation_second_pass.py --hints 0:0 --json /tmp/punct.json
    .venv/bin/python benchmarks/punctuation_second_pass.py --keep-case   # capitals as a hint
    .venv/bin/python benchmarks/punctuation_second_pass.py --replay /tmp/punct.json \
        --only flite_slt_alice,flite_rms_comet --hints 0.5:0.3 --hints 0.4:0.4

Each recording of the manifest (default: the synthetic long-form set of
benchmarks/longform_set.py, whose texts are punctuated book, speech and TED text read with
pauses between and inside sentences) is decoded once as ``transcribe`` decodes it
(:func:`dictate.run.file_decode.decode_file`: PocketSphinx, Whisper tiny.en as the second pass, the
shipped punctuator). Two hypotheses come from that one run:

* **Whisper's own**: what Whisper wrote for each segment, punctuation and capitals as it gave
  them, the segments joined (a segment whose verdict kept the first pass's words adds those
  words without marks);
* **streaming**: the app's text: the streaming punctuator over the settled words, weighing the
  marks Whisper wrote after them (``Word.mark``, ``StreamingOptions.hint_weight``), finalizing a
  sentence once the next has begun (the streaming-punctuation papers);
* ``--hints INNER:END``: the streaming punctuator replayed over the same settled segments with
  those hint weights (inside a segment, at its last word; 0:0 is the punctuator alone), to
  choose the weights. ``--json`` keeps the segments, and ``--replay`` scores replays of an
  earlier run's segments without decoding again.

Each hypothesis is aligned to the reference's words (a minimal edit alignment of the lower-cased
words); a reference word matched or substituted takes the tag (O, COMMA, PERIOD, QUESTION) of
its hypothesis word, and a mark on an inserted word moves to the aligned word before it.
Deleted reference words are left out of both scores (the words are the same in both
hypotheses, so this does not favour either). Scores are the repository's evaluator's
(:mod:`dictate.evaluation.metrics`): overall punctuation F1 and sentence segmentation F0.5 and
F1, pooled over the set, and capitalisation F1 where both texts have capitals.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from asr_wer import CACHE, alignment, load_manifest  # noqa: E402

from dictate.evaluation.metrics import (  # noqa: E402
    capitalization_scores,
    punctuation_scores,
    segmentation_scores,
)
from dictate.evaluation.readers import _RANK, parse_punctuated_text  # noqa: E402
from dictate.seam.second_pass import SecondPassRefiner  # noqa: E402

DEFAULT_MANIFEST = CACHE / "longform" / "manifest.json"


class RecordingRefiner(SecondPassRefiner):
    """The app's second-pass refiner, also keeping what Whisper wrote for each segment."""

    def __init__(self, second_pass: Any) -> None:
        super().__init__(second_pass)
        self.written: list[str] = []
        self.segments: list[tuple[list[str], list[str | None] | None]] = []
        """Each segment's settled words and the marks Whisper wrote after them (None: the
        first pass's words were kept), as the app feeds them to the punctuator."""

    def refine(self, segment: Any, words: list[Any]) -> Any:
        seen: dict[str, Any] = {}
        decode = self.second_pass.decode

        def spy(*args: Any, **kwargs: Any) -> Any:
            seen["result"] = decode(*args, **kwargs)
            return seen["result"]

        self.second_pass.decode = spy
        try:
            settled = super().refine(segment, words)
        finally:
            del self.second_pass.decode
        result = seen.get("result")
        if result is not None and result.verdict == "speech":
            self.written.append(result.text)
        elif settled is None:  # kept the first pass's words: no marks of Whisper's
            self.written.append(" ".join(w.text for w in words))
        final = settled if settled is not None else words
        marks = [w.mark or None for w in final]
        self.segments.append(([w.text for w in final], marks if any(marks) else None))
        return settled


def align_pairs(ref: list[str], hyp: list[str]) -> list[tuple[int, int | None, list[int]]]:
    """For each reference word that is matched or substituted: (its index, the hypothesis
    word's index, the indices of hypothesis words inserted right after that one)."""
    pairs: list[tuple[int, int | None, list[int]]] = []
    for i, j in alignment(ref, hyp):
        if i is not None and j is not None:
            pairs.append((i, j, []))
        elif j is not None and pairs:  # inserted after the last aligned word
            pairs[-1][2].append(j)
    return pairs


def _words_of(text: str) -> tuple[list[str], list[str], list[str]]:
    parsed = parse_punctuated_text(text)
    cased = parsed.cased or parsed.words
    return parsed.words, parsed.tags, cased


def projected(reference: str, hypothesis: str) -> dict[str, list[str]]:
    """The reference's tags and casing and the hypothesis's, on the aligned words."""
    ref_words, ref_tags, ref_cased = _words_of(reference)
    norm = [re.sub(r"[^\w']", "", w) for w in ref_words]
    hyp_words, hyp_tags, hyp_cased = _words_of(hypothesis) if hypothesis.strip() else ([], [], [])
    hyp_norm = [re.sub(r"[^\w']", "", w) for w in hyp_words]
    out: dict[str, list[str]] = {"ref": [], "hyp": [], "ref_cased": [], "hyp_cased": []}
    for r, h, after in align_pairs(norm, hyp_norm):
        if h is None:
            continue
        tag = hyp_tags[h]
        for extra in after:  # a mark on an inserted word belongs to the word before it
            if _RANK[hyp_tags[extra]] > _RANK[tag]:
                tag = hyp_tags[extra]
        out["ref"].append(ref_tags[r])
        out["hyp"].append(tag)
        out["ref_cased"].append(ref_cased[r])
        out["hyp_cased"].append(hyp_cased[h] if hyp_norm[h] == norm[r] else ref_cased[r].lower())
    return out


def score(pooled: dict[str, list[str]]) -> dict[str, float]:
    punct = punctuation_scores(pooled["ref"], pooled["hyp"])["OVERALL"]
    seg = segmentation_scores(pooled["ref"], pooled["hyp"])
    case = capitalization_scores(pooled["ref_cased"], pooled["hyp_cased"])
    return {
        "punctuation_f1": punct.f1,
        "segmentation_f05": seg.f_beta(0.5),
        "segmentation_f1": seg.f1,
        "segmentation_precision": seg.precision,
        "segmentation_recall": seg.recall,
        "capitalisation_f1": case.f1,
        "words": len(pooled["ref"]),
    }


def hinted_text(
    segments: list[tuple[list[str], list[str | None] | None]], tagger: Any, inner: float, end: float
) -> str:
    """The streaming punctuator over the segments' words, fed one segment at a time as the app
    feeds it, with Whisper's marks as hints weighed ``inner`` inside a segment and ``end`` at
    its last word (0, 0: no hints)."""
    from dictate.punctuation.decoder import StreamingPunctuator
    from dictate.punctuation.options import StreamingOptions

    punctuator = StreamingPunctuator(
        tagger, StreamingOptions(hint_weight=inner, hint_end_weight=end)
    )
    parts = []
    for words, marks in segments:
        parts.append(punctuator.feed(words, hints=marks).finalized_text)
    parts.append(punctuator.flush().finalized_text)
    return " ".join(p for p in parts if p)


def main(argv: list[str] | None = None) -> int:
    from dictate.asr.loader import load_engine
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass
    from dictate.punctuation.baseline import make_punctuator
    from dictate.punctuation.model import load_punctuation_model
    from dictate.punctuation.options import StreamingOptions
    from dictate.run.assembly import build_sink, text_choices
    from dictate.run.file_decode import decode_file
    from dictate.run.sink import final_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--keep-case", action="store_true", help="Whisper's capitals as a hint")
    parser.add_argument(
        "--hints",
        action="append",
        default=[],
        metavar="INNER:END",
        help="also replay the streaming punctuator over the same segments with Whisper's marks "
        "as hints of these weights (inside a segment, at its end); repeatable; 0:0 is the "
        "replay without hints",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        help="no decoding: the segments and texts of an earlier run's --json (hint replays only)",
    )
    parser.add_argument("--only", help="recordings to score, by id, comma-separated")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    replays = [tuple(float(x) for x in h.split(":")) for h in args.hints]
    set_name, recordings = load_manifest(args.manifest)
    if args.only:
        wanted = set(args.only.split(","))
        recordings = [r for r in recordings if r["id"] in wanted]
    earlier = (
        {t["id"]: t for t in json.loads(args.replay.read_text())["texts"]} if args.replay else {}
    )
    engine = None if args.replay else load_engine("sphinx")
    punctuator = load_punctuation_model()
    second = WhisperSecondPass(WhisperOptions(device="cpu", keep_case=args.keep_case))
    pooled = {
        name: {"ref": [], "hyp": [], "ref_cased": [], "hyp_cased": []}
        for name in ("whisper", "streaming", *(f"hints {i}:{e}" for i, e in replays))
    }
    texts = []
    for recording in recordings:
        if args.replay:
            got = earlier[recording["id"]]
            segments = [(words, marks) for words, marks in got["segments"]]
            hypotheses = {"whisper": got["whisper"], "streaming": got["streaming"]}
        else:
            refiner = RecordingRefiner(second)
            events: list[Any] = []
            sink = build_sink(engine, make_punctuator(punctuator), events.append,
                              text_choices(engine, punctuator)[1])  # fmt: skip
            sink.refiners = [refiner]  # the second pass, recorded
            decode_file(recording["wav"], engine, sink, workers=1)
            segments = refiner.segments
            hypotheses = {"whisper": " ".join(refiner.written), "streaming": final_text(events)}
        for inner, end in replays:
            hypotheses[f"hints {inner}:{end}"] = hinted_text(segments, punctuator, inner, end)
        for name, text in hypotheses.items():
            for key, values in projected(recording["text"], text).items():
                pooled[name][key] += values
        texts.append({"id": recording["id"], **hypotheses, "segments": segments})
        print(recording["id"], {n: round(score(pooled[n])["segmentation_f05"], 3)
                                for n in pooled}, flush=True)  # fmt: skip
    results = {name: score(values) for name, values in pooled.items()}
    print(f"\n{set_name}: {len(recordings)} recordings, keep_case={args.keep_case}, "
          f"hint weights (inside a segment, at its end) {StreamingOptions().hint_weight}, "
          f"{StreamingOptions().hint_end_weight} in the app")  # fmt: skip
    print("| punctuation | overall F1 | segmentation F0.5 | segmentation F1 | capitals F1 |")
    print("|---|---|---|---|---|")
    labels = {"whisper": "Whisper's own, per segment",
              "streaming": "streaming punctuator over Whisper's words"}  # fmt: skip
    for name in pooled:
        label = labels.get(name, f"replay, Whisper's marks as hints {name[6:]}")
        r = results[name]
        print(f"| {label} | {r['punctuation_f1']:.3f} | {r['segmentation_f05']:.3f} | "
              f"{r['segmentation_f1']:.3f} | {r['capitalisation_f1']:.3f} |")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": results, "texts": texts}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
