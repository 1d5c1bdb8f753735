"""The user's vocabulary: words and phrases no general model knows well (names, medicines, a
field's jargon, product names with odd casing), each written exactly as the user gives it, and,
where it is not said as it is written, how it sounds ("TensorRT" said "tensor r t").

The file: ``vocabulary.jsonl`` in the user's data folder, one record a line in the journal's
format (:func:`dictate.editing.journal_records.encode_record`: ``<crc32> <json>``)::

    {"written": "TensorRT", "sounds": "tensor r t"}

Every change writes the whole file beside the old one and renames it over it
(:func:`dictate.fileio.atomic_write`, private): a crash or kill -9 during an edit leaves the old
vocabulary or the new one, never half of one. A damaged line fails its checksum; one changed
byte is put back (:func:`dictate.editing.crc_repair.repair_line`), a line damaged more is
skipped and counted (:attr:`VocabularyFile.damaged`), and the file is not rewritten until the
user changes the vocabulary; then the lines that could not be read are appended, as they were,
to ``vocabulary-damaged.jsonl`` beside it (:data:`DAMAGED_NAME`) before the file is written:
a line split in two by a stray line break was dropped for good at the next change.

The plain-text form (import, export, the command line): one entry a line, the written form, then
optionally `` = `` and how it sounds, then optionally `` <- `` and exact rules, the words heard
that are always written as the entry ("when you hear X, write Y"), separated by `` | ``;
``#`` starts a comment line::

    Dr. Nguyen = doctor win
    TensorRT = tensor r t
    metoprolol
    Xochitl = so cheel <- so chill | social

How the passes use it: :mod:`dictate.writing.vocabulary_match` (near misses rewritten, the
Whisper prompt).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from dictate.editing.crc_repair import repair_line
from dictate.editing.journal_records import decode_record, encode_record
from dictate.fileio import atomic_write, bounded_lines, open_private, open_regular, private_dir
from dictate.paths import user_data_dir
from dictate.text_safety import controls_in

log = logging.getLogger("dictate.vocabulary")

FILE_NAME = "vocabulary.jsonl"
DAMAGED_NAME = "vocabulary-damaged.jsonl"
"""Where the lines of the vocabulary that could not be read are kept when it is rewritten."""
MAX_ENTRY_CHARS = 100
"""A written form or a sounds-like longer than this is refused (no one says it as one term)."""
MAX_ENTRIES = 1000
"""More entries than this are refused: each segment is matched against them all (a 20-word
segment against 400 entries took 0.12 s here, against 5,000 2.2 s, with a benchmark running
beside it)."""
SEPARATOR = " = "
RULES = " <- "
"""Between an entry and its exact rules (the words heard that are written as it)."""
RULE_SEPARATOR = " | "
MAX_RULES = 20
"""Exact rules of one entry, at most."""

_WORD = re.compile(r"[\w']+")


def default_vocabulary_path() -> Path:
    return user_data_dir() / FILE_NAME


@dataclass(frozen=True)
class VocabularyEntry:
    """One entry.

    Attributes:
        written: How it is written, exactly ("Dr. Nguyen", "TensorRT").
        sounds: How it is said where that differs from the written form ("tensor r t"), in
            plain lower-case words; "" where it is said as written.
        heard: Exact rules: words a recogniser writes that are always this entry ("so
            chill" for "Xochitl"), lower case; each is rewritten wherever it stands as whole
            words, before any near miss is looked for
            (:class:`~dictate.writing.vocabulary_match.VocabularyMatcher`).
    """

    written: str
    sounds: str = ""
    heard: tuple[str, ...] = ()

    @property
    def spoken(self) -> list[str]:
        """The words a recogniser writes for it, lower case: its sounds-like, else the written
        form's words."""
        return _WORD.findall((self.sounds or self.written).lower())

    @property
    def key(self) -> str:
        """What makes two entries the same one: the written form, case and all."""
        return self.written

    def line(self) -> str:
        """The entry as a line of the plain-text form."""
        line = f"{self.written}{SEPARATOR}{self.sounds}" if self.sounds else self.written
        return f"{line}{RULES}{RULE_SEPARATOR.join(self.heard)}" if self.heard else line

    def record(self) -> dict[str, object]:
        """The entry as its file stores it."""
        return {"written": self.written, **({"sounds": self.sounds} if self.sounds else {}),
                **({"heard": list(self.heard)} if self.heard else {})}  # fmt: skip


def parse_entry(text: str) -> VocabularyEntry:
    """An entry from its plain-text line ("written", "written = sounds like", either followed
    by " <- heard | heard": exact rules).

    Raises:
        ValueError: Nothing to write, no word in it, a line break, or too long; the message
            says which.
    """
    text, arrow, rules = text.partition(RULES)
    written, _, sounds = text.partition(SEPARATOR)
    written, sounds = written.strip(), " ".join(sounds.split()).lower()
    heard = tuple(dict.fromkeys(
        " ".join(r.split()).lower() for r in rules.split(RULE_SEPARATOR.strip()) if r.strip()
    ))  # fmt: skip
    if not written:
        raise ValueError("an entry needs the word or phrase as it is written")
    if controls := controls_in(written + sounds + rules):
        raise ValueError(f"{written!r}: an entry is one line of text, without tabs or other "
                         f"control characters ({', '.join(controls)})")  # fmt: skip
    if any(len(t) > MAX_ENTRY_CHARS for t in (written, sounds, *heard)):
        raise ValueError(f"{written[:40]!r}: an entry is at most {MAX_ENTRY_CHARS} characters")
    if not _WORD.search(written) or (sounds and not _WORD.search(sounds)):
        raise ValueError(f"{written!r}: an entry needs at least one letter or digit")
    if SEPARATOR.strip() in sounds.split():
        raise ValueError(
            f"{written!r}: one entry has one ' = ' (several entries joined into one? add them "
            "one at a time, or import a file of one a line)"
        )
    if (arrow and not heard) or not all(_WORD.search(h) for h in heard):
        raise ValueError(f"{written!r}: each rule after '<-' needs the words heard, "
                         "separated by '|' ('Xochitl <- so chill | social')")  # fmt: skip
    if len(heard) > MAX_RULES:
        raise ValueError(f"{written!r}: an entry has at most {MAX_RULES} exact rules")
    return VocabularyEntry(written, sounds, heard)


def parse_text(text: str) -> tuple[list[VocabularyEntry], list[str]]:
    """The entries of a plain-text file, and one problem line for each line refused (with its
    number); blank lines and lines starting with ``#`` are skipped."""
    entries, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            entries.append(parse_entry(line))
        except ValueError as exc:
            problems.append(f"line {number}: {exc}")
    return entries, problems


def format_text(entries: Iterable[VocabularyEntry]) -> str:
    return "".join(entry.line() + "\n" for entry in entries)


class VocabularyFile:
    """The vocabulary on disk: read whole when made, written whole at every change.

    Raises (from the constructor and every change):
        OSError: The file cannot be read or written (the message names it).
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_vocabulary_path()
        self.damaged = 0
        """Lines of the file that could not be read (skipped)."""
        self.repaired = 0
        """Lines read with one damaged byte put back by their checksum."""
        self._unread: list[bytes] = []  # the damaged lines, kept aside at the next write
        self.entries: list[VocabularyEntry] = list(self._read())

    def _read(self) -> Iterator[VocabularyEntry]:
        try:
            fh = open_regular(self.path)
        except FileNotFoundError:
            return
        except ValueError as exc:  # a folder, a named pipe...
            raise OSError(str(exc)) from None
        seen: set[str] = set()
        with fh:
            for raw in bounded_lines(fh):
                line = (raw or b"").rstrip(b"\r\n")
                if not line.strip():
                    self.damaged += raw is None
                    continue
                entry = self._entry(line)
                if entry is None:
                    self.damaged += 1
                    self._unread.append(line)
                elif entry.key not in seen:
                    seen.add(entry.key)
                    yield entry

    def _entry(self, line: bytes) -> VocabularyEntry | None:
        for attempt in (line, None):
            if attempt is None:
                attempt = repair_line(line)
                if attempt is None:
                    return None
                self.repaired += 1
            try:
                record = decode_record(attempt)
                entry = VocabularyEntry(
                    str(record["written"]), str(record.get("sounds") or ""),
                    tuple(str(h) for h in record.get("heard") or ()),
                )  # fmt: skip
                return parse_entry(entry.line())
            except (ValueError, KeyError, TypeError):
                continue
        return None

    def get(self, written: str) -> VocabularyEntry | None:
        return next((e for e in self.entries if e.key == written), None)

    def add(self, entries: Iterable[VocabularyEntry]) -> tuple[int, int]:
        """Add ``entries`` (an entry already there with the same written form takes the new
        sounds-like); (added, changed). Written to disk before it returns."""
        current = {e.key: e for e in self.entries}
        added = changed = 0
        for entry in entries:
            old = current.get(entry.key)
            if old == entry:
                continue
            added, changed = added + (old is None), changed + (old is not None)
            current[entry.key] = entry
        if len(current) > MAX_ENTRIES:
            raise ValueError(f"a vocabulary holds at most {MAX_ENTRIES} entries")
        if added or changed:
            self._write(list(current.values()))
        return added, changed

    def remove(self, written: str) -> bool:
        """Remove the entry written ``written`` (exactly); False where there is none."""
        kept = [e for e in self.entries if e.key != written]
        if len(kept) == len(self.entries):
            return False
        self._write(kept)
        return True

    def replace_all(self, entries: Iterable[VocabularyEntry]) -> None:
        """The vocabulary becomes ``entries`` (the dialog's OK)."""
        unique = {e.key: e for e in entries}
        self._write(list(unique.values()))

    def _write(self, entries: list[VocabularyEntry]) -> None:
        private_dir(self.path.parent)
        if self._unread:  # before the file that holds them is replaced
            with open_private(self.path.with_name(DAMAGED_NAME)) as fh:
                fh.write(b"".join(line + b"\n" for line in self._unread))
                fh.flush()
                os.fsync(fh.fileno())
            log.warning("%d damaged lines of %s kept in %s", len(self._unread), self.path,
                        DAMAGED_NAME)  # fmt: skip
            self._unread = []
        data = b"".join(encode_record(e.record()) for e in entries)
        atomic_write(self.path, data, keep_read_only=False, private=True)
        self.entries = entries
        self.damaged = self.repaired = 0


def load_vocabulary(path: Path | None = None) -> list[VocabularyEntry]:
    """The entries for a run (none where there is no file); a file that cannot be read is
    logged and read as empty: dictation goes on without it."""
    try:
        vocabulary = VocabularyFile(path)
    except OSError as exc:
        log.warning("the vocabulary could not be read: %s", exc)
        return []
    if vocabulary.damaged:
        log.warning("%d damaged lines of the vocabulary %s were skipped", vocabulary.damaged,
                    vocabulary.path)  # fmt: skip
    return vocabulary.entries
