"""The list of voice commands (issue 27): made from the table the recogniser's grammar is made
from, so every phrase is in it, grouped and described as the table says."""

from __future__ import annotations

import re

from dictate.asr.engine import Word
from dictate.commands.help import WORD, WORDS, command_help_text, command_rows
from dictate.commands.table import (
    PHRASES,
    WORD_COMMANDS,
    WORDS_COMMANDS,
    Command,
    CommandKind,
    HelpGroup,
    split_commands,
)


def test_every_phrase_and_every_head_is_listed_once() -> None:
    said = [phrase for row in command_rows() for phrase in row.phrases]
    assert len(said) == len(set(said))
    expected = {
        *PHRASES,
        *(f"{head} {WORD}" for head in WORD_COMMANDS),
        *(f"{head} {WORDS}" for head in WORDS_COMMANDS),
    }
    assert set(said) == expected


def test_every_kind_has_a_row_a_description_and_an_example() -> None:
    rows = command_rows()
    assert {row.kind for row in rows} == set(CommandKind)
    for row in rows:
        assert row.phrases and row.does.strip() and row.example.strip(), row
        assert row.does[0].isupper(), row
        assert "{" not in row.does + row.example, row  # every template was filled in


def test_phrases_that_do_the_same_share_a_row_and_groups_stay_together() -> None:
    rows = command_rows()
    by_phrase = {phrase: row for row in rows for phrase in row.phrases}
    assert by_phrase["new line"].phrases == ("new line", "newline")
    assert by_phrase["new line"].said == "new line / newline"
    assert by_phrase["comma"].group == "Punctuation"
    assert by_phrase["comma"].does == "Writes a comma"
    assert by_phrase["comma"].example == '"we left … comma … then" → "We left, then"'
    assert by_phrase["period"] is by_phrase["full stop"]
    assert by_phrase["go to end"] is not by_phrase["go to start"]  # same kind, other argument
    assert by_phrase["select that"] is not by_phrase[f"select {WORDS}"]
    assert by_phrase["what can i say"].said == "what can I say"
    assert by_phrase["what can i say"].group == "Help"
    groups = [row.group for row in rows]
    assert [g for i, g in enumerate(groups) if g not in groups[:i]] == list(HelpGroup)


def test_the_text_lists_every_row() -> None:
    text = command_help_text()
    assert text.startswith("Say a command as a phrase of its own")
    for row in command_rows():
        assert f"  {row.said}\n" in text
    for group in HelpGroup:
        assert f"\n\n{group}\n" in text
    assert max(map(len, text.splitlines())) <= 100


def _utterances(example: str) -> list[str]:
    """What an example says: each quoted phrase before the arrow is said on its own."""
    return re.findall(r'"([^"]*)"', example.split("\u2192")[0])


def _said(utterance: str) -> list[Word]:
    """An utterance as a recogniser's words: 0.05 s between words said in one breath, 0.6 s
    where the example writes a pause (\u2026)."""
    t, words = 0.0, []
    for k, phrase in enumerate(utterance.split("\u2026")):
        t += 0.6 if k else 0.0
        for text in re.findall(r"[\w']+", phrase.lower()):
            words.append(Word(text, t, t + 0.3))
            t += 0.35
    return words


def test_every_example_said_as_written_does_its_command() -> None:
    """The examples are said as a command must be said: the real command finder hears the
    row's command in them (the help said a pause was needed, and its examples said "we left
    period" in one breath, which stays words)."""
    for row in command_rows():
        heard = [
            piece.kind
            for utterance in _utterances(row.example)
            for piece in split_commands(_said(utterance))
            if isinstance(piece, Command)
        ]
        assert row.kind in heard, (row.example, heard)
