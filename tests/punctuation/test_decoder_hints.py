"""The second pass's own punctuation as hints to the streaming decoder: Whisper writes marks,
the decoder weighs them against the model (``hint_weight`` inside a segment, ``hint_end_weight``
at its last word, where Whisper closes every segment with a full stop), and the user's spoken
marks still win. The words reach the decoder with their marks through the text stage."""

from __future__ import annotations

from typing import Any

import pytest
from fake_tagger import FakeTagger

from dictate.asr.engine import Word
from dictate.commands.table import Words, split_commands
from dictate.events import Finalized
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.options import StreamingOptions
from dictate.text.stage import TextStage

P, O, C = "PERIOD", "O", "COMMA"  # noqa: E741 - the tag is called O in every paper


def punctuator(inner: float, end: float = 0.0) -> StreamingPunctuator:
    return StreamingPunctuator(
        FakeTagger(window_end_period=False),
        StreamingOptions(hint_weight=inner, hint_end_weight=end),
    )


def test_a_mark_inside_a_segment_ends_a_sentence_the_model_missed() -> None:
    words = "it was late we went home and then we slept well".split()
    hints = [O, O, P, O, O, O, O, O, O, O, O]
    unhinted = punctuator(0.0).feed(words, hints=hints)
    assert unhinted.finalized == ()  # the model alone sees no sentence end
    hinted = punctuator(0.5).feed(words, hints=hints)
    assert hinted.finalized_text == "It was late."
    assert hinted.pending_text.startswith("We went home")


def test_the_model_outweighs_a_weak_hint() -> None:
    """At a low weight a hint tips only an uncertain word ("maybe": O 0.55 against a period
    0.45), never a sure one (an ordinary word: O 0.97)."""
    words = "it was late maybe we went home and then we slept".split()
    hints = [O, O, P, P, O, O, O, O, O, O, O]
    update = punctuator(0.2).feed(words, hints=hints)
    assert update.finalized_text == "It was late maybe."


def test_no_mark_from_the_recogniser_is_a_hint_too() -> None:
    """Whisper wrote no mark after "stop" (the model: a period, 0.85): a strong enough "O"
    keeps the sentence going."""
    words = "we had to stop the car and then we walked home".split()
    hints = [O] * len(words)
    assert punctuator(0.0).feed(words, hints=hints).finalized_text == "We had to stop."
    assert punctuator(0.9).feed(words, hints=hints).finalized == ()


def test_the_segment_end_hint_has_its_own_weight() -> None:
    """Whisper's full stop after a segment's last word is weighed by ``hint_end_weight``: 0
    ignores it (the speaker may only have paused), while the same mark inside the next segment
    counts by ``hint_weight``."""
    first, second = "it was late".split(), "we went home and then we slept".split()
    for end, expected in ((0.0, ""), (0.6, "It was late.")):
        p = punctuator(0.0, end)
        p.feed(first, hints=[O, O, P])
        assert p.feed(second, hints=[O] * len(second)).finalized_text == expected


def test_a_spoken_mark_wins_over_a_hint() -> None:
    p = punctuator(1.0)
    p.feed("we went home".split(), hints=[O, O, P])
    update = p.mark(",")
    assert update.pending_text == "We went home,"


def test_a_commit_weighs_the_end_hint() -> None:
    """At a pause the last word's end hint counts in the stream-end probability: with it, a
    sentence Whisper closed is finalized closed; without it, left open."""
    words = "and then we went home".split()
    assert not punctuator(0.0, 0.0).commit().finalized  # nothing pending: nothing to do
    open_ = punctuator(0.0, 0.0)
    open_.feed(words, hints=[O, O, O, O, P])
    assert open_.commit().finalized_text == "And then we went home"
    closed = punctuator(0.0, 1.0)
    closed.feed(words, hints=[O, O, O, O, P])
    assert closed.commit().finalized_text == "And then we went home."


def test_hint_weights_are_checked() -> None:
    with pytest.raises(ValueError, match="hint weights"):
        StreamingOptions(hint_weight=1.5)
    with pytest.raises(ValueError, match="2 hints for 3 words"):
        punctuator(0.5).feed(["a", "b", "c"], hints=[O, P])


def test_the_end_weight_is_the_last_real_word_s() -> None:
    """An empty string after the last word is no word: the end's weight goes to the word."""
    p = punctuator(0.0, 0.6)
    p.feed(["it", "was", "late", " "], hints=[O, O, P, None])
    words = "we went home and then we slept".split()
    assert p.feed(words, hints=[O] * len(words)).finalized_text == "It was late."


def test_the_words_marks_reach_the_punctuator_through_commands_and_the_text_stage() -> None:
    heard = [
        Word("it", 0.0, 0.2, 1.0, O),
        Word("was", 0.2, 0.4, 1.0, O),
        Word("late", 0.4, 0.6, 1.0, P),
        Word("we", 0.7, 0.8, 1.0, O),
        Word("left", 0.8, 1.0, 1.0, C),
    ]
    assert split_commands(heard) == [Words(("it", "was", "late", "we", "left"), (O, O, P, O, C))]
    assert split_commands(["it", "was"]) == [Words(("it", "was"))]  # no marks: none
    fed: list[Any] = []

    class Recording(StreamingPunctuator):
        def feed(self, words: Any, cases: Any = None, hints: Any = None) -> Any:
            fed.append(hints)
            return super().feed(words, cases, hints)

    events: list[Any] = []
    stage = TextStage(Recording(FakeTagger(window_end_period=False)), events.append)
    stage.segment(1, heard)
    stage.segment(2, [Word("so", 1.2, 1.4), Word("what", 1.4, 1.6)])  # a first pass's: none
    stage.finish(2)
    assert fed == [[O, O, P, O, C], None]
    assert any(isinstance(e, Finalized) for e in events)
