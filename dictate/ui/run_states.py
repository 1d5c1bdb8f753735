"""The states of a dictation run and every move between them, as one table.

:class:`~dictate.ui.pipeline_runner.DictationController` takes the table's move for what
happens to its run (:func:`next_state`); what the table does not hold is ignored there.
"""

from __future__ import annotations

from dictate.enums import TextEnum


class State(TextEnum):
    """Where dictation is; changed on the GUI thread only."""

    IDLE = "idle"
    STARTING = "starting"
    LISTENING = "listening"
    STOPPING = "stopping"


class Trigger(TextEnum):
    """What happens to a run: asked for (start, stop, settings changed) or reported (the
    models ready, the start failed, the run finished)."""

    START = "start"
    READY = "ready"
    FAILED = "failed"
    STOP = "stop"
    FINISHED = "finished"
    SETTINGS = "settings"


TRANSITIONS: dict[tuple[State, Trigger], State] = {
    (State.IDLE, Trigger.START): State.STARTING,
    (State.STARTING, Trigger.READY): State.LISTENING,
    (State.STARTING, Trigger.FAILED): State.IDLE,
    (State.STARTING, Trigger.STOP): State.STARTING,  # remembered: it stops once listening
    (State.LISTENING, Trigger.STOP): State.STOPPING,
    # Ended by itself: a file's end, "stop dictating", a fatal error.
    (State.LISTENING, Trigger.FINISHED): State.IDLE,
    (State.STOPPING, Trigger.STOP): State.STOPPING,
    (State.STOPPING, Trigger.FINISHED): State.IDLE,
    # Settings > OK: a run keeps the settings it started with; the next run takes the new ones
    # (the engine is loaded again if it changed). The state never changes.
    (State.IDLE, Trigger.SETTINGS): State.IDLE,
    (State.STARTING, Trigger.SETTINGS): State.STARTING,
    (State.LISTENING, Trigger.SETTINGS): State.LISTENING,
    (State.STOPPING, Trigger.SETTINGS): State.STOPPING,
}
"""Every move of a run's state, in one place: (state, what happened) -> the next state. What
the table does not hold is ignored where it happens (a second Start, a late Finished)."""


def next_state(state: State, trigger: Trigger) -> State | None:
    """The state after ``trigger`` in ``state``; None where the table says nothing happens."""
    return TRANSITIONS.get((state, trigger))


def path_to(state: State, target: State) -> list[Trigger] | None:
    """The shortest list of triggers that takes a run from ``state`` to ``target`` through
    :data:`TRANSITIONS` ([] if it is there); None where the table has no way."""
    paths: dict[State, list[Trigger]] = {state: []}
    queue = [state]
    while queue:
        here = queue.pop(0)
        if here == target:
            return paths[here]
        for (source, trigger), after in TRANSITIONS.items():
            if source == here and after not in paths:
                paths[after] = [*paths[here], trigger]
                queue.append(after)
    return None
