"""How words not final yet are shown, in the editor and the overlay alike: their greys (the
text colour moved towards the background, on any palette), and the newest words that fit a
small space (:func:`elide_start`)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor

PENDING_MIX = 0.45
"""How far the pending words' colour moves from the text colour towards the background."""
PARTIAL_MIX = 0.6
"""As :data:`PENDING_MIX`, for the partial words still being spoken (lighter)."""
LINE_CHARS = 48
"""The words area is about this many average characters wide."""
LINES = 2
"""The words area shows at most this many lines (the newest words)."""
MAX_CHARS = LINES * LINE_CHARS
"""A cheap cap on the shown text before it is measured."""
ELLIPSIS = "…"


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` towards ``b`` (greying text on any palette, dark or light)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def elide_start(
    pending: str, partial: str, fits: Callable[[str], bool], max_chars: int = MAX_CHARS
) -> tuple[str, str]:
    """The pending and partial words that fit, dropping whole words from the start.

    Args:
        pending: Words not yet final (shown first).
        partial: Words still being recognised (shown after the pending ones).
        fits: Whether a plain text fits the space (e.g. in two lines of a label).
        max_chars: The longest text to consider at all.

    Returns:
        ``(pending, partial)`` as shown: the newest words that fit, with an ellipsis in front of
        the first part shown when words were dropped. A single word too long to fit keeps its
        last characters.
    """
    first = pending.split()
    second = partial.split()
    words = first + second
    if not words:
        return "", ""

    def text(start: int) -> str:
        joined = " ".join(words[start:])
        return joined if start == 0 else ELLIPSIS + joined

    def ok(start: int) -> bool:
        shown = text(start)
        return len(shown) <= max_chars and fits(shown)

    last = len(words) - 1
    if not ok(last):  # one word longer than the whole space: its end is the newest part
        word = words[last]
        keep = min(len(word), max(1, max_chars - 1))
        while keep > 1 and not fits(ELLIPSIS + word[-keep:]):
            keep -= 1
        cut = ELLIPSIS + word[-keep:]
        return ("", cut) if second else (cut, "")
    low, high = 0, last  # ok() holds at high; find the smallest start where it holds
    while low < high:
        middle = (low + high) // 2
        if ok(middle):
            high = middle
        else:
            low = middle + 1
    start = low
    prefix = ELLIPSIS if start > 0 else ""
    shown_first = words[start : len(first)]
    shown_second = words[max(start, len(first)) :]
    if shown_first:
        return prefix + " ".join(shown_first), " ".join(shown_second)
    return "", prefix + " ".join(shown_second)
