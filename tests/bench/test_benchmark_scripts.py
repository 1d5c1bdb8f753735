"""The scoring of the benchmark scripts in benchmarks/ (their runs need the benchmark sets,
built by benchmarks/real_recordings.py and longform_set.py; the scoring needs nothing)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
asr_wer: Any = importlib.import_module("asr_wer")  # scripts, not a package: untyped here
punctuation: Any = importlib.import_module("punctuation_second_pass")
align, alignment, normalise = asr_wer.align, asr_wer.alignment, asr_wer.normalise
projected, score = punctuation.projected, punctuation.score


def test_word_errors_count_each_edit_once() -> None:
    errors = align("a b c d".split(), "a x c d e".split())
    assert (errors.sub, errors.dele, errors.ins, errors.errors) == (1, 0, 1, 2)
    assert errors.wer == pytest.approx(0.5)
    assert alignment(["a", "b"], ["b"]) == [(0, None), (1, 0)]


def test_normalising_makes_written_and_spoken_forms_agree() -> None:
    assert normalise("Twenty-five dollars, please.") == normalise("$25 please")
    assert normalise("It's \u201cfine\u201d") == ["it's", "fine"]
    # The hesitations the app never writes are left out on both sides, unless counted.
    assert normalise("So, um, it's uh fine.") == normalise("So it's fine") == ["so", "it's", "fine"]
    assert normalise("So, um, it's fine.", fillers=True) == ["so", "um", "it's", "fine"]


def test_punctuation_is_scored_on_the_aligned_words_only() -> None:
    reference = "It rained. We stayed in, and read."
    hypothesis = "it rained. he stayed, and read."  # "we" heard as "he", "in" lost
    tags = projected(reference, hypothesis)
    assert tags["ref"] == ["O", "PERIOD", "O", "O", "O", "PERIOD"]  # "in," left out
    assert tags["hyp"] == ["O", "PERIOD", "O", "COMMA", "O", "PERIOD"]
    result = score(tags)
    assert result["segmentation_f1"] == 1.0 and result["words"] == 6
    assert result["punctuation_f1"] == pytest.approx(0.8)  # the comma on "stayed" is false
    # A mark on an inserted word belongs to the word before it.
    inserted = projected("We went home.", "we went home now.")
    assert inserted["hyp"] == ["O", "O", "PERIOD"]
