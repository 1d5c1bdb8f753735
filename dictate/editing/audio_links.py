"""Which sentence was said when: the link from each finalized sentence to its session's audio.

The links are kept in ``links.jsonl`` in the audio folder
(:func:`dictate.editing.session_audio.audio_folder`), one record per line in the journal's format
(:func:`dictate.editing.journal_records.encode_record`: a CRC-32, then JSON), appended and fsynced:

* ``{"op": "session", "session": S}`` a dictation run began recording ``S.flac``;
* ``{"op": "link", "session": S, "start": 1.25, "end": 3.5, "text": "We met at 9:30 a.m."}`` a
  finalized sentence (as written into the text) and the seconds of ``S.flac`` it was said in;
  with ``"heard": "..."`` where the user's vocabulary rewrote words of it: the sentence as
  recognised (it is found by either);
* ``{"op": "covered", "session": S, "until": 7.0}`` the audio of ``S`` up to 7 s is shown as
  text (finalized, or the pending words the journal keeps): after a crash, what lies past it
  was heard but never shown, and is recognised again (:mod:`dictate.ui.audio_recovery`);
* ``{"op": "end", "session": S}`` the run ended (or its tail was recovered): nothing to recover.

A damaged line (a crash cut it, a flipped byte) fails its checksum and is skipped; the others
are read. The links are found again by the words of the text, not by positions (the text is
edited after): :meth:`AudioLinks.find` takes the sentence around a position in the text, or a
selection, and looks its words up among the links, newest first. A sentence edited since, or
typed, has no link (its words are not the words said).

A sentence's time comes from the recogniser's word times (:class:`WordClock`): each finalized
sentence, as said (before written forms), is aligned with the words recognised after the last
sentence by :func:`dictate.editing.word_times.align`, as the transcript formats do (letters said
apart and joined, "u s" -> "US", still match), and spans its first to its last matched word.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.editing.journal_records import decode_record, encode_record
from dictate.editing.word_times import Timed, align, key
from dictate.fileio import (
    atomic_write,
    bounded_lines,
    names_open_file,
    open_private,
    open_regular,
    private_dir,
    seek_tail,
)

log = logging.getLogger("dictate.editing.audio_links")

INDEX_NAME = "links.jsonl"
MAX_BYTES = 64 * 2**20
"""The index is read from its last this many bytes at most (about 250,000 sentences; its
sessions' audio is limited in Settings, and forgetting them rewrites it smaller)."""
MARGIN_S = 0.15
"""Seconds of sound added before and after a sentence's words when it is played."""
JOIN_GAP_S = 2.0
"""Sentences of one session at most this far apart are played as one stretch (the pause
between them included)."""
_KEEP_WORDS = 2000
_WINDOW = 400
"""Recognised words a sentence is looked for in (as :data:`dictate.timed.transcript.WINDOW`)."""
_WORD = re.compile(r"\S+")
_AROUND = 4000
"""Characters each side of the cursor searched for its sentence."""


def norm(word: str) -> str:
    """A word as compared: lower case, letters and digits only."""
    return re.sub(r"\W", "", word.lower())


def tokens(text: str) -> list[str]:
    return [t for t in (norm(w) for w in text.split()) if t]


@dataclass(frozen=True)
class Link:
    session: str
    start: float
    end: float
    text: str
    heard: str = ""
    """The sentence as recognised, where the user's vocabulary rewrote words of it ("": as
    ``text``): found by these words too (after undo gave them back)."""


@dataclass(frozen=True)
class Clip:
    """A stretch of a session's audio to play."""

    session: str
    start: float
    end: float


@dataclass
class SessionState:
    covered: float = 0.0
    ended: bool = False


class WordClock:
    """Times finalized sentences by the recogniser's words (see the module docstring)."""

    def __init__(self) -> None:
        self._words: list[Timed] = []

    def heard(self, words: Iterable[Any]) -> None:
        """A segment's words (``text``, ``start``, ``end`` each), in order."""
        self._words += [Timed(w.text, w.start, w.end) for w in words if key(w.text)]
        if len(self._words) > _KEEP_WORDS:
            del self._words[: len(self._words) - _KEEP_WORDS]

    def time(self, said: str) -> tuple[float, float] | None:
        """The seconds ``said`` (a sentence as spoken) took, its words taken from those heard;
        None when none of its words can be found."""
        timed, after = align(said.split(), self._words[:_WINDOW], spans=False, islands=12)
        found = [t for t in timed if t.start is not None and t.end is not None]
        if not found:
            return None
        del self._words[:after]
        start = min(t.start for t in found if t.start is not None)
        end = max(t.end for t in found if t.end is not None)
        return start, max(start, end)

    def clear(self) -> None:
        self._words.clear()


@dataclass
class AudioLinks:
    """The links of ``folder``'s sessions: read from its index, appended to as they come.

    Nothing touches the disk before the first :meth:`append`.
    """

    folder: Path
    links: list[Link] = field(default_factory=list)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    _fh: Any = None
    _by_first: dict[str, list[int]] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.folder / INDEX_NAME

    def load(self) -> AudioLinks:
        """Read the index (damaged lines skipped); returns itself."""
        self.links, self.sessions, self._by_first = [], {}, {}
        try:
            fh = open_regular(self.path)
        except (OSError, ValueError):
            return self
        with fh:
            if seek_tail(fh, MAX_BYTES):
                log.warning("the audio links %s are over %d bytes: the oldest are not read",
                            self.path, MAX_BYTES)  # fmt: skip
            for raw in bounded_lines(fh):
                if raw is None:  # a line no record makes: damage
                    continue
                try:
                    record = decode_record(raw.rstrip(b"\n"))
                    self._apply(record)
                except (ValueError, KeyError, TypeError):
                    continue
        return self

    def _apply(self, record: dict[str, Any]) -> None:
        op, session = record["op"], str(record["session"])
        state = self.sessions.setdefault(session, SessionState())
        if op == "link":
            link = Link(
                session,
                float(record["start"]),
                float(record["end"]),
                str(record["text"]),
                str(record.get("heard", "")),
            )
            self._add(link)
        elif op == "covered":
            state.covered = max(state.covered, float(record["until"]))
        elif op == "end":
            state.ended = True

    def _add(self, link: Link) -> None:
        firsts = {words[0] for words in map(tokens, {link.text, link.heard or link.text}) if words}
        for first in firsts:
            self._by_first.setdefault(first, []).append(len(self.links))
        self.links.append(link)

    def append(self, record: dict[str, Any]) -> None:
        """Write one record (flushed and fsynced) and apply it.

        Raises:
            OSError: It could not be written (it is still applied: the links work until the
                app closes).
        """
        self._apply(record)
        if self._fh is not None and not names_open_file(self.path, self._fh):
            # The folder was removed (or the index replaced) while the app ran: appending on
            # would write to a file no one finds, and the audio kept since would be offered
            # with no sentence to play after a crash. The index is written again, whole.
            log.warning("the audio links %s vanished while dictate ran: written again", self.path)
            self.close()
            self._fh = None
            private_dir(self.folder)
            data = b"".join(encode_record(r) for r in self._records())
            atomic_write(self.path, data, keep_read_only=False, private=True)
            self._fh = open_private(self.path)
            return
        if self._fh is None:
            private_dir(self.folder)
            self._fh = open_private(self.path)
            # A line cut off by a crash must not swallow the first record appended now.
            if self._fh.tell() and not _ends_with_newline(self.path):
                self._fh.write(b"\n")
        self._fh.write(encode_record(record))
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def _records(self, leave_out: set[str] | None = None) -> list[dict[str, Any]]:
        """The records that make the links and sessions held now (but ``leave_out``'s)."""
        kept: list[dict[str, Any]] = []
        for name, state in self.sessions.items():
            if leave_out and name in leave_out:
                continue
            kept.append({"op": "session", "session": name})
            kept += [
                {"op": "link", "session": name, "start": k.start, "end": k.end, "text": k.text}
                | ({"heard": k.heard} if k.heard else {})
                for k in self.links
                if k.session == name
            ]
            if state.covered:
                kept.append({"op": "covered", "session": name, "until": state.covered})
            if state.ended:
                kept.append({"op": "end", "session": name})
        return kept

    def close(self) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None

    def forget(self, sessions: Iterable[str]) -> None:
        """Drop the records of ``sessions`` (their audio was deleted): the index is rewritten
        atomically without them.

        Raises:
            OSError: The index could not be rewritten.
        """
        gone = set(sessions)
        if not gone:
            return
        kept = self._records(gone)
        self.close()
        self.links = [k for k in self.links if k.session not in gone]
        self._by_first = {}
        links, self.links = self.links, []
        for link in links:
            self._add(link)
        for name in gone:
            self.sessions.pop(name, None)
        if self.path.exists():
            data = b"".join(encode_record(r) for r in kept)
            atomic_write(self.path, data, keep_read_only=False, private=True)

    # -- finding a sentence's audio ------------------------------------------------------------

    def _matches(self, words: list[str]) -> list[tuple[int, int, int]]:
        """Every link whose words stand in ``words``: (first word, after its last, the
        link's number), newest link first."""
        found = []
        for i, word in enumerate(words):
            for index in self._by_first.get(word, []):
                link = self.links[index]
                for form in {link.text, link.heard or link.text}:
                    said = tokens(form)
                    if said and said[0] == word and words[i : i + len(said)] == said:
                        found.append((i, i + len(said), index))
        return sorted(found, key=lambda m: -m[2])

    def find(self, text: str, start: int, end: int | None = None) -> list[Clip]:
        """The audio of the dictated sentence of ``text`` at position ``start`` (``end``
        None), or of the sentences the selection from ``start`` to ``end`` touches: clips in
        order, consecutive sentences of one session as one clip; [] where no dictated sentence
        is there (typed, or edited since)."""
        stop = start if end is None else end
        low = max(text.rfind("\n", 0, start) + 1, start - _AROUND)
        line_end = text.find("\n", stop)
        high = min(len(text) if line_end < 0 else line_end, stop + _AROUND)
        words, offsets = [], []
        for word in _WORD.finditer(text, low, high):
            token = norm(word.group())
            if token:
                words.append(token)
                offsets.append((word.start(), word.end()))
        first = sum(1 for _, word_end in offsets if word_end <= start)  # the words touched
        last = max(first, sum(1 for word_start, _ in offsets if word_start < stop))
        if end is None:  # the cursor: the word it is in or after
            first = last = max(0, sum(1 for word_start, _ in offsets if word_start <= start) - 1)
            last += 1
        chosen: list[tuple[int, int, int]] = []
        taken: set[int] = set()
        for match in self._matches(words):  # newest first: an older link with the same words
            span = set(range(match[0], match[1]))  # gives way
            if match[0] < last and match[1] > first and not span & taken:
                chosen.append(match)
                taken |= span
                if end is None:
                    break
        return merge([self.links[m[2]] for m in sorted(chosen)])

    def last(self) -> list[Clip]:
        """The newest sentence's audio."""
        return merge(self.links[-1:])


def merge(links: list[Link]) -> list[Clip]:
    """Clips for ``links`` in order, with :data:`MARGIN_S` around each; one clip for
    consecutive links of one session that follow each other in its audio (at most
    :data:`JOIN_GAP_S` apart)."""
    clips: list[Clip] = []
    for link in links:
        start, end = max(0.0, link.start - MARGIN_S), link.end + MARGIN_S
        last = clips[-1] if clips else None
        if last and last.session == link.session and last.start <= start <= last.end + JOIN_GAP_S:
            clips[-1] = Clip(link.session, last.start, max(last.end, end))
            continue
        clips.append(Clip(link.session, start, end))
    return clips


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"
