"""Dates as players write them: in front matter ("2023-12-1", "1 Dec 2023", "Dec 1, 2023", "2022-Jan-15") and in file names
("2023-04-01 The Heist"). Read by the timeline (when a session was played) and by the notes reader (session
notes named by their date are numbered in date order: ``rag.ingest.dated_sessions``)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

_FORMATS = (
    "%Y-%m-%d",
    "%Y-%b-%d",
    "%Y-%B-%d",
    "%d %b %Y",
    "%d %B %Y",
    "%B %d %Y",
    "%b %d %Y",
    "%m/%d/%Y",
    "%d.%m.%Y",
    "%Y/%m/%d",
)
_WEEKDAY = re.compile(r"^(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?\.?\s+", re.I)
_DAY_OF = re.compile(r"\b(\d{1,2})\s+of\s+", re.I)  # "19 of November": the day of a month
# Year first, the one order of digits that cannot be misread ("04-01-2023" is April or January by country):
# "2023-04-01", "2023_04_01", "2023.04.01", "20230401", alone or among other words of a name.
_NAME_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)([-_.]?)(\d\d?)\2(\d\d?)(?!\d)")


def parse_date(written: str) -> dt.date | None:
    """A date as people write it in front matter ("2023-12-1", "1 Dec 2023", "Dec 1, 2023", with its weekday and
    "of": "Wednesday, 19th of November, 2025"), or None."""
    text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", written.strip().replace(",", " "))
    text = " ".join(_WEEKDAY.sub("", _DAY_OF.sub(r"\1 ", text)).split())  # "Wednesday, 19th of November, 2025"
    m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T].*)?", text)
    if m:
        try:
            return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    for fmt in _FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def is_day(name: str) -> bool:
    """The name is a date and nothing else ("2025-02-04", "4 Feb 2025"): a daily note's. "2025-02-04 Session 3" is a
    session's note named by its day (``date_in_name``)."""
    if re.match(r"\d{4}-", name):  # ``parse_date`` reads a time, or anything, after a year-first date
        month = r"(?:\d{1,2}|[A-Za-z]{3,9})"  # "2022-01-15", "2022-Jan-15"
        return re.fullmatch(rf"\d{{4}}-{month}-\d{{1,2}}", name.strip()) is not None and parse_date(name) is not None
    return parse_date(name) is not None


def date_in_name(name: str) -> dt.date | None:
    """The first year-first date in a file or note name, or None ("2023-04-01 - The Heist" → 2023-04-01)."""
    for m in _NAME_DATE.finditer(name):
        year, _, month, day = m.groups()
        if not m.group(2) and (len(month) != 2 or len(day) != 2):
            continue  # "2023411" is no date; undivided, a date is eight digits
        try:
            return dt.date(int(year), int(month), int(day))
        except ValueError:
            continue
    return None


def first_day(written: Iterable[str]) -> dt.date | None:
    """The earliest of the dates ``written`` that read as one: the day a session was played when its notes give
    two (one player wrote hers up the day after). The timeline and the sidebar's "As of session" both say it."""
    return min(filter(None, map(parse_date, written)), default=None)
