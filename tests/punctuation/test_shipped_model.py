"""The shipped model (models/punctuator) end to end on a few real sentences.

These are sanity checks of the trained weights through the real runner and decoder, not a
quality measurement (that is `dictate eval`, see docs/punctuation-model.md).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dictate.cli import run
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.model import PunctuationModel
from dictate.punctuation.spans import Span
from dictate.store.resolve import resolve_punctuator_model

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "models" / "punctuator"


@pytest.fixture(scope="module")
def model() -> PunctuationModel:
    return PunctuationModel(SHIPPED, "cpu")


def punctuate(segments: list[str]) -> str:
    stdin = io.BytesIO("\n".join(segments).encode())
    out = io.StringIO()
    assert run(["punctuate", "--model", str(SHIPPED)], stdin=stdin, stdout=out) == 0
    return out.getvalue().strip()


def test_found_without_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DICTATE_PUNCTUATOR_MODEL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # no user-installed model
    assert resolve_punctuator_model() == SHIPPED


def test_files_and_size() -> None:
    config = json.loads((SHIPPED / "config.json").read_text())
    assert config["case_labels"] == ["LOWER", "CAPITALIZED", "ALL_CAPS"]
    total = sum(p.stat().st_size for p in SHIPPED.iterdir())
    assert total < 40 * 1024 * 1024
    assert (SHIPPED / "README.md").is_file()


def test_a_question_gets_a_question_mark() -> None:
    assert punctuate(["what time is it"]).endswith("?")
    assert punctuate(["do you know where the station is"]).endswith("?")


def test_two_sentences_get_one_period_in_the_right_place() -> None:
    text = punctuate(["i bought a new bicycle last week", "it is red and very fast"])
    assert text == "I bought a new bicycle last week. It is red and very fast."


def test_names_are_capitalised() -> None:
    text = punctuate(["my name is john smith and i live in london"])
    assert "John Smith" in text
    assert "London" in text
    assert " I " in text


def test_streaming_over_pauses_keeps_one_sentence(model: PunctuationModel) -> None:
    # A speaker pausing mid-sentence: the pause must not become a sentence end.
    decoder = StreamingPunctuator(model)
    finalized: list[Span] = []
    for segment in [
        "i think that we should",
        "go to the",
        "park tomorrow morning",
        "because the weather will be nice",
    ]:
        finalized += decoder.feed(segment.split()).finalized
    finalized += decoder.flush().finalized
    text = " ".join(s.text for s in finalized)
    assert text.count(".") == 1 and text.endswith("."), text
