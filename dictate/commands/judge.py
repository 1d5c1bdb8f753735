"""A command said apart, decided by the audio: Whisper scores the command phrases that come near
what it heard against the segment's audio, beside its own free decode (:func:`decide`).

A short phrase said on its own is a hard thing to recognise as free text: Whisper writes "comma"
as "Comment." and "undo that" as "And do that.". Asked how likely it finds each text as the words
of that audio (its forced alignment, :func:`dictate.asr.whisper_score.text_scores`), it finds
the command it missed far likelier than every other command, and nearly as likely as its own
decode; for an ordinary phrase ("of course", "all") every command is far below the free decode
and the best two are close together. So a command is taken only where

* its words are not among other words heard ("colon cancer": a command's words in a phrase are
  words),
* it is one of the :data:`SHORTLIST` phrases whose letters come nearest the words heard
  (:func:`shortlist`; scoring every phrase costs about 1.3 s a segment on two cores, a
  shortlist about 0.1 s once the audio is encoded),
* its score is at most :attr:`Margins.free` below the free decode's,
* at least :attr:`Margins.next` above the next phrase of the shortlist,
* at least :attr:`Margins.floor` in its own right,
* and Whisper did not hear its words with an ending ("commas", "periods": it decoded the
  command's own sounds, and more).

The margins were chosen on a development set (the Piper voice at two settings no target is
measured on, two synthetic voices, ordinary phrases none of the test set's:
``benchmarks/command_judge.py``); docs/voice-commands.md has the replay and the measurements.
Scores are log probabilities, each text scored on its own: the same audio and words give the
same decision, whatever else was asked and however long it took.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dictate.edit_distance import edit_distance

SHORTLIST = 4
"""Command phrases scored for a segment: those whose letters come nearest the words heard."""


@dataclass(frozen=True)
class Margins:
    """How clearly a command must win to be taken (log probability, natural log)."""

    free: float
    """The least (command's score - the free decode's score): negative, a command may score
    below Whisper's own decode of the audio and still be what was said."""
    next: float
    """The least (command's score - the next shortlisted command's score)."""
    sure: float = 1.01
    floor: float = -1e9
    """The least score of the command itself: Whisper must find the phrase likely in its own
    right, not only less unlikely than a decode it was unsure of (a name it never heard,
    "Siobhan", scores every text low)."""
    """A word heard with this probability or more that the command lacks keeps the words as
    heard ("come on" heard at 0.98 is not "comma"; "comment" at 0.25 may be)."""


MARGINS = Margins(free=-7.0, next=1.0, sure=0.9, floor=-8.5)
"""Chosen on the development set (``benchmarks/command_judge.py tune``; docs/voice-commands.md,
"The command judge"). On its natural-voice half (126 commands said apart, 238 ordinary
phrases chosen to sound like commands: "coma", "karma", "come on"), these carried out 116
commands and took 3 ordinary phrases for one; without the floor, 118 and 9; with a free margin
of -5, 113 and 3. With its two synthetic voices too: 220 of 252 and 9 of 476 (without the
floor, 225 and 35). With 40 more look-alikes added on 2026-12-06 (plurals, names: 316 in
all) and the rule for a command heard with an ending: 116 and 10 (one "kamala" heard as
"comma" itself, never judged); a floor of -7 would take 8 and carry out 110, two of them
README commands fewer."""


def _letters(words: Sequence[str]) -> str:
    return "".join(c for w in words for c in w.lower() if c.isalpha())


MARK_DISTANCE = 0.6
"""A closed segment's first-pass words this near a command phrase in letters (or two words or
fewer) may be a command: until it is settled the live words show a mark in their place
(:func:`looks_like_command`). Of the development set's commands said apart, Whisper's words
were this near for 239 of 252 (all but misheard ones such as "tuesday" for "choose eight");
short sentences come to 0.63-0.74 ("the coffee is still hot", "thank you") and keep their
greyed words."""


def looks_like_command(heard: Sequence[str], phrases: Sequence[str]) -> bool:
    """Whether words heard may be a command, for what is shown while it is decided (never for
    the decision, which is the audio's: :func:`decide`)."""
    if len(heard) <= 2:
        return True
    said = _letters(heard)
    return any(
        edit_distance(said, letters) <= MARK_DISTANCE * max(len(said), len(letters))
        for letters in (_letters(p.split()) for p in phrases)
    )


def shortlist(heard: Sequence[str], phrases: Sequence[str], size: int = SHORTLIST) -> list[str]:
    """The ``size`` phrases whose letters are nearest those of ``heard`` (edit distance over
    the longer length), nearest first; ties in the order of ``phrases``."""
    said = _letters(heard)

    def distance(phrase: str) -> float:
        letters = _letters(phrase.split())
        return edit_distance(said, letters) / max(len(said), len(letters), 1)

    return sorted(phrases, key=distance)[:size]


def _inside(phrase: list[str], heard: list[str]) -> bool:
    """Whether ``phrase`` stands in ``heard`` as its words, with other words beside it."""
    n = len(phrase)
    return len(heard) > n and any(heard[i : i + n] == phrase for i in range(len(heard) - n + 1))


ENDINGS = ("s", "es", "'s", "d", "ed", "ing")
"""Endings a word heard may have beyond a command's word and still be that word, inflected."""


def _inflected(phrase: list[str], heard: list[str]) -> bool:
    """Whether ``heard`` is ``phrase`` with an ending on some of its words ("commas",
    "periods", "new lines"): the command's own sounds, and more."""
    return (
        len(heard) == len(phrase)
        and heard != phrase
        and all(h == w or h in [w + e for e in ENDINGS] for h, w in zip(heard, phrase, strict=True))
    )


def decide(
    heard: Sequence[str],
    scores: Mapping[str, float],
    free: float | None,
    margins: Margins = MARGINS,
    size: int = SHORTLIST,
    confidences: Sequence[float] = (),
) -> str | None:
    """The command phrase the audio says, or None for the words as heard.

    Args:
        heard: The free decode's words.
        scores: Each command phrase's score on the audio (at least the shortlist's).
        free: The free decode's own score (its words joined by spaces); None where it heard
            nothing.
        confidences: The probability of each word of ``heard`` (Whisper's), if known.
    """
    names = shortlist(heard, sorted(scores), size)
    ranked = sorted(names, key=lambda p: (-scores[p], p))
    if not ranked:
        return None
    best = ranked[0]
    phrase = best.split()
    if _inside(phrase, [w.lower() for w in heard]):
        return None  # heard said, with other words: "colon cancer", "a period drama"
    if any(p >= margins.sure and w not in phrase for w, p in zip(heard, confidences, strict=False)):
        return None
    if scores[best] < margins.floor:
        return None
    if free is not None and scores[best] - free < margins.free:
        return None
    if _inflected(phrase, [w.lower() for w in heard]):
        return None  # Whisper heard the command's words with an ending: "commas", "periods"
    if len(ranked) > 1 and scores[best] - scores[ranked[1]] < margins.next:
        return None
    return best
