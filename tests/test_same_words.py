"""The same input gives the same words (issue 49): a real recording transcribed with the default
stages (PocketSphinx, Whisper tiny.en, the vocabulary and its judge, voice commands, the
punctuator, written forms) under different timing gives byte-identical text, subtitles and JSON.

The timings differ on purpose: the second pass slowed down (each decode held a different time,
so the refining thread is idle at other moments and segments queue up behind it), the file read
at the speed it was said (the early decode in a pause then runs, or not, by which thread was
idle), and the file decoded by two recogniser processes. Every decision about the words is made
on the audio's clock, so none of this may change a word or a time.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import pytest
from whisper_marks import needs_tiny

from dictate.audio.capture import FileSource
from dictate.events import Event, Segment
from dictate.timed.transcript import Transcript

RECORDING = Path(__file__).parent / "data" / "real" / "jfk.flac"
"""J. F. Kennedy's "ask not" (11 s, a real recording)."""


class Slowed:
    """The second pass, each decode held a little longer than the last (0 to 0.3 s, in turn):
    what a busy machine does to it. Its words are Whisper's own."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name, self.label = inner.name, inner.label
        self._delays = itertools.cycle([0.0, 0.15, 0.3, 0.05, 0.25])

    def decode(self, segment: Any, prompt: str = "") -> Any:
        time.sleep(next(self._delays))
        return self.inner.decode(segment, prompt)

    def score(self, *args: Any, **kwargs: Any) -> Any:
        time.sleep(next(self._delays))
        return self.inner.score(*args, **kwargs)

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def stages() -> tuple[Any, Any, Any]:
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.punctuation.model import load_punctuation_model

    engine = load_engine("sphinx", None)
    return engine, load_second_pass("auto", engine), load_punctuation_model()


def _transcribe(
    stages: tuple[Any, Any, Any], *, slow: bool = False, realtime: bool = False, workers: int = 1
) -> tuple[list[Any], str, str, str]:
    from dictate.run.assembly import TextOptions, build_file_run
    from dictate.writing.vocabulary import VocabularyEntry

    engine, second, model = stages
    text = TextOptions(
        commands=True,
        written_forms=True,
        # near enough to words said for the vocabulary's judge (Whisper) to be asked
        vocabulary=[VocabularyEntry("Fellowes"), VocabularyEntry("Contra", "country")],
    )
    events: list[Event] = []
    run, _ = build_file_run(
        RECORDING, engine, model, events.append, text, None, Slowed(second) if slow else second,
        workers, commit_after=1.5,
    )  # fmt: skip
    run.run(FileSource(RECORDING, realtime=realtime))
    run.close()
    transcript = Transcript()
    for event in events:
        transcript.add(event)
    said = [[(w.text, w.start, w.end) for w in e.words] for e in events if isinstance(e, Segment)]
    return said, transcript.to_text(), transcript.to_srt(), transcript.to_json()


@needs_tiny
@pytest.mark.slow
@pytest.mark.audio
def test_a_real_recording_gives_the_same_words_however_long_the_stages_take(
    stages: tuple[Any, Any, Any],
) -> None:
    first = _transcribe(stages)
    assert first[0] and "fellow americans" in first[1].lower()
    assert _transcribe(stages, slow=True) == first  # a slow second pass and judge
    assert _transcribe(stages, slow=True, realtime=True) == first  # said live: early decodes
    assert _transcribe(stages, workers=2) == first  # two recogniser processes
