"""Putting the window's dictation controller in a state without a run, through the table of
moves a real run takes (:data:`dictate.ui.run_states.TRANSITIONS`), as its workers report."""

from __future__ import annotations

from typing import Any

from dictate.ui.run_states import State, path_to


def reach(controller: Any, state: State) -> None:
    """Report to ``controller`` what takes a run from its state to ``state``."""
    triggers = path_to(controller.state, state)
    assert triggers is not None, f"no move from {controller.state} to {state}"
    for trigger in triggers:
        assert controller.move(trigger)
