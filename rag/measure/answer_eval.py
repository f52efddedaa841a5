"""Answer evaluation (``python -m rag eval --answers``): refusals, citation precision, evidence in answers.

Same question files and matching rule as retrieval evaluation (``rag.measure.evaluation.supports``):
- ``refusal_accuracy``: share of ``unanswerable`` questions the answerer refused (absent if a set has none);
- ``false_refusal_rate``: share of answerable questions it refused;
- ``citation_precision``: share of resolved citations, over answered answerable questions, whose passage
  holds the question's evidence (an unresolved citation counts as wrong);
- ``answer_has_evidence``: share of answerable questions whose answer text contains an evidence span
  (a refusal counts as a miss);
- ``short_answer_correct``: share of answerable questions whose lead line (the answer's first paragraph, when the
  answer opens with a short answer on a line of its own) is right (``lead_is_right``: it says the gold answer's key
  term, its citation left out, by the evaluation's ``norm``; or, asked who or what X is, it describes X with a word
  of the gold answer); an answer without a lead line, or a refusal, counts as a miss;
- ``short_answer_precision``: of the answers that show a lead line, the share whose lead is right (how often a
  short answer a player sees is right);
- ``answer_f1``: token-level F1 of what the answer says (its citations and warning lines left out) against the
  reference ``answer``, normalised as SQuAD does (lowercased, punctuation and the articles a/an/the removed), over
  answerable questions that give one; a refusal scores 0. Fits a generated answer, which rewords the notes;
- ``cited_evidence``: share of answerable questions with evidence whose answer cites a passage that holds an
  evidence span (the data sets' rule, ``supports``): the evidence held by the cited passages, however the answer
  words it (a refusal counts as a miss).
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rag.measure.evaluation import indexed_corpora, supports
from rag.measure.questions import GoldQuestion, load_questions
from rag.measure.stats import p50_p95
from rag.names import STOPWORDS, content_words, names, norm
from rag.pipeline import Pipeline

_NUMBER = re.compile(r"\d[\d,.]*")
_WORD = re.compile(r"[A-Za-z][\w'-]+")


def key_term(q: GoldQuestion) -> str | None:
    """What a correct short answer must contain: for a which-session question its (first) gold session; else the
    first name in the gold answer that the question does not give, else its first number, else its first
    content word. None when the question file gives no answer text."""
    if q.kind == "which-session" and q.sessions:
        session = q.sessions[0]
        return f"session {int(session) if float(session).is_integer() else session}"
    said = f" {norm(q.question)} "
    for name in names(q.answer):
        if norm(name) and f" {norm(name)} " not in said:
            return norm(name)
    if m := _NUMBER.search(q.answer):
        return norm(m.group(0))
    return next((norm(w) for w in _WORD.findall(q.answer) if w.casefold() not in STOPWORDS and len(w) > 2), None)


def lead_is_right(q: GoldQuestion, lead: str) -> bool | None:
    """Whether a short answer is right by what it says (its citation left out), or None when the gold answer gives
    nothing to check it by. It is right when it says the key term (``key_term``). Asked who or what X is
    (kind ``entity``), it is also right when what it says of X shares a word with the gold answer: a description is
    what that question asks, and the key term, the gold's first name that the question does not give, is one detail
    of it ("Esher: a male bride." answers "A male bride of Strahd who tried to overthrow him", whose key term is
    "Strahd"). The question's own words do not count."""
    key = key_term(q)
    if key is None:
        return None
    text = said(lead)
    if key in norm(text):
        return True
    if q.kind != "entity":
        return False
    asked = content_words(q.question)
    described = text.split(":", 1)[1] if ":" in text else text  # "X: a male bride." describes X after the colon
    return bool((content_words(described) - asked) & (content_words(q.answer) - asked))


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CITATION = re.compile(r"\[[^\[\]\n]*\]")


def said(text: str) -> str:
    """What an answer says: without its citations and the check's warning lines ("⚠ …")."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("⚠")]
    return _CITATION.sub(" ", "\n".join(lines))


def squad_tokens(text: str) -> list[str]:
    """SQuAD's answer normalisation: lowercase, punctuation (any Unicode punctuation) and articles out."""
    text = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in text.lower())
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD's token-level F1 of a prediction against one reference answer."""
    predicted, wanted = squad_tokens(prediction), squad_tokens(reference)
    if not predicted or not wanted:
        return float(predicted == wanted)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if not same:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def lead_line(text: str) -> str:
    """The short answer an answer opens with on a line of its own, or "" when it opens with the proof."""
    first, sep, _ = text.partition("\n\n")
    return first if sep else ""


def score_answer(q, result) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": q.id,
        "kind": q.kind,
        "refused": result.refused,
        "confidence": result.confidence,
        "support": result.trace.get("support"),
        "signals": result.trace.get("signals") or {},
        "holds_evidence": result.trace.get("holds_evidence"),  # the stated likelihood behind the label
    }
    if not q.answerable:
        row["refusal_correct"] = float(result.refused)
        return row
    row["false_refusal"] = float(result.refused)
    lead = lead_line(result.text)
    if (right := lead_is_right(q, lead)) is not None:
        # what the lead says, not the passage name it cites ("Caduceus. [… Trip to The Invulnerable Vagrant]")
        row["short_answer_correct"] = float(not result.refused and right)
        row["lead_shown"] = float(not result.refused and bool(lead))
    if q.answer.strip():
        row["answer_f1"] = 0.0 if result.refused else round(token_f1(said(result.text), q.answer), 4)
    text = norm(result.text)
    row["has_evidence"] = float(not result.refused and any(norm(e) and norm(e) in text for e in q.evidence))
    cited = result.cited
    if q.evidence:
        row["cited_evidence"] = float(not result.refused and any(supports(chunk, q) for chunk in cited))
    if not result.refused and q.evidence:
        row["citations"] = len(result.citations)
        row["citations_supporting"] = sum(1 for chunk in cited if supports(chunk, q))
    return row


def summarise(rows: list[dict[str, Any]]) -> dict[str, float]:
    def mean(key: str) -> float | None:
        values = [r[key] for r in rows if key in r]
        return round(sum(values) / len(values), 4) if values else None

    cited = sum(r.get("citations", 0) for r in rows)
    shown = [r for r in rows if _lead_shown(r)]
    out = {
        "refusal_accuracy": mean("refusal_correct"),
        "false_refusal_rate": mean("false_refusal"),
        "citation_precision": round(sum(r.get("citations_supporting", 0) for r in rows) / cited, 4) if cited else None,
        "answer_has_evidence": mean("has_evidence"),
        "short_answer_correct": mean("short_answer_correct"),
        "short_answer_precision": round(sum(r["short_answer_correct"] for r in shown) / len(shown), 4)
        if shown
        else None,
        "answer_f1": mean("answer_f1"),
        "cited_evidence": mean("cited_evidence"),
    }
    return {k: v for k, v in out.items() if v is not None}


def _lead_shown(row: dict[str, Any]) -> bool:
    """The answer opened with a short answer that the gold answer can check (results written before
    ``lead_shown`` was recorded are read from their answer text)."""
    if "short_answer_correct" not in row:
        return False
    if "lead_shown" in row:
        return bool(row["lead_shown"])
    return bool(lead_line(row.get("answer", ""))) and not row.get("refused")


def run_answer_eval(
    pipeline: Pipeline,
    notes_dir: str | Path,
    questions_path: str | Path,
    story_dirs: bool = False,
    log: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Answer every question of the file with the configured answerer (indexing incrementally first)."""
    questions = load_questions(questions_path)
    generator = pipeline.generator  # built once, reused for every question
    rows, latencies = [], []
    for campaign, qs in indexed_corpora(pipeline, notes_dir, questions, story_dirs, log):
        for q in qs:
            t0 = time.perf_counter()
            result = pipeline.answer(q.question, campaign)
            latencies.append(time.perf_counter() - t0)
            rows.append({**score_answer(q, result), "answer": result.text, "seconds": round(latencies[-1], 3)})
    by_kind = {
        kind: {"n": sum(r["kind"] == kind for r in rows), **summarise([r for r in rows if r["kind"] == kind])}
        for kind in sorted({r["kind"] for r in rows})
    }
    answerable = [r for r in rows if "has_evidence" in r]
    by_confidence = {
        level: {
            "n": sum(r["confidence"] == level for r in answerable),
            **summarise([r for r in answerable if r["confidence"] == level]),
        }
        for level in ("high", "medium", "low")
    }
    return {
        "overall": summarise(rows),
        "by_kind": by_kind,
        "by_confidence": by_confidence,
        "generator": generator.name,
        "refusal_floor": pipeline.config.answer.refusal_floor,
        "latency_ms_p50": p50_p95([1000 * s for s in latencies])[0],
        "per_question": rows,
    }


def format_answers(result: dict[str, Any]) -> str:
    o = result["overall"]
    parts = [f"{k} {v:.3f}" for k, v in o.items()]
    if "refusal_accuracy" not in o:
        parts.append("refusal_accuracy n/a (no unanswerable questions in this set)")
    return f"answers ({result['generator']}): " + ", ".join(parts) + f"; p50 {result['latency_ms_p50']} ms"
