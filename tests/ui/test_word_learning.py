"""Learning from corrections (dictate/ui/word_learning.py): an alternative chosen with "correct
that" is offered to the vocabulary once, in the message bar; the same correction a second time
is remembered without asking; Settings turn it off. The real window, offscreen, its events
dispatched as the pipeline sends them."""

from __future__ import annotations

from typing import Any

from dictate.asr.engine import Word
from dictate.events import Command, Finalized, Segment
from dictate.writing.vocabulary import VocabularyFile


def _dictate_and_correct(window: Any, number: int) -> None:
    window.document.load_text("", None)  # each time a new document: the sentence alone
    said = [Word(w, i / 2, i / 2 + 0.4) for i, w in enumerate("we met cal al klyk".split())]
    heard = [["we", "met", "Kowalczyk"]]
    window.events.dispatch(Segment(0.1, number, 0.0, 2.0, "pause", said, None, heard))
    window.events.dispatch(Finalized(0.2, number, ["We met cal al klyk."], pending=""))
    window.events.dispatch(
        Command(0.3, number + 1, "correct", "correct cal al klyk", "cal al klyk")
    )
    window.events.dispatch(Command(0.4, number + 2, "choose", "choose one", "1"))
    assert window.editor.text == "We met Kowalczyk."


def _offer(window: Any) -> Any:
    buttons = [b for b in window.messages.buttons if "Remember" in b.text()]
    return buttons[0] if buttons else None


def test_a_chosen_alternative_is_offered_once_and_remembered_when_accepted(window: Any) -> None:
    _dictate_and_correct(window, 1)
    text = window.messages.label.text()
    assert "Remember \u201cKowalczyk\u201d" in text and "\u201ccal al klyk\u201d" in text
    assert VocabularyFile().entries == []  # asked, not done
    _offer(window).click()
    assert [e.line() for e in VocabularyFile().entries] == ["Kowalczyk = cal al klyk"]
    assert "in your words now" in window.messages.label.text()


def test_the_same_correction_twice_is_remembered_without_asking(window: Any) -> None:
    _dictate_and_correct(window, 1)
    window.messages.hide()
    _dictate_and_correct(window, 4)
    assert [e.line() for e in VocabularyFile().entries] == ["Kowalczyk = cal al klyk"]
    assert "corrected it twice" in window.messages.label.text()


def test_learning_turned_off_offers_nothing(window: Any) -> None:
    window.settings.learn_words = False
    _dictate_and_correct(window, 1)
    assert _offer(window) is None
    _dictate_and_correct(window, 4)
    assert VocabularyFile().entries == []
