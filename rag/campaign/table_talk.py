"""Table talk: what a session note records that is not the story: the show's announcements, the break, the
questions to the cast afterwards, the "previously on…" read at the start, the plans for next time.

A recap tells the story, so it leaves these out (unless nothing else is left). They are read from how notes are
laid out, not from what a line says (a cake, a donation, a T-shirt):

- **the scene's heading names a part of the evening around the game**, at its start: "Announcements", "Break",
  "Pre-Show", "Post-Game", "Q&A", "Previously on Critical Role", "Next Session", "Out of character";
- **a read-out**: a scene whose every line (two or more) is a quotation ("Recap" with the GM's opening words read
  aloud);
- **lines about the players rather than the characters**, in any scene: a line that names people at the table (a
  name the notes link in their table talk and hardly ever in the story: "Matt", "Zac") and none of the story's
  people, places or things.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rag.campaign.entities import Entity
from rag.campaign.evening import around_the_game
from rag.campaign.other_names import key
from rag.config import TableTalkConfig
from rag.models import Chunk
from rag.names import names as proper_names

_RETOLD = re.compile(r"^\W*(?:previously|last time|recap)\b", re.IGNORECASE)
_QUOTE = re.compile(r"^\s*(?:[-*+]\s+)?[\"“„«]")


def _lines(chunk: Chunk) -> list[str]:
    lines = [line for line in chunk.text.split("\n") if line.strip()]
    return lines[1:] if lines and chunk.heading and lines[0].strip() == chunk.heading else lines


def read_out(scene: Sequence[Chunk]) -> bool:
    """Every line of the scene is a quotation: words read aloud (the GM's "previously on…"), not notes."""
    lines = [line for c in scene for line in _lines(c)]
    headed = bool(scene and scene[0].heading)  # a character's quote atop a note is no read-out
    return headed and len(lines) >= 2 and all(_QUOTE.match(line) for line in lines)


class TableTalk:
    """Which passages and lines of a campaign's session notes are table talk. Built once from every session
    passage and the campaign's cast (``entities``), so the table's own people are known from the whole campaign,
    each person once whatever name a line gives them ("Percival de Rolo" in the break's backstory video and
    "Percy" in the story are one, and in the story). A person is the table's by ``config`` (``table_talk``):
    used in table talk at least ``min_uses`` times, and at least ``share`` of their uses there."""

    def __init__(self, chunks: Sequence[Chunk], entities: Sequence[Entity], config: TableTalkConfig):
        self.who = {key(n): e.name for e in entities for n in (e.name, *e.aliases)}
        scenes: dict[tuple[str, str], list[Chunk]] = {}
        for c in chunks:
            if c.kind == "session":
                scenes.setdefault((c.source, c.heading), []).append(c)
        self.scenes = {k for k, scene in scenes.items() if around_the_game(k[1]) or read_out(scene)}
        # where each one is linked: the table's people in its talk (not in read-outs of the story), hardly elsewhere
        around, story, retold = Counter(), Counter(), Counter()
        for (source, heading), scene in scenes.items():
            if read_out(scene) or _RETOLD.match(heading):
                side = retold
            else:
                side = around if (source, heading) in self.scenes else story
            for c in scene:
                side.update({self.who[key(t)] for t in c.entities if key(t) in self.who})
        self.table_people = {
            e for e, uses in around.items() if uses >= config.min_uses and uses >= config.share * (uses + story[e])
        }
        # linked around the game and never in the story, told or retold (the cast list's "[[Taliesin Jaffe]] plays
        # Percy", the show's "[[Geek & Sundry]]"): too seldom to call a line naming them table talk, but no one met
        self.off_stage = {e for e in around if not story[e] and not retold[e]}

    def passage(self, chunk: Chunk) -> bool:
        """The passage sits in a scene around the game."""
        return (chunk.source, chunk.heading) in self.scenes

    def line(self, chunk: Chunk, text: str) -> bool:
        """The line is table talk: its scene is, or it names people at the table and no one of the story."""
        if self.passage(chunk):
            return True
        named = {self.who[k] for n in proper_names(text) if (k := key(n)) in self.who}
        return bool(named & self.table_people) and not (named - self.table_people)
