"""A "previously on…" recap of a session (or a range): 3-8 lines (a range: at least one per session), each a
sentence or a bullet from that session's notes with its citation, in story order. No model writes anything:
every line is the notes' own.

Which lines: when the note has its own summary (its front matter's ``summary:``, every sentence of it; a "New
Information", "Summary", "Recap" or "TL;DR" section; not a
"Last Session Recap", which retells the session before), its points, since the note-taker already chose them (a
"Session Summary" of paragraphs beside a list of "Key Events" is the whole session written up, ten sentences a
paragraph, and the list says it shortly); a summary only in prose, each paragraph's opening sentence. Otherwise
the opening sentences of the scenes: one a scene, spread over the session, when it has eight scenes or more; with
fewer, the scenes share the lines by how many passages tell them (one a passage, spread). Dice, damage, loot counts
and asides in parentheses are no line of a story (``tells``). A session still short of three lines gets more from
its longest passages. "Where did we leave off?" gets the story's last sentences (``session_ending``). ``coverage``
is the share of the session's scenes a recap touches (measured in docs/experiments/history.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rag.campaign.entities import Entity, SessionKey, entity_index, session_key, session_label
from rag.campaign.evening import retells
from rag.campaign.table_talk import TableTalk
from rag.config import TableTalkConfig
from rag.models import Chunk
from rag.names import sentences

MIN_LINES, MAX_LINES = 3, 8
ENDING_SENTENCES = 3  # "Where did we leave off?": the story's last sentences, about a bullet's or a paragraph's worth
MIN_WORDS = 5  # "Recap", "Day 3" and the like say nothing on their own
SUMMARY = re.compile(r"\b(new information|summary|recap|tl;?dr|key (points|events)|what happened)\b", re.I)
ROLL_SHARE = 7  # a sentence with a number in every seven words or fewer is dice and damage
_NUMBER = re.compile(r"\d")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


@dataclass(frozen=True)
class RecapLine:
    text: str
    label: str  # the passage's name, as citations write it
    chunk_id: str
    session: SessionKey
    scene: str

    @property
    def session_label(self) -> str:
        """Its session as the notes name it ("C1 Session 3")."""
        return session_label(self.session)


def _lines(chunk: Chunk) -> list[str]:
    """The passage's own lines (bullets, paragraphs), without the scene heading it starts with."""
    lines = [line.strip() for line in chunk.text.split("\n") if line.strip()]
    if lines and chunk.heading and lines[0] == chunk.heading:
        lines = lines[1:]
    return [_MARKER.sub("", line) for line in lines]


def _telling(text: str) -> str:
    """The first sentence of a line (``rag.names.sentences``) that ``tells`` something, or ""."""
    return next((sentence for sentence in sentences(text) if tells(sentence)), "")


def tells(sentence: str, words: int = MIN_WORDS) -> bool:
    """A sentence of the story: ``words`` words or more, not a list's lead-in ("We found:"), not dice and damage
    (``rolls``), not an aside in parentheses ("(Note, the circlet was not something she made with him…)")."""
    aside = sentence.startswith("(") and sentence.rstrip(".").endswith(")")
    return len(sentence.split()) >= words and not sentence.endswith(":") and not rolls(sentence) and not aside


def rolls(sentence: str) -> bool:
    """A line of the game's arithmetic, not its story: "sickle strike ducim, 27 crit for 10 s.", "veris strat
    tartuk: 23 would hit.", "193 cp, 120 sp, 8 gp": a word in ``ROLL_SHARE`` or fewer holds a number. A story
    line's count or date ("bandits have been here for ~3 months, threatened to burn down the post") is one number
    among many words."""
    words = sentence.split()
    numbers = sum(bool(_NUMBER.search(w)) for w in words)
    return numbers > 0 and numbers * ROLL_SHARE >= len(words)


def _summary(story: list[Chunk], told: Callable) -> list[RecapLine]:
    """The lines of the note's own summary sections: a section of points (most of its lines one sentence, as a list
    is written) as it is; else, when the summary is only prose, each paragraph's opening sentence. A section of
    points beside one of paragraphs says the same shortly: the paragraphs are then left out."""
    sections: dict[str, list[tuple[Chunk, str]]] = {}
    for c in story:
        if c.summary:  # the front matter's "summary:", brief by its nature: every sentence a point
            points = [t for line in _lines(c) for t in sentences(line) if len(t.split()) >= 3 and told(c, t)]
            sections.setdefault("", []).extend((c, t) for t in points)
        elif SUMMARY.search(c.heading):
            lines = [line for line in _lines(c) if len(line.split()) >= 3 and told(c, line)]
            sections.setdefault(c.heading, []).extend((c, line) for line in lines)
    points = [
        _line(c, line)
        for lines in sections.values()
        if 2 * sum(len(sentences(line)) == 1 for _, line in lines) > len(lines)
        for c, line in lines
    ]
    if len(points) >= 2:
        return points
    return [_line(c, t) for lines in sections.values() for c, line in lines if (t := _telling(line)) and told(c, t)]


def _shares(sizes: list[int], lines: int) -> list[int]:
    """How many of ``lines`` each scene gets: one each, then one at a time to the scene with the most lines left
    per line it has, never more than it has."""
    shares = [1] * len(sizes)
    for _ in range(lines - len(sizes)):
        left = [(size - share) / share for size, share in zip(sizes, shares, strict=True)]
        most = max(range(len(sizes)), key=lambda i: left[i], default=None)
        if most is None or left[most] <= 0:
            break
        shares[most] += 1
    return shares


def _line(chunk: Chunk, text: str) -> RecapLine:
    return RecapLine(text, chunk.name, chunk.id, session_key(chunk), chunk.heading)


def _spread(items: list, n: int) -> list:
    """``n`` items spread evenly, keeping the first and the last."""
    if len(items) <= n:
        return items
    if n <= 1:
        return items[:n]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def recap_session(
    chunks: Iterable[Chunk], session: SessionKey, talk: TableTalk, max_lines: int = MAX_LINES
) -> list[RecapLine]:
    """The recap of one session from its passages (any others are ignored); [] when it has none. Table talk
    (``rag.campaign.table_talk``: announcements, the break, the Q&A, a "previously on…") is left out unless the
    session has nothing else; ``talk``: read from the whole campaign."""
    story, told = _story(chunks, session, talk)
    summary = _summary(story, told)
    if len(summary) >= 2:
        return summary[:max_lines]
    scenes: dict[str, list[RecapLine]] = {}  # each scene's opening lines: one a passage, in order
    for c in story:
        lines = scenes.setdefault(c.heading, [])
        line = next((t for text in _lines(c) if (t := _telling(text)) and told(c, t)), None)
        if line is not None and line not in {x.text for x in lines}:  # passages overlap by a sentence
            lines.append(_line(c, line))
    told_scenes = [lines for lines in scenes.values() if lines]
    if len(told_scenes) >= max_lines:  # a line a scene, spread over the session
        picked = _spread([lines[0] for lines in told_scenes], max_lines)
    else:  # fewer scenes than lines: the longer scenes tell more of the session
        shares = _shares([len(lines) for lines in told_scenes], max_lines)
        picked = [x for lines, n in zip(told_scenes, shares, strict=True) for x in _spread(lines, n)]
    least = min(MIN_LINES, max_lines)  # a session's share of a range's recap may be one line
    if len(picked) < least:  # few scenes: more telling sentences, longest passages first, kept in order
        said = {p.text for p in picked}
        for words in (MIN_WORDS, 3):  # short sessions: shorter lines rather than fewer than three
            extra = [
                _line(c, s)
                for c in sorted(story, key=lambda c: -len(c.text))
                for text in _lines(c)
                for s in sentences(text)
                if tells(s, words) and s not in said and told(c, s)
            ]
            picked += extra[: least - len(picked)]
            said |= {p.text for p in picked}
        order = {c.id: i for i, c in enumerate(story)}
        picked.sort(key=lambda p: order[p.chunk_id])
    return picked


def _story(chunks: Iterable[Chunk], session: SessionKey, talk: TableTalk) -> tuple[list[Chunk], Callable]:
    """The session's story passages in reading order (table talk, and a "Last Session Recap" retelling the session
    before, left out unless the session has nothing else),
    and ``told(chunk, text)``: whether a line of them tells the story rather than talk at the table."""
    mine = sorted(
        (c for c in chunks if session_key(c) == session and c.kind == "session"), key=lambda c: (c.source, c.position)
    )
    story = [c for c in mine if not talk.passage(c) and not retells(c)] or mine  # unless nothing else is left
    if story is mine:
        return story, lambda c, text: True
    return story, lambda c, text: not talk.line(c, text)


def session_ending(chunks: Iterable[Chunk], session: SessionKey, talk: TableTalk) -> list[RecapLine]:
    """How one session ended, for "Where did we leave off?": the last ``ENDING_SENTENCES`` telling sentences of its
    story, in order. A recap's line per scene opens each scene; where the next game picks up is the close of the
    last one. Announcements, the Q&A and other table talk after the story are left out, as in a recap."""
    story, told = _story(chunks, session, talk)
    picked: list[RecapLine] = []
    said: set[str] = set()  # passages overlap by a sentence: the same one is not told twice
    for c in reversed(story):
        for text in reversed(_lines(c)):
            for s in reversed(sentences(text)):
                if tells(s) and s not in said and told(c, s):
                    picked.append(_line(c, s))
                    said.add(s)
                    if len(picked) == ENDING_SENTENCES:
                        return picked[::-1]
    return picked[::-1]


def recap(
    chunks: Iterable[Chunk],
    sessions: Sequence[SessionKey],
    table_talk: TableTalkConfig,
    entities: Sequence[Entity] | None = None,
    ending: bool = False,
) -> list[RecapLine]:
    """One session's recap, or for a range the sessions' recaps shortened so the whole stays within
    ``MAX_LINES``, but never less than a line for every session of the range: a player who asks for sessions 1 to
    11 is told of each of them, not of the first four (a short session's three lines once filled the whole
    recap). Table talk is read by the ``table_talk`` settings. ``ending``: how the last of the sessions ended
    instead (``session_ending``)."""
    chunks = list(chunks)
    talk = TableTalk(chunks, entity_index(chunks) if entities is None else entities, table_talk)
    if ending:
        return session_ending(chunks, sessions[-1], talk) if sessions else []
    if len(sessions) == 1:
        return recap_session(chunks, sessions[0], talk)
    per = max(1, MAX_LINES // max(len(sessions), 1))
    return [line for s in sessions for line in recap_session(chunks, s, talk, per)]


def coverage(chunks: Iterable[Chunk], session: SessionKey, lines: Sequence[RecapLine], talk: TableTalk) -> float:
    """The share of the session's story scenes (headings with passages that are not table talk, by ``talk``) that
    the recap has a line from; a session of table talk only counts all its scenes."""
    mine = [c for c in chunks if session_key(c) == session and c.kind == "session"]
    scenes = {c.heading for c in mine if not talk.passage(c)} or {c.heading for c in mine}
    return len(scenes & {line.scene for line in lines}) / len(scenes) if scenes else 0.0
