"""Questions about the order of things, turned into session filters: "what happened between sessions 10 and
12?", "what did we do last session?", "what did we know before we reached Omu?", "since session 20".

The timeline knows which sessions exist and when each entity first appears, so these questions need no
model: each becomes a session range the search keeps to (and the answer's trace shows). It only ever narrows
what the player's own "as of session" cap allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.models import Filters

_NUMBER = r"(\d+(?:\.\d+)?)"
_BETWEEN = re.compile(
    rf"\b(?:between\s+)?(?:sessions?|episodes?)\s+{_NUMBER}\s*(?:and|to|through|-|–)\s*(?:sessions?\s+)?{_NUMBER}\b",
    re.I,
)
_LAST = re.compile(r"\b(?:last|previous|latest|most recent)\s+(?:session|episode|game|time we played)\b", re.I)
_SINCE = re.compile(rf"\b(?:since|after)\s+(?:session|episode)\s+{_NUMBER}\b", re.I)
_BEFORE = re.compile(
    r"\bbefore\s+(?:we|the party|they)\s+(?:first\s+)?(?:reached|got to|arrived (?:at|in)|met|found|went to|entered)\s+"
    r"(?:the\s+)?(.+?)[?.!]*$",
    re.I,
)
ORDER_WORDS = re.compile(r"\b(?:between|last|previous|latest|most recent|since|after|before)\b", re.I)


def session_order(
    question: str, filters: Filters, sessions: Sequence[float], first_seen: Callable[[str], float | None]
) -> Filters:
    """``filters`` narrowed to the sessions the question's wording points at (unchanged when it points at none,
    or at sessions beyond the cap). ``sessions``: the numbered sessions in the notes; ``first_seen``: the first
    session a name is linked in, or None."""
    cap = filters.session_max
    allowed = sorted(
        s for s in sessions if (cap is None or s <= cap) and (filters.session_min is None or s >= filters.session_min)
    )
    if not allowed:
        return filters
    low = high = None
    if m := _BETWEEN.search(question):
        low, high = sorted((float(m.group(1)), float(m.group(2))))
    elif _LAST.search(question):
        low = high = allowed[-1]
    elif m := _SINCE.search(question):
        low = float(m.group(1)) + (0.5 if m.group(0).lower().startswith("after") else 0)
    elif m := _BEFORE.search(question):
        first = first_seen(m.group(1).strip())
        earlier = [s for s in allowed if first is not None and s < first]
        if not earlier:
            return filters
        high = earlier[-1]
    else:
        return filters
    if filters.session_min is not None:  # the player's own bounds still hold
        low = filters.session_min if low is None else max(low, filters.session_min)
    if cap is not None:
        high = cap if high is None else min(high, cap)
    if low is not None and high is not None and low > high:
        return filters
    return Filters(**{**vars(filters), "session_min": low, "session_max": high})
