"""``dictate transcribe --format`` and ``--output``: the transcript as plain text, Markdown,
JSON, SubRip or WebVTT subtitles (:mod:`dictate.timed.transcript`), on standard output or in a file.

Plain text on standard output is printed as before (:class:`~dictate.cli.text_output.TextOutput`,
sentence by sentence with ``--no-commands``); every other format needs the whole run, so it is
written when the run ends. A file is written atomically (:func:`dictate.fileio.atomic_write`):
a run that fails leaves an older file as it was. Where it cannot be written is checked before
the audio is decoded; if writing still fails at the end, the transcript goes to standard output
instead, so no word is lost, and the command fails.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from dictate.errors import InputError

FORMATS = ("txt", "md", "srt", "vtt", "json")


def add_format_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        help="txt (default): the text; md: Markdown, each paragraph after its start time; "
        "srt, vtt: subtitles timed from the recogniser's words; json: a document with every "
        "word's start, end and confidence and the sentences' times (not --json's events)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the transcript to FILE (replaced atomically when the run ends) instead of "
        "standard output",
    )


def output_path(args: argparse.Namespace) -> Path | None:
    """Check ``--format``, ``--output`` and ``--json`` together; the file to write (None:
    standard output). Raises :class:`InputError` for a file that cannot be written."""
    if args.json and (args.format is not None or args.output is not None):
        raise InputError(
            "--json prints the pipeline's events on standard output; it goes with neither "
            "--format nor --output (--format json writes a transcript document)"
        )
    if args.output is None or args.output == "-":
        return None
    path = Path(args.output)
    audio = getattr(args, "audio", None)
    if audio and _same_file(path, Path(audio)):
        raise InputError(f"{path} is the audio being transcribed: give --output another file")
    if path.is_dir():
        raise InputError(f"cannot write {path}: it is a folder")
    folder = path.absolute().parent
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: there is no folder {folder}")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"cannot write {path}: the file is read-only")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write {path}: no permission to write in {folder}")
    return path


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.exists() and other.exists() and os.path.samefile(one, other)
    except OSError:
        return os.path.realpath(one) == os.path.realpath(other)


class TranscriptOutput:
    """Collects a run's events (:class:`~dictate.timed.transcript.Transcript`) and writes the
    transcript in ``format`` when the run ends (:meth:`close`)."""

    def __init__(self, format: str, path: Path | None, stdout: TextIO) -> None:
        from dictate.timed.transcript import Transcript

        self.format = format
        self.path = path
        self._stdout = stdout
        self.transcript = Transcript()

    def apply(self, event: Any) -> None:
        self.transcript.add(event)

    def close(self) -> None:
        from dictate.fileio import atomic_write_text

        text = self.transcript.render(self.format)
        if self.path is None:
            self._stdout.write(text)
            self._stdout.flush()
            return
        try:
            atomic_write_text(self.path, text)
        except OSError as exc:
            self._stdout.write(text)  # never lose what was said
            self._stdout.flush()
            reason = exc.strerror or str(exc)
            raise InputError(
                f"cannot write {self.path}: {reason}; the transcript went to standard output"
            ) from None


def make_output(args: argparse.Namespace, path: Path | None, stdout: TextIO, whole: bool) -> Any:
    """Where ``transcribe`` puts the text: printed as before, or a :class:`TranscriptOutput`."""
    from dictate.cli.text_output import TextOutput

    format = args.format or "txt"
    if format == "txt" and path is None:
        return TextOutput(stdout, whole=whole)
    return TranscriptOutput(format, path, stdout)
