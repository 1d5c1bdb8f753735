"""PocketSphinx: the bundled US English fallback, so dictation works before any Vosk model.

The ``pocketsphinx`` package carries a complete acoustic model, dictionary and language model.
It is much less accurate than Vosk; its label says so and recommends a Vosk model.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dictate.asr.command_decode import SphinxCommandDecoder
from dictate.asr.engine import MAX_ALTERNATIVES, Word
from dictate.audio.format import SAMPLE_RATE

_FRAME_SECONDS = 0.01  # PocketSphinx's default frame rate is 100 per second
_NOT_WORDS = re.compile(r"^(<s>|</s>|<sil>|\[.*\]|\+\+.*\+\+)$")
_ALTERNATIVE = re.compile(r"\(\d+\)$")  # "the(2)": second pronunciation of "the"
_LETTER = re.compile(r"^[a-z]\.$")
CMN_PRIOR = "53.3,4.0,2.0,8.6,-3.9,2.0,-6.1,0.4,1.1,-0.5,-0.1,-1.3,0.7"
"""The cepstral means a recogniser starts from (PocketSphinx's ``cmninit``; its own default is
"40,3,-1"): the mean of the means it ended with on the 16 real recordings of
benchmarks/real_recordings.py. The live normalisation starts from here and adapts to the
microphone within a phrase or two, so this decides the first phrase's words. Measured leave one
out (each recording decoded from the mean of the other 15; docs/second-pass.md), PocketSphinx
alone made 40.3% word errors on the set against 42.1% from the default, 11 recordings better and
3 worse ("to exit the menu" for "to exit the many left")."""
_WARM_SEARCH = "_warm"  # the search of :meth:`SphinxRecognizer.warm`
_WARM_GRAMMAR = "#JSGF V1.0;\ngrammar warm;\npublic <warm> = oh;\n"

log = logging.getLogger("dictate.asr")


def _clean(word: str) -> str | None:
    if _NOT_WORDS.match(word):
        return None
    word = _ALTERNATIVE.sub("", word)
    # The dictionary spells a letter said alone "d.": the letter is the word (its dot came out
    # doubled at a sentence end, "three d..").
    return word[0] if _LETTER.match(word) else word


class SphinxEngine:
    """The bundled PocketSphinx US English model."""

    name = "sphinx"  # SPHINX.name: dictate.asr.registry imports this module, not the reverse
    label = "PocketSphinx (bundled English, low accuracy: install a Vosk model for better results)"

    def __init__(self) -> None:
        from pocketsphinx import get_model_path

        self.model_path: Path | None = Path(get_model_path()) / "en-us"

    def recognizer(self) -> SphinxRecognizer:
        return SphinxRecognizer()

    def command_decoder(self, phrases: Sequence[str]) -> SphinxCommandDecoder:
        """A decoder of short segments against ``phrases`` (the second decode of
        :mod:`dictate.asr.command_decode`)."""
        return SphinxCommandDecoder(phrases)


class SphinxRecognizer:
    """One PocketSphinx decoder, one utterance per segment."""

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        # No second (flat-lexicon) pass and no lattice best path at the end of an utterance:
        # they cost ~150 ms per segment while holding the GIL, which stalls the window, and
        # change this weak fallback's words little (the first pass does the work).
        self._decoder = Decoder(
            samprate=SAMPLE_RATE,
            loglevel="FATAL",
            fwdflat=False,
            bestpath=False,
            cmninit=CMN_PRIOR,
        )
        self._offset = 0.0
        self._partial: list[str] = []
        self._in_utt = False
        self._since_partial = 0  # samples fed since the last partial hypothesis
        self.alternatives: list[list[str]] = []
        """What else the last segment could be (its n-best hypotheses after the best)."""
        self._warm_search = False
        self._written: dict[str, list[str]] = {}
        """The vocabulary's dictionary words ("Dr._Nguyen") and their written words."""

    def add_vocabulary(self, entries: Sequence[Any]) -> int:
        """Put the user's vocabulary (:class:`~dictate.writing.vocabulary.VocabularyEntry`)
        in the decoder's dictionary and language model, so that the first pass can write an
        entry itself: each entry whose spoken words (its sounds-like, else its written words)
        are all in the dictionary is a word pronounced as they are. An entry with a word the
        dictionary lacks is left out (PocketSphinx has no letter-to-sound rules; the later
        passes still write it), as is one the dictionary has as it is ("Paris"). How many
        were added. Call before :meth:`start`."""
        decoder = self._decoder
        added: list[tuple[str, str]] = []
        for entry in entries:
            spoken = entry.spoken
            if spoken == [entry.written.lower()] and decoder.lookup_word(spoken[0]):
                continue  # the dictionary has it: the words after recognition case it
            sounds = [decoder.lookup_word(word) for word in spoken]
            if not spoken or not all(sounds):
                continue
            token = entry.written.replace(" ", "_")
            if decoder.lookup_word(token) or token in self._written:
                continue
            self._written[token] = entry.written.split()
            added.append((token, " ".join(sounds)))
        for i, (token, phones) in enumerate(added):
            decoder.add_word(token, phones, i == len(added) - 1)  # the search once, at the end
        if added:
            log.info("%d of %d vocabulary entries added to PocketSphinx", len(added), len(entries))
        return len(added)

    def _words(self, said: Sequence[str]) -> list[str]:
        """``said`` with each vocabulary entry's word as the entry's written words."""
        out: list[str] = []
        for word in said:
            out += self._written.get(word, [word])
        return out

    def start(self, time: float) -> None:
        if self._in_utt:
            self._decoder.end_utt()
        self._decoder.start_utt()
        self._in_utt = True
        self._offset = time
        self._partial = []

    def accept(self, samples: np.ndarray) -> list[str] | None:
        if not self._in_utt:
            self.start(self._offset)
        self._decoder.process_raw(np.asarray(samples, dtype="<i2").tobytes(), False, False)
        # A partial hypothesis is a backtrace through the whole utterance so far, done while
        # holding Python's lock: ten per second are plenty for the live display.
        self._since_partial += len(samples)
        if self._since_partial < SAMPLE_RATE // 10:
            return None
        self._since_partial = 0
        hyp = self._decoder.hyp()
        words = self._words(hyp.hypstr.split()) if hyp is not None and hyp.hypstr else []
        if words == self._partial:
            return None
        self._partial = words
        return words

    def warm(self, pieces: Sequence[np.ndarray]) -> None:
        """Hear one segment without decoding it: its audio, fed in the same ``pieces`` as a
        decode gets them, goes through the front end, whose cepstral mean normalisation carries
        over to the next segment, just as a decode's does (it depends on the audio and how it
        was cut into calls, not on the search). The search is a grammar of one word, about
        4% of the cost of a decode. The parallel decode of a file
        (:mod:`dictate.run.file_decode`) warms each worker on the segments others decode, so its
        words are those of one recogniser hearing the file from the start."""
        decoder = self._decoder
        if self._in_utt:
            decoder.end_utt()
            self._in_utt = False
        search = decoder.current_search()
        if not self._warm_search:
            # A grammar of one short word: the fewest active HMMs of any search, so the fewest
            # senones scored. 4% of a decode's CPU time measured on 120 s of speech (a keyphrase
            # search, the first choice, took 14.5%: its background phone loop scores them all);
            # the cepstral means after it are the same (get_cmn) for either.
            decoder.add_jsgf_string(_WARM_SEARCH, _WARM_GRAMMAR)
            self._warm_search = True
        decoder.activate_search(_WARM_SEARCH)
        try:
            decoder.start_utt()
            for piece in pieces:
                decoder.process_raw(np.asarray(piece, dtype="<i2").tobytes(), False, False)
            decoder.end_utt()
        finally:
            decoder.activate_search(search)

    def _nbest(self, words: list[Word]) -> list[list[str]]:
        """The decoder's other hypotheses of the segment just ended, cleaned (no fillers or
        alternative pronunciation marks), without the best one and without repeats."""
        best = [w.text for w in words]
        seen = {tuple(best)}
        found: list[list[str]] = []
        try:
            for count, hypothesis in enumerate(self._decoder.nbest()):
                if count >= 4 * MAX_ALTERNATIVES or len(found) >= MAX_ALTERNATIVES:
                    break
                if hypothesis is None or not hypothesis.hypstr:
                    continue
                said = self._words([w for w in map(_clean, hypothesis.hypstr.split()) if w])
                if said and tuple(said) not in seen:
                    seen.add(tuple(said))
                    found.append(said)
        except Exception:  # n-best is a courtesy: the words stand without it
            log.debug("no n-best for the segment", exc_info=True)
        return found

    def finish(self) -> list[Word]:
        self.alternatives = []
        if not self._in_utt:
            return []
        self._decoder.end_utt()
        self._in_utt = False
        self._partial = []
        words = []
        for seg in self._decoder.seg() or ():  # None when nothing was decoded
            text = _clean(seg.word)
            if not text:
                continue
            start = self._offset + seg.start_frame * _FRAME_SECONDS
            end = self._offset + (seg.end_frame + 1) * _FRAME_SECONDS
            parts = self._written.get(text, [text])  # an entry of the vocabulary: its words
            step = (end - start) / len(parts)
            words += [Word(part, start + i * step, start + (i + 1) * step, 1.0)
                      for i, part in enumerate(parts)]  # fmt: skip
        self.alternatives = self._nbest(words)
        return words
