"""Add notes to a campaign: upload files or a zipped vault, or sync a folder on the server; then see what
happened to every file, preview how a file was cut into passages, or delete the campaign.

All of it changes what the table reads, so in a shared app it is the GM view's alone: the player view gets
one sentence saying so, and each action is refused again where it runs (``Pipeline``, ``rag.access``)."""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from app import gm, routing, state
from app.tables import chunks_frame, count_of, gm_marking, ingest_summary, not_notes_line, report_frame
from rag import access
from rag.config.schema import slug
from rag.errors import ChroniclerError
from rag.pipeline import Pipeline

routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)
notes_files = Pipeline(config).files  # where uploads go and which folders may be read (no store opened)
ss = st.session_state
LEFT_OUT = "_left_out"  # (campaign, [(note, why)]) of the last upload: notes too large to read, not saved
CREATE_ERROR = "_create_error"  # why the campaign name typed could not start a campaign
IGNORED = "_ignored"  # (campaign, SaveResult) of the last upload: what it did not read as notes

st.title(":material/upload_file: Ingest notes")
gm.only_for_the_gm(config, "upload", "Adding notes, reading folders on the server and deleting campaigns")
st.caption(
    "Chronicler reads Markdown (.md) and text (.txt) notes, PDF handouts, e-mailed recaps (.eml), saved web "
    "pages (.html) and Word or Google Docs exports (.docx). Re-adding a file only re-reads what changed."
)

# -- campaign -----------------------------------------------------------------------------------------
left, right = st.columns([3, 2], vertical_alignment="bottom")
left.markdown(f"Adding to campaign **{campaign}** (switch in the sidebar).")


NEW_CAMPAIGN_BOX = "new_campaign_box"  # the pop-up's open state, closed once the campaign is made


def start_campaign() -> None:
    """Button callback: start the typed campaign, kept for a reload (``CampaignFiles.start``), switch to it and
    empty the box, so the next name starts fresh; a bad name stays in the box, with why."""
    try:
        candidate = config.model_copy()
        candidate.campaign = ss.get("new_campaign_name", "")
        files = Pipeline(config).files
        had = {slug(name) for name in [*files.known_campaigns(), *state.campaigns(config)]}
        files.start(candidate.campaign)
    except ValueError:
        ss[CREATE_ERROR] = "A campaign name must not be empty or contain slashes."
    except ChroniclerError as err:
        ss[CREATE_ERROR] = err.one_line()
    else:
        state.select_campaign(candidate.campaign)
        ss["new_campaign_name"] = ""
        ss[NEW_CAMPAIGN_BOX] = False  # closed: it had stayed open over the folder box the player goes to next
        if slug(candidate.campaign) in had:  # the name typed again: nothing is started, nothing lost
            st.toast(f"**{candidate.campaign}** is already a campaign: its notes are kept. Add more below.")
        else:
            st.toast(f"Started **{candidate.campaign}**: add its notes below.", icon=":material/add:")


with right.popover(
    "Start a new campaign", icon=":material/add:", width="stretch", key=NEW_CAMPAIGN_BOX, on_change="rerun"
):
    st.text_input("Campaign name", placeholder="e.g. Curse of Strahd", key="new_campaign_name")
    st.button("Create", key="create_campaign", type="primary", on_click=start_campaign)
    if error := ss.pop(CREATE_ERROR, None):
        st.error(error)


def index_folder(folder: Path | str, typed: bool = False) -> None:
    """Read ``folder`` into the campaign (``typed``: a folder typed on this page, read only where allowed)."""
    try:
        report = state.run_index(config, folder, campaign, typed=typed, stoppable=True)
        notes_files.remember_source(campaign, config.resolve(str(folder)).resolve())
    except ChroniclerError as err:
        st.error(err.one_line())
        ss.pop("last_report", None)  # what an earlier read did, shown under this error, read as if this one did it
        return
    ss["last_report"] = (campaign, report)
    ss["uploader_round"] = ss.get("uploader_round", 0) + 1
    st.rerun()


def remove_skipped(source: str) -> None:
    """Button callback: delete a skipped uploaded note, and drop it from the report on screen."""
    try:
        Pipeline(state.get_config()).files.remove_upload(campaign, source)
    except ChroniclerError as err:
        ss["_flash"] = err.one_line()
        return
    kept = ss.get("last_report")
    if kept and kept[0] == campaign:
        report = kept[1]
        report.per_file = [f for f in report.per_file if f.source != source]
        report.skipped = [s for s in report.skipped if s.source != source]
    ss["_flash"] = f"Removed {source} from the notes uploaded to {campaign}."


def replaced(new_source: Path | None) -> str | None:
    """What reading ``new_source`` (``None``: this campaign's uploads) would drop, in a player's words, or
    ``None`` when nothing would be (``replaced_source``)."""
    uploads = notes_files.uploads_dir(campaign).resolve()
    new = new_source or uploads
    known = notes_files.replaced_source(campaign, new)
    if known is None:
        return None
    passages = state.passage_count(config, campaign)
    if not passages:
        return None
    before = "the notes uploaded to it" if known.resolve() == uploads else f"the folder `{_md(str(known))}`"
    now = "Uploading these files" if new == uploads else "Reading this folder"
    then = "the files you upload" if new == uploads else "this folder's notes"
    return (
        f"**{_md(campaign)}** holds {count_of(passages, 'passage')} read from {before}. {now} replaces them: "
        f"the campaign will hold only {then}. To keep both, start a new campaign (above) for these notes."
    )


def confirmed(why: str | None, key: str) -> bool:
    """Shows ``why`` (from ``replaced``) with a box to tick; whether the action may go ahead."""
    if why is None:
        return True
    st.warning(why, icon=":material/warning:")
    return st.checkbox("Yes, replace them", key=key)


def upload_limits(config) -> str:
    """The sizes an upload may have, as the uploader and the reading agree on them."""
    notes, documents = config.notes.max_file_mb, config.notes.max_document_mb
    return (
        f"Up to {config.limits.upload_mb:g} MB an upload (a zip unpacked); each note up to {notes:g} MB, "
        f"a PDF, Word file or e-mail up to {documents:g} MB: larger ones are not read."
    )


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|~$])", r"\\\1", text)


upload_tab, folder_tab = st.tabs([":material/upload: Upload files", ":material/folder_open: Folder on the server"])
with upload_tab:
    limits = upload_limits(config)
    files = st.file_uploader(
        "Session notes, handouts, mails or a zipped vault",
        type=sorted({e.lower().lstrip(".") for e in config.notes.extensions} | {"zip"}),
        accept_multiple_files=True,
        key=f"uploads_{ss.get('uploader_round', 0)}",
        max_upload_size=max(1, int(config.limits.upload_mb)),
        help="Pick several notes (.md, .txt, .pdf, .eml, .html, .docx), or one .zip of your Obsidian vault: "
        f"its folders are kept, images and the .obsidian settings folder are ignored. {limits}",
    )
    st.caption(limits)
    replace = st.checkbox(
        "Replace the notes uploaded before",
        key="replace_uploads",
        help="Off: these files are added to the ones uploaded earlier. On: only these files "
        "remain, and passages from files you no longer upload are removed.",
    )
    go_ahead = confirmed(replaced(None), "replace_source_upload") if files else True
    if st.button(
        "Save and read the notes",
        type="primary",
        disabled=not files or not go_ahead,
        key="upload_go",
        icon=":material/play_arrow:",
    ):
        try:
            result = notes_files.save_uploads(campaign, [(f.name, f.getvalue()) for f in files], replace)
        except ChroniclerError as err:
            st.error(err.one_line())
        else:
            ss[LEFT_OUT] = (campaign, result.too_large)  # said at the top of what happened
            ss[IGNORED] = (campaign, result)  # said under it: reading the notes reruns this page
            index_folder(notes_files.uploads_dir(campaign))

with folder_tab:
    known = notes_files.source(campaign)  # a folder synced before; never a campaign's uploads
    folder = st.text_input(
        "Folder path on the server",
        value=str(known) if known is not None and not notes_files.within_uploads(known) else "",
        key=f"sync_folder_{campaign}",
        placeholder="/home/me/Obsidian/My campaign",
        help="For a vault that lives on the machine running Chronicler. Only this folder and its subfolders "
        "are read; changed files are re-read, deleted files are removed from the campaign.",
    )
    st.caption("Folders are read from inside " + ", ".join(f"`{r}`" for r in notes_files.readable_roots()) + " only.")
    go_ahead = True
    if folder.strip():
        try:
            typed = notes_files.allowed_folder(folder.strip())
        except ChroniclerError:
            typed = None  # the button says why, where it runs
        go_ahead = typed is None or confirmed(replaced(typed), "replace_source_folder")
    if st.button(
        "Sync this folder",
        type="primary",
        key="sync_go",
        disabled=not folder.strip() or not go_ahead,
        icon=":material/sync:",
    ):
        index_folder(folder.strip(), typed=True)

# -- last run -------------------------------------------------------------------------------------------
last = ss.get("last_report")
if stop := state.stopped(config, campaign):  # newer than any report kept: the run after it was stopped
    last = None
    with st.container(border=True, key="stopped_reading"):
        st.info(stop.line(), icon=":material/pause_circle:")
        if st.button("Read the rest", type="primary", key="read_rest", icon=":material/play_arrow:"):
            index_folder(stop.folder, typed=stop.typed)
if last and last[0] == campaign:
    report = last[1]
    known = notes_files.source(campaign)
    from_uploads = known is None or notes_files.within_uploads(known)
    st.subheader("What happened")
    left_out = ss.get(LEFT_OUT)
    left_out = left_out[1] if left_out and left_out[0] == campaign else []
    skipped = [
        f for f in report.per_file if f.status == "skipped" and (config.view == "gm" or f.visibility == "player")
    ]
    if skipped or left_out:  # said first, in a warning: a green banner hid them at the bottom of the table
        if report.files == 0 and not report.chunks:
            said = "Nothing was added: no file could be read."
        else:
            said = ingest_summary(report, config.view)
        with st.container(border=True, key="skipped_files"):
            heading = (
                f"{said} **{len(skipped) + len(left_out)} {'file was' if len(skipped) + len(left_out) == 1 else 'files were'} "
                "not read:**"
            )
            if left_out or not all(f.blank for f in skipped):
                st.warning(heading, icon=":material/warning:")
            else:  # pages made and not written yet: nothing was lost, so no warning
                st.info(heading, icon=":material/info:")
            for name, why in left_out:
                st.markdown(f"- **{_md(name)}**: {_md(why)}. It was not saved.")
            for f in skipped:
                row = st.container(horizontal=True, vertical_alignment="center")
                row.markdown(f"- **{_md(f.source)}**: {_md(f.reason)}")
                if from_uploads and notes_files.uploaded(campaign, f.source):
                    row.button(
                        "Remove it",
                        key=f"remove_{f.source}",
                        icon=":material/delete:",
                        on_click=remove_skipped,
                        args=(f.source,),
                        help="Delete this file from the notes uploaded to this campaign, so it is not read (and "
                        "reported as skipped) again. Your own copy is not touched.",
                        width="content",
                    )
    else:
        st.success(ingest_summary(report, config.view), icon=":material/check_circle:")
    cols = st.columns(4)
    cols[0].metric("Added", report.added, help="New passages")
    cols[1].metric("Updated", report.updated, help="Passages whose text changed and were re-read")
    cols[2].metric("Deleted", report.deleted, help="Passages from text that is gone")
    cols[3].metric("Skipped files", len(report.skipped), help="Files that could not be read; see the note column")
    upload = ss[IGNORED][1] if ss.get(IGNORED) and ss[IGNORED][0] == campaign else None
    if upload is not None and (said := not_notes_line(upload.unexpected, len(upload.aside))):
        st.caption(_md(said))
    if report.gm_only:
        st.info(gm_marking(report, config.view, bool(gm.passphrase())), icon=":material/visibility_off:")
    st.dataframe(
        report_frame(report, config.view),
        hide_index=True,
        width="stretch",
        key="report_table",
        column_config={
            "pages": st.column_config.NumberColumn("pages", help="Pages in a PDF"),
            "passages": st.column_config.NumberColumn("passages", help="Passages cut from the file"),
            "note": st.column_config.TextColumn("note", width="large", help="Why a file was skipped, or warnings"),
        },
    )

# -- preview --------------------------------------------------------------------------------------------
try:  # the page stopped above for whoever may not preview; checked again where the passages are read
    chunks = state.campaign_chunks(config, campaign) if access.may(config.role, "preview") else []
except ChroniclerError as err:
    st.error(err.one_line())
    chunks = []
if chunks:
    st.subheader("Preview a file")
    sources = sorted({c.source for c in chunks})
    source = st.selectbox(
        "File",
        sources,
        key="preview_source",
        help="See the passages Chronicler cut this file into: each is searched on its own.",
    )
    picked = [c for c in chunks if c.source == source]
    on_pages = {c.page for c in picked if c.page is not None}
    st.caption(count_of(len(picked), "passage") + (f" from {count_of(len(on_pages), 'page')}" if on_pages else ""))
    st.dataframe(
        chunks_frame(picked),
        hide_index=True,
        width="stretch",
        key="preview_table",
        column_config={
            "text": st.column_config.TextColumn("text", width="large"),
            "session": st.column_config.TextColumn(
                "session", help="The session number and where it came from, or where a passage without one is from"
            ),
            "lines": st.column_config.TextColumn("lines", help="Where in the file the passage is"),
            "entities": st.column_config.TextColumn(
                "people, places & things", help="The people, places and things the passage names"
            ),
        },
    )

elif not (last and last[0] == campaign):
    st.info("No notes in this campaign yet: upload files or sync a folder above.", icon=":material/info:")

# -- delete ---------------------------------------------------------------------------------------------
# Offered for an empty campaign too: one created by mistake must be removable from the list.
with st.expander("Delete this campaign", icon=":material/delete:"):
    st.write(f"Removes **{campaign}** and its passages from Chronicler. Your own note files are not touched.")
    drop_uploads = st.checkbox("Also delete the copies uploaded to Chronicler", value=True, key="drop_uploads")
    if not ss.get("confirm_delete"):
        if st.button("Delete campaign…", key="delete_start"):
            ss["confirm_delete"] = True
            st.rerun()
    else:
        typed = st.text_input(f"Type **{campaign}** to confirm", key="delete_confirm_name")
        c1, c2 = st.columns(2)
        if c1.button("Delete for good", type="primary", key="delete_go", disabled=typed != campaign):
            try:
                with state.INDEX_LOCK:
                    state.pipeline(config).drop(campaign, uploads=drop_uploads)
                    state.changed()
            except ChroniclerError as err:
                st.error(err.one_line())
            else:
                state.forget_created(campaign)
                ss.pop("confirm_delete", None)
                ss.pop("last_report", None)
                ss["_flash"] = f"Deleted campaign '{campaign}'."
                st.rerun()
        if c2.button("Cancel", key="delete_cancel"):
            ss.pop("confirm_delete", None)
            st.rerun()

if flash := ss.pop("_flash", None):
    st.toast(flash, icon=":material/delete:")
