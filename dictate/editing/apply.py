"""What each pipeline event does to the text: one mapping, for every place the text goes.

:func:`apply_event` turns the events that change text (:class:`~dictate.events.Finalized`,
:class:`~dictate.events.Pending` and the voice :class:`~dictate.events.Command`) into the
operations of an :class:`EditTarget`: finalize sentences, show the pending words, break the
line, scratch, undo, stop; a voice command, the call its row of
:data:`~dictate.commands.table.COMMANDS` names. The window's editor, the typing into other
applications, ``dictate transcribe`` and ``dictate punctuate`` are targets, so a command means
the same everywhere; a target leaves out what it cannot do (typing has no pending words and no
undo).

:class:`EventDocument` is the target without a window: a :class:`DictationBuffer` built from
events, which gives the command line and the tests exactly the text the window would show.
"""

from __future__ import annotations

from collections.abc import Callable

from dictate.commands.table import BY_KIND, Call, CommandKind, Passes, Takes, VoiceCommand
from dictate.editing import voice_edits
from dictate.editing.buffer import DictationBuffer
from dictate.events import Command, Event, Finalized, Pending


class EditTarget:
    """Where dictated text goes. Every operation does nothing unless a subclass says otherwise."""

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        """Sentences became final (they never change): append them at the dictation point.

        ``pending``: the words not yet final once these are taken out (None if not known);
        ``continues``: the first sentence goes on with one a pause committed open.
        """

    def show_pending(self, text: str, segment: int) -> None:
        """The words not yet final are now ``text`` (through segment ``segment``)."""

    def line_break(self, paragraph: bool) -> None:
        """ "New line" (``paragraph`` False) or "new paragraph"."""

    def scratch(self, target: str) -> None:
        """ "Scratch that": ``target`` is "pending", "sentence" or "auto" (the pending words if
        there are any, else the last sentence)."""

    def undo(self) -> None:
        """ "Undo that"."""

    def stop(self) -> None:
        """ "Stop dictating" was heard (the pipeline stops by itself)."""

    def select(self, words: str) -> bool | None:
        """ "Select WORDS": the nearest match before the dictation point, else after it;
        ``words`` "" ("select that"): the last dictated sentence. False: the words are not in
        the text (then the phrase is dictation after all: see :func:`apply_event`)."""

    def recase(self, style: str) -> None:
        """ "cap that" ("cap"), "all caps that" ("upper"), "no caps that" ("lower")."""

    def insert_at(self, words: str, after: bool) -> bool | None:
        """ "Insert before/after WORDS": the dictation point goes there (False: not found)."""

    def go(self, where: str) -> None:
        """ "Go to end" ("end"), "go to start" ("start"), "go back" ("back")."""

    def delete_last(self, unit: str) -> None:
        """ "Delete last word" ("word") or "delete last sentence" ("sentence")."""

    def press_key(self, key: str) -> None:
        """ "Press enter/tab/escape" (``key`` "enter", "tab" or "escape")."""

    def show_help(self) -> None:
        """ "What can I say"."""

    def correct(self, words: str) -> bool | None:
        """ "Correct WORDS" / "correct that" ("" : the selection, else the last sentence):
        select them and offer alternatives (False: the words are not in the text)."""

    def choose(self, number: int) -> None:
        """ "Choose N": alternative ``number`` (from 1) of those offered."""

    def spell(self) -> None:
        """ "Spell that": the next phrase is spelled (it arrives as a finalized word)."""

    def asleep(self, sleeping: bool) -> None:
        """ "Go to sleep" (True): all but "wake up" is ignored until "wake up" (False)."""

    def play_back(self) -> None:
        """ "Play that back": the audio of the selection, else of the last sentence."""

    def learn(self) -> None:
        """ "Add that to my words": the selection goes into the vocabulary."""


def apply_event(target: EditTarget, event: Event) -> bool:
    """Carry out ``event`` on ``target``; False for the events that change no text (levels,
    partial words, segments, errors, the end), which are the caller's to show."""
    if isinstance(event, Finalized):
        target.finalize(event.sentences, event.pending, event.continues)
    elif isinstance(event, Pending):
        target.show_pending(event.text, event.segment)
    elif isinstance(event, Command):
        command = BY_KIND[CommandKind(event.kind)]
        if command.call is None:  # spoken punctuation and "cap": the punctuator applied them
            return False
        _carry_out(target, event, command, command.call)
    else:
        return False
    return True


def _carry_out(target: EditTarget, event: Command, command: VoiceCommand, call: Call) -> None:
    """The target's method the command's row names, with the arguments it says; a command
    that names words not in the text is dictation after all."""
    passed: tuple[str | int, ...] = ()
    if call.passes is Passes.ARG:
        passed = (event.target or call.default,)
    elif call.passes is Passes.NUMBER:
        passed = (int(event.target or 0),)
    method: Callable[..., bool | None] = getattr(target, call.method)
    found = method(*passed, *call.fixed)
    if any(saying.takes is Takes.WORDS for saying in command.sayings):
        _or_dictation(target, event, found)


def _or_dictation(target: EditTarget, event: Command, found: bool | None) -> None:
    """A command that names words not in the text ("select the best option", said apart) was
    dictation after all: its words go into the text as said, never lost. They were a segment
    of their own and the command closed the sentence before them (``Settle.CLOSE``), so they
    are written as a sentence, which the next one follows with a capital; put inside a
    sentence by voice, the buffer fits them to it."""
    if found is False and event.target:
        spoken = event.spoken.strip()
        ends = spoken[-1:] in (".", "?", "!")
        target.finalize([spoken[:1].upper() + spoken[1:] + ("" if ends else ".")], None, False)


class EventDocument(EditTarget):
    """A document built from pipeline events (no journal, no undo limit beyond the buffer's)."""

    def __init__(self) -> None:
        self.buffer = DictationBuffer()

    def apply(self, event: Event) -> None:
        """Apply one event; events that change no text are ignored."""
        apply_event(self, event)

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        self.buffer.finalize(sentences, pending, continues)

    def show_pending(self, text: str, segment: int) -> None:
        self.buffer.set_pending(text)

    def line_break(self, paragraph: bool) -> None:
        self.buffer.insert_break(paragraph=paragraph)

    def scratch(self, target: str) -> None:
        if target == "pending" or not voice_edits.delete_selection(self.buffer):
            self.buffer.scratch(target)

    def undo(self) -> None:
        self.buffer.undo()

    def select(self, words: str) -> bool:
        return voice_edits.select(self.buffer, words) is not None

    def recase(self, style: str) -> None:
        voice_edits.recase(self.buffer, style)

    def insert_at(self, words: str, after: bool) -> bool:
        return voice_edits.insert_at(self.buffer, words, after)

    def go(self, where: str) -> None:
        voice_edits.go(self.buffer, where)

    def delete_last(self, unit: str) -> None:
        voice_edits.delete_last(self.buffer, unit)

    def correct(self, words: str) -> bool:
        if words or self.buffer.selection is None:
            return voice_edits.select(self.buffer, words) is not None
        return True

    def press_key(self, key: str) -> None:
        if key == "enter":
            self.buffer.insert_break()
        elif key == "tab":
            self.buffer.voice_edit(self.buffer.point, self.buffer.point, "\t")

    @property
    def text(self) -> str:
        """The document's text (pending words not included: they are not final)."""
        return self.buffer.text
