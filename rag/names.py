"""Proper names in a question, by capitalisation: what follow-ups carry over and first-mention looks up."""

from __future__ import annotations

import re

_NAME = re.compile(r"\b[A-Z][\w'’-]+(?:\s+(?:of|de|the)?\s*[A-Z][\w'’-]+)*")
_NOT_NAMES = {"What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "Did", "Does", "Do", "Is",
              "Was", "Were", "Are", "And", "But", "So", "Then", "The", "A", "An", "In", "On", "After", "Before",
              "Session", "Episode", "Tell", "Can", "Could", "Would", "Has", "Had", "Have", "I", "If"}


def names(text: str) -> list[str]:
    """Runs of capitalised words, without a leading question word: "When did Vox Machina first meet
    Clarota?" → ["Vox Machina", "Clarota"]."""
    out = []
    for m in _NAME.finditer(text):
        parts = m.group(0).split()
        while parts and parts[0] in _NOT_NAMES:
            parts = parts[1:]
        if parts:
            out.append(" ".join(parts))
    return out


def norm(text: str) -> str:
    """Case-folded words separated by single spaces: how a name is looked for in a passage."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text.casefold()).split())
