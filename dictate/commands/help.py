"""The list of voice commands that "what can I say" and Help > Voice commands show (issue 27).

The rows are built from the tables the recogniser's grammar is built from
(:data:`~dictate.commands.table.PHRASES`, :data:`~dictate.commands.table.WORD_COMMANDS` and
:data:`~dictate.commands.table.WORDS_COMMANDS`) each time they are asked for, so a phrase added
there is listed without a change here. Phrases that do the same thing share a row ("new line /
newline"). What a row does and its example come from :data:`DESCRIPTIONS`; a command written
there before its description gets one from its :class:`~dictate.commands.table.CommandKind`'s
docstring (or name), and lands in the group "Other" if its kind is in none of :data:`GROUPS`:
it is never left out.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from typing import NamedTuple

from dictate.commands.table import (
    CLOSE_PAREN,
    CLOSE_QUOTE,
    MAX_NAMED_WORDS,
    OPEN_PAREN,
    OPEN_QUOTE,
    PHRASES,
    WORD_COMMANDS,
    WORDS_COMMANDS,
    CommandKind,
)

WORD = "WORD"
"""Stands for the word a command takes after it ("cap WORD")."""
WORDS = "WORDS"
"""Stands for the words a command names up to the next pause ("select WORDS")."""

HOW_TO_SAY = (
    "Say a command as a phrase of its own, with a short pause before and after it (\u2026 in "
    'the examples); spoken punctuation too: "we left \u2026 period". Words said in one breath '
    'stay words: "a new line of products" is text.'
)

OTHER = "Other"
GROUPS: list[tuple[str, tuple[CommandKind, ...]]] = [
    ("Punctuation", (CommandKind.MARK,)),
    ("Lines and paragraphs", (CommandKind.NEW_LINE, CommandKind.NEW_PARAGRAPH)),
    ("Capitals", (CommandKind.CAP, CommandKind.ALL_CAPS, CommandKind.RECASE)),
    ("Correcting", (CommandKind.SCRATCH, CommandKind.UNDO, CommandKind.DELETE_LAST)),
    (
        "Selecting and moving",
        (CommandKind.SELECT, CommandKind.INSERT_BEFORE, CommandKind.INSERT_AFTER, CommandKind.GO),
    ),
    (
        "Correcting words",
        (CommandKind.CORRECT, CommandKind.CHOOSE, CommandKind.SPELL, CommandKind.LEARN),
    ),
    ("Keys", (CommandKind.KEY,)),
    ("Dictation on and off", (CommandKind.STOP, CommandKind.SLEEP, CommandKind.WAKE)),
    ("Listening back", (CommandKind.PLAY,)),
    ("Help", (CommandKind.HELP,)),
]
"""The groups, in the order shown, and the kinds of command in each, in the order shown; a kind
in none of them is shown last, under :data:`OTHER`."""

DESCRIPTIONS: dict[tuple[CommandKind, str] | CommandKind, tuple[str, str]] = {
    # (kind, the mark or argument of PHRASES, or WORD/WORDS): (what it does, an example)
    (CommandKind.MARK, "."): ("writes a full stop", '"we left … period" → "We left."'),
    (CommandKind.MARK, ","): ("writes a comma", '"we left … comma … then" → "We left, then"'),
    (CommandKind.MARK, "?"): (
        "writes a question mark",
        '"are you there … question mark" → "Are you there?"',
    ),
    (CommandKind.MARK, "!"): (
        "writes an exclamation mark",
        '"well done … exclamation mark" → "Well done!"',
    ),
    (CommandKind.MARK, ":"): ("writes a colon", '"you need … colon … eggs" → "You need: eggs"'),
    (CommandKind.MARK, ";"): (
        "writes a semicolon",
        '"it rained … semicolon … we stayed" → "It rained; we stayed"',
    ),
    (CommandKind.MARK, OPEN_QUOTE): (
        "opens a quotation before the next word",
        '"he said … open quote … yes … close quote" → "He said “yes”"',
    ),
    (CommandKind.MARK, CLOSE_QUOTE): (
        "closes the quotation after the last word",
        '"open quote … yes … close quote … she said" → "“Yes” she said"',
    ),
    (CommandKind.MARK, OPEN_PAREN): (
        "opens a parenthesis before the next word",
        '"open paren … see below … close paren" → "(see below)"',
    ),
    (CommandKind.MARK, CLOSE_PAREN): (
        "closes the parenthesis after the last word",
        '"open paren … page two … close paren" → "(page two)"',
    ),
    CommandKind.MARK: ('writes "{arg}"', '"we left … {phrase}" → "We left{arg}"'),
    (CommandKind.NEW_LINE, ""): (
        "starts a new line (the sentence goes on)",
        '"dear Sam … new line" → "Dear Sam" and a line break',
    ),
    (CommandKind.NEW_PARAGRAPH, ""): (
        "ends the sentence and starts a new paragraph (an empty line between)",
        '"that is all … new paragraph" → "That is all." and an empty line',
    ),
    (CommandKind.CAP, WORD): (
        "writes the next word with a capital",
        '"ask … cap john" → "Ask John"',
    ),
    (CommandKind.ALL_CAPS, WORD): (
        "writes the next word in capitals",
        '"call … all caps nasa" → "Call NASA"',
    ),
    (CommandKind.RECASE, "cap"): (
        "capitalises the selected words, else the last dictated sentence",
        '"select red car", then "cap that" → "Red Car"',
    ),
    (CommandKind.RECASE, "upper"): (
        "puts the selected words, else the last dictated sentence, in capitals",
        '"select red car", then "all caps that" → "RED CAR"',
    ),
    (CommandKind.RECASE, "lower"): (
        "puts the selected words, else the last dictated sentence, in lower case",
        '"select Red Car", then "no caps that" → "red car"',
    ),
    CommandKind.RECASE: (
        "changes the case of the selected words, else of the last dictated sentence ({arg})",
        '"select red car", then "{phrase}"',
    ),
    (CommandKind.SCRATCH, ""): (
        "removes the greyed words not yet written, else the last dictated sentence "
        "(Ctrl+Z brings it back)",
        '"I think so … scratch that" → "I think so" is gone',
    ),
    (CommandKind.UNDO, ""): (
        "undoes the last change, as Edit > Undo (Ctrl+Z)",
        '"undo that" → the last change is undone',
    ),
    (CommandKind.DELETE_LAST, "word"): (
        "deletes the last word before the dictation point",
        '"see you soon", then "delete last word" → "See you"',
    ),
    (CommandKind.DELETE_LAST, "sentence"): (
        "deletes the last sentence before the dictation point",
        '"Hi. See you.", then "delete last sentence" → "Hi."',
    ),
    CommandKind.DELETE_LAST: (
        "deletes the last {arg} before the dictation point",
        '"{phrase}" → the last {arg} is deleted',
    ),
    (CommandKind.SELECT, WORDS): (
        f"selects the words named (up to {MAX_NAMED_WORDS}, to the next pause): the nearest "
        "before the dictation point, else after it",
        '"select the red car" → "the red car" is selected',
    ),
    (CommandKind.SELECT, ""): (
        "selects the last dictated sentence",
        '"select that", then "all caps that" → the sentence in capitals',
    ),
    (CommandKind.INSERT_BEFORE, WORDS): (
        "moves the dictation point to just before the words named",
        '"insert before lunch", "a long" → "a long lunch"',
    ),
    (CommandKind.INSERT_AFTER, WORDS): (
        "moves the dictation point to just after the words named",
        '"insert after lunch", "break" → "lunch break"',
    ),
    (CommandKind.GO, "end"): (
        "moves the dictation point to the end of the text",
        '"go to end" → what you say next goes at the end',
    ),
    (CommandKind.GO, "start"): (
        "moves the dictation point to the start of the text",
        '"go to start" → what you say next goes at the start',
    ),
    (CommandKind.GO, "back"): (
        "moves the dictation point back to where it was before the last move by voice",
        '"go to start", "dear all", "go back" → dictation goes on where it was',
    ),
    CommandKind.GO: ("moves the dictation point: {arg}", '"{phrase}"'),
    (CommandKind.KEY, "enter"): (
        "presses Enter (to send a chat message or a form in another application)",
        '"press enter" → Enter is pressed',
    ),
    (CommandKind.KEY, "tab"): (
        "presses Tab (to go to the next field of a form in another application)",
        '"press tab" → Tab is pressed',
    ),
    (CommandKind.KEY, "escape"): ("presses Escape", '"press escape" → Escape is pressed'),
    CommandKind.KEY: ("presses {arg}", '"{phrase}" → {arg} is pressed'),
    (CommandKind.STOP, ""): (
        "stops dictation; what was said before it is kept",
        '"stop dictating" → the microphone is off',
    ),
    (CommandKind.SLEEP, ""): (
        'keeps listening but writes nothing and obeys nothing until "wake up"',
        '"go to sleep" → a phone call is not written, until "wake up"',
    ),
    (CommandKind.WAKE, ""): (
        'takes dictation up again after "go to sleep"',
        '"wake up" → what you say is written again',
    ),
    (CommandKind.HELP, ""): ("shows this list", '"what can I say" → this list opens'),
    (CommandKind.PLAY, ""): (
        "plays the audio of the selection, else of the last dictated sentence (the window "
        "keeps the audio of what you dictate; Settings turns it off)",
        '"play that back" → you hear "We met at nine."',
    ),
    (CommandKind.CORRECT, WORDS): (
        "selects the words named and lists alternatives under them: what else the recogniser "
        "heard there, and other casings",
        '"correct paris" → 1 peru, 2 paris, 3 PARIS',
    ),
    (CommandKind.CORRECT, ""): (
        "lists alternatives for the selection (else the last dictated sentence)",
        '"select paris", "correct that"',
    ),
    (CommandKind.CHOOSE, ""): (
        "puts alternative N of the list in place of the words (a click does too)",
        '"choose one" → "We met in Peru."',
    ),
    (CommandKind.LEARN, ""): (
        "adds the selected words to your words (the vocabulary), written as they stand",
        '"select Kowalczyk", "add that to my words"',
    ),
    (CommandKind.SPELL, ""): (
        'the next phrase is spelled, letter by letter ("a b c", "alpha bravo charlie"; '
        '"cap" before a capital), and written as one word',
        '"spell that", "cap m a r y" → "Mary"',
    ),
}
"""What a command does and an example: for a ``(kind, value)``, value being the mark or
argument in :data:`~dictate.commands.table.PHRASES` (``(MARK, ",")``, ``(GO, "end")``) or
:data:`WORD`/:data:`WORDS` for a command that takes words; else for its kind alone, where
``{arg}`` is the value and ``{phrase}`` the first phrase said for it."""


class CommandRow(NamedTuple):
    """One row of the list: the phrases that do one thing."""

    group: str
    phrases: tuple[str, ...]
    """What to say, in the tables' order; :data:`WORD` and :data:`WORDS` stand for the words
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


@functools.cache
def _kind_docs() -> dict[str, str]:
    """The first sentence of each :class:`CommandKind` member's docstring (the string after
    it in the class body), read from the source; empty where the source cannot be read."""
    try:
        source = textwrap.dedent(inspect.getsource(CommandKind))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0]
    assert isinstance(body, ast.ClassDef)
    docs = {}
    for member, doc in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(member, ast.Assign)
            and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant)
            and isinstance(doc.value.value, str)
        ):
            text = " ".join(doc.value.value.split())
            for target in member.targets:
                if isinstance(target, ast.Name):
                    docs[target.id] = text.split(". ")[0].rstrip(".")
    return docs


def _describe(kind: CommandKind, value: str, phrase: str) -> tuple[str, str]:
    """What the command does (starting with a capital) and an example, from
    :data:`DESCRIPTIONS` or, for a command without one there, from its kind's docstring or
    name."""
    found = DESCRIPTIONS.get((kind, value)) or DESCRIPTIONS.get(kind)
    if found is not None:
        shown = value if value not in (WORD, WORDS) else "the words named"
        does, example = (text.format(arg=shown, phrase=phrase) for text in found)
    else:
        does = _kind_docs().get(kind.name) or kind.value.replace("_", " ")
        if value and value not in (WORD, WORDS):
            does = f"{does} ({value})"
        example = f'"{phrase}"'
    return does[:1].upper() + does[1:], example


def command_rows() -> list[CommandRow]:
    """Every voice command, grouped as :data:`GROUPS` orders them: a row per thing done
    (phrases with the same kind and mark or argument share one), the commands that take words
    first within a kind, then the others in the tables' order."""
    said: dict[tuple[CommandKind, str], list[str]] = {}
    for head, kind in WORD_COMMANDS.items():
        said.setdefault((kind, WORD), []).append(f"{head} {WORD}")
    for head, kind in WORDS_COMMANDS.items():
        said.setdefault((kind, WORDS), []).append(f"{head} {WORDS}")
    for phrase, (kind, value) in PHRASES.items():
        # "choose one" to "choose nine" are one command with a number.
        said.setdefault((kind, "" if kind is CommandKind.CHOOSE else value), []).append(phrase)
    place = {kind: (g, k) for g, (_, kinds) in enumerate(GROUPS) for k, kind in enumerate(kinds)}
    other = (len(GROUPS), 0)
    rows = []
    for order, ((kind, value), phrases) in enumerate(said.items()):
        group, within = place.get(kind, other)
        does, example = _describe(kind, value, phrases[0])
        name = GROUPS[group][0] if group < len(GROUPS) else OTHER
        rows.append(((group, within, order), CommandRow(name, tuple(phrases), does, example, kind)))
    return [row for _, row in sorted(rows, key=lambda pair: pair[0])]


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
