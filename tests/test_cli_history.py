"""``dictate history``: the history printed, oldest first, as text or JSON, since an age or a
date; a damaged record is skipped and said on stderr."""

from __future__ import annotations

import datetime as dt
import io
import json
import time

import pytest

from dictate.cli import run
from dictate.cli.history import parse_since
from dictate.config import Settings, save_settings
from dictate.editing.history import FAILED, WINDOW, History, default_history_path
from dictate.errors import InputError


def dictate(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    assert run(["history", *args], stdout=out, stderr=err) == 0
    return out.getvalue(), err.getvalue()


def fill() -> History:
    now = time.time()
    clock = iter([now - 3 * 86400, now - 3600, now - 60])
    history = History(clock=lambda: next(clock))
    history.add("Three days ago.", WINDOW)
    history.add("An hour ago.", "Firefox — Mail")
    history.add("Could not type.", "other application", FAILED)
    return history


def test_prints_everything_oldest_first_with_time_and_target() -> None:
    fill()
    out, err = dictate()
    assert out.index("Three days ago.") < out.index("An hour ago.") < out.index("Could not type.")
    assert "this window\n    Three days ago." in out
    assert "Firefox — Mail\n    An hour ago." in out
    assert "other application [typing failed]" in out
    assert err == ""


def test_since_an_age_or_a_date_and_json() -> None:
    fill()
    out, _ = dictate("--since", "2h")
    assert "Three days ago." not in out and "An hour ago." in out
    out, _ = dictate("--since", "30m", "--json")
    [entry] = json.loads(out)
    assert entry["text"] == "Could not type." and entry["status"] == "failed"
    assert entry["target"] == "other application"
    assert dt.datetime.fromisoformat(entry["time"]).tzinfo is not None
    today = dt.date.today().isoformat()
    out, _ = dictate("--since", today, "--json")
    assert "Three days ago." not in out


def test_parse_since() -> None:
    assert parse_since("2h", now=10_000) == 10_000 - 7200
    assert parse_since("1h30m", now=10_000) == 10_000 - 5400
    assert parse_since("1w", now=10**6) == 10**6 - 7 * 86400
    local = dt.datetime(2026, 11, 24).timestamp()
    assert parse_since("2026-11-24") == local
    assert parse_since("2026-11-24 14:30") == local + 14.5 * 3600
    with pytest.raises(InputError, match="give an age"):
        parse_since("yesterday")


def test_no_history_prints_nothing_and_damage_and_off_are_said() -> None:
    out, err = dictate()
    assert out == "" and err == ""
    out, _ = dictate("--json")
    assert json.loads(out) == []
    fill()
    path = default_history_path()
    data = path.read_bytes().replace(b"An hour", b"An HOUR")
    path.write_bytes(data)
    save_settings(Settings(history=False))
    out, err = dictate()
    assert "An " not in out and "Three days ago." in out
    assert "1 damaged record" in err and "history is off" in err


def test_a_bad_since_is_exit_status_2() -> None:
    from dictate.cli import main

    assert main(["history", "--since", "soon"]) == 2


def test_control_characters_of_a_title_or_text_are_printed_as_escapes() -> None:
    # A window title is anyone's text: "\x1b]0;...\x07" would retitle the terminal,
    # "\x1b[2J" clear it.
    History().add("first line\nsecond \x1b[2J line\x9b", "evil\x1b]0;pwned\x07 \x1b[31mred")
    out, _ = dictate()
    assert not any(c in out for c in "\x1b\x07\x9b")
    assert "evil\\u001b]0;pwned\\u0007 \\u001b[31mred" in out
    assert "    first line\n    second \\u001b[2J line\\u009b\n" in out  # lines kept, indented
    out, _ = dictate("--json")
    assert json.loads(out)[0]["target"] == "evil\x1b]0;pwned\x07 \x1b[31mred"


def test_a_history_that_is_a_folder_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from dictate.cli import main

    default_history_path().mkdir(parents=True)
    assert main(["history"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("dictate: error: cannot read the history: ")
    assert f"{default_history_path()} is a folder, not a file" in err
    # Neither the descriptor's number ("Is a directory: 3") nor an output failure.
    assert "Is a directory" not in err and "cannot write" not in err


def test_a_huge_damaged_line_is_read_past_in_pieces_and_the_records_after_it_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io as stdio

    from dictate import fileio
    from dictate.editing.history import read_history

    lines = [b"short\n", b"x" * 5000 + b"\n", b"y" * 1000, b""]
    assert list(fileio.bounded_lines(stdio.BytesIO(b"".join(lines)), 64)) == [
        b"short\n", None, None,  # the long line, and a long last line without its end
    ]  # fmt: skip
    pieces: list[int] = []

    class Counting(stdio.BytesIO):
        def readline(self, size: int | None = -1) -> bytes:
            pieces.append(-1 if size is None else size)
            return super().readline(size)

    list(fileio.bounded_lines(Counting(b"z" * 10_000 + b"\nok\n"), 100))
    assert set(pieces) == {100}  # never a whole line at once

    fill()
    path = default_history_path()
    good = path.read_bytes()
    # A damaged history: one line of 3 MB (a 1 GB one took 2.2 GB read whole), then records.
    path.write_bytes(good[: good.index(b"\n") + 1] + b"\x00" * 3_000_000 + b"\n" + good)
    read = read_history(path)
    assert read.damaged == 1
    assert [e.text for e in read.entries][-3:] == [
        "Three days ago.", "An hour ago.", "Could not type.",
    ]  # fmt: skip
