"""The one dispatcher of pipeline events in the window: the parts in one declared order, and
no part connected to the controller's signal behind its back."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from dictate.events import Finalized, Level, Pending
from dictate.ui.dispatcher import ORDER, EventDispatcher

UI = Path(__file__).resolve().parents[2] / "dictate"


def test_parts_see_an_event_in_the_declared_order_whatever_order_they_subscribed_in() -> None:
    dispatcher = EventDispatcher(("first", "second", "third"))
    seen: list[str] = []
    dispatcher.subscribe("third", lambda e: seen.append("third"))
    dispatcher.subscribe("first", lambda e: seen.append("first"))
    dispatcher.subscribe("second", lambda e: seen.append("second"), Finalized)
    dispatcher.dispatch(Level(0.0, -20.0))
    assert seen == ["first", "third"]  # "second" takes only Finalized
    seen.clear()
    dispatcher.dispatch(Finalized(0.0, 1, ["We met."]))
    assert seen == ["first", "second", "third"]
    with pytest.raises(ValueError, match="not a part"):
        dispatcher.subscribe("fourth", seen.append)


def test_a_failing_part_does_not_keep_the_event_from_the_parts_after_it() -> None:
    dispatcher = EventDispatcher(("first", "second"))
    seen: list[object] = []

    def broken(event: object) -> None:
        raise RuntimeError("broken part")

    dispatcher.subscribe("first", broken)
    dispatcher.subscribe("second", seen.append)
    event = Pending(0.0, 1, "we met")
    with pytest.raises(RuntimeError, match="broken part"):  # reported, as a slot's would be
        dispatcher.dispatch(event)
    assert seen == [event]


def test_the_window_hands_events_to_its_parts_in_the_declared_order(window: Any) -> None:
    """The document applies the event before the parts that read the document see it."""
    seen: list[tuple[str, str]] = []
    window.events.subscribe(
        "observer", lambda e: seen.append(("observer", window.editor.text)), Finalized
    )
    window.events.subscribe(
        "kept_audio", lambda e: seen.append(("kept_audio", window.editor.text)), Finalized
    )
    window.controller.pipelineEvent.emit(Finalized(0.1, 1, ["We met."], pending=""))
    assert seen == [("kept_audio", "We met."), ("observer", "We met.")]
    assert window.events.order == ORDER


def test_no_module_connects_to_the_pipeline_event_signal_but_the_window_dispatcher() -> None:
    """Parts subscribe to the dispatcher; a connection to the controller's signal would run in
    the order it was made, which is what the dispatcher replaced."""
    found = {
        str(path.relative_to(UI))
        for path in UI.rglob("*.py")
        if re.search(r"pipelineEvent\.connect\(", path.read_text(encoding="utf-8"))
    }
    assert found == {"ui/main_window.py", "ui/pipeline_runner.py"}, found
