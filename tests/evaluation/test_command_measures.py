"""The voice-command measurements (benchmarks/voice_commands.py) on the committed test set."""

from __future__ import annotations

import random
from pathlib import Path

from dictate.evaluation.commands import (
    Timing,
    measure_detection,
    measure_false_triggers,
    read_command_cases,
    timed_words,
)

CASES = Path(__file__).resolve().parents[1] / "data" / "voice_commands.tsv"


def test_the_command_test_set_is_detected_and_its_ordinary_sentences_never_trigger() -> None:
    cases = read_command_cases(CASES)
    assert len(cases) >= 130 and sum(1 for expected, _ in cases if not expected) >= 40
    result = measure_detection(cases, seeds=3)
    assert result.detection_rate >= 0.95, result.failures[:5]
    assert result.false_triggers == 0, result.failures[:5]


def test_pauses_shorter_than_the_rule_are_missed_not_invented() -> None:
    cases = read_command_cases(CASES)
    result = measure_detection(cases, seeds=3, timing=Timing(pause=(0.05, 0.2)))
    assert result.detection_rate < 0.5  # the whole-segment commands still count
    assert result.false_triggers == 0


def test_timed_words_put_pauses_where_marked() -> None:
    words = timed_words("a b | c", random.Random(1))
    assert [w.text for w in words] == ["a", "b", "c"]
    assert words[1].start - words[0].end <= 0.15 and words[2].start - words[1].end >= 0.35


def test_false_triggers_are_counted_and_need_pauses() -> None:
    words = "in that period we left and the new line of products sold".split()
    tags = ["O"] * (len(words) - 1) + ["PERIOD"]
    assert measure_false_triggers(words, tags).triggers == []
    everywhere = measure_false_triggers(
        words, tags, p_hesitation=1.0, p_pause_comma=1.0, p_pause_end=1.0
    )
    assert [label for label, _ in everywhere.triggers] == ["mark:.", "new_line"]
    assert everywhere.words == len(words) and everywhere.per_10k_words > 0
