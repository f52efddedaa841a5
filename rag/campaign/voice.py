"""The notes' voice: whether they tell of the party as "we" or in the third person.

Players ask in the party's voice ("Who gave us the map?", "Where did we sleep?"). A player's diary says "we" too
("we met Clarota"), but many vaults and every wiki summary tell of the party in the third person ("Clarota gives the
party a map", "Vox Machina heads back"). There, the question's "us" points the small embedding model at the few
lines that say it (a character's quoted "give us the map!") and away from the ones that tell what the party did;
told in the notes' voice, "Who gave the party the map?", it points at those (``rag.question.told_of_the_party``).
How often the notes say "we" is read once, when the campaign's passages are indexed (``AliasTable``); measured in
docs/experiments/README.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.question.kinds import OUR_WORDS

_WORD = re.compile(r"\w+")  # "we're" counts as "we" and "re"


def we_per_thousand(texts: Iterable[str]) -> float:
    """How many of every thousand words of the notes are "we", "us" or "our": a diary's 8 to 40, a third-person
    account's under 2."""
    words = said = 0
    for text in texts:
        for m in _WORD.finditer(text):
            words += 1
            said += m.group(0).casefold() in OUR_WORDS
    return 1000.0 * said / words if words else 0.0
