"""The vocabulary benchmark: sentences that each hold one rare entry (names, places, medicines,
jargon, products with odd casing), read by flite and espeak-ng voices or the Piper voice
(``piper:joe:0.9``: its length scale), and the same sentences with a plausible other word in the
entry's place (decoys: a rewrite there is a false one). ``--misheard FILE`` gives the judged
configuration the entries' misheard forms (benchmarks/vocabulary_heard.py harvest), as the app
has them once an entry is harvested.

    .venv/bin/python benchmarks/vocabulary_set.py --voices flite:slt,flite:rms,espeak:en-us \\
        --json /tmp/vocabulary.json

Each sentence is synthesised alone (with the silence the voices put around it) and decoded as
``dictate transcribe`` decodes a file (the pipeline on the file, in this process: PocketSphinx,
then Whisper tiny.en where ``--second-pass`` says so, the shipped punctuator), pass by pass:
without the vocabulary; with it given to PocketSphinx only ("first pass": the entries its
dictionary can spell); with its near-miss rewrite after the passes only ("rewrite":
:mod:`dictate.writing.vocabulary_match`, and the exact written forms); with both; with both and
Whisper judging the runs that only come near an entry ("judged by Whisper (the default)", since
2026-12-01: :meth:`dictate.seam.vocabulary.VocabularyRefiner._judged`, ``--margin``); and with a
second Whisper decode, its prompt naming the entries Whisper's first decode came near,
taken only where it differs by entries alone, as well. ``--sounds`` gives each entry how it
sounds (:data:`SOUNDS`), as a user adds it; ``--configs`` picks configurations. It reports, per
configuration:

* entries written exactly: sentences whose text holds the entry's written form, case and all;
* false rewrites per 100 decoy sentences: decoys whose text holds the entry's written form;
* sentences (entries' and decoys') whose text holds any entry that was not said;
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

SOUNDS: dict[str, str] = {
    # How each entry sounds, as a user would add it ("written = sounds like"), in plain
    # words; written down before any decode with them was looked at (--sounds).
    "Nguyen": "new win", "Siobhan": "shiv on", "Kowalczyk": "ko val chick",
    "Okonkwo": "oh conk woe", "Priyanka": "pre yank a", "Xiaoming": "show ming",
    "Saoirse": "seer sha", "Joaquin": "wah keen", "Aoife": "ee fa", "Mbeki": "em bay key",
    "Llanelli": "clan eth lee", "Poughkeepsie": "pa kip see", "Worcestershire": "wooster sheer",
    "Ouagadougou": "wah ga due goo", "Reykjavik": "rake ya vick",
    "metoprolol": "met oh pro lol", "atorvastatin": "a tor va statin",
    "levothyroxine": "lee voe thigh rox een", "amoxicillin": "a mox i sillin",
    "omeprazole": "oh mep ra zole", "lisinopril": "lie sin oh pril",
    "sertraline": "sir tra leen", "gabapentin": "gabba pen tin",
    "prednisolone": "pred niece oh loan", "warfarin": "war fa rin",
    "Kubernetes": "koo ber net ease", "idempotent": "eye dem potent",
    "anastomosis": "an ass toe mo sis", "tachycardia": "tacky cardia",
    "eigenvector": "eye gun vector", "photogrammetry": "photo gram a tree",
    "myocarditis": "my oh car die tis", "subpoena": "sub pee na",
    "habeas corpus": "hay bee us core pus", "TensorRT": "tensor r t",
    "PostgreSQL": "post gress q l", "GitHub": "git hub", "macOS": "mac o s",
    "PyTorch": "pie torch", "JavaScript": "java script", "WordPress": "word press",
    "LinkedIn": "linked in", "QuickBooks": "quick books", "Chipotle": "chi pote lay",
}  # fmt: skip


def voices(spec: str) -> list[tuple[str, str]]:
    return [tuple(v.split(":", 1)) for v in spec.split(",")]  # type: ignore[misc]


def say(voice: tuple[str, str], text: str, out: Path) -> None:
    """``text`` said by ``voice`` into the WAV file ``out``: ("flite", name), ("espeak", name)
    or ("piper", "joe:LENGTH"), the Piper voice at that length scale, noise 0.667."""
    tool, name = voice
    if tool == "piper":
        from dictate.evaluation.commands_audio import Voice, synthesize, write_wav

        speaker, _, length = name.partition(":")
        piper = Voice("piper", speaker, length=float(length or 1.0))
        write_wav(out, synthesize(text, piper, Path(tempfile.gettempdir()) / "vocab"))
        return
    if tool == "flite":
        cmd = ["flite", "-voice", name, "-t", text, "-o", str(out)]
    else:
        cmd = ["espeak-ng", "-v", name, "-s", "150", "-w", str(out), text]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def main(argv: list[str] | None = None) -> int:
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.audio.capture import FileSource
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import TextOptions, build_pipeline, refiner_chain
    from dictate.run.sink import final_text
    from dictate.writing.vocabulary import parse_entry

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default="flite:slt,espeak:en-us")
    parser.add_argument("--second-pass", default="tiny.en", help="a model, or off")
    parser.add_argument("--limit", type=int, default=0, help="only the first N entries")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--sounds",
        action="store_true",
        help="entries with how they sound (SOUNDS), as a user adds them",
    )
    parser.add_argument(
        "--configs", default="", help="only these configurations (comma-separated names)"
    )
    parser.add_argument(
        "--misheard", type=Path, default=None,
        help="the entries' misheard forms (benchmarks/vocabulary_heard.py harvest): the judged "
        "configuration uses them",
    )  # fmt: skip
    parser.add_argument(
        "--margin", type=float, default=None,
        help="the judged rewrite's margin (default: vocabulary_refiner.JUDGE_MARGIN)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    rows = SET[: args.limit] if args.limit else SET
    entries = [
        parse_entry(f"{e} = {SOUNDS[e]}" if args.sounds and e in SOUNDS else e) for e, _, _ in rows
    ]
    engine = load_engine("sphinx")
    punctuator = load_punctuation_model()
    second = None if args.second_pass == "off" else load_second_pass(args.second_pass, engine)
    from dictate.run.first_pass import FirstPass
    from dictate.seam.second_pass import SecondPassRefiner
    from dictate.seam.vocabulary import VocabularyRefiner
    from dictate.writing.vocabulary_harvest import load_misheard
    from dictate.writing.vocabulary_match import VocabularyMatcher

    matcher = VocabularyMatcher(entries)
    misheard = load_misheard(entries, args.misheard) if args.misheard else {}
    heard = VocabularyMatcher(entries, misheard=misheard)
    passes = [SecondPassRefiner(second)] if second is not None else []
    # (the entries written exactly, the refiners, whether PocketSphinx gets the entries)
    configs: dict[str, tuple[Any, Any, bool]] = {
        "without": ((), refiner_chain(second, ()), False),
        "first pass": (tuple(entries), list(passes), True),
        "rewrite": (tuple(entries), [*passes, VocabularyRefiner(matcher)], False),
        "first pass and rewrite": (
            tuple(entries),
            [*passes, VocabularyRefiner(matcher)],
            True,
        ),
        **(
            {
                "judged by Whisper (the default)": (
                    tuple(entries),
                    [*passes, VocabularyRefiner(heard, judge=second, margin=args.margin)],
                    True,
                )
            }
            if passes
            else {}
        ),
        **(
            {
                "prompt+rewrite": (
                    tuple(entries),
                    [SecondPassRefiner(second, vocabulary=matcher), VocabularyRefiner(matcher)],
                    True,
                )
            }
            if passes
            else {}
        ),
    }
    if args.configs:
        wanted = args.configs.split(",")
        configs = {name: config for name, config in configs.items() if name in wanted}
    results: dict[str, Any] = {c: {"exact": 0, "entries": 0, "false": 0, "decoys": 0,
                                   "errors": 0, "ref_words": 0, "unsaid": 0}
               for c in configs}  # fmt: skip
    texts = []
    with tempfile.TemporaryDirectory(prefix="dictate-vocab-") as tmp:
        for voice in voices(args.voices):
            for (entry_text, sentence, decoy), entry in zip(rows, entries, strict=True):
                for kind, filler in (("entry", entry.written), ("decoy", decoy)):
                    said = sentence.format(filler)
                    wav = Path(tmp) / f"{voice[1]}_{kind}.wav"
                    say(voice, said, wav)
                    for config, (vocabulary, refiners, first) in configs.items():
                        text_options = TextOptions(vocabulary=vocabulary)
                        events: list[Any] = []
                        pipeline = build_pipeline(
                            engine, punctuator, events.append, text_options
                        ).pipeline
                        if not first:  # a recogniser without the entries
                            pipeline.first = FirstPass(engine)
                        pipeline.refiners = refiners  # the configuration's, as refiner_chain
                        for refiner in refiners:
                            refiner.reset()
                        pipeline.run(FileSource(wav))
                        got = final_text(events)
                        r = results[config]
                        # Any entry written that was not said (its own or another's).
                        r["unsaid"] += any(e.written in got and e.written not in said
                                           for e in entries)  # fmt: skip
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
    judged = "judged by Whisper (the default)"
    if judged in configs:
        judge = configs[judged][1][-1]
        results[judged].update(judged=judge.judged, taken=judge.taken)
    if "prompt+rewrite" in configs:
        results["prompt+rewrite"]["redecoded"] = configs["prompt+rewrite"][1][0].redecoded
    added = engine.recognizer().add_vocabulary(entries)
    print(f"\n{len(rows)} entries ({added} given to PocketSphinx), voices {args.voices}, "
          f"second pass {args.second_pass}, sounds {args.sounds}")  # fmt: skip
    print("| vocabulary | entries written exactly | false rewrites per 100 decoys | "
          "sentences with an entry not said | decoy WER |")  # fmt: skip
    print("|---|---|---|---|---|")
    for config, r in results.items():
        sentences = r["entries"] + r["decoys"]
        print(f"| {config} | {r['exact']}/{r['entries']} ({100 * r['exact'] / r['entries']:.1f}%)"
              f" | {100 * r['false'] / r['decoys']:.1f} | {r['unsaid']}/{sentences}"
              f" | {100 * r['errors'] / max(1, r['ref_words']):.1f}% |")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"results": results, "texts": texts}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
