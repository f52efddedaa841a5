"""What the offline answerer saw, in numbers: how well the best sentences match the question, whether its words
other than names are said anywhere, whether the asked detail is there. Recorded in every answer's trace and read
by a learned decision (whether to answer, how sure to be) rather than by one threshold each. Private to the
extractive backend.
"""

from __future__ import annotations

from rag.generators._reading import short_answer
from rag.generators._sentences import Sentence
from rag.generators._who import says_asked_verb
from rag.names import content_words, names_passage, read_words
from rag.question import Question

TOP = 5  # the best sentences read for each signal


def signals(question: Question, sentences: list[Sentence]) -> dict[str, float]:
    """Numbers about the reading of one question's passages (``sentences``, best support first)."""
    if not sentences:
        return {"sentences": 0.0}
    top = sentences[:TOP]
    rest = question.content - {w for n in question.names for w in content_words(n)}
    said = [read_words(s.text) for s in sentences]

    def cover(words: set[str]) -> float:
        return len(rest & words) / len(rest) if rest else 1.0

    everywhere = set().union(*said)
    named = [n for n in question.names if any(names_passage((n,), s.text) for s in sentences)]
    picks = sorted(sentences, key=lambda s: -s.pick)[:3]
    # whether a sentence says the asked verb is a feature of "who did it" questions, as the learned models were
    # trained; a "where" question's verb only decides its lead
    asks_who_did = question.kind == "person" and bool(question.verbs)
    return {
        "sentences": float(len(sentences)),
        "best_score": sentences[0].score,
        "second_score": sentences[1].score if len(sentences) > 1 else 0.0,
        "best_meaning": max(s.meaning for s in top),
        "best_overlap": max(s.overlap for s in top),
        "rest_words": float(len(rest)),
        "rest_in_best": cover(said[0]),
        "rest_in_top": max(cover(w) for w in said[:TOP]),
        "rest_anywhere": cover(everywhere),
        "names_found": len(named) / len(question.names) if question.names else 1.0,
        "typed_in_picks": float(any(short_answer(question, s.text, s.hit.chunk, s.previous, s.named) for s in picks)),
        "verb_said": float(any(says_asked_verb(question, s.text) for s in sentences)) if asks_who_did else 1.0,
        "best_rank": float(sentences[0].hit.rank),
    }
