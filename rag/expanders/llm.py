"""Query expansion by the configured OpenAI-compatible LLM (the seed's rule: N short variants).

Without a configured LLM this backend refuses to be built, with the fix, instead of silently
searching only the original question.
"""

from __future__ import annotations

from rag.config import Config
from rag.errors import no_llm_error
from rag.expanders import QueryExpander, clean_variants
from rag.llm import LLMClient, llm_configured
from rag.question import Question

PROMPT = (
    "You help search the session notes of a tabletop role-playing campaign. Write {n} different short "
    "search queries that could find the passage answering the player's question: rephrase it, use other "
    "words the notes might use, and spell out the people, places and things it implies. "
    "Reply with the queries only, one per line, with no numbering and no explanations."
)


class LLMExpander(QueryExpander):
    name = "llm"

    def __init__(self, config: Config):
        if not llm_configured(config.answer):
            raise no_llm_error("Query expansion")
        self.llm = LLMClient(config.answer)

    def expand(self, question: Question, n: int, aliases=None, found=None) -> list[str]:
        messages = [
            {"role": "system", "content": PROMPT.format(n=n)},
            {"role": "user", "content": question.text},
        ]
        return clean_variants(self.llm.complete(messages, max_tokens=60 * n), question.text, n)


def create(config: Config) -> LLMExpander:
    return LLMExpander(config)
