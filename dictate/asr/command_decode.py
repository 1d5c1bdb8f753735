"""The second decode: a short segment said apart, decoded again against the command phrases.

A weak recogniser hears a command said on its own as ordinary words ("comma" as "comet",
"scratch that" as "scratch out"), which then land in the text. So the pipeline keeps the audio
of every segment short enough to be a command and, when its words are not already a command,
decodes it a second time against a grammar of the command phrases only. A grammar always
finds *some* phrase, so its answer is accepted only when it explains the audio almost as well as
a free decode does:

* **PocketSphinx** (:class:`SphinxCommandDecoder`): the grammar's best path and a phone loop
  (every phone may follow every other, weighted by the model's phone bigrams: the acoustically
  best free path) decode the same audio; their acoustic scores (PocketSphinx normalises each
  frame by its best senone) are compared per frame of speech. The margin is near zero when the
  phrase is what was said and falls when the grammar had to force a phrase onto other words.
* **Vosk** (:class:`VoskCommandDecoder`): a recogniser restricted to the phrases and
  ``[unk]``; a phrase is accepted when every word of it has a high confidence. Only models with
  runtime grammars (the small ones) can do this; for the others there is no second decode.

The limits and thresholds below were chosen on synthesised speech (several flite and
espeak-ng voices, ``benchmarks/commands_audio.py``; docs/voice-commands.md "Commands heard on
audio" has the measurements).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE
from dictate.edit_distance import edit_distance

log = logging.getLogger("dictate.asr")

MAX_COMMAND_S = 3.0
"""A segment longer than this (seconds, with the segmenter's pre-roll and trailing silence) is
never decoded again: no command takes that long said apart."""
MAX_COMMAND_WORDS = 5
"""Nor a segment the free decode heard as more words than this."""
SPHINX_MARGIN = -1.25
"""PocketSphinx: the least grammar-minus-phone-loop acoustic score per frame of speech (in
PocketSphinx's log units / 1000) for the grammar's phrase to be taken."""
SPHINX_NEAR_MARGIN = -2.0
SPHINX_NEAR_PHONES = 0.7
"""PocketSphinx: a phrase with a margin down to :data:`SPHINX_NEAR_MARGIN` is taken too when
the words the free decode heard sound like it: their phones differ from the phrase's in at most
this share of the phrase's phones ("comet" for "comma", "killian" for "colon"; "thank you" is
far from every command). Replayed on the measured set, this took the README commands said
apart from 43% to 55% carried out with no more false triggers (docs/voice-commands.md)."""
VOSK_CONFIDENCE = 0.9
"""Vosk: the least confidence of every word of the phrase."""

# Words of command phrases that the bundled dictionary lacks ("paren"); compounds such as
# "newline" and "semicolon" are spelled from their parts.
_EXTRA_PRONUNCIATIONS = {"paren": "P ER EH N"}
_FILLERS = ("<s>", "</s>", "<sil>", "[NOISE]", "SIL", "+SPN+", "+NSN+")


@dataclass(frozen=True)
class CommandDecode:
    """The second decode's answer for one segment.

    Attributes:
        phrase: The grammar's best phrase ("" when it found none).
        accepted: Whether ``phrase`` is taken as what was said.
        margin: The score it was judged by (PocketSphinx: the acoustic margin per frame of
            speech; Vosk: the lowest word confidence).
        frames: Frames of speech in the grammar's path (10 ms each; 0 for Vosk).
    """

    phrase: str
    accepted: bool
    margin: float
    frames: int = 0


def _log_score(segments: Sequence[Any]) -> tuple[float, int]:
    """The summed acoustic log score of a path (times 1000, for readable numbers) and its frames of
    speech (not silence or fillers)."""
    total, speech = 0.0, 0
    for seg in segments:
        total += 1000 * math.log(max(seg.ascore, 1e-300))
        if seg.word not in _FILLERS and not seg.word.startswith("++"):
            speech += seg.end_frame - seg.start_frame + 1
    return total, speech


class SphinxCommandDecoder:
    """PocketSphinx against the command phrases, judged against a phone loop.

    Args:
        phrases: The command phrases (lower case). A phrase with a word the dictionary cannot
            spell is left out (and logged).
        margin: The acceptance threshold (:data:`SPHINX_MARGIN`).
    """

    def __init__(self, phrases: Sequence[str], margin: float = SPHINX_MARGIN) -> None:
        from pocketsphinx import Decoder, get_model_path

        self.margin = margin
        self._decoder = Decoder(
            samprate=SAMPLE_RATE, loglevel="FATAL", fwdflat=False, bestpath=False
        )
        self.phrases = self._spell(phrases)
        if not self.phrases:
            raise ValueError("no command phrase can be spelled with the dictionary")
        alternatives = " | ".join(self.phrases)
        self._decoder.add_jsgf_string(
            "commands", f"#JSGF V1.0;\ngrammar commands;\npublic <command> = {alternatives};\n"
        )
        self._decoder.add_allphone_file(
            "phones", str(Path(get_model_path()) / "en-us" / "en-us-phone.lm.bin")
        )

    def _spell(self, phrases: Sequence[str]) -> list[str]:
        lookup = self._decoder.lookup_word
        kept = []
        for phrase in dict.fromkeys(p.lower().strip() for p in phrases):
            words = phrase.split()
            spelled = [
                lookup(w) or _EXTRA_PRONUNCIATIONS.get(w) or _compound(lookup, w) for w in words
            ]
            if not words or not all(spelled):
                log.info("command phrase %r left out of the grammar: not in the dictionary", phrase)
                continue
            for word, phones in zip(words, spelled, strict=True):
                if not lookup(word):
                    self._decoder.add_word(word, phones, True)
            kept.append(phrase)
        return kept

    def _decode(self, search: str, audio: bytes) -> tuple[str, list[Any]]:
        decoder = self._decoder
        decoder.activate_search(search)
        decoder.start_utt()
        decoder.process_raw(audio, False, True)
        decoder.end_utt()
        hyp = decoder.hyp()
        return (hyp.hypstr if hyp is not None else ""), list(decoder.seg() or ())

    def decode(self, samples: np.ndarray, heard: Sequence[str] = ()) -> CommandDecode:
        """Decode 16 kHz int16 ``samples`` (one segment, whose words the free decode ``heard``)
        against the phrases."""
        audio = np.asarray(samples, dtype="<i2").tobytes()
        phrase, path = self._decode("commands", audio)
        phrase = " ".join(phrase.split())
        if phrase not in self.phrases:  # no path reached the grammar's end
            return CommandDecode("", False, -math.inf)
        _, loop = self._decode("phones", audio)
        grammar_score, speech = _log_score(path)
        loop_score, _ = _log_score(loop)
        margin = (grammar_score - loop_score) / max(1, speech)
        near = margin >= SPHINX_NEAR_MARGIN and self.sounds_like(heard, phrase)
        return CommandDecode(phrase, margin >= self.margin or near, margin, speech)

    def sounds_like(self, heard: Sequence[str], phrase: str) -> bool:
        """Whether the words ``heard`` sound like ``phrase``: their phones (from the
        dictionary) differ in at most :data:`SPHINX_NEAR_PHONES` of the phrase's."""
        target = self._phones(phrase.split())
        said = self._phones(heard)
        if not target or not said:
            return False
        return edit_distance(said, target) <= SPHINX_NEAR_PHONES * len(target)

    def _phones(self, words: Sequence[str]) -> list[str]:
        phones: list[str] = []
        for word in words:
            spelled = self._decoder.lookup_word(word.lower())
            if not spelled:
                return []
            phones += spelled.split()
        return phones


def _compound(lookup: Any, word: str) -> str | None:
    """A word missing from the dictionary spelled as two words that are in it ("semicolon")."""
    for i in range(2, len(word) - 1):
        head, tail = lookup(word[:i]), lookup(word[i:])
        if head and tail:
            return f"{head} {tail}"
    return None


def vosk_has_runtime_grammar(model_path: Path) -> bool:
    """Whether a Vosk model can decode against a grammar given at run time (the small models,
    whose graph is split into HCLr.fst and Gr.fst; a big model's static HCLG.fst cannot)."""
    graph = model_path / "graph"
    return (graph / "HCLr.fst").is_file() and (graph / "Gr.fst").is_file()


class VoskCommandDecoder:
    """Vosk restricted to the command phrases (and ``[unk]`` for anything else).

    Args:
        model: A loaded ``vosk.Model`` with runtime grammars.
        phrases: The command phrases.
        confidence: The least confidence of every word (:data:`VOSK_CONFIDENCE`).
    """

    def __init__(self, model: Any, phrases: Sequence[str], confidence: float = VOSK_CONFIDENCE):
        self._model = model
        self.phrases = [" ".join(p.lower().split()) for p in dict.fromkeys(phrases)]
        self.margin = confidence
        self._grammar = json.dumps([*self.phrases, "[unk]"])

    def decode(self, samples: np.ndarray, heard: Sequence[str] = ()) -> CommandDecode:
        import vosk

        recognizer = vosk.KaldiRecognizer(self._model, SAMPLE_RATE, self._grammar)
        recognizer.SetWords(True)
        recognizer.AcceptWaveform(np.asarray(samples, dtype="<i2").tobytes())
        result = json.loads(recognizer.FinalResult())
        words = result.get("result") or []
        phrase = " ".join(w.get("word", "") for w in words)
        if phrase not in self.phrases:
            return CommandDecode("", False, 0.0)
        lowest = min(float(w.get("conf", 0.0)) for w in words)
        return CommandDecode(phrase, lowest >= self.margin, lowest)
