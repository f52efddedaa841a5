"""The files a campaign leaves on the server besides its passages in the store, and removing them with it.

A campaign is more than its store collection: the notes uploaded to Chronicler (``data/uploads/<campaign>``),
the alias tables of both views (``data/aliases/<collection>.json`` and ``.gm.json``, built at index time), its
blank pages (``data/blank_pages/<collection>.json``) and where its notes were read from
(``campaign_sources.json``). Deleting a campaign removes every one of them; the notes' own folder on the server is
never touched. Adding notes and deleting a campaign are the GM's in a
shared app (``rag.access``, by the config's ``role``): refused here, whatever a page shows.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from rag.access import require
from rag.config import Config
from rag.errors import ChroniclerError
from rag.ingest.folders import allowed_folder, sync_roots
from rag.ingest.notes import Skipped
from rag.ingest.parse import session_from_name
from rag.ingest.uploads import (
    SaveResult,
    forget_source,
    known_campaigns,
    latest_campaign,
    notes_source,
    remember_source,
    remove_upload,
    replaced_source,
    safe_relpath,
    save_uploads,
    uploads_dir,
    within_uploads,
)
from rag.models import VISIBILITIES
from rag.models.dates import is_day
from rag.stores import Store


def alias_path(config: Config, campaign: str | None, view: str) -> Path:
    """Where a campaign's alias table for ``view`` is kept (``rag.pipeline.Pipeline.aliases``)."""
    name = config.collection(campaign) + ("" if view == "player" else f".{view}")
    return config.data_path / "aliases" / f"{name}.json"


MARKDOWN = frozenset({".md", ".markdown"})


def blank_pages_path(config: Config, campaign: str | None) -> Path:
    return config.data_path / "blank_pages" / f"{config.collection(campaign)}.json"


def save_blank_pages(config: Config, campaign: str | None, skipped: Iterable[Skipped]) -> None:
    """Keep the campaign's blank pages: Markdown notes with nothing written in them yet, which are no passage but
    are a person, place or thing the players made a page for (Obsidian makes one when a link is clicked; a real
    vault had its whole party as empty pages), with who may see each. A blank session note, or one named by a day
    or a number, is no page."""
    pages = [
        {"source": s.source, "visibility": s.visibility}
        for s in skipped
        if s.blank
        and PurePosixPath(s.source).suffix.lower() in MARKDOWN
        and session_from_name(s.source, config.notes)[0] is None
        and not is_day(stem := PurePosixPath(s.source).stem)  # a daily note, or a session's named by its day
        and not stem.strip().isdigit()
    ]
    path = blank_pages_path(config, campaign)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(pages, indent=1), encoding="utf-8")


def blank_pages(config: Config, campaign: str | None, view: str) -> list[str]:
    """The campaign's blank pages ``view`` may see (``save_blank_pages``); none before the campaign is read."""
    try:
        pages = json.loads(blank_pages_path(config, campaign).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [p["source"] for p in pages if view == "gm" or p.get("visibility") == "player"]


def save_campaign_uploads(
    config: Config, campaign: str, uploads: Sequence[tuple[str, bytes]], replace: bool = False
) -> SaveResult:
    """Save uploaded notes (files, a zipped vault) into the campaign's uploads folder within ``limits.*``, with
    the GM rules (a zip holding only a GM folder keeps it); indexing ``uploads_dir`` reads them."""
    require(config.role, "upload")
    limits = config.limits
    dest = uploads_dir(config, campaign)
    return save_uploads(
        uploads,
        dest,
        config.notes.extensions,
        replace,
        limits.upload_files,
        limits.upload_mb,
        config.secrets,
        config.notes,
    )


def drop_campaign(config: Config, store: Store, campaign: str, uploads: bool = False) -> None:
    """The campaign's passages and every file it left: both alias tables, where its notes were read from, and
    (``uploads``) the copies uploaded to Chronicler."""
    require(config.role, "delete")
    store.drop(config.collection(campaign))
    for view in VISIBILITIES:
        alias_path(config, campaign, view).unlink(missing_ok=True)
    blank_pages_path(config, campaign).unlink(missing_ok=True)
    if uploads:
        shutil.rmtree(uploads_dir(config, campaign), ignore_errors=True)
    forget_source(config, campaign)


class CampaignFiles:
    """A campaign's files as the pages see them (``Pipeline.files``): where uploads go, which folder a campaign was
    read from, which folders may be read at all. Every action checks the config's ``role`` where it runs."""

    def __init__(self, config: Config):
        self.config = config

    def save_uploads(self, campaign: str, uploads: Sequence[tuple[str, bytes]], replace: bool = False) -> SaveResult:
        return save_campaign_uploads(self.config, campaign, uploads, replace)

    def remove_upload(self, campaign: str, source: str) -> None:
        """Delete one note uploaded to the campaign (one that cannot be read, say), refused to a player."""
        require(self.config.role, "upload")
        remove_upload(uploads_dir(self.config, campaign), source)

    def uploaded(self, campaign: str, source: str) -> bool:
        """``source`` (as an index report names it) is a note uploaded to the campaign, so it can be removed."""
        folder = uploads_dir(self.config, campaign)
        try:
            path = folder.joinpath(*safe_relpath(source).parts)
        except ChroniclerError:
            return False
        return path.is_file() and not path.is_symlink()

    def uploads_dir(self, campaign: str) -> Path:
        """The folder a campaign's uploaded notes are kept in (indexing it reads them)."""
        return uploads_dir(self.config, campaign)

    def within_uploads(self, folder: Path) -> bool:
        """The folder is (inside) a campaign's uploads: never offered to be read as a notes folder."""
        return within_uploads(self.config, folder)

    def source(self, campaign: str) -> Path | None:
        """The folder the campaign's notes were last read from, if one was."""
        return notes_source(self.config, campaign)

    def replaced_source(self, campaign: str, folder: Path) -> Path | None:
        """The place whose notes reading ``folder`` into the campaign would remove (``replaced_source``)."""
        return replaced_source(self.config, campaign, folder)

    def remember_source(self, campaign: str, folder: Path) -> None:
        remember_source(self.config, campaign, folder)

    def start(self, campaign: str) -> None:
        """Keep a campaign a player started before any notes are read into it, so that a reload still offers it:
        its uploads folder is its place until notes are read (an empty one holds nothing another would replace)."""
        require(self.config.role, "upload")
        if notes_source(self.config, campaign) is None:
            remember_source(self.config, campaign, uploads_dir(self.config, campaign))

    def known_campaigns(self) -> list[str]:
        """Campaign names as typed (in the app or with ``--campaign``), indexed or not."""
        return known_campaigns(self.config)

    def latest(self) -> str | None:
        """The campaign last started or read, which a page opened without one in its address shows."""
        return latest_campaign(self.config)

    def readable_roots(self) -> list[Path]:
        """The folders notes may be read from (``notes.sync_roots``, and the notes folder)."""
        return sync_roots(self.config)

    def allowed_folder(self, folder: str | Path) -> Path:
        """The folder, resolved, when notes may be read from it; else ``NotesError`` naming the setting."""
        return allowed_folder(self.config, folder)
