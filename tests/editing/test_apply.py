"""The one mapping from pipeline events to edits (:mod:`dictate.editing.apply`): what each event
asks of a target, the typing target, and the window and the command line's document agreeing
on the text of the same events."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dictate import events
from dictate.commands.table import CommandKind
from dictate.editing.apply import EditTarget, EventDocument, apply_event
from dictate.events import Command, Event, Finalized, Pending
from dictate.output.typist import TypingTarget


class Recorder(EditTarget):
    """Records the operations it is asked for (the base class's no-ops otherwise)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        self.calls.append(("finalize", sentences, pending, continues))

    def show_pending(self, text: str, segment: int) -> None:
        self.calls.append(("pending", text, segment))

    def line_break(self, paragraph: bool) -> None:
        self.calls.append(("break", paragraph))

    def scratch(self, target: str) -> None:
        self.calls.append(("scratch", target))

    def undo(self) -> None:
        self.calls.append(("undo",))

    def stop(self) -> None:
        self.calls.append(("stop",))


@pytest.mark.parametrize(
    ("event", "call"),
    [
        (Finalized(0.1, 1, ["One.", "Two"], pending="x", continues=True),
         ("finalize", ["One.", "Two"], "x", True)),
        (Pending(0.1, 3, "and then"), ("pending", "and then", 3)),
        (Command(0.1, 1, "new_line", "new line"), ("break", False)),
        (Command(0.1, 1, CommandKind.NEW_PARAGRAPH, "new paragraph"), ("break", True)),
        (Command(0.1, 1, "scratch", "scratch that"), ("scratch", "auto")),
        (Command(0.1, 1, "scratch", "scratch that", "pending"), ("scratch", "pending")),
        (Command(0.1, 1, "scratch", "scratch that", "sentence"), ("scratch", "sentence")),
        (Command(0.1, 1, "undo", "undo that"), ("undo",)),
        (Command(0.1, 1, "stop", "stop dictating"), ("stop",)),
    ],
)  # fmt: skip
def test_each_text_event_asks_for_one_operation(event: Event, call: tuple[Any, ...]) -> None:
    target = Recorder()
    assert apply_event(target, event) is True
    assert target.calls == [call]


@pytest.mark.parametrize(
    "event",
    [
        events.Level(0.1, -20.0),
        events.SpeechStart(0.1, 1, 0.0),
        events.Partial(0.1, 1, ["words"]),
        events.Live(0.1, 1, "pending", "partial"),
        events.Segment(0.1, 1, 0.0, 1.0, "pause", []),
        events.Error(0.1, "the microphone went away", True),
        events.Finished(0.1, "stopped", 1.0, 0),
        # Spoken punctuation and "cap" are the punctuator's; as events they change nothing.
        Command(0.1, 1, CommandKind.MARK, "comma"),
        Command(0.1, 1, CommandKind.CAP, "cap"),
    ],
)
def test_events_that_change_no_text_are_left_to_the_caller(event: Event) -> None:
    target = Recorder()
    assert apply_event(target, event) is False
    assert target.calls == []


def test_typing_types_final_sentences_and_breaks_but_never_pending_words() -> None:
    submitted: list[tuple[str, Any]] = []
    target = TypingTarget(lambda kind, arg: submitted.append((kind, arg)))
    for event in [
        Pending(0.1, 1, "not final yet"),
        Finalized(0.2, 1, ["We left."]),
        Finalized(0.3, 2, [], pending="so"),  # nothing final: nothing to type
        Finalized(0.4, 2, ["and came back."], continues=True),
        Command(0.5, 3, "new_paragraph", "new paragraph"),
        Command(0.6, 3, "scratch", "scratch that", "pending"),  # only on the overlay
        Command(0.7, 3, "scratch", "scratch that", "sentence"),
        Command(0.8, 3, "undo", "undo that"),  # no undo in another application
    ]:
        apply_event(target, event)
    assert submitted == [
        ("sentences", ["We left."]),
        ("continued", ["and came back."]),
        ("new_line", True),
        ("scratch", None),
    ]


def test_a_select_whose_words_are_not_in_the_text_is_written_as_a_sentence() -> None:
    """ "Select that option in the menu." dictated as a sentence of its own: its words are
    not in the text, so it was dictation; the command closed the sentence before it, and the
    next sentence starts with a capital (it was "...in the menu wake up early")."""
    document = EventDocument()
    document.apply(Finalized(0.1, 1, ["We should stop listening to rumors."], pending=""))
    document.apply(Command(0.2, 2, "select", "select that option in the menu",
                           "that option in the menu"))  # fmt: skip
    document.apply(Finalized(0.3, 3, ["Wake up early tomorrow."], pending=""))
    assert document.buffer.text == (
        "We should stop listening to rumors. Select that option in the menu. "
        "Wake up early tomorrow."
    )
    document.apply(Command(0.4, 4, "select", "select rumors", "rumors"))
    assert document.buffer.selection == (28, 34)  # in the text: a command after all


def test_a_typist_refuses_a_call_it_does_not_know() -> None:
    from dictate.output.typist import Typist

    with pytest.raises(ValueError, match="no typing call 'paste'"):
        Typist(backend=None).run("paste", "x")  # type: ignore[arg-type]


# Events as the pipeline emits them for a dictation: sentences, pending words, commands.
_sentence = st.sampled_from(["We went home.", "It rained", "Then what?", "ok", "Café au lait."])
_event = st.one_of(
    st.builds(
        lambda s, p, c: ("final", s, p, c),
        st.lists(_sentence, max_size=3),
        st.sampled_from(["", "and then", None]),
        st.booleans(),
    ),
    st.builds(lambda t: ("pending", t), st.sampled_from(["", "so we", "and it was"])),
    st.sampled_from(
        [("cmd", "new_line", ""), ("cmd", "new_paragraph", ""), ("cmd", "scratch", ""),
         ("cmd", "scratch", "pending"), ("cmd", "scratch", "sentence"), ("cmd", "undo", "")]
    ),
)  # fmt: skip


def _events(steps: list[tuple[Any, ...]]) -> list[Event]:
    events: list[Event] = []
    for number, step in enumerate(steps, start=1):
        time = number / 10
        if step[0] == "final":
            events.append(Finalized(time, number, step[1], pending=step[2], continues=step[3]))
        elif step[0] == "pending":
            events.append(Pending(time, number, step[1]))
        else:
            events.append(Command(time, number, step[1], step[1], step[2]))
    return events


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(_event, max_size=12))
def test_the_window_and_the_command_line_make_the_same_text(window: Any, steps: list[Any]) -> None:
    """``dictate transcribe`` prints the document the window would show for the same events."""
    window.document.load_text("", None)
    document = EventDocument()
    for event in _events(steps):
        window.events.dispatch(event)
        document.apply(event)
        assert window.editor.text == document.text
        assert window.editor.buffer.pending == document.buffer.pending
