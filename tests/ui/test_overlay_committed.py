"""The overlay says "✓ Committed" for a moment when words went out to the other application, and
shows the live punctuation (:class:`Live`) of the words being spoken (offscreen)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from recorder import Recorder

from dictate.events import Finalized, Finished, Live, Partial, Pending
from dictate.output.typist import Typist
from dictate.ui import overlay as overlay_module
from dictate.ui.overlay import DictationOverlay

# The offscreen platform cannot raise windows; an always-on-top window asks it to when shown.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


class Clipboard(Recorder):
    name = "clipboard"
    takes_back = False

    def focused_window(self) -> str | None:
        return None


@pytest.fixture
def overlay(qtbot: Any) -> Iterator[DictationOverlay]:
    widget = DictationOverlay()
    qtbot.addWidget(widget)
    yield widget


@pytest.fixture
def short_committed(monkeypatch: pytest.MonkeyPatch) -> int:
    """The indicator stays 300 ms instead of its ~1 s, to keep the tests fast."""
    monkeypatch.setattr(overlay_module, "COMMITTED_MS", 300)
    return 300


# -- the overlay alone ------------------------------------------------------------------------


def test_committed_shows_for_a_moment_and_keeps_the_overlay_as_it_was(
    overlay: DictationOverlay, qtbot: Any, short_committed: int
) -> None:
    overlay.set_state("Listening — typing with xdotool")
    overlay.set_pending("not final yet")
    overlay.show()
    qtbot.waitExposed(overlay)
    size = overlay.size()
    assert overlay.committed_shown() == "" and not overlay.committed.isVisible()
    overlay.show_committed()
    assert overlay.committed_shown() == "Committed" and overlay.committed.isVisible()
    assert overlay.committed.text() == "✓ Committed"
    # Beside the state, on its line; the overlay neither grows nor moves its words.
    assert overlay.size() == size
    assert overlay.committed.geometry().top() < overlay.level.geometry().top()
    assert overlay.status.geometry().right() < overlay.committed.geometry().left()
    assert overlay.committed.geometry().right() <= overlay.words.geometry().right() + 1
    assert overlay.shown_words() == ("not final yet", "")
    # The state line makes room for it: elided, and whole again once it has gone.
    assert overlay.status.width() < overlay.words.width()
    qtbot.waitUntil(lambda: overlay.committed_shown() == "", timeout=3 * short_committed)
    assert not overlay.committed.isVisible()
    assert overlay.status.width() == overlay.words.width()
    assert overlay.status.text() == "Listening — typing with xdotool"
    assert overlay.size() == size


def test_committed_again_shows_it_longer_and_clear_takes_it_away(
    overlay: DictationOverlay, qtbot: Any
) -> None:
    overlay.show_committed(ms=300)
    qtbot.wait(200)
    overlay.show_committed("On the clipboard", ms=300)  # from the start again
    assert overlay.committed.text() == "✓ On the clipboard"
    qtbot.wait(200)
    assert overlay.committed_shown() == "On the clipboard"
    overlay.clear()
    assert overlay.committed_shown() == ""


def test_committed_takes_no_focus_and_no_mouse(overlay: DictationOverlay) -> None:
    overlay.show_committed()
    assert overlay.committed.focusPolicy() == Qt.FocusPolicy.NoFocus
    assert overlay.committed.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    for widget in [overlay, *overlay.findChildren(QWidget)]:
        assert widget.focusPolicy() == Qt.FocusPolicy.NoFocus, widget
    assert overlay.windowFlags() & Qt.WindowType.WindowDoesNotAcceptFocus


def test_committed_uses_the_palette_selection_colours(overlay: DictationOverlay) -> None:
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette(overlay.palette())
    palette.setColor(QPalette.ColorRole.Highlight, QColor("#123456"))
    palette.setColor(QPalette.ColorRole.HighlightedText, QColor("#fedcba"))
    overlay.setPalette(palette)
    assert "#123456" in overlay.committed.styleSheet()
    assert "#fedcba" in overlay.committed.styleSheet()


# -- in the window ----------------------------------------------------------------------------


def dictating_into_apps(window: Any, backend: Recorder) -> DictationOverlay:
    window.typing.start_run(Typist(backend))
    window.feedback.show_overlay(window.typing.typist.typist.backend.name)
    overlay: DictationOverlay = window.feedback.overlay
    assert overlay.isVisible()
    return overlay


def test_a_committed_sentence_typed_shows_committed_then_it_goes(
    window: Any, qtbot: Any, short_committed: int
) -> None:
    backend = Recorder()
    overlay = dictating_into_apps(window, backend)
    window.events.dispatch(Pending(0.1, 1, "We left"))
    assert overlay.committed_shown() == ""
    window.events.dispatch(Finalized(0.2, 1, ["We left"], pending="", committed=True))
    # Once the typing thread has typed it, not before.
    qtbot.waitUntil(lambda: overlay.committed_shown() == "Committed")
    assert backend.text == "We left"
    assert overlay.shown_words() == ("", "")
    qtbot.waitUntil(lambda: overlay.committed_shown() == "", timeout=3 * short_committed)
    assert overlay.isVisible()  # only the indicator went
    window.events.dispatch(Finished(0.3, "stopped", 1.0, 0))
    assert not overlay.isVisible()


def test_nothing_typed_says_nothing(window: Any, qtbot: Any) -> None:
    """A failure to type, or a piece that types nothing, is never "committed"."""
    overlay = dictating_into_apps(window, Recorder(fail=True))
    window.events.dispatch(Finalized(0.2, 1, ["Kept here."], pending="", committed=True))
    qtbot.waitUntil(lambda: window.typing.typist is None)  # failed: the text is in the window
    assert overlay.committed_shown() == ""
    assert window.editor.text == "Kept here."
    window.events.dispatch(Finished(0.3, "stopped", 1.0, 0))

    backend = Recorder()
    overlay = dictating_into_apps(window, backend)
    window.events.dispatch(Finalized(0.2, 1, [""], pending="", committed=True))
    window.events.dispatch(Finalized(0.3, 2, ["Typed."], pending=""))
    qtbot.waitUntil(lambda: backend.text == "Typed.")
    qtbot.waitUntil(lambda: overlay.committed_shown() == "Committed")  # the second one


def test_the_clipboard_says_so(window: Any, qtbot: Any) -> None:
    overlay = dictating_into_apps(window, Clipboard())
    window.events.dispatch(Finalized(0.2, 1, ["Pasted."], pending="", committed=True))
    qtbot.waitUntil(lambda: overlay.committed_shown() == "On the clipboard")


def test_after_stop_the_hidden_overlay_is_left_alone(window: Any, qtbot: Any) -> None:
    """The last words are typed after Finished has hidden the overlay: it is not shown again."""
    backend = Recorder()
    overlay = dictating_into_apps(window, backend)
    window.events.dispatch(Finalized(0.2, 1, ["Last words."], pending=""))
    window.events.dispatch(Finished(0.3, "stopped", 1.0, 0))
    qtbot.waitUntil(lambda: backend.text == "Last words.")
    qtbot.wait(50)
    assert not overlay.isVisible() and overlay.committed_shown() == ""


def test_live_punctuation_shows_on_the_overlay(window: Any) -> None:
    overlay = dictating_into_apps(window, Recorder())
    window.events.dispatch(Pending(0.1, 1, "so we went"))
    window.events.dispatch(Partial(0.2, 2, ["home", "then", "what"]))
    assert overlay.shown_words() == ("so we went", "home then what")
    # The words being spoken, punctuated together with the pending words.
    live = Live(0.3, 2, pending="So we went home.", partial="Then what", words=["then", "what"])
    window.events.dispatch(live)
    assert overlay.shown_words() == ("So we went home.", "Then what")
    # Later raw words of the same segment keep the punctuated start.
    window.events.dispatch(Partial(0.4, 2, ["then", "what", "happened"]))
    assert overlay.shown_words() == ("So we went home.", "Then what happened")
    # Words that changed since: as recognised.
    window.events.dispatch(Partial(0.5, 2, ["than", "what", "happened"]))
    assert overlay.shown_words() == ("So we went home.", "than what happened")
    # The segment is punctuated for good: the Pending event replaces it all.
    window.events.dispatch(Pending(0.6, 2, "So we went home. Then what happened"))
    assert overlay.shown_words() == ("So we went home. Then what happened", "")
    # A Live event of a segment already pending is stale: ignored, as in the window.
    window.events.dispatch(Live(0.7, 2, pending="stale", partial="stale", words=["stale"]))
    assert overlay.shown_words() == ("So we went home. Then what happened", "")
    assert window.editor.text == "" and window.editor.pending_text == ""


def test_the_overlay_masks_the_live_words_as_the_window_does(window: Any) -> None:
    """Typing into other applications: the overlay shows the live words, masked where listed
    (dictate/writing/live_mask.py); the pending (settled) words are not."""
    from dictate.writing.live_mask import DOT

    overlay = dictating_into_apps(window, Recorder())
    window.events.dispatch(Pending(0.1, 1, "oh shit"))  # settled: as said
    window.events.dispatch(Partial(0.2, 2, ["what", "the", "fuck"]))
    assert overlay.shown_words() == ("oh shit", f"what the f{DOT * 3}")
    window.events.dispatch(Live(0.3, 2, pending="Oh shit.", partial="What the fuck", words=None))
    assert overlay.shown_words() == ("Oh shit.", f"What the f{DOT * 3}")
