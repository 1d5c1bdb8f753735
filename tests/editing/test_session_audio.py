"""The kept audio of dictation sessions (dictate/editing/session_audio.py): streamed to a FLAC
file as it comes and flushed every second (a crash costs at most that second and the encoder's
last block), private, kept within a size (oldest sessions first), read back also where a crash
left the file unfinished; and the links of sentences to their time
(dictate/editing/audio_links.py), which survive a restart."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dictate.asr.engine import Word
from dictate.audio.capture import AudioBlock
from dictate.audio.format import SAMPLE_RATE
from dictate.editing.audio_links import MARGIN_S, AudioLinks, Clip, WordClock
from dictate.editing.journal_records import encode_record
from dictate.editing.session_audio import (
    AudioStore,
    SessionRecorder,
    TappedSource,
    duration,
    read_span,
)

BLOCK = SAMPLE_RATE // 10
ENCODER_BLOCK = 4096  # samples FLAC holds back until its block is full


def speech(seconds: float, seed: int = 1) -> np.ndarray:
    """Noise-like int16 samples (what FLAC cannot shrink much, like speech)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(round(seconds * SAMPLE_RATE)) * 3000).astype(np.int16)


def test_audio_is_streamed_flushed_every_second_and_read_back_exactly(tmp_path: Path) -> None:
    audio = speech(3.0)
    recorder = SessionRecorder(tmp_path / "audio", "s1", flush_seconds=1.0)
    sizes = []
    for at in range(0, len(audio), BLOCK):
        recorder.write(audio[at : at + BLOCK])
        sizes.append(recorder.path.stat().st_size)
    # On disk as it comes (flushed at 1 s and 2 s), not held until the end.
    assert sizes[9] > 10_000 and sizes[19] > sizes[9]
    # Readable while still being written, up to the last flush less the encoder's block.
    before_close = read_span(recorder.path)
    assert len(before_close) >= 2 * SAMPLE_RATE - ENCODER_BLOCK
    np.testing.assert_array_equal(before_close, audio[: len(before_close)])
    recorder.close()
    np.testing.assert_array_equal(read_span(recorder.path), audio)
    assert duration(recorder.path) == pytest.approx(3.0)
    span = read_span(recorder.path, 1.0, 1.5)
    np.testing.assert_array_equal(span, audio[SAMPLE_RATE : SAMPLE_RATE * 3 // 2])


def test_a_crash_loses_at_most_the_last_second(tmp_path: Path) -> None:
    """The process dies (os._exit: no close, no flush) 3.5 s into a session."""
    folder = tmp_path / "audio"
    code = textwrap.dedent(
        f"""
        import os, numpy as np
        from pathlib import Path
        from dictate.editing.session_audio import SessionRecorder
        rng = np.random.default_rng(1)
        audio = (rng.standard_normal(56000) * 3000).astype(np.int16)
        recorder = SessionRecorder(Path({str(folder)!r}), "crashed")
        for at in range(0, len(audio), 1600):
            recorder.write(audio[at:at + 1600])
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    path = folder / "crashed.flac"
    kept = read_span(path)
    audio = speech(3.5)
    assert len(kept) >= len(audio) - SAMPLE_RATE - ENCODER_BLOCK  # at most ~1.26 s lost
    np.testing.assert_array_equal(kept, audio[: len(kept)])
    assert duration(path) == pytest.approx(len(kept) / SAMPLE_RATE)
    np.testing.assert_array_equal(read_span(path, 2.0), audio[2 * SAMPLE_RATE : len(kept)])


def test_the_folder_the_audio_and_the_links_are_private_whatever_the_umask(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "audio"
    old = os.umask(0o022)
    try:
        recorder = AudioStore(folder, 10**9).start()
        recorder.write(speech(0.2))
        recorder.close()
        links = AudioLinks(folder)
        links.append({"op": "session", "session": recorder.session})
        links.close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(recorder.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(links.path.stat().st_mode) == 0o600


def test_the_oldest_sessions_go_first_past_the_size_never_the_one_recording(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "audio"
    links = AudioLinks(folder)
    for n in range(4):
        recorder = SessionRecorder(folder, f"2024010{n}-000000-aaaaaa")
        recorder.write(speech(1.0, seed=n))
        recorder.close()
        links.append({"op": "session", "session": recorder.session})
        link = {"session": recorder.session, "start": 0.1, "end": 0.9, "text": f"Sentence {n}."}
        links.append({"op": "link", **link})
    store = AudioStore(folder, 0)
    size = store.sessions()[0].size
    store.max_bytes = 2 * size + size // 2
    recording = "20240100-000000-aaaaaa"  # the oldest, but being recorded: it stays
    deleted = store.enforce_limit(keep=recording)
    assert deleted == ["20240101-000000-aaaaaa", "20240102-000000-aaaaaa"]
    links.forget(deleted)
    assert [s.session for s in store.sessions()] == [recording, "20240103-000000-aaaaaa"]
    # The links of the deleted sessions are gone from the disk too.
    again = AudioLinks(folder).load()
    assert sorted(again.sessions) == [recording, "20240103-000000-aaaaaa"]
    assert [k.text for k in again.links] == ["Sentence 0.", "Sentence 3."]
    assert store.clear() == [recording, "20240103-000000-aaaaaa"] and not store.sessions()


def test_a_tapped_source_gives_the_pipeline_the_same_blocks_and_keeps_them(
    tmp_path: Path,
) -> None:
    audio = speech(1.0)

    class Source:
        name, dropped_blocks, stopped = "mic", 2, False

        def blocks(self):  # type: ignore[no-untyped-def]
            for at in range(0, len(audio), BLOCK):
                yield AudioBlock(audio[at : at + BLOCK], at / SAMPLE_RATE)

        def stop(self) -> None:
            self.stopped = True

    recorder = SessionRecorder(tmp_path, "tap")
    tapped = TappedSource(Source(), recorder)
    blocks = list(tapped.blocks())
    tapped.stop()
    recorder.close()
    assert [b.start for b in blocks] == [n / 10 for n in range(10)]
    assert tapped.dropped_blocks == 2 and tapped.source.stopped and tapped.name == "mic"
    np.testing.assert_array_equal(read_span(recorder.path), audio)


def test_a_write_that_fails_ends_the_recording_not_the_dictation(tmp_path: Path) -> None:
    recorder = SessionRecorder(tmp_path, "full")

    class Full:
        def write(self, data: object) -> None:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            pass

    recorder._file = Full()
    recorder.write(speech(0.1))  # no exception
    assert isinstance(recorder.error, OSError) and not recorder.open
    recorder.write(speech(0.1))  # ignored


def test_a_removed_folder_ends_the_recording_with_a_reason_within_a_second(
    tmp_path: Path,
) -> None:
    """Found by a fault probe: with the kept audio's folder removed while dictating, writing
    went on into a file no one would find, and the window said nothing. The next flush (a
    second of audio at most) notices, and the recorder's error says why (the window shows it:
    tests/ui/test_catching_up.py)."""
    import shutil

    folder = tmp_path / "audio"
    recorder = SessionRecorder(folder, "gone")
    recorder.write(speech(0.5))
    shutil.rmtree(folder)
    recorder.write(speech(1.2))  # past the flush
    assert isinstance(recorder.error, OSError) and not recorder.open
    assert "was removed" in str(recorder.error)


# -- the links ----------------------------------------------------------------------------------


def words(*timed: tuple[str, float, float]) -> list[Word]:
    return [Word(text, start, end) for text, start, end in timed]


def test_sentences_are_timed_by_the_words_said_command_words_skipped() -> None:
    clock = WordClock()
    clock.heard(words(("it", 0.5, 0.6), ("costs", 0.6, 0.9), ("twenty", 0.9, 1.2)))
    clock.heard(words(("dollars", 1.2, 1.6), ("comma", 2.2, 2.6), ("we", 3.0, 3.1)))
    clock.heard(words(("left", 3.1, 3.5)))
    assert clock.time("It costs twenty dollars.") == (0.5, 1.6)
    assert clock.time("We left,") == (3.0, 3.5)  # "comma" became the mark
    assert clock.time("Never said.") is None
    clock.heard(words(("the", 4.0, 4.1), ("u", 4.1, 4.3), ("s", 4.3, 4.5), ("team", 4.5, 4.9)))
    assert clock.time("The US team.") == (4.0, 4.9)  # letters said apart, joined in the text


def test_links_survive_a_restart_and_find_the_sentence_at_the_cursor(tmp_path: Path) -> None:
    folder = tmp_path / "audio"
    links = AudioLinks(folder)
    links.append({"op": "session", "session": "s1"})
    links.append({"op": "link", "session": "s1", "start": 1.0, "end": 2.0, "text": "It costs $25."})
    links.append({"op": "link", "session": "s1", "start": 2.5, "end": 4.0, "text": "We left."})
    links.append({"op": "covered", "session": "s1", "until": 4.2})
    links.close()
    with open(links.path, "ab") as fh:  # a line cut off by a crash, then a good one
        fh.write(encode_record({"op": "link", "session": "s1", "start": 9, "end": 9})[:20])
    more = AudioLinks(folder)
    more.append({"op": "link", "session": "s2", "start": 0.5, "end": 1.5, "text": "Typed later?"})
    restarted = AudioLinks(folder).load()
    assert [k.text for k in restarted.links] == ["It costs $25.", "We left.", "Typed later?"]
    assert restarted.sessions["s1"].covered == 4.2 and not restarted.sessions["s1"].ended
    text = "Notes: it costs $25. We left. I typed this."
    at_cost, at_left = text.index("costs"), text.index("left")
    assert restarted.find(text, at_cost) == [Clip("s1", 1.0 - MARGIN_S, 2.0 + MARGIN_S)]
    assert restarted.find(text, at_left) == [Clip("s1", 2.5 - MARGIN_S, 4.0 + MARGIN_S)]
    assert restarted.find(text, text.index("typed")) == []
    # A selection over both sentences: one stretch of the session's audio.
    assert restarted.find(text, at_cost, at_left + 4) == [Clip("s1", 1.0 - MARGIN_S, 4.15)]
    edited = text.replace("We left.", "We stayed.")
    assert restarted.find(edited, edited.index("stayed")) == []
    assert restarted.last() == [Clip("s2", 0.5 - MARGIN_S, 1.5 + MARGIN_S)]


def test_kept_audio_replaced_by_a_pipe_or_a_link_is_refused_not_read(tmp_path: Path) -> None:
    import os
    import threading

    other = SessionRecorder(tmp_path / "elsewhere", "someone-else")
    other.write(speech(1.0))
    other.close()
    folder = tmp_path / "audio"
    folder.mkdir()
    link, pipe = folder / "linked.flac", folder / "piped.flac"
    link.symlink_to(other.path)  # another recording offered as "the last words you said"
    os.mkfifo(pipe)  # no writer: a read waited for one for ever
    outcomes: dict[str, str] = {}

    def read(path: Path) -> None:
        try:
            read_span(path)
            outcomes[path.name] = "read"
        except OSError as exc:
            outcomes[path.name] = str(exc)

    for path in (link, pipe):
        reader = threading.Thread(target=read, args=(path,), daemon=True)
        reader.start()
        reader.join(60)  # a bound only so that a hang fails the test instead of the run
        assert path.name in outcomes, f"reading {path.name} hangs"
    assert outcomes["linked.flac"] != "read"
    assert "named pipe" in outcomes["piped.flac"] and "not a file" in outcomes["piped.flac"]
    np.testing.assert_array_equal(read_span(other.path), speech(1.0))  # a real one still reads


def test_links_far_over_their_bound_are_read_from_their_newest_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dictate.editing import audio_links

    folder = tmp_path / "audio"
    links = AudioLinks(folder)
    for number in range(400):
        links.append({"op": "link", "session": "s1", "start": number, "end": number + 0.5,
                      "text": f"Sentence {number}."})  # fmt: skip
    links.close()
    monkeypatch.setattr(audio_links, "MAX_BYTES", 4000)
    restarted = AudioLinks(folder).load()
    assert 0 < len(restarted.links) < 60
    assert restarted.links[-1].text == "Sentence 399."
    assert [k.text for k in restarted.links] == [
        f"Sentence {n}." for n in range(400 - len(restarted.links), 400)
    ]
