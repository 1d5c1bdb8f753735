"""Damage where it costs most: in the snapshot that starts every journal (after any recovery,
Open or compaction it holds the whole document). One bad byte, a cut, or a block of zeros there
used to start the app empty; now the text is read around the damage, a piece at a time."""

from __future__ import annotations

import os
import shutil
import stat
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.editing.journal import Journal
from dictate.editing.journal_records import SNAPSHOT_PIECE, encode_record
from dictate.editing.journal_replay import replay
from dictate.editing.journal_text import LOST, PieceText

DOC = "".join(f"Sentence {i:05d} says café, naïve and 😀. " for i in range(2500))  # ~100K chars


def _journal(path: Path, text: str = DOC, appended: tuple[str, ...] = ()) -> str:
    journal = Journal(path)
    journal.reset(text, "/doc.txt")
    for words in appended:
        journal.final(len(text), words, "", len(text) + len(words))
        text += words
    journal.close(clean=False)
    return text


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def test_a_snapshot_is_written_in_pieces_and_replays_exactly(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    expected = _journal(path, appended=("One more.", " And two."))
    pieces = -(-len(DOC) // SNAPSHOT_PIECE)
    assert pieces > 3
    assert sum(b'"op":"more"' in line for line in _lines(path)) == pieces - 1
    got = replay(path)
    assert got is not None and not got.damaged
    assert got.text == expected and got.path == "/doc.txt"


def test_one_bad_byte_in_the_first_record_is_put_back_by_its_checksum(tmp_path: Path) -> None:
    """The reviewed failure: one flipped byte in record 1 started the app empty. The checksum
    says which byte it was and what it held: the document comes back exactly."""
    path = tmp_path / "j.jsonl"
    expected = _journal(path, appended=(" Later words.",))
    lines = _lines(path)
    assert lines[0].count(b"Sentence 00010") == 1
    lines[0] = lines[0].replace(b"Sentence 00010", b"Sentence 0\xff010")
    path.write_bytes(b"\n".join(lines))
    got = replay(path)
    assert got is not None and got.text == expected
    assert got.damaged and got.repaired_records == 1 and got.salvaged_records == 0
    assert got.unread_records == 0 and not got.closed and "put back" in got.problem


def test_two_bad_bytes_in_the_first_record_are_read_around(tmp_path: Path) -> None:
    """Damage the checksum cannot undo (two bytes): the record is read around it, at a cost of
    a character for each, and the changes after the snapshot still apply."""
    path = tmp_path / "j.jsonl"
    expected = _journal(path, appended=(" Later words.",))
    lines = _lines(path)
    for number in (b"00010", b"00200"):
        assert lines[0].count(b"Sentence " + number) == 1
        lines[0] = lines[0].replace(
            b"Sentence " + number, b"Sentence " + number[:1] + b"\xff" + number[2:]
        )
    path.write_bytes(b"\n".join(lines))
    got = replay(path)
    assert got is not None and got.damaged and got.salvaged_records == 1
    assert got.repaired_records == 0 and got.unread_records == 0 and not got.closed
    assert len(got.text) == len(expected)
    wrong = [i for i, (a, b) in enumerate(zip(got.text, expected, strict=True)) if a != b]
    assert len(wrong) == 2 and all(got.text[i] == LOST for i in wrong)
    assert got.text.endswith(" Later words.")  # the changes after the snapshot still apply


def test_a_line_end_written_over_a_byte_of_a_snapshot_record_is_put_back(tmp_path: Path) -> None:
    """Found by a fault probe of this session: a stray line end in the first record split it
    in two; the tail, a line of its own, took a sequence number, and every record after it was
    then out of step: the rest of the text and every later change were lost. The checksum says
    which byte the line end replaced."""
    path = tmp_path / "j.jsonl"
    expected = _journal(path, appended=(" Later words.", " And more."))
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Sentence 00100") + 3] = ord("\n")
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.text == expected and got.repaired_records == 1
    assert got.unread_records == 0 and got.salvaged_records == 0


def test_a_zero_byte_in_the_first_record_is_put_back_too(tmp_path: Path) -> None:
    """A zero byte is read as a lost block before the record is decoded; one of them alone is
    one changed byte all the same (the replay had not yet seen a record to know the format)."""
    path = tmp_path / "j.jsonl"
    expected = _journal(path, appended=(" Later words.",))
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Sentence 00100") + 2] = 0
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.text == expected and got.repaired_records == 1


def test_an_escape_made_by_a_bad_byte_no_longer_shifts_the_rest_of_its_piece(
    tmp_path: Path,
) -> None:
    """Found by the same probe: a backslash written over the "a" of "and" read as "\\n", one
    character fewer, so the rest of the piece moved by one and a later change there no longer
    matched: the replay ended. One byte: the checksum puts it back."""
    path = tmp_path / "j.jsonl"
    text = DOC[:40_000]
    journal = Journal(path)
    journal.reset(text, None)
    journal.edit(9_000, text[9_000:9_010], "")
    text = text[:9_000] + text[9_010:]
    journal.close(clean=False)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b" and ", 3_000) + 1] = ord("\\")
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.text == text and got.unread_records == 0


def test_a_file_cut_inside_the_snapshot_keeps_what_was_written(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path)
    raw = path.read_bytes()
    cut = len(_lines(path)[0]) + 1 + 5000  # 5,000 bytes into the second piece
    path.write_bytes(raw[:cut])
    got = replay(path)
    assert got is not None and got.damaged
    assert DOC.startswith(got.text) and len(got.text) > SNAPSHOT_PIECE
    assert got.missing_chars == len(DOC) - len(got.text)
    assert "missing" in got.problem


def test_a_block_of_zeros_costs_the_text_it_covered(tmp_path: Path) -> None:
    """A filesystem that lost a block after a crash: 4 KiB of zeros, newlines included."""
    path = tmp_path / "j.jsonl"
    expected = _journal(path)
    raw = bytearray(path.read_bytes())
    raw[4096:8192] = bytes(4096)
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.damaged and len(got.text) == len(expected)
    assert got.text[:3000] == expected[:3000]
    assert got.text[SNAPSHOT_PIECE:] == expected[SNAPSHOT_PIECE:]
    assert LOST in got.text[:SNAPSHOT_PIECE]


def test_a_first_record_that_is_all_zeros_still_reports_damage(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path, "A short document.")
    raw = path.read_bytes()
    first = raw.index(b"\n")
    path.write_bytes(bytes(first) + raw[first:])
    got = replay(path)
    assert got is not None and got.damaged and not got.closed and got.path == "/doc.txt"


def test_a_damaged_single_record_snapshot_of_version_0_2_is_read_around(tmp_path: Path) -> None:
    """Journals written before snapshots came in pieces hold the whole text in record 1."""
    path = tmp_path / "j.jsonl"
    records = [
        {"seq": 1, "op": "reset", "text": DOC},
        {"seq": 2, "op": "path", "path": None},
    ]
    path.write_bytes(b"".join(encode_record(r) for r in records))
    raw = bytearray(path.read_bytes())
    raw[50_000] ^= 0x01
    raw[50_100] ^= 0x01  # two bytes: the checksum cannot say which (one it puts back)
    path.write_bytes(bytes(raw))
    got = replay(path)
    assert got is not None and got.damaged and got.salvaged_records == 1
    assert abs(len(got.text) - len(DOC)) <= 2
    assert got.text[:40_000] == DOC[:40_000] and got.text[-40_000:] == DOC[-40_000:]


@settings(max_examples=120, deadline=None)
@given(data=st.data())
@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_any_bad_byte_in_a_snapshot_piece_costs_a_few_characters(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """Not a backslash: one followed by n, t, r, b or f reads as a valid escape, one character
    where there were two, and with no mark of where, the rest of that piece moves by one (its
    length is still right, and the pieces after it are not touched)."""
    path = tmp_path_factory.mktemp("piece") / "j.jsonl"
    expected = _journal(path, DOC[:50_000], appended=(" After.", " And after."))
    lines = _lines(path)
    pieces = [
        i for i, line in enumerate(lines) if b'"text":"' in line and b'"op":"pending"' not in line
    ]
    index = data.draw(st.sampled_from(pieces[:4]))
    line = bytearray(lines[index])
    start = line.index(b'"text":"') + 8
    at = data.draw(st.integers(start, len(line) - 3))
    line[at] = data.draw(st.integers(0, 255).filter(lambda b: b not in (line[at], 10, 92)))
    lines[index] = bytes(line)
    path.write_bytes(b"\n".join(lines))
    got = replay(path)
    assert got is not None
    assert len(got.text) == len(expected) and got.text.endswith(" After. And after.")
    wrong = sum(a != b for a, b in zip(got.text, expected, strict=True))
    assert wrong <= 4
    assert got.damaged or wrong == 0


def test_a_line_without_a_checksum_after_format_2_records_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path, "Text.")
    with path.open("ab") as fh:
        fh.write(b'{"op": "edit", "pos": 0, "del": "Text.", "ins": "Forged."}\n')
    got = replay(path)
    assert got is not None and got.text == "Text." and got.damaged
    assert "without a checksum" in got.problem


def test_a_record_nested_100000_deep_is_damage_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    _journal(path, "Text.")
    with path.open("ab") as fh:
        fh.write(encode_record({"seq": 3, "op": "edit", "pos": 0, "del": "", "ins": "x"}))
        body = b"[" * 100_000 + b"]" * 100_000
        fh.write(b"%08x " % zlib.crc32(body) + body + b"\n")
    got = replay(path)
    assert got is not None and got.text == "xText." and got.damaged
    assert "levels deep" in got.problem


def test_a_named_pipe_in_place_of_the_journal_is_refused_without_hanging(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    os.mkfifo(path)
    outcome: list[BaseException | object] = []

    def run() -> None:
        try:
            outcome.append(replay(path))
        except BaseException as exc:
            outcome.append(exc)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(10)
    assert outcome, "replay hung on a named pipe"
    assert isinstance(outcome[0], OSError) and "named pipe" in str(outcome[0])


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=300),
    st.lists(
        st.tuples(st.integers(0, 10**6), st.integers(0, 40), st.text(max_size=30)), max_size=40
    ),
)
def test_the_pieces_edit_exactly_as_one_string_does(
    start: str, edits: list[tuple[int, int, str]]
) -> None:
    import dictate.editing.journal_text as journal_module

    old = journal_module._PIECE
    journal_module._PIECE = 7  # many pieces, edits across them
    try:
        text = PieceText()
        text.set(start)
        plain = start
        for pos, length, inserted in edits:
            pos = pos % (len(plain) + 1)
            removed = plain[pos : pos + length]
            text.replace(pos, removed, inserted, lenient=False)
            plain = plain[:pos] + inserted + plain[pos + len(removed) :]
            assert str(text) == plain and len(text) == len(plain)
    finally:
        journal_module._PIECE = old


def test_the_journal_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        path = tmp_path / "data" / "journal" / "document.jsonl"
        journal = Journal(path)
        journal.reset("secret words")
        journal.edit(0, "", "more ")
        journal.close()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        path.parent.chmod(0o755)  # left so by an older version
        path.chmod(0o644)
        Journal(path).reset("again")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    finally:
        os.umask(old)


def test_a_deleted_data_folder_is_noticed_at_the_next_write_and_made_again(
    tmp_path: Path,
) -> None:
    """Appends used to go on into the unlinked file: everything after it was lost."""
    from dictate.editing.buffer import DictationBuffer

    path = tmp_path / "data" / "journal" / "document.jsonl"
    buffer = DictationBuffer(Journal(path))
    states: list[OSError | None] = []
    buffer.on_journal_state = states.append
    buffer.load("Kept text.")
    shutil.rmtree(tmp_path / "data")
    buffer.replace(len(buffer.text), len(buffer.text), " Typed after.")
    assert buffer.text == "Kept text. Typed after."  # kept in memory
    assert len(states) == 1 and isinstance(states[0], FileNotFoundError)
    assert "deleted" in str(states[0])
    assert buffer.retry_journal()
    got = replay(path)
    assert got is not None and got.text == "Kept text. Typed after."


def test_a_journal_replaced_behind_its_back_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "document.jsonl"
    journal = Journal(path)
    journal.reset("Mine.")
    replacement = tmp_path / "other"
    replacement.write_bytes(b"")
    os.replace(replacement, path)
    with pytest.raises(OSError, match="replaced"):
        journal.edit(0, "", "x")
    assert journal.broken


def test_the_journal_compacts_when_its_records_outweigh_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Replay reads every byte: a few long records (pasted text, a long dictation) compact the
    journal long before 2,000 records."""
    from dictate.editing.buffer import DictationBuffer

    monkeypatch.setattr("dictate.editing.journal.COMPACT_BYTES", 10_000)
    path = tmp_path / "j.jsonl"
    buffer = DictationBuffer(Journal(path))
    buffer.load("Short document. ")
    for _ in range(6):
        buffer.replace(len(buffer.text), len(buffer.text), "pasted words " * 300)
    assert path.stat().st_size < 30_000  # not 6 x 3,900 bytes of records after the snapshot
    lines = path.read_bytes().splitlines()
    assert sum(b'"op":"edit"' in line for line in lines) < 4
    got = replay(path)
    assert got is not None and got.text == buffer.text


def test_a_changed_character_the_user_deleted_later_does_not_end_the_replay(
    tmp_path: Path,
) -> None:
    """Found by the crash harness: a byte changed to another letter (valid JSON, only the
    checksum catches it), and later the user deleted that very word: the deletion must still
    apply, or everything after it would be lost."""
    path = tmp_path / "j.jsonl"
    journal = Journal(path)
    journal.reset("Keep this word and that one.")
    journal.edit(10, "word ", "")
    journal.edit(len("Keep this and that one."), "", " Then more.")
    journal.close(clean=False)
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"this word", b"this wxrd", 1))
    got = replay(path)
    assert got is not None and got.damaged and got.unread_records == 0
    assert got.text == "Keep this and that one. Then more."


@pytest.mark.slow  # about 700 replays of a 50 KB journal
def test_any_bad_byte_in_the_head_of_a_snapshot_record_keeps_the_document(
    tmp_path: Path,
) -> None:
    """Found by an independent fault probe: a bad byte in the first ~60 bytes of the first
    record (its checksum's first byte, the quotes or name of its text field, a digit of its
    size) started the app empty or cut the text to a few characters, and then every later
    change was dropped, since it no longer matched; one in a piece's "at" moved the rest. Each
    byte of the head of the first two records, changed to a zero, a quote, a brace, a comma or
    a digit, now costs at most a few characters, and the changes after the snapshot apply."""
    path = tmp_path / "j.jsonl"
    text = DOC[:50_000]
    journal = Journal(path)
    journal.reset(text, None)
    for words in (" One.", " Two."):
        journal.final(len(text), words, "", len(text) + len(words))
        text += words
    journal.edit(100, text[100:110], "")
    text = text[:100] + text[110:]
    journal.close(clean=False)
    lines = _lines(path)
    assert b'"op":"more"' in lines[1]
    failures = []
    for index in (0, 1):
        head = lines[index].index(b'"text":"') + 10
        for at in range(head):
            for byte in b'\x00"{},9':
                if lines[index][at] == byte:
                    continue
                damaged = list(lines)
                damaged[index] = lines[index][:at] + bytes([byte]) + lines[index][at + 1 :]
                path.write_bytes(b"\n".join(damaged))
                got = replay(path)
                wrong = (
                    -1 if got is None else sum(a != b for a, b in zip(got.text, text, strict=False))
                )
                if got is None or len(got.text) != len(text) or wrong > 12:
                    failures.append((index, at, chr(byte), wrong, got and got.problem))
    assert not failures, failures[:10]
