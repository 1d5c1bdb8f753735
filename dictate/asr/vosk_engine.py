"""Vosk (Kaldi) recognition: the default, accurate engine.

Vosk has its own endpointer, which ends an utterance after a short pause and would start a new
result inside our segment. Its Python API (0.3.45) has no setter for the endpointer, so instead
of fighting it we collect every result Vosk finalizes inside a segment and join them: only our
segmenter decides where a segment ends.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dictate.asr.command_decode import VoskCommandDecoder, vosk_has_runtime_grammar
from dictate.asr.engine import Word
from dictate.audio.format import SAMPLE_RATE
from dictate.errors import ModelError

log = logging.getLogger("dictate.asr")

# Bracketed tokens are not words: "[unk]" (out of vocabulary), or the Korean model's "[4]"-style
# markers; they would otherwise reach the text.
_NOT_A_WORD = re.compile(r"^\[.*\]$")


def _words(text: str) -> list[str]:
    return [w for w in text.split() if not _NOT_A_WORD.match(w)]


class VoskEngine:
    """A Vosk model loaded from a directory.

    Raises:
        ModelError: The directory is not a Vosk model or Kaldi cannot load it.
    """

    name = "vosk"  # VOSK.name: dictate.asr.registry imports this module, not the reverse

    def __init__(self, model_path: str | Path) -> None:
        import vosk

        from dictate.store.folders import is_vosk_model_dir

        path = Path(model_path)
        if not is_vosk_model_dir(path):
            raise ModelError(
                f"{path} is not a Vosk model directory (expected am/final.mdl and conf/); "
                "download one with `dictate models download NAME`"
            )
        vosk.SetLogLevel(-1)
        self._model = _load_model(path)
        self.model_path: Path | None = path
        self.label = f"Vosk ({path.name})"

    def recognizer(self) -> VoskRecognizer:
        import vosk

        return VoskRecognizer(vosk.KaldiRecognizer(self._model, SAMPLE_RATE))

    def command_decoder(self, phrases: Sequence[str]) -> VoskCommandDecoder | None:
        """A decoder of short segments against ``phrases`` (the second decode of
        :mod:`dictate.asr.command_decode`); None for a model without runtime grammars."""
        path = self.model_path
        if path is None or not vosk_has_runtime_grammar(path):
            return None
        return VoskCommandDecoder(self._model, phrases)


_last_model: tuple[tuple[str, int], object] | None = None
_last_model_lock = threading.Lock()


def _load_model(path: Path) -> object:
    """Load a Vosk model, reusing the last one loaded if it is the same folder, unchanged.

    A large model takes seconds and hundreds of megabytes; choosing another engine and coming
    back, or a second run, must not load it again. Only the most recent model is kept.
    """
    import vosk

    global _last_model
    key = (str(path.resolve()), (path / "am" / "final.mdl").stat().st_mtime_ns)
    with _last_model_lock:
        if _last_model is not None and _last_model[0] == key:
            return _last_model[1]
        try:
            model = vosk.Model(str(path))
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise ModelError(
                f"Vosk could not load the model in {path} ({exc}); it may be incomplete or "
                "corrupt: remove it and download or import it again"
            ) from None
        _last_model = (key, model)
        return model


class VoskRecognizer:
    """One Kaldi recogniser with word times, decoding our segments one after another."""

    def __init__(self, kaldi: object) -> None:
        self._kaldi = kaldi
        self._kaldi.SetWords(True)  # type: ignore[attr-defined]
        self._offset = 0.0
        self._words: list[Word] = []
        self._partial: list[str] = []
        self._fed = 0  # samples fed since the recogniser was made
        self._segment_base = 0.0  # Vosk's own clock at the start of the current segment
        self.alternatives: list[list[str]] = []
        """Always empty: no other hypotheses are asked of Kaldi (they would change its result's
        form and cost decoding time)."""

    def start(self, time: float) -> None:
        self._kaldi.Reset()  # type: ignore[attr-defined]
        self._offset = time
        self._words = []
        self._partial = []
        # Vosk's word times run on across Reset(): they count every sample ever fed.
        self._segment_base = self._fed / SAMPLE_RATE

    def _collect(self, result_json: str) -> None:
        result = json.loads(result_json)
        for item in result.get("result", []):
            if _NOT_A_WORD.match(item["word"]):
                continue
            shift = self._offset - self._segment_base
            self._words.append(
                Word(
                    item["word"],
                    shift + float(item["start"]),
                    shift + float(item["end"]),
                    float(item.get("conf", 1.0)),
                )
            )

    def accept(self, samples: np.ndarray) -> list[str] | None:
        kaldi = self._kaldi
        data = np.asarray(samples, dtype="<i2").tobytes()
        self._fed += len(samples)
        if kaldi.AcceptWaveform(data):  # type: ignore[attr-defined]
            self._collect(kaldi.Result())  # type: ignore[attr-defined]
            partial: list[str] = []
        else:
            partial = _words(json.loads(kaldi.PartialResult()).get("partial", ""))  # type: ignore[attr-defined]
        words = [w.text for w in self._words] + partial
        if words == self._partial:
            return None
        self._partial = words
        return words

    def finish(self) -> list[Word]:
        self._collect(self._kaldi.FinalResult())  # type: ignore[attr-defined]
        words, self._words, self._partial = self._words, [], []
        return words
