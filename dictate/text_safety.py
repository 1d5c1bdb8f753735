"""Text from outside the app (file and device names, vocabulary entries, window titles, words
typed into other applications) made safe where it is shown or sent on.

The characters in question (:data:`CONTROL`): the C0 and C1 control characters (ESC starts the
terminal's escape sequences, which move the cursor, recolour or retitle the terminal; U+009B is
the one-character CSI), the line and paragraph separators U+2028 and U+2029 (a line break in
JSON readers and editors, not in ``json.dumps``'s eyes) and the bidirectional controls
(U+202E, "right-to-left override", shows ``gpj.exe`` for ``exe.jpg``)."""

from __future__ import annotations

import json
import re
from typing import Any

CONTROL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)

_UNESCAPED_BY_JSON = re.compile(CONTROL.pattern.replace("\\x00-\\x1f", ""))


def controls_in(text: str) -> list[str]:
    """The characters of :data:`CONTROL` in ``text``, as ``U+XXXX``, in order, once each."""
    return list(dict.fromkeys(f"U+{ord(c):04X}" for c in CONTROL.findall(text)))


def shown(text: str) -> str:
    """``text`` safe to print on one line of a terminal: each character of :data:`CONTROL`
    written as its JSON escape (``\\n``, ``\\u001b``), as ``--json`` writes them."""
    return CONTROL.sub(lambda m: json.dumps(m.group())[1:-1], text)


def json_text(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)`` with the characters of :data:`CONTROL` escaped
    as well (``json.dumps`` leaves the C1 controls, U+2028 and the bidirectional controls raw):
    still JSON, the same value when read back."""
    text = json.dumps(value, ensure_ascii=False, **options)
    # json.dumps escapes U+0000 to U+001F in strings: those left are its own line breaks
    return _UNESCAPED_BY_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def without_controls(text: str, keep: str = "\n\t") -> str:
    """``text`` without the characters of :data:`CONTROL`, but those in ``keep``: for keys sent
    to another application, where an escape sequence would be keys pressed."""
    return CONTROL.sub(lambda m: m.group() if m.group() in keep else "", text)
