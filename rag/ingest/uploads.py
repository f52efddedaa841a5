"""Saving uploaded notes (single files or a zipped Obsidian vault) under ``<data_dir>/uploads/<campaign>/``.

Notes are any of ``notes.extensions``: Markdown and text, but also PDF, Word and .eml files, so every file is
handled as bytes and written as received; reading them is ``rag.ingest.notes``' job.

Everything a browser sends is untrusted: names are checked before anything is written (no ``..``, no
absolute or drive paths, no symlinks), and a zip is refused whole when it has too many files or too
many bytes once unpacked. Sizes declared in a zip's directory can lie, so bytes are also counted while
extracting into a staging folder; the campaign's folder is touched only after every check passed.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import stat
import tempfile
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from rag.config import Config, NotesConfig, SecretsConfig
from rag.errors import ChroniclerError, disk_full, is_disk_full
from rag.files import write_text
from rag.ingest.markdown import ATTACHMENTS
from rag.ingest.notes import size_limit
from rag.ingest.secrets import gm_folder

MAX_FILES = 5000  # an Obsidian vault of a long campaign has a few hundred notes
MAX_TOTAL_MB = 200  # unpacked; notes and a few PDF handouts, so more than this is almost surely not a vault
IGNORED_DIRS = {"__MACOSX"}  # plus every hidden folder: .obsidian, .trash, .git
SOURCES_FILE = "campaign_sources.json"
LATEST_FILE = "latest_campaign.json"  # the campaign last started or read, which a new tab opens
STAGING, STALE_STAGING = ".upload-", 3600  # a staging folder this many seconds old was cut off (the app killed)


class UploadError(ChroniclerError):
    """An upload is refused as a whole; nothing was saved."""


@dataclass
class SaveResult:
    saved: list[str] = field(default_factory=list)  # relative paths written
    ignored: list[str] = field(default_factory=list)  # not notes (images, .obsidian config, ...)
    aside: list[str] = field(default_factory=list)  # of them, what a vault keeps beside its notes (``beside_notes``)

    @property
    def unexpected(self) -> list[str]:
        """The files left unread that a player may have meant as notes ("roster.csv"): not a vault's pictures or
        settings, which the uploader's help says are left out."""
        aside = set(self.aside)
        return [name for name in self.ignored if name not in aside]

    too_large: list[tuple[str, str]] = field(default_factory=list)  # (note, why) larger than what is read: not saved


def uploads_dir(config: Config, campaign: str) -> Path:
    return uploads_root(config) / campaign


def uploads_root(config: Config) -> Path:
    """Where every campaign's uploads are kept: never a folder to sync (``rag.ingest.folders``)."""
    return config.data_path / "uploads"


def within_uploads(config: Config, folder: Path) -> bool:
    """Whether ``folder`` is a campaign's uploads folder or a folder below one."""
    try:
        return folder.expanduser().resolve().is_relative_to(uploads_root(config).resolve())
    except OSError:
        return False


def safe_relpath(name: str) -> PurePosixPath:
    """A relative path that stays inside the destination, or ``UploadError`` naming the bad entry."""
    clean = name.replace("\\", "/")
    if "\x00" in clean:
        raise UploadError(f"Refused '{name}': the name contains a NUL character. Nothing was saved.")
    if clean.startswith("/") or re.match(r"^[A-Za-z]:", clean):
        raise UploadError(f"Refused '{name}': absolute paths are not allowed. Nothing was saved.")
    parts = [p for p in clean.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UploadError(f"Refused '{name}': paths may not climb out of the folder with '..'. Nothing was saved.")
    if not parts:
        raise UploadError(f"Refused '{name}': it has no file name. Nothing was saved.")
    return PurePosixPath(*parts)


def _in_ignored_dir(path: PurePosixPath) -> bool:
    return any(p.startswith(".") or p in IGNORED_DIRS for p in path.parts)


def _is_note(path: PurePosixPath, extensions: Iterable[str]) -> bool:
    return not _in_ignored_dir(path) and path.suffix.lower() in {e.lower() for e in extensions}


def beside_notes(path: PurePosixPath) -> bool:
    """What a vault keeps beside its notes and an upload leaves out as a matter of course: its hidden and app folders
    (.obsidian, .trash, __MACOSX) and Obsidian's attachments (images, sound, video, canvases)."""
    return _in_ignored_dir(path) or path.suffix.lower().lstrip(".") in ATTACHMENTS


def _strip_common_root(paths: list[PurePosixPath], secrets: SecretsConfig | None = None) -> list[PurePosixPath]:
    """``MyVault.zip`` usually holds ``MyVault/...``: drop that one shared folder so the vault's own
    folders (People/, Places/) are the top level, as they are in Obsidian. A shared folder named like a GM
    folder ("Session Prep/", by ``secrets``) is kept: it is what marks its notes GM-only."""
    if paths and all(len(p.parts) > 1 for p in paths) and len({p.parts[0] for p in paths}) == 1:
        if secrets is not None and gm_folder((paths[0].parts[0],), secrets):
            return paths
        return [PurePosixPath(*p.parts[1:]) for p in paths]
    return paths


def _zip_members(name: str, data: bytes) -> list[tuple[zipfile.ZipInfo, PurePosixPath]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [i for i in archive.infolist() if not i.is_dir()]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError):
        raise UploadError(f"'{name}' is not a readable zip file. Nothing was saved.") from None
    members = []
    for info in infos:
        path = safe_relpath(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise UploadError(f"Refused '{name}': it contains a symbolic link ({info.filename}). Nothing was saved.")
        members.append((info, path))
    return members


def _too_large(name: str, size: int, notes: NotesConfig | None) -> tuple[str, str] | None:
    """(the note, why) when it is larger than a note of its kind is read (``notes.max_file_mb``…): saving it would
    only have it skipped at every later read."""
    if notes is None:
        return None
    mb, key = size_limit(notes, PurePosixPath(name).suffix)
    if size <= mb * 1024 * 1024:
        return None
    said = f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"
    return name, f"too large to read: {said}, and notes like it are read up to {mb:g} MB ({key})"


def plan_upload(
    uploads: Sequence[tuple[str, bytes]],
    extensions: Iterable[str],
    max_files: int = MAX_FILES,
    max_total_mb: float = MAX_TOTAL_MB,
    secrets: SecretsConfig | None = None,
    notes: NotesConfig | None = None,
) -> tuple[list[tuple[PurePosixPath, object]], list[str], list[str], list[tuple[str, str]]]:
    """Check every name and limit before anything is written.

    Returns (target path, bytes or (zip bytes, ZipInfo)) pairs, the names ignored as not notes, those of them a vault
    keeps beside its notes (``beside_notes``), and the notes left out as larger than ``notes`` reads (with why). ``secrets``: the GM rules, so a zip holding only a GM folder
    keeps it (default rules when None).
    """
    secrets = secrets or SecretsConfig()
    extensions = list(extensions)
    planned: list[tuple[PurePosixPath, object]] = []
    ignored: list[str] = []
    aside: list[str] = []
    too_large: list[tuple[str, str]] = []
    declared = 0
    for name, data in uploads:
        path = safe_relpath(name)
        if path.suffix.lower() == ".zip":
            members = _zip_members(name, data)
            notes_in = [(i, p) for i, p in members if _is_note(p, extensions)]
            ignored += [f"{name}: {p}" for i, p in members if not _is_note(p, extensions)]
            aside += [f"{name}: {p}" for i, p in members if not _is_note(p, extensions) and beside_notes(p)]
            large = {id(i): big for i, p in notes_in if (big := _too_large(f"{name}: {p}", i.file_size, notes))}
            too_large += list(large.values())
            notes_in = [(i, p) for i, p in notes_in if id(i) not in large]
            targets = _strip_common_root([p for _, p in notes_in], secrets)
            planned += [(t, (data, i)) for t, (i, _) in zip(targets, notes_in, strict=True)]
            declared += sum(i.file_size for i, _ in notes_in)
        elif _is_note(path, extensions):
            if big := _too_large(name, len(data), notes):
                too_large.append(big)
                continue
            planned.append((path, data))
            declared += len(data)
        else:
            ignored.append(name)
            if beside_notes(path):
                aside.append(name)
        if len(planned) > max_files:
            raise UploadError(
                f"Refused: more than {max_files} notes in one upload (limits.upload_files). Nothing was saved.",
                hint="Split the vault, or sync it as a folder on the server.",
            )
    if declared > max_total_mb * 1024 * 1024:
        raise UploadError(
            f"Refused: the notes would take more than {max_total_mb:g} MB unpacked (limits.upload_mb). Nothing was saved.",
            hint="Check the zip holds your vault, and leave out images and other large files.",
        )
    return planned, ignored, aside, too_large


def save_uploads(
    uploads: Sequence[tuple[str, bytes]],
    dest: Path,
    extensions: Iterable[str],
    replace: bool = False,
    max_files: int = MAX_FILES,
    max_total_mb: float = MAX_TOTAL_MB,
    secrets: SecretsConfig | None = None,
    notes: NotesConfig | None = None,
) -> SaveResult:
    """Write the notes under ``dest`` keeping folders; ``replace`` first empties it (after all checks). A note larger
    than ``notes`` reads is not written (``SaveResult.too_large``)."""
    extensions = list(extensions)
    planned, ignored, aside, too_large = plan_upload(uploads, extensions, max_files, max_total_mb, secrets, notes)
    if not planned:
        if too_large:
            raise UploadError(f"Nothing was saved: {too_large[0][0]} is {too_large[0][1]}.")
        kinds = ", ".join(sorted({e.lower() if e.startswith(".") else "." + e.lower() for e in extensions}))
        raise UploadError(f"None of the uploaded files are notes ({kinds}). Nothing was saved.")
    limit = max_total_mb * 1024 * 1024
    _drop_stale_staging(dest.parent)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=STAGING, dir=dest.parent))
    except OSError as err:
        raise _not_saved(err, dest) from None
    try:
        written = 0
        archives: dict[int, zipfile.ZipFile] = {}
        for path, source in planned:
            target = staging.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(source, bytes):
                target.write_bytes(source)
                written += len(source)
                continue
            data, info = source
            archive = archives.setdefault(id(data), zipfile.ZipFile(io.BytesIO(data)))
            with archive.open(info) as src, target.open("wb") as out:
                while block := src.read(1 << 16):
                    written += len(block)
                    if written > limit:
                        raise UploadError(
                            f"Refused: the zip unpacks to more than {max_total_mb:g} MB (limits.upload_mb). Nothing was saved."
                        )
                    out.write(block)
        if replace and dest.exists():
            shutil.rmtree(dest)
        for path, _ in planned:
            target = dest.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            staging.joinpath(*path.parts).replace(target)
    except (zipfile.BadZipFile, OSError) as err:
        raise _not_saved(err, dest) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return SaveResult(saved=sorted(str(p) for p, _ in planned), ignored=ignored, aside=aside, too_large=too_large)


def remove_upload(dest: Path, source: str) -> None:
    """Delete one uploaded note (``source``, relative to the campaign's uploads ``dest``): a file that cannot be
    read stays out of every later read. Only a file inside ``dest``, never a link or a folder."""
    path = dest.joinpath(*safe_relpath(source).parts)
    if path.is_symlink() or not path.is_file() or not path.resolve().is_relative_to(dest.resolve()):
        raise UploadError(f"'{source}' is not one of this campaign's uploaded notes.")
    try:
        path.unlink()
    except OSError as err:
        raise UploadError(f"Could not remove '{source}': {err.strerror or err}.") from None


def _drop_stale_staging(folder: Path) -> None:
    """An upload killed while saving leaves its staging folder (never a half-saved note): a later one removes it."""
    for old in folder.glob(STAGING + "*"):
        with contextlib.suppress(OSError):  # another session's upload may clear it first
            if time.time() - old.stat().st_mtime > STALE_STAGING:
                shutil.rmtree(old)


def _not_saved(err: Exception, dest: Path) -> ChroniclerError:
    if is_disk_full(err):
        return disk_full(f"the upload into {dest}", "Free some space and upload again; nothing was indexed.")
    return UploadError(f"Could not save the upload: {err}. Nothing was indexed.")


# -- where a campaign's notes live, so Settings can offer "re-index now" --------------------------------


def _sources_path(config: Config) -> Path:
    return config.data_path / SOURCES_FILE


def remember_source(config: Config, campaign: str, folder: Path) -> None:
    path = _sources_path(config)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    data[campaign] = str(folder)
    write_text(path, json.dumps(data, indent=2, sort_keys=True))  # whole or not at all: a full disk keeps the old
    write_text(config.data_path / LATEST_FILE, json.dumps({"campaign": campaign}))


def forget_source(config: Config, campaign: str) -> None:
    path = _sources_path(config)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if data.pop(campaign, None) is not None:
        write_text(path, json.dumps(data, indent=2, sort_keys=True))
    if latest_campaign(config) == campaign:
        (config.data_path / LATEST_FILE).unlink(missing_ok=True)


def latest_campaign(config: Config) -> str | None:
    """The campaign last started or read (``remember_source``), as typed; None when none was or it was deleted.
    A page opened without a campaign in its address opens this one: the group's campaign, not the demo, once
    someone has read their notes (a walk's player opened a new tab and found the demo again)."""
    try:
        name = json.loads((config.data_path / LATEST_FILE).read_text(encoding="utf-8")).get("campaign")
    except (OSError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and name else None


def known_campaigns(config: Config) -> list[str]:
    """Campaign names as the players typed them ("Curse of Strahd"); the store only knows slugs."""
    try:
        return sorted(json.loads(_sources_path(config).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return []


def replaced_source(config: Config, campaign: str, folder: Path) -> Path | None:
    """The place whose notes reading ``folder`` into the campaign would remove, or None. A campaign mirrors one
    place (a folder, or its uploads): reading another one removes every passage of the notes read before, so the
    Ingest page and ``python -m rag index`` ask first (an upload into the demo campaign used to delete its 265
    passages unannounced). An empty uploads folder holds nothing to lose."""
    known = notes_source(config, campaign)
    if known is None:
        return None
    uploads = uploads_dir(config, campaign).resolve()
    old = known.resolve()
    if old == folder.resolve() or (old == uploads and not any(uploads.glob("*"))):
        return None
    return known


def notes_source(config: Config, campaign: str) -> Path | None:
    """The folder this campaign was last indexed from: remembered, else its uploads, else notes_dir."""
    try:
        remembered = json.loads(_sources_path(config).read_text(encoding="utf-8")).get(campaign)
    except (OSError, ValueError):
        remembered = None
    candidates = [Path(remembered)] if remembered else []
    candidates.append(uploads_dir(config, campaign))
    if campaign == config.campaign:
        candidates.append(config.resolve(config.notes_dir))
    return next((p for p in candidates if p.is_dir()), None)
