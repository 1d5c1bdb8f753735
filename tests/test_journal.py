"""The autosave journal (format 2): replay is exact; checksums and sequence numbers catch damage;
the intact text before damage is recovered and the loss is measured; format 1 still replays."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.editing.journal import Journal
from dictate.editing.journal_records import encode_record
from dictate.editing.journal_replay import replay


def test_replay_rebuilds_the_document_exactly(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    journal.edit(0, "", "Hello world.")
    journal.edit(5, " world", ", dear reader")
    journal.pending("and then", at=19)
    journal.set_path("/tmp/x.txt")
    got = replay(path)
    assert got is not None
    assert got.text == "Hello, dear reader."
    assert got.pending == "and then" and got.pending_at == 19
    assert got.full_text == "Hello, dear reader. And then"
    assert got.path == "/tmp/x.txt" and not got.closed and not got.damaged
    journal.close(clean=True)
    closed = replay(path)
    assert closed is not None and closed.closed


def test_positions_count_code_points_and_pending_goes_where_it_was_shown(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("😀 ab")
    journal.edit(2, "", "x")  # after the emoji and the space: code points, not UTF-16 units
    journal.final(0, "Hi. ", "so then", 4)
    got = replay(path)
    assert got is not None and got.text == "Hi. 😀 xab"
    assert got.full_text == "Hi. So then 😀 xab"


def test_a_finalized_sentence_and_its_pending_words_are_one_record(tmp_path: Path) -> None:
    """A crash after the record shows the sentence once and the rest pending; before it, the old
    pending words: never both (the repeated words of issue 11)."""
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    journal.pending("we went home and then", at=0)
    before = path.read_bytes()
    journal.final(0, "We went home.", "and then", 13)
    got = replay(path)
    assert got is not None and got.full_text == "We went home. And then"
    path.write_bytes(before)
    got = replay(path)
    assert got is not None and got.full_text == "We went home and then"


def test_a_line_cut_off_is_reported_and_the_text_before_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("abc")
    journal.edit(3, "", "def")
    journal.close(clean=False)
    with path.open("ab") as fh:
        fh.write(encode_record({"seq": 4, "op": "edit", "pos": 0, "del": "", "ins": "XY"})[:-9])
    got = replay(path)
    assert got is not None and got.text == "abcdef" and not got.closed
    assert got.damaged and got.unread_records == 1 and "cut off" in got.problem


def _four_words(path: Path, damage: Callable[[bytes], bytes]) -> str:
    """A journal typing four words, its third record passed through ``damage``; the text."""
    journal = Journal(path)
    journal.reset("")
    text = ""
    for word in ("one ", "two ", "three ", "four "):
        journal.edit(len(text), "", word)
        text += word
    lines = path.read_bytes().split(b"\n")
    lines[-3] = damage(lines[-3])
    path.write_bytes(b"\n".join(lines))
    return text


def test_damage_in_the_middle_is_detected_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    # Two bytes: the checksum cannot put them back.
    _four_words(path, lambda line: line.replace(b"three", b"thRee").replace(b'"ins"', b'"iNs"'))
    got = replay(path)
    assert got is not None and got.text == "one two " and got.damaged
    assert got.unread_records == 2 and "checksum" in got.problem
    assert 0 < got.unread_bytes < got.total_bytes


def test_one_bad_byte_in_a_change_is_put_back_and_the_rest_applies(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    text = _four_words(path, lambda line: line.replace(b"three", b"thrEe"))
    got = replay(path)
    assert got is not None and got.text == text and got.damaged
    assert got.repaired_records == 1 and got.unread_records == 0
    from dictate.ui.recovery import recovery_message

    message = recovery_message(got)
    assert "1 damaged record (one changed byte each) was put back exactly" in message
    assert "Every change in it could still be read." in message


def test_a_missing_record_is_detected_by_its_sequence_number(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    journal.edit(0, "", "a")
    journal.edit(1, "", "b")
    journal.edit(2, "", "c")
    lines = path.read_bytes().split(b"\n")
    del lines[3]  # the record that typed "b"
    path.write_bytes(b"\n".join(lines))
    got = replay(path)
    assert got is not None and got.text == "a" and got.damaged and "expected" in got.problem


def test_format_1_journals_still_recover(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    ops = [
        {"op": "reset", "text": ""},
        {"op": "edit", "pos": 0, "del": "", "ins": "Old text."},
        {"op": "pending", "text": "still pending"},
        {"op": "path", "path": "/tmp/old.txt"},
    ]
    path.write_text("".join(json.dumps(op) + "\n" for op in ops), encoding="utf-8")
    got = replay(path)
    assert got is not None and not got.damaged
    assert got.text == "Old text." and got.full_text == "Old text. Still pending"
    assert got.path == "/tmp/old.txt"


def test_compaction_keeps_the_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dictate.editing.buffer import DictationBuffer

    monkeypatch.setattr("dictate.editing.journal.COMPACT_AFTER", 10)
    path = tmp_path / "j.jsonl"
    buffer = DictationBuffer(Journal(path))
    buffer.load("", "/doc.txt")
    for i in range(25):
        buffer.replace(len(buffer.text), len(buffer.text), str(i % 10))
    buffer.set_pending("pending words")
    assert len(path.read_text().splitlines()) < 15
    got = replay(path)
    assert got is not None and got.text == buffer.text and got.path == "/doc.txt"
    assert got.pending == "pending words" and got.pending_at == len(buffer.text)
    assert replay(tmp_path / "none.jsonl") is None
    assert [p.name for p in tmp_path.iterdir()] == ["j.jsonl"]  # no temporary file left


def _journal_states(path: Path) -> list[str]:
    journal = Journal(path)
    journal.reset("")
    states = [""]
    text = ""
    for i, word in enumerate(["Hello ", "wörld ", "😀 ", "again. ", "中文 "] * 3):
        if i % 4 == 3:
            journal.edit(0, text[:3], "")
            text = text[3:]
        else:
            journal.edit(len(text), "", word)
            text += word
        states.append(text)
    return states


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_random_byte_damage_is_always_detected(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Any one to three damaged bytes: replay never takes damage as data. It recovers one of the
    states the document went through, and says that something could not be read."""
    path = tmp_path_factory.mktemp("damage") / "j.jsonl"
    states = _journal_states(path)
    raw = bytearray(path.read_bytes())
    header = len(raw.split(b"\n")[0]) + 1
    # Distinct places: two changes at one byte could put the original back (found by CI: the
    # "damaged" file was the journal itself).
    for index in data.draw(
        st.lists(st.integers(header, len(raw) - 1), min_size=1, max_size=3, unique=True)
    ):
        old = raw[index]
        raw[index] = data.draw(st.integers(0, 255).filter(lambda b: b != old))  # noqa: B023
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None
    assert got.text in states
    assert got.damaged and (
        got.unread_records or got.salvaged_records or got.gaps or got.repaired_records
    )


def test_a_line_end_lost_to_a_zero_byte_is_damage_read_around(tmp_path: Path) -> None:
    """Found by CI (the test above): a zero where a line end was joined two intact records; both
    were read, and the journal was reported whole, so no copy of the damaged file was kept."""
    path = tmp_path / "j.jsonl"
    states = _journal_states(path)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"\n", raw.index(b"\n") + 1)] = 0  # the line end after the second record
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.text == states[-1]
    assert got.damaged and got.gaps == 1 and got.unread_records == 0
    assert "zero bytes where a line end was" in got.problem
    from dictate.ui.recovery import recovery_message

    message = recovery_message(got, tmp_path / "kept.jsonl")
    assert "damaged (zero bytes where a line end was)" in message
    assert "Every change in it could still be read." in message and "kept as" in message


def test_crc_covers_the_record(tmp_path: Path) -> None:
    line = encode_record({"seq": 1, "op": "reset", "text": "x"})
    crc, body = line[:8], line[9:-1]
    assert int(crc, 16) == zlib.crc32(body)


def test_a_journal_with_crlf_line_ends_still_replays(tmp_path: Path) -> None:
    """Found in review: a journal copied through a tool that wrote CRLF (a Windows editor, a
    sync or version-control setting) was damaged after its first line, losing the rest."""
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("")
    journal.edit(0, "", "Line one.\r\nLine two.")  # a CR in the text itself stays text
    journal.edit(20, "", " And more.")
    journal.pending("still pending", at=30)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    got = replay(path)
    assert got is not None and not got.damaged
    assert got.text == "Line one.\r\nLine two. And more." and got.pending == "still pending"
    # Damage after CRLF lines is still found, and counted in the file's own bytes.
    lines = path.read_bytes().split(b"\r\n")
    lines[-2] = lines[-2].replace(b"pending", b"pendinG")
    path.write_bytes(b"\r\n".join(lines))
    damaged = replay(path)
    assert damaged is not None and damaged.damaged and damaged.unread_records == 1
    assert damaged.total_bytes - damaged.unread_bytes == len(b"\r\n".join(lines[:-2])) + 2
