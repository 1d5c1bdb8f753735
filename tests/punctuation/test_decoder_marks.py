"""Spoken punctuation, forced casing, scratching and line breaks in the streaming decoder."""

from __future__ import annotations

from typing import Any

from fake_tagger import FakeTagger
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.commands.table import CLOSE_PAREN, CLOSE_QUOTE, OPEN_PAREN, OPEN_QUOTE
from dictate.punctuation.baseline import SegmentPunctuator
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.options import StreamingOptions
from dictate.punctuation.spans import Span, Update


def decoder(**options: Any) -> StreamingPunctuator:
    return StreamingPunctuator(FakeTagger(window_end_period=False), StreamingOptions(**options))


def test_a_spoken_comma_overrides_the_model_and_shows_in_the_pending_text() -> None:
    d = decoder()
    d.feed("we went home".split())
    update = d.mark(",")
    assert update.finalized == () and update.pending_text == "We went home,"
    d.feed("then we slept".split())
    assert d.pending.text == "We went home, then we slept"


def test_a_spoken_sentence_end_finalizes_at_once_without_right_context() -> None:
    d = decoder(min_right_words=4)
    d.feed("is it late".split())
    update = d.mark("?")
    assert [s.text for s in update.finalized] == ["Is it late?"]
    assert update.pending == Span()
    update = d.feed("it is".split())
    assert update.pending_text == "It is"  # a capital after the spoken question mark
    assert [s.text for s in d.mark("!").finalized] == ["It is!"]


def test_colon_semicolon_quotes_and_parentheses() -> None:
    d = decoder()
    d.feed("three things".split())
    d.mark(":")
    d.feed("budget".split())
    d.mark(";")
    d.feed("the word".split())
    d.mark(OPEN_QUOTE)
    d.feed(["roadmap"])
    d.mark(CLOSE_QUOTE)
    d.feed(["and", "time"])
    d.mark(OPEN_PAREN)
    d.feed(["mostly"])
    d.mark(CLOSE_PAREN)
    update = d.mark(".")
    assert [s.text for s in update.finalized] == [
        "Three things: budget; the word \u201croadmap\u201d and time (mostly)."
    ]


def test_a_mark_said_after_a_closing_quote_goes_after_it() -> None:
    d = decoder()
    d.feed(["hello"])
    d.mark(CLOSE_QUOTE)
    assert [s.text for s in d.mark(".").finalized] == ["Hello\u201d."]
    d.feed(["hello"])
    d.mark(".")
    # The sentence was final at the period; a closing quote said after it has no word left to
    # attach to and is ignored rather than changing a final sentence.
    assert d.mark(CLOSE_QUOTE) == Update((), Span())


def test_forced_casing() -> None:
    d = decoder()
    d.feed(["ask"])
    d.feed(["john"], ["CAPITALIZED"])
    d.feed(["about"])
    d.feed(["nasa"], ["ALL_CAPS"])
    assert d.flush().finalized_text == "Ask John about NASA."


def test_a_mark_with_nothing_pending_is_ignored() -> None:
    d = decoder()
    assert d.mark(",") == Update((), Span())
    assert d.mark(".") == Update((), Span())
    assert d.feed(["fine"]).pending_text == "Fine"


def test_drop_pending_keeps_the_left_context_and_the_finalized_text() -> None:
    tagger = FakeTagger(window_end_period=False)
    d = StreamingPunctuator(tagger, StreamingOptions(min_right_words=1))
    done = d.feed("a stop b c".split())
    assert done.finalized_text == "A stop."
    dropped = d.drop_pending()
    assert dropped.words == ("b", "c") and d.pending == Span()
    d.feed(["x"])
    assert tagger.calls[-1] == ["a", "stop", "x"]  # left context kept, "b c" gone


def test_flush_without_closing_keeps_the_sentence_as_said() -> None:
    d = decoder()
    d.feed("apples and pears".split())
    assert d.flush(close=False).finalized_text == "Apples and pears"
    d.feed("milk".split())
    assert d.flush().finalized_text == "Milk."


def test_a_spoken_comma_is_never_replaced_by_a_forced_sentence_end() -> None:
    d = decoder(max_pending_words=6, min_right_words=2)
    d.feed(["a", "b"])
    d.mark(",")
    update = d.feed(["c", "d", "e", "f", "g"])
    text = " ".join(s.text for s in update.finalized) + " " + update.pending_text
    assert "B," in text or "b," in text


def test_the_baseline_accepts_the_same_calls() -> None:
    d = SegmentPunctuator(FakeTagger())
    assert d.feed(["ask", "john"], [None, "CAPITALIZED"]).finalized_text == "Ask John."
    assert d.mark(",") == Update() and d.drop_pending() == Span()
    assert d.flush(close=False) == Update()


ACTIONS = st.lists(
    st.one_of(
        st.tuples(
            st.just("feed"), st.lists(st.sampled_from(["a", "b", "stop", "huh"]), max_size=6)
        ),
        st.tuples(st.just("cap"), st.sampled_from(["john", "nasa"])),
        st.tuples(
            st.just("mark"),
            st.sampled_from(
                [",", ".", "?", "!", ":", ";", OPEN_QUOTE, CLOSE_QUOTE, OPEN_PAREN, CLOSE_PAREN]
            ),
        ),
        st.tuples(st.just("drop"), st.none()),
        st.tuples(st.just("flush"), st.booleans()),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(actions=ACTIONS, right=st.integers(1, 5), cap=st.integers(7, 20))
def test_every_word_is_finalized_pending_or_dropped_exactly_once(
    actions: list[tuple[str, object]], right: int, cap: int
) -> None:
    d = StreamingPunctuator(
        FakeTagger(), StreamingOptions(min_right_words=right, max_pending_words=cap)
    )
    fed: list[str] = []
    accounted: list[str] = []  # finalized or dropped, in order
    for action, arg in actions:
        if action == "feed":
            assert isinstance(arg, list)
            update = d.feed(arg)
            fed += arg
        elif action == "cap":
            update = d.feed([str(arg)], ["CAPITALIZED"])
            fed.append(str(arg))
        elif action == "mark":
            update = d.mark(str(arg))
        elif action == "drop":
            accounted += d.drop_pending().words
            update = Update((), d.pending)
        else:
            update = d.flush(close=bool(arg))
        for sentence in update.finalized:
            accounted += sentence.words
            assert sentence.text[:1].isupper() or sentence.text[:1] in (OPEN_QUOTE, OPEN_PAREN)
        assert accounted + list(update.pending.words) == fed
        assert update.pending == d.pending
    last = d.flush()
    accounted += [w for sentence in last.finalized for w in sentence.words]
    assert accounted == fed and d.pending == Span()


def test_a_spoken_comma_where_the_model_ended_a_sentence_keeps_the_next_word_lowercase() -> None:
    """The model capitalised "then" for the sentence it ended at "short"; the user said a comma."""
    import numpy as np

    from dictate.punctuation.model import Tagging

    class Tagger(FakeTagger):
        def tag(self, words):  # type: ignore[no-untyped-def]
            punct = [[0.05, 0.05, 0.85, 0.05] if w == "short" else [0.97, 0.01, 0.01, 0.01]
                     for w in words]  # fmt: skip
            case = [[0.1, 0.9, 0.0] if w in ("then", "paris") else [0.9, 0.1, 0.0] for w in words]
            return Tagging(np.array(punct, np.float32), np.array(case, np.float32))

    d = StreamingPunctuator(Tagger(), StreamingOptions())
    d.feed("it was short".split())
    d.mark(",")
    assert d.feed("then we left".split()).pending_text == "It was short, then we left"
    d.feed(["paris"])  # a capital the model gives for its own sake stays
    assert "left Paris" in d.flush().finalized_text
    # The same where Whisper's comma after "short" (a hint) outweighs the model's period:
    # seen as "I think it was a great, The rain had stopped." from espeak-ng speech.
    d = StreamingPunctuator(Tagger(), StreamingOptions(hint_weight=0.5))
    update = d.feed("it was short then we left".split(), hints=[None, None, "COMMA"] + [None] * 3)
    assert update.pending_text == "It was short, then we left"
