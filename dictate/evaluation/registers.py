"""Per-register evaluation on the held-out slices of the corpora (``corpora/heldout/``).

Each slice is a gzip-compressed JSON Lines file of documents ``{"id", "title", "text"}`` in one
register (fiction, non-fiction, encyclopedia, speeches, meetings, dialogue). Its documents are
read as plain punctuated, cased text (the IWSLT label mapping of
:func:`~dictate.evaluation.readers.parse_punctuated_text`) and scored like ``eval streaming``.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from dictate.errors import InputError
from dictate.evaluation.readers import Reference, parse_punctuated_text

#: The register of each source file (by its name before ``.heldout.jsonl.gz``).
REGISTERS = {
    "gutenberg_literature": "fiction",
    "gutenberg_nonfiction": "non-fiction",
    "wikipedia_vital_summaries": "encyclopedia",
    "us_presidential_speeches": "speeches",
    "ami_meetings": "meetings",
    "sgd_dialogues": "dialogue",
}
SUFFIX = ".heldout.jsonl.gz"


def heldout_files(folder: str | Path) -> list[tuple[str, Path]]:
    """(register, file) of every held-out slice in ``folder``, in the order of :data:`REGISTERS`.

    Raises:
        InputError: ``folder`` is not a folder or holds no ``*.heldout.jsonl.gz`` file.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder; give the corpora's heldout/ folder")
    files = sorted(folder.glob(f"*{SUFFIX}"))
    if not files:
        raise InputError(f"{folder} holds no *{SUFFIX} files; give the corpora's heldout/ folder")
    order = list(REGISTERS)

    def key(path: Path) -> tuple[int, str]:
        stem = path.name[: -len(SUFFIX)]
        return (order.index(stem) if stem in order else len(order), stem)

    return [
        (REGISTERS.get(p.name[: -len(SUFFIX)], p.name[: -len(SUFFIX)]), p)
        for p in sorted(files, key=key)
    ]


def read_documents(path: str | Path) -> Reference:
    """The documents of one slice as one reference (documents and paragraphs kept apart).

    Raises:
        InputError: The file cannot be read, is not gzip-compressed JSON Lines of documents with
            a "text", or holds no words.
    """
    texts = []
    try:
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                document = json.loads(line)
                if not isinstance(document, dict) or not isinstance(document.get("text"), str):
                    raise InputError(f'{path} line {number} is not a document with a "text"')
                texts.append(document["text"])
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {path} as gzip-compressed JSON Lines: {exc}") from None
    if not texts:
        raise InputError(f"{path} holds no documents")
    return parse_punctuated_text("\n\n".join(texts))
