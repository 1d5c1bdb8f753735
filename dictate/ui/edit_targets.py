"""Where the window's dictation goes: pipeline events as edits of its editor
(:class:`EditorTarget`, corrections by voice included), or typed into other applications
through its typing queue (:class:`WindowTypingTarget`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dictate.editing import voice_edits
from dictate.editing.apply import EditTarget
from dictate.output.typist import TypingTarget

if TYPE_CHECKING:
    from dictate.ui.window_api import Window


def _not_found(words: str) -> str:
    return f"\u201c{words}\u201d is not in the text: what was said is written as dictation."


class EditorTarget(EditTarget):
    """Pipeline events as edits of the window's editor."""

    def __init__(self, window: Window) -> None:
        self._window = window

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        self._window.editor.edits.insert_final(sentences, pending, continues)
        learning = self._window.event_view.learning
        if learning is not None and sentences:
            learning.finalized(sentences)

    def show_pending(self, text: str, segment: int) -> None:
        window = self._window
        clear_partial = window.event_view.partial_segment <= segment
        window.editor.edits.set_dictation(pending=text, partial="" if clear_partial else None)

    def line_break(self, paragraph: bool) -> None:
        self._window.editor.edits.insert_break(paragraph=paragraph)

    def scratch(self, target: str) -> None:
        editor = self._window.editor
        selected = editor.buffer.selection is not None
        if target != "pending" and selected and editor.edits.voice(voice_edits.delete_selection):
            self._say("Deleted the selection (Ctrl+Z brings it back).")
            return
        removed = editor.edits.scratch(target)
        said = {
            "pending": "Scratched the words not yet final.",
            "sentence": "Scratched the last sentence (Ctrl+Z brings it back).",
        }
        self._say(said.get(removed, "Nothing to scratch."))

    def undo(self) -> None:
        self._window.editor.edits.undo()

    def stop(self) -> None:
        self._say("Stopped dictating (voice command).")

    def select(self, words: str) -> bool:
        span = self._window.editor.edits.voice(lambda buffer: voice_edits.select(buffer, words))
        if span is None:
            self._say(_not_found(words) if words else "Nothing to select.")
        else:
            self._say("Selected: say the words to put in its place, or \u201cdelete that\u201d.")
        return span is not None

    def recase(self, style: str) -> None:
        span = self._window.editor.edits.voice(lambda buffer: voice_edits.recase(buffer, style))
        if span is None:
            self._say("Nothing to change: select some words first.")

    def insert_at(self, words: str, after: bool) -> bool:
        found = self._window.editor.edits.voice(
            lambda buffer: voice_edits.insert_at(buffer, words, after)
        )
        where = "after" if after else "before"
        self._say(
            f"Dictating {where} \u201c{words}\u201d (\u201cgo back\u201d returns)."
            if found
            else _not_found(words)
        )
        return found

    def go(self, where: str) -> None:
        if not self._window.editor.edits.voice(lambda buffer: voice_edits.go(buffer, where)):
            self._say("Nowhere to go back to.")

    def delete_last(self, unit: str) -> None:
        removed = self._window.editor.edits.voice(
            lambda buffer: voice_edits.delete_last(buffer, unit)
        )
        self._say(f"Deleted the last {unit}." if removed else f"No {unit} to delete.")

    def press_key(self, key: str) -> None:
        editor = self._window.editor
        if key == "enter":
            editor.edits.insert_break()
        elif key == "tab":
            editor.edits.voice(lambda buffer: buffer.voice_edit(buffer.point, buffer.point, "\t"))
        else:  # escape: the selection made by voice is let go
            editor.edits.voice(lambda buffer: buffer.voice_move(buffer.point, inside=False))

    def show_help(self) -> None:
        self._window.show_voice_commands()

    def correct(self, words: str) -> bool:
        editor = self._window.editor
        reselect = words or editor.buffer.selection is None
        if (
            reselect
            and editor.edits.voice(lambda buffer: voice_edits.select(buffer, words)) is None
        ):
            self._say(_not_found(words) if words else "Nothing to correct.")
            return False
        self._window.event_view.offer_corrections()
        return True

    def choose(self, number: int) -> None:
        if not self._window.event_view.choose_correction(number):
            self._say(f"There is no alternative {number}: say \u201ccorrect that\u201d first.")

    def spell(self) -> None:
        self._say("Spell it: letters, or alpha, bravo\u2026 (\u201ccap\u201d before a capital).")
        learning = self._window.event_view.learning
        if learning is not None:
            learning.expect_spelling()

    def asleep(self, sleeping: bool) -> None:
        self._window.event_view.set_asleep(sleeping)

    def learn(self) -> None:
        buffer = self._window.editor.buffer
        learning = self._window.event_view.learning
        if buffer.selection is None or learning is None:
            self._say("Select the words to add first (\u201cselect WORDS\u201d), then say "
                      "\u201cadd that to my words\u201d.")  # fmt: skip
            return
        start, end = buffer.selection
        learning.add_words(buffer.text[start:end])

    def play_back(self) -> None:
        keeper = getattr(self._window, "kept_audio", None)  # MainWindow's (the kept audio)
        if keeper is None:
            self._say("No audio is kept here.")
        else:
            keeper.play_back()

    def _say(self, text: str) -> None:
        self._window.statusBar().showMessage(text, 5000)


class WindowTypingTarget(TypingTarget):
    """Pipeline events typed into other applications through the window's typing queue:
    Return for the breaks, BackSpace over what was typed last for "scratch that" (never after
    the focus moved to another window), the keys said. "Undo that", "stop dictating", "what
    can I say" and sleep act in the window; the corrections that need a view of the text say
    in the overlay that they work in the window only."""

    def __init__(self, window: Window, queue: Any) -> None:
        super().__init__(queue.submit)
        self._window = window
        self._editor = EditorTarget(window)

    def undo(self) -> None:
        self._editor.undo()

    def stop(self) -> None:
        self._editor.stop()

    def show_help(self) -> None:
        self._editor.show_help()

    def asleep(self, sleeping: bool) -> None:
        self._editor.asleep(sleeping)

    def window_only(self, what: str) -> None:
        text = f"\u201c{what}\u201d works in the dictate window only"
        overlay = self._window.feedback.overlay
        if overlay is not None and overlay.isVisible():
            overlay.show_notice(text)
        self._window.statusBar().showMessage(text + ".", 5000)
