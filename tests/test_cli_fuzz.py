"""A fuzzer over the whole command line (the fault probe of issue 54 found these by hand):

- ``--OPT=--`` for every option that takes a value, of every subcommand: argparse takes the
  ``--`` for the end of the options and hands the option ``[]`` without running its type, which
  ended in a traceback (``punctuate --max-pending-words=--`` and eight ``transcribe`` options);
  now one line that names the option, exit status 2;
- a hostile file name (a line break, ESC and a screen-clearing sequence, the C1 CSI, the
  right-to-left override) in every argument that names a file or folder: the error names it
  with those characters escaped, on one line, never raw on the terminal.

In-process (``dictate.cli.main``), so a traceback is an exception here, not a line to spot."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from dictate.cli import build_parser, main
from dictate.text_safety import CONTROL


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))
    yield path, parser


COMMANDS = list(_commands(build_parser()))
OPTIONS = [
    (path, action.option_strings[-1])
    for path, parser in COMMANDS
    for action in parser._actions
    if action.option_strings and action.nargs != 0 and action.dest != "help"
]


def test_the_fuzzer_sees_every_subcommand_and_option() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"transcribe", "punctuate", "vocabulary import", "history", "bench latency"} <= names
    assert len(OPTIONS) >= 90


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[" ".join((*p, o)) for p, o in OPTIONS])
def test_an_option_given_double_dash_as_its_value_is_one_clear_error(
    path: tuple[str, ...], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*path, f"{option}=--"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option in err and "expected a value, not '--'" in err, err


HOSTILE = "no such\n\x1b[2J\x9b\u202eclip.wav"
FILE_COMMANDS = [
    "transcribe", "eval punctuation", "eval streaming", "eval registers", "bench pipeline",
    "bench file", "models import", "vocabulary import", "vocabulary export",
]  # fmt: skip
"""Every subcommand whose argument names a file or folder."""


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_hostile_file_name_is_named_escaped_on_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "gone" / HOSTILE)
    code = main([*command.split(), missing])
    err = capsys.readouterr().err
    assert code != 0 and not CONTROL.search(err.replace("\n", "")), repr(err)
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert "no such\\n\\u001b[2J\\u009b\\u202eclip.wav" in err, repr(err)


def test_notes_about_a_hostile_file_that_exists_are_escaped_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not only errors: the lines a command writes as it goes ("line 2: ...; skipped", "1
    added from FILE", "no words were recognised in FILE")."""
    import numpy as np
    import soundfile

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    entries = tmp_path / f"{HOSTILE}.txt"
    entries.write_text("TensorRT = tensor r t\n = nothing\n")
    assert main(["vocabulary", "import", str(entries)]) == 0
    silence = tmp_path / HOSTILE
    soundfile.write(str(silence), np.zeros(16000, np.int16), 16000)
    assert main(["transcribe", str(silence), "--engine", "sphinx", "--second-pass", "off"]) == 0
    err = capsys.readouterr().err
    assert "skipped" in err and "1 added" in err and "no words were recognised" in err, err
    assert not CONTROL.search(err.replace("\n", "")) and err.count("\n") == 3, repr(err)
