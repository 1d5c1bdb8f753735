"""The dictation buffer under random interleavings of user operations and pipeline events
(hypothesis stateful testing), checked against an independent model after every step.

The model is the simplest thing that could be right: a string with a tag per character (who put
it there: the user, or which finalized event), a stack of whole snapshots for undo and redo, and
its own dictation point. After every step:

* the buffer's text equals the model's (so the user's characters changed only through the
  user's own operations, and no greyed word became text unless it was finalized);
* the view's text is the text with the region at the dictation point, and the region holds the
  pending and partial words;
* replaying the journal gives exactly the text, the pending words and where they are shown
  (unless a write failed and has not been repaired yet: then the buffer still holds everything);
* every finalized event whose characters no later operation touched appears exactly once.

``DICTATE_STATEFUL_EXAMPLES`` sets the number of runs (CI: 300; the long run: 20000).
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from dictate.editing import voice_edits
from dictate.editing.buffer import TYPING_GROUP_SECONDS, DictationBuffer
from dictate.editing.journal import Journal
from dictate.editing.journal_replay import replay
from dictate.editing.text import CLOSING_MARKS, fit_to_context, takes_mark, word_start

EXAMPLES = int(os.environ.get("DICTATE_STATEFUL_EXAMPLES", "300"))

# What people type: ASCII, accented and combining marks, CJK, right-to-left, emoji and other
# characters outside the Basic Multilingual Plane, line breaks (never the letter "k": markers
# of finalized events use it, so typing cannot forge one).
PIECES = [
    "a",
    "b",
    "e",
    " ",
    ".",
    "?",
    ",",
    "\n",
    "é",
    "ñ",
    "e\u0301",
    "n\u0303",
    "中",
    "文字",
    "שלום",
    "مرحبا",
    "😀",
    "👍🏽",
    "𝄞",
    "👨‍👩‍👧",
    "Ω",
    "\t",
    "I",
    "\r\n",
]
typed = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)


class FullJournal(Journal):
    """A fault-injecting journal: while ``full`` is set every write fails with ENOSPC, as on a
    full disk (the real full disk is tested with a tmpfs in test_write_failures.py)."""

    full = False

    def append(self, record: dict[str, Any]) -> None:
        if self.full:
            self.broken = True
            raise OSError(errno.ENOSPC, "No space left on device (injected)", str(self.path))
        super().append(record)

    def reset(self, *args: Any, **kwargs: Any) -> None:
        if self.full:
            self.broken = True
            raise OSError(errno.ENOSPC, "No space left on device (injected)", str(self.path))
        super().reset(*args, **kwargs)


class BufferMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="dictate-buffer-"))
        self.now = 0.0
        self.journal = FullJournal(self.dir / "journal.jsonl")
        self.buffer = DictationBuffer(self.journal, clock=lambda: self.now)
        self.buffer.load("")
        self.text: list[tuple[str, object]] = []  # (character, tag)
        self.point = 0
        self.undo: list[list[tuple[str, object]]] = []
        self.redo: list[list[tuple[str, object]]] = []
        self.last_typing: tuple[int, float] | None = None  # (end position, time) of a typing group
        self.events = 0
        self.event_length: dict[int, int] = {}
        self.selection: tuple[int, int] | None = None  # selected by voice
        self.inside = False  # the point was put inside the text by voice

    def teardown(self) -> None:
        self.journal.full = False
        self.journal.close(clean=False)
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- the model ------------------------------------------------------------------------

    def model_text(self) -> str:
        return "".join(ch for ch, _ in self.text)

    def record(self) -> None:
        self.undo.append(list(self.text))
        self.redo.clear()

    def model_replace(self, start: int, end: int, chars: list[tuple[str, object]]) -> None:
        self.text[start:end] = chars

    # -- user operations -------------------------------------------------------------------

    def model_edit(self, start: int, end: int, piece: str) -> None:
        """What the user's edit does to the model, undo steps included: one character typed
        where the last one ended, within a second and with nothing moved in between, joins its
        undo step, unless it starts a word after a space (a word and its trailing spaces are one
        step; a line break is a step of its own); anything else is a step of its own."""
        normal = piece.replace("\r\n", "\n")
        single = start == end and len(normal) == 1 and normal != "\n"
        grouped = (
            single
            and self.last_typing is not None
            and self.last_typing[0] == start
            and self.now - self.last_typing[1] < TYPING_GROUP_SECONDS
            and not (self.text[start - 1][0].isspace() and not normal.isspace())
        )
        if not grouped:
            self.record()
        self.redo.clear()
        self.buffer.replace(start, end, piece)
        self.selection = None
        self.model_replace(start, end, [(ch, "user") for ch in normal])
        self.point = start + len(normal)
        self.last_typing = (self.point, self.now) if single else None

    @rule(piece=typed)
    def type_at_point(self, piece: str) -> None:
        """Typing at the cursor (which is the dictation point when nothing is selected)."""
        self.model_edit(self.point, self.point, piece)

    @rule(data=st.data(), piece=st.one_of(st.just(""), typed))
    def replace_selection(self, data: st.DataObject, piece: str) -> None:
        """A selection typed over, deleted (Backspace/Delete/Cut), pasted or dropped over."""
        n = len(self.text)
        a = data.draw(st.integers(0, n))
        b = data.draw(st.integers(0, n))
        start, end = min(a, b), max(a, b)
        if start == end and not piece:
            return
        self.model_edit(start, end, piece)

    @rule(data=st.data())
    def move(self, data: st.DataObject) -> None:
        """Any cursor move: arrows, Home/End, Ctrl+Home/End, PageUp/Down, a mouse click."""
        pos = data.draw(st.integers(0, len(self.text)))
        self.buffer.move_point(pos)
        self.selection, self.inside = None, False
        if pos != self.point:  # typing after a real move starts a new undo step
            self.last_typing = None
        self.point = pos

    @rule()
    def undo_step(self) -> None:
        self.last_typing = None
        change = self.buffer.undo()
        if not self.undo:
            assert change is None
            return
        self.selection = None
        self.redo.append(list(self.text))
        self.text = self.undo.pop()
        self.point = self.buffer.point

    @rule()
    def redo_step(self) -> None:
        self.last_typing = None
        change = self.buffer.redo()
        if not self.redo:
            assert change is None
            return
        self.selection = None
        self.undo.append(list(self.text))
        self.text = self.redo.pop()
        self.point = self.buffer.point

    @rule(seconds=st.sampled_from([0.1, 0.5, 2.0]))
    def time_passes(self, seconds: float) -> None:
        self.now += seconds

    # -- pipeline events -------------------------------------------------------------------

    @rule(count=st.integers(1, 3), pending=st.sampled_from(["", "and then", "pq pq?", "😀 next"]))
    def finalized(self, count: int, pending: str) -> None:
        sentences = []
        for _ in range(count):
            self.events += 1
            sentences.append(f"Word mk{self.events:04d}x here.")
        event = self.events
        # While the user is typing a word at the point (their last edit was one character
        # typed there, nothing moved since), the sentence goes before that word, not into it;
        # the point stays after the word.
        at, end, point = self.insertion()
        text = self.model_text()
        adjusted = self.fitted(" ".join(sentences), text[:at], text[end:])
        self.record()
        self.last_typing = None
        self.buffer.finalize(sentences, pending)
        self.model_replace(at, end, [(ch, event) for ch in adjusted])
        self.event_length[event] = len(adjusted)
        self.point = point + len(adjusted)
        assert self.buffer.pending == pending

    @rule(pending=st.sampled_from(["", "and then"]))
    def finalized_with_a_rewrite(self, pending: str) -> None:
        """A sentence the vocabulary rewrote ("tensor r t" to "TensorRT"): two undo steps,
        the sentence as heard, then the rewrite; the text is the written one."""
        self.events += 1
        event = self.events
        sentence = f"Ran TensorRT mk{event:04d}x here."
        at, end, point = self.insertion()
        text = self.model_text()
        adjusted = self.fitted(sentence, text[:at], text[end:])
        self.record()
        self.last_typing = None
        self.buffer.finalize([sentence], pending)
        heard = adjusted.replace("TensorRT", "tensor r t")
        self.model_replace(at, end, [(ch, event) for ch in heard])
        assert self.buffer.split_rewrites([("TensorRT", "tensor r t")]) == 1
        self.record()
        self.model_replace(at, at + len(heard), [(ch, event) for ch in adjusted])
        self.event_length[event] = len(adjusted)
        self.point = point + len(adjusted)
        assert self.buffer.pending == pending

    def insertion(self) -> tuple[int, int, int]:
        """Where finalized words go: (start, end of what they replace, the point they go after).
        In place of a selection made by voice; else at the point, or, while the user is
        typing a word there, before that word (the point stays after it)."""
        if self.selection is not None:
            start, end = self.selection
            self.selection = None
            return start, end, start
        typing_here = self.last_typing is not None and self.last_typing[0] == self.point
        at = word_start(self.model_text(), self.point) if typing_here else self.point
        return at, at, self.point

    def fitted(self, words: str, before: str, after: str, keep_case: bool = False) -> str:
        """Dictated words fitted in; put inside a sentence by voice, their sentence end goes
        where the sentence goes on in lower case or with a mark."""
        adjusted = fit_to_context(words, before, after, keep_case=keep_case)
        follows = after.lstrip(" ")
        mark_next = follows[:1] in (",", ";", ":", ".", "?", "!")
        if not self.inside or not (follows[:1].islower() or mark_next):
            return adjusted
        body = adjusted.rstrip(" ")
        space = adjusted[len(body) :]
        if body[-1:] in (".", "?", "!"):
            body = body[:-1]
        adjusted = body if mark_next and after[:1] != " " else body + space
        return adjusted

    @rule(pending=st.sampled_from(["", "and then"]), case=st.sampled_from(["Paris", "paris"]))
    def continued(self, pending: str, case: str) -> None:
        """Words that go on with a sentence a pause committed open: their case is kept."""
        self.events += 1
        event = self.events
        sentence = f"{case} mk{event:04d}x on"
        at, end, point = self.insertion()
        text = self.model_text()
        adjusted = self.fitted(sentence, text[:at], text[end:], keep_case=True)
        self.record()
        self.last_typing = None
        self.buffer.finalize([sentence], pending, continues=True)
        self.model_replace(at, end, [(ch, event) for ch in adjusted])
        self.event_length[event] = len(adjusted)
        self.point = point + len(adjusted)
        assert self.buffer.pending == pending

    @rule(mark=st.sampled_from([",", ".", "?"]))
    def mark_after_commit(self, mark: str) -> None:
        """A mark for the words a pause committed: right after them while the dictation point
        is still there, they end in a word and no mark follows them, else dropped (it would
        land elsewhere, or double a mark)."""
        span = self.buffer.last_dictated
        typing_here = self.last_typing is not None and self.last_typing[0] == self.point
        text = self.model_text()
        at = word_start(text, self.point) if typing_here else self.point
        before = self.buffer.text
        self.buffer.finalize([mark], self.buffer.pending, continues=True)
        follows = text[at:].lstrip(" ")[:1]
        mark_follows = bool(follows) and follows in CLOSING_MARKS
        if span is None or span[1] != at or not takes_mark(text[:at]) or mark_follows:
            assert self.buffer.text == before
            return
        adjusted = fit_to_context(mark, text[:at], text[at:])
        owner = self.text[at - 1][1] if at else None
        assert isinstance(owner, int), "a mark attached to text no finalized event put there"
        self.selection = None
        self.record()
        self.last_typing = None
        self.model_replace(at, at, [(ch, owner) for ch in adjusted])
        self.event_length[owner] += len(adjusted)
        self.point += len(adjusted)
        assert self.buffer.last_dictated == (span[0], span[1] + len(adjusted))

    @rule(text=st.sampled_from(["", "pq one", "pq one, two", "pq 😀 three?", "pq שלום"]))
    def pending(self, text: str) -> None:
        self.buffer.set_pending(text)

    @rule(text=st.sampled_from(["", "pz", "pz pz", "pz 中文"]))
    def partial(self, text: str) -> None:
        self.buffer.set_partial(text)

    @rule(what=st.sampled_from(["auto", "pending", "sentence"]))
    def scratch(self, what: str) -> None:
        """ "Scratch that": the pending words if any, else the last dictated sentence; or what
        the pipeline decided ("pending": its punctuator dropped them; "sentence": it had none,
        whatever partial words of the next segment are on screen)."""
        if what == "pending":
            had = bool(self.buffer.pending)
            partial = self.buffer.partial
            assert self.buffer.scratch("pending") == ("pending" if had else "")
            assert self.buffer.pending == "" and self.buffer.partial == partial
            return
        if what == "auto" and (self.buffer.pending or self.buffer.partial):
            assert self.buffer.scratch() == "pending"
            return
        span = self.buffer.last_dictated
        result = self.buffer.scratch(what)
        if span is None:
            assert result == ""
            return
        assert result == "sentence"
        self.selection = None
        start, end = span
        assert all(isinstance(tag, int) for _, tag in self.text[start:end]), "not dictated"
        text = self.model_text()
        if text[end : end + 1] == " " and text[start - 1 : start] in ("", "\n", " "):
            end += 1  # no space is left at a line's start, and none doubled
        self.record()
        self.last_typing = None
        self.model_replace(start, end, [])
        self.point = self.buffer.point

    @rule(paragraph=st.booleans())
    def new_line(self, paragraph: bool) -> None:
        self.record()
        self.selection = None
        self.last_typing = None
        self.buffer.insert_break(paragraph)
        brk = "\n\n" if paragraph else "\n"
        self.model_replace(self.point, self.point, [(ch, "break") for ch in brk])
        self.point += len(brk)

    # -- corrections by voice ----------------------------------------------------------------

    def voice_changed(self, start: int, end: int, new: str) -> None:
        self.record()
        self.last_typing = None
        self.model_replace(start, end, [(ch, "voice") for ch in new])

    @rule(data=st.data())
    def voice_select(self, data: st.DataObject) -> None:
        """ "Select WORDS" (words of the text, or not in it) or "select that"."""
        text = self.model_text()
        words = re.findall(r"[\w'\u2019-]+", text)
        named = data.draw(st.sampled_from(["", "zzz", *words[-6:], *words[:2]]))
        expected = voice_edits.find_words(text, named, self.point) if named else None
        if not named:
            expected = voice_edits.last_sentence_span(self.buffer)
        span = voice_edits.select(self.buffer, named)
        assert span == expected
        if span is None:
            return
        assert text[span[0] : span[1]].lower() == named.lower() or not named
        self.selection = span if span[1] > span[0] else None
        self.point, self.inside, self.last_typing = span[1], True, None

    @rule(style=st.sampled_from(["cap", "upper", "lower"]))
    def voice_recase(self, style: str) -> None:
        """ "Cap that", "all caps that", "no caps that": the selection, else the last sentence."""
        span = self.selection or voice_edits.last_sentence_span(self.buffer)
        result = voice_edits.recase(self.buffer, style)
        assert result == span
        if span is None:
            return
        start, end = span
        old = self.model_text()[start:end]
        new = voice_edits.recased(old, style)
        if new != old:
            self.voice_changed(start, end, new)
        else:
            self.inside = True
        self.selection, self.point, self.last_typing = (start, end), end, None

    @precondition(lambda self: self.selection is not None)
    @rule()
    def voice_delete_selection(self) -> None:
        """ "Delete that" with a selection: it goes, with one of the spaces around it."""
        assert self.selection is not None
        start, end = self.selection
        text = self.model_text()
        if end < len(text) and text[end] == " " and (start == 0 or text[start - 1] in " \n"):
            end += 1
        elif start > 0 and text[start - 1] == " ":
            start -= 1
        assert voice_edits.delete_selection(self.buffer)
        self.voice_changed(start, end, "")
        self.selection, self.point = None, start

    @precondition(lambda self: self.selection is not None)
    @rule(other=st.sampled_from(["cap", "peru", "New York", "😀 ok"]))
    def voice_choose(self, other: str) -> None:
        """ "Choose N": the alternative takes the selection's place, with a capital where the
        selection began with one, and stays selected."""
        assert self.selection is not None
        start, end = self.selection
        text = self.model_text()
        if text[start : start + 1].isupper() and other[:1].islower():
            other = other[:1].upper() + other[1:]
        assert voice_edits.replace_selection(self.buffer, other) == (start, start + len(other))
        self.voice_changed(start, end, other)
        self.selection, self.point = (start, start + len(other)), start + len(other)

    @rule(data=st.data(), after=st.booleans())
    def voice_insert(self, data: st.DataObject, after: bool) -> None:
        """ "Insert before/after WORDS"."""
        text = self.model_text()
        words = re.findall(r"[\w'\u2019-]+", text)
        named = data.draw(st.sampled_from(["zzz", *words[-4:]]))
        span = voice_edits.find_words(text, named, self.point)
        assert voice_edits.insert_at(self.buffer, named, after) == (span is not None)
        if span is not None:
            self.point = span[1] if after else span[0]
            self.selection, self.inside, self.last_typing = None, True, None

    @rule(where=st.sampled_from(["end", "start", "back"]))
    def voice_go(self, where: str) -> None:
        back = self.buffer.back
        moved = voice_edits.go(self.buffer, where)
        if where == "back" and back is None:
            assert not moved
            return
        assert moved
        n = len(self.text)
        self.point = {"end": n, "start": 0}.get(where, min(back or 0, n))
        self.inside = where != "end" and self.point < n
        self.selection, self.last_typing = None, None

    @rule(unit=st.sampled_from(["word", "sentence"]))
    def voice_delete_last(self, unit: str) -> None:
        """ "Delete last word/sentence": text just before the point goes, nothing else."""
        text = self.model_text()
        removed = voice_edits.delete_last(self.buffer, unit)
        if not removed:
            assert self.buffer.text == text
            return
        start = self.point - len(removed)
        assert text[start : self.point] == removed and removed.strip()
        if unit == "word":
            assert " " not in removed.strip() and "\n" not in removed.strip()
        self.voice_changed(start, self.point, "")
        self.selection, self.point = None, start

    # -- a full disk -----------------------------------------------------------------------

    @precondition(lambda self: not self.journal.full)
    @rule()
    def disk_fills(self) -> None:
        self.journal.full = True

    @precondition(lambda self: self.journal.full)
    @rule()
    def disk_freed(self) -> None:
        self.journal.full = False
        assert self.buffer.retry_journal()
        assert self.buffer.journal_error is None

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def text_is_the_models(self) -> None:
        assert self.buffer.text == self.model_text()
        assert self.buffer.selection == self.selection
        assert self.buffer.point == self.point
        assert "pq" not in self.buffer.text and "pz" not in self.buffer.text

    @invariant()
    def view_is_text_with_region_at_point(self) -> None:
        text, point = self.buffer.text, self.buffer.point
        region = self.buffer.region()
        assert self.buffer.display() == text[:point] + region + text[point:]
        for words in (self.buffer.pending, self.buffer.partial):
            if words:
                assert words[1:] in region
        if not self.buffer.pending and not self.buffer.partial:
            assert region == ""

    @invariant()
    def journal_replays_exactly(self) -> None:
        if self.journal.full:
            assert self.buffer.journal_error is not None or not self.journal.broken
            return
        assert self.buffer.journal_error is None
        got = replay(self.journal.path)
        assert got is not None and not got.damaged
        assert got.text == self.buffer.text
        assert got.pending == self.buffer.pending
        if got.pending:
            assert got.pending_at == self.buffer.point

    @invariant()
    def intact_sentences_appear_once(self) -> None:
        """Typing cannot forge a marker (no "k" is typed), so each appears at most once, and
        exactly once while its event's characters are all there, together."""
        for event, length in self.event_length.items():
            count = self.buffer.text.count(f"mk{event:04d}x")
            where = [i for i, (_, tag) in enumerate(self.text) if tag == event]
            intact = len(where) == length and where[-1] - where[0] + 1 == length
            assert count == 1 if intact else count <= 1


BufferMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# ~8 s: in the full suite (and CI), not the fast lane.
test_buffer_states = pytest.mark.slow(BufferMachine.TestCase)
