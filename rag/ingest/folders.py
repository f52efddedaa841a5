"""Which folders on the server may be read as a campaign's notes ("Folder on the server" on the Ingest page).

The app reads whatever folder is typed there, so it is bounded: only inside the folders notes may come from
(``notes.sync_roots``, the home folder by default, and the configured ``notes_dir``), never Chronicler's own
data folder (or one that holds it), and never a campaign's stored uploads. The last one matters most: the
uploads of a GM's campaign hold its prep folder, and read again as a campaign of their own they would be read
from below the folder that marks them GM-only. Symbolic links are followed before any check, so a link cannot
lead around one.
"""

from __future__ import annotations

from pathlib import Path

from rag.config import Config, local_config_name
from rag.errors import FolderNotAllowedError, NotesError
from rag.ingest.uploads import uploads_root


def allowed_folder(config: Config, folder: str | Path) -> Path:
    """``folder`` resolved, when it may be read as a campaign's notes; else ``FolderNotAllowedError`` (or
    ``NotesError`` when there is no such folder) saying why in a sentence."""
    typed = str(folder).strip()
    if not typed:
        raise NotesError("Type the path of a folder on the server.")
    path = config.resolve(typed).resolve()
    if not path.is_dir():
        raise NotesError(f"There is no folder at {path} on the server.")
    data = config.data_path.resolve()
    if path.is_relative_to(uploads_root(config).resolve()):
        raise FolderNotAllowedError(
            f"{path} holds notes uploaded to a campaign: they are read into their own campaign when they are "
            "uploaded, and never as a folder of their own.",
            hint="To change them, upload them again on the Ingest page.",
        )
    if path == data or data.is_relative_to(path):
        raise FolderNotAllowedError(
            f"{path} holds Chronicler's own data folder ({data}), with every campaign's uploads.",
            hint="Choose the folder that holds your notes.",
        )
    roots = sync_roots(config)
    inside = [r for r in roots if path.is_relative_to(r)]
    if path.is_relative_to(data):  # only a notes folder configured inside it, like the demo's
        inside = [r for r in inside if r.is_relative_to(data) and r != data]
    if not inside:
        where = ", ".join(str(r) for r in roots) or "none"
        raise FolderNotAllowedError(
            f"{path} is outside the folders notes may be read from ({where}).",
            hint=f"To allow it, add it (or a folder above it) to notes.sync_roots in {local_config_name()}.",
        )
    return path


def sync_roots(config: Config) -> list[Path]:
    """The folders notes may be read from: ``notes.sync_roots`` and the configured ``notes_dir``."""
    out: list[Path] = []
    for raw in [*config.notes.sync_roots, config.notes_dir]:
        root = config.resolve(raw).resolve()
        if root not in out:
            out.append(root)
    return out
