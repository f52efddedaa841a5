"""The one reading of a question: ``read_question(text)`` → a frozen ``Question`` that the search, the reranker,
question expansion, the answerer and the follow-up rules take instead of the text. Every pattern over question
text lives in this package."""

from rag.question.details import Attribute
from rag.question.kinds import told_of_the_party
from rag.question.question import Question, read_question
from rag.question.turns import StoryOrder

__all__ = ["Attribute", "Question", "StoryOrder", "read_question", "told_of_the_party"]
