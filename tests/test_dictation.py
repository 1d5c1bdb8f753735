"""Voice commands from recognised words to the document: dictate.commands.table, the TextStage and
the EventDocument the command line uses (the window applies the same events to its buffer)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fake_tagger import FakeTagger
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.asr.engine import Word
from dictate.commands.table import (
    PHRASES,
    WORD_COMMANDS,
    Command,
    CommandKind,
    Words,
    split_commands,
)
from dictate.editing.apply import EventDocument
from dictate.events import Command as CommandEvent
from dictate.events import Error, Event, Finalized, Pending
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.options import StreamingOptions
from dictate.text.stage import TextStage


def timed(spec: str, gap: float = 0.05, pause: float = 0.6) -> list[Word]:
    """Words 0.3 s long, ``gap`` apart; ``|`` is a pause of ``pause`` seconds."""
    words: list[Word] = []
    t = 0.0
    for token in spec.split():
        if token == "|":
            t += pause
            continue
        words.append(Word(token, t, t + 0.3))
        t += 0.3 + gap
    return words


def spoken_words(pieces: list[Words | Command]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        out += piece.words if isinstance(piece, Words) else piece.spoken.split()
    return out


# ---------------------------------------------------------------------------- detection


@pytest.mark.parametrize("phrase", sorted(PHRASES))
def test_every_phrase_is_found_when_set_apart(phrase: str) -> None:
    kind, value = PHRASES[phrase]
    pieces = split_commands(timed(f"we went home | {phrase} | and then"))
    command = (
        Command(kind, phrase, value)
        if kind == CommandKind.MARK
        else Command(kind, phrase, arg=value)
    )
    assert pieces == [
        Words(("we", "went", "home")),
        command,
        Words(("and", "then")),
    ]
    assert split_commands(phrase.split()) == [command]  # a whole segment


@pytest.mark.parametrize(
    "said",
    [
        "a new line of products",
        "the period after the war",
        "a comma separated list",
        "we need to stop listening to them",
        "please delete that file",
        "put a cap on spending",
        "he had a question mark over his head",
        "new paragraph",  # not set apart: said in one breath with the words around it
    ],
)
def test_ordinary_speech_in_one_breath_is_never_a_command(said: str) -> None:
    words = timed(f"and {said} today")
    assert split_commands(words) == [Words(tuple(w.text for w in words))]


def test_a_pause_on_one_side_only_is_not_enough() -> None:
    assert split_commands(timed("the | period after the war")) == [
        Words(("the", "period", "after", "the", "war"))
    ]
    assert split_commands(timed("in that period | we")) == [Words(("in", "that", "period", "we"))]


@pytest.mark.parametrize("head", sorted(WORD_COMMANDS))
def test_every_word_command_takes_the_word_after_it(head: str) -> None:
    pieces = split_commands(timed(f"ask | {head} anna | now"))
    assert pieces[1] == Command(WORD_COMMANDS[head], f"{head} anna", word="anna")


def test_cap_takes_the_next_word_and_the_longest_phrase_wins() -> None:
    assert split_commands(timed("ask | cap john | about it")) == [
        Words(("ask",)),
        Command(CommandKind.CAP, "cap john", word="john"),
        Words(("about", "it")),
    ]
    assert split_commands(timed("| all caps nasa |")) == [
        Command(CommandKind.ALL_CAPS, "all caps nasa", word="nasa")
    ]
    assert split_commands(timed("x | new paragraph |")) == [
        Words(("x",)),
        Command(CommandKind.NEW_PARAGRAPH, "new paragraph"),
    ]


def test_plain_text_has_no_pauses_so_only_whole_segments_are_commands() -> None:
    assert split_commands("hello new line world".split()) == [
        Words(("hello", "new", "line", "world"))
    ]
    assert split_commands(["Scratch", "That"]) == [Command(CommandKind.SCRATCH, "scratch that")]


@settings(max_examples=300, deadline=None)
@given(
    tokens=st.lists(
        st.sampled_from(
            [
                "new",
                "line",
                "paragraph",
                "period",
                "comma",
                "cap",
                "all",
                "caps",
                "scratch",
                "that",
                "x",
                "y",
                "|",
                "stop",
                "dictating",
                "question",
                "mark",
                "open",
                "quote",
            ]
        ),
        max_size=25,
    )
)
def test_no_word_is_lost_or_invented(tokens: list[str]) -> None:
    words = timed(" ".join(tokens))
    assert spoken_words(split_commands(words)) == [w.text for w in words]


# ---------------------------------------------------------------------------- the text stage


def run(
    segments: list[str],
    *,
    commands: bool = True,
    writer: Callable[[str], str] | None = None,
    punctuate: bool = True,
    stop_command: bool = True,
) -> tuple[EventDocument, list[Event], list[bool]]:
    """Feed timed segments through a TextStage into an EventDocument."""
    document = EventDocument()
    events: list[Event] = []
    stopped: list[bool] = []

    def emit(event: Event) -> None:
        events.append(event)
        document.apply(event)

    punctuator = (
        StreamingPunctuator(
            FakeTagger(window_end_period=False), StreamingOptions(min_right_words=2)
        )
        if punctuate
        else None
    )
    stage = TextStage(
        punctuator,
        emit,
        commands=commands,
        writer=writer,
        on_stop=lambda: stopped.append(True),
        stop_command=stop_command,
    )
    for number, segment in enumerate(segments, start=1):
        stage.segment(number, timed(segment))
    stage.finish(len(segments))
    return document, events, stopped


def test_new_paragraph_closes_the_pending_sentence_and_starts_a_paragraph() -> None:
    document, events, _ = run(["we went home", "new paragraph", "the next day"])
    assert document.text == "We went home.\n\nThe next day."
    kinds = [type(e).__name__ for e in events]
    # The pending sentence is finalized before the break is made.
    assert kinds.index("Finalized") < kinds.index("Command")


def test_hesitations_are_never_written_and_do_not_split_a_command() -> None:
    document, _, _ = run(["so um we went uh home", "uhm", "new um paragraph", "er hmm fine"])
    assert document.text == "So we went home.\n\nEr hmm fine."
    document, _, _ = run(["Um UH erm"])  # a segment of hesitations alone writes nothing
    assert document.text == ""


def test_new_line_keeps_a_list_as_said() -> None:
    document, _, _ = run(["apples", "new line", "pears", "new line", "milk"])
    assert document.text == "Apples\nPears\nMilk."


def test_scratch_that_removes_the_pending_words_else_the_last_sentence() -> None:
    document, events, _ = run(["we went home", "scratch that", "we stayed in"])
    assert document.text == "We stayed in."
    assert [e.target for e in events if isinstance(e, CommandEvent)] == ["pending"]
    document, events, _ = run(["we went home | period", "scratch that", "fine"])
    assert document.text == "Fine."
    commands = [(e.kind, e.target) for e in events if isinstance(e, CommandEvent)]
    assert commands == [("mark", "."), ("scratch", "sentence")]
    document, _, _ = run(["one stop two stop", "new paragraph", "scratch that", "undo that"])
    assert document.text == "One stop. Two stop.\n\n"


@pytest.mark.parametrize("punctuate", [True, False])
def test_spoken_punctuation_and_cap_in_the_middle_of_a_segment(punctuate: bool) -> None:
    document, events, _ = run(
        ["ask | cap john | comma | is it late | question mark", "yes"], punctuate=punctuate
    )
    if punctuate:
        assert document.text == "Ask John, is it late? Yes."
    # Every command is reported (``--json``), spoken punctuation and "cap" included, though
    # they change no text by themselves (the punctuator, or the raw words, carry them).
    commands = [(e.kind, e.spoken, e.target) for e in events if isinstance(e, CommandEvent)]
    assert commands == [
        ("cap", "cap john", "john"),
        ("mark", "comma", ","),
        ("mark", "question mark", "?"),
    ]


def test_stop_dictating_stops_and_the_rest_is_kept() -> None:
    document, events, stopped = run(["it works", "stop dictating"])
    assert stopped == [True] and document.text == "It works."
    assert any(isinstance(e, CommandEvent) and e.kind == "stop" for e in events)


@pytest.mark.parametrize("punctuate", [True, False])
def test_stop_dictating_in_a_file_is_dropped_and_the_rest_transcribed(punctuate: bool) -> None:
    """A recording has no one to stop it (``dictate transcribe FILE``): the phrase is reported
    as a command that does nothing, is not written, and what follows it is transcribed.
    Text-level: no speech fixture has words after "stop dictating" (en_commands.wav ends with
    it)."""
    said = ["it works", "stop dictating", "and it goes on", "| stop listening | to the end"]
    document, events, stopped = run(said, punctuate=punctuate, stop_command=False)
    assert stopped == []
    assert [e.kind for e in events if isinstance(e, CommandEvent)] == ["stop", "stop"]
    words = document.text.lower().replace(".", "").replace(",", "").split()
    assert words == "it works and it goes on to the end".split()


@pytest.mark.parametrize(
    ("said", "text"),
    [
        (["he said | open quote | we are done", "new paragraph", "next"],
         "He said “we are done”.\n\nNext."),
        (["see | open paren | page two | period", "fine"], "See (page two). Fine."),
        (["a | open paren | b | open quote | c | question mark"], "A (b “c”)?"),
        (["he said | open quote | yes | close quote | and left"], "He said “yes” and left."),
        (["it ends | open paren"], "It ends."),
    ],
)  # fmt: skip
def test_a_quote_or_parenthesis_left_open_is_closed_where_its_sentence_ends(
    said: list[str], text: str
) -> None:
    """ "close quote" misheard or never said: the mark used to stay open for good."""
    document, events, _ = run(said)
    assert document.text == text
    finals = [s for e in events if isinstance(e, Finalized) for s in e.sentences]
    assert all(s.count("“") == s.count("”") and s.count("(") == s.count(")") for s in finals)


def test_commands_off_are_words() -> None:
    document, _, _ = run(["we went home", "new paragraph"], commands=False)
    assert document.text == "We went home new paragraph."


def test_written_forms_apply_to_final_and_pending_text_and_keep_the_spoken_words() -> None:
    document, events, _ = run(["it was two", "more"], writer=lambda s: s.replace("two", "2"))
    assert document.text == "It was 2 more."
    finals = [e for e in events if isinstance(e, Finalized)]
    assert finals[-1].sentences == ["It was 2 more."]
    assert finals[-1].spoken == ["It was two more."]
    pendings = [e for e in events if isinstance(e, Pending) and e.text]
    assert pendings[0].text == "It was 2" and pendings[0].spoken == "It was two"
    assert finals[-1].to_json()["spoken"] == ["It was two more."]


def test_a_failing_writer_keeps_the_text_as_punctuated() -> None:
    def broken(text: str) -> str:
        raise RuntimeError("boom")

    document, _, _ = run(["it was two"], writer=broken)
    assert document.text == "It was two."


def test_without_a_punctuator_commands_still_work() -> None:
    document, _, _ = run(
        ["hello", "comma", "world", "new paragraph", "| cap bob | here", "scratch that", "end"],
        punctuate=False,
    )
    # The buffer capitalises the start of the document and of a paragraph.
    assert document.text == "Hello, world\n\nEnd"


def test_a_failing_punctuator_loses_no_word() -> None:
    class Failing(StreamingPunctuator):
        def mark(self, mark: str):  # type: ignore[no-untyped-def]
            raise RuntimeError("model crashed")

    events: list[Event] = []
    document = EventDocument()

    def emit(event: Event) -> None:
        events.append(event)
        document.apply(event)

    stage = TextStage(Failing(FakeTagger()), emit, commands=True)
    stage.segment(1, timed("we went | comma | home"))
    stage.segment(2, timed("and slept"))
    stage.finish(2)
    assert any(isinstance(e, Error) for e in events)
    assert document.text.lower().replace(",", "").replace(".", "").split() == [
        "we", "went", "home", "and", "slept"
    ]  # fmt: skip


class _FailsFrom(FakeTagger):
    """A FakeTagger whose ``n``-th and later calls fail (the model crashed mid-dictation)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def tag(self, words):  # type: ignore[no-untyped-def]
        if len(self.calls) + 1 >= self.n:
            raise RuntimeError("model crashed")
        return super().tag(words)


def _run_failing(
    tagger: _FailsFrom, segments: list[list[Word]], **options: Any
) -> tuple[str, list[Event]]:
    events: list[Event] = []
    document = EventDocument()

    def emit(event: Event) -> None:
        events.append(event)
        document.apply(event)

    stage = TextStage(StreamingPunctuator(tagger, StreamingOptions(**options)), emit, commands=True)
    for n, words in enumerate(segments, 1):
        stage.segment(n, words)
    stage.finish(len(segments))
    return document.text, events


def _plain(text: str) -> list[str]:
    return [w.strip(",.?!").lower() for w in text.split()]


def test_a_punctuator_failing_on_a_capitalised_word_keeps_the_order_said() -> None:
    """Found in review: the words after a failed "cap john" used to come out before John."""
    text, events = _run_failing(_FailsFrom(2), [timed("we went"), timed("| cap john | said hi")])
    assert any(isinstance(e, Error) for e in events)
    assert _plain(text) == ["we", "went", "john", "said", "hi"]
    said = [s for e in events if isinstance(e, Finalized) for s in e.sentences]
    assert "John said hi" in said  # the capital as said (the document may fit it to context)


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4])
def test_a_punctuator_failing_inside_a_long_segment_loses_and_repeats_nothing(
    fail_at: int,
) -> None:
    """A segment longer than max_pending_words is decoded in pieces; a failure in a later
    piece used to drop the sentences finalized by the earlier ones and repeat words."""
    said = [f"w{i}" for i in range(1, 8)] + [f"x{i}" for i in range(1, 31)]
    text, events = _run_failing(
        _FailsFrom(fail_at),
        [timed(" ".join(said[:7])), timed(" ".join(said[7:]))],
        max_pending_words=8,
    )
    assert any(isinstance(e, Error) for e in events)
    assert _plain(text) == said


def test_command_kinds_read_and_print_as_their_strings() -> None:
    """One enum for the kinds; events, ``--json`` and messages still carry the strings."""
    import json

    from dictate.events import Command as CommandEvent

    event = CommandEvent(0.0, 1, CommandKind.NEW_PARAGRAPH, "new paragraph")
    assert event.kind == "new_paragraph" and f"{event.kind}" == str(event.kind) == "new_paragraph"
    assert json.loads(json.dumps(event.to_json()))["kind"] == "new_paragraph"
    assert {kind.value for kind in CommandKind} >= {"new_line", "scratch", "undo", "stop"}


# ---------------------------------------------------------------------- correcting by voice


@pytest.mark.parametrize("punctuate", [True, False])
def test_select_then_words_said_replace_the_selection(punctuate: bool) -> None:
    document, events, _ = run(["the cat sat on the mat", "select cat", "dog"], punctuate=punctuate)
    selects = [e for e in events if isinstance(e, CommandEvent) and e.kind == "select"]
    assert [(e.spoken, e.target) for e in selects] == [("select cat", "cat")]
    if punctuate:
        assert document.text == "The cat sat on the mat.".replace("cat", "dog")
    else:
        assert document.text == "The dog sat on the mat"


def test_corrections_said_apart_edit_the_document() -> None:
    document, _, _ = run(["we went home", "select that", "all caps that"])
    assert document.text == "WE WENT HOME."
    document, _, _ = run(["one stop two stop three", "delete last sentence"])
    assert document.text == "One stop. Two stop."
    document, _, _ = run(["one stop two stop three", "delete last word", "four"])
    assert document.text == "One stop. Two stop. Four."
    document, _, _ = run(["the cat sat", "insert before cat", "black", "go to end", "stop"])
    assert document.text == "The black cat sat. Stop."
    document, _, _ = run(["it was late", "select late", "delete that", "go to end", "fine"])
    assert document.text == "It was. Fine."


@pytest.mark.parametrize("punctuate", [True, False])
def test_asleep_everything_but_wake_up_is_ignored(punctuate: bool) -> None:
    document, events, _ = run(
        ["we went home", "go to sleep", "this is not for you | new paragraph", "wake up", "back"],
        punctuate=punctuate,
    )
    said = document.text.lower()
    assert "not for you" not in said and "\n" not in said
    assert said.startswith("we went home") and said.rstrip(".").endswith("back")
    kinds = [e.kind for e in events if isinstance(e, CommandEvent)]
    assert kinds == ["sleep", "wake"]


def test_wake_up_in_the_same_segment_and_the_next_run_starts_awake() -> None:
    document, _, _ = run(["go to sleep | ignored words | wake up | kept words"])
    assert document.text == "Kept words."
    events: list[Event] = []
    stage = TextStage(None, events.append, commands=True)
    stage.segment(1, timed("go to sleep"))
    stage.finish(1)
    stage.segment(2, timed("awake again"))
    stage.finish(2)
    assert [e.text for e in events if isinstance(e, Finalized)] == ["awake again"]


@pytest.mark.parametrize("punctuate", [True, False])
def test_spell_that_writes_the_next_phrase_as_one_word(punctuate: bool) -> None:
    document, _, _ = run(
        ["my name is", "spell that", "cap m a r y", "and i live here"], punctuate=punctuate
    )
    expected = (
        "My name is Mary and I live here." if punctuate else "My name is Mary and i live here"
    )
    assert document.text == expected
    document, _, _ = run(["it is", "spell it", "alpha bravo see"])
    assert document.text == "It is abc"


def test_correct_and_choose_are_events_for_the_window() -> None:
    document, events, _ = run(["we met in paris", "correct paris", "choose two"])
    commands = [(e.kind, e.target) for e in events if isinstance(e, CommandEvent)]
    assert commands == [("correct", "paris"), ("choose", "2")]
    assert document.text == "We met in paris."  # no alternatives without the audio


def test_a_command_naming_words_not_in_the_text_is_dictation_after_all() -> None:
    """Each is written as a sentence of its own: it was said apart, and the command closed the
    sentence before it."""
    document, _, _ = run(["we went home", "select the best option", "correct nothing here"])
    assert document.text == "We went home. Select the best option. Correct nothing here."
    document, _, _ = run(["we went home", "insert after lunch"])
    assert document.text == "We went home. Insert after lunch."


# -- written units (dictate/writing/units.py) joined before punctuation ---------------------------


def _unit_stage(addresses: bool = True, units: bool = True) -> tuple[TextStage, EventDocument]:
    doc = EventDocument()
    punctuator = StreamingPunctuator(
        FakeTagger(window_end_period=False), StreamingOptions(min_right_words=2)
    )
    return TextStage(punctuator, doc.apply, units=units, addresses=addresses), doc


def test_a_unit_is_one_word_for_the_punctuator_and_keeps_its_case() -> None:
    stage, doc = _unit_stage()
    stage.segment(0, "we met the u s team stop mail jane dot doe at gmail dot com".split())
    stage.finish(1)
    assert doc.buffer.text == "We met the US team stop. Mail jane.doe@gmail.com."
    # At a sentence start the punctuator writes it as said; the document still gives the
    # sentence its capital (fit_to_context), as it does for every word.
    stage, _ = _unit_stage()
    seen: list[Any] = []
    stage.emit = seen.append
    stage.segment(0, "fine stop jane dot doe at gmail dot com is mine".split())
    stage.finish(1)
    finals = [s for e in seen if isinstance(e, Finalized) for s in e.sentences]
    assert finals[-1] == "jane.doe@gmail.com is mine."


def test_units_off_and_addresses_off_leave_the_words() -> None:
    stage, doc = _unit_stage(addresses=False)
    stage.segment(0, "the u s site is example dot com".split())
    stage.finish(1)
    assert doc.buffer.text == "The US site is example dot com."
    stage, doc = _unit_stage(units=False)
    stage.segment(0, "the u s".split())
    stage.finish(1)
    assert doc.buffer.text == "The u s."


def test_the_live_preview_joins_units_as_the_final_text_will() -> None:
    stage, _ = _unit_stage()
    stage.segment(0, ["hello"])
    _, partial = stage.preview("the f b i at nine p m".split())
    assert partial == "the FBI at nine pm"
