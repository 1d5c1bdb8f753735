"""Voice commands and spoken punctuation, found in a recogniser segment's words.

A command is recognised only where the speaker sets it apart: the phrase is a whole segment, or
it is bounded on both sides by a pause in the recogniser's word times (or by the segment's start
or end). "A new line of products", "the period after the war" and "a comma separated list" are
said in one breath and stay words; "...the end of the chapter <pause> new paragraph <pause>" is
a command. Text without word times (``dictate punctuate --commands``) has no pauses, so there a
command must be a whole segment (a line of its own).

:func:`split_commands` cuts a segment into :class:`Words` and :class:`Command` pieces, in order;
the pipeline feeds the words to the punctuator and carries out the commands between them.

Every command is declared once, as a row of :data:`COMMANDS` (a :class:`VoiceCommand`): its
phrases and the argument each gives, its group and help text, whether it settles the pending
words first, and the ``EditTarget`` call that carries it out. The phrase tables the finder and
the recogniser's grammar use (:data:`PHRASES`, :data:`WORD_COMMANDS`, :data:`WORDS_COMMANDS`),
the help (:mod:`dictate.commands.help`), the text stage and the dispatch
(:mod:`dictate.editing.apply`) are made from it.

Size: the table of every command, with the help text of each, is declared here in one place on
purpose (issue 49: one row per command), beside the finder that reads it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

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


# Spoken punctuation: the mark it writes. Quotes and parentheses open before the next word or
# close after the previous one.
OPEN_QUOTE = "\u201c"
CLOSE_QUOTE = "\u201d"
OPEN_PAREN = "("
CLOSE_PAREN = ")"
OPENING_MARKS = frozenset({OPEN_QUOTE, OPEN_PAREN})
_CLOSER = {OPEN_QUOTE: CLOSE_QUOTE, OPEN_PAREN: CLOSE_PAREN}
_SENTENCE_ENDS = ".?!"

MAX_NAMED_WORDS = 8
"""The most words a "select ..." or "insert before ..." names (more is dictation)."""


class Takes(TextEnum):
    """What a phrase takes after it (the values are how the help writes them: "cap WORD")."""

    NOTHING = ""
    WORD = "WORD"
    """The one word after it: "cap john" writes "John"."""
    WORDS = "WORDS"
    """The words after it up to the next pause, one to :data:`MAX_NAMED_WORDS` of them:
    "select the red car". Where they are not in the text, the command was dictation after all
    and its words are written as said (:func:`dictate.editing.apply.apply_event`)."""


class Settle(TextEnum):
    """What the text stage does with the pending words (those the punctuator still holds)
    before a command acts (:mod:`dictate.text.stage`)."""

    LEAVE = "leave"
    """Nothing: they stay pending (the punctuator applies the command, or it is not about the
    text, or it acts on the pending words themselves: "scratch that")."""
    FINALIZE = "finalize"
    """Finalize them as said, the sentence left open: a line break, a key or sleep in the
    middle of a list."""
    CLOSE = "close"
    """Finalize them and close their sentence: a paragraph, a move, a correction."""


class Passes(TextEnum):
    """What a command's call passes first, from the :class:`~dictate.events.Command` event."""

    NOTHING = ""
    ARG = "arg"
    """Its argument: the words named ("select the red car"), the table's argument ("go to
    end": "end"), or what the text stage decided ("scratch that": "pending")."""
    NUMBER = "number"
    """Its argument as a number ("choose two": 2)."""


class HelpGroup(TextEnum):
    """The headings the list of commands ("what can I say") is grouped under, in the order
    shown; the values are the headings."""

    PUNCTUATION = "Punctuation"
    LINES = "Lines and paragraphs"
    CAPITALS = "Capitals"
    CORRECTING = "Correcting"
    SELECTING = "Selecting and moving"
    CORRECTING_WORDS = "Correcting words"
    KEYS = "Keys"
    ON_AND_OFF = "Dictation on and off"
    LISTENING = "Listening back"
    HELP = "Help"


@dataclass(frozen=True)
class Saying:
    """One thing a command does: the phrases that say it, and its line in the help."""

    phrases: tuple[tuple[str, str], ...]
    """Each phrase (lower case, as recognised) and the argument it gives the command, or for
    spoken punctuation the mark it writes; for a command that takes words, its first words
    ("cap", "select")."""
    does: str
    """What it does, for the help ("Writes a comma")."""
    example: str
    """An example, said as a command must be said: "\u2026" is a pause, and each quoted phrase
    before the arrow is said on its own (a test says every example to the command finder)."""
    takes: Takes = Takes.NOTHING


def say(
    *phrases: str, does: str, example: str, arg: str = "", takes: Takes = Takes.NOTHING
) -> Saying:
    """A :class:`Saying` whose phrases all give the same argument."""
    return Saying(tuple((phrase, arg) for phrase in phrases), does, example, takes)


@dataclass(frozen=True)
class Call:
    """What a command does to the text: the :class:`~dictate.editing.apply.EditTarget` method
    that carries it out and what it is passed (a name, so that the table needs nothing from
    :mod:`dictate.editing`; a test checks that every name is an ``EditTarget`` method that
    takes these arguments)."""

    method: str
    passes: Passes = Passes.NOTHING
    default: str = ""
    """What :attr:`Passes.ARG` passes when the event has no argument."""
    fixed: tuple[bool, ...] = ()
    """Arguments after that, the same each time: ``line_break(True)`` for "new paragraph"."""


@dataclass(frozen=True)
class VoiceCommand:
    """A voice command, declared once: how it is said, its help, how it settles the pending
    words and what it does. The grammar (:data:`PHRASES`, :func:`grammar_phrases`), the help
    (:mod:`dictate.commands.help`), the text stage and the dispatch
    (:func:`dictate.editing.apply.apply_event`) are all made from :data:`COMMANDS`."""

    kind: CommandKind
    group: HelpGroup
    sayings: tuple[Saying, ...]
    """What it does with each argument, in the order the help lists them (a command that
    takes words first)."""
    settle: Settle = Settle.LEAVE
    call: Call | None = None
    """None: the punctuator applies it (spoken punctuation, "cap WORD"); its event is only
    reported."""


_NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]

COMMANDS: tuple[VoiceCommand, ...] = (
    VoiceCommand(CommandKind.MARK, HelpGroup.PUNCTUATION, (
        say("period", "full stop", arg=".",
            does="Writes a full stop", example='"we left … period" → "We left."'),
        say("comma", arg=",",
            does="Writes a comma", example='"we left … comma … then" → "We left, then"'),
        say("question mark", arg="?",
            does="Writes a question mark",
            example='"are you there … question mark" → "Are you there?"'),
        say("exclamation mark", "exclamation point", arg="!",
            does="Writes an exclamation mark",
            example='"well done … exclamation mark" → "Well done!"'),
        say("colon", arg=":",
            does="Writes a colon", example='"you need … colon … eggs" → "You need: eggs"'),
        say("semicolon", "semi colon", arg=";",
            does="Writes a semicolon",
            example='"it rained … semicolon … we stayed" → "It rained; we stayed"'),
        say("open quote", "begin quote", arg=OPEN_QUOTE,
            does="Opens a quotation before the next word",
            example='"he said … open quote … yes … close quote" → "He said “yes”"'),
        say("close quote", "end quote", "unquote", arg=CLOSE_QUOTE,
            does="Closes the quotation after the last word",
            example='"open quote … yes … close quote … she said" → "“Yes” she said"'),
        say("open paren", "open parenthesis", "open bracket", arg=OPEN_PAREN,
            does="Opens a parenthesis before the next word",
            example='"open paren … see below … close paren" → "(see below)"'),
        say("close paren", "close parenthesis", "close bracket", arg=CLOSE_PAREN,
            does="Closes the parenthesis after the last word",
            example='"open paren … page two … close paren" → "(page two)"'),
    )),
    VoiceCommand(CommandKind.NEW_LINE, HelpGroup.LINES, (
        say("new line", "newline",
            does="Starts a new line (the sentence goes on)",
            example='"dear Sam … new line" → "Dear Sam" and a line break'),
    ), Settle.FINALIZE, Call("line_break", fixed=(False,))),
    VoiceCommand(CommandKind.NEW_PARAGRAPH, HelpGroup.LINES, (
        say("new paragraph", "next paragraph",
            does="Ends the sentence and starts a new paragraph (an empty line between)",
            example='"that is all … new paragraph" → "That is all." and an empty line'),
    ), Settle.CLOSE, Call("line_break", fixed=(True,))),
    VoiceCommand(CommandKind.CAP, HelpGroup.CAPITALS, (
        say("cap", takes=Takes.WORD,
            does="Writes the next word with a capital", example='"ask … cap john" → "Ask John"'),
    )),
    VoiceCommand(CommandKind.ALL_CAPS, HelpGroup.CAPITALS, (
        say("all caps", takes=Takes.WORD,
            does="Writes the next word in capitals",
            example='"call … all caps nasa" → "Call NASA"'),
    )),
    VoiceCommand(CommandKind.RECASE, HelpGroup.CAPITALS, (
        say("cap that", "caps that", arg="cap",
            does="Capitalises the selected words, else the last dictated sentence",
            example='"select red car", then "cap that" → "Red Car"'),
        say("all caps that", arg="upper",
            does="Puts the selected words, else the last dictated sentence, in capitals",
            example='"select red car", then "all caps that" → "RED CAR"'),
        say("no caps that", arg="lower",
            does="Puts the selected words, else the last dictated sentence, in lower case",
            example='"select Red Car", then "no caps that" → "red car"'),
    ), Settle.CLOSE, Call("recase", Passes.ARG)),
    VoiceCommand(CommandKind.SCRATCH, HelpGroup.CORRECTING, (
        say("scratch that", "delete that",
            does="Removes the greyed words not yet written, else the last dictated sentence "
            "(Ctrl+Z brings it back)",
            example='"I think so … scratch that" → "I think so" is gone'),
    ), call=Call("scratch", Passes.ARG, default="auto")),
    VoiceCommand(CommandKind.UNDO, HelpGroup.CORRECTING, (
        say("undo that",
            does="Undoes the last change, as Edit > Undo (Ctrl+Z)",
            example='"undo that" → the last change is undone'),
    ), call=Call("undo")),
    VoiceCommand(CommandKind.DELETE_LAST, HelpGroup.CORRECTING, (
        say("delete last word", arg="word",
            does="Deletes the last word before the dictation point",
            example='"see you soon", then "delete last word" → "See you"'),
        say("delete last sentence", arg="sentence",
            does="Deletes the last sentence before the dictation point",
            example='"Hi. See you.", then "delete last sentence" → "Hi."'),
    ), Settle.CLOSE, Call("delete_last", Passes.ARG)),
    VoiceCommand(CommandKind.SELECT, HelpGroup.SELECTING, (
        say("select", takes=Takes.WORDS,
            does=f"Selects the words named (up to {MAX_NAMED_WORDS}, to the next pause): the "
            "nearest before the dictation point, else after it",
            example='"select the red car" → "the red car" is selected'),
        say("select that",
            does="Selects the last dictated sentence",
            example='"select that", then "all caps that" → the sentence in capitals'),
    ), Settle.CLOSE, Call("select", Passes.ARG)),
    VoiceCommand(CommandKind.INSERT_BEFORE, HelpGroup.SELECTING, (
        say("insert before", takes=Takes.WORDS,
            does="Moves the dictation point to just before the words named",
            example='"insert before lunch", "a long" → "a long lunch"'),
    ), Settle.CLOSE, Call("insert_at", Passes.ARG, fixed=(False,))),
    VoiceCommand(CommandKind.INSERT_AFTER, HelpGroup.SELECTING, (
        say("insert after", takes=Takes.WORDS,
            does="Moves the dictation point to just after the words named",
            example='"insert after lunch", "break" → "lunch break"'),
    ), Settle.CLOSE, Call("insert_at", Passes.ARG, fixed=(True,))),
    VoiceCommand(CommandKind.GO, HelpGroup.SELECTING, (
        say("go to end", "go to the end", arg="end",
            does="Moves the dictation point to the end of the text",
            example='"go to end" → what you say next goes at the end'),
        say("go to start", "go to the start", arg="start",
            does="Moves the dictation point to the start of the text",
            example='"go to start" → what you say next goes at the start'),
        say("go back", arg="back",
            does="Moves the dictation point back to where it was before the last move by voice",
            example='"go to start", "dear all", "go back" → dictation goes on where it was'),
    ), Settle.CLOSE, Call("go", Passes.ARG)),
    VoiceCommand(CommandKind.CORRECT, HelpGroup.CORRECTING_WORDS, (
        say("correct", takes=Takes.WORDS,
            does="Selects the words named and lists alternatives under them: what else the "
            "recogniser heard there, and other casings",
            example='"correct paris" → 1 peru, 2 paris, 3 PARIS'),
        say("correct that",
            does="Lists alternatives for the selection (else the last dictated sentence)",
            example='"select paris", "correct that"'),
    ), Settle.CLOSE, Call("correct", Passes.ARG)),
    VoiceCommand(CommandKind.CHOOSE, HelpGroup.CORRECTING_WORDS, (
        Saying(
            tuple((f"choose {word}", str(n)) for n, word in enumerate(_NUMBERS, start=1)),
            does="Puts alternative N of the list in place of the words (a click does too)",
            example='"choose one" → "We met in Peru."',
        ),
    ), call=Call("choose", Passes.NUMBER)),
    VoiceCommand(CommandKind.SPELL, HelpGroup.CORRECTING_WORDS, (
        say("spell that", "spell it",
            does='The next phrase is spelled, letter by letter ("a b c", "alpha bravo '
            'charlie"; "cap" before a capital), and written as one word',
            example='"spell that", "cap m a r y" → "Mary"'),
    ), Settle.FINALIZE, Call("spell")),
    VoiceCommand(CommandKind.LEARN, HelpGroup.CORRECTING_WORDS, (
        say("add that to my words",
            does="Adds the selected words to your words (the vocabulary), written as they stand",
            example='"select Kowalczyk", "add that to my words"'),
    ), Settle.FINALIZE, Call("learn")),
    VoiceCommand(CommandKind.KEY, HelpGroup.KEYS, (
        say("press enter", "press return", arg="enter",
            does="Presses Enter (to send a chat message or a form in another application)",
            example='"press enter" → Enter is pressed'),
        say("press tab", arg="tab",
            does="Presses Tab (to go to the next field of a form in another application)",
            example='"press tab" → Tab is pressed'),
        say("press escape", arg="escape",
            does="Presses Escape", example='"press escape" → Escape is pressed'),
    ), Settle.FINALIZE, Call("press_key", Passes.ARG)),
    VoiceCommand(CommandKind.STOP, HelpGroup.ON_AND_OFF, (
        say("stop dictating", "stop listening", "stop dictation",
            does="Stops dictation; what was said before it is kept",
            example='"stop dictating" → the microphone is off'),
    ), call=Call("stop")),
    VoiceCommand(CommandKind.SLEEP, HelpGroup.ON_AND_OFF, (
        say("go to sleep",
            does='Keeps listening but writes nothing and obeys nothing until "wake up"',
            example='"go to sleep" → a phone call is not written, until "wake up"'),
    ), Settle.FINALIZE, Call("asleep", fixed=(True,))),
    VoiceCommand(CommandKind.WAKE, HelpGroup.ON_AND_OFF, (
        say("wake up",
            does='Takes dictation up again after "go to sleep"',
            example='"wake up" → what you say is written again'),
    ), call=Call("asleep", fixed=(False,))),
    # The words just said become the last sentence first: they are what is played.
    VoiceCommand(CommandKind.PLAY, HelpGroup.LISTENING, (
        say("play that back",
            does="Plays the audio of the selection, else of the last dictated sentence (the "
            "window keeps the audio of what you dictate; Settings turns it off)",
            example='"play that back" → you hear "We met at nine."'),
    ), Settle.FINALIZE, Call("play_back")),
    VoiceCommand(CommandKind.HELP, HelpGroup.HELP, (
        say("what can i say", does="Shows this list", example='"what can I say" → this list opens'),
    ), call=Call("show_help")),
)  # fmt: skip
"""Every voice command, one row each, in the order the help lists them; adding a command is a
:class:`CommandKind` member, a row here, and the ``EditTarget`` method its :class:`Call` names."""

BY_KIND: Mapping[CommandKind, VoiceCommand] = MappingProxyType({c.kind: c for c in COMMANDS})
"""Each command's row, by its kind."""


def _phrases(takes: Takes) -> dict[str, tuple[CommandKind, str]]:
    """The phrases (or heads) of every command that take ``takes``: phrase -> (kind, arg)."""
    return {
        phrase: (command.kind, arg)
        for command in COMMANDS
        for saying in command.sayings
        if saying.takes is takes
        for phrase, arg in saying.phrases
    }


PHRASES: Mapping[str, tuple[CommandKind, str]] = MappingProxyType(_phrases(Takes.NOTHING))
"""Every fixed phrase (the recogniser's grammar): phrase -> (kind, the mark it writes or the
command's argument)."""
WORD_COMMANDS: Mapping[str, CommandKind] = MappingProxyType(
    {head: kind for head, (kind, _) in _phrases(Takes.WORD).items()}
)
"""The commands that take the word after them: "cap john" -> John, "all caps nasa" -> NASA."""
WORDS_COMMANDS: Mapping[str, CommandKind] = MappingProxyType(
    {head: kind for head, (kind, _) in _phrases(Takes.WORDS).items()}
)
"""The commands that take every word after them up to the next pause: "select the red car"."""
_MAX_PHRASE = max(len(p.split()) for p in [*PHRASES, *WORD_COMMANDS]) + 1


def grammar_phrases() -> list[str]:
    """The fixed command phrases (no words of the user's in them), for a recogniser's grammar:
    a segment said apart is decoded against these a second time (:mod:`dictate.asr`)."""
    return sorted(PHRASES)


def command_heads() -> list[str]:
    """The first words of the commands that take words after them ("cap", "select"...)."""
    return sorted([*WORD_COMMANDS, *WORDS_COMMANDS])


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
        if phrase in PHRASES:
            kind, value = PHRASES[phrase]
            if kind == CommandKind.MARK:
                yield Command(kind, phrase, value), length
            else:
                yield Command(kind, phrase, arg=value), length
        head = " ".join(texts[i : i + length - 1])
        if length >= 2 and head in WORD_COMMANDS:
            word = texts[i + length - 1]
            yield Command(WORD_COMMANDS[head], phrase, word=word), length


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
    for head, kind in WORDS_COMMANDS.items():
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
