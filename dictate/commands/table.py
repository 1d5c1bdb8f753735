"""Voice commands and spoken punctuation, found in a recogniser segment's words.

A command is recognised only where the speaker sets it apart: the phrase is a whole segment, or
it is bounded on both sides by a pause in the recogniser's word times (or by the segment's start
or end). "A new line of products", "the period after the war" and "a comma separated list" are
said in one breath and stay words; "...the end of the chapter <pause> new paragraph <pause>" is
a command. Text without word times (``dictate punctuate --commands``) has no pauses, so there a
command must be a whole segment (a line of its own).

:func:`split_commands` cuts a segment into :class:`Words` and :class:`Command` pieces, in order;
the pipeline feeds the words to the punctuator and carries out the commands between them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from dictate.asr.engine import Word
from dictate.enums import TextEnum

PAUSE_S = 0.25
"""Silence between two words (seconds) that sets a phrase apart: a gap between the recogniser's
word times, or a pause the voice activity detector heard between them (recognisers differ in
whether a word's time includes the silence after it; PocketSphinx's often does). Deliberate
pauses around a command are longer; the gaps between words said in one breath are shorter, and
so are the pauses a speech synthesiser makes at a full stop (0.16-0.22 s measured with flite)."""


class CommandKind(TextEnum):
    """What a command does. The values are the strings the events and ``--json`` carry
    (``"new_paragraph"``...)."""

    NEW_LINE = "new_line"
    NEW_PARAGRAPH = "new_paragraph"
    SCRATCH = "scratch"
    UNDO = "undo"
    STOP = "stop"
    MARK = "mark"
    """Spoken punctuation (applied by the punctuator; never a :class:`~dictate.events.Command`)."""
    CAP = "cap"
    ALL_CAPS = "all_caps"
    SELECT = "select"
    """Select the words named (the nearest match before the dictation point, else after it),
    or, with no words ("select that"), the last dictated sentence."""
    RECASE = "recase"
    """"cap that", "all caps that", "no caps that": the selection (else the last dictated
    sentence) capitalised ("cap"), in capitals ("upper") or in lower case ("lower")."""
    INSERT_BEFORE = "insert_before"
    INSERT_AFTER = "insert_after"
    GO = "go"
    """Move the dictation point: to the "end" or "start" of the text, or "back" to where it
    was before the last move by voice."""
    DELETE_LAST = "delete_last"
    """Delete the last "word" or "sentence" before the dictation point."""
    KEY = "key"
    """Press a key: "enter", "tab" or "escape"."""
    HELP = "help"
    """"What can I say": the list of commands."""
    SLEEP = "sleep"
    """Keep listening, but ignore everything until "wake up"."""
    WAKE = "wake"
    CORRECT = "correct"
    """Select the words named (or, "correct that", the selection, else the last dictated
    sentence) and list alternatives for them: what else the recogniser heard, other casings."""
    CHOOSE = "choose"
    """Put alternative N of the list in place of the words being corrected."""
    SPELL = "spell"
    """The next phrase is spelled, letter by letter ("a b c", or "alpha bravo charlie"), and
    written as one word (in place of the selection, if there is one)."""
    PLAY = "play"
    """Play the audio of the selection, else of the last dictated sentence (in the window,
    where the audio is kept)."""
    LEARN = "learn"
    """Add the selected words to the vocabulary ("add that to my words"), written as they
    stand in the text."""


BREAKS = frozenset({CommandKind.NEW_LINE, CommandKind.NEW_PARAGRAPH})
"""The commands that break the line (a paragraph is two)."""

# Spoken punctuation: the mark it writes. Quotes and parentheses open before the next word or
# close after the previous one.
OPEN_QUOTE = "\u201c"
CLOSE_QUOTE = "\u201d"
OPEN_PAREN = "("
CLOSE_PAREN = ")"
OPENING_MARKS = frozenset({OPEN_QUOTE, OPEN_PAREN})
_CLOSER = {OPEN_QUOTE: CLOSE_QUOTE, OPEN_PAREN: CLOSE_PAREN}
_SENTENCE_ENDS = ".?!"

_PHRASES: dict[str, tuple[CommandKind, str]] = {
    # phrase: (kind, the mark it writes or the command's argument)
    "new line": (CommandKind.NEW_LINE, ""),
    "newline": (CommandKind.NEW_LINE, ""),
    "new paragraph": (CommandKind.NEW_PARAGRAPH, ""),
    "next paragraph": (CommandKind.NEW_PARAGRAPH, ""),
    "scratch that": (CommandKind.SCRATCH, ""),
    "delete that": (CommandKind.SCRATCH, ""),
    "undo that": (CommandKind.UNDO, ""),
    "select that": (CommandKind.SELECT, ""),
    "cap that": (CommandKind.RECASE, "cap"),
    "caps that": (CommandKind.RECASE, "cap"),
    "all caps that": (CommandKind.RECASE, "upper"),
    "no caps that": (CommandKind.RECASE, "lower"),
    "go to end": (CommandKind.GO, "end"),
    "go to the end": (CommandKind.GO, "end"),
    "go to start": (CommandKind.GO, "start"),
    "go to the start": (CommandKind.GO, "start"),
    "go back": (CommandKind.GO, "back"),
    "delete last word": (CommandKind.DELETE_LAST, "word"),
    "delete last sentence": (CommandKind.DELETE_LAST, "sentence"),
    "press enter": (CommandKind.KEY, "enter"),
    "press return": (CommandKind.KEY, "enter"),
    "press tab": (CommandKind.KEY, "tab"),
    "press escape": (CommandKind.KEY, "escape"),
    "what can i say": (CommandKind.HELP, ""),
    "go to sleep": (CommandKind.SLEEP, ""),
    "wake up": (CommandKind.WAKE, ""),
    "correct that": (CommandKind.CORRECT, ""),
    "spell that": (CommandKind.SPELL, ""),
    "spell it": (CommandKind.SPELL, ""),
    "play that back": (CommandKind.PLAY, ""),
    "add that to my words": (CommandKind.LEARN, ""),
    **{
        f"choose {word}": (CommandKind.CHOOSE, str(number))
        for number, word in enumerate(
            ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"], start=1
        )
    },
    "stop dictating": (CommandKind.STOP, ""),
    "stop listening": (CommandKind.STOP, ""),
    "stop dictation": (CommandKind.STOP, ""),
    "period": (CommandKind.MARK, "."),
    "full stop": (CommandKind.MARK, "."),
    "comma": (CommandKind.MARK, ","),
    "question mark": (CommandKind.MARK, "?"),
    "exclamation mark": (CommandKind.MARK, "!"),
    "exclamation point": (CommandKind.MARK, "!"),
    "colon": (CommandKind.MARK, ":"),
    "semicolon": (CommandKind.MARK, ";"),
    "semi colon": (CommandKind.MARK, ";"),
    "open quote": (CommandKind.MARK, OPEN_QUOTE),
    "begin quote": (CommandKind.MARK, OPEN_QUOTE),
    "close quote": (CommandKind.MARK, CLOSE_QUOTE),
    "end quote": (CommandKind.MARK, CLOSE_QUOTE),
    "unquote": (CommandKind.MARK, CLOSE_QUOTE),
    "open paren": (CommandKind.MARK, OPEN_PAREN),
    "open parenthesis": (CommandKind.MARK, OPEN_PAREN),
    "open bracket": (CommandKind.MARK, OPEN_PAREN),
    "close paren": (CommandKind.MARK, CLOSE_PAREN),
    "close parenthesis": (CommandKind.MARK, CLOSE_PAREN),
    "close bracket": (CommandKind.MARK, CLOSE_PAREN),
}
# Commands that take the word after them: "cap john" -> John, "all caps nasa" -> NASA.
_WORD_COMMANDS: dict[str, CommandKind] = {"cap": CommandKind.CAP, "all caps": CommandKind.ALL_CAPS}
# Commands that take every word after them up to the next pause: "select the red car".
_WORDS_COMMANDS: dict[str, CommandKind] = {
    "select": CommandKind.SELECT,
    "insert before": CommandKind.INSERT_BEFORE,
    "insert after": CommandKind.INSERT_AFTER,
    "correct": CommandKind.CORRECT,
}
MAX_NAMED_WORDS = 8
"""The most words a "select ..." or "insert before ..." names (more is dictation)."""
_MAX_PHRASE = max(len(p.split()) for p in [*_PHRASES, *_WORD_COMMANDS]) + 1

#: Every phrase, for documentation and tests: phrase -> (kind, mark).
PHRASES: dict[str, tuple[CommandKind, str]] = dict(_PHRASES)
WORD_COMMANDS: dict[str, CommandKind] = dict(_WORD_COMMANDS)
WORDS_COMMANDS: dict[str, CommandKind] = dict(_WORDS_COMMANDS)


def grammar_phrases() -> list[str]:
    """The fixed command phrases (no words of the user's in them), for a recogniser's grammar:
    a segment said apart is decoded against these a second time (:mod:`dictate.asr`)."""
    return sorted(_PHRASES)


def command_heads() -> list[str]:
    """The first words of the commands that take words after them ("cap", "select"...)."""
    return sorted([*_WORD_COMMANDS, *_WORDS_COMMANDS])


@dataclass(frozen=True)
class Words:
    """Ordinary words of a segment, to be punctuated."""

    words: tuple[str, ...]
    marks: tuple[str, ...] = ()
    """The recogniser's punctuation after each word (:attr:`dictate.asr.engine.Word.mark`),
    hints for the punctuator; () where it gave none."""


@dataclass(frozen=True)
class Command:
    """A voice command found in a segment.

    Attributes:
        kind: What it does (:class:`CommandKind`).
        spoken: The words as recognised ("new paragraph", "cap john").
        mark: For ``CommandKind.MARK``: the punctuation it writes.
        word: For ``CommandKind.CAP`` and ``CommandKind.ALL_CAPS``: the word it applies to.
        arg: For the others that take one: the words named ("select the red car": "the red
            car"), or the table's argument ("go to end": "end"; "press tab": "tab").
    """

    kind: CommandKind
    spoken: str
    mark: str = ""
    word: str = ""
    arg: str = ""


Piece = Words | Command


def _text(word: Word | str) -> str:
    return (word.text if isinstance(word, Word) else word).lower()


def _pause_before(
    words: Sequence[Word | str], i: int, pause: float, pauses: Sequence[tuple[float, float]]
) -> bool:
    """Whether words[i] starts the segment or follows a pause."""
    if i == 0:
        return True
    before, word = words[i - 1], words[i]
    if not isinstance(before, Word) or not isinstance(word, Word):
        return False  # plain text has no pauses
    if word.start - before.end >= pause:
        return True
    low, high = (before.start + before.end) / 2, (word.start + word.end) / 2
    return any(end - start >= pause and low <= (start + end) / 2 <= high for start, end in pauses)


def _matches(texts: list[str], i: int) -> Iterator[tuple[Command, int]]:
    """Command phrases starting at texts[i], longest first, with their lengths in words."""
    for length in range(min(_MAX_PHRASE, len(texts) - i), 0, -1):
        phrase = " ".join(texts[i : i + length])
        if phrase in _PHRASES:
            kind, value = _PHRASES[phrase]
            if kind == CommandKind.MARK:
                yield Command(kind, phrase, value), length
            else:
                yield Command(kind, phrase, arg=value), length
        head = " ".join(texts[i : i + length - 1])
        if length >= 2 and head in _WORD_COMMANDS:
            word = texts[i + length - 1]
            yield Command(_WORD_COMMANDS[head], phrase, word=word), length


def _named_words(
    texts: list[str],
    words: Sequence[Word | str],
    i: int,
    pause: float,
    pauses: Sequence[tuple[float, float]],
) -> tuple[Command, int] | None:
    """A command that names words ("select the red car", "insert after lunch") starting at
    texts[i] (after a pause): the head, then one to :data:`MAX_NAMED_WORDS` words up to the
    next pause or the segment's end."""
    for head, kind in _WORDS_COMMANDS.items():
        size = len(head.split())
        if " ".join(texts[i : i + size]) != head:
            continue
        end = i + size
        while end < len(texts) and not _pause_before(words, end, pause, pauses):
            end += 1
        if 0 < end - i - size <= MAX_NAMED_WORDS:
            named = " ".join(texts[i + size : end])
            return Command(kind, " ".join(texts[i:end]), arg=named), end - i
    return None


def split_commands(
    words: Sequence[Word | str],
    pause: float = PAUSE_S,
    pauses: Sequence[tuple[float, float]] = (),
) -> list[Piece]:
    """Cut a segment into ordinary words and the commands set apart in it, in order.

    Args:
        words: The segment's words; :class:`Word` objects carry the times that show pauses,
            plain strings have none (then only a whole-segment command is found).
        pause: Seconds of silence that set a phrase apart.
        pauses: Silences the voice activity detector heard inside the segment (start, end).

    Returns:
        The pieces in spoken order; consecutive ordinary words form one :class:`Words`. The
        words of all pieces together are exactly the segment's words.
    """
    texts = [_text(w) for w in words]
    pieces: list[Piece] = []
    plain: list[str] = []
    marks: list[str] = []
    i = 0
    while i < len(texts):
        if _pause_before(words, i, pause, pauses):
            found = next(
                (
                    (command, length)
                    for command, length in _matches(texts, i)
                    if i + length == len(texts) or _pause_before(words, i + length, pause, pauses)
                ),
                None,
            )
            if found is None:
                found = _named_words(texts, words, i, pause, pauses)
            if found is not None:
                if plain:
                    pieces.append(Words(tuple(plain), _marks(marks)))
                    plain, marks = [], []
                pieces.append(found[0])
                i += found[1]
                continue
        word = words[i]
        plain.append(word.text if isinstance(word, Word) else word)
        marks.append(word.mark if isinstance(word, Word) else "")
        i += 1
    if plain:
        pieces.append(Words(tuple(plain), _marks(marks)))
    return pieces


def _marks(marks: list[str]) -> tuple[str, ...]:
    """``marks`` as :attr:`Words.marks`: () where the recogniser gave none."""
    return tuple(marks) if any(marks) else ()


def close_open_marks(sentence: str) -> str:
    """House rule for a quote or parenthesis opened and never closed (a misheard or forgotten
    "close quote"/"close paren"): when its sentence ends, it is closed at the end of the
    sentence, before the final mark ("He said “yes." -> "He said “yes”."); one with no word
    after it encloses nothing and is removed. Otherwise it stayed open for the rest of the
    document. A sentence without a final mark (a pause committed it open, or a line break
    ended it) is returned as it is: its quote may still be closed in what follows.
    """
    body = sentence.rstrip()
    end = len(body)
    while end and body[end - 1] in _SENTENCE_ENDS:
        end -= 1
    if end == len(body):
        return sentence
    head, final = body[:end], body[end:]
    unclosed: list[int] = []  # where the marks still open are, innermost last
    for i, char in enumerate(head):
        if char in _CLOSER:
            unclosed.append(i)
        elif unclosed and char == _CLOSER[head[unclosed[-1]]]:
            unclosed.pop()
    if not unclosed:
        return sentence
    for i in reversed(unclosed):  # innermost first: the closers nest as the openers do
        if head[i + 1 :].strip():
            head += _CLOSER[head[i]]
        else:
            head = head[:i].rstrip()
    return head + final


NATO = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november "
    "oscar papa quebec romeo sierra tango uniform victor whiskey x-ray yankee zulu"
).split()
_LETTER_WORDS = {
    **{word: word[0] for word in NATO},
    "alfa": "a", "juliet": "j", "whisky": "w", "xray": "x",
    # How recognisers write letters said alone.
    "bee": "b", "be": "b", "see": "c", "sea": "c", "dee": "d", "ee": "e", "ef": "f",
    "gee": "g", "aitch": "h", "eye": "i", "jay": "j", "kay": "k", "el": "l", "em": "m",
    "en": "n", "oh": "o", "owe": "o", "pee": "p", "queue": "q", "cue": "q", "are": "r",
    "ess": "s", "tee": "t", "tea": "t", "you": "u", "vee": "v", "double-u": "w",
    "ex": "x", "why": "y", "zee": "z", "zed": "z",
}  # fmt: skip
"""Words that stand for a letter when spelling (``spell that``)."""


def spelled(words: Sequence[str]) -> str:
    """The word spelled by ``words`` ("a b c", "alpha bravo charlie", "cap m a r y" -> "Mary");
    words that are not letters are kept as they are (a digit, a name said whole)."""
    out: list[str] = []
    capital = False
    for word in (w.lower().strip(".,") for w in words):
        if word in ("cap", "capital", "uppercase"):
            capital = True
            continue
        letter = word if len(word) == 1 else _LETTER_WORDS.get(word, word)
        out.append(letter.upper() if capital else letter)
        capital = False
    return "".join(out)
