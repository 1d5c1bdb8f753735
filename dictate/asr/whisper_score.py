"""Whisper's own judgement of words: how likely it finds a given text as the words of some
audio (:func:`score`), for :class:`~dictate.seam.vocabulary.VocabularyRefiner`.

Whisper's greedy decode is not always the text it finds most likely: a name it wrote as
"my card item" it finds likelier written "myocarditis" once it is asked about that spelling.
CTranslate2's forced alignment (``Whisper.align``) gives the probability of each token of a
text given the audio and the tokens before it; their log sum, the end of text included, is the
text's score.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE

WINDOW_FRAMES = 3000
"""Whisper's 30 s window in log-mel frames: the audio is encoded in it, as Whisper's fallback
decodes it."""
MIN_WINDOW_S = 10
"""The shortest encoder window (seconds)."""
WINDOW_MARGIN_S = 1
"""Seconds of padding after the audio in a sized window."""
MAX_WINDOW_S = 30
"""Whisper's own window; longer segments are decoded in several windows."""
FRAMES_PER_S = 100  # Whisper's log-mel frames: a 10 ms hop


def sized_frames(frames: int, margin: float = WINDOW_MARGIN_S) -> int:
    """The encoder window (in mel frames) for ``frames`` of audio: the audio and ``margin``
    seconds, rounded up to a second, at least :data:`MIN_WINDOW_S`, at most 30 s."""
    wanted = math.ceil(frames / FRAMES_PER_S + margin)
    return int(min(MAX_WINDOW_S, max(MIN_WINDOW_S, wanted)) * FRAMES_PER_S)


SIZED = threading.local()
"""``SIZED.margin``: the current thread's decode wants a window sized to its audio, with this
margin (seconds); None: Whisper's 30 s."""


def install_sized_padding() -> None:
    """Wrap faster-whisper's ``pad_or_trim`` (idempotent): on a thread that is in a sized
    decode, the features are padded to :func:`sized_frames` instead of 30 s; elsewhere it is
    faster-whisper's own."""
    import faster_whisper.transcribe as transcribe

    original = transcribe.pad_or_trim
    if getattr(original, "dictate_sized", False):
        return

    def pad_or_trim(array: Any, length: int = 3000, *, axis: int = -1) -> Any:
        margin = getattr(SIZED, "margin", None)
        if margin is not None and length == MAX_WINDOW_S * FRAMES_PER_S:
            length = min(length, sized_frames(array.shape[axis], margin))
        return original(array, length, axis=axis)

    pad_or_trim.dictate_sized = True  # type: ignore[attr-defined]
    transcribe.pad_or_trim = pad_or_trim


JUDGE_SIZED = True
""":func:`score` (the vocabulary) and the command judge's :func:`text_scores` use the audio's
encoding in a window sized to it (at least 10 s), not in Whisper's 30 s: the one the second
pass's first decode made, kept (:class:`LastWindow`), where the 30 s one is encoded again (0.3
s of tiny.en on two cores idle, 0.9 s with two busy processes), or a third of its cost where
encoded anew (0.15 s against 0.47 s for a 3.5 s sentence, five texts and two prompts). The
margins of :mod:`dictate.seam.vocabulary` were chosen again with it (docs/vocabulary.md); the
command judge's margins, chosen on the 30 s scores, carry out the same commands with it on the
natural voice's development and test sets but one (docs/voice-commands.md)."""
SCORE_BATCH = 16
"""Texts scored in one call of the decoder."""


@dataclass
class Scored:
    """What :func:`score` found."""

    log_probs: list[list[float]]
    """For each prompt, each text's log probability given the audio and the prompt, in
    order."""
    no_speech_prob: float
    """Whisper's probability that the audio holds no speech."""


def tokenizer_for(model: Any, language: str | None) -> Any:
    """faster-whisper's tokenizer of ``model`` (a ``WhisperModel``), transcribing ``language``
    (English for an English-only model, or where none is given)."""
    from faster_whisper.tokenizer import Tokenizer

    multilingual = model.model.is_multilingual
    return Tokenizer(
        model.hf_tokenizer, multilingual, task="transcribe",
        language=(language or "en") if multilingual else "en",
    )  # fmt: skip


@dataclass
class Encoded:
    """Audio as Whisper's encoder gave it, for :func:`text_scores`."""

    states: np.ndarray


def window_features(
    model: Any, audio: np.ndarray, *, sized: bool = False
) -> tuple[np.ndarray, int]:
    """The log-mel features of int16 ``audio`` in Whisper's 30 s window (zeros after the
    audio) and how many frames of it are the audio's; with ``sized``, in a window sized to the
    audio as the second pass's first decode has it
    (:func:`sized_frames`).

    As faster-whisper's ``transcribe`` gives them to its encoder: the feature extractor's last
    frame (of its 10 ms of padding) left out, so the encoder's output is the one the decode of
    the same audio computed (:class:`LastWindow` keeps it). :func:`score` kept that frame
    until 2026-12-06; the vocabulary's margins were checked again without it
    (docs/vocabulary.md).
    """
    features = model.feature_extractor(audio.astype(np.float32) / 32768.0)
    frames = min(features.shape[-1] - 1, WINDOW_FRAMES)
    size = sized_frames(frames) if sized else WINDOW_FRAMES
    window = np.zeros((features.shape[0], size), np.float32)
    window[:, :frames] = features[:, :frames]
    return window, frames


def encode(model: Any, audio: np.ndarray, sized: bool = False) -> Encoded | None:
    """Encode int16 ``audio`` with ``model``'s encoder in Whisper's 30 s window, as the 30 s
    decode does (with ``sized``, in the window sized to it, as the sized decode does:
    :func:`window_features`); None for audio longer than the window."""
    if len(audio) > WINDOW_FRAMES // 100 * SAMPLE_RATE:
        return None
    window, _frames = window_features(model, audio, sized=sized)
    return Encoded(states_array(model, window))


def states_array(model: Any, window: np.ndarray) -> np.ndarray:
    """The encoder's output for one ``window`` of features, on the CPU (a GPU's output is
    copied there: NumPy reads only the CPU's memory)."""
    import ctranslate2

    features = ctranslate2.StorageView.from_array(np.ascontiguousarray(window[None]))
    return np.array(model.model.encode(features, to_cpu=True))


def text_scores(
    model: Any, language: str | None, encoded: Encoded, texts: Sequence[str]
) -> list[float]:
    """Each of ``texts``' log probability as the whole of the ``encoded`` audio's words (no
    prompt): each token's given the ones before it, and the end of text after the last.

    The end of text counts: without it a phrase that is the start of what was said ("colon"
    of "colon cancer") scores as well as all of it. CTranslate2's ``align`` gives the end of
    text no probability (0, always), so the texts are forced through ``generate`` as its
    prompt, which returns the log probabilities of every step from the first text token on.
    Each text goes alone: its score does not depend on what else is asked.
    """
    import ctranslate2

    tokenizer = tokenizer_for(model, language)
    start = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
    states = ctranslate2.StorageView.from_array(encoded.states)
    out = []
    for text in texts:
        tokens = list(tokenizer.encode(" " + text.strip()))
        forced = start + tokens
        # How many steps come back for a max_length is not documented; measured, about half
        # of it: 2(n + 1) + 1 gives every text token's step and the one after, with the same
        # logits as a longer one (65 texts: the command phrases and two sentences). More is
        # waste: a text that is not what was said is generated on past its end (the old
        # 2 * len(forced) + 8 took 37% longer for the same scores). Fewer: asked again.
        steps = _forced_steps(model, states, forced, 2 * (len(tokens) + 1) + 1)
        if len(steps) <= len(tokens):
            steps = _forced_steps(model, states, forced, 2 * len(forced) + 8)
        if len(steps) <= len(tokens):  # never seen; a guard: "unlikely" rather than fail
            out.append(-1e9)
            continue
        total = 0.0
        for at, token in enumerate([*tokens, tokenizer.eot]):
            logits = np.asarray(steps[at], np.float64)
            top = logits.max()
            total += float(logits[token] - top - np.log(np.exp(logits - top).sum()))
        out.append(total)
    return out


def _forced_steps(model: Any, states: Any, forced: list[int], max_length: int) -> Any:
    """The logits of every step of a generation forced through ``forced`` (the first text
    token's step on), stopping at its end of text or ``max_length``."""
    (result,) = model.model.generate(
        states, [forced], beam_size=1, max_length=max_length, return_logits_vocab=True,
        suppress_blank=False, suppress_tokens=[],
    )  # fmt: skip
    return result.logits[0]


def score(
    model: Any,
    language: str | None,
    audio: np.ndarray,
    texts: Sequence[str],
    prompts: Sequence[str] = ("",),
    *,
    sized: bool = JUDGE_SIZED,
    states: np.ndarray | None = None,
) -> Scored | None:
    """How likely ``model`` (a faster-whisper ``WhisperModel``) finds each of ``texts`` as the
    words of int16 ``audio`` after each of ``prompts`` ("" for none), and how likely it finds
    that the audio holds no speech; None for audio longer than Whisper's window or no texts.
    The audio is encoded once, in a window sized to it where ``sized`` (as the second pass's
    first decode), else in Whisper's 30 s; not at all where ``states`` are given (the encoder's
    output of the same window: :class:`LastWindow`)."""
    import ctranslate2

    if len(audio) > WINDOW_FRAMES // 100 * SAMPLE_RATE or not texts:
        return None
    tokenizer = tokenizer_for(model, language)
    window, frames = window_features(model, audio, sized=sized)
    encoded = states if states is not None else states_array(model, window)
    tokens = [[*tokenizer.encode(" " + t.strip()), tokenizer.eot] for t in texts]
    scores: list[list[float]] = []
    for prompt in prompts:
        start = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        if prompt.strip():
            start = [tokenizer.sot_prev, *tokenizer.encode(" " + prompt.strip()), *start]
        scores.append([])
        for at in range(0, len(tokens), SCORE_BATCH):
            batch = tokens[at : at + SCORE_BATCH]
            copies = np.ascontiguousarray(np.repeat(encoded, len(batch), axis=0))
            aligned = model.model.align(
                ctranslate2.StorageView.from_array(copies), start, batch, [frames] * len(batch)
            )
            for result in aligned:
                p = np.asarray(result.text_token_probs, np.float64)
                scores[-1].append(float(np.log(np.maximum(p, 1e-12)).sum()))
    first = model.model.generate(
        ctranslate2.StorageView.from_array(encoded), [list(tokenizer.sot_sequence)],
        max_length=2, return_no_speech_prob=True,
    )  # fmt: skip
    return Scored(scores, float(first[0].no_speech_prob))


class LastWindow:
    """The encoder's output of the last audio decoded, for scoring texts against it without
    encoding it again (:meth:`WhisperSecondPass.text_scores`, the command judge, and
    :meth:`WhisperSecondPass.score`, the vocabulary's judgement: both in the window sized to
    the audio, :data:`JUDGE_SIZED`).

    It wraps ``model.encode`` (faster-whisper's ``WhisperModel``): while :meth:`watching` some
    audio, the first window encoded is kept, as :func:`window_features` gives its features (the
    same features, in the same window). The last audio's windows are kept: the sized one, and
    the 30 s one where a doubt decoded it there too.
    """

    def __init__(self, model: Any) -> None:
        self._encode = model.encode
        self._watched: tuple[bytes, bool] | None = None
        self._kept: dict[bool, tuple[bytes, np.ndarray]] = {}
        model.encode = self._encoding

    @staticmethod
    def key(samples: np.ndarray) -> bytes:
        """What identifies float32 ``samples`` (as the decode is given them)."""
        return hashlib.blake2b(np.ascontiguousarray(samples, np.float32).tobytes()).digest()

    def _encoding(self, features: np.ndarray) -> Any:
        out = self._encode(features)
        if self._watched is not None:  # the audio's first window: all of it, up to 30 s
            (key, sized), self._watched = self._watched, None
            self._kept[sized] = (key, np.array(out))
        return out

    @contextmanager
    def watching(self, samples: np.ndarray, sized: bool = False) -> Iterator[None]:
        """Keep the encoder's output of the decode of ``samples`` made inside (in a window
        sized to them, or in 30 s); the other window's is kept where it is of the same
        audio."""
        key = self.key(samples)
        self._kept = {w: kept for w, kept in self._kept.items() if kept[0] == key and w != sized}
        self._watched = (key, sized)
        try:
            yield
        finally:
            self._watched = None

    def encoded(self, audio: np.ndarray, sized: bool = False) -> Encoded | None:
        """The kept output where int16 ``audio`` is the audio last decoded, in the 30 s window
        (or, with ``sized``, in a window sized to it); else None."""
        kept = self._kept.get(sized)
        if kept is None or len(audio) > WINDOW_FRAMES // 100 * SAMPLE_RATE:
            return None
        key, states = kept
        return Encoded(states) if key == self.key(audio.astype(np.float32) / 32768.0) else None
