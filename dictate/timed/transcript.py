"""A dictation's text with the time of every word: Markdown, JSON, SubRip and WebVTT.

:class:`Transcript` is fed a pipeline's events in order (:meth:`Transcript.add`). The text is
the one :class:`~dictate.editing.apply.EventDocument` builds from them, so it is exactly what
``dictate transcribe`` prints, voice commands carried out. The times come from the
recogniser's words (:class:`~dictate.events.Segment`) in three steps, each an alignment on
letters and digits (:mod:`dictate.editing.word_times`), so no difference between what was heard and
what is written breaks it:

1. each finalized sentence as said (``Finalized.spoken``, or the sentence) against the
   recognised words not used yet: spelled letters joined ("u s" -> "US"), spoken punctuation
   and commands ("comma", "new paragraph") with no word of their own, words a "scratch that"
   dropped, all fall out of the match;
2. the written sentence against the said one ("$20" takes the time of "twenty dollars");
3. the final text against all the sentences finalized (a word "scratch that", "undo that" or
   "delete last word" removed is not in the text; a word "select ... / afternoon" put in gets
   the time of the one it replaced).

A word with no match at all takes its share of the gap between its neighbours; times then run
forward and lie within the audio (:func:`dictate.editing.word_times.fill`).

Sentences are the finalized ones (a sentence a pause committed open and the words that went on
with it are one). Paragraphs are the text's: "new paragraph" ends one. A text with no paragraph
break (audio said without commands) is cut into paragraphs for Markdown and JSON: a new one
begins at a sentence after a pause of :data:`PARAGRAPH_PAUSE` seconds, or after
:data:`PARAGRAPH_SENTENCES` sentences. :meth:`Transcript.to_text` is never cut.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dictate.editing.apply import EventDocument
from dictate.editing.text import CLOSING_MARKS
from dictate.editing.word_times import Timed, align, align_words, fill, key
from dictate.events import Event, Finalized, Finished, Segment
from dictate.timed.subtitles import CueWord, cues, to_srt, to_vtt

PARAGRAPH_PAUSE = 2.5
"""Seconds of silence before a sentence that begin a new paragraph (text without breaks)."""
PARAGRAPH_SENTENCES = 6
"""Sentences after which a new paragraph begins (text without breaks)."""
WINDOW = 400
"""Recognised words, from the first not used yet, that a finalized sentence is looked for in."""
JSON_FORMAT = "dictate-transcript"
JSON_VERSION = 1


@dataclass
class Word(Timed):
    """A word of the text: its time, its sentence and paragraph (indices), and whether a line
    or paragraph break comes before it."""

    sentence: int = 0
    paragraph: int = 0
    new_line: bool = False


@dataclass
class Sentence:
    text: str
    start: float
    end: float
    paragraph: int
    words: list[Word] = field(default_factory=list)


@dataclass
class Paragraph:
    start: float
    end: float
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The paragraph's sentences; a "new line" said in it stays a line break."""
        parts: list[str] = []
        for sentence in self.sentences:
            for word in sentence.words:
                if parts:
                    parts.append("\n" if word.new_line else " ")
                parts.append(word.text)
        return "".join(parts)


class Transcript:
    """The text of a run's events with times (see the module docstring).

    Args:
        duration: The audio's length in seconds; by default the length the
            :class:`~dictate.events.Finished` event gives (else the last word's end).
    """

    def __init__(self, duration: float | None = None) -> None:
        self.duration = duration
        self._document = EventDocument()
        self._heard: list[Timed] = []  # the recogniser's words, in order
        self._used = 0  # the recognised words before this one are taken by sentences
        self._said: list[tuple[Timed, int]] = []  # finalized words, with their sentence number
        self._sentences = 0
        self._built: tuple[list[Word], float] | None = None

    def add(self, event: Event) -> None:
        """The next event of the run."""
        self._built = None
        self._document.apply(event)
        if isinstance(event, Segment):
            self._heard += [
                Timed(w.text, float(w.start), float(w.end), float(w.confidence))
                for w in event.words
                if w.text.strip()
            ]
        elif isinstance(event, Finalized):
            self._finalized(event)
        elif isinstance(event, Finished) and self.duration is None and event.audio_seconds > 0:
            self.duration = event.audio_seconds

    def _finalized(self, event: Finalized) -> None:
        spoken = (
            event.spoken if event.spoken and len(event.spoken) == len(event.sentences) else None
        )
        for index, sentence in enumerate(event.sentences):
            said = (spoken[index] if spoken else sentence).split()
            window = self._heard[self._used : self._used + WINDOW]
            timed, after = align(said, window, spans=False, islands=12)
            self._used += after
            written = sentence.split()
            if written != said:
                timed = align(written, timed)[0]
            if not (index == 0 and event.continues and self._said):
                self._sentences += 1
            elif timed and not key(timed[0].text) and timed[0].text[0] in CLOSING_MARKS:
                # A mark said after a pause: the text has it on the word before (kept alike,
                # the final alignment has nothing to search for).
                self._said[-1][0].text += timed.pop(0).text
            self._said += [(word, self._sentences) for word in timed]

    # -- the text and its words ------------------------------------------------------------

    def to_text(self) -> str:
        """The text, as ``dictate transcribe`` prints it (no final newline)."""
        return self._document.text.strip()

    def _words(self) -> tuple[list[Word], float]:
        """The text's words with times, sentences and paragraphs; the duration."""
        if self._built is not None:
            return self._built
        words: list[Word] = []
        paragraph, blank, new_line = 0, False, False
        for line in self.to_text().split("\n"):
            if not line.strip():
                blank = True
                continue
            if blank and words:
                paragraph, new_line = paragraph + 1, False
            blank = False
            for n, token in enumerate(line.split()):
                words.append(Word(token, paragraph=paragraph, new_line=new_line and n == 0))
            new_line = True
        said = [w for w, _ in self._said]
        timed, behind = align_words([w.text for w in words], said)
        known = max((w.end or 0.0 for w in self._heard), default=0.0)
        duration = max(0.0, float(self.duration if self.duration is not None else known))
        fill(timed, duration)
        sentence, last = -1, None
        for n, (word, time) in enumerate(zip(words, timed, strict=True)):
            word.start, word.end, word.confidence = time.start, time.end, time.confidence
            source = behind[n]
            number = None if source is None else self._said[source][1]
            if n == 0 or word.paragraph != words[n - 1].paragraph or number not in (None, last):
                sentence += 1
            last = number if number is not None else last
            word.sentence = sentence
        self._built = (words, duration)
        return self._built

    @property
    def audio_seconds(self) -> float:
        """The length the times lie within: the audio's, else the last recognised word's end."""
        return self._words()[1]

    def sentences(self) -> list[Sentence]:
        words, _ = self._words()
        found: list[Sentence] = []
        for word in words:
            if not found or word.sentence != len(found) - 1:
                found.append(Sentence("", word.start or 0.0, 0.0, word.paragraph))
            found[-1].words.append(word)
        for sentence in found:
            sentence.text = " ".join(w.text for w in sentence.words)
            sentence.end = max(sentence.words[-1].end or 0.0, sentence.start)
        return found

    def paragraphs(self) -> list[Paragraph]:
        """The paragraphs: the text's, else cut at long pauses (see the module docstring)."""
        sentences = self.sentences()
        breaks = any(s.paragraph for s in sentences)
        found: list[Paragraph] = []
        for sentence in sentences:
            if not found:
                start_new = True
            elif breaks:
                start_new = sentence.paragraph != found[-1].sentences[-1].paragraph
            else:
                start_new = (
                    sentence.start - found[-1].end >= PARAGRAPH_PAUSE
                    or len(found[-1].sentences) >= PARAGRAPH_SENTENCES
                )
            if start_new:
                found.append(Paragraph(sentence.start, sentence.end))
            found[-1].sentences.append(sentence)
            found[-1].end = max(found[-1].end, sentence.end)
        return found

    # -- the formats -------------------------------------------------------------------------

    def to_markdown(self) -> str:
        """Each paragraph after its start time, "[HH:MM:SS] ..."; paragraphs apart by a blank
        line. The words are as in :meth:`to_text` (no Markdown markup is added or escaped)."""
        return "".join(
            f"{'' if n == 0 else chr(10)}[{clock(p.start)}] {p.text}\n"
            for n, p in enumerate(self.paragraphs())
        )

    def to_json(self) -> str:
        """A JSON document: the text, every word with start, end and confidence, the sentences
        and paragraphs with their times (seconds, to the millisecond)."""
        _, duration = self._words()
        paragraphs = self.paragraphs()
        sentences = [s for p in paragraphs for s in p.sentences]
        document: dict[str, Any] = {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "duration": _round(duration),
            "text": self.to_text(),
            "paragraphs": [
                {
                    "start": _round(p.start),
                    "end": _round(p.end),
                    "text": p.text,
                    "sentences": [sentences.index(s) for s in p.sentences],
                }
                for p in paragraphs
            ],
            "sentences": [
                {
                    "start": _round(s.start),
                    "end": _round(s.end),
                    "text": s.text,
                    "paragraph": n,
                }
                for n, p in enumerate(paragraphs)
                for s in p.sentences
            ],
            "words": [
                {
                    "text": w.text,
                    "start": _round(w.start or 0.0),
                    "end": _round(w.end or 0.0),
                    "confidence": None if w.confidence is None else round(w.confidence, 3),
                    "sentence": n,
                }
                for n, s in enumerate(sentences)
                for w in s.words
            ],
        }
        return _dump(document)

    def cue_words(self) -> list[CueWord]:
        words, _ = self._words()
        return [
            CueWord(
                w.text,
                w.start or 0.0,
                w.end or 0.0,
                sentence_start=n == 0 or w.sentence != words[n - 1].sentence,
                new_block=w.new_line or (n > 0 and w.paragraph != words[n - 1].paragraph),
            )
            for n, w in enumerate(words)
        ]

    def to_srt(self) -> str:
        """SubRip subtitles (see :mod:`dictate.timed.subtitles` for how cues are cut)."""
        return to_srt(cues(self.cue_words(), self._words()[1]))

    def to_vtt(self) -> str:
        """WebVTT subtitles (see :mod:`dictate.timed.subtitles` for how cues are cut)."""
        return to_vtt(cues(self.cue_words(), self._words()[1]))

    def render(self, format: str) -> str:
        """The transcript in ``format``: "txt", "md", "json", "srt" or "vtt"."""
        if format == "txt":
            text = self.to_text()
            return text + "\n" if text else ""
        return {
            "md": self.to_markdown,
            "json": self.to_json,
            "srt": self.to_srt,
            "vtt": self.to_vtt,
        }[format]()


def _dump(document: dict[str, Any]) -> str:
    """``document`` as JSON, one member a line and each item of a list on a line of its own."""
    members = []
    for name, value in document.items():
        head = json.dumps(name) + ": "
        if isinstance(value, list) and value:
            items = ",\n".join("  " + json.dumps(v, ensure_ascii=False) for v in value)
            members.append(f" {head}[\n{items}\n ]")
        else:
            members.append(f" {head}{json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(members) + "\n}\n"


def clock(seconds: float) -> str:
    """``HH:MM:SS`` (whole seconds, rounded down)."""
    whole = int(max(0.0, seconds))
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _round(seconds: float) -> float:
    return round(float(seconds), 3)
