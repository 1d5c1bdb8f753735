"""Commit on pause in the streaming decoder: the stream-end decision, sentences left open and
continued, the mark decided once right context came, spoken marks after a pause, Stop after a
pause, and the live preview that changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from fake_tagger import FakeTagger
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.model import Tagging
from dictate.punctuation.options import StreamingOptions

PLAIN = [0.97, 0.01, 0.01, 0.01]
END = [0.05, 0.0, 0.9, 0.05]
COMMA_ROW = [0.1, 0.8, 0.1, 0.0]
PROBES = ("the", "and", "i", "so")


class ContextTagger:
    """A tagger whose decision at a word depends on the word after it, as a real model's does.

    ``rules[word]`` maps the next word to a row; "<end>" is the row at the end of the input
    (where an untuned model puts a period), "*" any other next word.
    """

    window_tokens = 64

    def __init__(self, rules: dict[str, dict[str, list[float]]]) -> None:
        self.rules = rules
        self.calls: list[list[str]] = []

    def tag(self, words: Sequence[str]) -> Tagging:
        self.calls.append(list(words))
        rows = []
        for i, word in enumerate(words):
            after = words[i + 1] if i + 1 < len(words) else "<end>"
            rule = self.rules.get(word, {})
            rows.append(rule.get(after, rule.get("*", END if after == "<end>" else PLAIN)))
        return Tagging(np.array(rows, dtype=np.float32).reshape(-1, 4))

    def count_tokens(self, words: Sequence[str]) -> int:
        return len(words)


# "home" ends a sentence only when a new sentence follows ("we"); before a probe word it does not
# look like one, and at the end of the input the untuned model always says PERIOD.
HOME = {"home": {"we": END, "<end>": END, "*": PLAIN}}
# "done" ends a sentence whatever follows.
DONE = {"done": {"*": END}}
# "well" is followed by a comma once the next words come.
WELL = {"well": {"we": COMMA_ROW, "<end>": END, "*": PLAIN}}


def decoder(rules: dict[str, dict[str, list[float]]], **options: Any) -> StreamingPunctuator:
    return StreamingPunctuator(ContextTagger(rules), StreamingOptions(**options))


def test_the_untuned_period_at_the_end_of_the_input_is_not_taken() -> None:
    """Found with the shipped model: it puts a full stop after "i went to the" with 0.97."""
    punctuator = decoder({})
    update = punctuator.commit()
    assert update.finalized == ()
    punctuator.feed("i went to the".split())
    update = punctuator.commit()
    assert [s.text for s in update.finalized] == ["I went to the"]
    assert punctuator.continues
    assert punctuator.pending.words == ()


def test_a_confident_end_is_committed_with_its_mark() -> None:
    punctuator = decoder(DONE)
    punctuator.feed("we are done".split())
    update = punctuator.commit()
    assert [s.text for s in update.finalized] == ["We are done."]
    assert not punctuator.continues
    update = punctuator.feed("then we left".split())
    assert update.pending_text == "Then we left."
    assert not update.continues


def test_the_next_words_continue_an_open_sentence_without_a_capital() -> None:
    punctuator = decoder({})
    punctuator.feed("i went to the".split())
    punctuator.commit()
    update = punctuator.feed("shop".split())
    assert update.closes == ""
    assert update.pending_text == "shop."
    update = punctuator.flush()
    assert [s.text for s in update.finalized] == ["shop."]
    assert update.continues
    # The left context kept the committed words.
    assert punctuator.tagger.calls[-1][:4] == ["i", "went", "to", "the"]  # type: ignore[attr-defined]


def test_the_mark_of_an_open_commit_is_appended_once_right_context_came() -> None:
    punctuator = decoder(HOME, min_right_words=2)
    punctuator.feed("we went home".split())
    update = punctuator.commit()
    assert [s.text for s in update.finalized] == ["We went home"]
    update = punctuator.feed(["we"])  # one word: too little right context to decide
    assert update.closes == ""
    assert update.pending_text == "we."
    update = punctuator.feed("slept well".split())
    assert update.closes == "."
    assert update.pending_text == "We slept well."  # a new sentence: capital
    assert not punctuator.continues


def test_a_comma_decided_later_keeps_the_sentence_open() -> None:
    punctuator = decoder(WELL, min_right_words=1)
    punctuator.feed("oh well".split())
    punctuator.commit()
    update = punctuator.feed("we stay".split())
    assert update.closes == ","
    assert punctuator.continues
    assert update.pending_text == "we stay."


def test_a_mark_said_after_the_pause_is_appended_to_the_committed_words() -> None:
    punctuator = decoder({})
    punctuator.feed("dear john".split())
    punctuator.commit()
    update = punctuator.mark(",")
    assert update.closes == ","
    assert punctuator.continues
    assert punctuator.mark(",").closes == ""  # only once: a mark is there now
    update = punctuator.feed("thank you".split())
    assert update.closes == ""
    assert update.pending_text == "thank you."


def test_a_sentence_end_said_after_the_pause_starts_a_new_sentence() -> None:
    punctuator = decoder({})
    punctuator.feed("see you tomorrow".split())
    punctuator.commit()
    assert punctuator.mark("?").closes == "?"
    assert not punctuator.continues
    assert punctuator.feed("bye now".split()).pending_text == "Bye now."


def test_no_mark_is_appended_after_a_committed_mark() -> None:
    punctuator = decoder(DONE)
    punctuator.feed("we are done".split())
    punctuator.commit()
    assert punctuator.mark(",").closes == ""


def test_stop_after_an_open_commit_ends_the_sentence() -> None:
    punctuator = decoder({})
    punctuator.feed("see you tomorrow".split())
    punctuator.commit()
    update = punctuator.flush()
    assert update.finalized == ()
    assert update.closes == "."
    assert not punctuator.continues
    assert punctuator.flush().closes == ""  # once


def test_a_line_break_after_an_open_commit_adds_no_mark() -> None:
    punctuator = decoder({})
    punctuator.feed("shopping list".split())
    punctuator.commit()
    assert punctuator.flush(close=False).closes == ""
    assert punctuator.feed(["eggs"]).pending_text == "Eggs."


def test_reset_forgets_an_open_commit() -> None:
    punctuator = decoder({})
    punctuator.feed("see you".split())
    punctuator.commit()
    punctuator.reset()
    assert not punctuator.continues
    assert punctuator.flush().closes == ""


def test_commit_uses_the_probe_words_as_right_context() -> None:
    tagger = ContextTagger(HOME)
    punctuator = StreamingPunctuator(tagger, StreamingOptions(min_right_words=2))
    punctuator.feed("we went home".split())
    tagger.calls.clear()
    punctuator.commit()
    assert sorted(call[-1] for call in tagger.calls if len(call) == 4) == sorted(PROBES)


def test_without_probes_the_end_of_input_probability_decides() -> None:
    punctuator = decoder(HOME, commit_probes=(), commit_end=0.95)
    punctuator.feed("we went home".split())
    assert [s.text for s in punctuator.commit().finalized] == ["We went home"]
    punctuator = decoder(HOME, commit_probes=(), commit_end=0.5)
    punctuator.feed("we went home".split())
    assert [s.text for s in punctuator.commit().finalized] == ["We went home."]


def test_a_failing_tagger_leaves_the_commit_state_as_it_was() -> None:
    class Failing(ContextTagger):
        fail = False

        def tag(self, words: Sequence[str]) -> Tagging:
            if self.fail:
                raise RuntimeError("boom")
            return super().tag(words)

    tagger = Failing(HOME)
    punctuator = StreamingPunctuator(tagger, StreamingOptions(min_right_words=1))
    punctuator.feed("we went home".split())
    punctuator.commit()
    tagger.fail = True
    with pytest.raises(RuntimeError):
        punctuator.feed("we slept".split())
    tagger.fail = False
    assert punctuator.continues
    update = punctuator.feed("we slept".split())
    assert update.closes == "."


def test_the_preview_punctuates_the_live_words_with_the_pending_ones_and_changes_nothing() -> None:
    tagger = FakeTagger(window_end_period=False)
    punctuator = StreamingPunctuator(tagger)
    punctuator.feed("we went home".split())
    pending, live = punctuator.preview("well then stop".split())
    assert pending.text == "We went home"
    assert live.text == "well, then stop."
    assert punctuator.pending.words == ("we", "went", "home")
    twin = StreamingPunctuator(FakeTagger(window_end_period=False))
    twin.feed("we went home".split())
    assert punctuator.feed(["now"]) == twin.feed(["now"])


def test_the_preview_of_nothing_is_the_pending_text() -> None:
    punctuator = StreamingPunctuator(FakeTagger(window_end_period=False))
    punctuator.feed("hello there".split())
    pending, live = punctuator.preview([])
    assert pending == punctuator.pending
    assert live.text == ""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.just("feed"),
                st.lists(st.sampled_from(["we", "went", "home", "done", "well", "x"]), max_size=5),
            ),
            st.tuples(st.just("commit"), st.just([])),
            st.tuples(st.just("mark"), st.sampled_from([[","], ["."], ["?"]])),
            st.tuples(st.just("preview"), st.lists(st.sampled_from(["we", "done"]), max_size=3)),
        ),
        max_size=25,
    )
)
def test_every_word_comes_out_once_in_order_whatever_the_pauses(
    steps: list[tuple[str, list[str]]],
) -> None:
    """Words fed come out finalized exactly once, in order, with marks appended only right
    after a bare word; Stop leaves no sentence open."""
    punctuator = decoder({**HOME, **DONE, **WELL}, min_right_words=2)
    fed: list[str] = []
    out: list[str] = []
    text = ""

    def take(update: Any) -> None:
        nonlocal text
        if update.closes:
            assert out, "a mark appended with no word before it"
            assert text[-1:].isalnum(), f"a mark after a mark: {text!r} + {update.closes!r}"
            text += update.closes
        for span in update.finalized:
            out.extend(span.words)
            text += (" " if text else "") + span.text

    for kind, words in steps:
        if kind == "feed":
            fed.extend(words)
            take(punctuator.feed(words))
        elif kind == "commit":
            take(punctuator.commit())
            assert punctuator.pending.words == ()
        elif kind == "mark":
            take(punctuator.mark(words[0]))
        else:
            punctuator.preview(words)
    take(punctuator.flush())
    assert out == fed
    assert not punctuator.continues
