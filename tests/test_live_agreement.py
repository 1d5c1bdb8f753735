"""Local agreement for the live words (``DICTATE_LIVE_AGREEMENT``, measured against showing
each preview whole: docs/performance.md): of each preview of the open segment only the words
the preview before it agreed on are shown, then the first pass's newer words; the early
decode, which the segment settles with, is shown whole."""

from __future__ import annotations

import numpy as np
import pytest

from dictate.asr.sphinx_engine import SphinxEngine
from dictate.run.first_pass import AGREEMENT_ENV, FirstPass
from dictate.seam.cutter import Piece


@pytest.fixture
def first(monkeypatch: pytest.MonkeyPatch) -> FirstPass:
    monkeypatch.setenv(AGREEMENT_ENV, "1")
    first = FirstPass(SphinxEngine())
    first.open_start, first.open_number = 0.0, 1  # segment 1 open, as a first piece leaves it
    first.partial = ["it", "wars", "best", "of", "torrents"]  # the first pass's (PocketSphinx)
    return first


def test_only_words_two_previews_agree_on_are_shown(first: FirstPass) -> None:
    # The first preview has nothing to agree with: the first pass's words stay.
    assert first.previewed(1, ["it", "was", "the"], heard=2) is None
    assert first.open_words() == ["it", "wars", "best", "of", "torrents"]
    # The next agrees on three: those, then the first pass's words heard after it was cut.
    shown = first.previewed(1, ["it", "was", "the", "best"], heard=3)
    assert shown == ["it", "was", "the", "of", "torrents"]
    # Agreement is with the last preview only.
    again = first.previewed(1, ["it", "was", "a", "best", "of"], heard=4)
    assert again == ["it", "was", "torrents"]
    # The early decode is what the segment settles with if it closes there: shown whole.
    early = ["it", "was", "the", "best", "of", "times"]
    assert first.previewed(1, early, heard=5, end=2.0) == early


def test_a_new_segment_agrees_afresh(first: FirstPass) -> None:
    """The next segment's first preview has nothing to agree with: the last segment's
    preview is not its."""
    first.previewed(1, ["it", "was"], heard=1)
    first.feed(Piece(2, 5.0, np.zeros(1600, np.int16), first=True), catching_up=False)
    assert first.previewed(2, ["it", "was"], heard=0) is None
    assert first.previewed(2, ["it", "was"], heard=0) == ["it", "was"]


def test_without_the_setting_each_preview_is_shown_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(AGREEMENT_ENV, raising=False)
    first = FirstPass(SphinxEngine())
    first.open_start, first.open_number, first.partial = 0.0, 1, ["it", "wars"]
    assert first.previewed(1, ["it", "was", "the"], heard=2) == ["it", "was", "the"]
