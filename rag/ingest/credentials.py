"""Keys, tokens and passwords of real services, hidden from a note before anything reads it.

Why: players keep their table's housekeeping in the vault they share. A real one held a note on syncing the vault
with git, its step 11 a GitHub access token in plain text; read as it was, the token was a passage any player could
search, quote in an answer, or see on People & places. Nothing a GM shares with the table should hand out the keys
to someone's accounts, and no player asks the campaign's notes for one.

What counts is what detect-secrets (Yelp's maintained scanner, Apache-2.0) knows by its format alone: GitHub,
GitLab, OpenAI, AWS, Slack, Stripe, npm and PyPI tokens, private keys, JSON web tokens, a password inside a URL…
Its guesses by a string's entropy and by keywords ("password = …") are left out: a story's names and its in-game
passwords ("The password is 'swordfish'") are none of those, and the entropy checks flag words such as "Vorugal".
A public IP address is no secret either. A key becomes ``HIDDEN`` where it stood (a private key's every line), so
every other word keeps its place and its line, and a citation its line number. A key is one run of characters:
each run long enough to be one is read, not the whole line, so a detector's pattern that reads a keyword before a
key ("cloudant_password = …") finds it only where the two are written without a space.
"""

from __future__ import annotations

from functools import lru_cache

HIDDEN = "[credential hidden]"
# detect-secrets' detectors that guess rather than recognise a format, or that find no secret (their class names)
_NOT_BY_FORMAT = frozenset({"Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector", "IPPublicDetector"})
_SHORTEST = 16  # no format detect-secrets recognises is shorter: a line without such a run of characters has none
_KEY_LINE = "PRIVATE KEY"  # "-----BEGIN RSA PRIVATE KEY-----": its words are short
_AROUND = " \t=:\"'"  # what a detector's pattern takes in around a key (Artifactory's: a space, "=", a quote)


@lru_cache(maxsize=1)
def _detectors() -> tuple:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    classes = get_mapping_from_secret_type_to_class().values()
    return tuple(cls() for cls in classes if issubclass(cls, RegexBasedDetector) and cls.__name__ not in _NOT_BY_FORMAT)


def _may_hold(text: str) -> bool:
    """Whether ``text`` has a run of characters as long as a key, or a private key's first line: each such run is
    read for a key, not the whole line (CRD3's notes: 0.4 s → 0.05 s)."""
    return _KEY_LINE in text or any(len(word) >= _SHORTEST for word in text.split())


def hide_credentials(text: str) -> tuple[str, list[str]]:
    """``text`` with every credential detect-secrets recognises by its format replaced by ``HIDDEN`` (a private
    key from its first line to its last), and what each one was ("GitHub Token"), in the order found. A match
    shorter than any real key ("APEXdragons" is an Artifactory key's shape) is a word, left alone."""
    if not _may_hold(text):
        return text, []
    found: list[str] = []
    lines = text.split("\n")
    in_key = False
    for i, line in enumerate(lines):
        if in_key:  # a private key's body, to its END line
            in_key, lines[i] = "-----END" not in line, HIDDEN
            continue
        pieces = [word for word in line.split() if len(word) >= _SHORTEST]  # a key is one run of characters
        if _KEY_LINE in line:
            pieces.append(line)
        for piece, detector in ((piece, detector) for piece in pieces for detector in _detectors()):
            for pattern in detector.denylist:
                for match in pattern.finditer(piece):
                    secret = match.group(0).strip(_AROUND)
                    if len(secret) >= _SHORTEST and secret in line:
                        line = line.replace(secret, HIDDEN)
                        found.append(detector.secret_type)
                        in_key = in_key or type(detector).__name__ == "PrivateKeyDetector"
        lines[i] = HIDDEN if in_key else line
        in_key = in_key and "-----END" not in line
    return "\n".join(lines), found


def credentials_note(hidden: list[str]) -> str:
    """What the reading report says of the keys hidden from a note (``hide_credentials``' kinds), in words a
    player reads."""
    kinds = ", ".join(dict.fromkeys(hidden))
    what = f"a password or key ({kinds})" if len(hidden) == 1 else f"{len(hidden)} passwords or keys ({kinds})"
    return f"{what} hidden: keys to real accounts are never shown"
