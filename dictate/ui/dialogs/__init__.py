"""The app's dialogs, one module each: settings (:mod:`.settings`) and the first-start speech
model (:mod:`.model`). Everything is re-exported here, so ``from dictate.ui.dialogs import ...``
works as it did when they were one module."""

from __future__ import annotations

from dictate.ui.dialogs.model import ModelDialog, model_choice
from dictate.ui.dialogs.settings import SettingsDialog, device_choices, engine_choices

__all__ = [
    "ModelDialog",
    "SettingsDialog",
    "device_choices",
    "engine_choices",
    "model_choice",
]
