"""The first pass with the user's vocabulary: PocketSphinx gets each entry whose spoken words
its dictionary has as a word of its own (dictate/asr/sphinx_engine.py ``add_vocabulary``), so
the greyed words being spoken show the entry already. Real speech (espeak-ng) through the real
pipeline and the real PocketSphinx model; the tests need espeak-ng and sox and are skipped
with the reason without them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from fake_tagger import FakeTagger

from dictate.asr.sphinx_engine import SphinxEngine, SphinxRecognizer
from dictate.audio.capture import FileSource
from dictate.events import Event, Partial, Segment
from dictate.run.assembly import TextOptions, build_pipeline
from dictate.writing.vocabulary import parse_entry

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None or shutil.which("sox") is None,
    reason="espeak-ng and sox synthesise the speech of these tests (apt install espeak-ng sox)",
)

ENTRIES = [
    parse_entry("TensorRT = tensor r t"),
    parse_entry("Dr. Nguyen = doctor win"),
    parse_entry("metoprolol"),  # not in the dictionary: left to the later passes
    parse_entry("Paris"),  # in the dictionary as it is: nothing to add
]


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("said")
    raw, out = folder / "raw.wav", folder / "said.wav"
    text = "we exported the model to tensor r t today"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(raw), text], check=True)
    subprocess.run(["sox", "-R", "-q", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out),
                    "pad", "0.5", "0.8"], check=True)  # fmt: skip
    return out


def _heard(path: Path, vocabulary: list) -> list[Event]:
    events: list[Event] = []
    # A stand-in punctuator (tests/fake_tagger.py): the words are what is looked at here.
    text = TextOptions(vocabulary=vocabulary)
    built = build_pipeline(SphinxEngine(), FakeTagger(), events.append, text)
    built.pipeline.start(FileSource(path))
    assert built.pipeline.wait(600)  # a hang guard, not a speed limit
    return events


def test_only_entries_whose_words_the_dictionary_has_are_added() -> None:
    recognizer = SphinxRecognizer()
    assert recognizer.add_vocabulary(ENTRIES) == 2
    assert recognizer.add_vocabulary(ENTRIES) == 0  # once
    assert recognizer._words(["ask", "Dr._Nguyen", "now"]) == ["ask", "Dr.", "Nguyen", "now"]


@pytest.mark.parametrize("with_words", [True, False])
def test_the_first_pass_writes_an_entry_said_as_it_sounds(speech: Path, with_words: bool) -> None:
    events = _heard(speech, ENTRIES if with_words else [])
    segments = [e for e in events if isinstance(e, Segment)]
    # The refiners ran after it (the vocabulary's rewrite): the first pass's own words are
    # the settled words where nothing replaced them, else ``first_pass``.
    first = [w.text for s in segments for w in (s.first_pass or s.words)]
    partial = [w for e in events if isinstance(e, Partial) for w in e.words or []]
    assert ("TensorRT" in first) is with_words, first
    assert ("TensorRT" in partial) is with_words, partial  # greyed as it is spoken


@pytest.mark.slow
@pytest.mark.parametrize("with_words", [True, False])
def test_a_files_worker_processes_get_the_vocabulary_too(speech: Path, with_words: bool) -> None:
    """``transcribe --workers 2``: the file's segments are decoded in worker processes, each
    with its own PocketSphinx, given the entries as the pipeline's is."""
    from dictate.run.assembly import build_file_run

    events: list[Event] = []
    text = TextOptions(vocabulary=ENTRIES if with_words else [])
    build_file_run(speech, SphinxEngine(), FakeTagger(), events.append, text, workers=2)[0].run()
    first = [w.text for e in events if isinstance(e, Segment) for w in (e.first_pass or e.words)]
    assert first and ("TensorRT" in first) is with_words, first


@pytest.mark.slow
@pytest.mark.parametrize("with_words", [True, False])
def test_the_windows_child_process_recogniser_gets_the_vocabulary_too(
    speech: Path, with_words: bool
) -> None:
    """The window runs PocketSphinx in a child process (:mod:`dictate.asr.process_engine`);
    its recogniser took no vocabulary before, so the window's first pass never wrote an entry
    that ``transcribe``'s did. It is given the entries as the in-process one is."""
    from dictate.asr.process_engine import ProcessEngine

    engine = ProcessEngine("sphinx")
    events: list[Event] = []
    built = build_pipeline(engine, FakeTagger(), events.append,
                           TextOptions(vocabulary=ENTRIES if with_words else []))  # fmt: skip
    try:
        built.pipeline.start(FileSource(speech))
        assert built.pipeline.wait(600)  # a hang guard, not a speed limit
    finally:
        built.pipeline.close()
        engine.close()
    first = [w.text for e in events if isinstance(e, Segment) for w in (e.first_pass or e.words)]
    assert first and ("TensorRT" in first) is with_words, first
