"""Reading references: punctuated text rules, IWSLT TSV files, format detection and bad input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dictate.errors import InputError
from dictate.evaluation.readers import (
    TAGS,
    Reference,
    parse_punctuated_text,
    read_iwslt_tsv,
    read_punctuated_text,
    read_reference,
)


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_tags() -> None:
    assert TAGS == ("O", "COMMA", "PERIOD", "QUESTION")


@pytest.mark.parametrize(
    ("text", "cased", "tags"),
    [
        ("Hello, world.", ["Hello", "world"], ["COMMA", "PERIOD"]),
        (
            '"Did you know?" she said.',
            ["Did", "you", "know", "she", "said"],
            ["O", "O", "QUESTION", "O", "PERIOD"],
        ),
        ("Wait... what?!", ["Wait", "what"], ["PERIOD", "QUESTION"]),
        ("Stop! Go; now: on", ["Stop", "Go", "now", "on"], ["PERIOD", "PERIOD", "COMMA", "O"]),
        ("Why?. Fine.,", ["Why", "Fine"], ["QUESTION", "COMMA"]),
        # Free-standing dashes punctuate the word before them.
        (
            "a - b -- c \u2014 d \u2013 e",
            ["a", "b", "c", "d", "e"],
            ["COMMA", "COMMA", "COMMA", "COMMA", "O"],
        ),
        # ... but never downgrade a stronger mark.
        ("end. -- next? - last", ["end", "next", "last"], ["PERIOD", "QUESTION", "O"]),
        # Attached dashes count too.
        ("roots-- deeper", ["roots", "deeper"], ["COMMA", "O"]),
        # Music notes and quotes are not words and carry no mark; a leading mark has no word.
        ("-- \u266b Gimme data \u266b \u266b Now", ["Gimme", "data", "Now"], ["O", "O", "O"]),
        # Internal characters stay; surrounding quotes and brackets go.
        (
            "(I'm) a high-functioning 4,800 9/11 'quoted,'",
            ["I'm", "a", "high-functioning", "4,800", "9/11", "quoted"],
            ["O", "O", "O", "O", "O", "COMMA"],
        ),
        # A dot right before a comma or colon is an abbreviation, not a sentence end.
        (
            "Washington D.C., and 34th St.: ok. U.S.",
            ["Washington", "D.C", "and", "34th", "St", "ok", "U.S"],
            ["O", "COMMA", "O", "O", "COMMA", "PERIOD", "PERIOD"],
        ),
        ("the single\u2026 ellipsis", ["the", "single", "ellipsis"], ["O", "PERIOD", "O"]),
        ("  spread\n\nover\tlines  ", ["spread", "over", "lines"], ["O", "O", "O"]),
    ],
)
def test_parse_punctuated_text(text: str, cased: list[str], tags: list[str]) -> None:
    ref = parse_punctuated_text(text)
    assert ref == Reference(words=[w.lower() for w in cased], tags=tags, cased=cased)


@pytest.mark.parametrize("text", ["", "   \n", "-- \u266b ... ?"])
def test_parse_punctuated_text_without_words(text: str) -> None:
    with pytest.raises(InputError, match="contains no words"):
        parse_punctuated_text(text)


def test_read_punctuated_text(tmp_path: Path) -> None:
    path = _write(tmp_path, "ref.txt", "It's TED.\nIsn't it?\n")
    ref = read_punctuated_text(path)
    assert ref.words == ["it's", "ted", "isn't", "it"]
    assert ref.tags == ["O", "PERIOD", "O", "QUESTION"]
    assert ref.cased == ["It's", "TED", "Isn't", "it"]


def test_read_iwslt_tsv(tmp_path: Path) -> None:
    # CRLF endings, a byte-order mark, blank lines and stray spaces are all tolerated.
    path = _write(tmp_path, "ref.tsv", "\ufeffi\tO\r\n'm\tCOMMA\r\n\r\nHere\tPERIOD \r\n\n")
    ref = read_iwslt_tsv(str(path))
    assert ref == Reference(words=["i", "'m", "here"], tags=["O", "COMMA", "PERIOD"], cased=None)


def test_read_iwslt_tsv_tag_without_word(tmp_path: Path) -> None:
    # dev2012 has lines like "<TAB>COMMA" where a lone symbol was stripped from the word column:
    # the tag punctuates the previous word, and never downgrades it.
    path = _write(tmp_path, "ref.tsv", "a\tO\n\tCOMMA\nb\tPERIOD\n\tCOMMA\nc\tO\n")
    assert read_iwslt_tsv(path).tags == ["COMMA", "PERIOD", "O"]


@pytest.mark.parametrize(
    ("content", "line", "what"),
    [
        ("a\tO\n\nb\tFOO\n", 3, "unknown tag 'FOO'"),
        ("a\tO\nb\tperiod\n", 2, "unknown tag 'period'"),
        ("a O\n", 1, "expected 'word<TAB>TAG'"),
        ("a\tO\tx\n", 1, "expected 'word<TAB>TAG'"),
        ("a\tO\n\tFOO\n", 2, "expected 'word<TAB>TAG'"),
        ("two words\tO\n", 1, "expected 'word<TAB>TAG'"),
    ],
)
def test_read_iwslt_tsv_bad_lines(tmp_path: Path, content: str, line: int, what: str) -> None:
    path = _write(tmp_path, "bad.tsv", content)
    with pytest.raises(InputError) as info:
        read_iwslt_tsv(path)
    message = str(info.value)
    assert str(path) in message
    assert f"line {line}:" in message
    assert what in message


@pytest.mark.parametrize("reader", [read_iwslt_tsv, read_punctuated_text, read_reference])
def test_missing_file(tmp_path: Path, reader: Callable[[Path], Reference]) -> None:
    path = tmp_path / "nope.tsv"
    with pytest.raises(InputError, match="does not exist") as info:
        reader(path)
    assert str(path) in str(info.value)


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        read_reference(tmp_path)


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"ok\tO\n\x00\x01\x02", "looks binary (NUL byte on line 2)"),
        (b"caf\xe9\tO\n", "is not UTF-8 text (invalid byte on line 1)"),
        (b"fine\n\x89PNG\r\n", "is not UTF-8 text (invalid byte on line 2)"),
    ],
)
def test_binary_file(tmp_path: Path, content: bytes, what: str) -> None:
    path = _write(tmp_path, "blob.bin", content)
    with pytest.raises(InputError) as info:
        read_reference(path)
    assert what in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("content", ["", " \n\n\t\n"])
def test_empty_file(tmp_path: Path, content: str) -> None:
    path = _write(tmp_path, "empty.txt", content)
    with pytest.raises(InputError, match="is empty"):
        read_reference(path)


def test_read_reference_detects_tsv(tmp_path: Path) -> None:
    path = _write(tmp_path, "ref.txt", "\nhello\tCOMMA\nworld\tPERIOD\n")
    assert read_reference(path) == Reference(["hello", "world"], ["COMMA", "PERIOD"], None)


def test_read_reference_detects_text(tmp_path: Path) -> None:
    path = _write(tmp_path, "ref.tsv", "Hello, world.\nBye.\n")
    assert read_reference(path) == Reference(
        ["hello", "world", "bye"], ["COMMA", "PERIOD", "PERIOD"], ["Hello", "world", "Bye"]
    )


def test_read_reference_text_with_tabs(tmp_path: Path) -> None:
    path = _write(tmp_path, "ref.txt", "Name\tAge.\nBob\t42\n")
    ref = read_reference(path)
    assert ref.cased == ["Name", "Age", "Bob", "42"]


def test_read_reference_reports_bad_tsv_line(tmp_path: Path) -> None:
    # Mostly TSV, so a bad tag near the top is reported rather than read as text.
    path = _write(tmp_path, "ref.tsv", "a\tO\nb\tCOMA\nc\tPERIOD\n")
    with pytest.raises(InputError, match="line 2: unknown tag 'COMA'"):
        read_reference(path)
