"""Obscenities and slurs in the live words are masked until the settled words confirm them
(:mod:`dictate.writing.live_mask`); the settled text is never masked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dictate.asr.engine import Word
from dictate.events import Finalized, Live, Partial, Pending, Segment
from dictate.paths import asset_path
from dictate.writing.live_mask import DOT, FILE_NAME, LiveMask, read_list, user_list_path


def test_listed_words_keep_their_first_letter_and_the_rest_of_the_text(tmp_path: Path) -> None:
    mask = LiveMask(tmp_path / "none.txt")  # no user list: the shipped one
    assert mask("good ol' fuck evil") == f"good ol' f{DOT * 3} evil"
    assert mask("Shit, he said.") == f"S{DOT * 3}, he said."
    assert (
        mask("shitake mushrooms and a fuckin' mess") == f"shitake mushrooms and a f{DOT * 5}' mess"
    )
    assert mask("Scunthorpe is a town") == "Scunthorpe is a town"  # whole words only
    assert mask("") == ""


def test_the_shipped_list_is_read_and_documented() -> None:
    shipped = read_list(asset_path(FILE_NAME))
    assert {"fuck", "shit", "cunt"} <= shipped and "evil" not in shipped
    head = asset_path(FILE_NAME).read_text().splitlines()[0]
    assert head.startswith("#")  # it says what it is and how to change it


def test_the_users_list_replaces_the_shipped_one_and_is_read_again_when_changed(
    tmp_path: Path,
) -> None:
    own = tmp_path / FILE_NAME
    own.write_text("# mine\nheck\n")
    mask = LiveMask(own)
    assert mask("heck no fuck") == f"h{DOT * 3} no fuck"
    own.write_text("darn\n")
    os.utime(own, (1, 1))  # another time, whatever the clock's resolution
    assert mask("heck darn") == f"heck d{DOT * 3}"
    own.write_text("")
    os.utime(own, (2, 2))
    assert mask("fuck") == "fuck"  # an empty list of one's own masks nothing
    own.unlink()
    own.mkdir()  # unreadable as a list: the shipped one, and a warning in the log
    assert mask("fuck") == f"f{DOT * 3}"


def test_the_users_list_is_beside_the_settings(monkeypatch: Any, tmp_path: Path) -> None:
    monkeypatch.setenv("DICTATE_CONFIG", str(tmp_path / "conf" / "settings.json"))
    assert user_list_path() == tmp_path / "conf" / FILE_NAME


def test_the_window_masks_the_live_words_and_never_the_settled_ones(window: Any) -> None:
    """The first pass's words (greyed) are masked where listed; Whisper's settled words for
    the segment replace them as said, and the final text has them as said."""
    editor = window.editor
    window.events.dispatch(Partial(0.1, 1, ["good", "old", "fuck", "evil"]))
    assert editor.toPlainText() == f"Good old f{DOT * 3} evil"
    window.events.dispatch(Live(0.2, 1, "", "Good old fuck evil,", ["good", "old", "fuck", "evil"]))
    assert editor.toPlainText() == f"Good old f{DOT * 3} evil,"
    said = "good old folk of evil times"
    window.events.dispatch(
        Segment(0.3, 1, 0.0, 2.0, "silence", [Word(w, 0, 0) for w in said.split()])
    )
    window.events.dispatch(Pending(0.3, 1, "Good old folk of evil times"))
    assert DOT not in editor.toPlainText()
    window.events.dispatch(Partial(0.4, 2, ["oh", "shit"]))
    assert editor.toPlainText().endswith(f"oh s{DOT * 3}")
    window.events.dispatch(Pending(0.5, 2, "Good old folk of evil times. Oh shit"))  # confirmed
    window.events.dispatch(Finalized(0.6, 2, ["Good old folk of evil times.", "Oh shit."]))
    assert editor.text == "Good old folk of evil times. Oh shit."
