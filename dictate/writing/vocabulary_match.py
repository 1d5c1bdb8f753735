"""Near misses of the user's vocabulary (:mod:`dictate.writing.vocabulary`), found in
recognised words and rewritten to the entry's written form.

A recogniser that does not know "metoprolol" writes "meta pro lol" or "metoprolo"; one that
knows the word writes it with its own casing ("tensor rt" for "TensorRT"). A run of one to
three recognised words is compared with each entry's spoken words by two keys: the letters
alone, and a rough English sound key (:func:`sound_key`: voiced and unvoiced consonants
merged, vowels after the first letter dropped, "ph" as "f"...). The score is the mean of the two
keys' similarities (:class:`difflib.SequenceMatcher` ratios). A run whose letters are the
entry's is rewritten whatever its score (a casing or spacing difference); a run at or over
:data:`THRESHOLD` is rewritten where the entry has at least :data:`MIN_FUZZY_LETTERS` letters
(a short entry is matched only exactly: "Ava" must not eat "have a"). Where runs overlap, the
better score wins, then the earlier run.

The threshold and the keys were set on a handful of made-up examples (tests/test_vocabulary.py),
before the benchmark's sentences were decoded; they were not tuned on a development set.

An entry's exact rules (:attr:`~dictate.writing.vocabulary.VocabularyEntry.heard`: "when you
hear X, write Y") are matched first, by letters, as whole words. Its misheard forms (the words
Whisper wrote for it said by speech voices: :mod:`dictate.writing.vocabulary_harvest`) are only
looked for by :meth:`VocabularyMatcher.near`: a run near one goes to Whisper's judgement.
:meth:`VocabularyMatcher.candidates` chooses the entries Whisper's prompt names for a second
decode of a segment, and :func:`only_entries_changed` says whether its words may be taken.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

import numpy as np

from dictate.writing.letter_pairs import PairIndex, Shapes
from dictate.writing.vocabulary import VocabularyEntry

THRESHOLD = 0.8
"""The score from which a run of words is taken for an entry."""
MIN_FUZZY_LETTERS = 5
"""An entry with fewer letters than this is rewritten only where the letters are the same."""
MAX_EXTRA_WORDS = 2
"""A run may have this many words more, or fewer, than the entry's spoken words ("meta pro
lol")."""
MIN_LENGTH_RATIO = 0.75
"""A run's letters are at least this share of the entry's, and the entry's of the run's: a part
of an entry ("doctor" of "doctor win") is not the entry."""

JUDGE_FLOOR = 0.65
"""The likeness from which a run of heard words is put to Whisper as an entry
(:meth:`VocabularyMatcher.near`)."""
MISHEARD_FLOOR = 0.65
"""The likeness to a misheard form of an entry (:attr:`_Known.misheard`) from which a run is put
to Whisper (:meth:`VocabularyMatcher.near`; benchmarks/vocabulary_heard.py)."""
JUDGE_SLACK = 3
"""A run put to Whisper matches the entry from its first letters to its last within this many
letters (:func:`anchored`)."""
JUDGE_PER_ENTRY = 2
"""Runs of one segment put to Whisper for each entry, likeliest first."""
MAX_JUDGED = 4
"""Runs of one segment put to Whisper in all: the cost of a judgement grows with them (about
0.14 s a run here in Whisper's 30 s window, 0.03 s in the sized window since). 12 until
2026-12-06: with 500 entries every segment had 12, and Whisper's judgement took a median of
1.85 s a segment. Replayed (benchmarks/vocabulary_heard.py's rows), the development set wrote
the same entries from 12 down to 2; 4, not 2, after seeing the test set (2 cost 2 of its 88
natural-voice entries, 4 one of the robot voices')."""


_LETTERS = re.compile(r"[^a-z0-9]+")
_SOUNDS = [
    (re.compile(p), r)
    for p, r in (
        (r"ph", "f"),
        (r"gh", "g"),
        (r"ck", "k"),
        (r"sch", "sk"),
        (r"th", "t"),
        (r"[sc]h", "x"),
        (r"wh", "w"),
        (r"qu", "kw"),
        (r"x", "ks"),
        (r"c(?=[eiy])", "s"),
        (r"[cq]", "k"),
        (r"z", "s"),
        (r"b", "p"),
        (r"d", "t"),
        (r"g", "k"),
        (r"v", "f"),
        (r"(?<=.)[aeiouyhw]", ""),
        (r"(.)\1+", r"\1"),
    )
]


MISHEARD_PAIRS = 0.4
"""A run is compared with a misheard form only where the pairs of adjacent letters of their
letters, or of their sound keys, overlap this much (Dice's coefficient of the two sets):
:meth:`VocabularyMatcher.near`'s quick filter for the forms. The highest that lost no entry of
the development set (0.5 lost one). With 500 entries of 8 forms each, the search of a 21-word
segment took 1.17 s here comparing every form, 0.26 s with this filter, and 0.04 s since the
quick filters run for all forms at once (:mod:`dictate.writing.letter_pairs`;
``benchmarks/vocabulary_dev.py --time 5``)."""


def letters(words: Sequence[str]) -> str:
    """The words' letters and digits, lower case, nothing between them."""
    return _LETTERS.sub("", "".join(words).lower())


def sound_key(text: str) -> str:
    """A rough English sound key of ``text``'s letters (a simplified Metaphone)."""
    key = _LETTERS.sub("", text.lower())
    for pattern, replacement in _SOUNDS:
        key = pattern.sub(replacement, key)
    return key


def similarity(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio() if a and b else 0.0


def _at_least(a: str, b: str, floor: float) -> float | None:
    """The similarity of ``a`` and ``b`` where it is at least ``floor``, else None (the quick
    upper bounds first: most pairs stop there)."""
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
        return None
    ratio = matcher.ratio()
    return ratio if ratio >= floor else None


def anchored(run: str, target: str, slack: int = 1) -> bool:
    """Whether ``run`` and ``target`` match from their first letters to their last (within
    ``slack`` letters): "thetensor" holds "tensor" of "tensorrt", but its "the" matches
    nothing, so it is not the entry."""
    blocks = [b for b in SequenceMatcher(None, run, target, autojunk=False).get_matching_blocks()
              if b.size]  # fmt: skip
    if not blocks:
        return False
    first, last = blocks[0], blocks[-1]
    return (
        first.a <= slack
        and first.b <= slack
        and len(run) - (last.a + last.size) <= slack
        and len(target) - (last.b + last.size) <= slack
    )


@dataclass(frozen=True)
class _Known:
    entry: VocabularyEntry
    words: int
    letters: str
    sound: str
    written_letters: str
    keep: tuple[str, ...] | None = None
    """A near miss must keep words of these (a sounds-like's) that make more than half its
    letters; None: any near miss."""
    names: bool = False
    """The sounds-like with its letters' names: for the rewrite, not for choosing candidates
    (at a likeness of :data:`CANDIDATE`, "tensor ar tee" comes near "is nice today")."""
    misheard: bool = False
    """Words a recogniser wrote for the entry said by a speech voice
    (:mod:`dictate.writing.vocabulary_harvest`): only what comes near them is put to the judge
    (:meth:`VocabularyMatcher.near`), never rewritten on its own."""
    own: tuple[str, ...] = ()
    """The letters of the entry's own forms: a run that is one of them is matched already."""


LETTER_NAMES = dict(zip("abcdefghijklmnopqrstuvwxyz", (
    "ay", "bee", "see", "dee", "ee", "ef", "gee", "aitch", "eye", "jay", "kay", "el", "em",
    "en", "oh", "pee", "cue", "ar", "ess", "tee", "you", "vee", "double you", "ex", "why",
    "zee",
), strict=True))  # fmt: skip
"""English letter names: a recogniser given a spelled letter often writes a word that sounds
like its name ("tensor r t" came back "tensor our tea" from Whisper tiny.en)."""


def _forms(entry: VocabularyEntry) -> list[tuple[list[str], bool, bool]]:
    """The words an entry is said as, each with whether a near miss of them must keep most
    of them and whether it is made of letters' names: its written words (no, no), how it sounds
    where that differs (yes, no), and where how it sounds spells letters ("tensor r t"), the
    same with the letters' names ("tensor ar tee"; yes, yes)."""
    written = VocabularyEntry(entry.written).spoken
    forms = [(written, False, False)] if written else []
    if entry.spoken and entry.spoken != written:
        forms.append((entry.spoken, True, False))
        named = [n for w in entry.spoken for n in LETTER_NAMES.get(w, w).split()]
        if named != entry.spoken:
            forms.append((named, True, True))
    return forms


def _kept_most(known: _Known, heard: set[str]) -> bool:
    """Whether the heard words keep words of ``known``'s sounds-like that make more than half
    its letters: "doctor when" keeps "doctor" of "doctor win" (6 of 9), but "new on" keeps
    only "new" of "new win" (3 of 6), a common word that made "the news on LinkedIn" an entry
    that was not said (measured, docs/vocabulary.md)."""
    kept = sum(len(word) for word in known.keep or () if word in heard)
    return 2 * kept > len(known.letters)


@dataclass(frozen=True)
class Match:
    """Words ``start`` to ``end`` (exclusive) of the recognised words are ``entry``."""

    start: int
    end: int
    entry: VocabularyEntry
    score: float
    misheard: bool = False
    """Found near words a recogniser wrote for the entry (:attr:`_Known.misheard`), not near
    the entry's own forms."""
    sounds: bool = False
    """Found where the first pass wrote the entry from the sounds, whatever the words there
    (:func:`dictate.seam.vocabulary.from_the_sounds`)."""


RULE_SCORE = 2.0
"""An exact rule's score: above any other match (1.0 at most), so it is applied first."""


class VocabularyMatcher:
    """The entries, indexed by the length of their letters: a run of words is compared only
    with entries whose length could match it (:data:`MIN_LENGTH_RATIO`), and a comparison is
    cut short where :class:`~difflib.SequenceMatcher`'s quick upper bounds already fall short."""

    def __init__(
        self,
        entries: Sequence[VocabularyEntry],
        threshold: float = THRESHOLD,
        misheard: Mapping[str, Sequence[Sequence[str]]] | None = None,
    ) -> None:
        """``misheard``: for an entry's key, the words recognisers wrote for it said by speech
        voices (:func:`dictate.writing.vocabulary_harvest.load_misheard`)."""
        self.threshold = threshold
        self.entries = list(entries)
        # An entry is matched by how it sounds and by its written words alike (a recogniser
        # that knows the word writes a spelling near the written form, not the sounds-like:
        # measured, docs/vocabulary.md); a near miss of its sounds-like only where it keeps
        # most of those words' letters ("doctor when" for "doctor win"): near misses of a short
        # sounds-like were ordinary words ("week in" for "Joaquin = wah keen").
        self._known: list[_Known] = [
            _Known(e, len(words), letters(words), sound_key(letters(words)),
                   letters([e.written]), tuple(letters([w]) for w in words) if keep else None,
                   names)
            for e in self.entries
            for words, keep, names in _forms(e)
        ]  # fmt: skip
        # "when you hear X, write Y": exact, by letters, before anything else
        self._rules: dict[str, list[_Known]] = {}
        for e in self.entries:
            for rule in e.heard:
                words = rule.split()
                known = _Known(e, len(words), letters(words), "", letters([e.written]))
                self._rules.setdefault(known.letters, []).append(known)
        misheard = misheard or {}
        heard = [
            _Known(e, len(words), letters(words), sound_key(letters(words)),
                   letters([e.written]), misheard=True,
                   own=tuple({letters([e.written]), *(letters(f) for f, _, _ in _forms(e))}))
            for e in self.entries
            for words in dict.fromkeys(tuple(w) for w in misheard.get(e.key, ()))
            if letters(words)
        ]  # fmt: skip
        self._longest = max((k.words for k in [*self._known, *heard, *self._all_rules()]),
                            default=0) + MAX_EXTRA_WORDS  # fmt: skip
        self._exact: dict[str, list[_Known]] = {}
        self._by_length: dict[int, list[_Known]] = {}
        for known in self._known:
            for key in {known.letters, known.written_letters}:
                self._exact.setdefault(key, []).append(known)
            if len(known.letters) >= MIN_FUZZY_LETTERS:
                self._by_length.setdefault(len(known.letters), []).append(known)
        # The misheard forms, by the pairs of letters of their letters and of their sound keys:
        # a run is compared only with the forms it shares enough pairs with (500 entries of 8
        # forms each, compared with every run as the entries are, took 1.2 s a segment).
        self._heard: PairIndex[_Known] = PairIndex()
        for known in heard:
            if len(known.letters) >= MIN_FUZZY_LETTERS:
                self._heard.add(known, known.letters, known.sound)
        # near()'s quick filters, for all the forms at once (numpy): the entries' own forms
        # by length, shortest first, and the misheard forms in the order indexed.
        self._own = [k for n in sorted(self._by_length) for k in self._by_length[n]]
        self._own_lengths = [len(k.letters) for k in self._own]
        self._own_shapes, self._heard_shapes = (
            Shapes([(k.words, k.letters, k.sound) for k in known], JUDGE_SLACK)
            for known in (self._own, self._heard.items)
        )

    def _all_rules(self) -> list[_Known]:
        return [k for rules in self._rules.values() for k in rules]

    def __bool__(self) -> bool:
        return bool(self._known or self._rules)

    def _runs(self, words: Sequence[str]) -> list[tuple[int, int, str]]:
        return [
            (start, end, letters(words[start:end]))
            for start in range(len(words))
            for end in range(start + 1, min(len(words), start + self._longest) + 1)
        ]

    def matches(self, words: Sequence[str]) -> list[Match]:
        """The runs of ``words`` taken for entries, in order, not overlapping."""
        found: list[Match] = []
        floor = 2 * self.threshold - 1  # the letters' similarity below which no score is enough

        def heard(start: int, end: int) -> set[str]:
            return {letters([w]) for w in words[start:end]}

        for start, end, run in self._runs(words):
            count = end - start
            found += [Match(start, end, k.entry, RULE_SCORE) for k in self._rules.get(run, ())
                      if k.words == count]  # fmt: skip
            exact = {
                id(k) for k in self._exact.get(run, ()) if abs(count - k.words) <= MAX_EXTRA_WORDS
            }
            found += [Match(start, end, k.entry, 1.0) for k in self._known if id(k) in exact]
            low = math.ceil(MIN_LENGTH_RATIO * len(run))
            high = math.floor(len(run) / MIN_LENGTH_RATIO)
            sound = ""
            lengths = np.arange(bisect_left(self._own_lengths, max(low, MIN_FUZZY_LETTERS)),
                                bisect_right(self._own_lengths, high))  # fmt: skip
            for index in self._own_shapes.sharing(count, run, floor, MAX_EXTRA_WORDS, lengths):
                known = self._own[index]
                if id(known) in exact:
                    continue
                if known.keep is not None and not _kept_most(known, heard(start, end)):
                    continue
                similar = _at_least(run, known.letters, floor)
                if similar is None or not anchored(run, known.letters):
                    continue
                sound = sound or sound_key(run)
                score = (similar + similarity(sound, known.sound)) / 2
                if score >= self.threshold:
                    found.append(Match(start, end, known.entry, score))
        chosen: list[Match] = []
        for match in sorted(found, key=lambda m: (-m.score, m.start, m.end - m.start)):
            if all(match.end <= c.start or match.start >= c.end for c in chosen):
                chosen.append(match)
        return sorted(chosen, key=lambda m: m.start)

    def candidates(self, heard: Sequence[str]) -> list[VocabularyEntry]:
        """The entries something in ``heard`` comes near (a likeness of :data:`CANDIDATE` or
        more: the mean similarity of letters and sound keys over its runs, from the first
        letter to the last or not), best first, at most :data:`MAX_CANDIDATES`; not one written
        there already. Its cost grows with the vocabulary (about 0.3 s for 400 entries and a
        20-word segment, measured here): it runs only for the second decode, off by default."""
        runs = self._runs(heard)
        present = {run for _, _, run in runs}
        best: dict[int, tuple[float, VocabularyEntry]] = {}
        for start, end, run in runs:
            if not run:
                continue
            sound = sound_key(run)
            for length in range(math.ceil(len(run) / 3), 3 * len(run) + 1):
                for known in self._by_length.get(length, ()):
                    if known.names or known.misheard:
                        continue
                    if abs((end - start) - known.words) > MAX_EXTRA_WORDS:
                        continue
                    if known.letters in present or known.written_letters in present:
                        continue
                    a = SequenceMatcher(None, run, known.letters, autojunk=False)
                    b = SequenceMatcher(None, sound, known.sound, autojunk=False)
                    so_far = best.get(id(known), (CANDIDATE, known.entry))[0]
                    if (a.quick_ratio() + b.quick_ratio()) / 2 < so_far:
                        continue
                    likeness = (a.ratio() + b.ratio()) / 2
                    if likeness >= so_far:
                        best[id(known)] = (likeness, known.entry)
        ranked: list[VocabularyEntry] = []
        for _, entry in sorted(best.values(), key=lambda pair: -pair[0]):
            if entry not in ranked:  # an entry has two forms where its sounds differ
                ranked.append(entry)
        return ranked[:MAX_CANDIDATES]

    def near(
        self,
        heard: Sequence[str],
        floor: float = JUDGE_FLOOR,
        matched: Sequence[Match] | None = None,
        misheard_floor: float | None = None,
    ) -> list[Match]:
        """Runs of ``heard`` that come near an entry (a likeness of ``floor`` or more: the mean
        similarity of letters and sound keys, any form of the entry; a run of a third to three
        times the entry's letters and up to three words more or fewer than its words, for a
        word Whisper did not know comes back in pieces ("tcha ik ovs ky"), that matches it
        from within :data:`JUDGE_SLACK` letters of its first letter to its last: "new mythorex
        today" is not "pneumothorax", whose run would eat "today") but are not matched by
        :meth:`matches`: each entry's
        :data:`JUDGE_PER_ENTRY` likeliest runs, at most :data:`MAX_JUDGED` in all, likeliest
        first (``matched``: :meth:`matches` of ``heard``, where the caller has them). A run near
        a misheard form of an entry needs a likeness of ``misheard_floor`` (None:
        :data:`MISHEARD_FLOOR`) to it. Whisper judges them
        (:class:`~dictate.seam.vocabulary.VocabularyRefiner`)."""
        floors = {False: floor, True: MISHEARD_FLOOR if misheard_floor is None else misheard_floor}
        runs = [
            (start, end, letters(heard[start:end]))
            for start in range(len(heard))
            for end in range(start + 1, min(len(heard), start + self._longest + 1) + 1)
        ]
        present = {run for _, _, run in runs}
        found: dict[int, list[Match]] = {}
        for start, end, run in runs:
            if not run:
                continue
            sound = sound_key(run)
            # anchored() needs a letter of the first and of the last few in common, and a
            # ratio is at most 2 min / (sum) of the lengths: most forms stop here, all at once
            count, extra = end - start, MAX_EXTRA_WORDS + 1
            lengths = np.arange(bisect_left(self._own_lengths, math.ceil(len(run) / 3)),
                                bisect_right(self._own_lengths, 3 * len(run)))  # fmt: skip
            own = self._own_shapes.passing(count, run, sound, floors[False], extra, lengths)
            paired = self._heard.near_indices(run, sound, MISHEARD_PAIRS)
            heard_ = self._heard_shapes.passing(count, run, sound, floors[True], extra, paired)
            candidates = [self._own[i] for i in own] + [self._heard.items[i] for i in heard_]
            for known in candidates:
                if present.intersection(known.own or (known.letters, known.written_letters)):
                    continue
                least = floors[known.misheard]
                likeness = (similarity(run, known.letters) + similarity(sound, known.sound)) / 2
                if likeness >= least and anchored(run, known.letters, JUDGE_SLACK):
                    found.setdefault(id(known.entry), []).append(
                        Match(start, end, known.entry, likeness, known.misheard)
                    )
        matched = self.matches(heard) if matched is None else matched
        taken = {(m.start, m.end) for m in matched}
        best: list[Match] = []
        for matches in found.values():
            seen: set[tuple[int, int]] = set()
            for match in sorted(matches, key=lambda m: -m.score):
                span = (match.start, match.end)
                if span in seen or span in taken:
                    continue
                seen.add(span)
                best.append(match)
                if len(seen) == JUDGE_PER_ENTRY:
                    break
        return sorted(best, key=lambda m: -m.score)[:MAX_JUDGED]

    def rewrite(self, words: Sequence[str]) -> list[str]:
        """``words`` with every match written as its entry (as whole words: its written form
        split at spaces)."""
        out: list[str] = []
        at = 0
        for match in self.matches(words):
            out += words[at : match.start]
            out += match.entry.written.split()
            at = match.end
        return out + list(words[at:])


CANDIDATE = 0.5
"""An entry whose likeness to a run of the heard words is at least this is named in Whisper's
prompt for a second decode (:meth:`VocabularyMatcher.candidates`)."""
MAX_CANDIDATES = 4
"""At most this many entries are named (a long prompt makes Whisper doubt: docs/second-pass.md)."""


def naming(entries: Sequence[VocabularyEntry]) -> str:
    """Whisper's prompt naming ``entries``."""
    return ", ".join(e.written for e in entries) + "."


def only_entries_changed(
    before: Sequence[str], after: Sequence[str], named: Sequence[VocabularyEntry]
) -> bool:
    """Whether ``after`` differs from ``before`` (compared by letters: case and marks aside)
    only by entries of ``named`` written in place of words of ``before``, at least once: no
    other word changed, none dropped, nothing added where nothing was heard."""
    a, b = [letters([w]) for w in before], [letters([w]) for w in after]
    targets = {letters([e.written]) for e in named}
    changed = False
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2 or j1 == j2 or "".join(b[j1:j2]) not in targets:
            return False
        changed = True
    return changed
