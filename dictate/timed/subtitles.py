"""Subtitle cues from timed words, written as SubRip (``srt``) and WebVTT (``webvtt-py``).

:func:`cues` groups the words into cues the way subtitles are usually made: at most
:data:`MAX_LINES` lines of at most :data:`MAX_CHARS` characters, on screen at most
:data:`MAX_SECONDS`; a cue ends at a sentence end where it can, else at a clause end (a comma, a
semicolon, a colon), else between two words, never inside one. A line or paragraph break in the
text, or a pause of :data:`PAUSE` seconds between two sentences, always starts a new cue. A word
too long for a line, or said for longer than a cue may last, is a cue of its own. Times are the
words' times: a cue starts when its first word starts and ends when its last word ends (held
for up to :data:`MIN_SECONDS` when the next cue leaves room), so cues follow each other in order,
never overlap, and lie within the audio.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

MAX_CHARS = 42
MAX_LINES = 2
MAX_SECONDS = 7.0
MIN_SECONDS = 1.0
PAUSE = 1.5
CLAUSE_ENDS = (",", ";", ":", "\u2014")
SENTENCE_ENDS = (".", "?", "!", "\u2026")
_CLOSERS = "\"')]}\u201d\u2019"


@dataclass(frozen=True)
class CueWord:
    """A word of the text with its time; ``sentence_start``: a sentence begins with it;
    ``new_block``: a line or paragraph break comes before it."""

    text: str
    start: float
    end: float
    sentence_start: bool = False
    new_block: bool = False


@dataclass(frozen=True)
class Cue:
    start: float
    end: float
    lines: tuple[str, ...]


def wrap(words: Sequence[str]) -> tuple[str, ...] | None:
    """The words on one line, or two lines each within :data:`MAX_CHARS`, as even as can be and
    broken after a mark where one is near the middle; None if they do not fit. One word always
    fits (on one line, however long)."""
    text = " ".join(words)
    if len(text) <= MAX_CHARS or len(words) == 1:
        return (text,)
    best: tuple[str, str] | None = None
    best_score = 0.0
    for split in range(1, len(words)):
        first, second = " ".join(words[:split]), " ".join(words[split:])
        if len(first) > MAX_CHARS or len(second) > MAX_CHARS:
            continue
        mark = words[split - 1].rstrip(_CLOSERS)
        bonus = 12 if mark.endswith(SENTENCE_ENDS) else 8 if mark.endswith(CLAUSE_ENDS) else 0
        score = max(len(first), len(second)) - bonus
        if best is None or score < best_score:
            best, best_score = (first, second), score
    return best


def _fits(words: Sequence[CueWord]) -> bool:
    if len(words) <= 1:
        return True
    return (
        words[-1].end - words[0].start <= MAX_SECONDS and wrap([w.text for w in words]) is not None
    )


def _clause_end(word: CueWord) -> bool:
    return word.text.rstrip(_CLOSERS).endswith(CLAUSE_ENDS)


def _split(words: Sequence[CueWord], following: CueWord) -> int:
    """How many of ``words`` (a cue that ``following`` does not fit in) to show now: up to the
    last sentence end, else the last clause end, when that keeps a third of the cue's text; else
    all of them."""
    chars = len(" ".join(w.text for w in words))
    after = [*words[1:], following]
    for is_end in (lambda n: after[n].sentence_start, lambda n: _clause_end(words[n])):
        for n in range(len(words) - 1, -1, -1):
            if is_end(n) and len(" ".join(w.text for w in words[: n + 1])) * 3 >= chars:
                return n + 1
    return len(words)


def cues(words: Sequence[CueWord], duration: float) -> list[Cue]:
    """The cues showing ``words`` (see the module docstring); times within ``[0, duration]``."""
    groups: list[list[CueWord]] = []
    current: list[CueWord] = []
    for word in words:
        if current and (
            word.new_block or (word.sentence_start and word.start - current[-1].end >= PAUSE)
        ):
            groups.append(current)
            current = []
        if current and not _fits([*current, word]):
            keep = _split(current, word)
            groups.append(current[:keep])
            current = current[keep:]
            if current and not _fits([*current, word]):
                groups.append(current)
                current = []
        current.append(word)
    if current:
        groups.append(current)
    made: list[Cue] = []
    for n, group in enumerate(groups):
        start = min(max(group[0].start, made[-1].end if made else 0.0), duration)
        end = min(max(group[-1].end, start), duration)
        following = groups[n + 1][0].start if n + 1 < len(groups) else duration
        end = max(end, min(start + MIN_SECONDS, following, duration))
        lines = wrap([w.text for w in group]) or (" ".join(w.text for w in group),)
        made.append(Cue(start, end, lines))
    return made


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def to_srt(made: Sequence[Cue]) -> str:
    """The cues as a SubRip file (numbered from 1)."""
    import srt

    return str(
        srt.compose(
            [
                srt.Subtitle(
                    n,
                    datetime.timedelta(milliseconds=_ms(cue.start)),
                    datetime.timedelta(milliseconds=_ms(cue.end)),
                    "\n".join(cue.lines),
                )
                for n, cue in enumerate(made, 1)
            ],
            reindex=False,
        )
    )


def _vtt_time(seconds: float) -> str:
    from webvtt.models import Timestamp

    ms = _ms(seconds)
    return str(Timestamp(ms // 3_600_000, ms // 60_000 % 60, ms // 1000 % 60, ms % 1000))


def _vtt_escape(line: str) -> str:
    """Cue text is markup in WebVTT: "&", "<" and ">" are written as character references."""
    return line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_vtt(made: Sequence[Cue]) -> str:
    """The cues as a WebVTT file."""
    from webvtt import Caption, WebVTT

    captions = [
        Caption(_vtt_time(cue.start), _vtt_time(cue.end), [_vtt_escape(x) for x in cue.lines])
        for cue in made
    ]
    return str(WebVTT(captions=captions).content)
