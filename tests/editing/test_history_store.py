"""The dictation history store: append-only checksummed records (the journal's format), a
damaged or cut-off record skipped with the rest kept, atomic rewrites, limits by age and size."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.editing.history import FAILED, OK, WINDOW, Entry, History, read_history, search
from dictate.editing.journal_records import encode_record


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def unlimited(path: Path, clock: Clock | None = None) -> History:
    return History(path, keep_days=None, max_bytes=None, clock=clock or Clock())


def test_entries_are_read_back_in_order_with_time_target_and_status(tmp_path: Path) -> None:
    clock = Clock()
    history = unlimited(tmp_path / "h" / "history.jsonl", clock)
    assert history.entries() == []
    first = history.add("We met at 9:30 a.m.", WINDOW)
    clock.now += 5
    second = history.add("Dear Sam,\nthanks — “quoted” 😀", "Firefox", FAILED)
    assert history.entries() == [first, second]
    assert second.time == first.time + 5 and second.status == FAILED and first.status == OK
    # Private: what the user said.
    assert stat.S_IMODE(os.stat(history.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(history.path.parent).st_mode) == 0o700
    # The journal's record format: a CRC-32 and the JSON.
    line = history.path.read_bytes().splitlines(keepends=True)[0]
    assert line == encode_record(first.record())


def test_a_damaged_record_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    history = unlimited(tmp_path / "history.jsonl")
    entries = [history.add(f"Sentence {i}.") for i in range(5)]
    data = bytearray(history.path.read_bytes())
    at = data.index(b"Sentence 2")
    data[at] ^= 0x20  # "sentence 2": still valid JSON, caught by the checksum
    data[at + 3] ^= 0x20  # two bytes: the checksum cannot put them back (one it does)
    history.path.write_bytes(bytes(data))
    read = read_history(history.path)
    assert read.entries == [entries[i] for i in (0, 1, 3, 4)] and read.damaged == 1


def test_a_record_cut_off_by_a_crash_is_dropped_and_the_next_one_is_read(tmp_path: Path) -> None:
    history = unlimited(tmp_path / "history.jsonl")
    kept = history.add("Kept.")
    history.add("Cut off while it was written.")
    size = history.path.stat().st_size
    with open(history.path, "r+b") as fh:
        fh.truncate(size - 7)
    assert history.entries() == [kept]
    after = history.add("After the crash.")
    assert history.entries() == [kept, after]


def test_delete_removes_the_words_from_the_disk_and_clear_removes_the_file(
    tmp_path: Path,
) -> None:
    history = unlimited(tmp_path / "history.jsonl")
    a, b, c = (history.add(t) for t in ("Alpha secret.", "Bravo.", "Charlie."))
    assert history.delete(b.id) == 1
    assert history.entries() == [a, c]
    assert b"Bravo" not in history.path.read_bytes()
    assert history.delete({"nothing"}) == 0
    history.clear()
    assert not history.path.exists() and history.entries() == []
    history.clear()  # twice: nothing to do


def test_old_entries_go_after_their_days_and_the_oldest_past_the_size(tmp_path: Path) -> None:
    clock = Clock()
    history = History(tmp_path / "history.jsonl", keep_days=2, max_bytes=None, clock=clock)
    old = history.add("Three days old.")
    clock.now += 3 * 86400
    new = history.add("Today.")
    assert history.entries() == [old, new]
    history.prune()
    assert history.entries() == [new]

    sized = History(tmp_path / "sized.jsonl", keep_days=None, max_bytes=2000, clock=clock)
    added = [sized.add(f"Sentence number {i:03}, long enough to count.") for i in range(60)]
    size = sized.path.stat().st_size
    assert size <= 2000
    kept = sized.entries()
    assert kept == added[-len(kept) :] and len(kept) >= 10  # the newest, in order
    assert not list(tmp_path.glob(".*.tmp"))  # the rewrites left no temporary file


def test_search_looks_in_the_text_and_the_target_ignoring_case() -> None:
    entries = [Entry("1", 0, WINDOW, "The Cat sat."), Entry("2", 0, "Firefox", "Dog.")]
    assert [e.id for e in search(entries, "cat")] == ["1"]
    assert [e.id for e in search(entries, "FIREFOX")] == ["2"]
    assert len(list(search(entries, " "))) == 2


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.text(max_size=40)),
        st.tuples(st.just("delete"), st.integers(0, 50)),
        st.tuples(st.just("compact"), st.none()),
        st.tuples(st.just("crash"), st.integers(1, 10_000)),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(ops=OPS)
def test_every_appended_record_not_deleted_is_read_back_exactly_in_order(
    ops: list[tuple[str, object]],
) -> None:
    """Random appends, deletes, compactions and crashes while a record was written: what is
    read is exactly the model (a record cut off mid-write is dropped, the rest kept; one whole
    but for its line end is kept)."""
    with tempfile.TemporaryDirectory() as folder:
        clock = Clock()
        history = unlimited(Path(folder) / "history.jsonl", clock)
        model: list[Entry] = []
        for op, arg in ops:
            clock.now += 1
            if op == "add":
                model.append(history.add(str(arg), "Some window"))
            elif op == "delete" and model:
                gone = model.pop(int(str(arg)) % len(model))
                assert history.delete(gone.id) == 1
            elif op == "compact":
                history.compact()
            elif op == "crash":  # the next record was being written: only part of it is there
                entry = Entry("cafe00000000", clock.now, WINDOW, "cut off " * 3)
                line = encode_record(entry.record())
                cut = int(str(arg)) % (len(line) - 1) + 1  # never the whole line
                with open(history.path, "ab+") as fh:
                    fh.seek(0, os.SEEK_END)
                    if fh.tell():  # an add ends a line left open before it writes
                        fh.seek(-1, os.SEEK_END)
                        if fh.read(1) != b"\n":
                            fh.write(b"\n")
                    fh.write(line[:cut])
                if cut == len(line) - 1:  # all but the line end: the record is whole
                    model.append(entry)
            assert history.entries() == model


def test_a_history_far_over_its_limit_is_read_from_its_newest_end_only(tmp_path: Path) -> None:
    """A 1 GB history took 2.2 GB of memory and froze the window for 80 s: it is read from its
    last twice ``max_bytes`` only (what is older is past the limit), and the next compaction
    leaves it within the limit. 1 MB against 8 kB stands for 1 GB against 10 MB here."""
    path = tmp_path / "history.jsonl"
    line = encode_record(Entry("0" * 12, 1_800_000_000.0, WINDOW, "x" * 100, OK).record())
    count = 1_000_000 // len(line)
    with open(path, "wb") as fh:
        for number in range(count):
            entry = Entry(f"{number:012d}", 1_800_000_000.0, WINDOW, f"{number:0100d}", OK)
            fh.write(encode_record(entry.record()))
    history = History(path, keep_days=None, max_bytes=8000, clock=Clock())
    read = read_history(path, 16000)
    assert read.skipped_bytes > 900_000 and read.damaged == 0  # the cut fell between records
    entries = history.entries()
    assert 0 < len(entries) <= 16000 // len(line)
    assert entries[-1].id == f"{count - 1:012d}"  # the newest, in order, none damaged
    assert [int(e.id) for e in entries] == list(range(count - len(entries), count))
    history.add("one more")
    assert path.stat().st_size <= 8000
    assert history.entries()[-1].text == "one more"
