"""``dictate vocabulary add|remove|list|import|export``: the user's vocabulary
(:mod:`dictate.writing.vocabulary`), which the running app and ``transcribe`` read at the start
of each run."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from dictate.cli.common import Streams
from dictate.errors import InputError
from dictate.fileio import UnreadableFile, open_regular
from dictate.text_safety import shown


def _file() -> Any:
    from dictate.writing.vocabulary import VocabularyFile

    try:
        return VocabularyFile()
    except OSError as exc:
        raise InputError(
            f"cannot read the vocabulary: {exc}; move it out of the way and add the words again"
        ) from None


def _changed(vocabulary: Any, change: Any) -> Any:
    try:
        return change()
    except OSError as exc:
        raise InputError(
            f"cannot write the vocabulary {vocabulary.path}: {exc.strerror or exc}; check that "
            "its folder can be written and the disk has room"
        ) from None
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _harvest(args: argparse.Namespace, io: Streams) -> int:
    from dictate.writing.vocabulary_harvest import harvest_model, harvest_pending

    model = harvest_model(args.second_pass)
    if model is None:
        io.err.write("dictate: no second pass, so no misheard forms to hear: nothing done\n")
        return 0

    def progress(n: int, total: int, entry: Any) -> None:
        if not args.quiet:
            io.err.write(f"dictate: heard {shown(entry.written)} ({n} of {total})\n")

    try:
        done = harvest_pending(second_pass=model, progress=progress)
    except OSError as exc:
        raise InputError(f"cannot keep the misheard forms: {exc}") from None
    if not args.quiet:
        io.err.write(f"dictate: {done} entries heard by {model}\n")
    return 0


def _harvest_later() -> None:
    """The new entries' misheard forms, heard in the background."""
    from dictate.config import load_settings
    from dictate.writing.vocabulary_harvest import start_harvest

    with contextlib.suppress(Exception):  # the entry is saved; heard at the next start
        start_harvest(load_settings().second_pass)


def run(args: argparse.Namespace, io: Streams) -> int:
    from dictate.writing.vocabulary import format_text, parse_entry, parse_text

    if args.action == "harvest":
        return _harvest(args, io)
    vocabulary = _file()
    if vocabulary.damaged:
        io.err.write(
            f"dictate: {vocabulary.damaged} damaged line(s) of {vocabulary.path} skipped\n"
        )
    action = args.action
    if action == "list":
        io.stdout.write("".join(shown(e.line()) + "\n" for e in vocabulary.entries))
        return 0
    if action == "export":
        text = format_text(vocabulary.entries)
        if args.file in (None, "-"):
            io.stdout.write(text)
        else:
            try:
                Path(args.file).write_text(text, encoding="utf-8")
            except OSError as exc:
                raise InputError(f"cannot write {args.file}: {exc.strerror or exc}") from None
        return 0
    if action == "add":
        try:
            entry = parse_entry(" ".join(args.entry))
        except ValueError as exc:
            raise InputError(
                f"{exc}; write it as: dictate vocabulary add 'TensorRT = tensor r t'"
            ) from None
        added, _ = _changed(vocabulary, lambda: vocabulary.add([entry]))
        io.err.write(f"dictate: {'added' if added else 'updated'} {shown(entry.line())}\n")
        _harvest_later()
        return 0
    if action == "remove":
        written = " ".join(args.entry).strip()
        if not _changed(vocabulary, lambda: vocabulary.remove(written)):
            raise InputError(
                f"{written!r} is not in the vocabulary (`dictate vocabulary list` shows it; "
                "give the written form exactly)"
            )
        io.err.write(f"dictate: removed {shown(written)}\n")
        return 0
    # import
    try:
        if args.file == "-":
            raw = (io.stdin or sys.stdin.buffer).read(MAX_IMPORT_BYTES + 1)
        else:  # a regular file: /dev/zero filled the memory, a named pipe waited for ever
            with open_regular(Path(args.file)) as fh:
                raw = fh.read(MAX_IMPORT_BYTES + 1)
        if len(raw) > MAX_IMPORT_BYTES:
            raise InputError(
                f"{args.file} is over {MAX_IMPORT_BYTES >> 20} MB: a vocabulary file holds at "
                "most a few thousand lines; give the text file of entries, one a line"
            )
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError, UnreadableFile) as exc:
        why = getattr(exc, "strerror", None) or exc
        raise InputError(f"cannot read {args.file}: {why}; give a UTF-8 text file") from None
    entries, problems = parse_text(text)
    for problem in problems:
        io.err.write(f"dictate: {shown(args.file)}: {problem}; skipped\n")
    added, changed = _changed(vocabulary, lambda: vocabulary.add(entries))
    io.err.write(f"dictate: {added} added, {changed} updated from {shown(args.file)}\n")
    if added or changed:
        _harvest_later()
    return 0 if entries or not problems else 1


MAX_IMPORT_BYTES = 8 << 20
"""The largest text file ``vocabulary import`` reads (the most entries a vocabulary holds, each
a line, take well under this)."""


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "vocabulary",
        help="your words: names, terms and spellings the recognisers should write",
        description="Your vocabulary: words and phrases written exactly as you give them "
        "(names, medicines, jargon, odd casing), optionally with how they sound when that "
        "differs ('TensorRT = tensor r t'). A near miss of an entry in the recognised words is "
        "rewritten to it, and the original stays among the alternatives 'correct that' "
        "offers. Kept in the app's data folder (vocabulary.jsonl); used from the next "
        "dictation or transcription.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add", help="add an entry ('written', 'written = sounds like', then '<- heard | heard' "
        "for words always written as it)",
    )  # fmt: skip
    add.add_argument("entry", nargs="+", help="'Dr. Nguyen = doctor win', or a word")
    remove = actions.add_parser("remove", help="remove the entry with this written form")
    remove.add_argument("entry", nargs="+")
    actions.add_parser("list", help="print the entries, one a line")
    imp = actions.add_parser("import", help="add the entries of a text file, one a line")
    imp.add_argument("file", help="a UTF-8 text file (- for standard input)")
    exp = actions.add_parser("export", help="write the entries as a text file, one a line")
    exp.add_argument("file", nargs="?", help="the file to write (default: standard output)")
    harvest = actions.add_parser(
        "harvest",
        help="hear how Whisper mishears each entry not heard yet (started in the background "
        "after a change; this waits for it)",
    )
    harvest.add_argument("--second-pass", default="auto", help="the Whisper model (auto: the "
                         "default)")  # fmt: skip
    harvest.add_argument("--quiet", action="store_true", help="print nothing")
    parser.set_defaults(func=run)
