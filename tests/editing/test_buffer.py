"""The dictation buffer, example by example: undo steps, what voice commands will need, the
pending words left after a finalized sentence, and positions in code points."""

from __future__ import annotations

from pathlib import Path

from dictate.editing.buffer import DictationBuffer, remaining_pending
from dictate.editing.journal import Journal
from dictate.editing.journal_replay import replay
from dictate.editing.text import diff, from_utf16, normalize_newlines, to_utf16, utf16_len


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def typed(buffer: DictationBuffer, text: str, clock: Clock, gap: float = 0.1) -> None:
    for ch in text:
        buffer.replace(buffer.point, buffer.point, ch)
        clock.now += gap


def test_typing_is_grouped_into_words_and_broken_by_moves_and_pauses() -> None:
    clock = Clock()
    buffer = DictationBuffer(clock=clock)
    typed(buffer, "abc", clock)
    typed(buffer, " ", clock)  # a word and the space after it: one step
    typed(buffer, "de", clock)
    buffer.undo()
    assert buffer.text == "abc "
    buffer.undo()
    assert buffer.text == ""
    buffer.redo()
    assert buffer.text == "abc "
    typed(buffer, "\n", clock)  # a line break: a step of its own
    buffer.undo()
    assert buffer.text == "abc "
    buffer.undo()
    buffer.redo()
    assert buffer.text == "abc "
    buffer.load("abc")
    typed(buffer, "x", clock, gap=2.0)
    clock.now += 2.0
    typed(buffer, "y", clock)  # after a pause: a new step
    buffer.undo()
    assert buffer.text == "abcx"
    buffer.move_point(0)
    buffer.move_point(4)
    typed(buffer, "z", clock)  # after a move: a new step, even at the same place
    buffer.undo()
    assert buffer.text == "abcx"


def test_a_finalized_event_is_one_undo_step_and_the_region_is_untouched() -> None:
    buffer = DictationBuffer()
    buffer.load("Intro.")
    buffer.set_pending("one two")
    buffer.finalize(["One two three.", "Four five."], pending="six")
    assert buffer.text == "Intro. One two three. Four five."
    assert buffer.display() == "Intro. One two three. Four five. Six"
    buffer.undo()
    assert buffer.text == "Intro." and buffer.pending == "six"
    buffer.redo()
    assert buffer.text == "Intro. One two three. Four five."


def test_scratch_removes_pending_words_then_the_last_sentences() -> None:
    buffer = DictationBuffer()
    buffer.load("Typed.")
    buffer.finalize(["First one.", "Second one."], pending="and")
    assert buffer.last_dictated == (len("Typed. First one."), len(buffer.text))
    assert buffer.scratch() == "pending"
    assert buffer.pending == "" and buffer.text == "Typed. First one. Second one."
    assert buffer.scratch() == "sentence"
    assert buffer.text == "Typed. First one."
    assert buffer.scratch() == "sentence"
    assert buffer.text == "Typed."
    assert buffer.scratch() == ""  # the typed text is never scratched
    buffer.undo()
    assert buffer.text == "Typed. First one."


def test_an_edit_inside_a_dictated_sentence_takes_it_off_the_scratch_list() -> None:
    buffer = DictationBuffer()
    buffer.finalize("One.")
    buffer.finalize("Two.")
    buffer.replace(5, 6, "t")  # the user corrects "Two." to "two."
    assert buffer.text == "One. two."
    assert buffer.scratch() == "sentence"
    assert buffer.text == "two."  # "One." was the last intact dictated sentence


def test_line_and_paragraph_breaks_at_the_dictation_point() -> None:
    buffer = DictationBuffer()
    buffer.finalize("Dear Ann.")
    buffer.insert_break(paragraph=True)
    buffer.finalize("thanks for the letter.")
    buffer.insert_break()
    buffer.finalize("Bo.")
    assert buffer.text == "Dear Ann.\n\nThanks for the letter.\nBo."
    buffer.undo()
    buffer.undo()
    assert buffer.text == "Dear Ann.\n\nThanks for the letter."


def test_remaining_pending_words() -> None:
    assert remaining_pending("we went home and then", "We went home.") == "and then"
    assert remaining_pending("we went home and then", "We went, home?") == "and then"
    assert remaining_pending("we went home", "We went home.") == ""  # all of them
    assert remaining_pending("we went", "They left early.") == ""  # not these words


def test_positions_are_code_points_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    buffer = DictationBuffer(Journal(path))
    buffer.load("😀 x")
    buffer.move_point(2)  # after the emoji and the space
    buffer.finalize("So.")
    assert buffer.text == "😀 so. x"
    got = replay(path)
    assert got is not None and got.text == buffer.text


def test_utf16_conversions() -> None:
    text = "a😀b👨\u200d👩c"
    assert utf16_len(text) == len(text.encode("utf-16-le")) // 2
    for cp in range(len(text) + 1):
        assert from_utf16(text, to_utf16(text, cp)) == cp
    assert from_utf16(text, 2) == 2  # inside the surrogate pair: the character's end
    assert utf16_len("plain") == 5 and from_utf16("plain", 9) == 5


def test_newlines_and_diff() -> None:
    assert normalize_newlines("a\r\nb\rc\u2029d") == "a\nb\nc\nd"
    assert diff("hello", "helllo", 2) == (2, "", "l")
    assert diff("hello", "helllo") == (4, "", "l")
    assert diff("abc", "abc") == (3, "", "")
    assert diff("abcdef", "abXYef") == (2, "cd", "XY")


def test_a_word_said_over_a_selection_then_its_mark_after_a_pause_doubles_no_mark() -> None:
    """ "select morning", then "afternoon" committed by a pause, then the punctuator's "." for
    it: the sentence goes on with its own "." (a review read "in the afternoon. .")."""
    from dictate.editing import voice_edits

    for mark in (".", "?", ","):
        buffer = DictationBuffer()
        buffer.finalize(["I will meet you in the morning."])
        assert voice_edits.select(buffer, "morning") == (23, 30)
        buffer.finalize(["afternoon"], "")
        buffer.finalize([mark], "", continues=True)
        assert buffer.text == "I will meet you in the afternoon.", mark
    # Sentences said after the mark are kept: only the mark goes.
    buffer = DictationBuffer()
    buffer.finalize(["I will meet you in the morning."])
    voice_edits.select(buffer, "morning")
    buffer.finalize(["afternoon"], "")
    buffer.finalize([".", "We left."], "", continues=True)
    assert "We left" in buffer.text and ". ." not in buffer.text, buffer.text


def test_a_mark_after_words_a_pause_committed_at_the_end_of_the_text_attaches() -> None:
    """The stray-mark rule must not take a mark at the end of the text for one that follows
    (an empty text is no mark: CI caught that the first version dropped every such mark)."""
    for mark, expected in ((".", "We left."), (",", "We left,"), ("?", "We left?")):
        buffer = DictationBuffer()
        buffer.finalize(["We left"], "")
        buffer.finalize([mark], "", continues=True)
        assert buffer.text == expected, mark


def test_go_to_start_of_an_empty_text_is_not_inside_a_sentence() -> None:
    """Found by the state machine in CI: "go to start" of an empty text, a word typed, then a
    sentence finalized before it lost its full stop, as inside a sentence that goes on."""
    from dictate.editing import voice_edits

    buffer = DictationBuffer()
    assert voice_edits.go(buffer, "start")
    buffer.replace(0, 0, "a")
    buffer.finalize(["Word here."], "")
    assert buffer.text == "Word here. a"
