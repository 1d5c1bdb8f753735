"""The autosave journal: replay is exact, survives a cut-off last line, compacts."""

from __future__ import annotations

from pathlib import Path

from dictate.journal import Journal, replay


def test_replay_rebuilds_the_document_exactly(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    journal.edit(0, "", "Hello world.")
    journal.edit(5, " world", ", dear reader")
    journal.pending("and then")
    journal.set_path("/tmp/x.txt")
    got = replay(path)
    assert got is not None
    assert got.text == "Hello, dear reader."
    assert got.pending == "and then"
    assert got.full_text == "Hello, dear reader. and then"
    assert got.path == "/tmp/x.txt" and not got.closed
    journal.close(clean=True)
    closed = replay(path)
    assert closed is not None and closed.closed


def test_a_line_cut_off_by_a_crash_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("abc")
    journal.edit(3, "", "def")
    journal.close(clean=False)
    with path.open("ab") as fh:
        fh.write(b'{"op": "edit", "pos": 0, "del": "", "ins": "XY')  # no end: cut by the crash
    got = replay(path)
    assert got is not None and got.text == "abcdef" and not got.closed


def test_an_edit_that_does_not_fit_stops_the_replay_there(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("abc")
    journal.edit(0, "zzz", "")  # does not match the document
    journal.edit(3, "", "d")
    got = replay(path)
    assert got is not None and got.text == "abc"


def test_compaction_keeps_the_state(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("dictate.journal.COMPACT_AFTER", 10)
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    text = ""
    for i in range(25):
        journal.edit(len(text), "", str(i % 10))
        text += str(i % 10)
        journal.maybe_compact(text, "pending words", "/doc.txt")
    assert len(path.read_text().splitlines()) < 15
    got = replay(path)
    assert got is not None and got.text == text and got.path == "/doc.txt"
    assert replay(tmp_path / "none.jsonl") is None
