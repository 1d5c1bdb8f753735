"""The faults a fault and security probe of main (0edaa31) found, each as its repro (issue 54):
control characters from vocabulary entries reaching the output and the keys typed, the app's
own files written through symbolic links, tracebacks from hostile arguments, raw control
characters in messages and JSON, and the small ones. Each test fails on 0edaa31. (The
``--OPT=--`` and hostile file name fuzzers: tests/test_cli_fuzz.py.)"""

from __future__ import annotations

import io
import json
import stat
import zlib
from pathlib import Path

import pytest

from dictate.cli import main
from dictate.editing.history import WINDOW, History
from dictate.output.typist import Typist
from dictate.text_safety import CONTROL, json_text, shown
from dictate.writing.vocabulary import VocabularyFile, parse_entry

ESCAPE = "Ti\x1b[2Jmes = times"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "dictate"


def test_a_vocabulary_entry_with_a_control_character_is_refused_naming_it(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for bad, code in ((ESCAPE, "U+001B"), ("Bad\u202eword", "U+202E"), ("a\x9bb", "U+009B")):
        assert main(["vocabulary", "add", bad]) == 2
        err = capsys.readouterr().err
        assert code in err and err.count("\n") == 1 and not CONTROL.search(err[:-1]), err
    assert not (data / "vocabulary.jsonl").exists()
    # An entry written into the file by hand (or by an older version) is not read as one.
    data.mkdir(parents=True)
    good = parse_entry("TensorRT = tensor r t")
    VocabularyFile(data / "vocabulary.jsonl").add([good])
    record = json.dumps({"written": "Ti\x1bmes", "sounds": "times"}).encode()
    with (data / "vocabulary.jsonl").open("ab") as fh:
        fh.write(b"%08x " % zlib.crc32(record) + record + b"\n")
    assert VocabularyFile(data / "vocabulary.jsonl").entries == [good]
    assert main(["vocabulary", "export"]) == 0
    assert "\x1b" not in capsys.readouterr().out


def test_no_control_character_is_typed_into_another_application() -> None:
    class Recorder:  # the keys a text field would get
        name, takes_back, text = "recorder", True, ""

        def type_text(self, text: str) -> None:
            self.text += text

        def focused_window(self) -> str:
            return "w1"

    backend = Recorder()
    typed = Typist(backend).sentences(  # type: ignore[arg-type]
        ["Times\x1b[2J are\u202e good.", "Next\x9b one."]
    )
    assert typed == backend.text == "Times[2J are good. Next one."


def test_the_apps_own_files_are_never_written_through_a_symbolic_link(tmp_path: Path) -> None:
    victim = tmp_path / "notes.txt"
    victim.write_text("mine\n")
    victim.chmod(0o644)
    folder = tmp_path / "data"
    folder.mkdir()
    # The vocabulary: the link is replaced by the vocabulary; the file it named is untouched.
    (folder / "vocabulary.jsonl").symlink_to(victim)
    VocabularyFile(folder / "vocabulary.jsonl").add([parse_entry("TensorRT = tensor r t")])
    assert not (folder / "vocabulary.jsonl").is_symlink()
    assert VocabularyFile(folder / "vocabulary.jsonl").entries[0].written == "TensorRT"
    assert victim.read_text() == "mine\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    # The history: appending is refused (what was said is not appended to another file).
    (folder / "history.jsonl").symlink_to(victim)
    history = History(folder / "history.jsonl", keep_days=None, max_bytes=None)
    with pytest.raises(OSError, match="symbolic link"):
        history.add("Secret words.", WINDOW)
    assert victim.read_text() == "mine\n"


def test_history_since_a_date_out_of_the_clocks_range_is_one_clear_error(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "--since", "0001-01-01"]) == 2
    err = capsys.readouterr().err
    assert "out of the range" in err and err.count("\n") == 1


def test_json_and_messages_escape_c1_line_separators_and_bidi_controls() -> None:
    value = {"text": "a\x9b[2Jb\u2028c\u202ed\x1b"}
    text = json_text(value)
    assert not CONTROL.search(text) and json.loads(text) == value
    assert shown("x\ny\x1b\u202e") == "x\\ny\\u001b\\u202e"


def test_history_json_escapes_what_the_terminal_would_act_on(
    data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    history = History(data / "history" / "history.jsonl", keep_days=None, max_bytes=None)
    history.add("Said\x9b[2J\u2028here\u202e.", "Fire\x1bfox")
    assert main(["history", "--json"]) == 0
    out = capsys.readouterr().out
    assert not CONTROL.search(out.replace("\n", "")), repr(out)
    assert json.loads(out)[0]["text"] == "Said\x9b[2J\u2028here\u202e."
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out and "\x9b" not in out, repr(out)


def test_vocabulary_import_refuses_a_device_and_a_named_pipe_at_once(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/dev/zero was read whole (MemoryError); a named pipe blocked for ever."""
    import os

    fifo = tmp_path / "entries.fifo"
    os.mkfifo(fifo)
    for path, said in (("/dev/zero", "character device"), (str(fifo), "named pipe")):
        assert main(["vocabulary", "import", path]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    big = tmp_path / "big.txt"
    big.write_bytes(b"Name\n" * (2 << 20))  # 10 MB of one entry
    assert main(["vocabulary", "import", str(big)]) == 2
    assert "over 8 MB" in capsys.readouterr().err


def test_transcribe_from_standard_input_says_it_is_not_supported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["transcribe", "-"]) == 2
    assert "standard input ('-') is not supported" in capsys.readouterr().err


def test_an_empty_ogg_is_not_given_a_wav_only_repair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np
    import soundfile

    path = tmp_path / "empty.ogg"
    soundfile.write(str(path), np.zeros(0, np.int16), 16000, format="OGG", subtype="VORBIS")
    assert main(["transcribe", str(path)]) == 2
    err = capsys.readouterr().err
    assert "holds no audio" in err and "--ignore-length" not in err and "ffmpeg" in err, err


def test_workers_auto_counts_the_cores_this_process_may_run_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from dictate.cli.transcribe import usable_workers, workers_count

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert workers_count("auto") == 2
    err = io.StringIO()
    assert usable_workers(8, err) == 2 and "2 cores this process may run on" in err.getvalue()


def test_a_damaged_vocabulary_line_is_kept_aside_when_the_vocabulary_is_rewritten(
    tmp_path: Path,
) -> None:
    """A line split in two by a stray line break cannot be read (its checksum fails): it was
    dropped for good at the next change. Now it is kept, as it was, beside the vocabulary."""
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("TensorRT = tensor r t"), parse_entry("Kubernetes")])
    first, second = path.read_bytes().splitlines(keepends=True)
    split = second[:12] + b"\n" + second[12:]
    path.write_bytes(first + split)
    vocabulary = VocabularyFile(path)
    assert vocabulary.damaged == 2 and [e.written for e in vocabulary.entries] == ["TensorRT"]
    vocabulary.add([parse_entry("metoprolol")])
    kept = (tmp_path / "vocabulary-damaged.jsonl").read_bytes()
    assert (
        kept == split
        and stat.S_IMODE((tmp_path / "vocabulary-damaged.jsonl").stat().st_mode) == 0o600
    )
    assert [e.written for e in VocabularyFile(path).entries] == ["TensorRT", "metoprolol"]


def test_output_to_a_named_pipe_or_a_device_is_streamed_never_renamed_over(
    tmp_path: Path,
) -> None:
    """``transcribe -o x/null`` (x/null a copy of /dev/null made with mknod) left a regular
    0666 file in the device's place: the atomic write renamed over it. As root, ``-o
    /dev/null`` would have replaced /dev/null."""
    import os
    import threading

    from dictate.fileio import atomic_write_text

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    atomic_write_text(fifo, "We met at noon.\n")
    reader.join(30)
    assert got == [b"We met at noon.\n"] and stat.S_ISFIFO(fifo.stat().st_mode)
    if os.geteuid() == 0:  # a device node needs root to make
        null = tmp_path / "null"
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        atomic_write_text(null, "words\n")
        assert stat.S_ISCHR(null.stat().st_mode)
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "words\n")


def test_the_audio_links_are_written_again_when_the_data_folder_vanishes(
    tmp_path: Path,
) -> None:
    """App running, the data folder deleted, 25 s dictated, kill -9: the kept audio was in the
    folder made again, but its links had been appended to the deleted file, so no sentence
    could be played and nothing was offered. Now the index is written again, whole, in the
    folder made again (0700, as are the folders made with it)."""
    import shutil

    from dictate.editing.audio_links import AudioLinks

    data = tmp_path / "data"
    folder = data / "journal" / "audio"
    links = AudioLinks(folder)
    links.append({"op": "session", "session": "s1"})
    links.append({"op": "link", "session": "s1", "start": 0.5, "end": 2.0, "text": "First."})
    shutil.rmtree(data)
    links.append({"op": "link", "session": "s1", "start": 2.5, "end": 4.0, "text": "Second."})
    links.append({"op": "covered", "session": "s1", "until": 4.0})
    links.close()  # kill -9: nothing more is written
    again = AudioLinks(folder).load()
    assert [k.text for k in again.links] == ["First.", "Second."]
    assert again.sessions["s1"].covered == 4.0
    for made in (data, data / "journal", folder):
        assert stat.S_IMODE(made.stat().st_mode) == 0o700, made


def test_the_instance_lock_and_address_are_made_again_when_the_folder_vanishes(
    tmp_path: Path,
) -> None:
    """Until a restart, a second launch found no lock and started a second app on the same
    journal. The running app renews its claim (every few seconds)."""
    import shutil

    from dictate.ui.data_folder_claim import DataFolderClaim

    folder = tmp_path / "data" / "dictate"
    claim = DataFolderClaim(folder)
    assert claim.claim("unix:/run/one.sock")
    shutil.rmtree(tmp_path / "data")
    claim.renew()
    assert claim.lock_file.exists() and claim.address_file.read_text() == "unix:/run/one.sock\n"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    second = DataFolderClaim(folder)
    assert not second.claim("unix:/run/two.sock", timeout_ms=0)  # the running app holds it
    claim.release()
