"""The one function the pipeline applies to punctuated text: written forms, then the user's
replacements (so a replacement can name a written form, and sees sentence capitals)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def make_writer(
    written_forms: bool, replacements: Sequence[Any] = ()
) -> Callable[[str], str] | None:
    """The text function for these settings; None when it would change nothing.

    Args:
        written_forms: Apply :func:`dictate.writing.forms.written`.
        replacements: The user's replacements: :class:`~dictate.writing.replacements.Replacement`
            objects, or the settings file's ``{"spoken": ..., "written": ...}`` objects (bad
            entries are skipped; the settings dialog reports them).
    """
    if not written_forms and not replacements:
        return None
    from dictate.writing.forms import written
    from dictate.writing.replacements import Replacement, apply_replacements, parse_replacements

    rules = [r for r in replacements if isinstance(r, Replacement)]
    raw = [r for r in replacements if not isinstance(r, Replacement)]
    if raw:
        rules += parse_replacements(raw)[0]
    if not written_forms and not rules:
        return None

    def write(text: str) -> str:
        if written_forms:
            text = written(text)
        if rules:
            text = apply_replacements(text, rules)
        return text

    return write
