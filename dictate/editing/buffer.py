"""The dictation buffer: the user's text, the dictation point, the greyed region, undo and the
journal, in one unit of position (code points), with no Qt.

The window's editor is a view of this buffer. Everything that changes the text comes here:

* the user's edits (:meth:`DictationBuffer.replace`: typing, deleting, a selection typed over,
  paste, drop, an input method's commit) and cursor moves (:meth:`move_point`);
* the pipeline's events: finalized sentences (:meth:`finalize`), the pending words and the
  partial words of the segment being spoken (:meth:`set_pending`, :meth:`set_partial`);
* undo and redo, and what voice commands need (:meth:`scratch`, :meth:`insert_break`,
  :attr:`last_dictated`).

Rules:

* The real text (:attr:`text`) changes only through an edit the user made, a finalized
  sentence, a break or scratch, or undo/redo of one of those. The *region* (the pending words,
  then the partial words) is shown at the dictation point and is never part of the text.
* A finalized sentence goes in at the dictation point, fitted to the text around it (spacing,
  the first letter's case), and is journaled *before* the buffer changes; if the journal cannot
  be written the sentence is still applied and kept, and :attr:`journal_error` says why until
  :meth:`retry_journal` has rewritten the journal.
* Undo/redo is a linear history of every change to the text: typing is grouped into words, a
  finalized event is one step, and the region is never touched by it.

Size: one state machine (text, point, region, selection, undo, journal calls) whose invariants
hold together; its property tests (tests/editing/test_buffer_states.py) check it as one. What
corrections by voice act on is found in :mod:`dictate.editing.voice_edits`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dictate.editing.journal import Journal
from dictate.editing.text import (
    CLOSING_MARKS,
    fit_to_context,
    normalize_newlines,
    takes_mark,
    word_end,
    word_start,
)

TYPING_GROUP_SECONDS = 1.0
_MAX_DICTATED_SPANS = 200


@dataclass(frozen=True)
class Change:
    """``removed`` at ``pos`` of the real text was replaced by ``inserted``."""

    pos: int
    removed: str
    inserted: str


@dataclass
class _Op:
    pos: int
    removed: str
    inserted: str
    kind: str  # "typing", "edit", "dictation"
    at: float = 0.0


def _norm_word(word: str) -> str:
    return re.sub(r"\W", "", word.lower())


def _inside_sentence(adjusted: str, after: str) -> str:
    """Dictated text put inside a sentence by voice: its sentence end goes where the sentence
    goes on after it in lower case, or a mark follows ("tomorrow [morning]." said over with
    "afternoon." is "tomorrow afternoon.", not "afternoon. .")."""
    follows = after.lstrip(" ")
    mark_next = follows[:1] in (",", ";", ":", ".", "?", "!")
    if not (follows[:1].islower() or mark_next):
        return adjusted
    body = adjusted.rstrip(" ")
    if body[-1:] in (".", "?", "!"):
        body = body[:-1]
    if mark_next and after[:1] != " ":
        return body  # the mark after attaches to the words
    return body + adjusted[len(adjusted.rstrip(" ")) :]


def _starts_with_mark(text: str) -> bool:
    """Whether ``text`` begins with a closing mark (not an empty text: "" is in every str)."""
    return bool(text) and text[0] in CLOSING_MARKS


def remaining_pending(old_pending: str, finalized: str) -> str:
    """The pending words left once ``finalized`` (the first words of the old pending words,
    perhaps punctuated differently) has been taken from them; "" if they do not match."""
    done, held = finalized.split(), old_pending.split()
    if len(done) < len(held) and [_norm_word(w) for w in held[: len(done)]] == [
        _norm_word(w) for w in done
    ]:
        return " ".join(held[len(done) :])
    return ""


class DictationBuffer:
    """The text, the dictation point and the greyed region; see the module docstring.

    Args:
        journal: Where every change is written before it is applied (None: not journaled).
        clock: Seconds, for grouping typing into undo steps (tests pass a fake).
    """

    def __init__(
        self, journal: Journal | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.journal = journal
        self.clock = clock
        self.text = ""
        self.point = 0
        self.pending = ""
        self.pending_shown: str | None = None
        """The pending words as live punctuation last showed them with the words being
        spoken (display only, never journaled); None: as :attr:`pending`."""
        self.partial = ""
        self.path: str | None = None
        self.journal_error: OSError | None = None
        """The last journal write failure, until a rewrite succeeded (None: all written)."""
        self.on_journal_state: Callable[[OSError | None], None] | None = None
        """Called when journaling fails (with the error) and when it works again (None)."""
        self._undo: list[_Op] = []
        self._redo: list[_Op] = []
        self._dictated: list[list[int]] = []  # spans of dictated units, newest last
        self._typing_open = False  # the last undo step is typing that more typing may join
        self.selection: tuple[int, int] | None = None
        """Text selected by voice ("select ..."; the dictation point is at its end): shown
        selected, and the next finalized words replace it. Any other change clears it."""
        self.back: int | None = None
        """Where the dictation point was before the last move by voice ("go back")."""
        self._inside = False
        """The point was put inside the text by voice: a sentence end dictated there, before
        text that goes on in lower case, is dropped ("the dog sat", not "the dog. sat")."""

    # -- the region ------------------------------------------------------------------------

    def region_parts(self) -> list[tuple[str, str]]:
        """The region as shown: pieces of ("text", "pending" | "partial" | "space")."""
        before, after = self.text[: self.point], self.text[self.point :]
        parts: list[tuple[str, str]] = []
        pending = self.pending if self.pending_shown is None else self.pending_shown
        for piece, kind in ((pending, "pending"), (self.partial, "partial")):
            if not piece:
                continue
            if parts:
                parts.append((" ", "space"))
                parts.append((piece, kind))
            else:
                parts.append((fit_to_context(piece, before, ""), kind))
        if parts and after and not after[0].isspace():
            parts.append((" ", "space"))
        return parts

    def region(self) -> str:
        return "".join(text for text, _ in self.region_parts())

    def display(self) -> str:
        """What the view shows: the text with the region at the dictation point."""
        return self.text[: self.point] + self.region() + self.text[self.point :]

    # -- the journal -----------------------------------------------------------------------

    def _write(self, method: Callable[..., None], *args: Any) -> None:
        if self.journal is None or self.journal_error is not None:
            return  # a failed journal is rewritten whole by retry_journal, never appended to
        try:
            if self.journal.needs_compaction:  # the state is whole here: between operations
                self._snapshot()
            method(*args)
        except OSError as exc:
            self._journal_failed(exc)

    def _snapshot(self) -> None:
        assert self.journal is not None
        self.journal.reset(self.text, self.path, self.pending, self.point)

    def _journal_failed(self, exc: OSError) -> None:
        first = self.journal_error is None
        self.journal_error = exc
        if first and self.on_journal_state is not None:
            self.on_journal_state(exc)

    def retry_journal(self) -> bool:
        """Rewrite the journal from the current state; True once it is written again."""
        if self.journal is None:
            return True
        try:
            self._snapshot()
        except OSError as exc:
            self._journal_failed(exc)
            return False
        if self.journal_error is not None:
            self.journal_error = None
            if self.on_journal_state is not None:
                self.on_journal_state(None)
        return True

    def load(self, text: str, path: str | None = None) -> None:
        """Replace everything (New, Open, recovery): clears undo and the region."""
        self.text = normalize_newlines(text)
        self.point = len(self.text)
        self.pending = self.partial = ""
        self.path = path
        self._undo.clear()
        self._redo.clear()
        self._dictated.clear()
        self.retry_journal()  # a new file: says whether the journal can be written (again)

    def set_path(self, path: str | None) -> None:
        self.path = path
        if self.journal is not None:
            self._write(self.journal.set_path, path)

    def close_journal(self, clean: bool = True) -> None:
        if self.journal is None:
            return
        if clean and self.journal_error is not None:
            self.retry_journal()
        try:
            self.journal.close(clean=clean and self.journal_error is None)
        except OSError as exc:
            self._journal_failed(exc)

    # -- applying changes ------------------------------------------------------------------

    def _apply(self, op: _Op, record: bool) -> Change:
        if self.text[op.pos : op.pos + len(op.removed)] != op.removed:
            raise ValueError(f"edit at {op.pos} does not match the text")  # a bug, not input
        self.text = self.text[: op.pos] + op.inserted + self.text[op.pos + len(op.removed) :]
        delta = len(op.inserted) - len(op.removed)
        end = op.pos + len(op.removed)
        kept: list[list[int]] = []
        for span in self._dictated:
            if span[1] <= op.pos:  # wholly before the edit (an insertion at its end is after)
                kept.append(span)
            elif span[0] >= end:
                kept.append([span[0] + delta, span[1] + delta])
        self._dictated = kept
        self.selection = None
        if self.back is not None and self.back >= end:  # "go back" keeps its place in the text
            self.back += delta
        elif self.back is not None and self.back > op.pos:
            self.back = op.pos
        if record:
            self._undo.append(op)
            self._redo.clear()
        return Change(op.pos, op.removed, op.inserted)

    def _check(self, pos: int) -> int:
        if not 0 <= pos <= len(self.text):
            raise ValueError(f"position {pos} is outside the text (0..{len(self.text)})")
        return pos

    def replace(
        self, start: int, end: int, inserted: str, point: int | None = None
    ) -> Change | None:
        """The user replaced ``text[start:end]`` with ``inserted`` (typing, Backspace/Delete,
        a selection typed over, paste, drop, an input method's commit).

        The dictation point goes to ``point`` (where the user's cursor is now) or else to the
        end of the insertion.
        """
        self._check(start)
        self._check(end)
        inserted = normalize_newlines(inserted)
        removed = self.text[start:end]
        if not removed and not inserted:
            self.move_point(start if point is None else point)
            return None
        new_len = len(self.text) - len(removed) + len(inserted)
        new_point = start + len(inserted) if point is None else point
        if not 0 <= new_point <= new_len:
            raise ValueError(f"point {new_point} is outside the new text (0..{new_len})")
        self._write(self._journal_edit, start, removed, inserted, new_point)
        now = self.clock()
        last = self._undo[-1] if self._undo else None
        # One character typed: a word and the spaces typed after it are one undo step (a line
        # break is a step of its own).
        typing = not removed and len(inserted) == 1 and inserted != "\n"
        if (
            typing
            and self._typing_open
            and last is not None
            and last.kind == "typing"
            and last.pos + len(last.inserted) == start
            and now - last.at < TYPING_GROUP_SECONDS
            and not (last.inserted[-1].isspace() and not inserted.isspace())
        ):
            change = self._apply(_Op(start, "", inserted, "typing"), record=False)
            last.inserted += inserted
            last.at = now
            self._redo.clear()
        else:
            change = self._apply(
                _Op(start, removed, inserted, "typing" if typing else "edit", now), True
            )
        self.point = new_point
        self._typing_open = typing
        return change

    def _journal_edit(self, pos: int, removed: str, inserted: str, at: int) -> None:
        assert self.journal is not None
        self.journal.append({"op": "edit", "pos": pos, "del": removed, "ins": inserted, "at": at})

    def move_point(self, pos: int) -> None:
        """The user moved the cursor: the region and the next finalized sentence go there."""
        self._check(pos)
        self.selection = None
        self._inside = False
        if pos == self.point:
            return
        self.point = pos
        self._typing_open = False  # typing after a move is a new undo step
        if self.pending and self.journal is not None:
            self._write(self.journal.pending, self.pending, self.point)

    def finalize(
        self, sentences: str | list[str], pending: str | None = None, continues: bool = False
    ) -> Change | None:
        """Insert finalized sentences at the dictation point; the pending words become
        ``pending`` (None: the old pending words less the finalized ones) in the same journal
        record, so a crash can never show the sentence twice. ``continues``: they go on with
        a sentence a pause committed open (their first word's case is kept)."""
        if isinstance(sentences, str):
            sentences = [sentences] if sentences else []
        sentences = [normalize_newlines(s) for s in sentences if s]
        joined = " ".join(sentences)
        new_pending = remaining_pending(self.pending, joined) if pending is None else pending
        new_pending = normalize_newlines(new_pending)
        pos = self._before_typed_word(self.point) if joined else self.point
        mark = continues and bool(joined) and joined[0] in CLOSING_MARKS
        if mark and (
            not self._dictated
            or self._dictated[-1][1] != pos
            or not takes_mark(self.text[:pos])
            or _starts_with_mark(self.text[pos:].lstrip(" "))
        ):
            # A mark for the words a pause committed, but the dictation point has left them
            # (moved, the user typed after them, they were taken back), they end in a mark
            # already, or the sentence they went into goes on with a mark of its own ("in the
            # [morning]." said over with "afternoon", then its "."): it would land elsewhere,
            # or double one ("afternoon. ."). The mark is dropped; sentences after it are not.
            sentences = [s for s in [sentences[0][1:].lstrip(" "), *sentences[1:]] if s]
            joined = " ".join(sentences)
            mark = False
        if not joined:
            self.set_pending(new_pending)
            return None
        removed = ""
        if self.selection is not None and not mark:  # said words replace a voice selection
            pos, end = self.selection
            removed = self.text[pos:end]
            self._write(self._journal_edit, pos, removed, "", pos)
            self.point = pos
        adjusted = fit_to_context(
            joined, self.text[:pos], self.text[pos + len(removed) :], keep_case=continues
        )
        if self._inside and not mark:
            adjusted = _inside_sentence(adjusted, self.text[pos + len(removed) :])
        # The point (the user's cursor) stays after a word being typed; else after the sentence.
        point = self.point + len(adjusted)
        if self.journal is not None:
            self._write(self.journal.final, pos, adjusted, new_pending, point)
        change = self._apply(_Op(pos, removed, adjusted, "dictation", self.clock()), record=True)
        self.point = point
        self.pending = new_pending
        self.pending_shown = None
        if mark:
            self._dictated[-1][1] += len(adjusted)  # "scratch that" takes the words with it
        else:
            self._push_spans(pos, adjusted, sentences)
        return change

    def split_rewrites(self, rewrites: list[tuple[str, str]]) -> int:
        """Make each of the vocabulary's ``rewrites`` ((the entry as written, the words it
        replaced), in order) in the sentences just finalized an undo step of its own: undo
        first gives back the words as recognised, then takes the sentences out. The text does
        not change. How many were made steps (0: the last step is not those sentences, or the
        entries are not in them)."""
        from dictate.editing.rewrites import as_heard, find_rewrites

        last = self._undo[-1] if self._undo else None
        if last is None or last.kind != "dictation" or self._redo:
            return 0
        found = find_rewrites(last.inserted, rewrites)
        if not found:
            return 0
        heard = as_heard(last.inserted, found)
        steps = [_Op(last.pos, last.removed, heard, "dictation", last.at)]
        text = heard
        for rewrite in found:  # the ones before it are written back: it stands at its start
            at, said = rewrite.start, rewrite.heard_here
            steps.append(_Op(last.pos + at, said, rewrite.written, "vocabulary", last.at))
            text = text[:at] + rewrite.written + text[at + len(said) :]
        if text != last.inserted:  # a bug, not input: the steps must end where the text is
            raise ValueError("the vocabulary's undo steps do not give the text")
        self._undo[-1:] = steps
        return len(found)

    def _before_typed_word(self, point: int) -> int:
        """Where a finalized sentence goes: the dictation point, or, while the user is typing a
        word there (their last edit was typing that ends at the point, and no move came since),
        the start of that word. A sentence that arrived mid-word went into it
        ("abcdefghijklmnopqr it falls right egg.stuvwxyz", found under Xvfb)."""
        last = self._undo[-1] if self._undo else None
        typing_here = (
            self._typing_open
            and last is not None
            and last.kind == "typing"
            and last.pos + len(last.inserted) == point
        )
        return word_start(self.text, point) if typing_here else point

    def _push_spans(self, pos: int, adjusted: str, sentences: list[str]) -> None:
        # Each sentence's span starts at the space before it (the first: at the insertion).
        lead = len(adjusted) - len(adjusted.lstrip(" "))
        start = pos
        cursor = pos + lead
        for i, sentence in enumerate(sentences):
            end = cursor + len(sentence)
            if i == len(sentences) - 1:
                end = pos + len(adjusted)
            self._dictated.append([start, end])
            start = end
            cursor = end + 1
        del self._dictated[:-_MAX_DICTATED_SPANS]

    def set_pending(self, text: str) -> None:
        """The pending words (punctuated, may still change) are now ``text``."""
        text = normalize_newlines(text)
        self.pending_shown = None
        if text == self.pending:
            return
        self.pending = text
        if self.journal is not None:
            self._write(self.journal.pending, text, self.point)

    def set_partial(self, text: str, pending_shown: str | None = None) -> None:
        """The words of the segment being spoken (not journaled: they are not final yet);
        ``pending_shown``: the pending words as punctuated with them (display only)."""
        self.partial = normalize_newlines(text)
        if pending_shown is not None:
            self.pending_shown = normalize_newlines(pending_shown)

    def clear_dictation(self) -> None:
        self.set_partial("")
        self.set_pending("")

    # -- undo / redo -----------------------------------------------------------------------

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def _revert(self, pos: int, removed: str, inserted: str) -> Change:
        # The dictation point goes after the restored text, out of a word it would split.
        new_text = self.text[:pos] + inserted + self.text[pos + len(removed) :]
        point = word_end(new_text, pos + len(inserted))
        self._write(self._journal_edit, pos, removed, inserted, point)
        change = self._apply(_Op(pos, removed, inserted, "edit"), record=False)
        self.point = point
        return change

    def undo(self) -> Change | None:
        self._typing_open = False
        if not self._undo:
            return None
        op = self._undo.pop()
        change = self._revert(op.pos, op.inserted, op.removed)
        self._redo.append(op)
        return change

    def redo(self) -> Change | None:
        self._typing_open = False
        if not self._redo:
            return None
        op = self._redo.pop()
        change = self._revert(op.pos, op.removed, op.inserted)
        self._undo.append(op)
        return change

    # -- for voice commands ----------------------------------------------------------------

    @property
    def last_dictated(self) -> tuple[int, int] | None:
        """The span of the last dictated sentence still intact in the text, or None."""
        return (self._dictated[-1][0], self._dictated[-1][1]) if self._dictated else None

    def scratch(self, what: str = "auto") -> str:
        """Remove the pending words if any ("pending"), else the last dictated sentence still
        intact ("sentence", one undoable step); "" if there was nothing to remove.

        Args:
            what: "auto" decides as above; "pending" or "sentence" is what the pipeline
                decided ("scratch that" while its punctuator held pending words or not), so
                partial words of the next segment never make it remove the wrong thing.
        """
        if what not in ("auto", "pending", "sentence"):
            raise ValueError(f"what must be auto, pending or sentence, not {what!r}")
        if what == "pending" or (what == "auto" and (self.pending or self.partial)):
            had = bool(self.pending or (what == "auto" and self.partial))
            if what == "auto":
                self.clear_dictation()
            else:
                self.set_pending("")
            return "pending" if had else ""
        span = self.last_dictated
        if span is None:
            return ""
        start, end = span
        before, after = self.text[start - 1 : start], self.text[end : end + 1]
        if after == " " and before in ("", "\n", " "):  # no space left at a line's start,
            end += 1  # and none doubled
        point = self.point
        if point >= end:
            point -= end - start
        elif point > start:
            point = start
        self._write(self._journal_edit, start, self.text[start:end], "", point)
        self._apply(_Op(start, self.text[start:end], "", "dictation", self.clock()), True)
        self.point = point
        return "sentence"

    def insert_break(self, paragraph: bool = False) -> Change:
        """A line break (or a paragraph break: an empty line) at the dictation point, as one
        undoable step; the region moves after it."""
        pos = self.point
        inserted = "\n\n" if paragraph else "\n"
        self._write(self._journal_edit, pos, "", inserted, pos + len(inserted))
        change = self._apply(_Op(pos, "", inserted, "dictation", self.clock()), True)
        self.point = pos + len(inserted)
        return change

    # -- corrections by voice (dictate.editing.voice_edits finds what they act on) ---------

    def voice_edit(self, start: int, end: int, inserted: str, select: bool = False) -> Change:
        """Replace ``text[start:end]`` by voice ("delete that", "cap that", "delete last
        word"): one undoable step; the dictation point goes after it, and with ``select`` the
        inserted text stays selected."""
        self._check(start)
        self._check(end)
        removed = self.text[start:end]
        point = start + len(inserted)
        self._write(self._journal_edit, start, removed, inserted, point)
        change = self._apply(_Op(start, removed, inserted, "dictation", self.clock()), True)
        self.point = point
        self._typing_open = False
        if select and inserted:
            self.selection = (start, point)
        return change

    def voice_move(self, pos: int, inside: bool = True) -> None:
        """Move the dictation point by voice ("insert before ...", "go to end"), remembering
        where it was for "go back"."""
        back = self.point
        self.move_point(pos)
        self.back = back
        self._inside = inside
        self._typing_open = False

    def voice_select(self, start: int, end: int) -> None:
        """Select ``text[start:end]`` by voice; the dictation point goes to its end, so the
        words said next appear after it, greyed, and replace it once final."""
        self._check(start)
        self._check(end)
        self.voice_move(end)
        self.selection = (start, end) if end > start else None
