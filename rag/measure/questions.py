"""The one question-file parser: ``python -m rag eval`` and the Campaign page read questions through it.

The format is shared/data/README.md's (JSON Lines: ``id, question, sessions, evidence, kind`` and optionally
``answer``, ``campaign``, ``story``). A wrong type is refused, never coerced: evidence given as one string
instead of a list would otherwise be read as single characters, and almost any passage of a gold session
would then "support" the question. The first bad line is one ``QuestionFileError`` naming the file, the line
and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.errors import ChroniclerError

KINDS = ("fact", "which-session", "entity", "multi-session", "unanswerable")
MAX_LINES = 5000


class QuestionFileError(ChroniclerError):
    """The question file cannot be used; the message names the file and the line."""


@dataclass
class GoldQuestion:
    """A line of a question file: a question with what answers it (its gold sessions and evidence spans). Not the
    ``rag.question.Question`` a stage reads: ``question`` here is only its text."""

    id: str
    question: str
    sessions: list[float]
    evidence: list[str]
    kind: str
    campaign: int | None = None
    story: str | None = None
    answer: str = ""

    @property
    def answerable(self) -> bool:
        return self.kind != "unanswerable" and bool(self.sessions)


def _number_list(raw: dict, name: str) -> list[float]:
    value = raw.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value):
        raise ValueError(f"'{name}' must be a list of session numbers, like [2] or [3, 7]")
    return [float(v) for v in value]


def _text_list(raw: dict, name: str) -> list[str]:
    value = raw.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{name}' must be a list of quotes from the notes, like [\"gives them a map\"]")
    return value


def _optional_text(raw: dict, name: str) -> str | None:
    value = raw.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"'{name}' must be text")
    return value


def _question(raw: Any) -> GoldQuestion:
    if not isinstance(raw, dict):
        raise ValueError("each line must be one JSON object, {…}")
    for name in ("id", "question"):
        if raw.get(name) in (None, ""):
            raise ValueError(f"it has no '{name}'")
    if not isinstance(raw["question"], str):
        raise ValueError("'question' must be text")
    if isinstance(raw["id"], bool | dict | list):
        raise ValueError("'id' must be text or a number")
    kind = raw.get("kind") or "fact"
    if not isinstance(kind, str):
        raise ValueError(f"'kind' must be one of {', '.join(KINDS)}")
    campaign = raw.get("campaign")
    if campaign is not None and (isinstance(campaign, bool) or not isinstance(campaign, int)):
        raise ValueError("'campaign' must be a whole number, like 1")
    return GoldQuestion(
        id=str(raw["id"]),
        question=raw["question"].strip(),
        sessions=_number_list(raw, "sessions"),
        evidence=_text_list(raw, "evidence"),
        kind=kind,
        campaign=campaign,
        story=_optional_text(raw, "story"),
        answer=_optional_text(raw, "answer") or "",
    )


def parse_questions(data: str | bytes, name: str = "questions.jsonl") -> list[GoldQuestion]:
    """JSON Lines → questions; the first bad line is a ``QuestionFileError`` naming ``name`` and the line."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise QuestionFileError(f"{name} is not a text file (UTF-8): save it as plain text.") from None
    questions, seen = [], {}
    lines = data.splitlines()
    if len(lines) > MAX_LINES:
        raise QuestionFileError(f"{name} has {len(lines)} lines; at most {MAX_LINES} questions are measured.")
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            q = _question(json.loads(line))
        except json.JSONDecodeError as err:
            raise QuestionFileError(
                f"{name}, line {lineno}: not valid JSON ({err.msg} at column {err.colno})."
            ) from None
        except ValueError as err:
            raise QuestionFileError(f"{name}, line {lineno}: {err}.") from None
        if q.id in seen:
            raise QuestionFileError(f"{name}, line {lineno}: the id '{q.id}' is already used on line {seen[q.id]}.")
        seen[q.id] = lineno
        questions.append(q)
    if not questions:
        raise QuestionFileError(f"{name} holds no questions.")
    return questions


def load_questions(path: str | Path) -> list[GoldQuestion]:
    path = Path(path)
    if not path.is_file():
        raise QuestionFileError(f"Question file {path} does not exist.")
    try:
        data = path.read_bytes()
    except OSError as err:
        raise QuestionFileError(f"Cannot read question file {path}: {err.strerror}.") from None
    return parse_questions(data, str(path))


def load_training_questions(path: str | Path) -> list[GoldQuestion]:
    """Every question of a training file, with no cap: a measured set stops at ``MAX_LINES`` questions, and
    FairytaleQA train (for the learned models and their measurements, in ``scripts/``) has 8,548."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [_question(json.loads(line)) for line in lines if line.strip()]
