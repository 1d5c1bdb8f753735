"""Commit on pause through the text stage and the pipeline, and what the document, the typist
and the command line make of it.

The pipeline tests script the audio: a source of blocks that are speech (non-zero samples) or
silence, a VAD that says which (the ``vad`` hook exists for timing logic), and a recogniser
that returns scripted words per segment. The real VAD, recogniser and model are used by the
latency benchmark's test and the Xvfb test (tests/test_commit_on_pause_x11.py).
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fake_tagger import FakeTagger
from recorder import Recorder

from dictate.asr.engine import Word
from dictate.audio.capture import AudioBlock
from dictate.audio.format import SAMPLE_RATE
from dictate.cli import run as cli_run
from dictate.config import Settings
from dictate.editing.apply import EventDocument
from dictate.editing.buffer import DictationBuffer
from dictate.editing.text import fit_to_context, separator, takes_mark
from dictate.events import Event, Finalized, Live, Partial, Pending, SpeechStart
from dictate.output.typist import Typist
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.run.assembly import make_pipeline
from dictate.text.stage import TextStage, live_partial

# -- the pipeline, scripted --------------------------------------------------------------------


class ScriptedSource:
    """Speech and silence as (kind, seconds) pairs, in 32 ms blocks, as fast as it can (or
    ``pace`` seconds apart, so the punctuation thread gets a turn between partial results)."""

    name = "scripted"
    dropped_blocks = 0

    def __init__(self, script: list[tuple[str, float]], pace: float = 0.0) -> None:
        self.script = script
        self.pace = pace

    def blocks(self) -> Iterator[AudioBlock]:
        position = 0
        block = 512
        for kind, seconds in self.script:
            for _ in range(round(seconds * SAMPLE_RATE / block)):
                value = 1000 if kind == "speech" else 0
                yield AudioBlock(np.full(block, value, np.int16), position / SAMPLE_RATE)
                position += block
                if self.pace:
                    time.sleep(self.pace)

    def stop(self) -> None:
        pass


def vad(chunk: Any) -> float:
    return 1.0 if np.any(chunk) else 0.0


class ScriptedEngine:
    """Each segment's words in turn; partial results grow a word at a time."""

    name = "scripted"
    label = "scripted"

    def __init__(self, segments: list[str]) -> None:
        self.segments = [s.split() for s in segments]

    def recognizer(self) -> Any:
        return ScriptedRecognizer(self)


class ScriptedRecognizer:
    def __init__(self, engine: ScriptedEngine) -> None:
        self.engine = engine
        self.index = -1
        self.heard = 0
        self.start_time = 0.0
        self.alternatives: list[list[str]] = []

    def start(self, time: float) -> None:
        self.index += 1
        self.heard = 0
        self.start_time = time

    def accept(self, samples: Any) -> list[str] | None:
        words = self.engine.segments[self.index]
        if self.heard < len(words):
            self.heard += 1
            return words[: self.heard]
        return None

    def finish(self) -> list[Word]:
        words = self.engine.segments[self.index]
        return [Word(w, self.start_time, self.start_time + 0.1) for w in words]


def run_pipeline(
    segments: list[str],
    script: list[tuple[str, float]],
    commit_after: float | None,
    pace: float = 0.0,
    **options: Any,
) -> list[Event]:
    events: list[Event] = []
    punctuator = StreamingPunctuator(FakeTagger(window_end_period=False))
    pipeline = make_pipeline(
        ScriptedEngine(segments),
        punctuator,
        events.append,
        vad=vad,
        commit_after=commit_after,
        **options,
    )
    pipeline.run(ScriptedSource(script, pace))
    return events


def document(events: list[Event]) -> str:
    doc = EventDocument()
    for event in events:
        doc.apply(event)
    return doc.text


TWO_PHRASES = [
    ("silence", 0.3),
    ("speech", 1.0),
    ("silence", 2.0),
    ("speech", 1.0),
    ("silence", 1.0),
]


def test_a_pause_longer_than_the_commit_time_commits_mid_sentence_without_a_full_stop() -> None:
    events = run_pipeline(["i went to the", "shop today"], TWO_PHRASES, 1.0)
    finals = [e for e in events if isinstance(e, Finalized)]
    assert finals[0].committed
    assert finals[0].sentences == ["I went to the"]
    assert finals[1].continues
    assert document(events) == "I went to the shop today."


def test_the_commit_comes_before_the_next_speech_is_punctuated() -> None:
    events = run_pipeline(["we are done stop", "then we left"], TWO_PHRASES, 1.0)
    finals = [e for e in events if isinstance(e, Finalized)]
    assert finals[0].committed and finals[0].sentences == ["We are done stop."]
    assert document(events) == "We are done stop. Then we left."
    # Nothing of the second phrase was pending when the first was committed.
    first = events.index(finals[0])
    assert not any(isinstance(e, Pending) and "then" in e.text.lower() for e in events[:first])


def test_never_commits_nothing_until_the_end() -> None:
    events = run_pipeline(["i went to the", "shop today"], TWO_PHRASES, None)
    finals = [e for e in events if isinstance(e, Finalized)]
    assert not any(f.committed for f in finals)
    assert document(events) == "I went to the shop today."


def test_a_pause_shorter_than_the_commit_time_commits_nothing() -> None:
    script = [("speech", 1.0), ("silence", 0.8), ("speech", 1.0), ("silence", 0.6)]
    events = run_pipeline(["i went to the", "shop today"], script, 1.0)
    assert not any(isinstance(e, Finalized) and e.committed for e in events)


def test_silence_at_the_end_of_a_run_commits_the_last_words() -> None:
    """What the reviewers watched: the last sentence stayed grey for as long as the speaker
    was silent. After the commit time it is final although the run goes on."""
    script = [("speech", 1.0), ("silence", 5.0)]
    events = run_pipeline(["see you tomorrow"], script, 1.5)
    finals = [e for e in events if isinstance(e, Finalized)]
    assert finals and finals[0].committed
    assert "".join(finals[0].sentences).lower().startswith("see you tomorrow")


def test_speech_before_the_commit_time_cancels_the_commit() -> None:
    script = [("speech", 1.0), ("silence", 0.9), ("speech", 0.5), ("silence", 3.0)]
    events = run_pipeline(["one two", "three"], script, 1.0)
    committed = [e for e in events if isinstance(e, Finalized) and e.committed]
    assert len(committed) == 1
    assert committed[0].sentences == ["One two three"]


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_live_events_punctuate_the_partial_words_of_the_open_segment() -> None:
    events = run_pipeline(
        ["we went home", "well then stop"], TWO_PHRASES, None, pace=0.005, live_interval=0.0
    )
    live = [e for e in events if isinstance(e, Live)]
    assert live, "no live punctuation"
    for event in live:
        assert event.segment >= 1 and event.words
    # The second segment's words are shown punctuated with the pending ones.
    second = [e for e in live if e.segment == 2]
    assert second and second[-1].pending.startswith("We went home")
    assert "well," in second[-1].partial or second[-1].partial == "well"


def test_live_is_off_without_a_punctuator() -> None:
    events: list[Event] = []
    pipeline = make_pipeline(
        ScriptedEngine(["a b"]),
        None,
        events.append,
        vad=vad,
    )
    pipeline.run(ScriptedSource([("speech", 0.5), ("silence", 1.0)]))
    assert not any(isinstance(e, Live) for e in events)
    assert any(isinstance(e, Partial) for e in events)


def test_live_punctuation_never_falls_behind() -> None:
    """However many partial results come, the punctuation thread runs at most one live
    punctuation per interval and none for a segment already punctuated."""
    words = " ".join(f"w{i}" for i in range(40))
    events = run_pipeline(
        [words], [("speech", 2.0), ("silence", 1.0)], None, pace=0.002, live_interval=10.0
    )
    partials = [e for e in events if isinstance(e, Partial)]
    live = [e for e in events if isinstance(e, Live)]
    assert len(partials) >= 30
    assert len(live) <= 1


def test_bad_commit_time_is_refused() -> None:
    with pytest.raises(ValueError, match="commit_after"):
        make_pipeline(ScriptedEngine([]), None, print, vad=vad, commit_after=0)


def test_live_partial_merges_newer_raw_words() -> None:
    live = Live(0.0, 2, "We went home.", "Then we", ["then", "we"])
    assert live_partial(live, 2, ["then", "we", "left"]) == "Then we left"
    assert live_partial(live, 2, ["than", "we"]) == "than we"  # the words changed
    assert live_partial(live, 3, ["x"]) == "x"
    assert live_partial(None, 2, ["a", "b"]) == "a b"


def test_segments_in_the_pipeline_are_counted_from_one() -> None:
    events = run_pipeline(["a"], [("speech", 0.5), ("silence", 0.6)], None)
    assert [e.segment for e in events if isinstance(e, SpeechStart)] == [1]


# -- the text stage ----------------------------------------------------------------------------


def stage(commands: bool = True) -> tuple[TextStage, list[Event]]:
    events: list[Event] = []
    punctuator = StreamingPunctuator(FakeTagger(window_end_period=False))
    return TextStage(punctuator, events.append, commands=commands), events


def test_a_spoken_comma_after_the_pause_attaches_to_the_committed_words() -> None:
    text, events = stage()
    text.segment(1, ["dear", "john"])
    text.commit(1)
    text.segment(2, ["comma"])
    text.segment(3, "thank you".split())
    text.finish(3)
    assert document(events) == "Dear john, thank you."
    mark = [e for e in events if isinstance(e, Finalized) and e.sentences == [","]]
    assert mark and mark[0].continues


def test_a_spoken_period_after_the_pause_ends_the_sentence() -> None:
    text, events = stage()
    text.segment(1, "see you tomorrow".split())
    text.commit(1)
    text.segment(2, ["period"])
    text.segment(3, "bye now".split())
    text.finish(3)
    assert document(events) == "See you tomorrow. Bye now."


def test_stop_after_a_pause_closes_the_open_sentence() -> None:
    text, events = stage()
    text.segment(1, "see you tomorrow".split())
    text.commit(1)
    text.finish(1)
    assert document(events) == "See you tomorrow."


def test_scratch_that_after_a_commit_removes_the_committed_words() -> None:
    text, events = stage()
    text.segment(1, "we went home done".split())
    text.commit(1)
    text.segment(2, "scratch that".split())
    text.segment(3, "hello".split())
    text.finish(3)
    assert document(events) == "Hello."


def test_without_punctuation_the_held_words_are_committed_and_a_mark_attaches() -> None:
    events: list[Event] = []
    text = TextStage(None, events.append, commands=True)
    text.segment(1, ["hello", "world"])
    assert not any(isinstance(e, Finalized) for e in events)
    text.commit(1)
    assert [e.sentences for e in events if isinstance(e, Finalized)] == [["hello world"]]
    text.segment(2, ["comma"])
    text.segment(3, ["again"])
    text.finish(3)
    assert document(events) == "Hello world, again"


def test_written_forms_apply_to_committed_words() -> None:
    events: list[Event] = []
    punctuator = StreamingPunctuator(FakeTagger(window_end_period=False))
    text = TextStage(punctuator, events.append, writer=lambda s: s.replace("twenty", "20"))
    text.segment(1, "it costs twenty".split())
    text.commit(1)
    finals = [e for e in events if isinstance(e, Finalized)]
    assert finals[0].sentences == ["It costs 20"]
    assert finals[0].spoken == ["It costs twenty"]


def test_the_preview_is_in_written_form() -> None:
    events: list[Event] = []
    punctuator = StreamingPunctuator(FakeTagger(window_end_period=False))
    text = TextStage(punctuator, events.append, writer=lambda s: s.replace("twenty", "20"))
    text.segment(1, "we paid".split())
    pending, partial = text.preview(["twenty", "stop"])
    assert pending == "We paid"
    assert partial == "20 stop."
    assert events[-1] == Pending(0.0, 1, "We paid", None)


# -- the document and the typist ---------------------------------------------------------------


def test_a_continued_sentence_keeps_its_case_and_a_mark_attaches() -> None:
    buffer = DictationBuffer()
    buffer.finalize(["I flew to"])
    buffer.finalize(["Paris today"], continues=True)
    buffer.finalize([","], continues=True)
    buffer.finalize(["and then Home."], continues=True)
    assert buffer.text == "I flew to Paris today, and then Home."
    buffer.undo()
    assert buffer.text == "I flew to Paris today,"
    buffer.undo()
    assert buffer.text == "I flew to Paris today"


def test_without_continues_a_mid_sentence_capital_is_still_lowered() -> None:
    assert fit_to_context("Then we", "and", "") == " then we"
    assert fit_to_context("Paris", "to", "", keep_case=True) == " Paris"


@pytest.mark.parametrize(
    ("text", "before", "after", "expected"),
    [
        (",", "word", "", ","),
        (".", "word", " next", "."),
        ("?", "word", "next", "? "),
        (",", "word ", "", ","),  # after a space the user typed: no second space
        (",", "", "", ","),
    ],
)
def test_a_closing_mark_attaches_to_the_word_before(
    text: str, before: str, after: str, expected: str
) -> None:
    assert fit_to_context(text, before, after) == expected


def test_separator_for_plain_output() -> None:
    assert separator(",") == ""
    assert separator("Next.") == " "
    assert separator("") == " "


def test_the_typist_continues_an_open_sentence_and_attaches_a_mark() -> None:
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["I flew to"])
    typist.sentences(["Paris"], continues=True)
    typist.sentences([","], continues=True)
    typist.sentences(["and back."], continues=True)
    assert backend.text == "I flew to Paris, and back."


# -- settings and the command line -------------------------------------------------------------


def test_commit_after_setting_is_validated() -> None:
    assert Settings.from_dict({"commit_after_ms": None}).commit_after_ms is None
    assert Settings.from_dict({"commit_after_ms": 700}).commit_after_ms == 700
    for bad in (0, 299, 10_001, "1000", True, 1.5):
        settings = Settings.from_dict({"commit_after_ms": bad})
        assert settings.commit_after_ms == Settings().commit_after_ms
        assert settings.problems
    default = Settings().commit_after_ms
    assert default is not None and default <= 1500
    assert Settings().feedback_sounds is False


@pytest.mark.parametrize("value", ["0", "299", "10001", "soon", "1.5"])
def test_transcribe_refuses_a_bad_commit_time(value: str, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_run(["transcribe", "x.wav", "--commit-after", value], stdout=io.StringIO())
    assert exit_info.value.code == 2
    assert "--commit-after" in capsys.readouterr().err


def test_a_mark_for_committed_words_is_dropped_once_the_dictation_point_left_them() -> None:
    buffer = DictationBuffer()
    buffer.finalize(["Dear John"])
    buffer.replace(len(buffer.text), len(buffer.text), " PS")  # the user typed after them
    assert buffer.finalize([","], "", continues=True) is None
    assert buffer.text == "Dear John PS"
    buffer = DictationBuffer()
    buffer.finalize(["Dear John"])
    buffer.move_point(0)
    assert buffer.finalize([","], "", continues=True) is None
    assert buffer.text == "Dear John"


def test_scratch_that_takes_an_appended_mark_with_its_words() -> None:
    buffer = DictationBuffer()
    buffer.finalize(["We left."])
    buffer.finalize(["See you"])
    buffer.finalize(["?"], continues=True)
    assert buffer.text == "We left. See you?"
    buffer.scratch("sentence")
    assert buffer.text == "We left."


class Wayland(Recorder):
    """A backend that types but cannot tell which window has the focus."""

    def focused_window(self) -> str | None:
        return None


def test_a_typing_backend_that_cannot_tell_the_window_keeps_joining_pieces() -> None:
    """Before, each piece started afresh there: "We left.Then it rained."."""
    backend = Wayland()
    typist = Typist(backend)
    typist.sentences(["We left."])
    typist.sentences(["Then it"])
    typist.sentences(["rained"], continues=True)
    typist.sentences(["."], continues=True)
    assert backend.text == "We left. Then it rained."


def test_a_mark_is_not_typed_into_another_window() -> None:
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["Dear John"])
    backend.focused_window = lambda: "another"  # type: ignore[method-assign]
    assert typist.sentences([","], continues=True) == ""
    assert backend.text == "Dear John"


# -- the shipped model (the README's examples) -------------------------------------------------


@pytest.fixture(scope="module")
def shipped_model() -> Any:
    from dictate.punctuation.model import load_punctuation_model

    return load_punctuation_model()


@pytest.mark.parametrize(
    ("said", "at_pause", "final"),
    [
        (["i went to the", "|", "shop"], "I went to the", "I went to the shop."),
        (
            ["my sister lives in paris", "|", "she works as a nurse"],
            "My sister lives in Paris",
            "My sister lives in Paris. She works as a nurse.",
        ),
        (
            ["so the thing is", "|", "we need more money"],
            "So the thing is",
            "So the thing is, we need more money.",
        ),
        (["see you tomorrow", "|", "bye"], "See you tomorrow.", "See you tomorrow. Bye."),
        (["dear john", "|", "comma", "thank you"], "Dear John", "Dear John, thank you."),
    ],
)
def test_commit_on_pause_with_the_shipped_model(
    shipped_model: Any, said: list[str], at_pause: str, final: str
) -> None:
    doc = EventDocument()
    text = TextStage(StreamingPunctuator(shipped_model), doc.apply, commands=True)
    seen = ""
    for number, part in enumerate(said, 1):
        if part == "|":
            text.commit(number)
            seen = doc.text
        else:
            text.segment(number, part.split())
    text.finish(len(said))
    assert seen == at_pause
    assert doc.text == final


def test_final_text_joins_an_appended_mark_without_a_space() -> None:
    from dictate.run.sink import final_text

    events: list[Event] = [
        Finalized(0.0, 1, ["Dear John"], committed=True),
        Finalized(0.0, 2, [","], continues=True),
        Finalized(0.0, 2, ["thank you."], continues=True),
    ]
    assert final_text(events) == "Dear John, thank you."


def test_after_scratching_committed_words_no_mark_lands_on_the_sentence_before() -> None:
    """ "scratch that" took the committed words back: the mark decided later (or said) belonged
    to them, and must not land after the sentence before ("We left.,")."""
    text, events = stage()
    text.segment(1, "we left stop".split())
    text.segment(2, "i went to the".split())
    text.commit(2)
    text.segment(3, "scratch that".split())
    text.segment(4, ["comma"])
    text.segment(5, "hello there friends".split())
    text.finish(5)
    assert document(events) == "We left stop. Hello there friends."


def test_after_undoing_committed_words_the_next_words_begin_a_sentence() -> None:
    text, events = stage()
    text.segment(1, "we left stop".split())
    text.segment(2, "i went to the".split())
    text.commit(2)
    text.segment(3, "undo that".split())
    text.segment(4, "hello there friends".split())
    text.finish(4)
    assert document(events) == "We left stop. Hello there friends."


def test_a_mark_never_doubles_one_at_the_end_of_committed_words() -> None:
    buffer = DictationBuffer()
    buffer.finalize(["It starts at 9 a.m."])
    assert buffer.finalize(["."], "", continues=True) is None
    assert buffer.text == "It starts at 9 a.m."
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["It starts at 9 a.m."])
    assert typist.sentences(["."], continues=True) == ""
    assert backend.text == "It starts at 9 a.m."


@pytest.mark.parametrize(
    ("before", "takes"),
    [("word", True), ("25%", True), ("rained 😀", True), ("a.m.", False), ("x ", False),
     ("", False), ("Hi,", False), ("end\n", False)],
)  # fmt: skip
def test_which_text_a_mark_after_a_pause_may_follow(before: str, takes: bool) -> None:
    assert takes_mark(before) is takes


def test_the_wtype_backend_waits_for_the_keymap_before_its_first_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a headless sway the first key of every wtype call was lost ("abc" arrived as "bc"):
    each piece commit on pause types lost its joining space. wtype is told to wait first."""
    from dictate.output.backends import wtype as wtype_module

    calls: list[list[str]] = []

    def run(argv: list[str], name: str) -> str:
        calls.append(list(argv))
        return ""

    monkeypatch.setattr(wtype_module, "run_command", run)
    backend = wtype_module.WtypeBackend()
    backend.type_text("abc")
    backend.press_return(1)
    backend.backspace(2)
    assert all(call[:3] == ["wtype", "-s", "100"] for call in calls), calls
    assert calls[0][-2:] == ["--", "abc"]
