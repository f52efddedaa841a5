"""What the People & places and Story so far pages share with the chat: tables and charts of the campaign's cast
and timeline. The cast, timeline and recaps themselves come from the ``Pipeline`` (for this session's view and "as
of session" cap), as the CLI's do; the chat's "Recap last session" asks it as a question."""

from __future__ import annotations

import re

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.markdown import as_written
from app.tables import without_empty
from rag.models import Chunk, format_session, same_words
from rag.pipeline import Cast, Entity, SessionEntry

ASK = "_ask"  # a question another page asks the chat to answer on its next run ("Ask about X")


def as_markdown(chunk: Chunk) -> str:
    """A passage's text as written, without its scene heading (shown beside it): Markdown characters escaped,
    line breaks kept."""
    text = chunk.text.split("\n", 1)[1] if chunk.heading and "\n" in chunk.text else chunk.text
    return as_written(text)


SAYS_SOMETHING = 5  # words: a sentence this long tells who or what the page is about
_TAGS_ONLY = re.compile(r"^\s*(?:#[\w/-]+\s*)+$")


def once_each(passages: list[Chunk]) -> list[tuple[Chunk, list[Chunk]]]:
    """Each passage with the later ones holding the same words: a vault that holds one note three times (a
    "notes missing" page copied into three sessions) had shown a player the same block six times."""
    first: dict[str, tuple[Chunk, list[Chunk]]] = {}
    for c in passages:
        first.setdefault(same_words(c.text), (c, []))[1].append(c)
    return [(c, copies[1:]) for c, copies in first.values()]


def page_opening(passages: list[Chunk], most: int = 3) -> list[Chunk]:
    """The page's opening passages, up to the first that says something in a sentence (``SAYS_SOMETHING`` words, tag
    lines aside): a character's page opens with its tags and "Played by …", and its backstory is the next one."""
    opening: list[Chunk] = []
    for c in passages[:most]:
        opening.append(c)
        body = c.text.splitlines()[1:]  # past its title
        if any(len(line.split()) >= SAYS_SOMETHING and not _TAGS_ONLY.match(line) for line in body):
            break
    return opening


def entities_frame(entities: list[Entity]) -> pd.DataFrame:
    rows = [
        {
            "name": e.name,
            "also called": ", ".join(e.aliases[:4]),
            "kind": e.kind,
            "passages": e.mentions,
            "first seen": e.first_seen,
            "last seen": e.last_seen,
        }
        for e in entities
    ]
    frame = pd.DataFrame(rows, columns=["name", "also called", "kind", "passages", "first seen", "last seen"])
    return without_empty(frame, keep=("name", "passages"))


def most_mentioned(entities: list[Entity], n: int = 15) -> pd.DataFrame:
    """The Campaign page's "Most mentioned": the first entries of People & places (the same ``Cast``), by name."""
    return pd.DataFrame([(e.name, e.mentions) for e in entities[:n]], columns=["name", "passages"])


_NUMBERED = re.compile(r"^(.*?\S)\s+(\d{1,4})$")  # "Round 3", "Pharast 27", "Day 12"


def numbered_runs(scenes: list[str]) -> list[str]:
    """Headings that count through one series said as one: "Round 1 · Round 2 · … · Round 6" (a fight's turns) is
    "Round 1–6", "Pharast 19 · Pharast 20 · Pharast 21" (the days of the world) "Pharast 19–21"; other headings
    as they are."""
    out: list[str] = []
    run: tuple[str, str, str] | None = None  # the series' words, its first number, its last
    for scene in [*scenes, ""]:
        m = _NUMBERED.match(scene)
        if run and m and m.group(1) == run[0] and int(m.group(2)) > int(run[2]):
            run = (run[0], run[1], m.group(2))
            continue
        if run:
            out.append(f"{run[0]} {run[1]}" if run[1] == run[2] else f"{run[0]} {run[1]}–{run[2]}")
            run = None
        if m:
            run = (m.group(1), m.group(2), m.group(2))
        elif scene:
            out.append(scene)
    return out


def timeline_frame(entries: list[SessionEntry]) -> pd.DataFrame:
    rows = [
        {
            "session": e.label,
            "title": e.title,
            "played": e.played.isoformat() if e.played else e.date,
            "in the story": e.world_date,
            "scenes": " · ".join(numbered_runs(e.scenes)),
            "first seen": ", ".join(e.first_seen),
        }
        for e in entries
    ]
    frame = pd.DataFrame(rows, columns=["session", "title", "played", "in the story", "scenes", "first seen"])
    return without_empty(frame, keep=("session",))


def appearances_figure(cast: Cast, entity: Entity, entries: list[SessionEntry]) -> go.Figure:
    """The sessions, in order, with how many passages link or name the entity in each: where it appears in the story."""
    counts: dict = {}
    for c in cast.mentions(entity):
        if c.session is not None and c.kind == "session":
            key = (c.campaign_no or 0, c.session)
            counts[key] = counts.get(key, 0) + 1
    one_campaign = len({e.key[0] for e in entries}) <= 1  # then a session's number is enough below its bar
    labels = [format_session(e.key[1]) if one_campaign else e.label.replace(" Session ", " ") for e in entries]
    fig = go.Figure(
        go.Bar(
            x=labels,
            y=[counts.get(e.key, 0) for e in entries],
            marker_color="#7b4f2c",
            customdata=[e.label for e in entries],
            hovertemplate="%{customdata}: %{y} passages<extra></extra>",
        )
    )
    fig.update_layout(
        height=240,
        margin=dict(l=10, r=10, t=10, b=10),
        title=dict(text=f"Where {entity.name} appears", automargin=True, y=1, yref="container", pad=dict(b=8)),
        xaxis=dict(title="session", type="category", categoryorder="array", categoryarray=labels, automargin=True),
        yaxis=dict(title="passages", dtick=1 if max(counts.values(), default=0) <= 5 else None, automargin=True),
    )
    return fig


# A page's folder that holds people ("NPCs", "Characters", "Party"): asked about with "Who"
_PEOPLE_FOLDER = re.compile(
    r"\b(?:npcs?|pcs?|characters?|people|persons?|party|players?|villains?|allies|companions?|crew|cast)\b", re.I
)


def ask_about(entity: Entity) -> str:
    """The question "Ask about" puts in the chat: "What is Kraghammer?" for a page in a folder of places, things
    or factions, "Who is Grog?" for one in a people folder at any depth ("World/NPCs/Motte Hayat.md"), or with no
    folder of its own (most of what notes link is someone; "Who or what is Keyleth?" read oddly of the demo's whole
    cast). Both read alike."""
    in_a_folder = entity.kind not in ("", "note")  # a page at the vault's top is of the kind "note"
    folders = " ".join(entity.page.split("/")[:-1]) if entity.page else entity.kind
    return f"{'What' if in_a_folder and not _PEOPLE_FOLDER.search(folders) else 'Who'} is {entity.name}?"


def ask_in_chat(question: str) -> None:
    """Open the chat with this question asked (the chat page answers it on its next run), in this campaign: a page
    switch empties the address, whose ``?campaign=`` the sidebar reads after it, so the address goes along."""
    st.session_state[ASK] = question
    st.switch_page("pages/chat.py", query_params=st.query_params.to_dict())
