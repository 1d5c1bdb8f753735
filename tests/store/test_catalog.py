"""The catalogue of official Vosk models: names, sizes, download URLs and mirrors."""

from __future__ import annotations

import re

import pytest

from dictate.errors import InputError
from dictate.store.catalog import (
    BASE_URL_ENV,
    CATALOG,
    RECOMMENDED,
    CatalogEntry,
    catalog_entry,
    download_url,
    find_entry,
    format_size,
)

SMALL = "vosk-model-small-en-us-0.15"
LGRAPH = "vosk-model-en-us-0.22-lgraph"
LARGE = "vosk-model-en-us-0.22"


def test_catalogue_has_the_official_english_models() -> None:
    names = [entry.name for entry in CATALOG]
    assert names == [SMALL, LGRAPH, LARGE]
    assert RECOMMENDED == SMALL
    assert [entry.recommended for entry in CATALOG] == [True, False, False]
    for entry in CATALOG:
        assert entry.url == f"https://alphacephei.com/vosk/models/{entry.name}.zip"
        assert entry.description
    sizes = [entry.approx_bytes for entry in CATALOG]
    assert sizes == sorted(sizes)
    assert format_size(find_entry(SMALL).approx_bytes) == "40 MB"
    assert format_size(find_entry(LARGE).approx_bytes) == "1.8 GB"


def test_find_entry_unknown_lists_names() -> None:
    assert isinstance(find_entry(LGRAPH), CatalogEntry)
    with pytest.raises(InputError, match=re.escape(SMALL)):
        find_entry("vosk-model-fr")


def test_download_url_honours_mirror_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert download_url(SMALL) == find_entry(SMALL).url
    monkeypatch.setenv(BASE_URL_ENV, "https://mirror.example/vosk/")
    assert download_url(SMALL) == f"https://mirror.example/vosk/{SMALL}.zip"


def test_catalog_entry_is_none_for_other_names() -> None:
    assert catalog_entry(SMALL) == find_entry(SMALL)
    assert catalog_entry("my-own-model") is None
    assert format_size(999) == "999 B"
    assert format_size(12_345_678) == "12 MB"


def test_format_size_says_terabytes_and_petabytes() -> None:
    """A server may announce any size; the refusal said "1000000 GB" for a petabyte."""
    assert format_size(3 * 10**12) == "3.0 TB"
    assert format_size(10**15) == "1.0 PB"
    assert format_size(25 * 10**15) == "25 PB"
