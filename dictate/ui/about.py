"""Help > About: the version, the models in use and the licences."""

from __future__ import annotations

import html
import json

from dictate.errors import DictateError


def about_html(engine: str) -> str:
    """The About text (rich text) for the speech engine described by ``engine``."""
    from dictate import __version__
    from dictate.store.resolve import resolve_punctuator_model

    try:
        punctuator = resolve_punctuator_model(None)
        config = json.loads((punctuator / "config.json").read_text(encoding="utf-8"))
        model = f"{config.get('model_version', '?')} ({punctuator})"
    except (DictateError, OSError, ValueError) as exc:
        model = f"not found ({exc})"
    return (
        f"<b>dictate {__version__}</b>: offline dictation with streaming punctuation."
        f"<p>Speech engine: {html.escape(engine)}.<br>"
        f"Punctuation model: {html.escape(model)}.</p>"
        "<p>Licences: the code of dictate is under the MIT licence (the LICENSE file). "
        "The punctuation model is trained on TED talk transcripts published "
        "under CC BY-NC-ND 4.0, so it is bound by that licence (attribution, "
        "non-commercial use), and also on Wikipedia text (CC BY-SA 4.0, Wikipedia "
        "contributors), the AMI Meeting Corpus (CC BY 4.0), the Schema-Guided Dialogue "
        "dataset (CC BY-SA 4.0) and public-domain books and speeches. "
        "Vosk and its official English models: Apache 2.0. "
        "PocketSphinx and its bundled English model: BSD. Silero VAD: MIT. "
        "Qt for Python (PySide6): LGPLv3. ONNX Runtime: MIT.</p>"
    )
