"""The microphones, speech engines and second passes the settings dialog and the window's
toolbar offer: what is installed, as labels and values."""

from __future__ import annotations

import logging
from collections import Counter

from dictate.asr.loader import AUTO
from dictate.asr.registry import FIRST_PASS, OFF, VOSK, WHISPER, engine_spec
from dictate.errors import DictateError

log = logging.getLogger("dictate.ui")


def installed_models(kind: str) -> list[tuple[str, str]]:
    """(name, label suffix) of every installed model of a kind of model
    (:attr:`~dictate.asr.registry.EngineSpec.model_kind`); none for the bundled kind, and none
    (logged) where the store cannot be read."""
    try:
        if kind == VOSK.model_kind:
            from dictate.store.store import ModelStore

            return [(model.name, "") for model in ModelStore().installed()]
        if kind == WHISPER.model_kind:
            from dictate.store.whisper_models import installed_whisper_models

            found: dict[str, str] = {}
            for whisper in installed_whisper_models():
                found.setdefault(whisper.name, " (bundled)" if whisper.bundled else "")
            return list(found.items())
    except OSError as exc:
        log.warning("cannot list the installed %s models: %s", kind, exc)
    return []


def engine_choices() -> list[tuple[str, str | None, str | None]]:
    """(label, engine, model) for every recogniser the user can pick: each streaming engine of
    :mod:`dictate.asr.registry`, once per installed model where it loads one the user chooses."""
    choices: list[tuple[str, str | None, str | None]] = [("Automatic (best installed)", None, None)]
    for name in FIRST_PASS:
        spec = engine_spec(name)
        if spec.model_kind == "bundled":
            choices.append((spec.label, spec.name, None))
            continue
        for model, _ in installed_models(spec.model_kind):
            choices.append((f"{spec.title()}: {model}", spec.name, model))
    return choices


def auto_label() -> str:
    """What "auto" uses now (:mod:`dictate.asr.tiers`): one model, or one for dictation and one
    for files."""
    from dictate.asr import tiers

    live, files = tiers.auto_model("live"), tiers.auto_model("files")
    if live == files:
        return f"{WHISPER.title()} {live}"
    return f"{WHISPER.title()} {live} for dictation, {files} for files"


def second_pass_choices(current: str | None = None) -> list[tuple[str, str]]:
    """(label, value of :attr:`Settings.second_pass`) for every second pass the user can pick:
    automatic, off, and each installed Whisper model (``current`` too, where it is none of them:
    a folder, or a model since removed, stays chosen)."""
    choices = [
        (f"Automatic ({auto_label()}, for English)", AUTO),
        ("Off", OFF),
        *(
            (f"{WHISPER.title()} {name}{note}", name)
            for name, note in installed_models(WHISPER.model_kind)
        ),
    ]
    if current and current not in {value for _, value in choices}:
        choices.append((f"{WHISPER.title()} {current}", current))
    return choices


def device_choices() -> tuple[list[tuple[str, str | None]], str | None]:
    """(label, device name) of every microphone, and an error message if there are none."""
    from dictate.audio.devices import list_input_devices

    choices: list[tuple[str, str | None]] = [("System default microphone", None)]
    try:
        devices = list_input_devices()
    except DictateError as exc:
        return choices, str(exc)
    names = Counter(device.name for device in devices)
    for device in devices:
        # Two sound-server sources may share a description ("Monitor of Null Output").
        where = device.key if names[device.name] > 1 and device.pulse_source else device.host_api
        choices.append((f"{device.name} ({where})", device.key))
    return choices, None
