"""The one pipeline factory (:func:`dictate.run.assembly.build_pipeline`): the window, ``dictate
transcribe`` and ``dictate bench pipeline`` get the same choices from it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_tagger import FakeTagger

from dictate.events import Event, Finalized
from dictate.punctuation.baseline import SegmentPunctuator
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.run.assembly import TextOptions, build_pipeline


@dataclass
class NamedEngine:
    """The factory reads only a recogniser's name and model folder (its language); a stand-in
    that recognises nothing is enough here. The real Korean model, end to end, is in
    tests/asr/test_language.py (slow)."""

    name: str
    model_path: Path | None
    label: str = "test engine"

    def recognizer(self) -> Any:
        return object()


def test_english_words_are_punctuated_written_and_commanded() -> None:
    built = build_pipeline(
        NamedEngine("sphinx", None),
        FakeTagger(),
        lambda event: None,
        TextOptions(commands=True, written_forms=True),
        commit_after=1.5,
    )
    assert built.punctuation_off == ""
    pipeline = built.pipeline
    assert isinstance(pipeline.punctuator, StreamingPunctuator)
    assert pipeline.text.commands and pipeline.text.writer is not None
    assert pipeline.text.writer("it cost twenty five dollars") == "it cost $25"
    assert pipeline.commit_after == 1.5


def test_another_language_is_left_as_recognised(tmp_path: Path) -> None:
    korean = tmp_path / "vosk-model-small-ko-0.22"
    korean.mkdir()
    built = build_pipeline(
        NamedEngine("vosk", korean),
        FakeTagger(),
        lambda event: None,
        TextOptions(
            commands=True, written_forms=True, replacements=[{"spoken": "a", "written": "b"}]
        ),
    )
    assert "Korean" in built.punctuation_off
    pipeline = built.pipeline
    # Punctuation, written forms, replacements and voice commands are all English: all off.
    assert pipeline.punctuator is None
    assert not pipeline.text.commands and pipeline.text.writer is None


def test_the_mode_and_the_defaults() -> None:
    events: list[Event] = []
    built = build_pipeline(
        NamedEngine("sphinx", None), FakeTagger(), events.append, TextOptions(mode="baseline")
    )
    pipeline = built.pipeline
    assert isinstance(pipeline.punctuator, SegmentPunctuator)
    assert not pipeline.text.commands and pipeline.text.writer is None  # off unless asked
    pipeline.text.segment(1, ["hello", "there"])
    pipeline.text.finish(1)
    assert [e.text for e in events if isinstance(e, Finalized)] == ["Hello there."]


def test_the_command_checks_second_decode_can_be_turned_off() -> None:
    """``build_pipeline(..., command_decode=False)`` (the commands benchmark's "off"): the
    command check runs without the second decode; the option goes to the sink, not the
    pipeline."""
    from dictate.seam.command_refiner import CommandRefiner

    class Decoding(NamedEngine):
        def command_decoder(self, phrases: list[str]) -> object:
            return object()

    engine = Decoding("sphinx", None)
    text = TextOptions(commands=True)
    on = build_pipeline(engine, FakeTagger(), lambda e: None, text).pipeline
    off = build_pipeline(engine, FakeTagger(), lambda e: None, text, command_decode=False).pipeline
    assert [type(r) for r in on.refiners] == [CommandRefiner]
    assert off.refiners == [] and off.text.commands
