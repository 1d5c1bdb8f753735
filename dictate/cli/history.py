"""``dictate history [--since WHEN] [--json]``: print the dictation history
(:mod:`dictate.editing.history`), oldest first."""

from __future__ import annotations

import argparse
import datetime as dt
import re
import time
from typing import Any

from dictate.cli.common import Streams
from dictate.errors import InputError
from dictate.text_safety import json_text, shown

_AGO = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(spec: str, now: float | None = None) -> float:
    """The time ``spec`` names, in seconds since the epoch: an age ("90s", "30m", "2h", "3d",
    "1w", or several: "1h30m"), a date ("2026-11-24", local midnight) or a date and time
    ("2026-11-24 14:30", "2026-11-24T14:30:00", local unless it gives its offset).

    Raises:
        InputError: ``spec`` is none of these.
    """
    now = time.time() if now is None else now
    text = spec.strip().lower()
    if text and _AGO.sub("", text).strip() == "":
        return now - sum(float(n) * _UNIT_S[unit] for n, unit in _AGO.findall(text))
    try:
        moment = dt.datetime.fromisoformat(spec.strip())
    except ValueError:
        raise InputError(
            f"--since {spec!r}: give an age (30m, 2h, 3d, 1w) or a date (2026-11-24, "
            "2026-11-24 14:30)"
        ) from None
    try:
        return moment.timestamp()  # naive: local time
    except (ValueError, OverflowError, OSError):  # "year 0 is out of range" for 0001-01-01
        raise InputError(
            f"--since {spec!r}: the date is out of the range the clock can tell; give a date "
            "after 1970 (2026-11-24), or an age (3d)"
        ) from None


def entry_json(entry: Any) -> dict[str, Any]:
    local = dt.datetime.fromtimestamp(entry.time).astimezone()
    return {
        "time": local.isoformat(timespec="seconds"),
        "target": entry.target,
        "status": entry.status,
        "text": entry.text,
    }


def run(args: argparse.Namespace, io: Streams) -> int:
    from dictate.config import load_settings
    from dictate.editing.history import FAILED, WINDOW, default_history_path, read_history

    since = parse_since(args.since) if args.since else None
    path = default_history_path()
    try:
        read = read_history(path)
    except OSError as exc:
        raise InputError(
            f"cannot read the history: {exc.strerror or exc}; move it out of the way: dictate "
            "starts a new one"
        ) from None
    entries = [e for e in read.entries if since is None or e.time >= since]
    if args.json:
        io.stdout.write(json_text([entry_json(e) for e in entries], indent=1))
        io.stdout.write("\n")
    for entry in [] if args.json else entries:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time))
        where = "this window" if entry.target == WINDOW else shown(entry.target)
        failed = " [typing failed]" if entry.status == FAILED else ""
        text = "\n    ".join(shown(line) for line in entry.text.split("\n"))
        io.stdout.write(f"{when}  {where}{failed}\n    {text}\n")
    if read.damaged:
        io.err.write(f"dictate: {read.damaged} damaged record(s) of {shown(str(path))} skipped\n")
    if not load_settings().history:
        io.err.write("dictate: the history is off (Settings > Keep a history)\n")
    return 0


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "history",
        help="print the dictation history",
        description="Print the dictation history, oldest first: each finalized sentence with "
        "its time, where it went (this window, or the window typed into; '[typing failed]' "
        "when it could not be typed and was put in the dictate window instead) and its text. "
        "The history is kept in the app's data folder (history/history.jsonl); Settings turn "
        "it off and say how long it is kept.",
    )
    parser.add_argument(
        "--since",
        metavar="WHEN",
        help="only what was dictated since WHEN: an age (30m, 2h, 3d, 1w) or a local date "
        "and time (2026-11-24, '2026-11-24 14:30')",
    )
    parser.add_argument(
        "--json", action="store_true", help="print a JSON array of {time, target, status, text}"
    )
    parser.set_defaults(func=run)
