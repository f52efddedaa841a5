"""A real language model's replies, recorded once and replayed in every test run.

``scripts/record_llm.py`` puts a recording proxy between Chronicler and a real OpenAI-compatible server and
writes each reply to ``tests/fixtures/llm_replies/<name>.json``; the fake server (``tests.llm_server``) answers a
request for a recorded model with the reply the real model gave. So the tests see what a small local model really
writes (labels without their "(N)", claims its passages do not hold, refusals worded its own way), not what a test's
author imagined it would.

A request is matched by what it asks, not by its whole prompt: its kind (answer, follow-up rewrite, passage rating,
search phrasings), the player's question, how many earlier turns it carries and, for passage ratings, which passage
comes first. So a reworded system prompt or a passage that moved in the search replays the same reply, as a model
would have read the prompt much the same way; a question nobody recorded is a clear error, never a made-up reply.
"""

from __future__ import annotations

import json
from pathlib import Path

REPLIES = Path(__file__).resolve().parent / "fixtures" / "llm_replies"
OPENING_WORDS = 4  # enough to tell the four prompts apart; the rules after them may be reworded


def kind_of(messages: list[dict]) -> str:
    """Which of Chronicler's requests this is, from its system prompt's opening words (stable across rewordings of
    the rules that follow them), compared with the opening words of the product's own prompts."""
    from rag.expanders.llm import PROMPT as EXPAND_PROMPT
    from rag.generators import REWRITE_PROMPT, SYSTEM_PROMPT
    from rag.rerankers.llm import PROMPT as RERANK_PROMPT

    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
    for kind, prompt in (
        ("answer", SYSTEM_PROMPT),
        ("rewrite", REWRITE_PROMPT),
        ("rerank", RERANK_PROMPT),
        ("expand", EXPAND_PROMPT),
    ):
        if system.split()[:OPENING_WORDS] == prompt.split()[:OPENING_WORDS]:
            return kind
    return "other"


def request_key(messages: list[dict]) -> dict:
    """What a reply is looked up by: kind, question, earlier turns carried, and a passage rating's first passage."""
    kind = kind_of(messages)
    last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    first_passage = ""
    if kind == "answer":
        question = last.rsplit("\n\nQuestion: ", 1)[-1]
    elif kind == "rewrite":
        question = last.rsplit("Last question: ", 1)[-1]
    elif kind == "rerank":
        question, _, passages = last.partition("\n\n")
        question = question.removeprefix("Question: ")
        first_passage = passages.removeprefix("P1: ")[:60]
    else:
        question = last
    turns = sum(1 for m in messages if m.get("role") == "assistant")
    return {"kind": kind, "question": question.strip(), "turns": turns, "first_passage": first_passage}


def load_replies() -> dict[str, dict]:
    """Every recording by the model name a test asks the fake server for (``replay:<file name>``)."""
    return {f"replay:{path.stem}": json.loads(path.read_text(encoding="utf-8")) for path in REPLIES.glob("*.json")}


def find_reply(recording: dict, messages: list[dict]) -> dict | None:
    """The recorded reply to a request like ``messages``, or None."""
    key = request_key(messages)
    return next((r for r in recording["replies"] if all(r[k] == v for k, v in key.items())), None)
