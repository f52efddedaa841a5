"""PDF, e-mail, HTML and Word notes, from small real files generated here (tests/docfiles.py).

What a player sees: a PDF passage is cited as "Handout 3, p. 2" in search hits and answers, an e-mailed recap
keeps its sender, subject and date and can be filtered by them on both store engines, scans, encrypted and
broken files are skipped with a reason, and Markdown notes are read exactly as before.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest

from app.tables import chunks_frame, report_frame
from rag.citations import check_citations
from rag.cli import main
from rag.config import ChunkingConfig, NotesConfig, load_config
from rag.ingest.chunking import chunk_notes
from rag.ingest.notes import Skipped, load_notes
from rag.ingest.uploads import save_uploads
from rag.models import Chunk, Filters, Hit, Note
from rag.pipeline import Pipeline
from tests import docfiles
from tests.fakes import FakeEmbedder, FakeGenerator
from tests.helpers import start, texts

CFG = NotesConfig()
EXPORT = """From: Bram Ironfell <bram@example.com>
To: party@example.com
Subject: Loot after session 11
Date: Sun, 25 Feb 2024 10:00:00 +0100

Bram keeps the bag of holding; the party splits the 400 gold from the hydra's lair evenly.

> Mira asked who keeps the bag.
"""


def make_vault(root: Path) -> Path:
    docfiles.handout_pdf(root / "Handouts" / "Handout 3.pdf")
    docfiles.encrypted_pdf(root / "Handouts" / "Orders.pdf")
    docfiles.encrypted_pdf(root / "Handouts" / "Open orders.pdf", user_password=None)
    docfiles.scanned_pdf(root / "Handouts" / "Scan.pdf")
    (root / "Handouts" / "Broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog")
    docfiles.recap_eml(root / "Mail" / "recap.eml")
    (root / "Mail" / "Export.txt").write_text(EXPORT, encoding="utf-8")
    docfiles.html_page(root / "Jungle.html")
    docfiles.word_docx(root / "Write-up.docx")
    (root / "Session 1.md").write_text("# Session Start\n## Port\n- The party lands at Port Nyanzaru.\n")
    return root


@pytest.fixture(scope="module")
def vault(tmp_path_factory) -> Path:
    return make_vault(tmp_path_factory.mktemp("vault"))


@pytest.fixture(scope="module")
def loaded(vault):
    notes, skipped = load_notes(vault, CFG)
    return {n.source: n for n in notes}, skipped, chunk_notes(notes, "demo", ChunkingConfig(min_chars=120))


def chunks_of(loaded, source: str) -> list[Chunk]:
    return [c for c in loaded[2] if c.source == source]


# -- reading ------------------------------------------------------------------------------------------------


def test_every_kind_is_read_and_every_skip_has_a_reason(loaded):
    notes, skipped, _ = loaded
    assert {s: n.file_type for s, n in notes.items()} == {
        "Handouts/Handout 3.pdf": "pdf",
        "Handouts/Open orders.pdf": "pdf",  # only an owner password: opens like in any viewer
        "Mail/recap.eml": "email",
        "Mail/Export.txt": "email",  # a plain-text mail export
        "Jungle.html": "html",
        "Write-up.docx": "docx",
        "Session 1.md": "markdown",
    }
    reasons = {s.source: s.reason for s in skipped}
    assert reasons["Handouts/Orders.pdf"] == "encrypted PDF (needs a password)"
    assert reasons["Handouts/Scan.pdf"] == "no text layer (scanned?)"
    assert reasons["Handouts/Broken.pdf"].startswith("not a valid PDF: ")
    assert len(skipped) == 3


def test_pdf_pages_reach_the_chunks_and_their_names(loaded):
    note = loaded[0]["Handouts/Handout 3.pdf"]
    assert (note.title, note.page_count, note.session, note.session_from) == ("Handout 3", 3, 7, "title")
    chunks = chunks_of(loaded, "Handouts/Handout 3.pdf")
    assert [c.page for c in chunks] == [1, 2, 3]
    assert [c.name for c in chunks] == ["Handout 3, p. 1", "Handout 3, p. 2", "Handout 3, p. 3"]
    assert chunks[1].label == "[Handout 3, p. 2]"
    for number, (heading, paragraphs) in enumerate(docfiles.HANDOUT_PAGES, start=1):
        text = " ".join(chunks[number - 1].text.split())
        assert heading in text and all(p in text for p in paragraphs)
    # The table is delimited text, one row per line, on its own page.
    assert "Rope (50 ft) | 1 gp | Yorb\nHooded lantern | 5 gp | Foreman Herris" in chunks[1].text


def test_a_page_without_text_is_a_warning_not_a_silent_gap(tmp_path):
    from fpdf import FPDF
    from PIL import Image

    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.cell(0, 10, "The party meets the Tortle Grandfather Zitembe.")
    pdf.add_page()
    pdf.image(Image.new("L", (200, 200), 128), x=10, y=10, w=100)
    pdf.add_page()
    pdf.cell(0, 10, "Zitembe reads their fortune in the bones.")
    pdf.output(str(tmp_path / "Fortunes.pdf"))
    notes, _ = load_notes(tmp_path, CFG)
    assert notes[0].warnings == ("no text on page 2 (scanned?)",)
    assert [c.page for c in chunk_notes(notes, "demo", ChunkingConfig())] == [1, 3]


def test_many_passages_on_one_page_stay_apart_by_name(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    for n in range(6):
        pdf.multi_cell(0, 6, f"Paragraph {n}: " + "the jungle is loud and the rain never stops. " * 6)
        pdf.ln(4)
    pdf.output(str(tmp_path / "Rain.pdf"))
    chunks = chunk_notes(load_notes(tmp_path, CFG)[0], "demo", ChunkingConfig(max_chars=400, min_chars=120))
    assert len(chunks) > 1 and {c.page for c in chunks} == {1}
    assert [c.name for c in chunks][:2] == ["Rain, p. 1", "Rain, p. 1 (2)"]
    assert len({c.name for c in chunks}) == len(chunks)


def test_an_unchanged_document_is_parsed_once_per_process(vault, loaded):
    again, _ = load_notes(vault, CFG)
    first = loaded[0]
    documents = [n for n in again if n.file_type != "markdown"]
    assert len(documents) >= 3 and all(n is first[n.source] for n in documents)


def test_broken_empty_and_non_pdf_files_get_a_reason(tmp_path):
    (tmp_path / "Empty.pdf").write_bytes(b"")
    (tmp_path / "Renamed.pdf").write_bytes(b"PK\x03\x04 this is a zip")
    (tmp_path / "Broken.docx").write_bytes(b"PK\x03\x04 not really")
    (tmp_path / "Old.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64)
    _, skipped = load_notes(tmp_path, CFG)
    assert skipped == [
        Skipped("Broken.docx", "not a valid Word file: it is not a .docx (zip) package"),
        Skipped("Empty.pdf", "empty file", blank=True),  # nothing written in it: nothing lost
        Skipped("Old.docx", "password-protected or old-format Word file: save it as .docx without a password"),
        Skipped("Renamed.pdf", "not a valid PDF: the file does not start like a PDF"),
    ]


def test_documents_have_their_own_size_limit(tmp_path):
    docfiles.handout_pdf(tmp_path / "Handout.pdf")
    (tmp_path / "Notes.md").write_text("- word " * 400)
    notes, skipped = load_notes(tmp_path, NotesConfig(max_file_mb=0.001, max_document_mb=1))
    assert [n.source for n in notes] == ["Handout.pdf"]
    assert skipped == [Skipped("Notes.md", "larger than 0.001 MB limit")]
    assert load_notes(tmp_path, NotesConfig(max_document_mb=0.001))[1][0].reason == "larger than 0.001 MB limit"


def test_mail_headers_are_metadata_and_quotes_and_signature_are_dropped(loaded):
    note = loaded[0]["Mail/recap.eml"]
    assert (note.sender, note.subject, note.date) == (docfiles.MAIL_FROM, docfiles.MAIL_SUBJECT, "2024-03-02")
    assert note.front_matter["to"] == ["Tomb Party <party@example.com>"]
    assert (note.title, note.session, note.session_from, note.kind) == ("Session 12 recap", 12, "subject", "session")
    chunks = chunks_of(loaded, "Mail/recap.eml")
    text = "\n".join(c.text for c in chunks)
    assert all(" ".join(p.split()) in " ".join(text.split()) for p in docfiles.MAIL_PARAGRAPHS)
    for gone in ("jade frog was a fake", "Bram wrote", "wrote:", docfiles.MAIL_SIGNATURE, "Sent from my phone"):
        assert gone not in text
    assert {(c.sender, c.subject, c.date, c.session) for c in chunks} == {
        (docfiles.MAIL_FROM, docfiles.MAIL_SUBJECT, "2024-03-02", 12)
    }
    # Cut by paragraph: the short greeting joins the next paragraph, the long ones stay apart.
    assert len(chunks) == 2 and chunks[1].text.endswith(docfiles.MAIL_PARAGRAPHS[2])
    assert [c.name for c in chunks] == ["Session 12 recap", "Session 12 recap (2)"]


def test_plain_text_mail_export_and_a_note_that_only_mentions_from(loaded, tmp_path):
    note = loaded[0]["Mail/Export.txt"]
    assert (note.sender, note.date, note.session, note.title) == (
        "Bram Ironfell <bram@example.com>",
        "2024-02-25",
        11,
        "Loot after session 11",
    )
    assert "who keeps the bag" not in note.body
    (tmp_path / "Ideas.txt").write_text("Ideas for next time\nFrom: the DM\nSubject: dragons\n")
    assert load_notes(tmp_path, CFG)[0][0].file_type == "markdown"


def test_html_headings_become_chunk_headings(loaded):
    note = loaded[0]["Jungle.html"]
    assert (note.title, note.session, note.session_from) == ("Into the Jungle", 14, "title")  # from <title>
    chunks = chunks_of(loaded, "Jungle.html")
    assert [c.heading for c in chunks] == ["Leaving Port Nyanzaru", "The Ruins of Mbala"]
    assert "Azaka Stormfang as a guide" in chunks[0].text and "**" not in chunks[0].text
    assert "Zombie | 6" in chunks[1].text
    assert not any("tracking" in c.text or "font-family" in c.text for c in chunks)


def test_word_headings_and_title(loaded, tmp_path):
    note = loaded[0]["Write-up.docx"]
    assert (note.title, note.session, note.session_from) == (docfiles.WORD_TITLE, 15, "title")
    chunks = chunks_of(loaded, "Write-up.docx")
    assert [c.heading for c in chunks] == [h for h, _ in docfiles.WORD_SECTIONS]
    assert all(text in c.text for c, (_, text) in zip(chunks, docfiles.WORD_SECTIONS, strict=True))
    assert "Silver holy symbol | 25 gp" in chunks[-1].text
    # Without a Title paragraph the document's title property names it (and gives its session).
    untitled = docfiles.word_docx(tmp_path / "Notes.docx", title="", core_title="Session 16 notes")
    note = load_notes(untitled.parent, CFG)[0][0]
    assert (note.title, note.session, note.session_from) == ("Session 16 notes", 16, "title")


# -- session numbers ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("Prep.md", "---\nsession: 4\n---\n- Buy rope\n", (4, "front matter", "session")),
        ("Heist.md", "# Session 6 - The Heist\n- Rob the bank\n", (6, "title", "session")),
        ("Plan.md", "---\ntitle: Session 8 plans\n---\n- Sail\n", (8, "title", "session")),
        ("Session 3.md", "# Session 9 by mistake\n- x\n", (3, "", "session")),  # the file name wins
        ("Pre-Session 5 prep.md", "- Buy rope\n", (None, "", "note")),  # a file name is not a title
        ("NPCs/Yorb.md", "# Yorb\nA goblin.\n", (None, "", "NPCs")),
    ],
)
def test_session_from_front_matter_or_title_when_the_file_name_has_none(tmp_path, name, text, expected):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    note = load_notes(tmp_path, CFG)[0][0]
    assert (note.session, note.session_from, note.kind) == expected


def test_title_session_pattern_is_configurable(tmp_path):
    (tmp_path / "Recap.md").write_text("# Chapter 21: the storm\n- Wind\n")
    assert load_notes(tmp_path, CFG)[0][0].session is None
    cfg = NotesConfig(title_session_pattern=r"Chapter (?P<session>\d+)")
    note = load_notes(tmp_path, cfg)[0][0]
    assert (note.session, note.session_from) == (21, "title")
    chunk = chunk_notes([note], "demo", ChunkingConfig())[0]
    assert (chunk.session, chunk.session_from, chunk.name) == (21, "title", "Session 21")


def test_a_chunk_without_a_session_says_where_it_is_from(tmp_path):
    docfiles.recap_eml(tmp_path / "hello.eml", subject="Snacks for Saturday")
    docfiles.handout_pdf(tmp_path / "Map.pdf", title="")
    notes, _ = load_notes(tmp_path, CFG)
    chunks = chunk_notes(notes, "demo", ChunkingConfig())
    frame = chunks_frame(chunks)
    assert all(c.session is None for c in chunks)
    assert set(frame["session"]) == {"no session: Map.pdf", f"no session: mail from {docfiles.MAIL_FROM}, 2024-03-02"}
    assert list(frame["page"].dropna()) == [1, 2, 3]
    page = Chunk(
        campaign="demo", source="Deities/Bahamut.md", position=0, text="A god.", name="Bahamut", kind="Deities"
    )
    assert chunks_frame([page])["session"].tolist() == ["no session: a page in Deities"]  # not its file again
    handout = Chunk(
        campaign="demo",
        source="Handouts/Map.pdf",
        position=0,
        text="A map.",
        name="Map, p. 1",
        kind="Handouts",
        page=1,
        file_type="pdf",
    )
    assert chunks_frame([handout])["session"].tolist() == ["no session: a PDF in Handouts"]  # its pages: "page"


# -- the chunk model ---------------------------------------------------------------------------------------------


def test_markdown_payload_is_unchanged_and_new_fields_round_trip(loaded):
    md = chunks_of(loaded, "Session 1.md")[0]
    assert not {"page", "file_type", "sender", "subject", "date", "session_from"} & set(md.payload())
    for chunk in loaded[2]:
        assert Chunk.from_payload(chunk.payload()) == chunk
    mail = chunks_of(loaded, "Mail/recap.eml")[0].payload()
    assert mail["sender_keys"] == ["mira@example.com", "mira", "mira thorn", "thorn"]
    assert mail["subject_words"] == ["re", "session", "12", "recap"]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("page", 0, "page number >= 1"), ("date", "2 March", "ISO date"), ("file_type", "pptx", "file_type")],
)
def test_chunk_fields_validate_themselves(field, value, message):
    with pytest.raises(ValueError, match=message):
        Chunk("demo", "a.pdf", 0, "text", "A, p. 1", **{field: value})


# -- search, filters and answers on both engines -----------------------------------------------------------------


@pytest.fixture(params=["edge", "qdrant"])
def pipeline(request, vault, tmp_path):
    config = load_config(
        overrides={"store.backend": request.param, "store.path": ":memory:", "data_dir": str(tmp_path / "data")}
    )
    p = Pipeline(config, embedder=FakeEmbedder())
    report = p.index(vault, "demo")
    yield p, report
    p.close()


def test_page_numbers_reach_search_hits(pipeline):
    p, _ = pipeline
    hits = p.with_settings({"retrieval.k": 3}).search("Hooded lantern price Foreman Herris Grand Souk", "demo").hits
    top = hits[0]
    assert (top.chunk.source, top.chunk.page, top.chunk.label) == ("Handouts/Handout 3.pdf", 2, "[Handout 3, p. 2]")
    assert top.as_dict()["page"] == 2 and "sender" not in top.as_dict()


def test_sender_and_subject_filters_on_both_engines(pipeline):
    p, _ = pipeline

    def sources(**kw) -> set[str]:
        return {
            h.chunk.source
            for h in p.with_settings({"retrieval.k": 20})
            .search("party gold jade frog", "demo", filters=Filters(**kw))
            .hits
        }

    assert sources(senders=("Mira",)) == {"Mail/recap.eml"}
    assert sources(senders=("mira@example.com",)) == {"Mail/recap.eml"}
    assert sources(senders=("mira thorn", "bram")) == {"Mail/recap.eml", "Mail/Export.txt"}
    assert sources(subject="session RECAP") == {"Mail/recap.eml"}
    assert sources(subject="loot") == {"Mail/Export.txt"}
    assert sources(subject="recap", senders=("bram",)) == set()
    assert "Handouts/Handout 3.pdf" in sources()


def test_answer_cites_the_page(pipeline):
    p, _ = pipeline
    result = p.with_settings(generator=FakeGenerator()).answer(
        "Who sells the hooded lantern for 5 gp at the Grand Souk?", "demo"
    )
    assert "[Handout 3, p. 2]" in result.text
    cited = {c.chunk_id for c in result.citations}
    assert {h.chunk.id for h in result.hits if h.chunk.page == 2 and h.chunk.title == "Handout 3"} <= cited
    assert not result.refused


def test_page_citation_resolves_when_two_documents_have_that_page():
    hits = [
        Hit(Chunk("demo", f"{title}.pdf", 0, "text", f"{title}, p. 2", page=2, file_type="pdf"), 1.0, 1)
        for title in ("Handout 3", "Orders")
    ]
    _, citations = check_citations("Yorb sells it. [Handout 3, p. 2]", hits)
    assert [c.chunk_id for c in citations] == [hits[0].chunk.id]
    text, citations = check_citations("Yorb sells it. [Handout 9, p. 4]", hits)
    assert [c.chunk_id for c in citations] == [
        None
    ] and "⚠ [Handout 9, p. 4] is not a passage" in text  # flagged, not dropped


def test_index_report_says_what_each_file_became(pipeline):
    _, report = pipeline
    frame = report_frame(report).set_index("file")
    assert frame.loc["Handouts/Handout 3.pdf", ["read as", "pages", "passages"]].tolist() == ["PDF", 3, 3]
    assert frame.loc["Mail/recap.eml", "read as"] == "e-mail"
    assert frame.loc["Handouts/Scan.pdf", "note"] == "no text layer (scanned?)"
    assert frame.loc["Handouts/Scan.pdf", "status"] == "skipped"
    assert frame["pages"].isna().sum() == len(frame) - 2  # only the two readable PDFs have pages


def test_search_cli_filters_by_sender(vault, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    common = ["--data", str(tmp_path / "data"), "--campaign", "mail"]
    assert main(["index", "--notes", str(vault), *common]) == 0
    capsys.readouterr()
    assert main(["search", "gold frog", "--sender", "bram", "--json", *common]) == 0
    import json

    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and {h["source"] for h in hits} == {"Mail/Export.txt"}
    assert hits[0]["sender"] == "Bram Ironfell <bram@example.com>" and hits[0]["date"] == "2024-02-25"


# -- uploads -------------------------------------------------------------------------------------------------------


def test_uploads_keep_binary_files_byte_for_byte(tmp_path):
    pdf = docfiles.handout_pdf(tmp_path / "src" / "Handout 3.pdf").read_bytes()
    docx = docfiles.word_docx(tmp_path / "src" / "Write-up.docx").read_bytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("Vault/Handouts/Handout 3.pdf", pdf)
        zf.writestr("Vault/map.png", b"\x89PNG")
    dest = tmp_path / "uploads"
    result = save_uploads([("vault.zip", buf.getvalue()), ("Write-up.docx", docx)], dest, CFG.extensions)
    assert result.saved == ["Handouts/Handout 3.pdf", "Write-up.docx"]
    assert (dest / "Handouts" / "Handout 3.pdf").read_bytes() == pdf and (dest / "Write-up.docx").read_bytes() == docx
    assert result.ignored == ["vault.zip: Vault/map.png"]
    assert (
        result.aside == result.ignored and result.unexpected == []
    )  # a vault's picture: left out as a matter of course


@pytest.mark.usefixtures("app_env")
def test_ingest_page_uploads_a_pdf_and_a_mail(tmp_path):
    files = [
        docfiles.handout_pdf(tmp_path / "Handout 3.pdf"),
        docfiles.scanned_pdf(tmp_path / "Scan.pdf"),
        docfiles.recap_eml(tmp_path / "recap.eml"),
    ]
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value([(f.name, f.read_bytes(), "application/octet-stream") for f in files])
    at.run()
    at.button(key="upload_go").click()
    at.run()
    assert not at.exception and not at.error, texts(at.error)
    table = next(d.value for d in at.dataframe if "status" in d.value.columns).set_index("file")
    assert table.loc["Handout 3.pdf", ["read as", "pages", "status"]].tolist() == ["PDF", 3, "added"]
    assert table.loc["Scan.pdf", ["status", "note"]].tolist() == ["skipped", "no text layer (scanned?)"]
    assert table.loc["recap.eml", "read as"] == "e-mail"
    at.selectbox(key="preview_source").set_value("Handout 3.pdf")
    at.run()
    preview = next(d.value for d in at.dataframe if "lines" in d.value.columns)
    assert list(preview["page"]) == [1, 2, 3] and list(preview["name"])[1] == "Handout 3, p. 2"
    assert "3 passages from 3 pages" in texts(at.caption)


def test_notes_dataclass_rejects_bad_pages():
    note = Note("a.pdf", "A", "x", file_type="pdf", pages=((1, 1),), page_count=1)
    with pytest.raises(ValueError, match="pages"):
        dataclasses.replace(note, pages=((3, 2), (1, 1)))
    with pytest.raises(ValueError, match="page_count"):
        dataclasses.replace(note, page_count=0)


def test_an_obsidian_canvas_is_read_card_by_card_under_its_groups_labels(tmp_path):
    """A player's backstory laid out as cards on a canvas (vault-krynn's "Weisslogia.canvas") was neither read
    nor said to be skipped: its text cards are notes, each group's label names its cards' passages."""
    canvas = {
        "nodes": [
            {"id": "g1", "type": "group", "x": 0, "y": 0, "width": 600, "height": 400, "label": "Secrets"},
            {"id": "t2", "type": "text", "x": 20, "y": 200, "width": 200, "height": 100, "text": "I hide my scales."},
            {"id": "t1", "type": "text", "x": 20, "y": 20, "width": 200, "height": 100, "text": "I go by Silvanas."},
            {"id": "t0", "type": "text", "x": 900, "y": 0, "width": 200, "height": 100, "text": "Born in Sancrist."},
            {"id": "f1", "type": "file", "x": 900, "y": 500, "width": 200, "height": 100, "file": "Other.md"},
        ],
        "edges": [],
    }
    (tmp_path / "Weisslogia.canvas").write_text(json.dumps(canvas), encoding="utf-8")
    (tmp_path / "Board.canvas").write_text("not json {", encoding="utf-8")
    notes, skipped = load_notes(tmp_path, CFG)
    note = {n.source: n for n in notes}["Weisslogia.canvas"]
    assert note.title == "Weisslogia"
    assert note.body.split("\n\n") == ["Born in Sancrist.", "## Secrets", "I go by Silvanas.", "I hide my scales.\n"]
    chunks = chunk_notes([note], "c", ChunkingConfig())
    assert {c.heading for c in chunks if "Silvanas" in c.text} == {"Secrets"}
    assert [(s.source, s.reason.split(":")[0]) for s in skipped] == [
        ("Board.canvas", "not readable as an Obsidian canvas")
    ]
