"""Whisper (faster-whisper, on CTranslate2) as the second pass: a closed segment's audio
decoded again, its words replacing the streaming recogniser's
(:class:`~dictate.seam.second_pass.SecondPassRefiner`).

Whisper is not a streaming recogniser: it decodes a whole segment at once, well. It also writes
text that was never said when it is given silence, noise or music, or a prompt it likes too
much. The guards here:

* it hears only the segmenter's speech, with more padding before it than after
  (:data:`PAD_BEFORE_S`, :data:`PAD_AFTER_S`): trailing silence is where it invents words;
* ``condition_on_previous_text=False`` and a short prompt of the last words it settled, never a
  long history; the temperature fallback is kept;
* each result's ``no_speech_prob``, ``avg_logprob`` and ``compression_ratio`` are checked
  (:class:`Guards`): a segment that is probably not speech is "no_speech" (nothing is written),
  one that decoded badly or repeats itself keeps the first pass's words;
* digits, currency and percent signs are suppressed at decoding time, so the words read as said
  ("twenty dollars"), as every engine gives them; the app's written forms decide how to write
  them. Its punctuation and capitals are taken off the words: the streaming punctuator decides
  across pauses (the streaming-punctuation papers). The mark it wrote after each word is kept
  beside it (:attr:`~dictate.asr.engine.Word.mark`), a hint the punctuator weighs
  (:attr:`~dictate.punctuation.options.StreamingOptions.hint_weight`); a capital inside a
  sentence (a name) is kept as a hint where :attr:`WhisperOptions.keep_case` says so.

The encoder is given a window sized to the audio (:func:`~dictate.asr.whisper_score.sized_frames`)
rather than 30 s, a cost that grows with the window; in it Whisper is less sure of words it gets
right, so the sized decode is tried once, greedy, and a segment its guards doubt
(:func:`sized_doubt`) is decoded again in 30 s with the fallback (docs/second-pass.md). The
padding function of faster-whisper is wrapped to pad to the sized window
(:func:`~dictate.asr.whisper_score.install_sized_padding`). An open segment's preview is one
sized decode (:meth:`WhisperSecondPass.preview`).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from dictate import memory
from dictate.asr.engine import Word
from dictate.asr.whisper_options import WhisperOptions
from dictate.asr.whisper_score import (
    MAX_WINDOW_S,
    MIN_WINDOW_S,
    SIZED,
    LastWindow,
    install_sized_padding,
)
from dictate.audio.format import SAMPLE_RATE, between
from dictate.cpus import openmp_threads_sleep
from dictate.errors import ModelError, ProviderError

log = logging.getLogger("dictate.asr.whisper")

PAD_BEFORE_S = 0.25
"""Seconds of the audio before speech began that Whisper hears (the segmenter's pre-roll)."""
PAD_AFTER_S = 0.1
"""Seconds after speech ended that it hears."""
HESITATIONS = frozenset({"uh", "um", "uhm", "er", "erm", "ah", "hmm", "mm", "mhm"})
"""Words a sized decode writing one of is decoded again in 30 s (:func:`sized_doubt`)."""
SIZED_WORD_P = 0.1
"""A sized decode whose last word is less probable than this is decoded again in 30 s. Any word
under 0.1, or under 0.15 (faster-whisper's own mark of an anomalous word), made 19 and 31 of
127 long-form segments decoded again against 3, for 0.2 and 0.3 points more word errors there;
at 0.15 the vocabulary benchmark wrote one entry fewer (docs/second-pass.md)."""


def sized_doubt(result: SecondPassResult) -> str:
    """Why a sized decode the guards passed is made again in Whisper's 30 s window, or "".
    tiny.en learned from transcripts that leave hesitations out and rarely writes one in 30 s;
    in a window sized to the audio it wrote "country uh..." after J. F. Kennedy's last word
    (tests/data/real/jfk.flac, the last 2.8-5 s), and "country the" with the "the" at
    probability 0.02 over the silence after it; the 30 s decodes of the same audio wrote
    neither."""
    if any(w.text.lower() in HESITATIONS for w in result.words):
        return "hesitation"
    if result.words and result.words[-1].confidence < SIZED_WORD_P:
        return "improbable last word"
    return ""


@dataclass
class SecondPassResult:
    """One segment decoded by Whisper."""

    words: list[Word]
    verdict: str
    """"speech": use ``words``; "no_speech": nothing was said; "unsure" (decoded badly),
    "repeats" (it repeats itself) or "empty" (no words, but maybe speech): keep the first
    pass's words (``words`` then holds what Whisper heard, not to be used)."""
    text: str = ""
    """What Whisper wrote, punctuation and all."""
    no_speech_prob: float = 0.0
    avg_logprob: float = 0.0
    compression_ratio: float = 0.0
    cased: list[bool] = field(default_factory=list)
    """Per word: Whisper wrote it with a capital inside a sentence (a name, "I")."""
    windows: tuple[str, ...] = ()
    """The encoder windows decoded, in order: ("sized",), ("full",) or ("sized", "full")."""
    heard_used: bool = False
    """Whether the first pass's words were consulted (:func:`keep_dropped_tail`): a decode
    made before they were final (the early decode) is then not the segment's decode."""


TAIL_S = 0.3
"""Words the sized decode heard this long after the 30 s decode's last word end are a tail
the 30 s decode dropped (:func:`keep_dropped_tail`)."""


def keep_dropped_tail(
    again: SecondPassResult, sized: SecondPassResult, heard: Sequence[Word]
) -> None:
    """Where the 30 s decode (``again``) ends before the sized decode's words did, the first
    pass's words after its last word are added to it: both other decodes heard words there,
    so they were said ("Thank you very much." then "explanation mark." in the sized window,
    doubted; "Thank you very much." alone in 30 s, while the first pass heard "exclamation
    mark": the command was lost). ``again.heard_used`` only where it reads those words (whether
    a tail is there does not depend on them): elsewhere an early decode is the segment's."""
    if again.verdict != "speech" or not again.words or not sized.words:
        return
    end = again.words[-1].end
    if sized.words[-1].end < end + TAIL_S:
        return
    again.heard_used = True
    tail = [w for w in heard if (w.start + w.end) / 2 > end]  # most of the word after it
    if tail:
        again.words += tail
        again.cased += [False] * len(tail)
        again.windows = (*again.windows, "first pass tail")


def mark_after(raw: str) -> str:
    """The punctuation tag (:mod:`dictate.punctuation.labels`' names) of the mark Whisper
    wrote after a word: "morning." -> "PERIOD"; "O" for none."""
    end = raw.rstrip()[-1:]
    return {".": "PERIOD", "!": "PERIOD", "?": "QUESTION", ",": "COMMA"}.get(end, "O")


_DIGITS = re.compile(r"[0-9$%£€¥°]")
_EDGE = re.compile(r"^[^\w']+|[^\w']+$")


def clean_word(text: str) -> str:
    """A Whisper word as the first pass writes words: no surrounding punctuation, lower case
    ("I" and "I'm" stay capital, as the punctuator gives them anyway)."""
    word = _EDGE.sub("", text.strip()).replace("\u2019", "'")
    return word.lower()


RANDOM_SEED = 1
"""The seed of CTranslate2's random generators (the temperature fallback's sampling)."""


def _load_whisper(path: Path, device: str, compute_type: str, threads: int) -> Any:
    memory.defer_import("av")  # faster-whisper's file decoder: dictate hands it samples
    openmp_threads_sleep()  # before CTranslate2 loads its OpenMP runtime (dictate/cpus.py)
    import ctranslate2
    from faster_whisper import WhisperModel

    # The temperature fallback samples: seeded before the model's threads first draw (each
    # seeds its generator then), so the same audio decoded in the same order gives the same
    # words, run after run (benchmarks differed by 3 sentences in 176 without it).
    ctranslate2.set_random_seed(RANDOM_SEED)
    # It logs every segment's duration at INFO: one line per phrase in the app's log.
    logging.getLogger("faster_whisper").setLevel(logging.WARNING)
    install_sized_padding()
    if device == "cpu" and compute_type.startswith("int8"):
        from dictate.paths import user_cache_dir
        from dictate.store.whisper_int8 import int8_copy

        # Weights stored as int8: no float copy of them held while loading (whisper_int8).
        path = int8_copy(path, user_cache_dir())

    model = WhisperModel(
        str(path),
        device=device,
        compute_type=compute_type,
        cpu_threads=threads,
        local_files_only=True,  # a folder on disk: never the network
    )
    memory.release()  # the loading's transient buffers
    return model


def cuda_devices() -> int:
    """GPUs CTranslate2 can use (0 where it has no CUDA)."""
    try:
        openmp_threads_sleep()
        import ctranslate2

        return int(ctranslate2.get_cuda_device_count())
    except Exception:
        return 0


class WhisperSecondPass:
    """A loaded Whisper model decoding closed segments (one at a time, in order)."""

    name = "whisper"

    def __init__(self, options: WhisperOptions | None = None, path: Path | None = None) -> None:
        from dictate.store.whisper_models import resolve_whisper_model

        self.options = options or WhisperOptions()
        self.path = path if path is not None else resolve_whisper_model(self.options.model)
        self.device, self.model = self._load()
        self._lock = threading.Lock()
        self._last = LastWindow(self.model) if self.device == "cpu" else None  # GPU: not kept
        self._suppress = self._suppressed_tokens()
        self.label = f"Whisper {self._model_name()} ({self.device})"
        self.sampled = False
        """A decode since this was last set False sampled (the temperature fallback)."""

    def _model_name(self) -> str:
        model = self.options.model
        return Path(model).name if isinstance(model, Path) or os.sep in str(model) else str(model)

    def _load(self) -> tuple[str, Any]:
        options = self.options
        if options.device not in ("auto", "cpu", "cuda"):
            raise ProviderError(f"unknown device {options.device!r}; choose auto, cpu or cuda")
        threads = options.threads or (os.cpu_count() or 1)
        want_cuda = options.device == "cuda" or (options.device == "auto" and cuda_devices() > 0)
        if want_cuda:
            compute = "float16" if options.compute_type == "default" else options.compute_type
            try:
                return "cuda", _load_whisper(self.path, "cuda", compute, threads)
            except Exception as exc:
                if options.device == "cuda":
                    raise ProviderError(
                        f"Whisper cannot run on CUDA here: {exc}; use --device cpu (or auto)"
                    ) from exc
                log.warning("Whisper on the CPU: CUDA could not be used (%s)", exc)
        compute = "int8" if options.compute_type == "default" else options.compute_type
        try:
            return "cpu", _load_whisper(self.path, "cpu", compute, threads)
        except Exception as exc:
            raise ModelError(
                f"the Whisper model in {self.path} could not be loaded: {exc}; reinstall it "
                "(`dictate models download NAME`) or choose another with --second-pass"
            ) from exc

    def _suppressed_tokens(self) -> list[int]:
        """The default suppressed tokens and every token that writes a digit, a currency or a
        percent sign: numbers come out as words, as said."""
        tokenizer = getattr(self.model, "hf_tokenizer", None)
        if tokenizer is None:
            return [-1]
        vocabulary = tokenizer.get_vocab()
        found = []
        for number in vocabulary.values():
            text = tokenizer.decode([number])
            if _DIGITS.search(text) and not text.startswith("<|"):
                found.append(number)
        return [-1, *sorted(found)]

    def decode_audio(
        self,
        audio: np.ndarray,
        offset: float,
        prompt: str = "",
        heard: Sequence[Word] = (),
        window: str = "",
    ) -> SecondPassResult:
        """Decode int16 ``audio`` whose first sample is at source time ``offset`` (``heard``:
        the first pass's words of it, for :func:`keep_dropped_tail`; ``window``: as
        :attr:`WhisperOptions.window`, "" for the options')."""
        samples = audio.astype(np.float32) / 32768.0
        seconds = len(samples) / SAMPLE_RATE
        window = window or self.options.window
        if window not in ("auto", "full", "sized"):
            raise ValueError(f"unknown Whisper window {window!r}; choose auto, full or sized")
        if window == "full":
            return self._decode_in(samples, offset, seconds, prompt, sized=False)
        result = self._decode_in(samples, offset, seconds, prompt, sized=True)
        if window == "sized" or (result.verdict == "speech" and not sized_doubt(result)):
            return result
        again = self._decode_in(samples, offset, seconds, prompt, sized=False, again=True)
        again.windows = ("sized", "full")
        keep_dropped_tail(again, result, heard)
        return again

    def _decode_in(
        self,
        samples: np.ndarray,
        offset: float,
        seconds: float,
        prompt: str,
        *,
        sized: bool,
        again: bool = False,
    ) -> SecondPassResult:
        """One decode: in a window sized to the audio (greedy, no temperature fallback: a
        doubt is settled by the 30 s window, not by sampling) or in Whisper's 30 s (``again``,
        the decode of a doubted segment: in :attr:`WhisperOptions.again_window_s`)."""
        options = self.options
        margin = options.window_margin_s if sized else None
        if again and options.again_window_s < MAX_WINDOW_S:
            margin = max(options.window_margin_s, options.again_window_s - seconds)
        with self._lock:
            SIZED.margin = margin
            try:
                greedy = sized or seconds < self.options.greedy_below_s
                with nullcontext() if not self._last else self._last.watching(samples, sized):
                    decoded = self._transcribe(samples, prompt, fallback=not greedy)
            finally:
                SIZED.margin = None
                memory.release()  # the features' and encoder's buffers, kept by malloc
        result = self._judge(decoded, offset, seconds)
        result.windows = ("sized",) if sized else ("full",)
        return result

    def _transcribe(self, samples: np.ndarray, prompt: str, fallback: bool = True) -> list[Any]:
        options = self.options
        # faster-whisper's own temperature fallback, or once at temperature 0 (greedy, or the
        # beam of again_beam)
        beam = options.beam_size
        greedy: dict[str, Any] = {"temperature": 0.0}
        if fallback and options.again_beam:
            beam = options.again_beam
        elif fallback:
            greedy = {}
        segments, _info = self.model.transcribe(
            samples,
            language=options.language,
            beam_size=beam,
            condition_on_previous_text=False,
            initial_prompt=prompt or None,
            word_timestamps=True,
            vad_filter=False,
            suppress_tokens=self._suppress,
            suppress_blank=True,
            without_timestamps=False,
            **greedy,
        )
        decoded = list(segments)  # decoding happens here, stretch by stretch
        self.sampled = self.sampled or any(part.temperature > 0 for part in decoded)
        return decoded

    def _judge(self, decoded: list[Any], offset: float, seconds: float) -> SecondPassResult:
        guards = self.options.guards
        words: list[Word] = []
        cased: list[bool] = []
        text = "".join(s.text for s in decoded).strip()
        worst = SecondPassResult([], "speech", text)
        if decoded:
            worst.no_speech_prob = max(s.no_speech_prob for s in decoded)
            worst.avg_logprob = min(s.avg_logprob for s in decoded)
            worst.compression_ratio = max(s.compression_ratio for s in decoded)
        doubt = ""  # the first "repeats" or "unsure" of a stretch kept
        for index, part in enumerate(decoded):
            if part.no_speech_prob > guards.no_speech and part.avg_logprob < guards.logprob:
                continue  # this stretch is not speech (faster-whisper's own rule)
            tail = part.no_speech_prob > guards.tail_no_speech
            if index > 0 and tail and part.avg_logprob < guards.tail_logprob:
                continue  # words invented after the speech
            if not doubt and part.compression_ratio > guards.compression:
                doubt = "repeats"
            elif not doubt and part.avg_logprob < guards.logprob:
                doubt = "unsure"
            sentence_start = True
            for spoken in part.words or []:
                raw = spoken.word.strip()
                word = clean_word(raw)
                if not word:
                    continue
                start = offset + max(0.0, min(float(spoken.start), seconds))
                end = offset + max(0.0, min(float(spoken.end), seconds))
                capital = raw[:1].isupper() and not sentence_start
                if capital and self.options.keep_case:
                    word = _EDGE.sub("", raw).replace("\u2019", "'")
                words.append(
                    Word(word, start, max(start, end), float(spoken.probability), mark_after(raw))
                )
                cased.append(capital)
                sentence_start = raw[-1:] in ".?!"
        if not words:
            no_speech = not decoded or worst.no_speech_prob > guards.silent_no_speech
            worst.verdict = "no_speech" if no_speech else "empty"
            if decoded and all(
                s.no_speech_prob > guards.no_speech and s.avg_logprob < guards.logprob
                for s in decoded
            ):
                worst.verdict = "no_speech"
            worst.verdict = doubt or worst.verdict
            return worst
        worst.words, worst.cased = words, cased
        worst.verdict = doubt or "speech"  # doubted words are kept for benchmarks, not used
        return worst

    def score(self, audio: np.ndarray, texts: Sequence[str], prompts: Sequence[str] = ("",)) -> Any:
        """How likely Whisper finds each of ``texts`` as the words of int16 ``audio`` after
        each of ``prompts``, and that the audio holds no speech
        (:func:`dictate.asr.whisper_score.score`: a
        :class:`~dictate.asr.whisper_score.Scored`); None for audio over Whisper's window.
        :class:`~dictate.seam.vocabulary.VocabularyRefiner` asks it. Audio just decoded in a
        window sized to it is not encoded again (``LastWindow``)."""
        from dictate.asr.whisper_score import JUDGE_SIZED, score

        with self._lock:
            try:
                kept = self._last and self._last.encoded(audio, sized=JUDGE_SIZED)
                states = kept.states if kept else None
                return score(self.model, self.options.language, audio, texts, prompts,
                             states=states)  # fmt: skip
            finally:
                memory.release()

    def text_scores(self, audio: np.ndarray, texts: Sequence[str]) -> list[float] | None:
        """Log probabilities of ``texts`` as the words of int16 ``audio`` for the command judge
        (:func:`dictate.asr.whisper_score.text_scores`), in the window sized to the audio
        (:data:`~dictate.asr.whisper_score.JUDGE_SIZED`); None for audio over Whisper's window.
        Audio just decoded in that window is not encoded again (``LastWindow``)."""
        from dictate.asr.whisper_score import JUDGE_SIZED, encode, text_scores

        with self._lock:
            try:
                kept = self._last and self._last.encoded(audio, sized=JUDGE_SIZED)
                encoded = kept or encode(self.model, audio, sized=JUDGE_SIZED)
                if encoded is None:
                    return None
                return text_scores(self.model, self.options.language, encoded, texts)
            finally:
                memory.release()

    def decode(self, segment: Any, prompt: str = "", window: str = "") -> SecondPassResult:
        """Decode a :class:`~dictate.seam.segment.ClosedSegment`: its speech, padded
        (:data:`PAD_BEFORE_S`, :data:`PAD_AFTER_S`)."""
        return self.decode_speech(
            segment.audio, segment.audio_start, segment.span, segment.words, prompt, window
        )

    def decode_speech(
        self,
        audio: np.ndarray,
        audio_start: float,
        span: tuple[float, float],
        heard: Sequence[Word] = (),
        prompt: str = "",
        window: str = "",
    ) -> SecondPassResult:
        """Decode the speech ``span`` (source seconds) of ``audio`` (its first sample at
        ``audio_start``), padded; ``heard``: the first pass's words of it."""
        start, end = span
        offset = max(audio_start, start - PAD_BEFORE_S)
        audio = between(audio, audio_start, start - PAD_BEFORE_S, end + PAD_AFTER_S)
        if len(audio) < 0.1 * SAMPLE_RATE:
            return SecondPassResult([], "no_speech")
        return self.decode_audio(audio, offset, prompt, heard, window)

    def worker_spec(self) -> tuple[Path, WhisperOptions] | None:
        """What a decode worker of a file loads to :meth:`decode_ahead` (this model, on the
        CPU, one thread: the workers are one per core); None on a GPU, which decodes faster
        than the workers would."""
        if self.device != "cpu":
            return None
        return self.path, replace(self.options, device="cpu", threads=1)

    def decode_ahead(
        self, audio: np.ndarray, audio_start: float, span: tuple[float, float], heard: list[Word]
    ) -> SecondPassResult | None:
        """:meth:`decode_speech` with no prompt, made in a decode worker of a file for the main
        process to use (:attr:`~dictate.seam.segment.ClosedSegment.ahead`); None where it
        sampled (the temperature fallback). The samples a model draws depend on what it drew
        before, so such a segment is decoded again in the main process, in the file's order,
        as one process decodes every segment: the words are the same with any worker count."""
        self.sampled = False
        result = self.decode_speech(audio, audio_start, span, heard)
        return None if self.sampled else result

    @staticmethod
    def preview_seconds(seconds: float) -> float:
        """Seconds a :meth:`preview` of ``seconds`` of audio encodes: the sized window, at least
        :data:`~dictate.asr.whisper_score.MIN_WINDOW_S` (J. F. Kennedy: 1.1-1.4 s previews
        took 0.18-0.30 s)."""
        return max(float(MIN_WINDOW_S), seconds)

    def preview(self, segment: Any, prompt: str = "") -> list[str] | None:
        """An open segment's words so far, for the live words: one sized decode, greedy, never
        again in 30 s; None where the guards doubt it."""
        result = self.decode(segment, prompt, window="sized")
        return [w.text for w in result.words] if result.verdict == "speech" else None

    def close(self) -> None:
        self.model = None
