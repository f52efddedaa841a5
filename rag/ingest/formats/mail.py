"""E-mailed recaps: ``.eml`` files and plain-text mail exports, parsed by the standard library's ``email``.

The headers become metadata a search can filter on (sender, subject) and show (the date the recap was
sent); the subject also names the note and may carry the session number ("Re: Session 12 recap"). The
body is the text part (or the HTML part, converted like a web page) without what was not written for this
mail: quoted replies (``>`` lines and the "On …, Bram wrote:" line above them), the signature after the
``-- `` separator, an Outlook "Original Message" block and "Sent from my phone" lines. The chunker then
cuts it by paragraph.

Named ``mail`` rather than ``email`` so that ``import email`` still means the standard library.
"""

from __future__ import annotations

import dataclasses
import re
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import parsedate_to_datetime

from rag.config import NotesConfig
from rag.ingest.formats import Unreadable, short_error
from rag.ingest.formats.web import html_to_markdown
from rag.ingest.parse import parse_note
from rag.models import Note

_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|wg|sv|tr)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)
_ORIGINAL = re.compile(r"^\s*(?:-{2,}\s*original message\s*-{2,}|_{20,})\s*$", re.IGNORECASE)
_SENT_FROM = re.compile(r"^\s*(?:sent from my \w+|get outlook for \w+)", re.IGNORECASE)


def read_mail(data: bytes, source: str, config: NotesConfig) -> Note:
    try:
        msg = BytesParser(policy=policy.default).parsebytes(data)
        sender = _addresses(msg, "from")
        subject = " ".join(str(msg.get("subject", "")).split())
    except Exception as err:  # malformed headers raise from deep inside the parser
        raise Unreadable(f"not a readable e-mail: {short_error(err)}") from None
    if not sender and not subject:
        raise Unreadable("not an e-mail: no From or Subject header")
    text, warnings = _body(msg)
    text = strip_replies(text)
    if not text.strip():
        raise Unreadable("no text in the mail besides quotes and the signature")
    note = parse_note(text, source, config, titles=[(subject, "subject")])
    name = sender[0] if sender else ""
    title = _REPLY_PREFIX.sub("", subject).strip() or (f"Mail from {name}" if name else note.title)
    headers = {
        "from": name,
        "to": _addresses(msg, "to"),
        "cc": _addresses(msg, "cc"),
        "subject": subject,
        "date": _date(msg),
    }
    return dataclasses.replace(
        note,
        title=title,
        file_type="email",
        sender=name,
        subject=subject,
        date=headers["date"],
        front_matter={k: v for k, v in headers.items() if v},
        warnings=(*note.warnings, *warnings),
    )


def _addresses(msg: EmailMessage, header: str) -> list[str]:
    """ "Name <address>" per address in a header; the raw value when it is not a valid address list."""
    value = msg.get(header)
    if value is None:
        return []
    addresses = getattr(value, "addresses", None)
    if addresses:
        return [str(a) for a in addresses]
    raw = " ".join(str(value).split())
    return [raw] if raw else []


def _date(msg: EmailMessage) -> str:
    """The day the mail was sent, as an ISO date; Outlook's text exports write ``Sent:`` instead of Date."""
    for header in ("date", "sent"):
        raw = msg.get(header)
        if raw is None:
            continue
        moment = getattr(raw, "datetime", None)
        if moment is None:
            try:
                moment = parsedate_to_datetime(str(raw))
            except (TypeError, ValueError, IndexError):
                moment = None
        if moment is not None:
            return moment.date().isoformat()
    return ""


def _body(msg: EmailMessage) -> tuple[str, list[str]]:
    """The text to index, and warnings (attachments that were not read)."""
    part = msg.get_body(preferencelist=("plain", "html"))
    warnings = []
    attached = [a.get_filename() or a.get_content_type() for a in msg.iter_attachments()]
    if attached:
        warnings.append("attachments not read: " + ", ".join(attached) + " (save them as their own files)")
    if part is None:
        return "", warnings
    try:
        text = part.get_content()
    except (LookupError, ValueError):  # an unknown charset name
        text = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
    if part.get_content_type() == "text/html":
        text = html_to_markdown(text)[0]
    return text, warnings


def strip_replies(text: str) -> str:
    """The mail's own words: quoted lines, their "… wrote:" line, the signature and forwarded
    "Original Message" blocks removed. Works on lines, so it also suits plain-text exports."""
    lines = text.replace("\r\n", "\n").split("\n")
    out: list[str] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if line.rstrip("\r") in ("-- ", "--") or _ORIGINAL.match(line):
            break  # the signature (RFC 3676 "-- ") or the quoted original: nothing after it is new
        if stripped.startswith(">") or _SENT_FROM.match(line):
            continue
        if stripped.endswith("wrote:") and _quote_follows(lines, i + 1):
            if stripped == "wrote:" and out and out[-1].strip().startswith("On "):
                out.pop()  # "On Sat, 2 Mar 2024, Bram <bram@…>" wrapped before "wrote:"
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + ("\n" if out else "")


def _quote_follows(lines: list[str], start: int) -> bool:
    for line in lines[start:]:
        if line.strip():
            return line.lstrip().startswith(">")
    return False
