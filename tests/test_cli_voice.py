"""``dictate punctuate --written --commands`` with the shipped punctuation model, in process."""

from __future__ import annotations

import io

from dictate.cli import run


def punctuate(*flags: str, lines: list[str]) -> str:
    out = io.StringIO()
    stdin = io.BytesIO("".join(line + "\n" for line in lines).encode())
    assert run(["punctuate", *flags], stdin=stdin, stdout=out) == 0
    return out.getvalue()


SAID = [
    "we met at nine thirty a m and paid twenty five dollars",
    "new paragraph",
    "the second meeting was short",
    "comma",
    "then we left",
    "new line",
    "this line is a mistake",
    "scratch that",
    "bye",
]


def test_commands_and_written_forms_on_top_of_the_punctuator() -> None:
    text = punctuate("--written", "--commands", lines=SAID)
    assert text == (
        "We met at 9:30 a.m. and paid $25.\n\nThe second meeting was short, then we left.\nBye.\n"
    )


def test_both_flags_are_off_by_default_so_punctuate_stays_the_plain_punctuator() -> None:
    text = punctuate(lines=SAID)
    assert "\n" not in text.rstrip("\n")
    for words in ("nine thirty", "twenty five dollars", "new paragraph", "scratch that"):
        assert words in text.lower().replace(",", "").replace(".", "")


def test_written_forms_alone_print_each_sentence_as_it_is_final() -> None:
    text = punctuate("--written", lines=["it cost twelve percent more", "new paragraph"])
    assert "12%" in text and "new paragraph" in text.lower()


def test_commands_alone_keep_numbers_as_words() -> None:
    # A line break does not force a sentence end (the model put this one).
    text = punctuate("--commands", lines=["it cost twelve dollars", "new line", "fine"])
    assert text == "It cost twelve dollars.\nFine.\n"
