"""Slowing down guesses of the GM passphrase: wrong tries are counted for each browser session and for the
whole server, and after a few of them the next try waits, twice as long after each further wrong one.

A try made while it must wait is refused without being compared (and is not counted), so a script gains
nothing by sending more: whatever it does, one passphrase is checked per wait. Counting over the whole
server matters as much as per session, since a script can open as many sessions as it likes. Pure Python
(no Streamlit), so the schedule is tested with a clock of the test's own.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rag.config import GMViewConfig


def wait_after(wrong: int, free: int, settings: GMViewConfig) -> float:
    """Seconds the next try waits after ``wrong`` wrong tries in a row: none for the first ``free``, then
    ``first_wait_seconds`` doubling with each one more, at most ``max_wait_seconds``."""
    if wrong < free:
        return 0.0
    return min(settings.max_wait_seconds, settings.first_wait_seconds * 2 ** min(wrong - free, 60))


@dataclass
class Tries:
    """Wrong tries in a row (of one session, or of the server) and when the last one was made."""

    clock: Callable[[], float] = time.monotonic
    wrong: int = 0
    last: float = 0.0
    sessions: set[str] = field(default_factory=set)  # the sessions that made them (for the log line)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _forget_old(self, now: float, settings: GMViewConfig) -> None:
        if self.wrong and now - self.last > settings.forget_minutes * 60:
            self.wrong, self.sessions = 0, set()

    def wait(self, free: int, settings: GMViewConfig) -> float:
        """Seconds before the next try may be compared (0: now)."""
        with self._lock:
            now = self.clock()
            self._forget_old(now, settings)
            return max(0.0, self.last + wait_after(self.wrong, free, settings) - now) if self.wrong else 0.0

    def failed(self, settings: GMViewConfig, session: str = "") -> int:
        """Count a wrong try; the count in a row, this one included."""
        with self._lock:
            now = self.clock()
            self._forget_old(now, settings)
            self.wrong, self.last = self.wrong + 1, now
            if session:
                self.sessions.add(session)
            return self.wrong

    def succeeded(self) -> None:
        with self._lock:
            self.wrong, self.sessions = 0, set()
