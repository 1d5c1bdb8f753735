"""``dictate normalize`` through the real entry point: in-process and in a subprocess."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from dictate.cli import main, run
from dictate.cli.common import MAX_LINE_BYTES


def dictate(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Run the real entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "dictate", *args], input=stdin, capture_output=True, timeout=120
    )


def shell(command: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``dictate`` inside a bash command line (for pipes and closed descriptors)."""
    script = "import sys; from dictate.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -c "{script}" {command}'],
        input=stdin, capture_output=True, timeout=120,
    )  # fmt: skip


def normalize(stdin: bytes) -> str:
    out = io.StringIO()
    assert run(["normalize"], stdin=io.BytesIO(stdin), stdout=out) == 0
    return out.getvalue()


def assert_one_line_error(result: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("dictate: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err


def test_one_output_line_per_input_line() -> None:
    stdin = (
        b"At nine thirty a m, we paid twenty five dollars.\n"
        b"\n"
        b"I have two cats.\n"
        b"   \n"
        b"the fourth of july twenty twenty six\n"
        b"no newline at the end, twelve"
    )
    assert normalize(stdin) == (
        "At 9:30 a.m., we paid $25.\n\nI have two cats.\n   \nJuly 4, 2026\n"
        "no newline at the end, 12\n"
    )


def test_no_input_gives_no_output_and_crlf_stays() -> None:
    assert normalize(b"") == ""
    assert normalize(b"\n") == "\n"
    assert normalize(b"twelve\r\nthirteen\r\n") == "12\r\n13\r\n"


def test_unicode_and_punctuation_pass_through() -> None:
    text = "Café — «twenty five» 😀 percent, ünïcode.\n"
    assert normalize(text.encode()) == "Café — «25» 😀 percent, ünïcode.\n"


@pytest.mark.slow
def test_real_entry_point() -> None:
    result = dictate("normalize", stdin=b"We ran five kilometers.\nCall nine one one.\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"We ran 5 km.\nCall 911.\n"
    assert result.stderr == b""


@pytest.mark.slow
def test_a_closed_reader_ends_quietly() -> None:
    """``| head -1``: the reader goes away after one line; exit 0, nothing on stderr."""
    stdin = b"twenty five dollars\n" * 200_000
    result = shell('normalize | head -1; exit "${PIPESTATUS[0]}"', stdin)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"$25\n"
    assert result.stderr == b""


@pytest.mark.slow
def test_closed_streams_and_a_full_disk_give_one_line() -> None:
    assert_one_line_error(shell("normalize >&-", b"twelve\n"), "standard output is closed")
    assert_one_line_error(shell("normalize <&-"), "standard input is closed")
    full = shell("normalize > /dev/full", b"twelve\n")
    assert_one_line_error(full, "cannot write the output", "No space left")


@pytest.mark.slow
def test_a_long_line_is_refused_and_earlier_lines_are_kept() -> None:
    stdin = b"twelve people\n" + b"word " * (MAX_LINE_BYTES // 5 + 10) + b"\nthirteen\n"
    result = dictate("normalize", stdin=stdin)
    assert_one_line_error(result, "line 2", "longer than 1,048,576 bytes")
    assert result.stdout == b"12 people\n"


def test_a_line_of_exactly_the_limit_is_accepted() -> None:
    line = b"x" * (MAX_LINE_BYTES - 1) + b"\n"
    assert normalize(line + b"twelve\n") == line.decode() + "12\n"


@pytest.mark.parametrize(
    ("stdin", "needles"),
    [
        (b"ok\n\x89PNG\0\0\x1a\n", ("line 2", "binary")),
        (b"caf\xe9\n", ("line 1", "UTF-8")),
    ],
)
def test_bad_input_is_one_line_in_process(
    stdin: bytes,
    needles: tuple[str, ...],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    assert main(["normalize"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    for needle in needles:
        assert needle in captured.err
    if stdin.startswith(b"ok\n"):
        assert captured.out == "ok\n"  # what came before the bad line is written


@pytest.mark.slow
def test_help_lists_normalize() -> None:
    result = dictate("--help")
    assert result.returncode == 0 and b"normalize" in result.stdout
    helped = dictate("normalize", "--help")
    assert helped.returncode == 0 and b"written forms" in helped.stdout
