"""The segment seam (dictate.seam): settling a closed segment with refiners, without threads, and
the one commit clock; then the pipeline and the parallel file decode through the same seam."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from dictate.asr.engine import Word
from dictate.seam.command_refiner import CommandRefiner
from dictate.seam.second_pass import SecondPassRefiner
from dictate.seam.segment import ClosedSegment, CommitClock, prepare_early, settle

RATE = 16000


def words(*texts: str, start: float = 1.0) -> list[Word]:
    return [Word(t, start + i * 0.3, start + i * 0.3 + 0.25) for i, t in enumerate(texts)]


def segment(*texts: str, seconds: float = 1.0, alternatives: Any = ()) -> ClosedSegment:
    audio = np.arange(round((seconds + 0.8) * RATE), dtype=np.int64).astype(np.int16)
    return ClosedSegment(
        1, 1.0, 1.0 + seconds, "silence", words(*texts), audio, 0.7, (), list(alternatives)
    )


class Fixed:
    """A refiner that answers ``answer`` and records what it was given."""

    rewritten: tuple[tuple[str, str], ...] = ()

    def __init__(self, name: str, answer: list[Word] | None) -> None:
        self.name, self.answer = name, answer
        self.given: list[list[str]] = []

    def refine(self, seg: ClosedSegment, current: list[Word]) -> list[Word] | None:
        self.given.append([w.text for w in current])
        return self.answer

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass


class Broken(Fixed):
    def refine(self, seg: ClosedSegment, current: list[Word]) -> list[Word] | None:
        raise RuntimeError("boom")


def test_refiners_run_in_order_each_on_the_words_settled_before_it() -> None:
    first = Fixed("second pass", words("hello", "world"))
    keep = Fixed("keeps", None)
    settled = settle(segment("hollow", "word"), [first, keep])
    assert [w.text for w in settled.words] == ["hello", "world"]
    assert settled.by == "second pass"
    assert keep.given == [["hello", "world"]]
    # the first pass's words are what else was heard, for "correct that"
    assert settled.alternatives[0] == ["hollow", "word"]


def test_no_refiner_keeps_the_first_pass_words_and_its_n_best() -> None:
    settled = settle(segment("a", "b", alternatives=[["a", "c"]]), [])
    assert [w.text for w in settled.words] == ["a", "b"] and settled.by == ""
    assert settled.alternatives == [["a", "c"]]


def test_a_failing_refiner_loses_no_words() -> None:
    settled = settle(segment("keep", "me"), [Broken("broken", None)])
    assert [w.text for w in settled.words] == ["keep", "me"]
    assert settled.notes == ["broken: failed"]


def test_nothing_said_is_an_empty_list_not_a_keep() -> None:
    assert settle(segment("noise"), [Fixed("second", [])]).words == []


def test_the_speech_span_is_cut_from_the_kept_audio() -> None:
    seg = segment("x", seconds=2.0)  # audio from 0.7 s, speech 1.0 to 3.0 s
    cut = seg.speech(before=0.25, after=0.1)
    assert len(cut) == round(2.35 * RATE)
    assert cut[0] == seg.audio[round(0.05 * RATE)]


def test_the_commit_clock_counts_from_the_end_of_speech_and_speech_cancels_it() -> None:
    clock = CommitClock(1.5)
    clock.segment_ended(10.0)
    assert not clock.due(False, 11.4)
    assert not clock.due(True, 12.0)  # still speaking
    assert clock.due(False, 11.5)
    assert not clock.due(False, 20.0)  # once
    clock.segment_ended(30.0)
    clock.speech()
    assert not clock.due(False, 40.0)
    assert not CommitClock(None).due(False, 1e9)
    with pytest.raises(ValueError, match="positive"):
        CommitClock(0)


@dataclass
class Result:
    words: list[Word]
    verdict: str
    heard_used: bool = False


class FakeSecondPass:
    """Stands in for Whisper where a test is about the refiner's rules, not about Whisper (the
    real model is tested in tests/asr/test_whisper_engine.py)."""

    name = "whisper"

    def __init__(self, results: list[Result]) -> None:
        self.results = results
        self.prompts: list[str] = []

    def decode(self, seg: Any, prompt: str = "") -> Result:
        self.prompts.append(prompt)
        return self.results.pop(0)

    def close(self) -> None:
        pass


def test_the_second_pass_replaces_keeps_or_writes_nothing_by_its_verdict() -> None:
    fake = FakeSecondPass(
        [
            Result(words("heaven"), "speech"),
            Result([], "no_speech"),
            Result(words("junk", "junk"), "repeats"),
        ]
    )
    refiner = SecondPassRefiner(fake)
    assert [w.text for w in settle(segment("haven't"), [refiner]).words] == ["heaven"]
    assert settle(segment("uh"), [refiner]).words == []
    assert [w.text for w in settle(segment("first"), [refiner]).words] == ["first"]
    assert refiner.verdicts == {"speech": 1, "no_speech": 1, "repeats": 1}


def test_by_default_the_second_pass_hears_no_prompt() -> None:
    """A prompt of the settled words made Whisper doubt, fall back and err more (measured:
    dictate/seam/segment.py PROMPT_WORDS)."""
    fake = FakeSecondPass([Result(words("one", "two"), "speech")] * 3)
    refiner = SecondPassRefiner(fake)
    for text in ("a", "b", "c"):
        settle(segment(text), [refiner])
    assert fake.prompts == ["", "", ""] and refiner._context == []


def test_the_prompt_is_the_last_settled_words_only_and_a_new_run_forgets_them() -> None:
    fake = FakeSecondPass([Result(words(*[f"w{i}" for i in range(30)]), "speech")] * 3)
    refiner = SecondPassRefiner(fake, prompt_words=5)
    settle(segment("a"), [refiner])
    settle(segment("b"), [refiner])
    assert fake.prompts == ["", "w25 w26 w27 w28 w29"]
    refiner.reset()
    settle(segment("c"), [refiner])
    assert fake.prompts[-1] == ""


def test_an_early_decode_settles_the_segment_only_if_it_closed_as_it_was() -> None:
    fake = FakeSecondPass([Result(words("early"), "speech"), Result(words("again"), "speech")])
    refiner = SecondPassRefiner(fake)
    seg = segment("first")
    prepare_early(replace(seg, words=[]), [refiner])  # before the close: no first-pass words
    assert [w.text for w in settle(seg, [refiner]).words] == ["early"]
    assert refiner.early_used == 1 and len(fake.prompts) == 1
    # Speech resumed after the early decode: the segment closed later, with another end.
    fake.results = [Result(words("part"), "speech"), Result(words("whole"), "speech")]
    longer = replace(segment("first"), number=2, end=3.0)
    prepare_early(replace(longer, end=2.0, words=[]), [refiner])
    assert [w.text for w in settle(longer, [refiner]).words] == ["whole"]
    assert refiner.early_used == 1
    # A new run forgets an early decode it did not use.
    fake.results = [Result(words("stale"), "speech"), Result(words("fresh"), "speech")]
    prepare_early(replace(seg, number=3, words=[]), [refiner])
    refiner.reset()
    assert [w.text for w in settle(replace(seg, number=3), [refiner]).words] == ["fresh"]


def test_an_early_decode_that_fails_loses_only_its_head_start(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken(FakeSecondPass):
        def decode(self, seg: Any, prompt: str = "") -> Result:
            if not seg.words:
                raise RuntimeError("out of memory")
            return super().decode(seg, prompt)

    refiner = SecondPassRefiner(Broken([Result(words("later"), "speech")]))
    seg = segment("first")
    prepare_early(replace(seg, words=[]), [refiner, Fixed("commands", None)])  # no prepare
    assert "could not start early" in caplog.text
    assert [w.text for w in settle(seg, [refiner]).words] == ["later"]


class Decoder:
    def __init__(self, phrase: str, accepted: bool) -> None:
        self.phrase, self.accepted = phrase, accepted
        self.calls = 0

    def decode(self, audio: np.ndarray, heard: Any = ()) -> Any:
        self.calls += 1
        return self


def test_the_command_check_judges_the_second_pass_words_and_skips_the_first_pass_n_best() -> None:
    decoder = Decoder("comma", True)
    commands = CommandRefiner(decoder)
    # The second pass heard a command: taken as it is, no second decode.
    settled = settle(segment("calm", "up"), [Fixed("whisper", words("comma")), commands])
    assert [w.text for w in settled.words] == ["comma"] and decoder.calls == 0
    # It heard ordinary words: the first pass's n-best (of other words) is not consulted, the
    # grammar decode is.
    seg = segment("calm", "up", alternatives=[["period"]])
    unsure = [replace(w, confidence=0.5) for w in words("come", "up")]  # Whisper's, unsure
    settled = settle(seg, [Fixed("whisper", unsure), commands])
    assert decoder.calls == 1 and [w.text for w in settled.words] == ["comma"]
    # Without a second pass, the first pass's n-best still wins first.
    settled = settle(segment("calm", "up", alternatives=[["period"]]), [commands])
    assert [w.text for w in settled.words] == ["period"] and decoder.calls == 1


def test_a_word_the_second_pass_is_sure_of_and_the_phrase_lacks_keeps_its_words() -> None:
    """ "close friends" said apart was heard so by Whisper (friends at 0.97) and the grammar
    decode took it for "close paren": the words as heard stand. "comment" at 0.18 is still
    "comma", and a word the phrase has ("close") does not count."""

    def heard(*pairs: tuple[str, float]) -> list[Word]:
        return [Word(w, 1.0 + i * 0.3, 1.3 + i * 0.3, p) for i, (w, p) in enumerate(pairs)]

    def judged(phrase: str, *pairs: tuple[str, float], first: str = "clothes friend") -> list[str]:
        refiners: list[Any] = [
            Fixed("whisper", heard(*pairs)),
            CommandRefiner(Decoder(phrase, True)),
        ]
        return [w.text for w in settle(segment(*first.split()), refiners).words]

    assert judged("close paren", ("close", 0.44), ("friends", 0.97)) == ["close", "friends"]
    # The same where the first pass heard the same words: they are the second pass's now.
    agreed = ("close", 0.44), ("friends", 0.97)
    assert judged("close paren", *agreed, first="close friends") == ["close", "friends"]
    assert judged("comma", ("comment", 0.18)) == ["comma"]
    assert judged("close paren", ("close", 0.99), ("parent", 0.6)) == ["close", "paren"]
    # The first pass's words (PocketSphinx's confidences) are judged as before: where no
    # second pass replaced them, the grammar decode's phrase is taken.
    refiners = [CommandRefiner(Decoder("close paren", True))]
    sure = [Word("close", 1.0, 1.3, 1.0), Word("friends", 1.3, 1.6, 1.0)]
    seg = replace(segment("close", "friends"), words=sure)
    assert [w.text for w in settle(seg, refiners).words] == ["close", "paren"]


def test_a_long_segment_is_no_command() -> None:
    decoder = Decoder("comma", True)
    settled = settle(segment("calm", seconds=5.0), [CommandRefiner(decoder)])
    assert [w.text for w in settled.words] == ["calm"] and decoder.calls == 0


def test_the_rewrites_settled_are_those_of_the_refiner_whose_words_stand() -> None:
    """Any refiner can say what it rewrote (the vocabulary does); words replaced again by a
    later refiner no longer hold those rewrites."""
    vocabulary = Fixed("vocabulary", words("TensorRT", "runs"))
    vocabulary.rewritten = (("TensorRT", "tensor rrt"),)
    assert settle(segment("tensor", "rrt", "runs"), [vocabulary]).rewrites == [
        ("TensorRT", "tensor rrt")
    ]
    again = Fixed("second pass", words("tensor", "runs"))
    assert settle(segment("tensor", "rrt", "runs"), [vocabulary, again]).rewrites == []
    keeps = Fixed("keeps", None)
    assert settle(segment("tensor", "rrt", "runs"), [vocabulary, keeps]).rewrites == [
        ("TensorRT", "tensor rrt")
    ]


@dataclass
class _HeardResult:
    words: list[Word]
    verdict: str = "speech"
    heard_used: bool = False


class _TailKeeper:
    """A second pass that, like Whisper after a doubted decode, adds the first pass's words to
    its own (``heard_used``): made early, before the first pass's words were final, its words
    are not the segment's."""

    name = "whisper"

    def __init__(self) -> None:
        self.decodes = 0

    def decode(self, segment: ClosedSegment, prompt: str) -> _HeardResult:
        self.decodes += 1
        heard = [Word(w.text, w.start, w.end) for w in segment.words]
        return _HeardResult([Word("said", segment.start, segment.end), *heard], heard_used=True)

    def close(self) -> None:
        pass


def test_an_early_decode_that_used_the_first_pass_words_is_made_again_at_the_close() -> None:
    """Whether the early decode ran (the refining thread was idle in the pause) must not change
    the words: one that consulted the first pass's words (none yet, early) is decoded again."""
    audio = np.zeros(16000, np.int16)
    early = ClosedSegment(1, 0.2, 0.8, "silence", [], audio, 0.0)
    closed = replace(early, words=[Word("tail", 0.6, 0.8)])
    second = _TailKeeper()
    refiner = SecondPassRefiner(second)
    prepare_early(early, [refiner])
    words = refiner.refine(closed, closed.words)
    fresh = SecondPassRefiner(_TailKeeper()).refine(closed, closed.words)
    assert second.decodes == 2 and refiner.early_used == 0
    assert words is not None and fresh is not None
    assert [w.text for w in words] == [w.text for w in fresh] == ["said", "tail"]
