"""A language model that does not answer never leaves a player without an answer.

With an OpenAI-compatible model set up (Settings → Answers), every question asks it: to rewrite a follow-up, for
other wordings of the question, for the answer itself. When it does not answer (its server is down, the key is
wrong, it timed out, it does not know the model, the stream broke off), the question is answered again offline,
from the notes (the extractive answerer, the offline search), with one line saying so and where to fix it.

Where it failed decides what the player sees. Before the first piece of the answer (the usual case: a server that
is down refuses at once), ``Pipeline.ask`` waits for that first piece while the page still says it is searching,
so the offline answer streams as if nothing happened, under its notice. Mid-stream, the pieces already shown are
followed by the offline answer, and ``FallbackStream.restarted`` tells the page to show the finished answer in
their place. A model that just failed is not asked again for ``answer.recheck_seconds``: a question waits for a
time-out once, not once a question.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from rag.config import AnswerConfig
from rag.errors import ChroniclerError, ContextTooLongError
from rag.models import Answer


class Stream(Protocol, Iterable[str]):
    """What ``Pipeline.ask`` returns (``rag.answering.AnswerStream``, or a ``FallbackStream``)."""

    notices: list[str]

    @property
    def rewritten(self) -> bool:
        """The finished answer differs inside what streamed (``AnswerStream.rewritten``)."""
        return bool(getattr(self._current, "rewritten", False))

    @property
    def answer(self) -> Answer: ...


WHERE_TO_FIX = "Fix it in Settings → Answers (answer.base_url, answer.model, the key)."
# A player at a shared table cannot open Settings, and the model's address and keys are the game master's business
FOR_PLAYERS = "Your game master can check its settings."

_down: dict[tuple, tuple[float, str]] = {}  # the model's settings → (when it last failed, what it said)
_lock = threading.Lock()


def notice(reason: str, searching: bool = False, may_fix: bool = True) -> str:
    """The one line a player reads above an offline answer (or, ``searching``, an offline search). What the model
    said and where to fix it only for whoever ``may_fix`` it (``rag.access``: not a player at a shared table)."""
    done = (
        "so your question was searched without its help"
        if searching
        else "so this is the offline answer, quoted from your notes"
    )
    if not may_fix:
        return f"The language model did not answer, {done}. {FOR_PLAYERS}"
    return f"The language model did not answer ({reason.rstrip('.')}), {done}. {WHERE_TO_FIX}"


def _model(answer: AnswerConfig) -> tuple:
    """The settings a failure is remembered for: change any of them (Settings → Answers) and it is asked again."""
    return (answer.backend, answer.base_url or "", answer.model, answer.api_key or "", answer.timeout)


def recently_down(answer: AnswerConfig) -> str | None:
    """What the model said when it failed within the last ``answer.recheck_seconds``, or None: ask it."""
    with _lock:
        failed = _down.get(_model(answer))
    if failed is None or time.monotonic() - failed[0] > answer.recheck_seconds:
        return None
    return failed[1]


def remember(answer: AnswerConfig, reason: str | None) -> None:
    """The model failed with ``reason`` (None: it answered, forget any failure)."""
    with _lock:
        if reason is None:
            _down.pop(_model(answer), None)
        else:
            _down[_model(answer)] = (time.monotonic(), reason)


class FallbackStream:
    """A question's answer stream (like ``rag.answering.AnswerStream``: iterate for the pieces, then read
    ``answer``; ``notices``) that turns to the offline answer when the language model fails. ``fell_back`` is the
    one-line notice (None while the model answers); ``restarted`` is True when pieces of the model's answer were
    already yielded before it failed (the page then shows ``answer.text`` in their place). ``primary`` None: the
    model already failed (``reason``), so the answer is the offline one from the start."""

    def __init__(
        self,
        answer: AnswerConfig,
        primary: Stream | None,
        offline: Callable[[], Stream],
        reason: str = "",
        refit: Callable[[int], Stream | None] | None = None,
        may_fix: bool = True,
    ):
        self.config, self._primary, self._offline, self._refit = answer, primary, offline, refit
        self._may_fix = may_fix  # the notice names the model's settings (``notice``)
        self._current: Stream | None = None
        self._model_pieces: Iterator[str] = iter(())
        self._buffered: list[str] = []
        self._answer: Answer | None = None
        self.notices: list[str] = list(primary.notices) if primary is not None else []
        self.fell_back: str | None = None
        self.restarted = False
        if primary is None:
            self._fall_back(reason or "it failed")

    def _fall_back(self, reason: str, down: bool = True) -> None:
        if down:  # a request too long for the model says nothing of the next question's
            remember(self.config, reason)
        self.fell_back = notice(reason, may_fix=self._may_fix)
        self._current = self._offline()
        self.notices = [self.fell_back, *self._current.notices]

    def prime(self) -> FallbackStream:
        """Wait for the model's first piece now: a model that is down fails here, before anything streams."""
        if self._current is None and self._primary is not None:
            self._model_pieces = iter(self._primary)
            try:
                first = next(self._model_pieces, None)
            except ContextTooLongError as err:  # asked again once, at the context the server names
                refit, self._refit = self._refit, None
                fitted = refit(err.limit) if refit and err.limit and err.limit < self.config.context_tokens else None
                if fitted is not None:
                    self._primary, self.notices = fitted, list(fitted.notices)
                    return self.prime()
                self._fall_back(err.one_line(), down=False)
                return self
            except ChroniclerError as err:  # an LLM answerer's only failures are the model's
                self._fall_back(err.one_line())
                return self
            self._buffered = [] if first is None else [first]
            self._current = self._primary
            remember(self.config, None)
        return self

    def __iter__(self) -> Iterator[str]:
        if self._answer is not None:
            return
        self.prime()
        if self._current is self._primary:
            yield from self._buffered
            try:
                yield from self._model_pieces
            except ChroniclerError as err:  # the stream broke off midway
                self.restarted = True
                self._fall_back(err.one_line())
                yield from self._current
        else:
            yield from self._current
        answer = self._current.answer
        if self.fell_back:
            answer.trace["notices"] = [self.fell_back, *answer.trace.get("notices", [])]
            answer.trace["fallback"] = self.fell_back
        self._answer = answer

    @property
    def rewritten(self) -> bool:
        """The finished answer differs inside what streamed (``AnswerStream.rewritten``)."""
        return bool(getattr(self._current, "rewritten", False))

    @property
    def answer(self) -> Answer:
        if self._answer is None:
            for _ in self:
                pass
        return self._answer
