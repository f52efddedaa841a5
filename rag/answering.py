"""The answer rules, from retrieved passages to a grounded, cited, checked Answer.

``Pipeline.ask`` runs them in order: ``standalone_question`` rewrites a follow-up; the pipeline searches
(``named_sessions`` narrows "what happened in session 5?"); ``respond`` refuses without calling any generator
when nothing passed the threshold or the generator's own support score is below the floor, else generates
(streamed) and checks every citation against the passages that were in the context, and, for a language model's
answer, every cited sentence against what it cites (``rag.citations``). Nothing here searches: the rules take
what the pipeline found.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rag.campaign.recap import RecapLine
from rag.citations import attribute, check_citations, check_claims, claims_note
from rag.config import AnswerConfig
from rag.generators import NOT_IN_NOTES, Generator, History, Support, build_messages, fitting
from rag.generators._decisions import load_decisions, with_rules
from rag.models import Answer, Citation, Filters, Hit, format_session
from rag.question import Question, read_question
from rag.question.turns import answered_name, asked_of, session_mentions
from rag.search.retrieval import Retrieval

REFUSAL_EMPTY = f"{NOT_IN_NOTES}: no passage in this campaign's notes matches that question."
REFUSAL_WEAK = f"{NOT_IN_NOTES}: the closest passages are about something else, so I won't guess."


def is_refusal(text: str) -> bool:
    t = text.casefold().replace("’", "'")
    return "notes don't say" in t or "notes do not say" in t


LEVELS = ("low", "medium", "high")


def confidence(
    support: float | None, floor: float, hits: list[Hit], citations: list[Citation], verdict: str | None = None
) -> str:
    """high / medium / low from retrieval strength, citation coverage and agreement, and, when the reranker
    gives one, its verdict on the best passage: the two levels are averaged, rounded down, so "high" needs both
    (an answer with an unchecked citation is never lifted by it).

    Strength is the generator's support score measured against the refusal floor when it has one
    (extractive), else the best meaning (cosine) score of the passages. Coverage is the share of
    citations that resolved; an answer without any citation is never above low. High also needs the answer to
    cite the passage retrieval ranked first: when the best sentence sits lower, search and answer disagree, and
    on every dev set those answers held the evidence less often (docs/experiments/history.md)."""
    if not citations:
        return "low"
    agrees = bool(hits) and any(c.chunk_id == hits[0].chunk.id for c in citations)
    coverage = sum(c.chunk_id is not None for c in citations) / len(citations)
    if support is not None:
        margin = support - floor
        strong, fair = margin >= 0.25, margin >= 0.05
    else:
        dense = max((h.scores.get("dense", 0.0) for h in hits), default=0.0)
        strong, fair = dense >= 0.55, dense >= 0.35
    level = "high" if strong and coverage == 1.0 and agrees else "medium" if fair and coverage >= 0.5 else "low"
    if verdict not in LEVELS:
        return level
    both = (LEVELS.index(level) + LEVELS.index(verdict)) // 2
    if coverage < 1.0:  # an unchecked citation: a sure search does not vouch for it
        both = min(both, LEVELS.index(level))
    return LEVELS[both]


def generated_confidence(
    hits: list[Hit], citations: list[Citation], claims: list[dict[str, Any]], high: float, medium: float
) -> str:
    """high / medium / low for a language model's answer, from its own sentences and the passages it cites.

    What it says: all of its checked sentences hold, and every citation names a passage given → high; at least
    half hold → medium; else low. An answer that cites nothing, or none of whose sentences hold, is low whatever
    else is said. How sure the cited passages are: the reranker's certainty (``Hit.sure``) of the best passage
    that holds a sentence, banded at ``high`` and ``medium`` (``answer.confidence_high``, ``confidence_medium``);
    without a reranker that gives one, its meaning score as the rules read it (.55, .35). The two levels are
    averaged, rounded down: "high" needs both."""
    if not citations or not any(c["holds"] for c in claims):
        return "low"
    coverage = sum(c.chunk_id is not None for c in citations) / len(citations)
    holding = sum(c["holds"] for c in claims) / len(claims)
    said = 2 if holding == 1.0 and coverage == 1.0 else 1 if holding >= 0.5 else 0
    backing = {i for c in claims if c["holds"] for i in c["cited"]}
    cited = [h for h in hits if h.chunk.id in backing]
    sure = [h.sure for h in cited if h.sure is not None]
    if sure:
        best, bands = max(sure), (high, medium)
    else:
        best, bands = max((h.scores.get("dense", 0.0) for h in cited), default=0.0), (0.55, 0.35)
    return LEVELS[(said + band(best, *bands)) // 2]


def band(value: float, high: float, medium: float) -> int:
    """0, 1 or 2 (an index of ``LEVELS``): ``value`` at least ``high``, at least ``medium``, or below."""
    return 2 if value >= high else 1 if value >= medium else 0


def holds_evidence(signals: dict[str, float], support: float | None, note: str | None) -> float | None:
    """How likely the answer holds what answers the question, by the learned model (None without one, or without
    the offline answerer's signals)."""
    decisions = load_decisions()
    return decisions.probability("holds_evidence", with_rules(signals, support, note)) if decisions else None


def offline_rewrite(
    question: Question, history: History, read: Callable[[str], Question] = read_question
) -> tuple[str, list[str]]:
    """Make a follow-up standalone by carrying the names (and "session N") of the latest earlier question
    that had any (or, for a "who" question that named no one or asked for someone by what they are to others, whom
    its answer gave: ``answered_name``): the one
    name it gave in place of "she", "him" or "his" ("What did Kima do next?", ``asked_of``),
    else in brackets after it ("What did they find? (session 5)"). Only questions that lean on the past
    (``Question.leans_back``) are touched. An earlier question's names are those the campaign reads in it
    (``read``, as ``Pipeline.reader`` reads every question): "who is halia", typed without capitals, names Halia,
    and "and what did she do next?" asks what Halia did."""
    if not history or not question.leans_back:
        return question.text, []
    own = {n.casefold() for n in question.names}
    for previous, answered in reversed(history):
        named = read(previous).names
        people = list(dict.fromkeys(n for n in named if n.casefold() not in own))
        if whom := answered_name(previous, answered):
            people = [whom] if whom.casefold() not in own else []  # "Who didn't we trust?" → "Kima."
        sessions = [] if question.session_mentions else list(session_mentions(previous))
        carried = list(dict.fromkeys(people + sessions))
        if len(people) == 1 and (asked := asked_of(question.text, people[0])):
            return (f"{asked.rstrip()} ({', '.join(sessions)})" if sessions else asked), carried
        if carried:
            return f"{question.text.rstrip()} ({', '.join(carried)})", carried
    return question.text, []


def named_sessions(question: Question, filters: Filters) -> Filters:
    """A question like "What happened in session 5?" searches session 5 only (and a follow-up carries "session 5"
    over, see ``offline_rewrite``). It only ever narrows: an "as of session N" cap from the sidebar still holds,
    so a question about a later session is searched up to the cap, never beyond it."""
    named = question.sessions_named
    if not named:
        return filters
    low, high = min(named), max(named)
    if filters.session_min is not None:
        low = max(low, filters.session_min)
    if filters.session_max is not None:
        high = min(high, filters.session_max)
    if low > high:  # asked about a session beyond the cap: the cap wins
        return filters
    return Filters(**{**vars(filters), "session_min": low, "session_max": high})


def past_the_cap(question: Question, filters: Filters) -> str | None:
    """Why a question about sessions after the "as of session" cap gets no answer, in a player's words, or None:
    the notes up to the cap cannot tell what happened later, and quotes of earlier sessions would read as if they
    did (a vault-icbm walk: "What happened in session 7?" as of session 6 quoted Sessions 0 and 2, "Probably")."""
    cap, named = filters.session_max, question.sessions_named
    if cap is None or not named or min(named) <= cap:
        return None
    asked = sorted(set(named))
    which = (
        f"Session {format_session(asked[0])} comes"
        if len(asked) == 1
        else (f"Sessions {', '.join(format_session(n) for n in asked[:-1])} and {format_session(asked[-1])} come")
    )
    return f"you are reading as of Session {format_session(cap)}, and {which} after it"


class AnswerStream:
    """Iterate for the answer's text pieces (``st.write_stream(stream)``), then read ``.answer``.

    Reading ``.answer`` first simply consumes the stream. A flag for an unchecked citation arrives as the
    last piece, so what streamed is ``answer.text``, unless citations were added inside it (``rewritten``). ``started``: when the question came in, the one time
    origin of the run record's timings (the first piece's time, ``finish``'s second argument, is counted from it,
    as the total is)."""

    def __init__(
        self,
        pieces: Iterator[str],
        finish: Callable[[str, float | None], Answer],
        notices: list[str] | None = None,
        started: float | None = None,
    ):
        self._pieces, self._finish = pieces, finish
        self.notices = list(notices or [])  # optional search stages that were skipped, with the fix
        self._answer: Answer | None = None
        self._parts: list[str] = []
        self._started = time.perf_counter() if started is None else started
        # True when the finished answer is not what streamed plus lines after it (a citation was added after a
        # sentence the model left uncited): the page then shows ``answer.text`` in place of what streamed
        self.rewritten = False

    def __iter__(self) -> Iterator[str]:
        first: float | None = None
        for piece in self._pieces:
            if first is None:
                first = time.perf_counter() - self._started
            self._parts.append(piece)
            yield piece
        text = "".join(self._parts)
        self._answer = self._finish(text, first)
        shown = text.rstrip()  # the check's lines follow the answer's last word
        if self._answer.text != text and self._answer.text.startswith(shown):
            yield self._answer.text[len(shown) :]
        elif self._answer.text != text:
            self.rewritten = True

    @property
    def answer(self) -> Answer:
        if self._answer is None:
            for _ in self:
                pass
        return self._answer


def standalone_question(
    question: Question, history: History, generator: Generator, read: Callable[[str], Question] = read_question
) -> tuple[Question, dict[str, Any]]:
    """The question as it is searched, read, and the trace's ``rewrite`` entry (standalone text, method, names
    carried). Only a question that leans on the last turn (``Question.leans_back``) is rewritten: by the
    generator (an LLM) when it can, else by ``offline_rewrite``; any other question is searched as asked, with
    or without history (an LLM rewrote every question once there was history, and answered from the last turn).
    ``read`` reads the rewritten text as the campaign reads its questions (``Pipeline.reader``)."""
    if history and question.leans_back:
        llm = generator.rewrite(question, history)
        if llm:
            return read(llm), {"standalone": llm, "method": "llm", "carried": []}
        standalone, carried = offline_rewrite(question, history, read)
        if carried:
            return read(standalone), {"standalone": standalone, "method": "offline", "carried": carried}
    return question, {"standalone": question.text, "method": "none", "carried": []}


def respelt_question(
    question: Question,
    respelt: dict[str, str],
    rewrite: dict[str, Any],
    read: Callable[[str], Question] = read_question,
) -> tuple[Question, dict[str, Any]]:
    """The question asked with the notes' spelling of the names they write only another way (``Retrieval.respelt``:
    "Who is Clarrota?" over notes that say "Clarota"), and its ``rewrite`` entry saying so. Searched and read as
    typed, the answer looked for "Clarrota" in every sentence it weighed and found none, and refused what the notes
    say; read as the notes spell it, it is the answer to the question the player meant, and the page says how it
    was read."""
    text = question.text
    for word, other in respelt.items():
        text = re.sub(rf"(?<![\w'’-]){re.escape(word)}(?![\w'’-])", other, text)
    return read(text), {**rewrite, "standalone": text, "respelt": dict(respelt)}


@dataclass(frozen=True)
class Prepared:
    """What an answer is written from, all found before a word of it is: the question as typed (``asked``) and as
    searched (``standalone``: a follow-up rewritten, ``rewrite`` says how), the search, the turns it may lean on.
    Kept apart from the writing so that a language model asked again at a smaller context writes from the same
    passages, without the search (and any language-model stage in it) run twice."""

    asked: Question
    standalone: Question
    rewrite: dict[str, Any]
    retrieval: Retrieval
    history: History
    recap: tuple[RecapLine, ...] = ()  # "What happened in session 5?": that session's recap, its passages the hits


def set_filters(filters: Filters) -> dict[str, Any]:
    """The filters an answer was searched with, as its run record shows them: those set, the view apart."""
    return {k: v for k, v in vars(filters).items() if v not in (None, (), "") and k != "view"}


def recap_answer(prepared: Prepared, started: float) -> AnswerStream:
    """What one session held, for a question that asks only that: its recap's lines (``rag.campaign.recap``: a
    line per scene, or the note's own summary; table talk left out), each cited, in story order. Every line is the
    notes' own, so no model writes anything and nothing is refused: best-matching sentences for "what happened"
    were whichever lines happened to say "happened", or a refusal ("the closest passages are about something
    else"). A question that asks how the session ended gets its last story lines, under "… ended with:"."""
    hits = prepared.retrieval.hits
    by_id = {h.chunk.id: h.chunk for h in hits}
    lines = prepared.recap
    label = lines[-1].session_label
    pieces = [f"{label} ended with:\n" if prepared.standalone.ending else f"Previously on {label}:\n"]
    pieces += [f"- {line.text} {by_id[line.chunk_id].label}\n" for line in lines]
    trace: dict[str, Any] = {
        "question": prepared.asked.text,
        "mode": "recap",  # the notes' own lines, chosen without a search: the chat has nothing to explain
        "rewrite": prepared.rewrite,
        "recap": list(dict.fromkeys(line.session_label for line in lines)),
        "filters": set_filters(prepared.retrieval.filters),
        "view": prepared.retrieval.filters.view,
        "hits": [h.as_dict() for h in hits],
        "generator": "recap",
        "prompt": None,
        "timings": {"rewrite_and_retrieve": time.perf_counter() - started},
    }

    def finish(text: str, first: float | None) -> Answer:
        checked, citations = check_citations(text, hits)
        trace["timings"] |= {"first_token": first, "total": time.perf_counter() - started}
        return Answer(prepared.asked.text, checked, citations, hits, confidence="high", trace=trace)

    return AnswerStream(iter(pieces), finish, prepared.retrieval.notices, started)


def respond(prepared: Prepared, generator: Generator, config: AnswerConfig, started: float) -> AnswerStream:
    """Refuse without generating when nothing was found or support is below the floor; else generate lazily
    (streamed) and check every citation once the text is complete. ``started``: when the question came in."""
    if prepared.recap:
        return recap_answer(prepared, started)
    asked, standalone, rewrite, retrieval = prepared.asked, prepared.standalone, prepared.rewrite, prepared.retrieval
    history = prepared.history
    hits = retrieval.hits
    t_retrieved = time.perf_counter()
    # a name the notes never write is refused below whatever the passages score: no need to score them
    assessed = generator.support(standalone, hits) if hits and not retrieval.unknown else Support()
    support = assessed.score
    trace: dict[str, Any] = {
        "question": asked.text,
        "rewrite": rewrite,
        "mode": retrieval.mode,
        "variants": dict(retrieval.variants),
        "queries": list(retrieval.queries),
        "notices": list(retrieval.notices),
        "filters": set_filters(retrieval.filters),
        "view": retrieval.filters.view,  # who the answer was made for: a run record says if it may hold GM notes
        "hits": [h.as_dict() for h in retrieval.candidates],
        "generator": generator.name,
        "support": support,
        "verdict": retrieval.verdict,  # the reranker's word on the best passage, part of the confidence
        "support_note": assessed.note if support is not None else None,
        "signals": {
            **assessed.signals,
            "top_rerank": min(hits, key=lambda h: h.rank).scores.get("rerank", 0.0) if hits else 0.0,
            "top_dense": min(hits, key=lambda h: h.rank).scores.get("dense", 0.0) if hits else 0.0,
            "unknown_names": float(len(retrieval.unknown)),
        },
        "refusal_floor": config.refusal_floor if support is not None else None,
        "timings": {
            **{f"retrieve_{s}": v for s, v in retrieval.timings.items()},
            "rewrite_and_retrieve": t_retrieved - started,
        },
    }
    refusal = None
    if later := past_the_cap(standalone, retrieval.filters):  # "What happened in session 7?" as of session 6
        trace["support_note"] = later
        refusal = f"{NOT_IN_NOTES}: {later}."
    elif not hits:
        refusal = REFUSAL_EMPTY
    elif retrieval.unknown:  # "Who rules Whitestone?" over notes that never name it (rag.search.unknown_names)
        cap = retrieval.filters.session_max  # "as of session 4": the notes up to it
        upto = f"up to Session {format_session(cap)} " if cap is not None else ""
        trace["support_note"] = f"{upto}they never mention {retrieval.unknown[0]}"
        refusal = f"{NOT_IN_NOTES}: {trace['support_note']}."
    elif support is not None and support < config.refusal_floor:
        refusal = f"{NOT_IN_NOTES}: {assessed.note}." if assessed.note else REFUSAL_WEAK
    if refusal:
        trace["prompt"] = None
        trace["refusal_rule"] = trace["support_note"] or (
            "no passage passed the threshold" if not hits else "support below the floor"
        )

        def refused(text: str, first: float | None) -> Answer:
            trace["timings"]["total"] = time.perf_counter() - started
            return Answer(asked.text, text, [], hits, refused=True, confidence="low", trace=trace)

        return AnswerStream(iter([refusal]), refused, retrieval.notices, started)

    history = history if asked.leans_back else []  # earlier turns only help a follow-up (and mislead others)
    given, notices = hits, list(retrieval.notices)
    if not generator.quotes_notes:  # a language model reads what fits its context, the best passages first
        given = fitting(standalone, hits, history, config.context_tokens, config.max_tokens)
        if len(given) < len(hits):
            notices.append(
                f"The language model was given the best {len(given)} of the {len(hits)} passages below: the others "
                "did not fit in what it reads at once."
            )
            trace["notices"] = list(notices)
    trace["prompt"] = build_messages(standalone, given, history)

    def finish(text: str, first: float | None) -> Answer:
        if not generator.quotes_notes and not is_refusal(text):  # what it left uncited, cited where a passage holds it
            text, trace["attributed"] = attribute(text, hits, config.claim_words_held)
        checked, citations = check_citations(text, hits)
        trace["timings"]["first_token"] = first
        trace["timings"]["total"] = time.perf_counter() - started
        refused = is_refusal(text) and not any(c.chunk_id for c in citations)
        if not generator.quotes_notes:  # a language model's own sentences: do the passages it cites say them?
            claims = check_claims(text, hits, config.claim_words_held)
            claims += [  # and those it left uncited that no passage holds
                {"sentence": a["sentence"], "cited": [], "held": a["held"], "holds": False}
                for a in trace.get("attributed", [])
                if a["label"] is None
            ]
            trace["claims"] = claims
            if note := claims_note(citations, claims, refused=is_refusal(text)):
                checked = checked.rstrip() + "\n\n" + note
            level = (
                "low"
                if refused
                else generated_confidence(hits, citations, claims, config.confidence_high, config.confidence_medium)
            )
            return Answer(asked.text, checked, citations, hits, refused=refused, confidence=level, trace=trace)
        level = "low" if refused else confidence(support, config.refusal_floor, hits, citations, retrieval.verdict)
        held = holds_evidence(trace["signals"], support, assessed.note) if config.confidence == "learned" else None
        trace["holds_evidence"] = held
        if held is not None and not refused and citations and all(c.chunk_id for c in citations):
            level = LEVELS[band(held, config.confidence_high, config.confidence_medium)]
        return Answer(asked.text, checked, citations, hits, refused=refused, confidence=level, trace=trace)

    pieces = generator.generate(standalone, given, history, assessed)
    return AnswerStream(pieces, finish, notices, started)
