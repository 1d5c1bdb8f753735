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
  sign; the "to", "or", "and" of a range is kept as said, never a dash). "a hundred", "a
  thousand", "a million" stay words unless more follows ("a hundred and fifty" -> "150") or
  they carry money, a percent or a unit ("a hundred dollars" -> "$100"). A small number after
  a label is in digits too (see Labels).
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
  "10 o'clock". "a m" / "p m" / "am" / "pm" / "p.m." / "A M" become "a.m." / "p.m.", and a
  time zone after them is kept as written ("3 p.m. EST"). An hour (1 to 12) and minutes with
  no a.m./p.m. are a time only after "at", "by", "until", "from", "around", "before", "after",
  "since", "about" or "between"; after "it is", "it's", "it was" (with or without "now") and
  "the time (deadline, curfew, ...) is/was" ("It is 8:45", "The time now is 4:05"); after "set
  the alarm for", "scheduled for", "moved to" and the like; or after a time just written ("from
  9:30 to 10:15"). Not before money, a unit, "percent" or a count ("at twelve fifty dollars"),
  and never from an hour above 12 ("the score is twenty fifteen"). The same contexts allow
  "five till ten" / "ten to six" (9:55, 5:50); "ten past six", "a quarter after nine", "twenty
  five past eleven" need none. "twelve noon" / "twelve midnight" -> "12 noon" / "12 midnight";
  "noon" and "midnight" stay words; "at three in the afternoon" -> "at 3 in the afternoon" (a
  bare "at nine" stays). Military times keep four digits: "oh five hundred [hours]" -> "0500
  [hours]", "at oh six thirty" -> "0630", "thirteen hundred hours" -> "1300 hours". An hour
  and minutes that are the whole phrase are a time too ("Two thirty." -> "2:30."); "o" is
  "oh" ("eight o six" -> "8:06"), "oclock" is "o'clock"; minutes counted with "minute(s)" or
  "min" before "past"/"to" ("one min to one am" -> "12:59 a.m.", "three minutes past six" ->
  "6:03") need a.m./p.m., a time context or the phrase's start when they count to the hour.
* Dates: "July 4", "July 4, 2026", "the fourth of July" -> "July 4" (a capitalised "the Fourth
  of July" without a year is the holiday and stays). A day said as a cardinal ("June twelve")
  is a day only before a year or a mark ("By June ten people left" stays as it is). "May",
  "March" and "August" are months only when capitalised and followed by an ordinal day, or
  after "the fourth of"; "May the ..." and "March the ..." starting a sentence are the verbs
  ("May the fourth be with you").
* Negative numbers: "minus twelve" -> "-12", "negative two point five" -> "-2.5", "minus five
  percent" -> "-5%", "minus five degrees" -> "-5°"; "ten minus two" and "plus or
  minus two" are arithmetic and stay; with money the sign stays a word ("minus $5").
* Years: "nineteen ninety nine" -> "1999", "twenty twenty six" -> "2026", "nineteen oh five"
  -> "1905", "two thousand and eight" -> "2008", "the nineteen eighties" -> "the 1980s";
  "the eighties" stays. Two numbers after "score", "won", "beat" ... are no year ("the score
  is twenty fifteen" stays), unless "in", "since" ... comes first.
* Labels: a number after a word that names a numbered part or place is in digits even when
  small, so a sentence stays consistent: "chapter 11 verse 3", "page 5", "pages 5 to 9",
  "chapters 3 and 4", "page 2 of 3", "season 1 episode 4", "act 1 scene 2", "step 2", "room
  4", "gate 5", "size 8", "number 7". The labels: chapter, verse, page, step, room, section,
  volume, season, episode, level, figure, table, exercise, line, number, act, scene, question,
  item, grade, lesson, paragraph, article, appendix, track, gate, platform, slide, row, seat,
  aisle, lane, terminal, bay, channel, stage, phase, round, game, size, unit, psalm, version,
  option (and their plurals). Not "day", "week", "year" or "part" ("from day one"). "one"
  after a label is "1" only at the end of a phrase or before another label, "and", "to",
  "is", ... ("step 1 is easy", but "my number one fan", "the line one must not cross"); a
  number before a count stays a word ("in line two hours").
* Heights and lengths in feet and inches: "six foot two", "six feet two inches", "five foot
  eleven" -> "6 ft 2 in", "5 ft 11 in" (without "inches", only up to eight feet). Feet alone
  keep their word as said: "6 feet", "5 foot".
* Slashed pairs: "twenty four seven" -> "24/7"; "twenty twenty vision", "hindsight is twenty
  twenty" -> "20/20". "twenty four hours a day" is a count: "24 hours a day".
* Phone numbers: 7 or 10 (or 11 with a leading one) spoken digits -> "555-1234", "555-123-4567",
  "1-800-555-1234", whatever commas the punctuation model put between the groups. "oh", "zero"
  and "nought" are 0, "double five" is 55, "triple nine" 999. Inside a group a part may be said
  as a number: "five five five, twelve thirty four" -> "555-1234", "eight hundred ..." ->
  "800-...", "... seventy one hundred" -> "...-7100". "area code" is kept as said ("area code
  312-555-0100"). With "plus" the country code (prefix-free: 1 and 7 are one digit, 20, 27, 3x,
  4x, 5x, 6x, 8x, 9x as listed in ``digits``, others three) is followed by a space: "+1
  617-555-0142"; "+44 20 7946 0958" (UK numbers: London and other 02 numbers 2-4-4, mobiles 7xxx
  6 digits, 011x and 01x1 3-3-4, other 01 numbers 4-6, the rest 3-3-4); any other country keeps
  its digits as said, split only where the speaker paused ("+33 1 23 45 67 89", "+49
  3012345678"); "double oh" (a leading 00) before ten or more digits dials out like "plus"
  ("double oh four four ..." -> "+44 ..."). 11 digits from a 0 ("oh", "zero") are a UK number
  with the same groups and its leading 0: "oh two oh seven ..." -> "020 7946 0958", "07700
  900123", "0161 496 0000". "extension" (or "ext") after a phone number becomes "ext."
  ("555-1234, ext. 23"); without a phone number before it, it stays ("extension 2345").
* Card numbers and codes: 16 digits said one by one are a card number in groups of four
  ("4111 1111 1111 1111"; 15 from 34 or 37 are American Express, "3782 822463 10005"), never a
  phone number. After a word that makes them a code (PIN, code, passcode, zip, account, card,
  order, serial, ID, confirmation, extension, room, flight, gate, ... up to four words before,
  with "number", "is", "my" and the like between) the digits are one string, however many and
  wherever the commas fell: "my pin is four seven one two" -> "my pin is 4712", "the order
  number is 5551234", "the extension is 42" (two digits are enough there). Elsewhere runs of
  three or more single digits with no commas between them are written together ("room one oh
  one" -> "room 101", "Agent double oh seven" -> "Agent 007"). Counting stays ("one, two,
  three, four"), as does a lone "double six" and numbers said in pairs outside a phone number
  ("the code is forty seven twelve"). Nine digits after "SSN" or "social security (number)" are
  "123-45-6789".
* Units: metric and data units are abbreviated ("5 km", "3.2 kg", "100 MB", "20°C", "60 km/h"),
  imperial units keep their word ("10 miles", "6 feet"; feet with inches are "6 ft 2 in", see
  Heights), bare degrees are "20°". Durations
  ("five minutes") are prose, not units.
* A number word capitalised in the middle of a sentence is part of a name or title ("the Ten
  Commandments") and stays. Two number phrases side by side that form no known pattern
  ("twelve fifteen" with nothing to say it is a time, "a Boeing seven forty seven") stay words:
  there is no safe reading.
"""

from __future__ import annotations

import logging

from dictate.errors import log_failure
from dictate.writing.forms.core import _rewrite
from dictate.writing.forms.lexicon import VOCABULARY
from dictate.writing.forms.numbers import _parse_int as _parse_int
from dictate.writing.forms.options import _DEFAULT, WrittenOptions
from dictate.writing.forms.tokens import _Text as _Text
from dictate.writing.units import join_in_text

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
        The text with spelled letters, e-mail and web addresses joined
        (:func:`dictate.writing.units.join_in_text`) and numbers, money, times, dates,
        percentages, measures and phone numbers in their written forms ("We met at 9:30
        a.m."); every other word, mark and space as it was. Never raises: on an internal
        error the text comes back unchanged (and is logged).
    """
    try:
        return _rewrite(join_in_text(text), options or _DEFAULT)
    except Exception:  # a bug must never lose the user's dictation
        log_failure(log, "written forms failed; text left as dictated")
        return text
