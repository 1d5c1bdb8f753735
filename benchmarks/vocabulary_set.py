"""The vocabulary benchmark: sentences that each hold one rare entry (names, places, medicines,
jargon, products with odd casing), read by flite and espeak-ng voices, and the same sentences
with a plausible other word in the entry's place (decoys: a rewrite there is a false one).

    .venv/bin/python benchmarks/vocabulary_set.py --voices flite:slt,flite:rms,espeak:en-us \\
        --json /tmp/vocabulary.json

Each sentence is synthesised alone (with the silence the voices put around it) and decoded as
``dictate transcribe`` decodes a file (the pipeline on the file, in this process: PocketSphinx,
then Whisper tiny.en where ``--second-pass`` says so, the shipped punctuator), without the
vocabulary, with its near-miss rewrite after the passes (:mod:`dictate.writing.vocabulary_match`,
and the exact written forms), and with a second Whisper decode, its prompt naming the entries
Whisper's first decode came near, taken only where it differs by entries alone, as well. It
reports, per configuration:

* entries written exactly: sentences whose text holds the entry's written form, case and all;
* false rewrites per 100 decoy sentences: decoys whose text holds the entry's written form;
* word error rate of the decoys (ordinary sentences: the words the vocabulary must not harm),
  lower-cased, marks removed.

The entries are the benchmark's own (made for it; no training data is involved). The
threshold of the rewrite was not tuned on them: it was set before this set was decoded.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dictate.edit_distance import edit_distance  # noqa: E402

# (entry as "written = sounds like" or "written", sentence with {} for it, decoy word)
SET: list[tuple[str, str, str]] = [
    ("Nguyen", "Please ask {} to call me back.", "Newman"),
    ("Siobhan", "I sent the draft to {} this morning.", "Susan"),
    ("Kowalczyk", "The report from {} arrived late.", "Kowalski"),
    ("Okonkwo", "Doctor {} will see you now.", "O'Connor"),
    ("Priyanka", "We met {} at the station.", "Patricia"),
    ("Xiaoming", "The email from {} was short.", "Simon"),
    ("Saoirse", "My cousin {} lives in Dublin.", "Sarah"),
    ("Joaquin", "Tell {} the meeting moved.", "Jacob"),
    ("Aoife", "The gift is for {} and her brother.", "Eva"),
    ("Mbeki", "The speech by {} was long.", "Becky"),
    ("Llanelli", "The train to {} leaves at noon.", "Langley"),
    ("Poughkeepsie", "She grew up near {} in New York.", "Pittsburgh"),
    ("Worcestershire", "Add a dash of {} sauce.", "soy"),
    ("Ouagadougou", "The flight to {} was cancelled.", "Ottawa"),
    ("Reykjavik", "We spent a week in {} last winter.", "Rochester"),
    ("metoprolol", "The patient takes {} every morning.", "metformin"),
    ("atorvastatin", "Stop the {} before the surgery.", "aspirin"),
    ("levothyroxine", "Her dose of {} was raised.", "vitamins"),
    ("amoxicillin", "The child was given {} for the infection.", "antibiotics"),
    ("omeprazole", "Take {} before breakfast.", "ibuprofen"),
    ("lisinopril", "His blood pressure improved on {}.", "insulin"),
    ("sertraline", "The doctor prescribed {} last month.", "saline"),
    ("gabapentin", "The pain eased after the {}.", "caffeine"),
    ("prednisolone", "A short course of {} helped.", "paracetamol"),
    ("warfarin", "Check the levels of {} weekly.", "potassium"),
    ("Kubernetes", "The service runs on {} now.", "computers"),
    ("idempotent", "The request must be {} to be safe.", "independent"),
    ("anastomosis", "The surgeon checked the {} again.", "analysis"),
    ("tachycardia", "The monitor showed {} overnight.", "pneumonia"),
    ("eigenvector", "Find the {} of this matrix.", "inverse"),
    ("photogrammetry", "The survey used {} from drones.", "photography"),
    ("myocarditis", "The scan ruled out {} quickly.", "arthritis"),
    ("subpoena", "The lawyer received a {} yesterday.", "summons"),
    ("habeas corpus", "The court heard the {} petition.", "custody"),
    ("TensorRT", "We exported the model to {} today.", "the cloud"),
    ("PostgreSQL", "The data lives in {} now.", "folders"),
    ("GitHub", "Push the branch to {} tonight.", "the server"),
    ("macOS", "The app also runs on {} laptops.", "older"),
    ("PyTorch", "The network was trained with {} last year.", "patience"),
    ("JavaScript", "The page is written in {} mostly.", "English"),
    ("WordPress", "Her blog moved to {} in May.", "Boston"),
    ("LinkedIn", "He posted the news on {} today.", "the board"),
    ("QuickBooks", "The invoices are kept in {} online.", "notebooks"),
    ("Chipotle", "Lunch was at {} again.", "the cafe"),
]


def voices(spec: str) -> list[tuple[str, str]]:
    return [tuple(v.split(":", 1)) for v in spec.split(",")]  # type: ignore[misc]


def say(voice: tuple[str, str], text: str, out: Path) -> None:
    tool, name = voice
    if tool == "flite":
        cmd = ["flite", "-voice", name, "-t", text, "-o", str(out)]
    else:
        cmd = ["espeak-ng", "-v", name, "-s", "150", "-w", str(out), text]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def main(argv: list[str] | None = None) -> int:
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.assembly import TextOptions, build_pipeline, refiners_for
    from dictate.audio.capture import FileSource
    from dictate.pipeline import final_text
    from dictate.punctuation.model import load_punctuation_model
    from dictate.writing.vocabulary import parse_entry

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default="flite:slt,espeak:en-us")
    parser.add_argument("--second-pass", default="tiny.en", help="a model, or off")
    parser.add_argument("--limit", type=int, default=0, help="only the first N entries")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = SET[: args.limit] if args.limit else SET
    entries = [parse_entry(e) for e, _, _ in rows]
    engine = load_engine("sphinx")
    punctuator = load_punctuation_model()
    second = None if args.second_pass == "off" else load_second_pass(args.second_pass, engine)
    from dictate.segments import SecondPassRefiner, VocabularyRefiner
    from dictate.writing.vocabulary_match import VocabularyMatcher

    matcher = VocabularyMatcher(entries)
    passes = [SecondPassRefiner(second)] if second is not None else []
    configs: dict[str, tuple[Any, Any]] = {  # (the entries written exactly, the refiners)
        "without": ((), refiners_for(second, ())),
        "rewrite": (tuple(entries), [*passes, VocabularyRefiner(matcher)]),
        **(
            {
                "prompt+rewrite": (
                    tuple(entries),
                    [SecondPassRefiner(second, vocabulary=matcher), VocabularyRefiner(matcher)],
                )
            }
            if passes
            else {}
        ),
    }
    results: dict[str, Any] = {c: {"exact": 0, "entries": 0, "false": 0, "decoys": 0,
                                   "errors": 0, "ref_words": 0} for c in configs}  # fmt: skip
    texts = []
    with tempfile.TemporaryDirectory(prefix="dictate-vocab-") as tmp:
        for voice in voices(args.voices):
            for (entry_text, sentence, decoy), entry in zip(rows, entries, strict=True):
                for kind, filler in (("entry", entry.written), ("decoy", decoy)):
                    said = sentence.format(filler)
                    wav = Path(tmp) / f"{voice[1]}_{kind}.wav"
                    say(voice, said, wav)
                    for config, (vocabulary, refiners) in configs.items():
                        text_options = TextOptions(vocabulary=vocabulary)
                        events: list[Any] = []
                        pipeline = build_pipeline(
                            engine, punctuator, events.append, text_options
                        ).pipeline
                        pipeline.refiners = refiners  # the configuration's, as refiners_for
                        for refiner in refiners:
                            refiner.reset()
                        pipeline.run(FileSource(wav))
                        got = final_text(events)
                        r = results[config]
                        if kind == "entry":
                            r["entries"] += 1
                            r["exact"] += entry.written in got
                        else:
                            r["decoys"] += 1
                            r["false"] += entry.written in got
                            r["errors"] += edit_distance(words(got), words(said))
                            r["ref_words"] += len(words(said))
                        texts.append({"voice": ":".join(voice), "kind": kind, "config": config,
                                      "said": said, "got": got})  # fmt: skip
                print(voice, entry_text, {c: (r["exact"], r["false"]) for c, r in results.items()},
                      flush=True)  # fmt: skip
                if args.json:  # as it goes: a long run cut short still says what it measured
                    args.json.write_text(json.dumps({"results": results, "texts": texts}))
    if passes:
        results["prompt+rewrite"]["redecoded"] = configs["prompt+rewrite"][1][0].redecoded
    print(f"\n{len(rows)} entries, voices {args.voices}, second pass {args.second_pass}")
    print("| vocabulary | entries written exactly | false rewrites per 100 decoys | decoy WER |")
    print("|---|---|---|---|")
    for config, r in results.items():
        print(f"| {config} | {r['exact']}/{r['entries']} ({100 * r['exact'] / r['entries']:.1f}%)"
              f" | {100 * r['false'] / r['decoys']:.1f} | "
              f"{100 * r['errors'] / max(1, r['ref_words']):.1f}% |")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": results, "texts": texts}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
