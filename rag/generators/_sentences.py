"""How a passage is cut into the sentences the offline answerer reads and quotes, and how a quote's sentences
are joined back into one line. Notes mix prose, bullets typed at the table and headings; a "sentence" here is a
sentence of prose or a line of a list, never a heading, and a question in the notes answers nothing."""

from __future__ import annotations

from dataclasses import dataclass

from rag.ingest.blocks import BULLET, indent_of
from rag.models import Hit
from rag.names import sentences, words

MIN_WORDS = 4
_TOLD = (".", "!", '."', '!"', ".”", "!”", ".'", "!'", ".’", "!’")  # a sentence's end, maybe in its closing quote
_ENDS = (".", "!", "?", ":", ";", ",", "…", '"', "'", "”", "’", ")", "]")  # a line that ends like a sentence


@dataclass
class Sentence:
    text: str
    hit: Hit
    order: int  # position inside its passage, to keep a passage's sentences in reading order
    score: float = 0.0  # support: how well this sentence answers (the refusal signal)
    pick: float = 0.0  # selection: support's parts, with more weight on the passage's retrieval rank
    meaning: float = 0.0
    overlap: float = 0.0
    previous: str = ""  # the sentence before it in its passage: who "He's an anthropologist…" is about
    under: str = ""  # the line a nested bullet hangs under (``outline``): what "Chain armor, worn under armor" is
    # the parts right before it that cannot answer (``answers``: short lines, questions): a name on a line of its own
    # titles what follows it ("Valentina von Zapp" / "mid-range fleshsmith" / "we have an invitation to…")
    lead_in: str = ""
    named: frozenset[str] | None = None  # what the passages read for the question capitalise (``capitalised_within``)


def passage_parts(hit: Hit) -> list[str]:
    """Every sentence and line of the passage in reading order (questions and fragments too), without its
    heading-prefix line and without bullet marks; a line is cut by ``rag.names.sentences``, never after "Mr." or an
    initial, so a quote's citation never lands inside a name. A sentence's ``order`` is its place in this list."""
    return [part for part, _ in outline(hit)]


def outline(hit: Hit) -> list[tuple[str, str]]:
    """``passage_parts``, each with the line it hangs under: for a nested list item the nearest item above it that
    is indented less (or the plain line a list follows), else "". Notes typed at the table are outlines: "Ireena
    shows Kali the present given to her from Strahd" / "  - Chain armor, can be worn under armor"; the nested line
    says what, its parent line of whom and when, and a sentence read alone loses what the question asks about. List
    items are told apart as the chunker wrote them (``rag.ingest.blocks.BULLET``); a line that goes on an item
    hangs where the item does."""
    out: list[tuple[str, str]] = []
    lines = hit.chunk.text.splitlines()
    if hit.chunk.heading and lines and lines[0].strip() == hit.chunk.heading.strip():
        lines = lines[1:]
    above: list[tuple[int, str]] = []  # the open lines above, (indent, text), shallowest first; -1 for a plain line
    for raw in lines:
        line = raw.strip().lstrip("-*+ ").strip()
        if line.startswith("#"):  # a heading inside the passage starts its own outline
            above.clear()
            continue
        if not line:
            continue
        indent, item = indent_of(raw), BULLET.match(raw) is not None  # as the parser nests them
        if not item and indent and above:  # an item's next line: it hangs where the item does
            out += [(part, above[-2][1] if len(above) > 1 else "") for part in sentences(line)]
            continue
        depth = indent if item else -1
        while above and above[-1][0] >= depth:
            above.pop()
        out += [(part, above[-1][1] if above else "") for part in sentences(line)]
        above.append((depth, line))
    return out


_CLOSING = "\"')”’"  # what may close a sentence after its question mark


def answers(part: str) -> bool:
    """A sentence that can answer: four words or more, and not a question (a question answers nothing), unless
    the question is one it tells (``tells_a_question``)."""
    if len(words(part)) < MIN_WORDS:
        return False
    return not part.rstrip(_CLOSING).endswith("?") or tells_a_question(part)


def tells_a_question(part: str) -> bool:
    """The sentence ends in a question it quotes, introduced by a colon after words of its own that say what the
    question is: 'there's a secret passphrase to get into the fort: "By the bloody bones of Saint Gilmorg, who wants
    to know?"' tells the passphrase (vault-kingmaker walk), and was left unread as a question. Speech reported ('In a
    moment of surprise, Syldor asks, "Oh?"', 'says her mother to her, "Which will you have…?"') still only asks: read,
    it led a CRD3 answer with "Oh?"; so does a line that only names who asks ('Oleg: "Where did they go?"')."""
    text = part.rstrip()
    if text.endswith("”"):
        opened = text.rfind("“")
    elif text.endswith('"'):
        opened = text.rfind('"', 0, len(text) - 1)
    else:
        return False
    told, quoted = text[:opened], text[opened:]
    return told.rstrip().endswith(":") and len(words(told)) >= MIN_WORDS and len(words(quoted)) >= MIN_WORDS


def short_sentence(part: str) -> bool:
    """A part too short to answer alone that is still a sentence of the telling: it ends with a full stop or an
    exclamation mark, maybe inside a closing quote ("She does.", "he was warned.", '"you go."'). A label or a
    fragment typed at the table ends with none ("Loot", "Session start"), a question with its question mark."""
    return part.rstrip().endswith(_TOLD)


def split_sentences(hit: Hit) -> list[Sentence]:
    """The passage's sentences that can answer (``answers``), each knowing the one before it and the parts right
    above it that cannot (``Sentence.lead_in``)."""
    out: list[Sentence] = []
    short: list[str] = []
    for order, (part, under) in enumerate(outline(hit)):
        if not answers(part):
            short.append(part)
            continue
        previous = out[-1].text if out else ""
        out.append(Sentence(part, hit, order, previous=previous, under=under, lead_in=" ".join(short)))
        short = []
    return out


def joined(parts: list[str]) -> str:
    """A quote's sentences as one line; where a note's line ends without punctuation (a bullet, "Mask is arcane,
    can talk to animals"), a " / " marks the line break, the way quoted verse does, so two lines do not read as one
    sentence. Nothing is added to the notes' own words."""
    out = parts[0].rstrip()
    for part in parts[1:]:
        out += (" " if out.endswith(_ENDS) else " / ") + part.rstrip()
    return out


def quote_text(parts: dict[str, list[str]], s: Sentence, run: list[int]) -> str:
    """A quote of ``s``: the parts of its passage (``parts`` by chunk id) at the places in ``run``, joined."""
    return unopened(joined([parts[s.hit.chunk.id][order] for order in run]))


def unopened(quote: str) -> str:
    """A quote cut from a longer speech (a recap in quotation marks over several sentences) without the opening
    mark it never closes: a player would look for where the speech ends. Only a lone mark: in '"Go!" he cried.
    Stop;"' the first mark is closed, and the last one closes a speech opened before the quote."""
    lone_straight = quote.startswith('"') and quote.count('"') == 1
    lone_curly = quote.startswith("“") and quote.count("“") == 1 and "”" not in quote
    if lone_straight or lone_curly:
        return quote[1:].lstrip()
    return quote


def story_order(s: Sentence) -> tuple:
    """Campaign, session, note, passage, sentence: quotes read the way the campaign unfolded."""
    return (*s.hit.chunk.story_key, s.order)
