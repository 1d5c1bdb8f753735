"""From recognised words to the text events of a dictation: voice commands, punctuation,
written forms. No audio and no Qt, so the pipeline's punctuation thread and ``dictate punctuate``
share it and behave the same.

For each segment, :class:`TextStage` cuts the words at the voice commands set apart in them
(:mod:`dictate.commands.table`), feeds the words to the streaming punctuator, hands spoken
punctuation and "cap" to the punctuator, carries out the other commands, writes every finalized
sentence and the pending text in their written form, and emits :class:`Finalized`,
:class:`Pending` and :class:`Command` events. If the punctuator fails, the words still arrive,
unpunctuated: nothing said is ever lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from dictate.asr.engine import Word
from dictate.commands.table import (
    BY_KIND,
    OPENING_MARKS,
    CommandKind,
    Piece,
    Settle,
    Words,
    close_open_marks,
    spelled,
    split_commands,
)
from dictate.editing.rewrites import RewriteTrail, as_heard
from dictate.errors import log_failure
from dictate.events import Command, Error, Event, Finalized, Live, Pending
from dictate.punctuation.labels import ALL_CAPS as ALL_CAPS_TAG
from dictate.punctuation.labels import CAPITALIZED, VERBATIM
from dictate.punctuation.spans import Update
from dictate.writing.units import join_words

log = logging.getLogger("dictate.text.stage")

_W = TypeVar("_W", bound=Word | str)

FILLERS = frozenset({"uh", "um", "uhm", "erm"})
"""Hesitations that are never written, whatever the engine heard: a dictation app writes what
was meant, as Whisper's transcripts (and its English normaliser, which scores without "uh" and
"um") do. "hmm", "mhm" and "ah" are kept (said on purpose in dialogue), as is "er" (Whisper's
"ER" lower-cased)."""


def without_fillers(words: Sequence[_W]) -> list[_W]:
    """``words`` (:class:`Word` or text) without the :data:`FILLERS`."""
    return [w for w in words if (w.text if isinstance(w, Word) else w).lower() not in FILLERS]


def live_partial(live: Live | None, segment: int, words: Sequence[str]) -> str:
    """The partial words to show: as the last :class:`Live` event punctuated them where they
    are still the words it punctuated, then any newer words as recognised."""
    said = list(words)
    if live is None or live.segment != segment or not live.words or not live.partial:
        return " ".join(said)
    known = len(live.words)
    if said[:known] != live.words:
        return " ".join(said)
    return " ".join([live.partial, *said[known:]])


class Punctuator(Protocol):
    """StreamingPunctuator or SegmentPunctuator."""

    def feed(
        self,
        words: list[str],
        cases: list[str | None] | None = None,
        hints: list[str | None] | None = None,
    ) -> Update: ...

    def mark(self, mark: str) -> Update: ...

    def flush(self, close: bool = True) -> Update: ...

    def drop_pending(self) -> Any: ...

    def reset(self) -> None: ...


class TextStage:
    """Segments of words in, text events out (see the module docstring).

    Args:
        punctuator: The decoder, or None to emit the words as recognised.
        emit: Called with every event, in order.
        commands: Recognise voice commands and spoken punctuation.
        writer: The written form of punctuated text (numbers, dates, replacements); None: as
            punctuated.
        now: The time stamp for events.
        on_stop: Called when "stop dictating" is said.
        stop_command: Whether "stop dictating" stops anything. Off for an audio file: a file
            has no one to stop it, so a recording of someone saying it must not end the
            transcript early; the phrase is still a command (reported as one, not written as
            words) that does nothing, and the rest goes on.
        units: Join spelled letters ("u s" -> "US") and "p m" after a time into one word
            before punctuation (:mod:`dictate.writing.units`): the punctuation model must not
            see them as words that can end a sentence. Off for a language other than English.
        addresses: Join e-mail and web addresses said in words too (a written form).
    """

    def __init__(
        self,
        punctuator: Punctuator | None,
        emit: Callable[[Event], None],
        *,
        commands: bool = False,
        writer: Callable[[str], str] | None = None,
        now: Callable[[], float] = lambda: 0.0,
        on_stop: Callable[[], None] | None = None,
        stop_command: bool = True,
        units: bool = True,
        addresses: bool = False,
    ) -> None:
        self.punctuator = punctuator
        self.emit = emit
        self.commands = commands
        self.writer = writer
        self.now = now
        self.on_stop = on_stop
        self.stop_command = stop_command
        self.units = units
        self.addresses = addresses
        self.raw_mode = False
        """The punctuator failed in this run: words go on unpunctuated until :meth:`finish`."""
        self._held = ""  # unpunctuated words not final yet (commands on)
        self._opening = ""  # opening marks said before the next unpunctuated word
        self._bare_end = False
        """The text committed last (at a pause) ends in a word with no mark after it: a mark
        said next ("comma", "period") goes right after it."""
        self.asleep = False
        """ "Go to sleep" was said: everything is ignored until "wake up"."""
        self._rewrites = RewriteTrail()  # the vocabulary's, until their sentence is final
        self.spelling = False
        """ "Spell that" was said: the next segment's words are letters of one word."""

    def segment(
        self,
        segment: int,
        words: Sequence[Word | str],
        pauses: Sequence[tuple[float, float]] = (),
        rewrites: Sequence[Sequence[str]] = (),
    ) -> None:
        """One recogniser segment's words (with times when there are any), the pauses the
        voice activity detector heard in it and the user's vocabulary's rewrites in them
        ((written, heard) each: said again in the :class:`Finalized` event of the sentence
        that holds each)."""
        self._rewrites.add(rewrites)
        words = without_fillers(words)
        if not words:
            return
        if self.spelling and not self.asleep:
            self.spelling = False
            word = spelled([w.text if isinstance(w, Word) else w for w in words])
            # As spelled, case and all (``continues`` keeps the first letter's case).
            self._final(Finalized(self.now(), segment, [word], False, "", None, True))
            return
        pieces: list[Piece] = (
            split_commands(words, pauses=pauses)
            if self.commands
            else [
                Words(
                    tuple(w.text if isinstance(w, Word) else w for w in words),
                    tuple(w.mark if isinstance(w, Word) else "" for w in words),
                )
            ]
        )
        self._pieces(pieces, segment)

    def _pieces(self, pieces: list[Piece], segment: int) -> None:
        if self.asleep:
            pieces = self._wake(pieces, segment)
        if self.punctuator is None or self.raw_mode:
            self._raw(pieces, segment)
            return
        for index, piece in enumerate(pieces):
            try:
                if isinstance(piece, Words):
                    update = self._feed(list(piece.words), list(piece.marks))
                elif piece.kind == CommandKind.MARK:
                    update = self.punctuator.mark(piece.mark)
                elif piece.kind in (CommandKind.CAP, CommandKind.ALL_CAPS):
                    case = CAPITALIZED if piece.kind == CommandKind.CAP else ALL_CAPS_TAG
                    update = self.punctuator.feed([piece.word], [case])
                else:
                    self._command(piece, segment)
                    if self.asleep:  # "go to sleep": the rest waits for "wake up"
                        self._pieces(pieces[index + 1 :], segment)
                        return
                    continue
            except Exception as exc:
                # The failed piece and the rest go on unpunctuated, in the order said.
                self._failed(exc, segment)
                self._raw(pieces[index:], segment)
                return
            self._emit_update(update, segment)
            if not isinstance(piece, Words):
                self._report(piece, segment)

    def _feed(self, words: list[str], marks: list[str]) -> Update:
        """Punctuate words, each unit (:mod:`dictate.writing.units`) one word written as is;
        ``marks``: the recogniser's punctuation after each word, hints (empty: none)."""
        assert self.punctuator is not None
        joined, cases = self._joined(words)
        # Hints only where the words are still the recogniser's one for one (a unit joins
        # words: its marks no longer line up).
        hints = [m or None for m in marks] if any(marks) and len(joined) == len(words) else None
        return self.punctuator.feed(joined, cases, hints)

    def _joined(self, words: list[str]) -> tuple[list[str], list[str | None] | None]:
        """``words`` with their units joined, and the forced casing that keeps each as it is
        (None when there is no unit)."""
        if not self.units:
            return words, None
        words, units = join_words(words, self.addresses)
        joined = {unit.start for unit in units}
        if not joined:
            return words, None
        return words, [VERBATIM if i in joined else None for i in range(len(words))]

    def _report(self, piece: Any, segment: int) -> None:
        """Spoken punctuation and "cap WORD" are applied by the punctuator; the event says
        they were heard (``--json``), and changes no text."""
        argument = piece.mark if piece.kind == CommandKind.MARK else piece.word
        self.emit(Command(self.now(), segment, piece.kind, piece.spoken, argument))

    def _wake(self, pieces: list[Piece], segment: int) -> list[Piece]:
        """Asleep: the pieces after a "wake up" among ``pieces`` (none if there is none)."""
        for index, piece in enumerate(pieces):
            if not isinstance(piece, Words) and piece.kind == CommandKind.WAKE:
                self.asleep = False
                self.emit(Command(self.now(), segment, piece.kind, piece.spoken))
                return pieces[index + 1 :]
        return []

    def commit(self, segment: int) -> None:
        """The speaker paused (no speech for the commit time): finalize everything pending,
        without forcing a sentence end; dictation goes on and the next words continue an open
        sentence. Commands, written forms and replacements apply as at :meth:`finish`."""
        if self.punctuator is None or self.raw_mode:
            self._finalize_held(segment, committed=True)
            return
        commit = getattr(self.punctuator, "commit", None)
        if commit is None:
            return
        try:
            update = commit()
        except Exception as exc:
            self._failed(exc, segment)
            self._finalize_held(segment, committed=True)
            return
        self._emit_update(update, segment, committed=True)

    def preview(self, words: Sequence[str]) -> tuple[str, str]:
        """The pending text and the partial ``words`` punctuated together, in their written
        form, for display only; nothing changes (see :meth:`StreamingPunctuator.preview`)."""
        preview = getattr(self.punctuator, "preview", None)
        if preview is None or self.raw_mode:
            return self._write(self._held), " ".join(words)
        said, cases = self._joined(list(words))
        pending, partial = preview(said, cases) if cases else preview(said)
        return self._write(pending.text), self._write(partial.text)

    def finish(self, segment: int) -> None:
        """The run ended: finalize everything pending, and be ready for the next run."""
        try:
            self._finish(segment)
        finally:
            self._rewrites.reset()

    def _final(self, event: Finalized) -> None:
        """Emit ``event`` with the vocabulary's rewrites found in its sentences."""
        found = self._rewrites.finalized(event.sentences)
        if any(found):
            event = replace(
                event,
                rewrites=[[[r.written, r.heard] for r in each] for each in found],
                heard=[as_heard(s, each) for s, each in zip(event.sentences, found, strict=True)],
            )
        self.emit(event)

    def _finish(self, segment: int) -> None:
        self._bare_end = False
        self.asleep = self.spelling = False
        if self.punctuator is None or self.raw_mode:
            self._finalize_held(segment)
            self._opening = ""
            self.raw_mode = False
            if self.punctuator is not None:
                self.punctuator.reset()
            return
        try:
            update = self.punctuator.flush()
        except Exception as exc:
            self._failed(exc, segment)
            self._finalize_held(segment)
            self.punctuator.reset()
            self.raw_mode = False
            return
        self._emit_update(update, segment)

    # -- internals ---------------------------------------------------------------------------

    def _command(self, command: Any, segment: int) -> None:
        """Carry out a command that is not punctuation (the punctuator is working)."""
        assert self.punctuator is not None
        target = ""
        self._bare_end = False
        settle = BY_KIND[command.kind].settle
        if settle is not Settle.LEAVE:
            # The break, the move or the edit comes after the pending words: finalize them
            # first (a paragraph or a correction closes the sentence; a line break, a key or
            # sleep keeps it as said, e.g. in a list).
            self._emit_update(self.punctuator.flush(close=settle is Settle.CLOSE), segment)
        elif command.kind == CommandKind.SCRATCH:
            dropped = self.punctuator.drop_pending()
            target = "pending" if len(dropped) else "sentence"
        if target == "sentence" or command.kind == CommandKind.UNDO:
            # The words a pause committed (if those are what goes) take their open sentence.
            forget = getattr(self.punctuator, "forget_commit", None)
            if forget is not None:
                forget()
        self._carry_out(command, segment, target)

    def _carry_out(self, command: Any, segment: int, target: str) -> None:
        """The command's event, and what the stage itself does for it."""
        self.emit(Command(self.now(), segment, command.kind, command.spoken, target or command.arg))
        if command.kind == CommandKind.SCRATCH and target == "pending":
            self.emit(Pending(self.now(), segment, ""))
        if command.kind == CommandKind.STOP and self.on_stop is not None and self.stop_command:
            self.on_stop()
        if command.kind == CommandKind.SLEEP:
            self.asleep = True
        self.spelling = command.kind == CommandKind.SPELL

    def _raw(self, pieces: list[Piece], segment: int) -> None:
        """Without a punctuator: the words as recognised, the marks said, the commands.

        With commands on, a segment's words stay pending until the next segment's words or a
        command come, so a mark said in the next segment ("comma") can still attach to them.
        """
        fresh = True  # the first words of this segment finalize the previous segment's
        for index, piece in enumerate(pieces):
            if isinstance(piece, Words):
                words = list(piece.words)
                if self.units:
                    words = join_words(words, self.addresses)[0]
            elif piece.kind in (CommandKind.CAP, CommandKind.ALL_CAPS):
                word = piece.word
                words = [
                    word.upper()
                    if piece.kind == CommandKind.ALL_CAPS
                    else word[:1].upper() + word[1:]
                ]
                self._report(piece, segment)
            elif piece.kind == CommandKind.MARK:
                if piece.mark in OPENING_MARKS:
                    self._opening += piece.mark
                elif self._held:
                    self._held += piece.mark
                else:
                    self._attach_mark(piece.mark, segment)
                self._report(piece, segment)
                continue
            else:
                target = ""
                self._bare_end = False
                if piece.kind == CommandKind.SCRATCH:
                    target = "pending" if self._held else "sentence"
                    self._held = ""
                self._finalize_held(segment)
                self._carry_out(piece, segment, target)
                if self.asleep:  # "go to sleep": the rest waits for "wake up"
                    self._pieces(pieces[index + 1 :], segment)
                    return
                continue
            if words and self._opening:
                words[0], self._opening = self._opening + words[0], ""
            if fresh:
                self._finalize_held(segment)
                fresh = False
            self._held = " ".join(filter(None, [self._held, *words]))
        if self.commands and self._held:
            self.emit(Pending(self.now(), segment, self._write(self._held)))
        else:
            self._finalize_held(segment)

    def _attach_mark(self, mark: str, segment: int) -> None:
        """Without punctuation: a mark said after a pause committed the words it belongs to
        goes right after them (where they end in a bare word)."""
        if self._bare_end and mark not in OPENING_MARKS:
            self._bare_end = False
            self._final(Finalized(self.now(), segment, [mark], False, "", None, True))

    def _finalize_held(self, segment: int, committed: bool = False) -> None:
        if self._held:
            text, self._held = self._held, ""
            text = close_open_marks(text)
            written = close_open_marks(self._write(text))
            spoken = [text] if written != text else None
            self._final(Finalized(self.now(), segment, [written], False, "", spoken))
            self._bare_end = committed and written[-1:].isalnum()

    def _write(self, text: str) -> str:
        """The written form of ``text``; as punctuated if the writer fails (never lose words)."""
        if self.writer is None or not text:
            return text
        try:
            return self.writer(text)
        except Exception:
            log_failure(log, "written forms failed; keeping the text as punctuated")
            return text

    def _emit_update(self, update: Update, segment: int, committed: bool = False) -> None:
        said_pending = update.pending_text
        pending = self._write(said_pending)
        # A quote or parenthesis left open is closed as its sentence ends (the house rule of
        # close_open_marks), in what was said and in its written form alike.
        said = [close_open_marks(s.text) for s in update.finalized]
        sentences = [close_open_marks(self._write(s)) for s in said]
        if update.closes:
            # The mark after words a pause committed open: appended to them, never changed.
            # Until the sentences below are taken out, they are pending too.
            rest = " ".join(filter(None, [*sentences, pending]))
            self._final(Finalized(self.now(), segment, [update.closes], True, rest, None, True))
        if update.finalized:
            spoken = said if said != sentences else None
            self._final(
                Finalized(
                    self.now(), segment, sentences, True, pending, spoken, update.continues,
                    committed,
                )
            )  # fmt: skip
        spoken_pending = said_pending if said_pending != pending else None
        self.emit(Pending(self.now(), segment, pending, spoken_pending))

    def _failed(self, exc: Exception, segment: int) -> None:
        """Go on raw: the punctuator's pending words (it leaves them as they were before the
        failed call) become the raw words held, so what follows is added after them and
        nothing is lost, repeated or reordered."""
        log_failure(log, "punctuator failed")
        assert self.punctuator is not None
        self.raw_mode = True
        self.emit(
            Error(
                self.now(),
                f"punctuation failed ({exc}); dictation goes on without punctuation",
                fatal=False,
            )
        )
        pending = getattr(self.punctuator, "pending", None)
        held = list(pending.words) if pending is not None else []
        self._held = " ".join(filter(None, [self._held, *held]))
