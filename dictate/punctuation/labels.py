"""Tag names shared by the model runner, the decoders, rendering and evaluation."""

from __future__ import annotations

O = "O"  # noqa: E741 - the tag is called O in every punctuation paper
COMMA = "COMMA"
PERIOD = "PERIOD"
QUESTION = "QUESTION"

#: Punctuation tags in the canonical column order of every probability array in this package.
PUNCT_TAGS: tuple[str, ...] = (O, COMMA, PERIOD, QUESTION)
# Marks the model never predicts, written only when the user says them ("exclamation mark",
# "colon", "semicolon"; see dictate/commands/table.py).
EXCLAMATION = "EXCLAMATION"
COLON = "COLON"
SEMICOLON = "SEMICOLON"

#: Tags that end a sentence.
SENTENCE_END: frozenset[str] = frozenset({PERIOD, QUESTION, EXCLAMATION})
#: The mark each punctuation tag appends to its word.
PUNCT_MARK: dict[str, str] = {
    O: "", COMMA: ",", PERIOD: ".", QUESTION: "?", EXCLAMATION: "!", COLON: ":", SEMICOLON: ";",
}  # fmt: skip
#: The tag of each mark (the inverse of PUNCT_MARK).
MARK_TAG: dict[str, str] = {mark: tag for tag, mark in PUNCT_MARK.items() if mark}

LOWER = "LOWER"
CAPITALIZED = "CAPITALIZED"
ALL_CAPS = "ALL_CAPS"

VERBATIM = "VERBATIM"
"""A forced casing only (never a model column): the word is written exactly as given, even at
a sentence start (a joined unit such as "jane.doe@gmail.com" or "US", dictate/writing/units.py)."""

#: Casing tags in the canonical column order.
CASE_TAGS: tuple[str, ...] = (LOWER, CAPITALIZED, ALL_CAPS)

O_INDEX = PUNCT_TAGS.index(O)
COMMA_INDEX = PUNCT_TAGS.index(COMMA)
PERIOD_INDEX = PUNCT_TAGS.index(PERIOD)
QUESTION_INDEX = PUNCT_TAGS.index(QUESTION)
