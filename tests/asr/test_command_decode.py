"""The second decode of short segments against the command phrases (dictate.asr.command_decode).

Real speech is synthesised at test time with flite (installed in CI) and resampled with sox;
the tests that need them are skipped with the reason when they are absent.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dictate.asr.command_decode import CommandDecode, SphinxCommandDecoder
from dictate.asr.engine import Word
from dictate.asr.registry import ENGINES, Abilities, EngineSpec
from dictate.asr.sphinx_engine import SphinxEngine
from dictate.audio.capture import FileSource
from dictate.commands.table import grammar_phrases
from dictate.events import Event, Finalized, Pending, Segment
from dictate.run.assembly import make_pipeline
from dictate.run.pipeline import Pipeline
from dictate.seam.command_refiner import CommandRefiner

RATE = 16000

needs_flite = pytest.mark.skipif(
    shutil.which("flite") is None or shutil.which("sox") is None,
    reason="flite and sox synthesise the speech of these tests (apt install flite sox)",
)


def say(text: str, voice: str, tmp: Path) -> np.ndarray:
    """``text`` in flite's ``voice`` as 16 kHz mono int16 samples."""
    raw, out = tmp / "raw.wav", tmp / "out.wav"
    subprocess.run(["flite", "-voice", voice, "-t", text, "-o", str(raw)], check=True)
    subprocess.run(
        ["sox", "-R", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)], check=True
    )
    with wave.open(str(out), "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").copy()


def silence(seconds: float) -> np.ndarray:
    return np.zeros(round(seconds * RATE), dtype=np.int16)


def said_apart(samples: np.ndarray) -> np.ndarray:
    """A segment as the segmenter cuts it: pre-roll silence, the phrase, trailing silence."""
    return np.concatenate([silence(0.3), samples, silence(0.5)])


def write(path: Path, samples: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(RATE)
        f.writeframes(samples.astype("<i2").tobytes())
    return path


@pytest.fixture(scope="module")
def decoder() -> SphinxCommandDecoder:
    return SphinxCommandDecoder(grammar_phrases())


@pytest.fixture(scope="module")
def sphinx() -> SphinxEngine:
    return SphinxEngine()


def test_every_phrase_is_in_the_grammar(decoder: SphinxCommandDecoder) -> None:
    # Words the dictionary lacks are spelled: "paren", "newline", "semicolon".
    assert set(decoder.phrases) == set(grammar_phrases())


def test_a_phrase_that_cannot_be_spelled_is_left_out() -> None:
    decoder = SphinxCommandDecoder(["comma", "zxqv blorp"])
    assert decoder.phrases == ["comma"]


@pytest.mark.slow
@needs_flite
def test_a_misheard_command_said_apart_is_decoded_as_the_command(
    decoder: SphinxCommandDecoder, sphinx: SphinxEngine, tmp_path: Path
) -> None:
    audio = said_apart(say("end quote", "slt", tmp_path))
    recognizer = sphinx.recognizer()  # the free decode mishears it ("and glad")
    recognizer.start(0.0)
    recognizer.accept(audio)
    assert [w.text for w in recognizer.finish()] != ["end", "quote"]
    result = decoder.decode(audio)
    assert result.phrase == "end quote"
    assert result.accepted, result


@pytest.mark.slow
@needs_flite
@pytest.mark.parametrize(("text", "voice"), [("calm down", "awb"), ("killing time", "kal16")])
def test_an_ordinary_short_phrase_is_not_taken_for_a_command(
    decoder: SphinxCommandDecoder, text: str, voice: str, tmp_path: Path
) -> None:
    result = decoder.decode(said_apart(say(text, voice, tmp_path)))
    assert not result.accepted, result


def run(pipeline: Pipeline, path: Path) -> tuple[str, list[list[str]]]:
    """The text (finalized and pending) and each segment's words as the first pass heard
    them."""
    events: list[Event] = []
    pipeline.sink.on_event = events.append
    pipeline.run(FileSource(path))
    text, pending = "", ""
    for event in events:
        if isinstance(event, Finalized):
            text += " " + event.text
        elif isinstance(event, Pending):
            pending = event.text
    heard = [[w.text for w in (e.first_pass or e.words)] for e in events if isinstance(e, Segment)]
    return f"{text} {pending}".strip(), heard


@pytest.fixture(scope="module")
def close_paren_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("flite") is None or shutil.which("sox") is None:
        pytest.skip("flite and sox synthesise the speech of these tests")
    tmp = tmp_path_factory.mktemp("speech")
    parts = [
        silence(0.4),
        say("the coffee is still hot", "slt", tmp),
        silence(1.0),
        say("end quote", "slt", tmp),
        silence(1.0),
        say("she reads a book every week", "slt", tmp),
        silence(0.4),
    ]
    return write(tmp / "close_paren.wav", np.concatenate(parts))


@pytest.mark.slow
def test_the_pipeline_carries_out_the_command_the_second_decode_hears(
    sphinx: SphinxEngine, close_paren_file: Path
) -> None:
    pipeline = make_pipeline(sphinx, None, lambda e: None, commands=True, stop_command=False)
    assert pipeline.command_decoder is not None  # on by default with commands
    text, heard = run(pipeline, close_paren_file)
    assert ["end", "quote"] not in heard  # the free decode got it wrong...
    assert "\u201d" in text  # ...and the mark was written, with no stray words
    assert "glad" not in text.lower()


@pytest.mark.slow
def test_with_the_second_decode_off_the_pipeline_behaves_as_before(
    sphinx: SphinxEngine, close_paren_file: Path
) -> None:
    pipeline = make_pipeline(
        sphinx, None, lambda e: None, commands=True, stop_command=False, command_decode=False
    )
    assert pipeline.command_decoder is None
    text, heard = run(pipeline, close_paren_file)
    assert " ".join(heard[1]) in text  # the words as heard, as before
    assert "\u201d" not in text


class Spy:
    """A command decoder that records what it is asked and always hears "comma"."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def decode(self, samples: np.ndarray, heard: Sequence[str] = ()) -> CommandDecode:
        self.calls.append(len(samples))
        return CommandDecode("comma", True, 0.0, 10)


@pytest.mark.slow
@needs_flite
def test_a_long_segment_is_not_decoded_again(sphinx: SphinxEngine, tmp_path: Path) -> None:
    sentence = "the children played in the garden and then they walked along the river to town"
    speech = say(sentence, "kal", tmp_path)
    assert len(speech) > 3.5 * RATE
    path = write(tmp_path / "long.wav", np.concatenate([silence(0.4), speech, silence(0.6)]))
    pipeline = make_pipeline(sphinx, None, lambda e: None, commands=True)
    spy = Spy()
    pipeline.refiners = [CommandRefiner(spy)]
    text, _ = run(pipeline, path)
    assert spy.calls == []
    assert "," not in text


class OneSegmentEngine:
    """Hears ``words`` in every segment (no audio model); declared in the registry while a
    test runs (:func:`declared`), able to decode commands as the real engines are."""

    name = "fake"
    label = "fake"
    model_path: Path | None = None

    def __init__(self, words: list[str]) -> None:
        self.words = words

    def recognizer(self) -> Any:
        engine = self

        class Recognizer:
            def __init__(self) -> None:
                self.alternatives: list[list[str]] = []

            def start(self, time: float) -> None:
                self.time = time

            def accept(self, samples: np.ndarray) -> None:
                return None

            def finish(self) -> list[Word]:
                return [Word(w, self.time, self.time + 0.3) for w in engine.words]

        return Recognizer()

    def command_decoder(self, phrases: list[str]) -> Spy:
        assert "comma" in phrases
        return Spy()


@pytest.fixture(autouse=True)
def declared(monkeypatch: pytest.MonkeyPatch) -> None:
    """:class:`OneSegmentEngine` in the registry: what an engine can do is read there."""
    fake = EngineSpec(
        OneSegmentEngine.name,
        "A test double",
        ("en",),
        "bundled",
        Abilities(partial_words=True, command_decoder=True),
        lambda options: OneSegmentEngine([]),
    )
    monkeypatch.setitem(ENGINES, fake.name, fake)


class Blocks:
    """A source of ``seconds`` of audio (silence: the fake VAD decides what is speech)."""

    dropped_blocks = 0

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def stop(self) -> None:
        pass

    def blocks(self) -> Any:
        from dictate.audio.capture import AudioBlock

        n = 1600
        for i in range(round(self.seconds * RATE / n)):
            yield AudioBlock(np.zeros(n, dtype=np.int16), i * n / RATE)


def speech_between(start: float, end: float) -> Any:
    """A fake VAD: speech between ``start`` and ``end`` seconds of the stream."""
    count = [0]

    def vad(chunk: np.ndarray) -> float:
        t = count[0] * len(chunk) / RATE
        count[0] += 1
        return 0.9 if start <= t < end else 0.1

    return vad


@pytest.mark.parametrize(
    ("words", "speech_s", "decoded"),
    [
        (["comet"], 1.0, True),  # short, not a command: decoded again, the command wins
        (["comma"], 1.0, False),  # already a command: left alone
        (["a", "b", "c", "d", "e", "f"], 1.0, False),  # too many words
        (["comet"], 3.5, False),  # too long
    ],
)
def test_which_segments_are_decoded_again(words: list[str], speech_s: float, decoded: bool) -> None:
    engine = OneSegmentEngine(words)
    fed: list[list[str]] = []
    pipeline = make_pipeline(
        engine, None, lambda e: None, vad=speech_between(0.5, 0.5 + speech_s), commands=True
    )
    original = pipeline.text.segment

    def record(segment: int, words: Any, pauses: Any = (), rewrites: Any = ()) -> None:
        fed.append([w.text for w in words])
        original(segment, words, pauses, rewrites)

    pipeline.text.segment = record  # type: ignore[method-assign]
    pipeline.run(Blocks(speech_s + 2.0))  # type: ignore[arg-type]
    spy = pipeline.command_decoder
    assert len(spy.calls) == (1 if decoded else 0)
    assert fed == [["comma"] if decoded else words]


@pytest.mark.slow
@needs_flite
def test_the_window_engine_decodes_in_a_child_process(tmp_path: Path) -> None:
    from dictate.asr.process_engine import ProcessEngine

    engine = ProcessEngine("sphinx")
    decoder = engine.command_decoder(grammar_phrases())
    try:
        result = decoder.decode(said_apart(say("end quote", "slt", tmp_path)))
        assert (result.phrase, result.accepted) == ("end quote", True)
    finally:
        decoder.close()
        engine.recognizer().close()


class GuessingEngine(OneSegmentEngine):
    """Hears ``words``, and says it might have been any of ``alternatives``."""

    def __init__(self, words: list[str], alternatives: list[list[str]]) -> None:
        super().__init__(words)
        self.alternatives = alternatives

    def recognizer(self) -> Any:
        recognizer = super().recognizer()
        recognizer.alternatives = self.alternatives
        return recognizer


@pytest.mark.parametrize(
    ("alternatives", "decoded"),
    [
        ([["calm", "up"], ["comma"]], 0),  # a command among them: taken, no second decode
        ([["calm", "up"], ["thank", "you"]], 1),  # none: the second decode decides
    ],
)
def test_a_command_among_the_recognisers_other_guesses_is_taken_first(
    alternatives: list[list[str]], decoded: int
) -> None:
    engine = GuessingEngine(["come", "up"], alternatives)
    events: list[Any] = []
    fed: list[list[str]] = []
    vad = speech_between(0.5, 1.5)
    pipeline = make_pipeline(engine, None, events.append, vad=vad, commands=True)
    original = pipeline.text.segment

    def record(segment: int, words: Any, pauses: Any = (), rewrites: Any = ()) -> None:
        fed.append([w.text for w in words])
        original(segment, words, pauses, rewrites)

    pipeline.text.segment = record  # type: ignore[method-assign]
    pipeline.run(Blocks(3.0))  # type: ignore[arg-type]
    assert fed == [["comma"]]  # from the n-best, or the (fake) second decode
    assert len(pipeline.command_decoder.calls) == decoded
    segments = [e for e in events if type(e).__name__ == "Segment"]
    assert segments[0].alternatives == alternatives  # kept for "correct that"


@pytest.mark.slow
@needs_flite
def test_pocketsphinx_says_what_else_it_heard(sphinx: SphinxEngine, tmp_path: Path) -> None:
    recognizer = sphinx.recognizer()
    recognizer.start(0.0)
    recognizer.accept(said_apart(say("tomorrow morning", "kal16", tmp_path)))
    words = [w.text for w in recognizer.finish()]
    others = recognizer.alternatives
    assert 0 < len(others) <= 40 and words not in others
    assert all(w and not w.startswith(("<", "[", "+")) and "(" not in w for o in others for w in o)
