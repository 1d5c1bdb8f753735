"""How well voice commands are found, and how often ordinary speech sets one off.

Two measurements (``benchmarks/voice_commands.py`` prints both; docs/voice-commands.md has the
figures):

* **Detection** on the command test set ``tests/data/voice_commands.tsv``: each line is an
  utterance with its pauses marked ``|`` and the commands it must give (none for the ordinary
  sentences in it). Word times are drawn from a stated timing model (:class:`Timing`), several
  seeds per utterance. A line counts as detected when exactly the expected commands come out.
* **False triggers** on plain text (``dev2012.tsv``, 296k words of TED talks): the text is cut
  into dictation segments (:func:`~dictate.evaluation.simulate.simulate_segments`), given word
  times with pauses where a speaker would make them (mostly at punctuation, sometimes a
  hesitation anywhere), and every command found is a false trigger.

The timing model is an assumption, not a measurement of a recogniser: it tests the grammar and
the pause rule, not whether the recogniser hears "semicolon".
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dictate.asr.engine import Word
from dictate.commands.table import Command, CommandKind, split_commands
from dictate.evaluation.simulate import simulate_segments


@dataclass(frozen=True)
class Timing:
    """Word times of the test speech (seconds).

    Words last ``word`` seconds; within a breath they are ``gap`` apart; a pause is
    ``pause`` long. Each is drawn uniformly from its range.
    """

    word: tuple[float, float] = (0.15, 0.6)
    gap: tuple[float, float] = (0.0, 0.15)
    pause: tuple[float, float] = (0.35, 1.2)


def timed_words(utterance: str, rng: random.Random, timing: Timing = Timing()) -> list[Word]:
    """Words with times for an utterance whose pauses are marked ``|``."""
    words: list[Word] = []
    t = 0.0
    paused = False
    for token in utterance.split():
        if token == "|":
            paused = True
            continue
        if words:
            t += rng.uniform(*(timing.pause if paused else timing.gap))
        length = rng.uniform(*timing.word)
        words.append(Word(token, t, t + length))
        t += length
        paused = False
    return words


def command_label(command: Command) -> str:
    """How the test set writes a command: ``new_paragraph``, ``mark:,``, ``cap:john``."""
    if command.kind == CommandKind.MARK:
        return f"mark:{command.mark}"
    if command.word:
        return f"{command.kind}:{command.word}"
    return command.kind


def read_command_cases(path: str | Path) -> list[tuple[list[str], str]]:
    """The test set: (expected command labels, utterance) per line; ``#`` lines are comments."""
    cases = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        expected, utterance = line.split("\t")
        cases.append(([] if expected == "-" else expected.split(), utterance))
    return cases


@dataclass(frozen=True)
class Detection:
    """Results on the command test set."""

    positives: int
    detected: int
    negatives: int
    false_triggers: int
    failures: list[tuple[str, list[str], list[str]]]
    """(utterance, expected, found) for every miss and false trigger."""

    @property
    def detection_rate(self) -> float:
        return self.detected / self.positives if self.positives else 1.0


def measure_detection(
    cases: Sequence[tuple[list[str], str]], seeds: int = 5, timing: Timing = Timing()
) -> Detection:
    """Run every case with ``seeds`` different draws of its word times."""
    positives = detected = negatives = false = 0
    failures = []
    for seed in range(seeds):
        rng = random.Random(seed)
        for expected, utterance in cases:
            found = [
                command_label(p)
                for p in split_commands(timed_words(utterance, rng, timing))
                if isinstance(p, Command)
            ]
            if expected:
                positives += 1
                detected += found == expected
            else:
                negatives += 1
                false += bool(found)
            if found != expected:
                failures.append((utterance, expected, found))
    return Detection(positives, detected, negatives, false, failures)


@dataclass(frozen=True)
class FalseTriggers:
    """Commands found in plain text that holds none."""

    words: int
    segments: int
    triggers: list[tuple[str, str]]
    """(command label, the segment's text) for each one."""

    @property
    def per_10k_words(self) -> float:
        return 10_000 * len(self.triggers) / self.words if self.words else 0.0


def measure_false_triggers(
    words: Sequence[str],
    tags: Sequence[str],
    *,
    seed: int = 0,
    p_pause_end: float = 0.7,
    p_pause_comma: float = 0.4,
    p_hesitation: float = 0.03,
    timing: Timing = Timing(),
) -> FalseTriggers:
    """Feed plain text as dictation segments with pauses and count the commands found.

    Args:
        words: The text's words (lowercase, as a recogniser gives them).
        tags: Its punctuation tags (O, COMMA, PERIOD, QUESTION): where a speaker pauses.
        seed: For the segment cuts and the times.
        p_pause_end: Chance of a pause after a sentence end inside a segment.
        p_pause_comma: Chance of a pause at a comma.
        p_hesitation: Chance of a pause after any other word.
    """
    rng = random.Random(seed)
    segments = simulate_segments(words, tags, seed=seed)
    triggers = []
    position = 0
    for segment in segments:
        marked: list[str] = []
        for i, word in enumerate(segment):
            marked.append(word)
            tag = tags[position + i]
            p = (
                p_pause_end
                if tag in ("PERIOD", "QUESTION")
                else p_pause_comma
                if tag == "COMMA"
                else p_hesitation
            )
            if rng.random() < p:
                marked.append("|")
        position += len(segment)
        for piece in split_commands(timed_words(" ".join(marked), rng, timing)):
            if isinstance(piece, Command):
                triggers.append((command_label(piece), " ".join(segment)))
    return FalseTriggers(len(words), len(segments), triggers)
