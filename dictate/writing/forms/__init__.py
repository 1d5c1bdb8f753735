"""Written forms of spoken English numbers (inverse text normalisation).

:func:`written` rewrites number words in text that the punctuation model has already punctuated
and cased: ``"At nine thirty a m, we paid twenty five dollars."`` becomes ``"At 9:30 a.m., we
paid $25."``. Only the words of a recognised number phrase (and the words it consumes, such as
``dollars``, ``percent``, ``a m``, ``the ... of`` around a date) are replaced; every other word,
mark, space and capital is copied unchanged, the function never raises, and it is idempotent.

House style (the choices a careful editor has to make, following AP style where it is clear):

* Small numbers: zero to nine and first to ninth stay words in running prose ("two cats", "the
  first time", "no one"); 10 and above are digits ("12 people", "the 20th century"). A small
  number becomes digits when it carries a unit, money, time, date, percent, decimal or mixed
  fraction ("2%", "$5", "5 km", "2.5 hours"), or is one end of a range whose other end is
  written in digits ("5 to 10 people", "12 to 9"; "5% to 7%" and "$5 to $10" repeat the
  sign). "a hundred", "a thousand", "a million" stay words unless more follows ("a hundred and
  fifty" -> "150") or they carry money, a percent or a unit ("a hundred dollars" -> "$100").
* Sentence-initial numbers are written like any other (digits from 10): dictation is not
  edited prose, and "25 people came." is what most users expect to see.
* Thousands separators: plain numbers from 10,000 ("12,500"); four-digit numbers have none
  ("1200 people", which also keeps years such as "2008" right); money always from 1,000
  ("$1,200"). Round millions, billions and trillions keep the word: "2 million", "$3.5 billion".
* Decimals are always digits ("3.5", "0.25", "0.5" for "point five" before a unit or percent,
  "1.2.3" for a version number); mixed numbers become decimals where exact in two
  places ("two and a half" -> "2.5", "three and three quarters" -> "3.75") and ``n a/b``
  otherwise ("one and a third" -> "1 1/3"). Simple fractions below one stay words, hyphenated
  ("two-thirds", "three-quarters", "one-half"); with a two-digit part they are digits
  ("11/16"). "half", "a half", "a quarter of" stay words.
* Money: "$25", "$5.50", "€3.5 billion", "£10", "¥500"; an amount in cents alone is "99¢",
  in pence "50p". "pounds" after weighing words or before "of" is a weight ("10 pounds").
* Times: "9:30 a.m.", "9 a.m.", "5 p.m.", "3:30" (half past three), "4:45" (quarter to five),
  "10 o'clock". "a m" / "p m" / "am" / "A M" become "a.m." / "p.m.". An hour and minutes with
  no a.m./p.m. are a time only after "at", "by", "until", "from", "around", "before", "after",
  "since", "about" or "between", or after a time just written ("from 9:30 to 10:15").
* Dates: "July 4", "July 4, 2026", "the fourth of July" -> "July 4" (a capitalised "the Fourth
  of July" without a year is the holiday and stays). A day said as a cardinal ("June twelve")
  is a day only before a year or a mark ("By June ten people left" stays as it is). "May",
  "March" and "August" are months only when capitalised and followed by an ordinal day, or
  after "the fourth of"; "May the ..." and "March the ..." starting a sentence are the verbs
  ("May the fourth be with you").
* Negative numbers: "minus twelve" -> "-12", "negative two point five" -> "-2.5", "minus five
  percent" -> "-5%", "minus five degrees" -> "-5°"; "ten minus two" and "plus or minus two"
  are arithmetic and stay.
* Years: "nineteen ninety nine" -> "1999", "twenty twenty six" -> "2026", "nineteen oh five"
  -> "1905", "two thousand and eight" -> "2008", "the nineteen eighties" -> "the 1980s";
  "the eighties" stays.
* Phone numbers: 7 or 10 (or 11 with a leading one) spoken digits -> "555-1234",
  "555-123-4567", "1-800-555-1234"; other runs of three or more single digits with no commas
  between them are written together ("room one oh one" -> "room 101").
* Units: metric and data units are abbreviated ("5 km", "3.2 kg", "100 MB", "20°C", "60 km/h"),
  imperial units keep their word ("10 miles", "6 feet"), bare degrees are "20°". Durations
  ("five minutes") are prose, not units.
* A number word capitalised in the middle of a sentence is part of a name or title ("the Ten
  Commandments") and stays. Two number phrases side by side that form no known pattern
  ("twelve fifteen" with nothing to say it is a time, "twenty four seven") stay words: there is
  no safe reading.
"""

from __future__ import annotations

import logging

from dictate.errors import log_failure
from dictate.writing.forms.core import _rewrite
from dictate.writing.forms.lexicon import VOCABULARY
from dictate.writing.forms.numbers import _parse_int as _parse_int
from dictate.writing.forms.options import _DEFAULT, WrittenOptions
from dictate.writing.forms.tokens import _Text as _Text

# The private names above are part of what ``forms`` offers its tests: they call ``_rewrite``
# (with ``_DEFAULT``), ``_Text`` and ``_parse_int``, and patch ``_rewrite`` here, which is why
# :func:`written` is defined in this module and looks ``_rewrite`` up in it.

__all__ = ["VOCABULARY", "WrittenOptions", "written"]

log = logging.getLogger(__name__)


def written(text: str, options: WrittenOptions | None = None) -> str:
    """Write the spoken numbers in punctuated, cased text in their written forms.

    Args:
        text: Text as the punctuation model writes it: "We met at nine thirty a m."
        options: House style; the defaults are described in the module documentation.

    Returns:
        The text with numbers, money, times, dates, percentages, measures and phone numbers in
        their written forms ("We met at 9:30 a.m."); every other word, mark and space as it
        was. Never raises: on an internal error the text comes back unchanged (and is logged).
    """
    try:
        return _rewrite(text, options or _DEFAULT)
    except Exception:  # a bug must never lose the user's dictation
        log_failure(log, "written forms failed; text left as dictated")
        return text
