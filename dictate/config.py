"""User settings, saved as JSON in the platformdirs user config directory.

Unknown keys in the file are ignored and missing ones take their defaults, so settings written by
an older or newer version still load. A broken file is reported and replaced by defaults, never
fatal: the user must always be able to start dictating.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dictate.fileio import (
    UnreadableFile,
    atomic_write,
    atomic_write_text,
    check_json_depth,
    make_private,
    private_dir,
    read_regular,
)
from dictate.paths import APP_NAME

log = logging.getLogger("dictate.config")

COMMIT_AFTER_MS = 1500
"""Default silence before a commit (measured: docs/commit-on-pause.md)."""
COMMIT_AFTER_RANGE = (300, 10_000)
HISTORY_DAYS_RANGE = (1, 3650)
HISTORY_MB_RANGE = (1, 1000)
AUDIO_MB_RANGE = (10, 100_000)


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
    """A streaming engine of :mod:`dictate.asr.registry`, or None = the best available (Vosk
    if a model is installed, else the bundled PocketSphinx)."""
    first_pass_model: str | None = None
    """The first-pass engine's model: an installed model's name or a folder; None = the best
    installed model (an engine with a bundled model, PocketSphinx, takes none). Older files
    call it ``vosk_model`` (:data:`RENAMED`)."""
    second_pass: str = "auto"
    """The Whisper model that decodes every segment again (a name or a folder), "auto" (tiny.en
    after an English first pass) or "off"."""
    silence_ms: int = 500
    max_segment_s: float = 40.0
    commit_after_ms: int | None = COMMIT_AFTER_MS
    """Silence after which the words not yet final are committed (typed, or made real text),
    in ms; None: never (only the next sentence or Stop finalizes them). See
    docs/commit-on-pause.md."""
    mode: str = "streaming"
    min_right_words: int = 4
    font_family: str | None = None
    font_size: int = 13
    first_run_done: bool = False
    """The first-start model dialog was answered."""
    guide_done: bool = False
    """The first-start guide above the text (dictate/ui/first_start.py) is done with: the user
    has dictated, or hid it; Help > Getting started shows it again."""
    written_forms: bool = True
    """Write numbers, dates, money and times as people write them ("$25", "9:30 a.m.")."""
    voice_commands: bool = True
    """Carry out voice commands and spoken punctuation ("new paragraph", "comma")."""
    replacements: list[dict[str, str]] = dataclasses.field(default_factory=list)
    """The user's spoken -> written replacements: ``{"spoken": ..., "written": ...}`` each."""
    target: str = "window"
    """Where finalized text goes: "window" (this window's editor) or "apps" (typed into
    whichever application has the keyboard focus)."""
    typing_backend: str | None = None
    """How text is typed into other applications; None = chosen automatically (see
    dictate.output.chooser)."""
    clipboard_fallback: bool = False
    """Where no typing backend works, paste each sentence through the clipboard instead."""
    show_overlay: bool = True
    """Show the always-on-top overlay (level, partial and pending words) while dictating into
    other applications."""
    overlay_position: list[int] | None = None
    """Where the overlay was last put (x, y of its top-left corner); None = bottom centre."""
    feedback_sounds: bool = False
    """A short sound when dictation starts and stops and when text was typed into another
    application."""
    announce: bool = True
    """Announce each finalized sentence and each change of the dictation state (listening,
    stopped, asleep, typing failed) to screen readers (dictate/ui/announcer.py); harmless
    without one, where nothing listens."""
    hotkey: str = "Ctrl+Alt+D"
    """The global shortcut that starts and stops dictation from any application ("" = none);
    X11, Windows, and Wayland desktops with the GlobalShortcuts portal (elsewhere bind
    `dictate toggle` in the desktop's settings)."""
    push_to_talk: bool = False
    """Hold the global shortcut to dictate, and let go to stop (the words are committed);
    where the shortcut reports its release (X11, the portal), else it toggles."""
    history: bool = True
    """Keep every finalized sentence, with its time and where it went, in the dictation history
    (View > History; ``dictate history``)."""
    history_days: int = 30
    """Days the history keeps a sentence."""
    history_max_mb: int = 10
    """Largest size of the history file in MB; the oldest sentences go first."""
    audio_file_target: str | None = None
    """Where the text of a transcribed audio file goes: "cursor" (the dictation point of the
    open document), "new" (a new document), or None: ask (File > Transcribe audio file)."""
    learn_words: bool = True
    """Offer to remember an alternative chosen with "correct that" in the vocabulary, and
    remember one chosen twice (dictate/ui/word_learning.py)."""
    keep_audio: bool = True
    """Keep the audio of each dictation session beside the autosave journal (FLAC), linked to
    its sentences, to play them back and to recognise again after a crash
    (dictate/editing/session_audio.py)."""
    audio_max_mb: int = 500
    """Largest size of the kept audio in MB; the oldest sessions are deleted first."""
    problems: list[str] = dataclasses.field(
        default_factory=list, repr=False, compare=False, metadata={"saved": False}
    )
    """Fields of the file that were not valid and took their defaults (not saved)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Settings from a file's object, field by field: an unknown key is ignored, and a
        field of the wrong type or out of range takes its default and is listed in
        :attr:`problems` (with one log line), so one bad field never costs the others."""
        settings = cls()
        # A field's old name is read where its new one is not in the file.
        data = {**{RENAMED[k]: v for k, v in data.items() if k in RENAMED}, **data}
        for f in dataclasses.fields(cls):
            if f.name not in data or not f.metadata.get("saved", True):
                continue
            value = data[f.name]
            if f.name == "replacements" and isinstance(value, list):
                # One bad entry costs only itself.
                good = [r for r in value if _replacement(r)]
                settings.problems += [f"replacements ({r!r})" for r in value if not _replacement(r)]
                value = good
            if _VALID[f.name](value):
                setattr(settings, f.name, float(value) if f.name == "max_segment_s" else value)
            else:
                log.warning(
                    "setting %s=%r is not valid; using %r", f.name, value, getattr(settings, f.name)
                )
                settings.problems.append(f"{f.name} ({value!r})")
        return settings

    def to_dict(self) -> dict[str, Any]:
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.metadata.get("saved", True)
        }


RENAMED = {"vosk_model": "first_pass_model"}
"""Fields renamed since a version that wrote settings files: old name -> new name (the old
name is read; the new one is written)."""


def _int_in(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _text_or_none(v: Any) -> bool:
    return v is None or (isinstance(v, str) and v != "")


# The typing backends a user can choose (dictate/output/chooser.py lists them all).
_TYPING_BACKENDS = (
    "xtest",
    "xdotool",
    "wtype",
    "dotool",
    "ydotool",
    "sendinput",
    "quartz",
    "clipboard",
)

_VALID: dict[str, Callable[[Any], bool]] = {
    # The ranges are the settings dialog's.
    "input_device": _text_or_none,
    # An engine's name is checked where it is loaded (dictate.asr.registry, a layer above this
    # one): an unknown one is reported there, with the known names.
    "engine": _text_or_none,
    "second_pass": lambda v: isinstance(v, str) and 0 < len(v) < 4096,
    "first_pass_model": _text_or_none,
    "silence_ms": _int_in(100, 3000),
    "commit_after_ms": lambda v: v is None or _int_in(*COMMIT_AFTER_RANGE)(v),
    "feedback_sounds": lambda v: isinstance(v, bool),
    "announce": lambda v: isinstance(v, bool),
    "max_segment_s": lambda v: (
        isinstance(v, (int, float))
        and not isinstance(v, bool)
        and math.isfinite(v)
        and 2.0 <= v <= 120.0
    ),
    "mode": lambda v: v in ("streaming", "baseline"),
    "min_right_words": _int_in(1, 20),
    "font_family": _text_or_none,
    "font_size": _int_in(6, 72),
    "first_run_done": lambda v: isinstance(v, bool),
    "guide_done": lambda v: isinstance(v, bool),
    "written_forms": lambda v: isinstance(v, bool),
    "voice_commands": lambda v: isinstance(v, bool),
    "replacements": lambda v: isinstance(v, list) and all(_replacement(r) for r in v),
    "target": lambda v: v in ("window", "apps"),
    "hotkey": lambda v: isinstance(v, str) and len(v) <= 64,
    "push_to_talk": lambda v: isinstance(v, bool),
    "typing_backend": lambda v: v is None or v in _TYPING_BACKENDS,
    "clipboard_fallback": lambda v: isinstance(v, bool),
    "show_overlay": lambda v: isinstance(v, bool),
    "history": lambda v: isinstance(v, bool),
    "history_days": _int_in(*HISTORY_DAYS_RANGE),
    "history_max_mb": _int_in(*HISTORY_MB_RANGE),
    "audio_file_target": lambda v: v in (None, "cursor", "new"),
    "keep_audio": lambda v: isinstance(v, bool),
    "learn_words": lambda v: isinstance(v, bool),
    "audio_max_mb": _int_in(*AUDIO_MB_RANGE),
    "overlay_position": lambda v: (
        v is None
        or (
            isinstance(v, list)
            and len(v) == 2
            and all(
                isinstance(c, int) and not isinstance(c, bool) and -100_000 < c < 100_000 for c in v
            )
        )
    ),
}


def _replacement(r: Any) -> bool:
    """A valid replacement entry: a non-blank spoken phrase and a written text."""
    return (
        isinstance(r, dict)
        and isinstance(r.get("spoken"), str)
        and isinstance(r.get("written"), str)
        and bool(r["spoken"].strip())
        and len(r["spoken"]) <= 200
        and len(r["written"]) <= 1000
    )


MAX_SETTINGS_BYTES = 1024 * 1024
"""Far more than any settings file (a few hundred replacements are a few kilobytes)."""
MAX_SETTINGS_DEPTH = 8
"""The settings nest three levels (the replacements); deeper is not a settings file."""


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or defaults if there are none or the file is unreadable.

    The file is checked before it is parsed: a regular file (a named pipe would hang the
    start, ``/dev/zero`` fill the memory), of at most :data:`MAX_SETTINGS_BYTES`, nested at most
    :data:`MAX_SETTINGS_DEPTH` deep (a deeper one crashes the JSON parser).
    """
    path = path or settings_path()
    try:
        raw = read_regular(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return Settings()
    except UnreadableFile as exc:  # not a settings file: nothing to keep a copy of
        return _defaults(path, f"{exc}; put a settings file there or delete it")
    except OSError as exc:
        return _defaults(path, f"the file could not be read ({exc.strerror or exc})")
    try:
        text = raw.decode("utf-8")
        check_json_depth(text, MAX_SETTINGS_DEPTH, path)
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        settings = Settings.from_dict(data)
    except (ValueError, TypeError, RecursionError) as exc:
        # The next change of a setting writes the file afresh: keep the user's copy first.
        keep = path.with_name(path.name + ".unreadable")
        try:
            atomic_write(keep, raw, private=True)
            kept = f"the file is kept as {keep}"
        except OSError as copy_error:
            kept = f"it could not be copied aside ({copy_error.strerror or copy_error})"
        return _defaults(path, f"the file could not be read ({exc}); {kept}")
    make_private(path)  # written 0644 by versions before 0.3
    return settings


def _defaults(path: Path, why: str) -> Settings:
    log.warning("ignoring settings file %s (%s); using defaults", path, why)
    settings = Settings()
    settings.problems.append(f"all of them, {why}")
    return settings


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings atomically (temporary file in the same directory, then rename),
    readable by this user only, in a folder that is this user's only."""
    path = path or settings_path()
    if path == settings_path() and not os.environ.get("DICTATE_CONFIG"):
        private_dir(path.parent)  # the app's own folder (not one a user pointed it at)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(settings.to_dict(), indent=2) + "\n", private=True)
    return path
