"""Questions about the order of things, turned into session filters: "what happened between sessions 10 and
12?", "what did we do last session?", "what did we know before we reached Omu?", "since session 20".

The timeline knows which sessions exist and when each entity first appears, so these questions need no
model: each becomes a session range the search keeps to (and the answer's trace shows). It only ever narrows
what the player's own "as of session" cap allows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.models import Filters
from rag.question import StoryOrder


def session_order(
    order: StoryOrder | None, filters: Filters, sessions: Sequence[float], first_seen: Callable[[str], float | None]
) -> Filters:
    """``filters`` narrowed to the sessions the question's wording points at (``Question.order``; unchanged when
    they are beyond the cap). ``sessions``: the numbered sessions in the notes; ``first_seen``: the first session
    a name is linked in, or None."""
    if order is None:
        return filters
    cap = filters.session_max
    allowed = sorted(
        s for s in sessions if (cap is None or s <= cap) and (filters.session_min is None or s >= filters.session_min)
    )
    if not allowed:
        return filters
    low, high = order.low, order.high
    if order.kind == "last":
        low = high = allowed[-1]
    elif order.kind == "before":
        first = first_seen(order.place)
        earlier = [s for s in allowed if first is not None and s < first]
        if not earlier:
            return filters
        high = earlier[-1]
    if filters.session_min is not None:  # the player's own bounds still hold
        low = filters.session_min if low is None else max(low, filters.session_min)
    if cap is not None:
        high = cap if high is None else min(high, cap)
    if low is not None and high is not None and low > high:
        return filters
    return Filters(**{**vars(filters), "session_min": low, "session_max": high})
