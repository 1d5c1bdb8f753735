"""The app's dialogs, one module each: settings (:mod:`.settings`), the first-start speech
model (:mod:`.model`) and the list of voice commands (:mod:`.voice_commands`). Everything is
re-exported here, so ``from dictate.ui.dialogs import ...`` works as it did when they were one
module."""

from __future__ import annotations

from dictate.ui.dialogs.model import ModelDialog, model_choice
from dictate.ui.dialogs.settings import SettingsDialog, device_choices, engine_choices
from dictate.ui.dialogs.voice_commands import VoiceCommandsDialog

__all__ = [
    "ModelDialog",
    "SettingsDialog",
    "VoiceCommandsDialog",
    "device_choices",
    "engine_choices",
    "model_choice",
]
