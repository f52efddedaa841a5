"""Where: whether a name in a sentence of the notes is a place ("in Kraghammer", "the dwarven city of Kraghammer")
or someone ("talking to Lord Nostoc Greyspine", "the others in Vox Machina"). A "where" question leads only with a
place; a "who" question never with one. Private to the extractive backend.
"""

from __future__ import annotations

import re

from rag.names import TITLES

# "the dwarven city of Kraghammer", "a fortress called Emberhold" ("the temple of Bahamut" is a god's, not a place)
_PLACE_NOUN = re.compile(
    r"(?:\b(?:city|town|village|hamlet|capital|port|kingdom|realm|region|island|isle|forest|jungle|mountains?|lake|"
    r"river|sea|mines?|caves?|caverns?|ruins)\s+of|\b(?:city|town|village|port|island|isle|forest|fortress|fort|castle|"
    r"keep|citadel|temple|shrine|tower|tavern|inn|camp)\s+(?:called|named|known\s+as))\s+(?:the\s+)?$",
    re.I,
)
# A place may be named in quotes, its article in them: to "The Pig Pits"
_NAMED_NEXT = r"\s+(?:[\"“‘]\s*(?:the\s+)?)?$"
_PLACE_BEFORE = re.compile(
    rf"\b(in|at|to|into|near|towards|inside|outside|reach|reached|visit|visited){_NAMED_NEXT}", re.I
)
# "came from Westruun": where something started, which only a question asking "…from?" asks
_FROM = re.compile(rf"\bfrom{_NAMED_NEXT}", re.I)
# "tells them in Common", "written in Draconic", "shouts in Infernal": the language something is said or written in
_IN_LANGUAGE = re.compile(
    r"\b(?:say|said|tell|told|speak|spoke|spoken|talk|whisper|shout|yell|sing|sang|sung|write|wrote|written|"
    r"reply|replied|ask|curse|chant|mutter|scream)(?:s|ed|ing|es)?\b(?:\s+[\w']+){0,4}?\s+in\s+$",
    re.I,
)
# "to" a few words after these goes to someone, not somewhere ("sent to Emon" may be either, so it stays a place)
_TO_SOMEONE = re.compile(
    r"\b(?:talk|speak|spoke|say|said|tell|told|give|gave|given|hand|handed|show|showed|shown|explain|reply|"
    r"replied|introduce[sd]?|belong|belonged|listen|listened|pray|prayed|bow|bowed|sell|sold|lie|lied)"
    r"(?:s|ed|ing)?\b(?:\s+[\w']+){0,3}?\s+to\s+$",
    re.I,
)
# "the others in Vox Machina", "everyone from the Mighty Nein": a group one belongs to, not a place
_AMONG = re.compile(
    r"\b(?:others|rest|members?|everyone|everybody|anyone|someone|none|each|all|most|some)\s+(?:in|from|at)\s+(?:the\s+)?$",
    re.I,
)
_IN_PLACE = re.compile(r"\b(in|at|into|near|towards|inside|outside)\s+(the\s+)?$", re.I)


def in_place(before: str) -> bool:
    """The text before a name ends in "in", "at", "near"… (a "who" answer is never the place something happened)."""
    return bool(_IN_PLACE.search(before))


def is_place(name: str, sentence: str, origin: bool = False) -> bool:
    """The sentence names a place here: "in Kraghammer", "reached Port Nyanzaru", "the dwarven city of Kraghammer",
    "a fortress called Emberhold", "to go to "The Pig Pits""; not someone spoken or given to ("Talking to Lord Nostoc
    Greyspine", "gives the map to Vex"), a group one is among ("the others in Vox Machina"), the language something is
    said or written in ("tells them in Common to go to…") or a titled person after any of those words.

    "from" names where something came from: a place only when the question asks for an ``origin`` ("Where did the
    bride come from?"). "Where did Vex find Trinket?" is not answered by "casts Protection from Poison on him", nor
    "Where did the man live?" by "not far from John of Groat's house"."""
    before = sentence[: sentence.find(name)]
    return (
        bool(_PLACE_BEFORE.search(before) or _PLACE_NOUN.search(before) or origin and _FROM.search(before))
        and not _TO_SOMEONE.search(before)
        and not _AMONG.search(before)
        and not _IN_LANGUAGE.search(before)
        and name.split()[0].casefold() not in TITLES
    )
