"""Dates in passages, for answers to "when": the date a passage was written (a conversation turn opens with it,
"1:56 pm on 8 May, 2023: …") and a time expression inside it resolved against that date ("last Saturday" said on
8 May 2023 is 6 May 2023)."""

from __future__ import annotations

import re
from datetime import date, timedelta

MONTH_NAMES = "january february march april may june july august september october november december".split()
WEEKDAY_NAMES = "monday tuesday wednesday thursday friday saturday sunday".split()
COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "couple of": 2}
_MONTH = "|".join(MONTH_NAMES)
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH}),?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({_MONTH}),?\s+(\d{{4}})\b", re.I)
_CAPITALISED_MONTH = "|".join(name.capitalize() for name in MONTH_NAMES)  # "may" alone is a verb
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_CAPITALISED_MONTH})\b")
# "June 11th", "June 11," or "June 11" at a sentence's end: not "in March 2 services went down"
_MONTH_DAY = re.compile(
    rf"\b({_CAPITALISED_MONTH})\s+(\d{{1,2}})(?:(?:st|nd|rd|th)\b|(?=[,.;:!?)]|\s*$|\s+(?:at|and|to|until)\b))"
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"\b(?:in|since|of|from)\s+((?:19|20)\d{2})\b")
_RELATIVE = re.compile(
    r"\b(yesterday|last night|today|tonight|this (?:morning|afternoon|evening)|tomorrow|"
    rf"last ({'|'.join(WEEKDAY_NAMES)})|this past ({'|'.join(WEEKDAY_NAMES)})|"
    r"last (week(?:end)?|month|year|summer|winter|spring|fall)|next (week|month|year)|this (week|month|year)|"
    r"(a|an|one|two|three|four|five|six|couple of|few|\d+) (day|week|month|year)s? ago)\b",
    re.I,
)


def _on(day: date) -> str:
    return f"{day.day} {MONTH_NAMES[day.month - 1].capitalize()} {day.year}"


def _month(year: int, month: int) -> str:
    while month < 1:
        year, month = year - 1, month + 12
    while month > 12:
        year, month = year + 1, month - 12
    return f"{MONTH_NAMES[month - 1].capitalize()} {year}"


def written_on(text: str) -> date | None:
    """The first full date in the text (a conversation turn opens with its own), or None."""
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy"), (_ISO, "ymd")):
        match = pattern.search(text)
        if match:
            parts = dict(zip(order, match.groups(), strict=True))
            month = int(parts["m"]) if parts["m"].isdigit() else MONTH_NAMES.index(parts["m"].lower()) + 1
            try:
                return date(int(parts["y"]), month, int(parts["d"]))
            except ValueError:
                return None
    return None


def _relative(expression: str, said: date) -> str:
    words = expression.lower().split()
    if words[0] in ("yesterday",) or expression.lower() == "last night":
        return _on(said - timedelta(days=1))
    if words[0] in ("today", "tonight") or (words[0] == "this" and words[1] in ("morning", "afternoon", "evening")):
        return _on(said)
    if words[0] == "tomorrow":
        return _on(said + timedelta(days=1))
    if words[-1] in WEEKDAY_NAMES:  # the latest such weekday before the day it was said
        back = (said.weekday() - WEEKDAY_NAMES.index(words[-1])) % 7 or 7
        return _on(said - timedelta(days=back))
    if words[-1] == "ago":
        count = COUNTS.get(" ".join(words[:-2]), int(words[0]) if words[0].isdigit() else 0)
        unit = words[-2].rstrip("s")
        if not count:
            return f"a few {unit}s before {_on(said)}"
        if unit == "day":
            return _on(said - timedelta(days=count))
        if unit == "year":
            return str(said.year - count)
        if unit == "month":
            return _month(said.year, said.month - count)
        return f"{words[0]} {unit}{'s' if count > 1 else ''} before {_on(said)}"
    period, step = words[-1], {"last": -1, "next": 1, "this": 0}[words[0]]
    if period == "year":
        return str(said.year + step)
    if period == "month":
        return _month(said.year, said.month + step)
    if period in ("summer", "winter", "spring", "fall"):
        return f"{period} {said.year if period != 'winter' else said.year - 1}"
    where = {-1: "before", 1: "after", 0: "of"}[step]
    return f"the {period} {where} {_on(said)}"


def when_in(sentence: str, said: date | None) -> str | None:
    """The time a sentence speaks of: a date it names, or its time expression resolved against `said`."""
    explicit = written_on(sentence)
    if explicit:
        return _on(explicit)
    month_year = _MONTH_YEAR.search(sentence)
    if month_year:
        return f"{month_year.group(1).capitalize()} {month_year.group(2)}"
    relative = _RELATIVE.search(sentence)
    if relative and said:
        return _relative(relative.group(0), said)
    days = days_named(sentence)
    if days:
        return _day_of(*days[0], said)
    year = _YEAR.search(sentence)
    if year:
        return year.group(1)
    return None


def _day_of(day: int, month: int, said: date | None) -> str | None:
    """A day named without its year, in the year that puts it closest to when it was said ("We moved in on 20
    December" said in March 2023 is 20 December 2022), or as named when that is not known; None for no such day."""
    try:
        date(2000, month, day)  # a leap year: 29 February is a day
    except ValueError:
        return None
    if said is None:
        return f"{day} {MONTH_NAMES[month - 1].capitalize()}"
    years = [year for year in (said.year - 1, said.year, said.year + 1) if month != 2 or day != 29 or year % 4 == 0]
    return _on(min((date(year, month, day) for year in years), key=lambda day_in: abs(day_in - said)))


def days_named(sentence: str) -> list[tuple[int, int]]:
    """The days of a month the sentence names, as (day, month), in the order it names them."""
    found = [(m.start(), int(m.group(1)), m.group(2)) for m in _DAY_MONTH.finditer(sentence)]
    found += [(m.start(), int(m.group(2)), m.group(1)) for m in _MONTH_DAY.finditer(sentence)]
    return [(day, MONTH_NAMES.index(month.lower()) + 1) for _, day, month in sorted(found)]


def said_on(said: date) -> str:
    return _on(said)
