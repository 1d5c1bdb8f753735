"""Decoder logic, driven by a deterministic tagger (no model needed).

The fake tagger stands in for the model because these tests need exact control of the
probabilities; the decoders run on a real ONNX model in ``test_cli.py``.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_tagger import FakeTagger
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.punctuation.baseline import SegmentPunctuator, make_punctuator
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.options import StreamingOptions
from dictate.punctuation.spans import Span, Update


def texts(updates: Sequence[Update]) -> list[str]:
    return [s.text for u in updates for s in u.finalized]


def all_words(spans: Sequence[Span]) -> list[str]:
    return [w for s in spans for w in s.words]


def test_the_papers_example_streaming_versus_baseline() -> None:
    # A speaker pauses three times inside one question (Behre et al., Table 2).
    segments = [
        ["it", "can", "happen"],
        ["in", "new", "york", "city"],
        ["right", "huh"],
        ["so", "we", "went", "there", "stop"],
    ]
    baseline = SegmentPunctuator(FakeTagger())
    streaming = StreamingPunctuator(FakeTagger())
    base = [baseline.feed(s) for s in segments] + [baseline.flush()]
    stream = [streaming.feed(s) for s in segments] + [streaming.flush()]
    assert texts(base) == [
        "It can happen.",
        "In new york city.",
        "Right huh?",
        "So we went there stop.",
    ]
    assert texts(stream) == ["It can happen in new york city right huh?", "So we went there stop."]


def test_a_boundary_waits_for_min_right_words() -> None:
    decoder = StreamingPunctuator(FakeTagger(), StreamingOptions(min_right_words=3))
    first = decoder.feed(["we", "left", "stop", "then"])
    assert first.finalized == ()
    assert first.pending_text == "We left stop. Then."  # tentative, greyed in the editor
    second = decoder.feed(["it", "rained"])
    assert [s.text for s in second.finalized] == ["We left stop."]
    assert second.pending.words == ("then", "it", "rained")
    assert second.pending_text == "Then it rained."


def test_several_sentences_finalize_at_once_and_question_marks_survive() -> None:
    decoder = StreamingPunctuator(FakeTagger(), StreamingOptions(min_right_words=2))
    update = decoder.feed("one stop two huh three well four a b c".split())
    assert [s.text for s in update.finalized] == ["One stop.", "Two huh?"]
    assert update.pending_text == "Three well, four a b c."


def test_flush_finalizes_everything_and_closes_the_last_sentence() -> None:
    decoder = StreamingPunctuator(FakeTagger(window_end_period=False))
    decoder.feed(["so", "we", "are", "perhaps"])
    update = decoder.flush()
    assert [s.text for s in update.finalized] == ["So we are perhaps?"]
    assert update.pending == Span()
    assert decoder.flush() == Update()


def test_cap_forces_the_most_probable_boundary() -> None:
    options = StreamingOptions(min_right_words=3, max_pending_words=12)
    decoder = StreamingPunctuator(FakeTagger(window_end_period=False), options)
    words = "a b c d maybe e f g h i j k l".split()  # 13 words, no confident boundary
    update = decoder.feed(words)
    assert [s.text for s in update.finalized] == ["A b c d maybe."]
    assert update.pending.words == tuple("e f g h i j k l".split())


def test_cap_in_tokens() -> None:
    options = StreamingOptions(min_right_words=1, max_pending_words=1000, max_pending_tokens=20)
    tagger = FakeTagger(window_end_period=False)
    decoder = StreamingPunctuator(tagger, options)
    for _ in range(40):
        update = decoder.feed(["internationalisation", "word"])  # 3 + 1 tokens
        assert tagger.count_tokens(update.pending.words) <= 20


def test_default_token_cap_keeps_left_context_and_pending_in_one_window() -> None:
    tagger = FakeTagger(window_end_period=False, window_tokens=30)
    decoder = StreamingPunctuator(tagger, StreamingOptions(max_pending_words=1000))
    for _ in range(50):
        update = decoder.feed(["a", "b", "c"])
        window = list(decoder._left) + list(update.pending.words)
        assert tagger.count_tokens(window) <= 30


def test_left_context_is_read_only_and_bounded() -> None:
    tagger = FakeTagger()
    decoder = StreamingPunctuator(tagger, StreamingOptions(min_right_words=1, left_context_words=4))
    decoder.feed("a b c d e stop f".split())
    decoder.feed(["g", "h"])
    # The second window starts with the last 4 finalized words, then the pending words.
    assert tagger.calls[-1] == ["c", "d", "e", "stop", "f", "g", "h"]
    decoder.flush()
    assert texts([]) == []


def test_baseline_closes_every_segment() -> None:
    decoder = SegmentPunctuator(FakeTagger(window_end_period=False))
    update = decoder.feed(["we", "went", "stop", "and", "then", "perhaps"])
    assert [s.text for s in update.finalized] == ["We went stop.", "And then perhaps?"]
    assert update.pending_text == ""
    assert decoder.feed([]) == Update()
    assert decoder.flush() == Update()


def test_empty_words_are_ignored() -> None:
    decoder = StreamingPunctuator(FakeTagger())
    assert decoder.feed(["", "  "]) == Update()
    assert decoder.feed([" a ", ""]).pending.words == ("a",)


@pytest.mark.parametrize(
    "bad",
    [
        {"min_right_words": 0},
        {"left_context_words": -1},
        {"max_pending_words": 2, "min_right_words": 3},
        {"max_pending_tokens": 0},
    ],
)
def test_bad_options(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        StreamingOptions(**bad)


VOCAB = ["a", "b", "c", "stop", "huh", "well", "maybe", "perhaps", "internationalisation"]


def check_stream(segments: list[list[str]], options: StreamingOptions) -> None:
    """Every word exactly once, in order; finalized never changes; flush empties pending."""
    decoder = StreamingPunctuator(FakeTagger(), options)
    finalized: list[Span] = []
    fed: list[str] = []
    for segment in segments:
        update = decoder.feed(segment)
        fed += segment
        for sentence in update.finalized:
            assert sentence.tags[-1] in ("PERIOD", "QUESTION")
            assert sentence.text[0].isupper()
        finalized += update.finalized
        assert all_words(finalized) + list(update.pending.words) == fed
        assert len(update.pending) <= options.max_pending_words
    last = decoder.flush()
    finalized += last.finalized
    assert last.pending == Span()
    assert all_words(finalized) == fed
    assert decoder.pending == Span()


@settings(max_examples=150, deadline=None)
@given(
    segments=st.lists(st.lists(st.sampled_from(VOCAB), max_size=30), max_size=30),
    min_right=st.integers(1, 6),
    left=st.integers(0, 20),
    cap=st.integers(7, 40),
)
def test_invariants_hold_on_random_streams(
    segments: list[list[str]], min_right: int, left: int, cap: int
) -> None:
    check_stream(
        segments,
        StreamingOptions(min_right_words=min_right, left_context_words=left, max_pending_words=cap),
    )


def test_a_huge_segment_is_decoded_in_bounded_windows() -> None:
    tagger = FakeTagger()
    options = StreamingOptions()
    decoder = StreamingPunctuator(tagger, options)
    words = [random.Random(1).choice(VOCAB) for _ in range(5_000)]
    update = decoder.feed(words)
    assert all_words(update.finalized) + list(update.pending.words) == words
    bound = options.left_context_words + options.max_pending_words + options.max_pending_words // 2
    assert max(len(call) for call in tagger.calls) <= bound


def _stream(n_words: int, seed: int) -> list[list[str]]:
    rng = random.Random(seed)
    segments: list[list[str]] = []
    total = 0
    while total < n_words:
        segment = [rng.choice(VOCAB) for _ in range(rng.randint(1, 15))]
        segments.append(segment)
        total += len(segment)
    return segments


@pytest.mark.slow
def test_memory_and_work_per_update_stay_bounded_on_a_100k_word_stream() -> None:
    # Work per update is measured as the words tagged per call, not in seconds: timing belongs
    # in `dictate bench`, and a count cannot flake on a busy machine.
    tagger = FakeTagger()
    options = StreamingOptions()
    decoder = StreamingPunctuator(tagger, options)
    segments = _stream(100_000, seed=7)
    total = sum(len(s) for s in segments)
    fed = finalized_words = 0
    tracemalloc.start()
    try:
        for i, segment in enumerate(segments):
            update = decoder.feed(segment)
            fed += len(segment)
            finalized_words += sum(len(s) for s in update.finalized)
            assert finalized_words + len(update.pending) == fed
            tagger.calls.clear()  # the fake's own log is not the decoder's memory
            if i == len(segments) // 5:
                early, _ = tracemalloc.get_traced_memory()
        late, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    finalized_words += sum(len(s) for s in decoder.flush().finalized)
    assert finalized_words == total >= 100_000
    assert late - early < 200_000  # bytes: no growth with the length of the stream
    assert len(decoder._left) <= options.left_context_words


def test_window_size_never_grows_with_the_stream() -> None:
    tagger = FakeTagger()
    options = StreamingOptions()
    decoder = StreamingPunctuator(tagger, options)
    sizes = []
    for segment in _stream(100_000, seed=3):
        decoder.feed(segment)
        sizes.append(len(tagger.calls[-1]))
        tagger.calls.clear()
    assert max(sizes) <= options.left_context_words + options.max_pending_words + 15


def test_driven_from_several_threads_nothing_is_lost() -> None:
    decoder = StreamingPunctuator(FakeTagger())
    out: list[Span] = []
    out_lock = threading.Lock()
    segments_per_thread = [_stream(3_000, seed=s) for s in range(4)]

    def worker(segments: list[list[str]]) -> None:
        for segment in segments:
            update = decoder.feed(segment)
            with out_lock:
                out.extend(update.finalized)

    threads = [threading.Thread(target=worker, args=(s,)) for s in segments_per_thread]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.extend(decoder.flush().finalized)
    expected = sorted(w for segs in segments_per_thread for s in segs for w in s)
    assert sorted(all_words(out)) == expected


def test_no_qt_under_the_punctuation_package() -> None:
    package = Path(__file__).resolve().parents[2] / "dictate" / "punctuation"
    for source in package.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "PySide" not in text and "PyQt" not in text, source
    code = (
        "import sys, dictate.punctuation.decoder, dictate.punctuation.model; "
        "print(any(m.startswith(('PySide', 'PyQt')) for m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_make_punctuator_by_mode() -> None:
    tagger = FakeTagger()
    assert isinstance(make_punctuator(tagger), StreamingPunctuator)
    assert isinstance(make_punctuator(tagger, "baseline"), SegmentPunctuator)
    with pytest.raises(ValueError, match="unknown punctuation mode"):
        make_punctuator(tagger, "fast")
