"""A voice command is declared once (issue 49): a row of :data:`dictate.commands.table.COMMANDS`,
from which the grammar, the help, the text stage's settling and the dispatch are made. These
tests fail when a row is missing, or when one of those is not made from the row: a phrase the
finder does not know, a row the help leaves out, a call the dispatch cannot make."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from fake_tagger import FakeTagger

from dictate.asr.engine import Word
from dictate.commands.help import command_rows
from dictate.commands.table import (
    BY_KIND,
    COMMANDS,
    PHRASES,
    WORD_COMMANDS,
    WORDS_COMMANDS,
    Call,
    CommandKind,
    Passes,
    Settle,
    Takes,
    VoiceCommand,
    grammar_phrases,
)
from dictate.editing.apply import EditTarget, apply_event
from dictate.events import Command, Event, Finalized
from dictate.punctuation.decoder import StreamingOptions, StreamingPunctuator
from dictate.text.stage import TextStage

_EACH = pytest.mark.parametrize("command", COMMANDS, ids=lambda command: str(command.kind))


def _said(command: VoiceCommand) -> list[tuple[str, str, Takes]]:
    """Every (phrase, argument, what it takes) of a row."""
    return [
        (phrase, arg, saying.takes) for saying in command.sayings for phrase, arg in saying.phrases
    ]


def test_every_kind_has_exactly_one_row() -> None:
    kinds = [command.kind for command in COMMANDS]
    assert sorted(kinds) == sorted(CommandKind)
    assert set(BY_KIND) == set(CommandKind)
    assert all(BY_KIND[command.kind] is command for command in COMMANDS)


def test_every_phrase_is_declared_once_and_reaches_the_finder_and_the_grammar() -> None:
    said = [(phrase, takes) for command in COMMANDS for phrase, _, takes in _said(command)]
    assert len(said) == len(set(said)), "a phrase declared twice"
    for command in COMMANDS:
        for phrase, arg, takes in _said(command):
            if takes is Takes.NOTHING:
                assert PHRASES[phrase] == (command.kind, arg)
                assert phrase in grammar_phrases()
            else:
                table = WORD_COMMANDS if takes is Takes.WORD else WORDS_COMMANDS
                assert table[phrase] is command.kind
    assert len(PHRASES) + len(WORD_COMMANDS) + len(WORDS_COMMANDS) == len(said)


def test_the_help_lists_every_row_in_its_group() -> None:
    listed = [(row.kind, row.phrases, row.does, row.group) for row in command_rows()]
    declared = [
        (
            command.kind,
            tuple(f"{p} {saying.takes}" if saying.takes.value else p for p, _ in saying.phrases),
            saying.does,
            command.group,
        )
        for command in COMMANDS
        for saying in command.sayings
    ]
    assert sorted(listed) == sorted(declared)


class _Recorder(EditTarget):
    """Records every call the dispatch makes (by the method's name, with its arguments)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("_") or name == "calls" or not hasattr(EditTarget, name):
            return super().__getattribute__(name)
        return lambda *args: self.calls.append((name, *args))


def _passed(call: Call, arg: str) -> tuple[Any, ...]:
    if call.passes is Passes.ARG:
        return (arg or call.default, *call.fixed)
    if call.passes is Passes.NUMBER:
        return (int(arg), *call.fixed)
    return call.fixed


@_EACH
def test_the_dispatch_makes_every_rows_call(command: VoiceCommand) -> None:
    """Each phrase's event calls the ``EditTarget`` method its row names, with arguments that
    method takes; only what the punctuator applies (spoken punctuation, "cap") has no call."""
    if command.call is None:
        assert command.kind in {CommandKind.MARK, CommandKind.CAP, CommandKind.ALL_CAPS}
        target = _Recorder()
        assert apply_event(target, Command(0.1, 1, command.kind, "x")) is False
        assert target.calls == []
        return
    method = getattr(EditTarget, command.call.method, None)
    assert callable(method) and not command.call.method.startswith("_"), command.call
    for phrase, arg, takes in _said(command):
        named = "the red car" if takes is Takes.WORDS else arg
        passed = _passed(command.call, named)
        inspect.signature(method).bind(EditTarget(), *passed)  # the method takes them
        target = _Recorder()
        assert apply_event(target, Command(0.1, 1, command.kind, phrase, named)) is True
        assert target.calls == [(command.call.method, *passed)]


def _events_before(command: VoiceCommand) -> list[Event]:
    """What the text stage emits for "we went home" (still pending) and then, after a pause,
    the row's last phrase, up to the command's own event."""
    saying = command.sayings[-1]
    phrase = saying.phrases[0][0] + (" home" if saying.takes is not Takes.NOTHING else "")
    events: list[Event] = []
    punctuator = StreamingPunctuator(
        FakeTagger(window_end_period=False), StreamingOptions(min_right_words=2)
    )
    stage = TextStage(punctuator, events.append, commands=True, stop_command=False)
    for number, (start, text) in enumerate([(0.0, "we went home"), (5.0, phrase)], start=1):
        stage.segment(
            number,
            [Word(w, start + 0.4 * i, start + 0.4 * i + 0.3) for i, w in enumerate(text.split())],
        )
    return events[: next(i for i, e in enumerate(events) if isinstance(e, Command))]


@_EACH
def test_the_text_stage_settles_the_pending_words_as_the_row_says(command: VoiceCommand) -> None:
    if command.call is None:
        return  # the punctuator's (spoken punctuation, "cap")
    final = [s for e in _events_before(command) if isinstance(e, Finalized) for s in e.sentences]
    expected = {
        Settle.LEAVE: [],
        Settle.FINALIZE: ["We went home"],
        Settle.CLOSE: ["We went home."],
    }[command.settle]
    assert final == expected
