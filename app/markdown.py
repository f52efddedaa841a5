"""Note text shown in Streamlit's Markdown as it was written: the chat's answers, the search page's passages and
the story pages' lines. A note's ``*``, ``_``, ``#`` or ``$`` is the player's own character, not formatting."""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_<>#|~$])")
_SPECIAL_AND_BRACKETS = re.compile(r"([\\`*_\[\]<>#|~$])")
_LINE_BREAK = re.compile(r"\r\n?|\n")
# A line opening with a number and a full stop is an ordered list to Markdown: the lead "1495. [Session 3]" showed as
# item 1495 of a list holding the citation. A bullet's "- " is left alone: a recap's lines are written as a list.
_ORDERED = re.compile(r"^(\s*\d+)([.)])(?=\s|$)")


def as_written(text: str, brackets: bool = True) -> str:
    """``text`` with Markdown's characters escaped and every line break kept, a trailing one too: an answer streams
    in pieces ("Previously on Session 2:\\n", "- line [label]\\n"), and a piece's last break is where the next one
    starts a line. ``brackets=False`` escapes ``[`` and ``]`` as well (a passage's text, where no citation label
    needs them)."""
    special = _SPECIAL if brackets else _SPECIAL_AND_BRACKETS
    return "  \n".join(_ORDERED.sub(r"\1\\\2", special.sub(r"\\\1", line)) for line in _LINE_BREAK.split(text))
