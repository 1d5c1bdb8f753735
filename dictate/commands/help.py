"""The list of voice commands that "what can I say" and Help > Voice commands show (issue 27).

The rows are made from :data:`~dictate.commands.table.COMMANDS`, the table the recogniser's
grammar and the dispatch are made from, so a command added there is listed without a change
here: a row per :class:`~dictate.commands.table.Saying` (the phrases that do one thing), under
its command's :class:`~dictate.commands.table.HelpGroup`, in the groups' order.
"""

from __future__ import annotations

import textwrap
from typing import NamedTuple

from dictate.commands.table import COMMANDS, CommandKind, HelpGroup, Takes

WORD = Takes.WORD.value
"""Stands for the word a command takes after it ("cap WORD")."""
WORDS = Takes.WORDS.value
"""Stands for the words a command names up to the next pause ("select WORDS")."""

HOW_TO_SAY = (
    "Say a command as a phrase of its own, with a short pause before and after it (\u2026 in "
    'the examples); spoken punctuation too: "we left \u2026 period". Words said in one breath '
    'stay words: "a new line of products" is text.'
)


class CommandRow(NamedTuple):
    """One row of the list: the phrases that do one thing."""

    group: str
    phrases: tuple[str, ...]
    """What to say, in the table's order; :data:`WORD` and :data:`WORDS` stand for the words
    said after a command that takes them ("cap WORD", "select WORDS")."""
    does: str
    example: str
    kind: CommandKind

    @property
    def said(self) -> str:
        """The phrases as one line, as they are written: "new line / newline", "what can I
        say" (the tables have the recogniser's lower case)."""
        phrases = list(self.phrases)
        if self.kind is CommandKind.CHOOSE and len(phrases) > 2:  # "choose one ... nine"
            phrases = [f"{phrases[0]} \u2026 {phrases[-1].split()[-1]}"]
        return " / ".join(
            " ".join("I" if word == "i" else word for word in phrase.split()) for phrase in phrases
        )


def command_rows() -> list[CommandRow]:
    """Every voice command, grouped in :class:`~dictate.commands.table.HelpGroup`'s order: a
    row per thing done, in the table's order within a group."""
    order = list(HelpGroup)
    return [
        CommandRow(
            command.group.value,
            tuple(
                f"{phrase} {saying.takes}" if saying.takes is not Takes.NOTHING else phrase
                for phrase, _ in saying.phrases
            ),
            saying.does,
            saying.example,
            command.kind,
        )
        for command in sorted(COMMANDS, key=lambda command: order.index(command.group))
        for saying in command.sayings
    ]


def command_help_text(width: int = 100) -> str:
    """The list as plain text (for a terminal): a heading per group, then each row's phrases
    and, indented under them, what it does and its example."""
    lines = [*textwrap.wrap(HOW_TO_SAY, width)]
    group = ""
    for row in command_rows():
        if row.group != group:
            group = row.group
            lines += ["", group]
        lines.append(f"  {row.said}")
        lines += textwrap.wrap(
            f"{row.does}. Example: {row.example}",
            width,
            initial_indent="      ",
            subsequent_indent="      ",
        )
    return "\n".join(lines) + "\n"
