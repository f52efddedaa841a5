"""The few errors a user can see.

Pages show them with ``st.error``, the CLI prints one line and exits 1, tests let them raise.
Anything else that escapes is a bug, not a user error.
"""

import errno
import re

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
# The store engine (Rust, qdrant-edge) raises a bare Exception whose text carries the OS error's number:
# "File too large (os error 27)", or "Os { code: 28, kind: StorageFull, … }".
_ENGINE_DISK_FULL = re.compile(r"(?:os error|code:) (?:{})\b".format("|".join(map(str, sorted(DISK_FULL_ERRNOS)))))


class ChroniclerError(Exception):
    """Base class: ``str(err)`` is a complete sentence a player can act on."""

    hint: str = ""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        if hint:
            self.hint = hint

    def one_line(self) -> str:
        text = str(self)
        return f"{text} {self.hint}".strip() if self.hint else text


class ConfigError(ChroniclerError):
    """A config key or value is wrong; the message names the key."""


class NotesError(ChroniclerError):
    """The notes folder or a file in it cannot be used at all."""


class StoreLockedError(ChroniclerError):
    """The embedded store folder is held by another process (usually the running app)."""

    hint = (
        "Stop the app (or the other `python -m rag` command) first, "
        "or point `store.url` at a Qdrant server so several programs can share it."
    )


class StoreError(ChroniclerError):
    """The vector store cannot be reached or refused an operation."""


class OtherModelError(StoreError):
    """A campaign's passages were made by another embedding model than the one set now (Settings changed, the
    campaign not read again): their vectors cannot be compared with the question's."""

    def __init__(self) -> None:
        super().__init__(
            "This campaign's passages were made with another reading model than the one set now. Read its notes "
            "again (Settings → Re-index, or Ingest notes) before asking."
        )


class ModelUnavailableError(ChroniclerError):
    """A configured model (embedder, reranker, LLM) is missing or cannot be loaded."""


class LanguageModelError(ChroniclerError):
    """The configured language model did not answer: its server is down or unreachable, refused the key, timed out,
    does not know the model, or failed (``rag.llm``). ``Pipeline.ask`` and ``search`` answer offline instead."""


class ContextTooLongError(LanguageModelError):
    """The request did not fit the model's context. ``limit``: the context length the server's refusal names
    ("This model's maximum context length is 2048 tokens"), when it names one, so a stage can fit it and ask again."""

    def __init__(self, message: str, hint: str = "", limit: int | None = None):
        super().__init__(message, hint)
        self.limit = limit


class LanguageModelKeyError(LanguageModelError, ConfigError):
    """The language model's server refused the key, or the key may not use the model."""


class LanguageModelMissingError(LanguageModelError, ModelUnavailableError):
    """The language model's server does not know the configured model."""


class CampaignNotFoundError(ChroniclerError):
    """The campaign has not been indexed yet."""

    hint = "Add its notes on the Ingest page (or run `python -m rag index --notes DIR --campaign NAME`)."


class GMOnlyError(ChroniclerError):
    """Someone in the player view of a shared app tried what only the game master may do (``rag.access``)."""

    hint = "Ask your game master, or open the GM view in the sidebar (Game master → passphrase)."


class FolderNotAllowedError(ChroniclerError):
    """A folder that may not be read as a campaign's notes (``rag.ingest.folders``); the message says why."""


class LimitError(ChroniclerError):
    """An input is larger than a configured bound (``limits.*``); the message names the bound."""


class DiskFullError(ChroniclerError):
    """A write failed: the disk is full, or a file size or disk quota limit was hit (``rag.files.writing``)."""

    hint = "Free some space and try again."


def disk_full(path: object, hint: str = "") -> DiskFullError:
    return DiskFullError(f"The disk is full (or a file size limit was hit) while writing {path}.", hint)


def is_disk_full(err: BaseException) -> bool:
    """An OSError of a full disk (ENOSPC, EFBIG, EDQUOT), or the store engine's error saying so."""
    if isinstance(err, OSError):
        return err.errno in DISK_FULL_ERRNOS
    return bool(_ENGINE_DISK_FULL.search(str(err)))


def no_llm_error(feature: str) -> ModelUnavailableError:
    """What a stage that needs an LLM says when none is configured, with the fix."""
    return ModelUnavailableError(
        f"{feature} needs an LLM, and none is configured (the answerer is the offline one).",
        hint="Fix: on the Settings page choose an OpenAI-compatible answer provider (OpenAI, Ollama, "
        "llama.cpp server…), or set `answer.backend: openai` with `answer.base_url` and `answer.model`.",
    )
