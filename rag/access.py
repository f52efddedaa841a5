"""Who may act: the game master, the players at a shared table, or the one person whose app it is.

Reading is guarded by the view (``Config.view``: the player view never reads a GM-only passage). Acting is
guarded here: adding notes, reading a folder on the server, deleting a campaign, changing settings, testing a
model and measuring the search change what everyone sees, or send the GM's keys and notes somewhere, so in a
shared app they are the game master's alone. The check runs where the action runs (indexing, dropping a
campaign, saving uploads, measuring, and the pages' handlers call ``require`` with the config's ``role``), not
only where its button is drawn.

- ``OWNER``: the app has no GM passphrase (one person's app), and the command line: everything is open.
- ``GM``: a shared app's session that entered the passphrase.
- ``PLAYER``: every other session of a shared app: it may ask, search and browse, and nothing else.
"""

from __future__ import annotations

from typing import Literal

from rag.errors import GMOnlyError

Role = Literal["owner", "gm", "player"]
OWNER: Role = "owner"
GM: Role = "gm"
PLAYER: Role = "player"

# What each action is, in the words of the message a player gets ("Only the game master can …").
ACTIONS = {
    "upload": "add notes to a campaign",
    "sync": "read a folder on the server into a campaign",
    "index": "read notes into a campaign",
    "delete": "delete a campaign",
    "preview": "look at how the notes were read",
    "settings": "change the settings",
    "test": "test a language model or the storage",
    "measure": "measure how well search finds the answers",
}


def may(role: Role, action: str) -> bool:
    """Whether ``role`` may do ``action`` (one of ``ACTIONS``)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
    return role != PLAYER


def refusal(action: str) -> GMOnlyError:
    return GMOnlyError(f"Only the game master can {ACTIONS[action]} while Chronicler is shared with the table.")


def require(role: Role, action: str) -> None:
    """Raise ``GMOnlyError`` (player words, with what to do) unless ``role`` may do ``action``."""
    if not may(role, action):
        raise refusal(action)
