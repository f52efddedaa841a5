"""Citations: which passage a ``[label]`` in an answer names, and whether it says what the answer says.

``check_citations`` resolves every label to one of the passages the answer was given (its part number "(N)" or
campaign "C1" may be left out, as a language model does), flagging, never dropping, those that name none or
several. ``check_claims`` checks each sentence a language model cites a passage for against that passage: its
content words must mostly be there. ``rag.answering`` runs both and says what they found in a player's words.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rag.models import Citation, Hit
from rag.names import content_words, norm, read_words, sentences

_BRACKET = re.compile(r"\[([^\[\]\n]{1,80})\]")
_LABELISH = re.compile(r"\b(session|part|episode)\s*\d|\bp\.\s*\d", re.IGNORECASE)


def check_citations(text: str, hits: list[Hit]) -> tuple[str, list[Citation]]:
    """Resolve every ``[label]`` to a passage that was in the context; flag (never drop) the rest.

    A label resolves when it names exactly one of the passages given (``resolve_label``). Brackets that neither
    resolve nor look like a label ("[sic]") are ordinary text. Returns the text, with one warning line per
    label that did not resolve, and the citations in order of appearance."""
    cited = _cited(text, hits)
    unresolved = {label: n for _, _, label, chunk_id, n in cited if chunk_id is None}  # label → passages it may be
    if unresolved:
        text = text.rstrip() + "\n\n" + "\n".join(unresolved_note(label, n) for label, n in unresolved.items())
    return text, [Citation(label, chunk_id) for _, _, label, chunk_id, _ in cited]


def _cited(text: str, hits: list[Hit]) -> list[tuple[int, int, str, str | None, int]]:
    """Every citation in ``text``: (start, end of its brackets, label, the passage's id or None, how many passages
    it may mean)."""
    # each passage's own label before any title-and-heading: a scene's first part is named "Session 10 · Pharast
    # 27", which is also the title and heading of its sixth part, "Session 10 · Pharast 27 (6)"
    shown = sorted(((i, name, h.chunk.id) for h in hits for i, name in enumerate(shown_names(h))), key=lambda x: x[0])
    names = [(name, chunk_id) for _, name, chunk_id in shown]
    out = []
    for match in _BRACKET.finditer(text):
        whole = match.group(1).strip()  # "[Handout 3, p. 2]" is one label; "[Session 2, Session 3]" is two
        parts = re.split(r"\s*[;,]\s*(?=\D*\d)", whole)
        if len(parts) > 1 and (resolve_label(whole, names) or not any(resolve_label(p, names) for p in parts)):
            parts = [whole]  # one label with a comma in it, cited or not
        for label in parts:
            label = label.strip()
            found = resolve_label(label, names)
            chunk_id = found[0] if len(found) == 1 else None
            if chunk_id is None and not found and not _LABELISH.search(label):
                continue
            out.append((match.start(), match.end(), label, chunk_id, len(found)))
    return out


def shown_names(hit: Hit) -> list[str]:
    """The names a passage is shown under in a language model's prompt (``rag.generators.build_context``): its
    label, and the note's title and the heading beside it ("C1E001 Arrival at Kraghammer · First Night"), which a
    small model copies in square brackets as readily as the label."""
    where = hit.chunk.title_and_heading
    return [hit.chunk.name, where] if " · " in where else [hit.chunk.name]


def attribute(text: str, hits: list[Hit], share: float) -> tuple[str, list[dict[str, Any]]]:
    """A language model's sentences that cite nothing, each followed by the label of the passage that holds more
    than ``share`` of its content words (the test ``check_claims`` puts a cited sentence to), when one does: a small
    local model often answers right and cites nothing (Qwen2.5 1.5B cited no passage in ten answers), and a
    player should still see where a sentence comes from. A sentence no passage holds stays uncited, and is said so.
    Returns the text with the labels added, and every uncited sentence: its text, the label added (None when no
    passage holds it) and the share of its words the best passage holds."""
    by_words = [(h, content_words(f"{h.chunk.name} {h.chunk.text}")) for h in hits]
    added: list[dict[str, Any]] = []
    out, at = [], 0
    for line in re.finditer(r"[^\n]+", text):
        pieces = sentences(line.group())
        for piece, follows in zip(pieces, [*pieces[1:], ""], strict=True):
            end = text.find(piece, max(at, line.start())) + len(piece)
            cites = _cited(piece, hits) or any(begin == 0 for begin, *_ in _cited(follows, hits))
            claimed = content_words(_BRACKET.sub(" ", piece)) - _citing_words()
            out.append(text[at:end])
            at = end
            if cites or not claimed or not by_words:
                continue
            hit, words = max(by_words, key=lambda pair: len(claimed & pair[1]))
            held = len(claimed & words) / len(claimed)
            label = hit.chunk.name if held > share else None
            if label:
                out.append(f" [{label}]")
            added.append({"sentence": piece, "label": label, "held": held})
    out.append(text[at:])
    return "".join(out), added


# Words that say where a sentence comes from, not what happened ("This is stated in [Session 2 · …]"): a sentence
# of only these claims nothing to check. Stemmed when first needed, as every claim's words are.
_CITING_TEXT = "stated mentioned according notes passage written says cited"


@lru_cache(maxsize=1)
def _citing_words() -> frozenset[str]:
    return frozenset(content_words(_CITING_TEXT))


def check_claims(text: str, hits: list[Hit], share: float) -> list[dict[str, Any]]:
    """Each cited sentence of a language model's answer against the passages it cites: the sentences since the
    previous citation are the ones a citation carries; one holds when more than ``share`` of its content words
    (``rag.names.content_words``: lowercased, stop words out, suffixes cut) are in those passages (their text and
    name): with a half, when most of what it says is there. A sentence whose citations all name no passage given
    is not checked (``check_citations`` says so). Returns one row per checked sentence: its text, the ids it cites,
    the share of its words held, whether it holds."""
    by_id = {h.chunk.id: h.chunk for h in hits}
    rows: list[dict[str, Any]] = []
    groups: list[tuple[int, int, list[str]]] = []  # runs of citations with nothing but punctuation between them
    for start, end, _, chunk_id, _ in _cited(text, hits):
        if groups and not re.search(r"\w", text[groups[-1][1] : start]):
            groups[-1] = (groups[-1][0], end, groups[-1][2] + [chunk_id] if chunk_id else groups[-1][2])
        else:
            groups.append((start, end, [chunk_id] if chunk_id else []))
    before = 0
    for start, end, ids in groups:
        carried, before = _BRACKET.sub(" ", text[before:start]), end
        ids = list(dict.fromkeys(ids))
        if not ids:
            continue
        held_words = set().union(*(read_words(f"{by_id[i].name} {by_id[i].text}") for i in ids))
        for sentence in sentences(carried):
            claimed = content_words(sentence) - _citing_words()
            if not claimed:
                continue
            held = len(claimed & held_words) / len(claimed)
            rows.append({"sentence": sentence.strip(), "cited": ids, "held": held, "holds": held > share})
    return rows


def claims_note(citations: list[Citation], claims: list[dict[str, Any]], refused: bool = False) -> str | None:
    """The line, in a player's words, under a language model's answer that no passage it cites backs, or that cites
    none (None when the answer is a refusal, ``refused``, or every checked sentence holds)."""
    if not citations:
        return None if refused else "⚠ This answer cites no passage; check the passages below."
    if not claims or all(c["holds"] for c in claims):
        return None
    if not any(c["holds"] for c in claims):
        return "⚠ The notes cited don't say this; check the passages below."
    said = []
    if unheld := "; ".join(f"“{_shorten(c['sentence'])}”" for c in claims if c["cited"] and not c["holds"]):
        said.append(f"The notes cited don't say {unheld}")
    if uncited := "; ".join(f"“{_shorten(c['sentence'])}”" for c in claims if not c["cited"]):
        said.append(f"No passage says {uncited}")  # a sentence left uncited that no passage holds
    return f"⚠ {'; '.join(said)}; check the passages below."


def _shorten(sentence: str, most: int = 80) -> str:
    sentence = sentence.rstrip(" .")
    return sentence if len(sentence) <= most else sentence[: most - 1].rstrip() + "…"


_PART = re.compile(r"\s*\(\d+\)$")  # "(2)": the second passage under one heading
_CAMPAIGN = re.compile(r"^c\d+ ")  # "C1 ": the campaign a session belongs to


def _name_forms(name: str) -> set[str]:
    """How a passage may be cited: its name, without its part number "(N)", without its campaign "C1"."""
    forms = {norm(name), norm(_PART.sub("", name))}
    return forms | {_CAMPAIGN.sub("", form) for form in forms}


def resolve_label(label: str, names: list[tuple[str, str]]) -> list[str]:
    """The ids of the passages (``(name, id)`` pairs: the answer's context) a citation label may mean: the one
    named exactly so, else every one it names with its part number "(N)" or campaign "C1" left out, or whose name
    it ends ("Session 2 - The Mines" for "C1 Session 2 · The Mines"). One id resolves the label; several mean it
    is ambiguous (two parts of one scene were both given), none that it names no passage given."""
    key = norm(label)
    exact = [cid for name, cid in names if norm(name) == key]
    if exact:
        return exact[:1]
    if not re.search(r"[a-z]", key):  # a wiki's footnote mark "[4]" ends "Part 4" by chance
        return []
    found = [cid for name, cid in names if any(f == key or f.endswith(" " + key) for f in _name_forms(name))]
    return list(dict.fromkeys(found))


def unresolved_note(label: str, candidates: int = 0) -> str:
    """One line, in a player's words, for a citation that names no single passage the answer was given."""
    if candidates > 1:
        return (
            f"⚠ [{label}] could be any of {candidates} passages this answer was given, so it is not checked; "
            "check the passages below."
        )
    return f"⚠ [{label}] is not a passage this answer was given, so it is not checked; check the passages below."
