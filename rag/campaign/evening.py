"""Which scenes of a session note are the evening around the game, read from their headings alone: the show's
announcements, the break, the questions to the cast ("the evening's own business"), and the story told around this
session's (retold from before, planned for next time).

Apart from ``rag.campaign.table_talk`` (which also reads a scene's lines and the campaign's cast) so that what needs
only a heading (the search's weights, the answerer's quotes, the names the notes write) reads it without the cast.
"""

from __future__ import annotations

import re

from rag.models import Chunk

# the evening's own business, which tells nothing of the characters
_EVENING = (
    r"(?:pre|post|after|before)[\s-]?(?:show|stream|game|session|game chat)",
    r"announcements?",
    r"break",
    r"intermission",
    r"interval",
    r"q\s*&\s*a",
    r"questions? (?:and|&) answers?",
    r"housekeeping",
    r"out[\s-]of[\s-](?:game|character)",
    r"ooc",
    r"table[\s-]talk",
    r"afterword",
    r"sponsors?",
    r"shout[\s-]?outs?",
)
# ...and the story told around this session's: retold from before, planned for next time
_AROUND = (*_EVENING, r"previously(?: on)?", r"last time(?: on)?", r"next (?:session|time|week)")
AROUND_THE_GAME = re.compile(r"^\W*(?:" + "|".join(_AROUND) + r")(?!\w)", re.IGNORECASE)
THE_EVENING = re.compile(r"^\W*(?:" + "|".join(_EVENING) + r")(?!\w)", re.IGNORECASE)


# "Previously on Critical Role", "Last time…", "Last Session Recap", or a heading naming an earlier session ("Session 9
# Recap" in the note of session 10): a scene that retells what happened before this session
_EARLIER = re.compile(r"^\W*(?:previously|last time|(?:last|previous) session)\b", re.IGNORECASE)
_SESSION_NAMED = re.compile(r"\b(?:session|episode)\s*#?\s*(\d+(?:\.\d+)?)\b", re.IGNORECASE)


def retells(chunk: Chunk) -> bool:
    """The passage sits in a scene that retells an earlier session ("Previously on…", "Last time", "Last Session
    Recap", "Session 9 Recap" in session 10's note): what it tells happened then, and is told where it happened
    too."""
    heading = chunk.heading or ""
    if _EARLIER.match(heading):
        return True
    named = _SESSION_NAMED.search(heading)
    return bool(named and chunk.session is not None and float(named.group(1)) < chunk.session)


def around_the_game(heading: str) -> bool:
    """A scene heading that names a part of the evening around the game ("Break", "Q&A", "Pre-Show", "Previously
    on…", "Next Session")."""
    return bool(AROUND_THE_GAME.match(heading or ""))


def the_evening(heading: str) -> bool:
    """A scene heading that names the evening's own business ("Announcements", "Break", "Q&A"), not the story told
    before or planned after this session's: what the players did, not their characters."""
    return bool(THE_EVENING.match(heading or ""))
