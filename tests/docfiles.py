"""Small real files of every non-Markdown kind, written at test time (fpdf2, python-docx, the email package).

Shared by tests/test_formats.py and scripts/compare_pdf_libs.py, so the benchmark measures the same files
the tests check. Each maker returns the path it wrote; the module constants are the ground truth.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

# -- a 3-page handout: text on every page, a price table on page 2 -------------------------------------

HANDOUT_PAGES = [
    (
        "The Harbour Master's Letter",
        [
            "Captain Zaroth of the Sea Wyvern hands the party a sealed letter from the harbour master of "
            "Port Nyanzaru.",
            "The letter asks them to find the missing cartographer Syndra Silvane before the next full moon, "
            "and promises a reward of three hundred gold pieces.",
        ],
    ),
    (
        "Prices at the Grand Souk",
        [
            "Yorb the goblin haggles over every copper, but his lanterns never go out in the jungle rain.",
        ],
    ),
    (
        "The Map to Omu",
        [
            "The map shows the lost city of Omu beyond the Valley of Dread, marked with a red skull.",
            "Artus Cimber warns the party that the Soulmonger drains the life of everyone raised from the dead.",
        ],
    ),
]
HANDOUT_TABLE = [
    ("Item", "Price", "Seller"),
    ("Rope (50 ft)", "1 gp", "Yorb"),
    ("Hooded lantern", "5 gp", "Foreman Herris"),
    ("Healing potion", "50 gp", "Sister Garaele"),
]
HANDOUT_TITLE = "Session 7 handout"  # the PDF's metadata title


def _pdf():
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(True, margin=15)
    pdf.set_font("Helvetica", size=11)
    return pdf


def _page(pdf, heading: str, paragraphs: list[str], table=None) -> None:
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    for text in paragraphs:
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    if table:
        with pdf.table(text_align="LEFT") as t:
            for row in table:
                cells = t.row()
                for cell in row:
                    cells.cell(cell)


def handout_pdf(path: Path, title: str = HANDOUT_TITLE) -> Path:
    pdf = _pdf()
    pdf.set_title(title)
    for number, (heading, paragraphs) in enumerate(HANDOUT_PAGES, start=1):
        _page(pdf, heading, paragraphs, HANDOUT_TABLE if number == 2 else None)
    return _write(pdf, path)


def long_pdf(path: Path, pages: int = 50) -> Path:
    """``pages`` pages of prose, a table on every fifth: for timing."""
    pdf = _pdf()
    for n in range(1, pages + 1):
        heading, paragraphs = HANDOUT_PAGES[n % 3]
        text = [f"Day {n} of the expedition. " + p for p in paragraphs] * 4
        _page(pdf, f"{heading} ({n})", text, HANDOUT_TABLE if n % 5 == 0 else None)
    return _write(pdf, path)


TWO_COLUMNS = [
    "The left column tells how the party crossed the river on a raft made of bamboo and vines, "
    "while the crocodiles watched from the muddy banks and Azaka kept her bow drawn.",
    "The right column tells how the party reached the shrine of Ubtao at dusk, found the "
    "door sealed, and read the riddle carved above it by the light of a single torch.",
]


def two_column_pdf(path: Path) -> Path:
    """One newsletter-style page with two columns of prose: a known weak spot of text extraction."""
    pdf = _pdf()
    pdf.add_page()
    with pdf.text_columns(ncols=2, gutter=10) as cols:
        cols.write(TWO_COLUMNS[0])
        cols.new_column()
        cols.write(TWO_COLUMNS[1])
    return _write(pdf, path)


def encrypted_pdf(path: Path, user_password: str | None = "players") -> Path:
    """AES-128. With a user password a reader must ask for it; with only an owner password it opens."""
    from fpdf.enums import EncryptionMethod

    pdf = _pdf()
    _page(pdf, "Secret orders", ["The Order of the Gauntlet wants the party to spy on the Flaming Fist."])
    pdf.set_encryption(
        owner_password="gm-only", user_password=user_password, encryption_method=EncryptionMethod.AES_128
    )
    return _write(pdf, path)


def scanned_pdf(path: Path) -> Path:
    """A page that is only a picture of text, as a phone scan is."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (850, 1100), 255)
    ImageDraw.Draw(image).text((60, 60), "Session 9: the party meets Wakanga O'tamu.", fill=0)
    pdf = _pdf()
    pdf.add_page()
    pdf.image(image, x=0, y=0, w=210)
    return _write(pdf, path)


def _write(pdf, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(path))
    return path


# -- an e-mailed recap with a quoted reply and a signature ---------------------------------------------

MAIL_FROM = "Mira Thorn <mira@example.com>"
MAIL_SUBJECT = "Re: Session 12 recap"
MAIL_PARAGRAPHS = [
    "Quick recap of Saturday for everyone who missed it.",
    "We finally reached the Fane of the Night Serpent and Dragonbait found the hidden door behind the "
    "waterfall. Nobody trusts the yuan-ti guards.",
    "Esh bought a jade frog statuette from a merchant called Xandala, who claimed it was cursed.",
]
MAIL_QUOTED = "Bram wrote that the jade frog was a fake and that Xandala is a spy for the Red Wizards."
MAIL_SIGNATURE = "Mira, keeper of the party's loot spreadsheet"


def recap_mail(subject: str = MAIL_SUBJECT, sender: str = MAIL_FROM) -> EmailMessage:
    import datetime as dt

    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "Tomb Party <party@example.com>"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(dt.datetime(2024, 3, 2, 21, 15, tzinfo=dt.UTC))
    body = "\n\n".join(MAIL_PARAGRAPHS)
    body += "\n\nOn Sat, 2 Mar 2024 at 20:01, Bram <bram@example.com> wrote:\n> " + MAIL_QUOTED + "\n>\n> Bram\n"
    body += f"\n-- \n{MAIL_SIGNATURE}\nSent from my phone\n"
    msg.set_content(body)
    return msg


def recap_eml(path: Path, **kw) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(recap_mail(**kw).as_bytes())
    return path


# -- an HTML page and a Word document ---------------------------------------------------------------------

HTML_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Session 14 - Into the Jungle</title>
<style>body { font-family: serif; }</style><script>var tracking = "do not index me";</script></head>
<body>
<h1>Into the Jungle</h1>
<h2>Leaving Port Nyanzaru</h2>
<p>The party hires <b>Azaka Stormfang</b> as a guide and buys a canoe from <a href="https://example.com">Ekene-Afa</a>.</p>
<ul><li>Azaka asks for a share of any treasure.</li><li>The canoe leaks on the first day.</li></ul>
<h2>The Ruins of Mbala</h2>
<p>On top of the plateau the party meets Nanny Pu&#8217;pu, who is really the hag Mefimbo.</p>
<table><tr><th>Creature</th><th>Count</th></tr><tr><td>Zombie</td><td>6</td></tr><tr><td>Pterafolk</td><td>3</td></tr></table>
</body></html>
"""


def html_page(path: Path, text: str = HTML_PAGE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


WORD_TITLE = "Session 15 write-up"
WORD_SECTIONS = [
    ("Camp Vengeance", "Commander Niles Breakbone demands the party clear the undead from the jungle road."),
    ("The Fever", "Sister Lanniver treats the soldiers sick with mad monkey fever and asks for ape blood."),
]


def word_docx(path: Path, title: str = WORD_TITLE, core_title: str | None = None) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = core_title or ""
    document.add_heading(title, 0)  # the "Title" style, as Google Docs and Word export a document title
    for heading, text in WORD_SECTIONS:
        document.add_heading(heading, 1)
        document.add_paragraph(text)
    document.add_paragraph("Loot found at the camp", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("Loot", "Value"), ("Silver holy symbol", "25 gp")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))
    return path
