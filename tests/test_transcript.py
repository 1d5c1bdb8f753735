"""dictate.timed.transcript, dictate.editing.word_times and dictate.timed.subtitles: a run's events
to text with times, as Markdown, JSON, SubRip and WebVTT, each read back by its own parser."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from fake_tagger import FakeTagger
from hypothesis import given, settings
from hypothesis import strategies as st
from transcript_checks import check_json, check_markdown, check_srt, check_vtt

from dictate.asr.engine import Word
from dictate.editing.word_times import Timed, align, fill
from dictate.events import Command, Event, Finalized, Finished, Segment
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.options import StreamingOptions
from dictate.text.stage import TextStage
from dictate.timed.subtitles import MAX_CHARS, CueWord, cues, to_srt, to_vtt
from dictate.timed.transcript import PARAGRAPH_SENTENCES, Transcript
from dictate.writing.writer import make_writer


def said(spec: str, start: float = 0.0, step: float = 0.4, length: float = 0.3) -> list[Word]:
    """Words ``step`` apart, each ``length`` long, from ``start``."""
    return [
        Word(w, start + i * step, start + i * step + length, 0.9)
        for i, w in enumerate(spec.split())
    ]


def transcript_of(events: Sequence[Event], duration: float | None = None) -> Transcript:
    transcript = Transcript(duration)
    for event in events:
        transcript.add(event)
    return transcript


def check_all(transcript: Transcript) -> dict:
    """Every format parses and agrees with the text; the JSON document."""
    text = transcript.to_text()
    data = check_json(transcript.to_json(), text, transcript.audio_seconds)
    check_srt(transcript.to_srt(), text, data["duration"])
    check_vtt(transcript.to_vtt(), text, data["duration"])
    check_markdown(transcript.to_markdown(), text)
    return data


def word_times(data: dict) -> dict[str, tuple[float, float]]:
    return {w["text"]: (w["start"], w["end"]) for w in data["words"]}


def test_words_take_the_times_of_what_was_said_through_joins_commands_and_written_forms() -> None:
    heard = said("my sister lives in the u s comma she works as a nurse new paragraph")
    heard += said("it costs twenty dollars", start=8.0)
    transcript = transcript_of(
        [
            Segment(0, 1, 0.0, 12.0, "pause", heard),
            Finalized(0, 1, ["My sister lives in the US, she works as a nurse."]),
            Command(0, 1, "new_paragraph", "new paragraph"),
            Finalized(0, 1, ["It costs $20."], spoken=["It costs twenty dollars."]),
            Finished(0, "end_of_audio", 12.0, 0),
        ]
    )
    assert transcript.to_text() == (
        "My sister lives in the US, she works as a nurse.\n\nIt costs $20."
    )
    data = check_all(transcript)
    times = word_times(data)
    assert times["US,"] == (2.0, 2.7)  # "u" and "s"; "comma" is no word
    assert times["she"] == (3.2, 3.5)
    assert times["$20."] == (8.8, 9.5)  # "twenty dollars"
    assert [(s["start"], s["end"]) for s in data["sentences"]] == [(0.0, 5.1), (8.0, 9.5)]
    assert transcript.to_markdown() == (
        "[00:00:00] My sister lives in the US, she works as a nurse.\n\n[00:00:08] It costs $20.\n"
    )
    assert transcript.render("txt") == transcript.to_text() + "\n"


def stage_events(segments: list[tuple[str, float]], written: bool = True) -> list[Event]:
    """The events of the real text stage (voice commands, a streaming punctuator, written
    forms) for segments of words said from the times given, Segment events included."""
    events: list[Event] = []
    stage = TextStage(
        StreamingPunctuator(
            FakeTagger(window_end_period=False), StreamingOptions(min_right_words=2)
        ),
        events.append,
        commands=True,
        writer=make_writer(written),
    )
    for number, (spec, start) in enumerate(segments, start=1):
        words = said(spec, start)
        events.append(Segment(0, number, start, words[-1].end if words else start, "pause", words))
        stage.segment(number, words)
    stage.finish(len(segments))
    return events


def test_scratch_that_takes_the_sentence_and_its_words_out_of_every_format() -> None:
    events = stage_events(
        [
            ("we went home", 0.0),
            ("new paragraph", 2.0),
            ("the weather was awful", 4.0),
            ("scratch that", 6.0),
            ("it costs twenty five dollars", 8.0),
        ]
    )
    transcript = transcript_of(events, duration=11.0)
    assert transcript.to_text() == "We went home.\n\nIt costs $25."
    data = check_all(transcript)
    assert "weather" not in transcript.to_srt() and "weather" not in transcript.to_vtt()
    assert word_times(data)["It"] == (8.0, 8.3)
    assert word_times(data)["$25."] == (8.8, 9.9)  # "twenty five dollars"
    assert transcript.to_markdown().startswith("[00:00:00] We went home.\n\n[00:00:08] It")


def test_spelled_letters_and_spoken_marks_are_timed_from_their_words() -> None:
    events = stage_events([("the u s army is here", 0.0), ("period", 3.0), ("good", 5.0)])
    transcript = transcript_of(events, duration=6.0)
    data = check_all(transcript)
    assert transcript.to_text().startswith("The US army is here.")
    assert word_times(data)["US"] == (0.4, 1.1)


def test_a_text_without_breaks_gets_paragraphs_at_long_pauses_and_every_few_sentences() -> None:
    events: list[Event] = []
    start = 0.0
    for n in range(PARAGRAPH_SENTENCES + 3):
        if n == 2:
            start += 3.0  # a long pause
        words = said(f"sentence number {n} is here", start)
        events += [Segment(0, n, start, words[-1].end, "pause", words)]
        events += [Finalized(0, n, [f"Sentence number {n} is here."])]
        start = words[-1].end + 0.5
    transcript = transcript_of(events)
    check_all(transcript)
    assert "\n" not in transcript.to_text()
    paragraphs = transcript.to_markdown().split("\n\n")
    assert [len(p.split(".")) - 1 for p in paragraphs] == [2, PARAGRAPH_SENTENCES, 1]


# ---------------------------------------------------------------------------- cues


def cue_words(text: str, start: float = 0.0, step: float = 0.3) -> list[CueWord]:
    words = []
    for n, token in enumerate(text.split()):
        first = n == 0 or text.split()[n - 1].endswith((".", "?", "!"))
        words.append(CueWord(token, start + n * step, start + n * step + step * 0.8, first))
    return words


def test_a_long_sentence_is_cut_at_its_commas_into_cues_of_two_short_lines() -> None:
    text = (
        "When we arrived at the station late in the evening, the last train had already "
        "left, so we walked all the way back to the old house by the river."
    )
    made = cues(cue_words(text), 60.0)
    assert all(len(line) <= MAX_CHARS for cue in made for line in cue.lines)
    assert [len(cue.lines) for cue in made] == [2] * len(made)
    assert [cue.lines[-1][-1] for cue in made] == [",", "."]  # at the clause end
    check_srt(to_srt(made), text, 60.0)
    check_vtt(to_vtt(made), text, 60.0)


def test_slow_speech_is_cut_at_seven_seconds_and_a_huge_word_is_a_cue_of_its_own() -> None:
    slow = cue_words("one two three four five six seven eight nine ten", step=1.5)
    made = cues(slow, 30.0)
    assert all(cue.end - cue.start <= 7.0 for cue in made) and len(made) >= 3
    huge = "x" * 60
    words = [*cue_words("a short start"), CueWord(huge, 1.0, 9.5), CueWord("end.", 9.5, 9.8)]
    made = cues(words, 10.0)
    assert (huge,) in [cue.lines for cue in made]
    check_srt(to_srt(made), f"a short start {huge} end.", 10.0)


def test_cues_break_at_pauses_and_line_breaks_and_hold_short_cues_a_moment() -> None:
    words = [
        CueWord("Hello.", 0.0, 0.3, True),
        CueWord("Again.", 2.5, 2.8, True),
        CueWord("Next", 3.0, 3.2, True, new_block=True),
    ]
    made = cues(words, 4.0)
    assert [cue.lines for cue in made] == [("Hello.",), ("Again.",), ("Next",)]
    assert made[0].end == 1.0  # held for a second, the next cue is later
    assert made[1].end == 3.0  # held until the next cue starts
    assert made[2].end == 4.0  # held, within the audio


def test_vtt_escapes_markup_and_srt_keeps_text_as_is() -> None:
    text = "AT&T <sells> phones."
    made = cues(cue_words(text), 5.0)
    vtt = to_vtt(made)
    assert "AT&amp;T &lt;sells&gt; phones." in vtt
    check_vtt(vtt, text, 5.0)
    check_srt(to_srt(made), text, 5.0)


def test_an_empty_run_writes_empty_but_valid_documents() -> None:
    transcript = transcript_of([Finished(0, "end_of_audio", 3.0, 0)])
    assert transcript.to_text() == "" and transcript.to_markdown() == ""
    assert transcript.to_srt() == ""
    data = check_all(transcript)
    assert data["words"] == [] and data["duration"] == 3.0


# ---------------------------------------------------------------------------- word times


def test_alignment_skips_words_no_sentence_used_and_stray_letters() -> None:
    ref = [Timed(w, i, i + 0.5, 1.0) for i, w in enumerate("um comma hello there a".split())]
    timed, after = align(["Hello", "there."], ref, spans=False, islands=3)
    assert [(t.start, t.end) for t in timed] == [(2, 2.5), (3, 3.5)]
    assert after == 4
    words = [Timed("a", None, None), Timed("b", 5.0, 4.0), Timed("c", None, None), Timed("d", 1, 2)]
    fill(words, 4.5)
    # "a" fills the gap before "b"; "b" ends before it starts and after the audio; "d" goes back
    assert [(w.start, w.end) for w in words] == [(0.0, 4.5)] + [(4.5, 4.5)] * 3
    words = [Timed("a", 1.0, 2.0), Timed("b"), Timed("c"), Timed("d", 4.0, 5.0)]
    fill(words, 10.0)
    assert [(w.start, w.end) for w in words] == [(1, 2), (2, 3), (3, 4), (4, 5)]


@pytest.mark.slow  # 2 s
def test_a_long_transcript_is_quick() -> None:
    events: list[Event] = []
    start = 0.0
    for n in range(600):
        words = said(f"this is sentence {n} of a long and winding lecture", start)
        events += [Segment(0, n, start, words[-1].end, "pause", words)]
        events += [Finalized(0, n, [f"This is sentence {n} of a long and winding lecture."])]
        if n == 300:
            events += [Command(0, n, "scratch", "scratch that", "sentence")]
        start = words[-1].end + 0.4
    began = time.perf_counter()
    transcript = transcript_of(events)
    check_all(transcript)
    assert time.perf_counter() - began < 20


# ---------------------------------------------------------------------------- properties

VOCABULARY = [
    "the", "a", "report", "paris", "she", "works", "twenty", "five", "dollars", "u", "s",
    "i", "it", "is", "on", "time", "extraordinarily", "x" * 50, "caf\u00e9", "AT&T", "--",
]  # fmt: skip


@st.composite
def event_streams(draw: st.DrawFn) -> tuple[list[Event], float | None]:
    """Random runs: sentences heard at random (even overlapping or backwards) times, written
    differently from what was heard, split by pauses, heard and never finalized, finalized and
    never heard; commands between them."""
    events: list[Event] = []
    clock = 0.0
    for segment in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["sentence", "sentence", "sentence", "command", "stray"]))
        if kind == "command":
            command = draw(st.sampled_from(["new_line", "new_paragraph", "scratch", "undo"]))
            target = draw(st.sampled_from(["", "sentence", "pending"]))
            events.append(Command(0, segment, command, command, target))
            continue
        tokens = draw(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=30))
        heard = []
        for token in tokens:
            start = max(0.0, clock + draw(st.floats(-1.0, 4.0)))
            clock = start + draw(st.floats(0.0, 3.0))
            heard.append(Word(token, start, clock, draw(st.floats(0.0, 1.0))))
        if draw(st.booleans()) or kind == "stray":
            events.append(Segment(0, segment, 0.0, clock, "pause", heard))
        if kind == "stray":
            continue
        spoken = " ".join(tokens).replace("u s", "US").capitalize() + draw(st.sampled_from(".?,"))
        written = spoken.replace("twenty five dollars", "$25").replace("twenty", "20")
        cut = draw(st.integers(0, len(written.split())))
        parts = [" ".join(written.split()[:cut]), " ".join(written.split()[cut:])]
        for n, part in enumerate(p for p in parts if p):
            same = part in written and written == spoken
            events.append(
                Finalized(0, segment, [part], spoken=None if same else [part], continues=n > 0)
            )
    seconds = draw(st.one_of(st.none(), st.floats(0.0, clock + 5.0)))
    events.append(Finished(0, "end_of_audio", seconds or 0.0, 0))
    return events, draw(st.one_of(st.none(), st.floats(0.1, 100.0)))


@pytest.mark.slow  # 5 s
@settings(max_examples=200, deadline=None)
@given(event_streams())
def test_random_runs_give_valid_documents_with_the_texts_words(
    run: tuple[list[Event], float | None],
) -> None:
    events, duration = run
    check_all(transcript_of(events, duration))


PHRASES = [
    "new paragraph", "new line", "scratch that", "undo that", "comma", "period", "u s",
    "twenty five dollars", "we went home", "she said", "hello", "select home", "cap that",
    "delete last word",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from(PHRASES), min_size=1, max_size=5), st.floats(0.0, 3.0)),
        max_size=8,
    )
)
def test_the_real_text_stage_with_random_commands_gives_valid_documents(
    segments: list[tuple[list[str], float]],
) -> None:
    clock, timed = 0.0, []
    for phrases, gap in segments:
        spec = " ".join(phrases)
        timed.append((spec, clock + gap))
        clock += gap + 0.4 * len(spec.split()) + 0.1
    check_all(transcript_of(stage_events(timed)))
