"""Training data: TED transcripts -> words as a recogniser outputs them, with labels.

A recogniser outputs lowercase words without punctuation, with numbers and symbols spoken
(``1990`` -> ``nineteen ninety``, ``%`` -> ``percent``). Each word is labelled with the
punctuation that follows it (O / COMMA / PERIOD / QUESTION, IWSLT convention, parsed by
:func:`dictate.evaluation.readers.parse_punctuated_text`) and with its casing (lower /
Capitalized / ALL CAPS). When one written token becomes several spoken words, the punctuation
goes to the last of them.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.errors import InputError
from dictate.evaluation.readers import parse_punctuated_text
from dictate.punctuation.labels import CASE_TAGS, PUNCT_TAGS, SENTENCE_END

LOWER, CAPITALIZED, ALL_CAPS = (CASE_TAGS.index(t) for t in ("LOWER", "CAPITALIZED", "ALL_CAPS"))
O_ID = PUNCT_TAGS.index("O")

# Stage directions: (Laughter), (Applause), (Music ends), (Video) ...
_STAGE = re.compile(r"\([^()]{1,60}\)|\[[^\[\]]{1,60}\]")
# Subtitle credits, a whole line: "Translator: Joseph Geni Reviewer: Morton Bast".
_CREDITS = re.compile(r"(?m)^\s*(?:Translator|Reviewer|Transcriber):.*$")
# Speaker labels at the start of a subtitle line: "CA:", "Chris Anderson:", "Audience:".
_SPEAKER = re.compile(r"(?m)^\s*[A-Z][A-Za-z.]*(?: [A-Z][A-Za-z.]*){0,2}:(?=\s)")
_MUSIC = re.compile("[\u266a\u266b\u266c]")

# Titles are always followed by a name, so their dot never ends a sentence.
_TITLES = frozenset("mr mrs ms dr st prof jr sr vs mt".split())
# Letters separated by dots: U.S, a.m, D.C, e.g.
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]\.?$")

_SYMBOL_WORDS = {
    "%": "percent",
    "&": "and",
    "+": "plus",
    "=": "equals",
    "@": "at",
    "°": "degrees",
    "#": "number",
}
# Written before or after a number, spoken after it; done on the text, before punctuation is
# stripped from the tokens (which would drop a leading "$" or a trailing "%").
_CURRENCY = re.compile(r"([$£€])(\d[\d,]*(?:\.\d+)?)(\s+(?:thousand|million|billion|trillion)\b)?")
_CURRENCY_WORDS = {"$": "dollars", "£": "pounds", "€": "euros"}
_PERCENT = re.compile(r"(\d)\s?%")
_DEGREES = re.compile(r"(\d)\s?°")
_NUMBER_SIGN = re.compile(r"#(?=\d)")
_AMPERSAND = re.compile(r"\s&\s")
_NUMBER = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$")
_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$", re.IGNORECASE)
_DECADE = re.compile(r"^'?(\d{2}|\d{4})s$")
_TIME = re.compile(r"^(\d{1,2}):(\d{2})$")
_SLASH_OR_RANGE = re.compile(r"^(\d+)([/-])(\d+)$")
_DIGIT_RUN = re.compile(r"\d+(?:\.\d+)?")


def clean_transcript(raw: str) -> str:
    """Decode HTML entities and remove stage directions, credits, speaker labels and music notes.

    Args:
        raw: A transcript as published, with subtitle line breaks.

    Returns:
        The spoken text, lines joined by spaces.
    """
    text = html.unescape(html.unescape(raw))  # some transcripts are escaped twice (&amp;#39;)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")
    text = text.replace("\u201c", '"').replace("\u201d", '"')
    text = _CREDITS.sub(" ", text)
    text = _SPEAKER.sub(" ", text)
    text = _STAGE.sub(" ", text)
    text = _MUSIC.sub(" ", text)
    return " ".join(text.split())


def expand_symbols(text: str) -> str:
    """Spell out currency, percent, degree and number signs next to numbers, and a lone ``&``.

    ``$5 million`` -> ``5 million dollars``; ``50%`` -> ``50 percent``; ``#1`` -> ``number 1``.
    """
    text = _CURRENCY.sub(
        lambda m: f"{m.group(2)}{m.group(3) or ''} {_CURRENCY_WORDS[m.group(1)]}", text
    )
    text = _PERCENT.sub(r"\1 percent", text)
    text = _DEGREES.sub(r"\1 degrees ", text)
    text = _NUMBER_SIGN.sub("number ", text)
    return _AMPERSAND.sub(" and ", text)


def _num2words(number: float | int, to: str = "cardinal") -> str:
    from num2words import num2words

    return str(num2words(number, to=to))


def _spoken_words(text: str) -> list[str]:
    """num2words output as recogniser words: no hyphens or commas, no 'and' inside numbers."""
    words = text.replace("-", " ").replace(",", " ").split()
    return [w for w in words if w != "and"]


def _cardinal(digits: str) -> list[str]:
    """``4,800`` -> four thousand eight hundred; ``3.5`` -> three point five."""
    plain = digits.replace(",", "")
    if "." in plain:
        whole, frac = plain.split(".", 1)
        return (
            _spoken_words(_num2words(int(whole)))
            + ["point"]
            + [w for d in frac for w in _spoken_words(_num2words(int(d)))]
        )
    return _spoken_words(_num2words(int(plain)))


def _year_or_cardinal(digits: str) -> list[str]:
    """Four-digit numbers from 1100 to 2099 without a comma are read as years."""
    if len(digits) == 4 and digits.isdigit() and 1100 <= int(digits) <= 2099:
        return _spoken_words(_num2words(int(digits), to="year"))
    return _cardinal(digits)


def _plural(words: list[str]) -> list[str]:
    last = words[-1]
    return [*words[:-1], last[:-1] + "ies" if last.endswith("y") else last + "s"]


def spoken_form(token: str) -> list[str]:
    """How a recogniser would write a written token: lowercase words, numbers spelled out.

    Args:
        token: A word as written, without surrounding punctuation (``1990s``, ``$5``, ``U.S``).

    Returns:
        One or more lowercase words; empty if nothing speakable remains.
    """
    if not any(ch.isdigit() for ch in token) and not any(s in token for s in _SYMBOL_WORDS):
        if _DOTTED.match(token):  # U.S -> us, a.m -> am (IWSLT writes them this way too)
            return [token.replace(".", "").lower()]
        return [token.lower()] if token else []
    core = token
    words: list[str]
    if m := _NUMBER.match(core):
        words = _year_or_cardinal(core) if not m.group(2) and "," not in core else _cardinal(core)
    elif m := _ORDINAL.match(core):
        words = _spoken_words(_num2words(int(m.group(1)), to="ordinal"))
    elif m := _DECADE.match(core):
        digits = m.group(1)
        words = _plural(_year_or_cardinal(digits) if len(digits) == 4 else _cardinal(digits))
    elif m := _TIME.match(core):
        hour, minute = int(m.group(1)), int(m.group(2))
        words = _cardinal(str(hour)) + (
            []
            if minute == 0
            else ["oh", *_cardinal(str(minute))]
            if minute < 10
            else _cardinal(str(minute))
        )
    elif m := _SLASH_OR_RANGE.match(core):
        joiner = [] if m.group(2) == "/" else ["to"]
        words = _cardinal(m.group(1)) + joiner + _cardinal(m.group(3))
    else:
        # Mixed tokens (CO2, 3D, TED2009, 1-800-flowers): digits and letters spoken in turn.
        words = []
        for piece in re.split(r"(\d+(?:\.\d+)?)", core):
            if not piece:
                continue
            if _DIGIT_RUN.fullmatch(piece):
                words += _year_or_cardinal(piece)
            else:
                for symbol, spoken in _SYMBOL_WORDS.items():
                    piece = piece.replace(symbol, f" {spoken} ")
                words += [w.lower() for w in re.split(r"[^\w']+", piece) if w]
    return words


def case_label(word: str) -> int:
    """LOWER, CAPITALIZED or ALL_CAPS of a written word (``NASA's`` is ALL_CAPS)."""
    stem = word.split("'")[0] if len(word.split("'")[0]) > 1 else word
    letters = [ch for ch in stem if ch.isalpha()]
    if not letters:
        return LOWER
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return ALL_CAPS
    return CAPITALIZED if letters[0].isupper() and word[:1].isalpha() else LOWER


@dataclass
class LabelledText:
    """Recogniser-form words with their punctuation and casing label ids."""

    words: list[str] = field(default_factory=list)
    punct: list[int] = field(default_factory=list)
    case: list[int] = field(default_factory=list)

    def add(self, word: str, punct: int, case: int) -> None:
        self.words.append(word)
        self.punct.append(punct)
        self.case.append(case)

    def __len__(self) -> int:
        return len(self.words)


@dataclass(frozen=True)
class Variation:
    """Random variations that make the input look like every form the model will meet.

    Attributes:
        keep_digits: Probability of leaving a number written in digits (the IWSLT benchmark
            and some recognisers write digits).
        split_contractions: Probability of splitting ``don't`` into ``don 't`` as the IWSLT
            tokenisation does.
    """

    keep_digits: float = 0.2
    split_contractions: float = 0.3


NO_VARIATION = Variation(keep_digits=0.0, split_contractions=0.0)


def label_text(text: str, rng: random.Random, variation: Variation = NO_VARIATION) -> LabelledText:
    """Label cleaned, punctuated text (see the module docstring).

    Args:
        text: Output of :func:`clean_transcript`.
        rng: Source of the random variations.
        variation: How often to keep digits and split contractions.

    Returns:
        The labelled words; empty if the text has no words.
    """
    try:
        reference = parse_punctuated_text(expand_symbols(text))
    except InputError:
        return LabelledText()
    assert reference.cased is not None
    out = LabelledText()
    sentence_start = True
    n = len(reference.cased)
    for i, (written, tag) in enumerate(zip(reference.cased, reference.tags, strict=True)):
        stem = written.rstrip(".").lower()
        if (
            tag == "PERIOD"
            and i + 1 < n
            and (
                stem in _TITLES
                or (_DOTTED.match(written + ".") and not reference.cased[i + 1][:1].isupper())
            )
        ):
            tag = "O"  # "Mr. Smith", "the U.S. and": an abbreviation's dot, not a sentence end
        punct = PUNCT_TAGS.index(tag)
        case = case_label(written)
        has_digit = any(ch.isdigit() for ch in written)
        if has_digit and rng.random() < variation.keep_digits:
            spoken = [written.lower()]
        else:
            spoken = spoken_form(written)
        if not spoken:
            continue
        if has_digit and case == LOWER and sentence_start:
            case = CAPITALIZED  # a sentence starting with a number starts with a capital
        pieces: list[tuple[str, int]] = []
        for j, word in enumerate(spoken):
            word_case = case if j == 0 else (ALL_CAPS if case == ALL_CAPS else LOWER)
            apostrophe = word.find("'")
            if 0 < apostrophe < len(word) - 1 and rng.random() < variation.split_contractions:
                pieces += [(word[:apostrophe], word_case), (word[apostrophe:], LOWER)]
            else:
                pieces.append((word, word_case))
        for j, (word, word_case) in enumerate(pieces):
            out.add(word, punct if j == len(pieces) - 1 else O_ID, word_case)
        sentence_start = tag in SENTENCE_END
    return out


def read_talks(path: Path) -> Iterator[str]:
    """Raw transcripts from a ``talks.jsonl.gz`` file (one JSON object per line)."""
    for record in read_records(path):
        yield str(record["text"])


def read_corpus(path: Path) -> Iterator[str]:
    """Documents of a corpora file (``corpora/*.jsonl.gz``: ``{"id", "title", "text"}`` per
    line; already clean, so no :func:`clean_transcript`), without the validation split
    (:func:`validation_keys`)."""
    chosen = validation_keys(path)
    for record in read_records(path):
        if _split_key(record) not in chosen:
            yield str(record["text"])


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a ``*.jsonl.gz`` file, one per non-empty line."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield dict(json.loads(line))


#: Share of each corpora file's documents kept out of training as the validation split.
VALIDATION_SHARE = 0.01


def _split_key(record: dict[str, Any]) -> str:
    return str(record.get("id") or record.get("text", ""))


def _split_digest(record: dict[str, Any]) -> int:
    key = _split_key(record).encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


def is_validation(record: dict[str, Any]) -> bool:
    """Whether a hash of a corpora document's id (of its text when it has none) puts it in the
    validation split, so the split is the same on every run and machine. A file in which no
    document passes still gives one (:func:`validation_keys`)."""
    return _split_digest(record) % 10_000 < VALIDATION_SHARE * 10_000


def validation_keys(path: Path) -> frozenset[str]:
    """Ids of a corpora file's validation documents: those :func:`is_validation` picks or, in a
    file of few long documents (75 books) where it picks none, the one with the lowest hash, so
    every register has validation text."""
    chosen: set[str] = set()
    lowest: tuple[int, str] | None = None
    for record in read_records(path):
        key = _split_key(record)
        if is_validation(record):
            chosen.add(key)
        digest = _split_digest(record)
        if lowest is None or digest < lowest[0]:
            lowest = (digest, key)
    if not chosen and lowest is not None:
        chosen.add(lowest[1])
    return frozenset(chosen)


def write_validation(corpora: list[Path], folder: Path) -> list[Path]:
    """Write the validation split of each corpora file to ``folder`` as
    ``NAME.heldout.jsonl.gz`` (the held-out slices' format, so ``dictate eval registers FOLDER``
    measures it). These documents are never in training (:func:`read_corpus` skips them)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in corpora:
        name = path.name.removesuffix(".jsonl.gz")
        out = folder / f"{name}.heldout.jsonl.gz"
        chosen = validation_keys(path)
        with gzip.open(out, "wt", encoding="utf-8") as sink:
            for record in read_records(path):
                if _split_key(record) in chosen:
                    sink.write(json.dumps(record, ensure_ascii=False) + "\n")
        written.append(out)
    return written


@dataclass(frozen=True)
class AsrNoise:
    """Recogniser-like errors added to training words (the published recipes use about 15%).

    Attributes:
        rate: Share of words given an error.
        substitute: Of those errors, the share that replace the word with another one.
        delete: The share that drop the word; the rest insert a word after it.
        documents: Share of the documents given errors at all; the rest stay clean, so the
            model still sees clean text (typed-in or well-recognised speech).
    """

    rate: float = 0.15
    substitute: float = 0.5
    delete: float = 0.25
    documents: float = 1.0

    def __post_init__(self) -> None:
        rates = (self.rate, self.documents, self.substitute + self.delete)
        if not all(0.0 <= rate <= 1.0 for rate in rates):
            raise ValueError("noise rates must be in 0..1")


def add_asr_noise(
    text: LabelledText, rng: random.Random, noise: AsrNoise, vocabulary: list[str]
) -> LabelledText:
    """A copy of ``text`` with recogniser-like errors whose labels stay aligned.

    A substituted word keeps its punctuation and casing labels (the recogniser put another
    word in the same place of the sentence). A deleted word's punctuation moves to the word
    before it (a sentence end replaces a comma there; a first word carrying a sentence end is
    kept), and a sentence-initial capital moves to the word after it; a sentence all of whose
    words are deleted is gone. An inserted word (drawn from ``vocabulary``) is lowercase with no
    mark, and goes only after a word that does not end a sentence, so sentence starts keep
    their labels.
    """

    out = LabelledText()
    carry_case: int | None = None
    n = len(text)
    for i in range(n):
        word, punct, case = text.words[i], text.punct[i], text.case[i]
        if carry_case is not None:
            case, carry_case = max(case, carry_case), None
        draw = rng.random()
        if vocabulary and draw < noise.rate:
            kind = rng.random()
            if kind < noise.substitute:
                out.add(rng.choice(vocabulary), punct, case)
                continue
            ends = PUNCT_TAGS[punct] in SENTENCE_END
            if kind < noise.substitute + noise.delete and (len(out) or not ends):
                # The mark goes to the word before: a sentence end wins over a comma there.
                if len(out) and punct != O_ID:
                    before_ends = PUNCT_TAGS[out.punct[-1]] in SENTENCE_END
                    if out.punct[-1] == O_ID or (ends and not before_ends):
                        out.punct[-1] = punct
                at_start = not len(out) or PUNCT_TAGS[out.punct[-1]] in SENTENCE_END
                if at_start and case == CAPITALIZED:
                    carry_case = CAPITALIZED
                continue
            out.add(word, punct, case)
            if PUNCT_TAGS[punct] not in SENTENCE_END:
                out.add(rng.choice(vocabulary), O_ID, LOWER)
            continue
        out.add(word, punct, case)
    return out


def labelled_documents(
    talks: Path,
    seed: int,
    variation: Variation,
    corpora: dict[Path, float] | None = None,
    noise: AsrNoise | None = None,
) -> Iterator[LabelledText]:
    """The labelled training documents: every TED talk, then from each corpora file (the keys
    of ``corpora``, never a ``heldout/`` file) each document with the probability its value
    gives (the mixture; the validation split, :func:`validation_keys`, is skipped). With ``noise``,
    recogniser-like errors are added to the share ``noise.documents`` of the documents
    (:func:`~dictate.training.data.add_asr_noise`), drawing inserted and substituted words
    from the 5,000 most frequent words of the first 200 talks."""
    rng = random.Random(seed)
    # The noise draws from a stream of its own: with one shared stream, each noise rate kept
    # other documents (10.2M to 11.2M words in the noise-rate pilots), so the mixture changed
    # with the rate being tuned.
    noise_rng = random.Random(f"noise-{seed}")
    vocabulary = noise_vocabulary(talks) if noise is not None and noise.rate > 0 else []
    sources: list[tuple[Iterator[str], float, bool]] = [(read_talks(talks), 1.0, True)]
    for path, share in (corpora or {}).items():
        if "heldout" in path.parts:
            raise ValueError(f"{path} is held out for evaluation; never train on it")
        sources.append((read_corpus(path), share, False))
    for documents, share, ted in sources:
        for raw in documents:
            if share < 1.0 and rng.random() >= share:
                continue
            labelled = label_text(clean_transcript(raw) if ted else raw, rng, variation)
            if len(labelled) < 10:
                continue
            if (
                vocabulary
                and noise is not None
                and (noise.documents >= 1.0 or noise_rng.random() < noise.documents)
            ):
                labelled = add_asr_noise(labelled, noise_rng, noise, vocabulary)
            yield labelled


def noise_vocabulary(talks: Path, n_talks: int = 200, size: int = 5000) -> list[str]:
    """The ``size`` most frequent words of the first ``n_talks`` talks: what
    :func:`add_asr_noise` draws substituted and inserted words from."""
    counts: Counter[str] = Counter()
    for number, raw in enumerate(read_talks(talks)):
        if number >= n_talks:
            break
        counts.update(label_text(clean_transcript(raw), random.Random(0)).words)
    return [word for word, _ in counts.most_common(size)]


def noisy_reference(
    words: list[str], tags: list[str], noise: AsrNoise, seed: int, vocabulary: list[str]
) -> tuple[list[str], list[str]]:
    """An IWSLT-style reference (words and punctuation tags) put through the training noise:
    a validation set like ``test2011asr`` built from ``dev2012``, for tuning the noise rate
    without looking at the test set."""
    text = LabelledText()
    for word, tag in zip(words, tags, strict=True):
        text.add(word, PUNCT_TAGS.index(tag), LOWER)
    noisy = add_asr_noise(text, random.Random(seed), noise, vocabulary)
    return noisy.words, [PUNCT_TAGS[p] for p in noisy.punct]
