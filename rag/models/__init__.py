"""Plain value objects passed between stages: ``passages`` (Note, Chunk) and ``results`` (Filters, Hit,
Citation, Answer). Import them from here."""

from rag.models.passages import (
    DATE_ORDER,
    FILE_TYPES,
    OPTIONAL_FIELDS,
    SESSION_ORIGINS,
    SESSION_PART,
    VISIBILITIES,
    Chunk,
    Note,
    Session,
    chunk_id,
    format_session,
    match_words,
    page_kind,
    same_words,
    sender_keys,
)
from rag.models.results import Answer, Citation, Filters, Hit

__all__ = [
    "FILE_TYPES",
    "OPTIONAL_FIELDS",
    "SESSION_ORIGINS",
    "DATE_ORDER",
    "VISIBILITIES",
    "Answer",
    "Chunk",
    "Citation",
    "Filters",
    "Hit",
    "Note",
    "Session",
    "chunk_id",
    "SESSION_PART",
    "format_session",
    "match_words",
    "page_kind",
    "same_words",
    "sender_keys",
]
