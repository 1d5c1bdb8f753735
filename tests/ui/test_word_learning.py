"""Learning from corrections (dictate/ui/word_learning.py): an alternative chosen with "correct
that" is offered to the vocabulary once, in the message bar; the same correction a second time
is remembered without asking; Settings turn it off. The real window, offscreen, its events
dispatched as the pipeline sends them."""

from __future__ import annotations

import json
from pathlib import Path
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


def test_a_correction_to_an_entry_adds_the_words_heard_as_a_form_of_it(window: Any) -> None:
    """Kowalczyk is an entry already, with the sounds-like the user gave: choosing it for "cal
    al klyk" keeps that sounds-like and adds the words heard as a misheard form of the entry
    (put to Whisper's judgement from the next dictation)."""
    from dictate.writing.vocabulary import parse_entry
    from dictate.writing.vocabulary_harvest import load_misheard

    VocabularyFile().add([parse_entry("Kowalczyk = ko val chick")])
    _dictate_and_correct(window, 1)
    _offer(window).click()
    entries = VocabularyFile().entries
    assert [e.line() for e in entries] == ["Kowalczyk = ko val chick"]
    assert load_misheard(entries) == {"Kowalczyk": [("cal", "al", "klyk")]}
    assert "is now known as a way" in window.messages.label.text()


def test_learning_turned_off_offers_nothing(window: Any) -> None:
    window.settings.learn_words = False
    _dictate_and_correct(window, 1)
    assert _offer(window) is None
    _dictate_and_correct(window, 4)
    assert VocabularyFile().entries == []


def test_add_that_to_my_words_adds_the_selection(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["We met Kowalczyk today."], pending=""))
    window.events.dispatch(Command(0.2, 2, "learn", "add that to my words"))
    assert "Select the words to add first" in window.statusBar().currentMessage()
    assert VocabularyFile().entries == []
    window.events.dispatch(Command(0.3, 3, "select", "select kowalczyk", "kowalczyk"))
    window.events.dispatch(Command(0.4, 4, "learn", "add that to my words"))
    assert [e.line() for e in VocabularyFile().entries] == ["Kowalczyk"]
    assert "in your words now" in window.messages.label.text()
    assert window.editor.text == "We met Kowalczyk today."  # the text is as it was


def test_add_that_to_my_words_said_alone_is_the_command() -> None:
    from dictate.commands.table import CommandKind, split_commands

    [command] = split_commands("add that to my words".split())
    assert getattr(command, "kind", None) is CommandKind.LEARN


def test_a_spelled_word_is_offered_once(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["My name is"], pending="", committed=True))
    window.events.dispatch(Command(0.2, 2, "spell", "spell that"))
    assert _offer(window) is None
    window.events.dispatch(Finalized(0.3, 3, ["Mary"], False, "", None, True))
    assert "Remember \u201cMary\u201d, which you spelled" in window.messages.label.text()
    _offer(window).click()
    assert [e.line() for e in VocabularyFile().entries] == ["Mary"]
    window.events.dispatch(Finalized(0.4, 4, ["Then we left."], pending=""))
    assert _offer(window) is None  # only the spelled word


def test_a_rewrite_to_your_words_is_an_undo_step_and_the_history_keeps_what_was_heard(
    window: Any,
) -> None:
    """The vocabulary rewrote "tensor r t": Ctrl+Z (the window's undo) first gives back the
    words heard, then takes the sentence out; the history keeps both."""
    from dictate.editing.history import History

    said = [Word(w, i / 2, i / 2 + 0.4) for i, w in enumerate("we ran TensorRT today".split())]
    rewrites = [["TensorRT", "tensor r t"]]
    window.events.dispatch(Segment(0.1, 1, 0.0, 2.0, "pause", said, rewrites=rewrites))
    # The text stage found the rewrite in the sentence it finalized, and says so.
    window.events.dispatch(
        Finalized(
            0.2, 1, ["We ran TensorRT today."], pending="", rewrites=[rewrites],
            heard=["We ran tensor r t today."],
        )
    )  # fmt: skip
    assert window.editor.text == "We ran TensorRT today."
    window.edit_actions.undo_action.trigger()
    assert window.editor.text == "We ran tensor r t today."
    window.edit_actions.undo_action.trigger()
    assert window.editor.text == ""
    window.edit_actions.redo_action.trigger()
    window.edit_actions.redo_action.trigger()
    assert window.editor.text == "We ran TensorRT today."
    entries = History().entries()
    assert [(e.text, e.heard) for e in entries] == [
        ("We ran TensorRT today.", "We ran tensor r t today.")
    ]


class _Messages:
    """The message bar's two calls, recorded (the real bar is in the tests above)."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def add_message(self, text: str, actions: list[Any]) -> None:
        self.said.append(text)

    def show_message(self, text: str) -> None:
        self.said.append(text)


def test_a_correction_made_once_in_each_of_two_sessions_is_remembered(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from dictate.ui.word_learning import COUNTS_FILE, WordLearning

    path = tmp_path / "vocabulary.jsonl"
    settings = SimpleNamespace(learn_words=True)
    first = _Messages()
    WordLearning(settings, first, path).corrected("cal al klyk", "Kowalczyk")
    assert VocabularyFile(path).entries == [] and "Remember" in first.said[-1]
    assert (tmp_path / COUNTS_FILE).stat().st_mode & 0o777 == 0o600
    second = _Messages()  # the app started again
    WordLearning(settings, second, path).corrected("cal al klyk", "Kowalczyk")
    assert [e.line() for e in VocabularyFile(path).entries] == ["Kowalczyk = cal al klyk"]
    assert "corrected it twice" in second.said[-1]


def test_a_damaged_count_file_starts_counting_again(tmp_path: Path, caplog: Any) -> None:
    from types import SimpleNamespace

    from dictate.ui.word_learning import COUNTS_FILE, WordLearning

    (tmp_path / COUNTS_FILE).write_text('{"version": 1, "counts": [["a", "b"', encoding="utf-8")
    messages = _Messages()
    learning = WordLearning(SimpleNamespace(learn_words=True), messages, tmp_path / "v.jsonl")
    assert any("could not be read" in r.getMessage() for r in caplog.records)
    learning.corrected("cal al klyk", "Kowalczyk")  # counted from zero: offered, not learned
    assert "Remember" in messages.said[-1]
    assert json.loads((tmp_path / COUNTS_FILE).read_text())["counts"] == [
        ["cal al klyk", "Kowalczyk", 1]
    ]


def test_a_word_spelled_that_is_an_entry_already_keeps_the_entry_as_it_is(window: Any) -> None:
    """Remembering a word that is an entry already, with nothing heard to add (a spelled word,
    "add that to my words"), leaves the entry as the user wrote it: its sounds-like and exact
    rules are not replaced by the bare word."""
    from dictate.writing.vocabulary import parse_entry

    VocabularyFile().add([parse_entry("Kowalczyk = ko val chick <- cal al klyk")])
    assert window.event_view.learning.remember("Kowalczyk", "")
    assert [e.line() for e in VocabularyFile().entries] == [
        "Kowalczyk = ko val chick <- cal al klyk"
    ]
