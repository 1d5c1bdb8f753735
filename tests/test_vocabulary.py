"""The user's vocabulary (dictate/writing/vocabulary.py): its file (checksummed, written whole and
renamed, private, read around damage, whole after kill -9 during an edit), its plain-text form,
the command line, and the near-miss rewrite (dictate/writing/vocabulary_match.py,
dictate/seam/vocabulary.py's VocabularyRefiner) with the words it rewrote kept for "correct
that"."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dictate.asr.engine import Word
from dictate.cli import main
from dictate.seam.second_pass import SecondPassRefiner
from dictate.seam.segment import ClosedSegment, settle
from dictate.seam.vocabulary import VocabularyRefiner
from dictate.writing.vocabulary import (
    VocabularyEntry,
    VocabularyFile,
    format_text,
    parse_entry,
    parse_text,
)
from dictate.writing.vocabulary_match import VocabularyMatcher

ENTRIES = [
    parse_entry("metoprolol"),
    parse_entry("TensorRT = tensor r t"),
    parse_entry("Dr. Nguyen = doctor win"),
    parse_entry("Kubernetes"),
    parse_entry("Ava"),
]


def test_an_entry_is_its_written_form_and_how_it_sounds() -> None:
    entry = parse_entry("  TensorRT =  Tensor  R T ")
    assert entry == VocabularyEntry("TensorRT", "tensor r t")
    assert entry.spoken == ["tensor", "r", "t"] and entry.line() == "TensorRT = tensor r t"
    assert parse_entry("Dr. Nguyen").spoken == ["dr", "nguyen"]
    assert parse_entry("E=mc2 = e equals m c squared").written == "E=mc2"
    for bad, why in (
        ("", "as it is written"),
        (" = sounds", "as it is written"),
        ("...", "letter or digit"),
        ("a\tb", "one line"),
        ("x" * 101, "at most 100"),
        # `vocabulary add 'Xochitl = so cheel' 'Tadhg = tyge'` once made one entry of both
        ("Xochitl = so cheel Tadhg = tyge", "one entry has one ' = '"),
    ):
        with pytest.raises(ValueError, match=why):
            parse_entry(bad)


def test_the_plain_text_form_round_trips_and_names_the_lines_refused() -> None:
    text = "# my words\nTensorRT = tensor r t\n\n = nothing\nmetoprolol\n"
    entries, problems = parse_text(text)
    assert [e.written for e in entries] == ["TensorRT", "metoprolol"]
    assert problems == ["line 4: an entry needs the word or phrase as it is written"]
    assert parse_text(format_text(entries)) == (entries, [])


def test_the_file_is_private_checksummed_and_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "data" / "vocabulary.jsonl"
    vocabulary = VocabularyFile(path)
    assert vocabulary.entries == []
    assert vocabulary.add(ENTRIES[:2]) == (2, 0)
    assert vocabulary.add([parse_entry("TensorRT = tensor rt"), ENTRIES[0]]) == (0, 1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    again = VocabularyFile(path)
    assert again.entries == [ENTRIES[0], parse_entry("TensorRT = tensor rt")]
    assert again.remove("TensorRT") and not again.remove("TensorRT")
    assert VocabularyFile(path).entries == [ENTRIES[0]]
    assert [p.name for p in path.parent.iterdir()] == ["vocabulary.jsonl"]  # no temporary left


def test_a_damaged_line_is_put_back_or_skipped_never_the_others(tmp_path: Path) -> None:
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add(ENTRIES)
    lines = path.read_bytes().splitlines(keepends=True)
    one = bytearray(lines[1])
    one[15] ^= 0x20  # one byte of the JSON changed: its checksum says which and what it held
    two = bytearray(lines[2])
    two[12] ^= 0x01
    two[20] ^= 0x01  # two bytes: skipped
    path.write_bytes(lines[0] + bytes(one) + bytes(two) + b"".join(lines[3:]))
    read = VocabularyFile(path)
    assert read.repaired == 1 and read.damaged == 1
    assert read.entries == [ENTRIES[0], ENTRIES[1], ENTRIES[3], ENTRIES[4]]


_EDITOR = """
import sys
from pathlib import Path
from dictate.writing.vocabulary import VocabularyFile, parse_entry
path = Path(sys.argv[1])
print("ready", flush=True)
n = max((int(e.written[4:]) for e in VocabularyFile(path).entries), default=0)
while True:
    vocabulary = VocabularyFile(path)
    n += 1
    vocabulary.add([parse_entry(f"Term{n} = term {n}")])
    if len(vocabulary.entries) > 40:
        vocabulary.remove(vocabulary.entries[0].written)
"""


def test_the_vocabulary_survives_kill_9_during_an_edit(tmp_path: Path) -> None:
    """A process adding and removing entries as fast as it can is killed at random moments;
    each time the file reads whole (every entry intact, none damaged), holding the entries of
    one moment: each edit's entries in order, nothing half-written."""
    import random

    path = tmp_path / "vocabulary.jsonl"
    rng = random.Random(7)
    seen_counts = set()
    for _ in range(12):
        child = subprocess.Popen(
            [sys.executable, "-c", _EDITOR, str(path)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0.05, 0.4))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        read = VocabularyFile(path)
        assert read.damaged == 0 and read.repaired == 0
        numbers = [int(e.written[4:]) for e in read.entries]
        assert numbers == sorted(numbers) and len(numbers) == len(set(numbers))
        assert all(e.sounds == f"term {n}" for e, n in zip(read.entries, numbers, strict=True))
        seen_counts.add(len(numbers))
        for leftover in path.parent.iterdir():  # the new file a kill cut short, never renamed
            if leftover != path:
                leftover.unlink()
    assert seen_counts  # the editor got to write


@pytest.mark.parametrize(
    ("heard", "written"),
    [
        ("i take meta pro lol daily", "i take metoprolol daily"),
        ("i take metoprolo twice", "i take metoprolol twice"),
        ("we use tensor rt now", "we use TensorRT now"),
        ("ask doctor when about it", "ask Dr. Nguyen about it"),
        ("the kubernetes cluster", "the Kubernetes cluster"),
        ("ava said so", "Ava said so"),
        # not the entries: decoys, parts of entries, a short entry heard inside other words
        ("the communities cluster", "the communities cluster"),
        ("the metropolitan area", "the metropolitan area"),
        ("the tensor is big", "the tensor is big"),
        ("doctor newman said so", "doctor newman said so"),
        ("i have a dog", "i have a dog"),
    ],
)
def test_near_misses_are_rewritten_and_other_words_are_not(heard: str, written: str) -> None:
    assert " ".join(VocabularyMatcher(ENTRIES).rewrite(heard.split())) == written


def _segment(words: list[str]) -> ClosedSegment:
    timed = [Word(w, 1.0 + i, 1.5 + i, 0.9) for i, w in enumerate(words)]
    return ClosedSegment(1, 1.0, 1.0 + len(words), "silence", timed)


def test_the_rewrite_keeps_what_was_heard_for_correct_that() -> None:
    segment = _segment("ask doctor when about it".split())
    settled = settle(segment, [VocabularyRefiner(VocabularyMatcher(ENTRIES))])
    assert [w.text for w in settled.words] == ["ask", "Dr.", "Nguyen", "about", "it"]
    assert settled.by == "vocabulary"
    assert settled.alternatives == [["ask", "doctor", "when", "about", "it"]]
    # The entry's words take the time of the words they replace.
    assert (settled.words[1].start, settled.words[2].end) == (2.0, 3.5)
    event = settled.event(0.0)
    assert event.first_pass is not None and [w.text for w in event.first_pass][1:3] == [
        "doctor",
        "when",
    ]
    untouched = settle(_segment(["hello"]), [VocabularyRefiner(VocabularyMatcher(ENTRIES))])
    assert untouched.by == "" and untouched.alternatives == []


class _Whisper:
    """A second pass that writes what the test says (its real model is tested in
    tests/test_whisper_vocabulary.py where tiny.en is installed)."""

    name = "whisper"

    def __init__(self, words: list[str]) -> None:
        self.words = words

    def decode(self, segment: ClosedSegment, prompt: str) -> object:
        from dictate.asr.whisper_engine import SecondPassResult

        return SecondPassResult([Word(w, 1.0, 2.0) for w in self.words], "speech")

    def close(self) -> None:
        pass


def test_after_a_second_pass_both_earlier_hypotheses_are_alternatives() -> None:
    import numpy as np

    segment = _segment(["take", "meadow", "pearl", "daily"])
    segment.audio = np.zeros(16000, np.int16)
    settled = settle(
        segment,
        [
            SecondPassRefiner(_Whisper(["take", "metoprolo", "daily"])),
            VocabularyRefiner(VocabularyMatcher(ENTRIES)),
        ],
    )
    assert [w.text for w in settled.words] == ["take", "metoprolol", "daily"]
    assert settled.alternatives == [
        ["take", "metoprolo", "daily"],
        ["take", "meadow", "pearl", "daily"],
    ]


def _cli(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    from dictate.cli.common import Streams

    out, err = io.StringIO(), io.StringIO()
    from dictate.cli import build_parser

    parsed = build_parser().parse_args(list(args))
    try:
        code = parsed.func(parsed, Streams(out, err, io.BytesIO(stdin)))
    except Exception as exc:  # InputError: what main prints
        return 2, out.getvalue(), err.getvalue() + str(exc)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert _cli("vocabulary", "add", "TensorRT", "=", "tensor", "r", "t")[0] == 0
    assert _cli("vocabulary", "add", "metoprolol")[2] == "dictate: added metoprolol\n"
    assert _cli("vocabulary", "list")[1] == "TensorRT = tensor r t\nmetoprolol\n"
    code, _, err = _cli("vocabulary", "import", "-", stdin=b"Kubernetes\n = x\nAva\n")
    assert code == 0 and "line 2" in err and "2 added, 0 updated" in err
    export = tmp_path / "words.txt"
    assert _cli("vocabulary", "export", str(export))[0] == 0
    assert export.read_text() == "TensorRT = tensor r t\nmetoprolol\nKubernetes\nAva\n"
    assert _cli("vocabulary", "remove", "Ava")[0] == 0
    code, _, err = _cli("vocabulary", "remove", "Ava")
    assert code == 2 and "is not in the vocabulary" in err
    code, _, err = _cli("vocabulary", "import", str(tmp_path / "missing.txt"))
    assert code == 2 and "cannot read" in err and "missing.txt" in err
    # The real command, as a user runs it: one clear line and exit 2 for a bad entry.
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "vocabulary", "add", "..."],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")},
        timeout=600,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "letter or digit" in done.stderr
    assert main(["vocabulary", "list"]) == 0


class _Scripted:
    """A second pass that answers each decode with the next of the test's answers and records
    its prompts (the real model is tested in tests/asr/test_whisper_engine.py where tiny.en is
    installed)."""

    name = "whisper"

    def __init__(self, *answers: tuple[str, float] | tuple[str, float, str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def decode(self, segment: ClosedSegment, prompt: str) -> object:
        from dictate.asr.whisper_engine import SecondPassResult

        self.prompts.append(prompt)
        text, no_speech, *verdict = self.answers.pop(0)
        words = [Word(w, 1.0, 2.0) for w in text.split()]
        result = SecondPassResult(words, verdict[0] if verdict else "speech")
        result.no_speech_prob = no_speech
        return result

    def close(self) -> None:
        pass


def test_the_entries_a_decode_came_near_and_when_a_second_decode_may_be_taken() -> None:
    from dictate.writing.vocabulary_match import only_entries_changed

    matcher = VocabularyMatcher(ENTRIES)
    assert matcher.candidates("we take meta pro lol daily".split())[0].written == "metoprolol"
    assert "metoprolol" not in [e.written for e in matcher.candidates(["metoprolol", "daily"])]
    assert matcher.candidates("the weather is nice today".split()) == []
    named = [ENTRIES[0]]
    heard = "take meta pro lol daily".split()
    assert only_entries_changed(heard, "take Metoprolol, daily.".split(), named)
    assert not only_entries_changed(heard, "take metoprolol weekly".split(), named)  # another word
    assert not only_entries_changed(["take", "daily"], "take metoprolol daily".split(), named)
    assert not only_entries_changed(heard, "take daily".split(), named)  # words dropped
    assert not only_entries_changed(heard, heard, named)  # nothing to take


def test_a_segment_near_an_entry_is_decoded_again_with_it_named() -> None:
    import numpy as np

    segment = _segment(["mm"])
    segment.audio = np.zeros(16000, np.int16)
    matcher = VocabularyMatcher(ENTRIES)
    whisper = _Scripted(("I take meta pro lol daily.", 0.05), ("I take metoprolol daily.", 0.05))
    settled = settle(segment, [SecondPassRefiner(whisper, vocabulary=matcher)])
    assert [w.text for w in settled.words] == ["I", "take", "metoprolol", "daily."]
    assert whisper.prompts[0] == "" and whisper.prompts[1].startswith("metoprolol")
    # The second decode changed another word too: the first decode's words stay.
    other = _Scripted(("I take meta pro lol daily.", 0.05), ("I make metoprolol daily.", 0.05))
    settled = settle(segment, [SecondPassRefiner(other, vocabulary=matcher)])
    assert [w.text for w in settled.words] == ["I", "take", "meta", "pro", "lol", "daily."]
    # Nothing near an entry: no second decode.
    plain = _Scripted(("The weather is nice.", 0.05))
    settle(segment, [SecondPassRefiner(plain, vocabulary=matcher)])
    assert plain.prompts == [""]


def test_an_unsure_decode_near_an_entry_is_settled_by_naming_it() -> None:
    """Whisper unsure of a segment because of a name it does not know: decoded again with the
    entry named, its sure words are taken where only the entry changed; otherwise the first
    pass's words stay, as for any unsure decode."""
    import numpy as np

    segment = _segment(["i", "take", "metro", "daily"])
    segment.audio = np.zeros(16000, np.int16)
    matcher = VocabularyMatcher(ENTRIES)
    settles = _Scripted(("I take meta pro lol daily.", 0.05, "unsure"),
                        ("I take metoprolol daily.", 0.05))  # fmt: skip
    settled = settle(segment, [SecondPassRefiner(settles, vocabulary=matcher)])
    assert [w.text for w in settled.words] == ["I", "take", "metoprolol", "daily."]
    for second in (("I take metoprolol daily.", 0.05, "unsure"),  # still unsure
                   ("I make metoprolol daily.", 0.05)):  # another word changed  # fmt: skip
        kept = _Scripted(("I take meta pro lol daily.", 0.05, "unsure"), second)
        settled = settle(segment, [SecondPassRefiner(kept, vocabulary=matcher)])
        assert [w.text for w in settled.words] == ["i", "take", "metro", "daily"]
    # A decode that repeats itself is not decoded again; nor is an unsure one far from entries.
    for first in (
        ("I take meta pro lol daily.", 0.05, "repeats"),
        ("The weather is nice.", 0.05, "unsure"),
    ):
        alone = _Scripted(first)
        settled = settle(segment, [SecondPassRefiner(alone, vocabulary=matcher)])
        assert alone.prompts == [""] and [w.text for w in settled.words][1] == "take"


def test_only_the_named_words_on_a_doubtful_segment_are_not_written() -> None:
    import numpy as np

    segment = _segment(["mm"])
    segment.audio = np.zeros(16000, np.int16)
    matcher = VocabularyMatcher(ENTRIES)
    doubtful = _Scripted(("Cooper Nettie's.", 0.5), ("Kubernetes.", 0.5))
    settled = settle(segment, [SecondPassRefiner(doubtful, vocabulary=matcher)])
    assert [w.text for w in settled.words] == ["Cooper", "Nettie's."]
    sure = _Scripted(("Cooper Nettie's.", 0.05), ("Kubernetes.", 0.05))
    settled = settle(segment, [SecondPassRefiner(sure, vocabulary=matcher)])
    assert [w.text for w in settled.words] == ["Kubernetes."]


def test_an_entry_with_a_sounds_like_is_matched_by_its_written_form_too() -> None:
    """A recogniser that knows a name writes a spelling near it ("Siobhann"), one that does
    not writes what it sounds like ("shiv on"): both are the entry."""
    matcher = VocabularyMatcher([parse_entry("Siobhan = shiv on")])
    assert matcher.rewrite("i sent it to siobhann today".split())[4] == "Siobhan"
    assert matcher.rewrite("i sent it to shiv on today".split())[4] == "Siobhan"
    assert matcher.rewrite("i sent it to susan today".split())[4] == "susan"
    assert matcher.candidates("i sent it to siobhann today".split()) == [
        parse_entry("Siobhan = shiv on")
    ]


def test_a_near_miss_of_a_sounds_like_keeps_one_of_its_words() -> None:
    """ "week in" is near "wah keen" by letters and sound key, but a near miss of a sounds-like
    must keep one of its words ("doctor when" for "doctor win" does): found as a false
    rewrite in the benchmark ("We spent a Joaquin Rochester")."""
    matcher = VocabularyMatcher([parse_entry("Joaquin = wah keen")])
    assert matcher.rewrite("we spent a week in rochester".split()) == (
        "we spent a week in rochester".split()
    )
    assert matcher.rewrite("tell wah keen now".split()) == ["tell", "Joaquin", "now"]
    assert matcher.rewrite("tell wa keen now".split()) == ["tell", "Joaquin", "now"]


def test_a_near_miss_of_a_sounds_like_keeps_most_of_its_letters() -> None:
    """espeak-ng's "He posted the news on LinkedIn today." came back from Whisper as "...the new
    on linkedin...", and "new on" was taken for "Nguyen = new win" because it kept "new": a
    common word that is half the sounds-like is not enough."""
    entries = ["Dr. Nguyen = doctor win", "Nguyen = new win", "LinkedIn"]
    matcher = VocabularyMatcher([parse_entry(e) for e in entries])
    assert matcher.rewrite("he posted the new on linkedin today".split()) == (
        "he posted the new on LinkedIn today".split()
    )
    assert matcher.rewrite("ask doctor when about it".split()) == [
        "ask",
        "Dr.",
        "Nguyen",
        "about",
        "it",
    ]
    assert matcher.rewrite("ask new win about it".split()) == ["ask", "Nguyen", "about", "it"]


def test_letters_spelled_in_a_sounds_like_are_matched_by_their_names_too() -> None:
    """Whisper tiny.en wrote espeak-ng's "tensor r t" as "tensor our tea" in a window sized to
    the audio: the letters' names ("tensor ar tee") are a form of the entry too, whose near
    miss must keep one of its words; they do not make ordinary words an entry."""
    matcher = VocabularyMatcher([*ENTRIES, parse_entry("AWS = a w s")])
    assert matcher.rewrite("we exported it to tensor our tea today".split())[4:] == [
        "TensorRT",
        "today",
    ]
    assert matcher.rewrite("we host on a double you ess now".split())[3:] == ["AWS", "now"]
    for other in ("he had tea for an hour today", "the tensor is our tea", "is nice today"):
        assert matcher.rewrite(other.split()) == other.split()
    assert matcher.candidates("the weather is nice today".split()) == []
