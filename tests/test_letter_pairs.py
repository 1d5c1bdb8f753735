"""The numpy quick filters of dictate/writing/letter_pairs.py give what the comparisons they
stand for give one pair at a time (difflib's quick_ratio, Dice's coefficient of letter pairs,
the length bound, the first and last letters): they only save time, they never change which
runs of heard words the vocabulary compares."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

import numpy as np

from dictate.writing.letter_pairs import PairIndex, Shapes, dice, pairs
from dictate.writing.vocabulary_match import sound_key

LETTERS = "abcdefghiklmnoprstuvyz0123"


def _texts(rng: random.Random, count: int) -> list[str]:
    return ["".join(rng.choices(LETTERS, k=rng.randint(1, 12))) for _ in range(count)]


def test_the_pair_index_finds_the_texts_dice_finds_one_at_a_time() -> None:
    rng = random.Random(5)
    texts = _texts(rng, 300)
    index: PairIndex[int] = PairIndex()
    for number, text in enumerate(texts):
        index.add(number, text, sound_key(text))
    for run in _texts(rng, 60):
        for least in (0.2, 0.4, 0.6):
            slow = [
                number
                for number, text in enumerate(texts)
                if max(
                    dice(len(pairs(run) & pairs(text)), len(pairs(run)), len(pairs(text))),
                    dice(
                        len(pairs(sound_key(run)) & pairs(sound_key(text))),
                        len(pairs(sound_key(run))),
                        len(pairs(sound_key(text))),
                    ),
                )
                >= least
            ]
            assert index.near_indices(run, sound_key(run), least).tolist() == slow


def test_the_shapes_keep_every_text_the_one_at_a_time_bounds_keep() -> None:
    rng = random.Random(6)
    texts = [(rng.randint(1, 4), t, sound_key(t)) for t in _texts(rng, 300)]
    shapes = Shapes(texts, slack=3)
    every = np.arange(len(texts))
    for run in _texts(rng, 60):
        sound, words = sound_key(run), rng.randint(1, 4)
        for least in (0.5, 0.65, 0.8):
            slow, sharing = [], []
            for number, (count, text, key) in enumerate(texts):
                a = SequenceMatcher(None, run, text, autojunk=False)
                b = SequenceMatcher(None, sound, key, autojunk=False)
                if abs(count - words) <= 2 and a.quick_ratio() >= least:
                    sharing.append(number)
                if abs(count - words) > 3:
                    continue
                if not (set(run[:4]) & set(text[:4]) and set(run[-4:]) & set(text[-4:])):
                    continue
                bound = (2 * min(len(run), len(text)) / (len(run) + len(text))
                         + 2 * min(len(sound), len(key)) / (len(sound) + len(key))) / 2  # fmt: skip
                if bound >= least and (a.quick_ratio() + b.quick_ratio()) / 2 >= least:
                    slow.append(number)
            assert shapes.passing(words, run, sound, least, 3).tolist() == slow
            assert shapes.sharing(words, run, least, 2, every).tolist() == sharing
