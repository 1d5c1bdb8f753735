"""User settings, saved as JSON in the platformdirs user config directory.

Unknown keys in the file are ignored and missing ones take their defaults, so settings written by
an older or newer version still load. A broken file is reported and replaced by defaults, never
fatal: the user must always be able to start dictating.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dictate.fileio import atomic_write_text
from dictate.paths import APP_NAME

log = logging.getLogger("dictate.config")


def settings_path() -> Path:
    """Where settings are stored (``$DICTATE_CONFIG`` overrides it)."""
    override = os.environ.get("DICTATE_CONFIG")
    if override:
        return Path(override)
    from platformdirs import user_config_path

    return Path(user_config_path(APP_NAME, appauthor=False)) / "settings.json"


@dataclass
class Settings:
    """Everything the user can choose; the defaults are the measured or papers' values."""

    input_device: str | None = None
    """Microphone by name (indices change when devices come and go); None = system default."""
    engine: str | None = None
    """"vosk", "sphinx", or None = Vosk if a model is installed, else PocketSphinx."""
    vosk_model: str | None = None
    """Installed model name or a path; None = the best installed model."""
    silence_ms: int = 500
    max_segment_s: float = 40.0
    mode: str = "streaming"
    min_right_words: int = 4
    font_family: str | None = None
    font_size: int = 13
    first_run_done: bool = False
    """The first-start model dialog was answered."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        fields = {f.name: f for f in dataclasses.fields(cls)}
        known = {k: v for k, v in data.items() if k in fields}
        return cls(**known)


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or defaults if there are none or the file is unreadable."""
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return Settings.from_dict(data)
    except FileNotFoundError:
        return Settings()
    except (OSError, ValueError, TypeError) as exc:
        log.warning("ignoring unreadable settings file %s (%s); using defaults", path, exc)
        return Settings()


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (temporary file in the same directory, then rename)."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(dataclasses.asdict(settings), indent=2) + "\n")
    return path
