"""rag/uploads.py (untrusted uploads) and rag/ui_data.py (frames and figures behind the pages)."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from app.charts import (
    chunks_per_session_figure,
    found_in,
    hits_per_session_figure,
    rank_movement_figure,
    score_distribution_figure,
    stage_scores_figure,
)
from app.tables import hits_frame
from rag.config import load_config
from rag.ingest.uploads import UploadError, notes_source, remember_source, safe_relpath, save_uploads, uploads_dir
from rag.models import Answer, Chunk, Citation, Hit

EXT = [".md", ".txt"]


def make_zip(entries: dict[str, bytes], symlink: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


# -- uploads --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../x.md", "a/../../x.md", "/etc/x.md", "C:\\x.md", "..\\..\\x.md", "", "./"])
def test_unsafe_names_are_refused(name):
    with pytest.raises(UploadError):
        safe_relpath(name)


def test_safe_names_keep_folders():
    assert str(safe_relpath("People\\Grog.md")) == "People/Grog.md"
    assert str(safe_relpath("./Sessions//Session 1.md")) == "Sessions/Session 1.md"


def test_zip_keeps_folders_drops_common_root_and_ignores_non_notes(tmp_path):
    data = make_zip(
        {
            "Vault/Sessions/Session 1.md": b"# a",
            "Vault/People/Grog.md": b"# g",
            "Vault/.obsidian/app.json": b"{}",
            "Vault/img.png": b"\x89PNG",
            "Vault/.trash/old.md": b"x",
        }
    )
    result = save_uploads([("vault.zip", data)], tmp_path / "dest", EXT)
    assert result.saved == ["People/Grog.md", "Sessions/Session 1.md"]
    assert len(result.ignored) == 3
    assert sorted(p.relative_to(tmp_path / "dest").as_posix() for p in (tmp_path / "dest").rglob("*.*")) == [
        "People/Grog.md",
        "Sessions/Session 1.md",
    ]


def test_traversal_in_a_zip_refuses_the_whole_upload(tmp_path):
    data = make_zip({"ok.md": b"fine", "../../evil.md": b"x"})
    with pytest.raises(UploadError, match="Nothing was saved"):
        save_uploads([("notes.md", b"# keep"), ("vault.zip", data)], tmp_path / "dest", EXT)
    assert not (tmp_path / "dest").exists()
    assert not any(tmp_path.rglob("evil.md"))


def test_symlink_in_a_zip_is_refused(tmp_path):
    with pytest.raises(UploadError, match="symbolic link"):
        save_uploads([("v.zip", make_zip({"a.md": b"a"}, symlink="link.md"))], tmp_path / "dest", EXT)


def test_zip_bomb_limits(tmp_path):
    bomb = make_zip({"big.md": b"a" * (3 * 1024 * 1024)})  # compresses to a few KB
    assert len(bomb) < 50_000
    with pytest.raises(UploadError, match="MB"):
        save_uploads([("bomb.zip", bomb)], tmp_path / "dest", EXT, max_total_mb=1)
    many = make_zip({f"n{i}.md": b"x" for i in range(30)})
    with pytest.raises(UploadError, match="more than 20 notes"):
        save_uploads([("many.zip", many)], tmp_path / "dest", EXT, max_files=20)
    assert not (tmp_path / "dest").exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no staging folder left behind


def test_not_a_zip_and_no_notes(tmp_path):
    with pytest.raises(UploadError, match="not a readable zip"):
        save_uploads([("v.zip", b"not a zip")], tmp_path / "dest", EXT)
    with pytest.raises(UploadError, match="None of the uploaded files"):
        save_uploads([("pic.png", b"\x89PNG")], tmp_path / "dest", EXT)


def test_replace_empties_the_folder_first(tmp_path):
    dest = tmp_path / "dest"
    save_uploads([("a.md", b"a"), ("b.md", b"b")], dest, EXT)
    save_uploads([("c.md", b"c")], dest, EXT)
    assert sorted(p.name for p in dest.iterdir()) == ["a.md", "b.md", "c.md"]
    save_uploads([("c.md", b"c2")], dest, EXT, replace=True)
    assert [p.name for p in dest.iterdir()] == ["c.md"] and (dest / "c.md").read_text() == "c2"


def test_notes_source_remembers_then_falls_back(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(tmp_path / "missing"))
    config = load_config()
    assert notes_source(config, "demo") is None
    uploads_dir(config, "demo").mkdir(parents=True)
    assert notes_source(config, "demo") == uploads_dir(config, "demo")
    (tmp_path / "vault").mkdir()
    remember_source(config, "demo", tmp_path / "vault")
    assert notes_source(config, "demo") == tmp_path / "vault"


# -- frames and figures ---------------------------------------------------------------------------------


def hit(pos: int, session, scores: dict, score: float, kept: bool = True) -> Hit:
    chunk = Chunk(
        campaign="c",
        source=f"Session {session}.md",
        position=pos,
        text=f"text {pos}",
        name=f"Session {session} · Part {pos + 1}",
        session=session,
    )
    return Hit(chunk, score, pos + 1, scores, kept=kept)


def test_hits_frame_keeps_missing_stages_empty_and_explains_status():
    cands = [
        hit(0, 1, {"dense": 0.9, "keyword": 3.0, "fused": 0.03}, 0.03),
        hit(1, 2, {"keyword": 2.0, "fused": 0.016}, 0.016),
        hit(2, None, {"dense": 0.2, "fused": 0.01}, 0.01, kept=False),
    ]
    frame = hits_frame(cands, cands[:1])
    assert list(frame["status"]) == ["shown", "not in top-k", "below threshold"]
    assert frame["dense"].isna().tolist() == [False, True, False]
    assert frame["rerank"].isna().all()
    assert list(frame["session"]) == ["1", "2", "no session"]


def test_passages_of_no_session_are_the_campaigns_other_notes():
    """The Campaign page's chart: a vault's pages of people and places are its other notes, not a "no session", and
    no bar among the sessions (among thirty, its label was left out and it read as a huge last session)."""
    chunks = [hit(pos, session, {}, 0.1).chunk for pos, session in enumerate((1, 2, 2, None))]
    figure = chunks_per_session_figure(chunks)
    assert (list(figure.data[0].x), list(figure.data[0].y)) == (["1", "2"], [1, 2])
    assert figure.layout.title.text == "Passages per session<br><sup>and 1 passage on other notes</sup>"


def test_stage_figure_has_a_row_per_stage_and_no_invented_zeros():
    hits = [
        hit(0, 1, {"dense": 0.9, "keyword": 3.0, "fused": 0.03}, 0.03),
        hit(1, 2, {"keyword": 2.0, "fused": 0.02}, 0.02),
    ]
    fig = stage_scores_figure(hits, "hybrid").to_plotly_json()
    assert [t["name"] for t in fig["data"]] == [
        "Meaning (dense)",
        "Exact words (keyword)",
        "Combined (fused)",
    ]
    assert list(fig["data"][0]["y"]) == [0.9, None]
    assert list(fig["data"][1]["y"]) == [3.0, 2.0]


def test_distribution_and_session_figures():
    cands = [
        hit(0, 1, {"dense": 0.9}, 0.9),
        hit(1, 1, {"dense": 0.5}, 0.5),
        hit(2, 2, {"dense": 0.1}, 0.1, False),
    ]
    dist = score_distribution_figure(cands, 0.3, cands[:1]).to_plotly_json()
    assert {t["name"]: list(t["x"]) for t in dist["data"]} == {
        "shown": [0.9],
        "not in top-k": [0.5],
        "below threshold": [0.1],
    }
    assert dist["layout"]["shapes"][0]["x0"] == 0.3
    sessions = hits_per_session_figure(cands, cands[:1]).to_plotly_json()
    assert list(sessions["data"][0]["x"]) == ["1", "2"] and list(sessions["data"][0]["y"]) == [1, 0]
    assert list(sessions["data"][1]["y"]) == [1, 1]


def test_rank_movement_draws_first_stage_to_rerank_and_nothing_without_rerank():
    a, b, c = (hit(i, 1, {"fused": 0.1, "rerank": 1.0}, 1.0) for i in range(3))
    a.ranks, b.ranks, c.ranks = {"first_stage": 3, "rerank": 1}, {"first_stage": 1, "rerank": 2}, {"first_stage": 2}
    fig = rank_movement_figure([a, b, c], [a]).to_plotly_json()
    assert [list(t["y"]) for t in fig["data"]] == [[3, 1], [1, 2]]  # c was not reranked: no line
    assert fig["data"][0]["line"]["width"] > fig["data"][1]["line"]["width"]  # the shown passage stands out
    assert fig["layout"]["yaxis"]["autorange"] == "reversed"
    assert rank_movement_figure([c]) is None


def test_hits_frame_says_which_phrasing_found_each_passage():
    found = hit(0, 1, {"keyword": 2.0}, 2.0)
    found.variant = "sealed letter"
    assert list(hits_frame([found])["found by"]) == ["sealed letter"]


def test_why_chart_splits_each_passage_by_what_matched_and_says_when_reranking_moved_it():
    from app.charts import why_figure
    from app.tables import contributions
    from rag.config import RetrievalConfig

    cfg = RetrievalConfig()
    page = Chunk(campaign="c", source="NPCs/Grog.md", position=0, text="Grog, a goliath.", name="Grog", kind="NPCs")
    session = Chunk(campaign="c", source="Session 2.md", position=0, text="Grog smashes.", name="Session 2", session=2)
    # the session passage: 2nd by meaning, 1st by exact words, plus a link bonus; moved up by reranking
    first = 1.0 / (cfg.rrf_k + 2) + 2.0 / (cfg.rrf_k + 1) + 0.05
    hits = [
        Hit(
            session,
            1.0,
            1,
            {"fused": first, "links": 0.05, "rerank": 1.0},
            {"dense": 2, "keyword": 1, "first_stage": 2},
        ),
        Hit(page, 0.5, 2, {"fused": 0.04, "rerank": 0.5}, {"dense": 1, "keyword": 3, "first_stage": 1}),
    ]
    parts = contributions(hits[0], cfg, "hybrid")
    assert parts == pytest.approx({"dense": 1 / 12, "keyword": 2 / 11, "links": 0.05})
    page_parts = contributions(hits[1], cfg, "hybrid")
    assert sum(page_parts.values()) == pytest.approx(0.04)  # scaled to its combined score (pages count half)
    fig = why_figure(hits, cfg, "hybrid").to_dict()
    names = [t["name"] for t in fig["data"]]
    assert names == ["matched names and words", "matched meaning", "linked from a matching page"]
    totals = [sum(t["x"][i] for t in fig["data"]) for i in range(2)]
    assert totals[0] == pytest.approx(100) and totals[1] == pytest.approx(100 * 0.04 / first)
    labels = [a["text"] for a in fig["layout"]["annotations"]]  # above each bar, nothing beside it
    assert labels == ["#1 Session 2 · moved up from #2", "#2 Grog · moved down from #1"]
    assert fig["layout"]["xaxis"]["title"]["text"] == "how well it matched (best = 100)"
    assert fig["layout"]["xaxis"]["range"] == [0, 100] and not fig["layout"]["showlegend"]  # the legend: the page's
    cited = why_figure(hits, cfg, "hybrid", frozenset({session.id})).to_dict()
    assert cited["layout"]["annotations"][0]["text"] == "#1 Session 2 · cited · moved up from #2"


def lightness(colour: str) -> float:
    """CIELAB L* of an sRGB colour: how light it looks, whatever its hue."""
    r, g, b = (int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 116 * (y ** (1 / 3) if y > 0.008856 else 7.787 * y + 16 / 116) - 16


def test_what_matched_is_told_apart_by_lightness_too():
    """Colours a colour-blind player (or a grey printout) can still tell apart: every two of the "why" chart's
    colours differ in lightness by 10 L* or more."""
    from app.charts import MATCH_COLORS

    values = sorted(lightness(c) for c in MATCH_COLORS.values())
    assert min(b - a for a, b in zip(values, values[1:], strict=False)) >= 10, values


def test_a_long_label_takes_two_lines_and_never_splits_a_name():
    from app.charts import _wrapped

    assert _wrapped("#3 C1 Session 4 · The Plan, Part II (3)") == "#3 C1 Session 4 · The Plan, Part II (3)"
    assert _wrapped("#3 C1 Session 4 · The Plan", ["cited", "moved up from #5"]) == (
        "#3 C1 Session 4 · The Plan<br>cited · moved up from #5"
    )
    name = "#12 C1 Session 104 · The Battle of Whitestone (2)"
    assert _wrapped(name, ["cited"]) == "#12 C1 Session 104<br>The Battle of Whitestone (2) · cited"


def test_the_ingest_line_says_when_passages_were_read_again_for_the_model_alone():
    """After ``embedding.precision`` changes, every passage is read again: the player is told it was Chronicler's
    model, not their notes, that changed."""
    from app.tables import ingest_summary
    from rag.ingest.indexing import FileReport, IndexReport

    report = IndexReport("demo", "demo", files=1, chunks=12, updated=12, embedded=12, remodelled=12)
    report.per_file = [FileReport("Session 1.md", "updated", chunks=12, updated=12)]
    said = ingest_summary(report, "player")
    assert said.startswith("Read 1 file into 12 passages") and "12 were read again only because" in said
    assert "reading model changed" in said
    report.remodelled = 0
    assert "read again" not in ingest_summary(report, "player")
    unchanged = IndexReport("demo", "demo", files=1, chunks=12, unchanged=12)  # synced again, nothing new
    unchanged.per_file = [FileReport("Session 1.md", "unchanged", chunks=12)]
    assert (
        ingest_summary(unchanged, "player") == "Nothing changed since these notes were last read: 1 file, 12 passages."
    )


def test_the_gm_marking_sends_no_one_to_a_gm_view_the_app_does_not_have():
    """Without a GM passphrase there is no "Game master" entry in the sidebar: the hidden files' list is said to
    come with a passphrase, not to be found there. Counts read as a player writes them ("1 file is")."""
    from app.tables import gm_marking
    from rag.ingest.indexing import FileReport, IndexReport

    report = IndexReport("demo", "demo", files=2, chunks=5, gm_rules={"GM folder": 1})
    report.per_file = [FileReport("Session 1.md", "added", chunks=4), FileReport("GM/Plot.md", "added", 1)]
    report.per_file[1].visibility = "gm"
    shared = gm_marking(report, "player", gm_view=True)
    alone = gm_marking(report, "player", gm_view=False)
    assert shared.startswith("**1 passage is GM only**") and "1 file is GM only as a whole" in shared
    assert "sidebar → Game master" in shared and "sidebar" not in alone and "GM passphrase" in alone
    assert "as a whole" not in gm_marking(report, "gm")


def test_ask_about_asks_who_of_people_and_what_of_places():
    """Only a "Locations" folder asked "What is…?": "Places", "Items" or "Factions" asked "Who is…?". A people
    folder, or none, asks "Who", another folder "What"."""
    from app.story import ask_about
    from rag.campaign.entities import Entity

    assert ask_about(Entity("Grog", kind="NPCs")) == "Who is Grog?"
    assert ask_about(Entity("Keyleth", kind="Party Members")) == "Who is Keyleth?"
    assert ask_about(Entity("Kraghammer", kind="Places")) == "What is Kraghammer?"
    assert ask_about(Entity("Keyleth")) == "Who is Keyleth?"  # no folder: most of what notes link is someone
    assert ask_about(Entity("Zephyros", kind="note")) == "Who is Zephyros?"  # a page at the top of the vault


def test_an_upload_names_the_files_it_did_not_read_but_not_a_vaults_pictures():
    from app.tables import not_notes_line
    from rag.ingest.uploads import SaveResult

    pictures = [f"v.zip: Art/map{i}.png" for i in range(40)] + ["v.zip: .obsidian/app.json"]
    assert not_notes_line(SaveResult(ignored=pictures, aside=pictures).unexpected, 41) == ""  # as the help says
    both = SaveResult(ignored=[*pictures, "v.zip: Party/roster.csv"], aside=pictures)
    said = not_notes_line(both.unexpected, len(both.aside))
    assert (
        said == "Not read, as they are not notes: v.zip: Party/roster.csv (and 41 image or settings files, as always)."
    )
    assert not_notes_line(["roster.csv"]) == "Not read, as they are not notes: roster.csv."


def test_the_passage_the_second_look_put_out_of_the_list_is_named():
    """All five bars said "moved up" and the search's first passage had left the list with nothing saying so."""
    from app.charts import first_places, moved_out

    def at(name: str, rank: int, before: int, reranked: bool = True) -> Hit:
        chunk = Chunk(campaign="c", source=f"{name}.md", position=0, text=name, name=name)
        scores = {"fused": 0.1, "rerank": 0.5} if reranked else {"fused": 0.1}
        return Hit(chunk, 0.5, rank, scores, {"first_stage": before} if reranked else {})

    shown = [at("Camp", 1, 2), at("Road", 2, 3)]
    candidates = [*shown, at("Tavern", 3, 1)]
    assert moved_out(shown, first_places(candidates)) == (
        "The closer second look put below this list: Tavern (was #1, now #3)."
    )
    # the chat reads them from the answer's run record, which keeps the candidates as rows
    rows = [h.as_dict() for h in candidates]
    assert moved_out(shown, first_places(rows)) == moved_out(shown, first_places(candidates))
    assert moved_out(shown) == "The closer second look put below this list: a passage the first search had placed #1."
    assert moved_out([at("Camp", 1, 1), at("Road", 2, 2)]) is None  # nothing left the list
    assert moved_out([at("Camp", 1, 2, reranked=False)]) is None  # no second look ran


def test_found_it_names_every_session_and_page_the_answer_quotes():
    """The badge named only the first citation's session: "Found it in Session 1" over an answer whose deciding
    sentence was from Session 18 (a list of targets quoted first)."""
    hits = [hit(0, 1, {}, 0.9), hit(1, 18, {}, 0.8), hit(2, 5, {}, 0.7), hit(3, 7, {}, 0.6)]
    page = Chunk(
        campaign="c",
        source="NPCs/Mayor.md",
        position=0,
        text="The mayor.",
        name="Mayor",
        title="Mayor",
        kind="NPCs",
        session=None,
    )
    hits.append(Hit(page, 0.5, 5, {}))

    def said(*cited: Hit) -> str:
        return found_in(Answer("q", "a", [Citation(h.chunk.name, h.chunk.id) for h in cited], hits, confidence="high"))

    assert said(hits[1]) == "Session 18"
    assert said(hits[0], hits[1], hits[0]) == "Sessions 1 and 18"  # in the order quoted, each once
    assert said(hits[1], hits[4]) == "Session 18 and Mayor"
    assert said(hits[0], hits[1], hits[2], hits[3]) == "your notes"  # too many to name
    assert found_in(Answer("q", "a", [Citation("Session 9", None)], hits, confidence="high")) == "your notes"


def test_the_best_passage_has_the_longest_bar_whatever_the_scale():
    """The reranker scores below zero: drawn from zero, the worst passage's bar ran furthest and looked best."""
    from app.charts import cited_scores_figure

    for scores in ((-0.2, -1.1, -3.0), (0.9, 0.5, 0.1)):
        hits = [hit(i, i + 1, {}, s) for i, s in enumerate(scores)]
        bar = cited_scores_figure(Answer("q", "a", [], hits)).data[0]
        length = {y: abs(x) for y, x in zip(bar.y, bar.x, strict=True)}  # how long it is drawn
        assert length["#1 Session 1 · Part 1"] > length["#2 Session 2 · Part 2"] > length["#3 Session 3 · Part 3"]
        ends = sorted(bar.base + x for x in bar.x) if bar.base is not None else sorted(bar.x)
        assert ends == pytest.approx(sorted(scores))  # the axis still reads each passage's own score
