"""Inline cleaning of Obsidian Markdown.

The cleaned text is what gets embedded, keyword-searched and matched against evidence, so it must read
like the note does in Obsidian's reading view: ``[[Pike Trickfoot|Pike]]`` becomes ``Pike`` (exactly the
shown text, because evidence strings are copied from what players see), formatting marks disappear,
comments and embeds vanish. The link targets are kept on the side as entities, so "who is Pike?" can
still filter on the canonical page name.

Link and code spans are swapped for private-use placeholders while the other rules run, so no
emphasis or escape rule can ever alter the text a link shows.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from rag.models.dates import is_day, parse_date

# One placeholder = \ue000 + index + \ue001. Private-use code points never occur in real notes.
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")

_COMMENTS = re.compile(r"%%.*?%%|<!--.*?-->", re.DOTALL)
_CODE = re.compile(r"(`+)(.+?)\1")
_INLINE_QUERY = re.compile(r"\s*\$?=")  # Dataview's inline query: shown in Obsidian as what it computes
# The shown text may hold one bracketed part: [[Troupe|Dr. Dranzel's [Spectacular Traveling Troupe]]] (CRD3).
_WIKI = re.compile(r"(!?)\[\[([^\[\]\n|]*(?:\|(?:[^\[\]\n]|\[[^\[\]\n]*\])*)?)\]\]")
# A link's address, as CommonMark reads it: in <>, or with escaped or balanced parentheses ("Crane_Clan_\(TCG\)",
# "Kami_(L5R)"), then an optional title in quotes or parentheses (a wiki copied from the web writes all three); a
# space too, as players type a page's name ("[Oleg](Oleg Leveton.md)")
_MD_DESTINATION = (
    r"""\(\s*(<[^<>\n]*>|(?:\\.|[^()\\\n]|\((?:\\.|[^()\\\n])*\))*?)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"""
)
_MD_IMAGE = re.compile(r"!\[[^\]\n]*\]" + _MD_DESTINATION)
_MD_LINK = re.compile(r"\[([^\[\]\n]+)\]" + _MD_DESTINATION)
# A MediaWiki page's reference mark, copied as a link to its footnote ("[1](https://…/Tochi#cite_note-1)")
_CITE_NOTE = re.compile(r"#cite_note-")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^<>\s]+)>")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
# A wiki's reference mark pasted with its text ("…severely hurt [51] and in range", "…by Matthew Mercer. [3]"):
# the page's footnote number, no words of the notes; quoted, it reads like a citation. Only after text, so a line
# that opens "[1] …" keeps its number, and never a link's ("[text][1]", "[1]: url",
# "[1](url)"); "… hunt. [2] [3]" loses both
_WIKI_MARK = re.compile(r"(?<=[^\s\]])(?:[ \t]?\[\d{1,3}\])+(?![(:\[])")
# Obsidian's accepted file formats besides notes (help.obsidian.md, "Accepted file formats": images, audio, video,
# PDF), and its canvases and bases: a link to one names a file, not a person, place or thing of the campaign
_IMAGES = ("avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp")
_SOUND_AND_VIDEO = ("flac", "m4a", "mp3", "ogg", "wav", "webm", "3gp", "mkv", "mov", "mp4", "ogv")
ATTACHMENTS = frozenset((*_IMAGES, *_SOUND_AND_VIDEO, "pdf", "canvas", "base"))
_BLOCK_ID = re.compile(r"(?:(?<=\s)|^)\^[A-Za-z0-9-]+[ \t]*$", re.MULTILINE)
_EMPHASIS = [  # (mark that must be present, pattern); order matters: ** before *, __ before _
    ("~~", re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")),
    ("==", re.compile(r"==(?=\S)(.+?)(?<=\S)==")),
    ("**", re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")),
    ("__", re.compile(r"(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)")),
    ("*", re.compile(r"\*(?=[^\s*])(.+?)(?<=[^\s*])\*")),
    ("_", re.compile(r"(?<![\w\\])_(?=[^\s_])(.+?)(?<=[^\s_])_(?!\w)")),
]


@dataclass(frozen=True)
class Link:
    """Where a link's shown text sits in the cleaned text; ``page`` is None for a same-note link."""

    start: int
    end: int
    page: str | None
    shown: str


def strip_comments(text: str) -> str:
    """Drop ``%% … %%`` and ``<!-- … -->`` comments, also multi-line ones, keeping every newline.

    The chunker reports original line numbers, so a comment over three lines must leave three lines.
    """
    return _COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def page_name(target: str) -> str:
    """``NPCs/Yorb.md#Looks`` → ``Yorb``: Obsidian resolves links by file name, so that is the entity."""
    page = target.split("#", 1)[0].split("^", 1)[0].strip()
    page = page.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if page.lower().endswith(".md"):
        page = page[:-3].strip()
    return page


def linked_page(target: str) -> str | None:
    """The page a link names as one of the campaign's people, places and things (``page_name``), or None when it
    names none: a web address, an attachment (``[[Letter to Glass-Staff.pdf]]``, ``[[Town Map.png]]``) or a day
    (``[[2025-02-04]]``, the daily note Obsidian's calendar links at the top of a session's notes). Its shown text
    stays in the note either way."""
    if "://" in target:
        return None
    page = page_name(target)
    extension = page.rsplit(".", 1)[-1].casefold() if "." in page else ""
    if extension in ATTACHMENTS or is_day(page):
        return None
    return page or None


def linked_alone(text: str) -> str | None:
    """The page a text links and says nothing else ("[[2025-02-04]]", "[[Mirtul 3|the 3rd]]"), or None; an embed
    is no link."""
    link = _WIKI.fullmatch(text.strip())
    return None if link is None or link.group(1) else page_name(link.group(2).partition("|")[0])


def linked_day(line: str) -> dt.date | None:
    """The day a line links and says nothing else ("[[2025-02-04]]", a daily note's link), or None."""
    page = linked_alone(line)
    return parse_date(page) if page and is_day(page) else None


def clean(text: str) -> tuple[str, list[Link]]:
    """Clean ``text`` (one line or several) and return the links with their spans in the result."""
    slots: list[tuple[str, str | None]] = []  # (text to restore, page or None when not a link)
    is_link: list[bool] = []

    def hold(value: str, page: str | None = None, link: bool = False) -> str:
        slots.append((value, page))
        is_link.append(link)
        return f"{_OPEN}{len(slots) - 1}{_CLOSE}"

    text = text.replace("\r\n", "\n")
    if "%%" in text or "<!--" in text:
        text = _COMMENTS.sub("", text)
    if "`" in text:  # code reads as its words; a Dataview query (`=this.Gender`, `$= dv.pages()`) is the plugin's
        text = _CODE.sub(lambda m: "" if _INLINE_QUERY.match(m.group(2)) else hold(m.group(2).strip()), text)

    def wiki(m: re.Match) -> str:
        if m.group(1):  # ![[embed]]: an image or transcluded note, not text of this one
            return ""
        # A link typed inside another's target ("![[[[Qelline]]'s Newspaper.png]]", as Obsidian's link
        # suggestions leave it) was held on the pass before: the outer link reads its text (links of its own are
        # dropped: the inner one is no link)
        inner = _restore(m.group(2), slots, is_link)[0].replace("\\|", "|")
        target, _, alias = inner.partition("|")
        page = target.strip() if "://" in target else page_name(target)  # Obsidian shows a web address whole
        shown = alias.strip().lstrip("|").strip() or page or target.split("#", 1)[-1].strip()  # "[[A||b]]": b
        if not shown:
            return ""
        return hold(shown, linked_page(target), link=True)

    while "[[" in text:
        text, found = _WIKI.subn(wiki, text)
        if not found:
            break

    def md_link(m: re.Match) -> str:
        shown, url = _strip_emphasis(m.group(1)).strip(), m.group(2).strip().removeprefix("<").removesuffix(">")
        if _CITE_NOTE.search(url):  # the page's footnote number, no words of the notes (as ``_WIKI_MARK``)
            return ""
        internal = "://" not in url and url.split("#", 1)[0].lower().endswith(".md")
        page = page_name(url.replace("%20", " ")) if internal else None
        return hold(shown, page, link=bool(page))

    if "](" in text:
        text = _MD_LINK.sub(md_link, _MD_IMAGE.sub("", text))
    if "<" in text:
        text = _HTML_TAG.sub(" ", _AUTOLINK.sub(lambda m: hold(m.group(1)), text))
    if "\\" in text:
        text = _ESCAPE.sub(lambda m: hold(m.group(1)), text)
    if "^" in text:
        text = _BLOCK_ID.sub("", _FOOTNOTE_REF.sub("", text))
    if "[" in text:
        text = _WIKI_MARK.sub("", text)
    text = _strip_emphasis(text)
    # str.split() drops every kind of space, also a stray \r, and collapses runs to one.
    text = "\n".join(" ".join(line.split()) for line in text.split("\n"))
    return _restore(text, slots, is_link)


def _strip_emphasis(text: str) -> str:
    for mark, pattern in _EMPHASIS:
        if mark in text:
            text = pattern.sub(r"\1", text)
    return text


def _restore(text: str, slots: list[tuple[str, str | None]], is_link: list[bool]) -> tuple[str, list[Link]]:
    """Put held spans back in one pass, recording where each link's shown text ends up."""
    if not slots:
        return text, []
    out: list[str] = []
    links: list[Link] = []
    size = last = 0
    for m in _PLACEHOLDER.finditer(text):
        out.append(text[last : m.start()])
        size += m.start() - last
        value, page = slots[int(m.group(1))]
        if is_link[int(m.group(1))]:
            links.append(Link(size, size + len(value), page, value))
        out.append(value)
        size += len(value)
        last = m.end()
    out.append(text[last:])
    return "".join(out), links


def entities_of(links: list[Link]) -> tuple[list[str], list[tuple[str, str]]]:
    """Canonical page names in order of first use, and the (shown, page) pairs where they differ."""
    entities: list[str] = []
    aliases: list[tuple[str, str]] = []
    for link in links:
        if link.page is None:
            continue
        if link.page not in entities:
            entities.append(link.page)
        pair = (link.shown, link.page)
        if link.shown != link.page and pair not in aliases:
            aliases.append(pair)
    return entities, aliases


def clean_inline(text: str) -> tuple[str, list[str], list[tuple[str, str]]]:
    """``(clean text, entities, aliases)``; see the module docstring for what is kept and why."""
    cleaned, links = clean(text)
    entities, aliases = entities_of(links)
    return cleaned, entities, aliases
