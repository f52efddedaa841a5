"""Retrieval stages on small fixtures, on both store engines, with every stage's score on each hit."""

import pytest

from rag.config import load_config
from rag.errors import CampaignNotFoundError, ChroniclerError
from rag.models import Chunk, Filters
from rag.pipeline import Pipeline
from rag.search.retrieval import in_story_order_when_tied, rrf
from tests.fakes import FakeEmbedder
from tests.helpers import SMALL_CAMPAIGN, write_notes


def indexed(tmp_path, engine: str, notes: dict[str, str], campaign: str) -> Pipeline:
    folder = write_notes(tmp_path / "notes", notes)
    settings = {"store.backend": engine, "campaign": campaign, "retrieval.candidates": 10, "reranker.enabled": False}
    settings["chunking.min_chars"] = 120  # a passage per bullet: these tests are about the stages between bullets
    config = load_config(overrides=settings)  # the first stages and the fusion, without the second look
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(folder)
    return p


@pytest.fixture(params=["qdrant", "edge"])
def pipeline(request, tmp_path):
    p = indexed(tmp_path, request.param, SMALL_CAMPAIGN, "t")
    yield p
    p.close()


def test_hybrid_hits_carry_every_stage_score(pipeline):
    result = pipeline.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 3}).search("Vasselheim Calamity")
    assert result.mode == "hybrid" and 1 <= len(result.hits) <= 3
    top = result.hits[0]
    assert {"dense", "keyword", "fused"} <= set(top.scores)
    # "Expand the question" (on by default) adds what its other wording found on top of the question's own
    assert top.score == pytest.approx(top.scores["fused"] + top.scores.get("expansion", 0.0)) and top.rank == 1
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    assert all(h.ranks["first_stage"] == h.rank for h in result.hits)


def test_keyword_finds_the_proper_noun(pipeline):
    hits = pipeline.with_settings({"retrieval.mode": "keyword"}).search("Vasselheim").hits
    assert {h.chunk.session for h in hits} == {2, 3}
    assert all("keyword" in h.scores and "dense" not in h.scores for h in hits)


def test_session_cap_hides_later_sessions(pipeline):
    hits = (
        pipeline.with_settings({"retrieval.mode": "hybrid"})
        .search("Keeper truth Calamity", filters=Filters(session_max=2))
        .hits
    )
    assert hits and all(h.chunk.session <= 2 for h in hits)


def test_entity_filter(pipeline):
    hits = (
        pipeline.with_settings({"retrieval.mode": "dense"})
        .search("what happened", filters=Filters(entities=("Osiris",)))
        .hits
    )
    assert [h.chunk.session for h in hits] == [3]


def test_threshold_drops_but_keeps_candidates_for_the_charts(pipeline):
    pipeline.config.retrieval.score_threshold = 0.99
    result = pipeline.with_settings({"retrieval.mode": "dense"}).search("river road mountains")
    assert result.hits == [] and result.candidates and not any(h.kept for h in result.candidates)


def test_the_threshold_cuts_the_search_score_the_slider_shows_not_the_rerankers(pipeline):
    """The slider's scale is the search mode's (BM25 for exact words). The reranker scores only the passages it
    re-reads, on a scale of its own: cut on that, a threshold every passage's search score passes dropped the
    re-read passages and kept the ones after them."""
    keyword = {"retrieval.mode": "keyword", "reranker.enabled": True, "reranker.backend": "learned"}
    reranked = pipeline.with_settings(keyword).search("Vasselheim Calamity")
    assert reranked.candidates and any(h.score != h.searched for h in reranked.candidates)
    floor = min(h.searched for h in reranked.hits) / 2  # under every search score shown
    cut = pipeline.with_settings(keyword | {"retrieval.score_threshold": floor}).search("Vasselheim Calamity")
    assert [h.chunk.id for h in cut.hits] == [h.chunk.id for h in reranked.hits]
    assert all(h.kept == (h.searched >= floor) for h in cut.candidates)


def test_unknown_campaign_and_empty_question(pipeline):
    with pytest.raises(CampaignNotFoundError):
        pipeline.search("anything", "nope")
    with pytest.raises(ChroniclerError):
        pipeline.search("   ")


def test_alias_expansion_searches_the_other_names(pipeline):
    pipeline.config.retrieval.alias_expansion = True
    result = pipeline.with_settings({"retrieval.mode": "keyword"}).search("Who is the keeper?")
    assert result.variants["keyword"] == "Who is the keeper? Osiris"
    page = [h for h in result.hits if h.chunk.source == "NPCs/Osiris.md"]
    assert page and page[0].variant == result.variants["keyword"]  # found only through the alias
    pipeline.config.retrieval.alias_expansion = False
    plain = pipeline.with_settings({"retrieval.mode": "keyword"}).search("Who is the keeper?")
    assert plain.variants["keyword"] == "Who is the keeper?"
    assert all(h.chunk.source != "NPCs/Osiris.md" for h in plain.hits)


def test_session_order_presents_the_top_k_chronologically_but_keeps_ranks(pipeline):
    by_rank = pipeline.with_settings({"retrieval.mode": "keyword", "retrieval.k": 3}).search(
        "Vasselheim Calamity priests letter road"
    )
    pipeline.config.retrieval.order = "session"
    chrono = pipeline.with_settings({"retrieval.mode": "keyword", "retrieval.k": 3}).search(
        "Vasselheim Calamity priests letter road"
    )
    assert {h.chunk.id for h in chrono.hits} == {h.chunk.id for h in by_rank.hits}
    sessions = [h.chunk.session for h in chrono.hits if h.chunk.session is not None]
    assert sessions == sorted(sessions)
    assert sorted(h.rank for h in chrono.hits) == [h.rank for h in by_rank.hits]


def test_context_stage_finds_the_bullet_after_the_name(pipeline):
    """The answer bullet never names Clarota; the bullet before it does. Keyword search over each passage
    with its neighbours (the "context" stage) finds it, and the hit says which stages found it."""
    result = pipeline.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 5}).search("Clarota")
    plea = [h for h in result.hits if "desperate illithid" in h.chunk.text]
    assert plea and "context" in plea[0].scores and "keyword" not in plea[0].scores
    assert "Clarota" not in plea[0].chunk.text
    meeting = next(h for h in result.hits if "meets Clarota" in h.chunk.text)
    assert {"keyword", "context", "fused"} <= set(meeting.scores) and meeting.rank < plea[0].rank
    assert result.variants["context"] == "Clarota"

    keyword_only = pipeline.with_settings({"retrieval.mode": "keyword", "retrieval.k": 5}).search("Clarota")
    assert [h.chunk.text for h in keyword_only.hits if "desperate illithid" in h.chunk.text] == []
    assert all("context" not in h.scores for h in keyword_only.hits)  # BM25 alone stays BM25 alone

    pipeline.config.retrieval.context_weight = 0
    off = pipeline.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 5}).search("Clarota")
    assert "context" not in off.variants and all("context" not in h.scores for h in off.hits)


KIMA = {
    "Session 1.md": "# Session Start\n## Emon\n- Vox Machina rests at the Slayer's Take and sells the wyvern hides "
    "to a tanner who haggles for most of the afternoon.\n",
    "Session 2.md": "# Session Start\n## Mines\n- In a duergar cell a halfling paladin in heavy plate, Lady Kima of "
    "Vord, cuts her way free and joins Vox Machina against the guards.\n",
    "Session 5.md": "# Session Start\n## Council\n- Lady Kima meets Vox Machina at the first bell. Lady Kima says they "
    "first met in the mines, and Kima asks them to meet the council with her.\n",
    "NPCs/Lady Kima.md": "# Lady Kima\nLady Kima of Vord is a halfling paladin. Vox Machina first met Lady Kima "
    "when they met her in the mines; Kima meets them often.\n",
}


@pytest.fixture(params=["qdrant", "edge"])
def kima(request, tmp_path):
    p = indexed(tmp_path, request.param, KIMA, "k")
    yield p
    p.close()


def test_first_time_questions_rank_the_first_mention_first(kima):
    """Session 5 and the character page repeat "first", "meet" and the name; session 2 only names her.
    The first-mention stage finds session 2, and picks Kima rather than the party, named since session 1."""
    for question in (
        "When did we first meet Lady Kima?",
        "In which episode did Vox Machina first meet Lady Kima?",
        "when did we first meet lady kima",  # typed in lower case: the notes' spelling says it is a name
    ):
        top = kima.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 3}).search(question).hits[0]
        assert top.chunk.session == 2 and top.scores["first_mention"] == 1.0 and top.ranks["first_mention"] == 1

    kima.config.retrieval.first_mention_weight = 0
    plain = kima.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 3}).search(
        "When did we first meet Lady Kima?"
    )
    assert plain.hits[0].chunk.session != 2 and all("first_mention" not in h.scores for h in plain.candidates)


def test_a_first_time_question_without_names_asks_after_what_the_notes_write_as_names(kima):
    """ "When did we first meet lady kima?" shows no name by its capitals; the notes write Lady Kima as one, so she is
    looked for where she is first named. The notes write the tanner in lower case: no first mention is looked for."""
    search = kima.with_settings({"retrieval.mode": "hybrid", "retrieval.k": 3}).search
    top = search("When did we first meet lady kima?").hits[0]
    assert top.chunk.session == 2 and top.ranks["first_mention"] == 1
    assert all("first_mention" not in h.scores for h in search("When did we first meet the tanner?").candidates)


def test_first_mention_keeps_to_the_session_cap_and_to_first_time_questions(kima):
    capped = kima.with_settings({"retrieval.mode": "hybrid"}).search(
        "When did we first meet Lady Kima?", filters=Filters(session_max=1)
    )
    assert capped.hits and all(h.chunk.session == 1 or h.chunk.session is None for h in capped.hits)
    assert all("first_mention" not in h.scores for h in capped.candidates)  # she is not in session 1
    for question in ("Who is Lady Kima?", "What did Kima do first in the council?"):
        candidates = kima.with_settings({"retrieval.mode": "hybrid"}).search(question).candidates
        assert candidates and all("first_mention" not in h.scores for h in candidates)


def test_equal_scores_share_a_rank_in_the_fusion():
    """Two passages of a two-passage note have the same context window and score: the engine's order between
    them must not decide the fused ranking."""
    a, b, c = (Chunk(campaign="t", source="S.md", position=i, text=f"passage {i}", name=f"S {i}") for i in range(3))
    fused = rrf({"context": [(a, 2.0), (b, 2.0), (c, 1.0)]}, 10, {"context": 1.0})
    assert fused[a.id] == fused[b.id] == pytest.approx(1 / 11) and fused[c.id] == pytest.approx(1 / 13)


def test_a_stage_lists_tied_passages_in_story_order_whatever_order_the_engine_gave():
    """The embedded engine's keyword search ordered tied passages differently from one process to the next, and a
    passage's rank in a stage is one of the reranker's features: one FairytaleQA question changed its confidence
    between two runs of the same code. Ties now come in story order, so every run ranks alike."""
    a, b, c = (Chunk(campaign="t", source="S.md", position=i, text=f"passage {i}", name=f"S {i}") for i in range(3))
    once = in_story_order_when_tied([(b, 2.0), (c, 3.0), (a, 2.0)])
    again = in_story_order_when_tied([(a, 2.0), (b, 2.0), (c, 3.0)])
    assert [chunk.position for chunk, _ in once] == [chunk.position for chunk, _ in again] == [2, 0, 1]


def test_which_tied_passage_takes_the_last_place_does_not_depend_on_the_engines_order():
    """An engine returns tied passages in the order they were written into it: a campaign synced in two steps put
    another of two tied passages in the last place than the same notes indexed at once. The last place goes to the
    earlier in the story, however long the tie runs past it."""
    from rag.search.retrieval import best_with_ties_in_story_order

    chunks = [Chunk(campaign="t", source="S.md", position=i, text=f"passage {i}", name=f"S {i}") for i in range(8)]

    def engine(written: list[int]):
        results = [(chunks[0], 3.0)] + [(chunks[i], 2.0) for i in written] + [(chunks[7], 1.0)]
        return lambda n: results[:n]

    synced, whole = engine([6, 5, 4, 3, 2, 1]), engine([1, 2, 3, 4, 5, 6])
    for limit in (1, 2, 3, 7, 8, 20):
        kept = [[c.position for c, _ in best_with_ties_in_story_order(e, limit)] for e in (synced, whole)]
        assert kept[0] == kept[1] == [0, 1, 2, 3, 4, 5, 6, 7][:limit]


def test_a_scene_retelling_an_earlier_session_counts_for_less():
    """ "Previously on…", "Last Session Recap" and "Session 3 Recap" retell what happened before their session; the scene where it
    happened says it too, so at equal scores it comes first (``retrieval.retold_weight``). "Who is X?" is not
    about when: a retelling may say what X is as well as any passage."""
    from rag.question import read_question
    from rag.search.structure import reweigh

    told = Chunk("c", "Session 3.md", 0, "Grog smashes the patrol.", "Session 3 · The Mines", "The Mines", session=3)
    previously = Chunk(
        "c", "Session 4.md", 0, "Grog smashes the patrol.", "Session 4 · Previously", "Previously on", session=4
    )
    recap = Chunk("c", "Session 4.md", 1, "Grog smashes the patrol.", "Session 4 · Recap", "Session 3 Recap", session=4)
    boxed = Chunk(  # an admonition box's title (rag.ingest.blocks)
        "c", "Session 4.md", 2, "Grog smashes the patrol.", "Session 4 · Last", "Last Session Recap", session=4
    )
    chunks = {c.id: c for c in (told, previously, recap, boxed)}
    config = load_config().retrieval
    fused = {c.id: 1.0 for c in chunks.values()}
    weighed, _ = reweigh(read_question("When did Grog smash the patrol?"), fused, chunks, config, None)
    retold = config.retold_weight
    assert weighed == {told.id: 1.0, previously.id: retold, recap.id: retold, boxed.id: retold} and retold < 1
    asked_who, _ = reweigh(read_question("Who is Grog?"), fused, chunks, config, None)
    assert asked_who == fused


def test_asked_in_the_party_s_voice_the_evening_s_own_business_counts_for_less():
    """ "What reward did we get?" asks about the characters' story; the show's announcements ("the reward is an
    exclusive tabletop promo kit"), the break and the questions to the cast tell what the players did that evening,
    so they count for less (``retrieval.table_talk_weight``). "Who plays Grog?" asks about the table, and the plans
    for next session are the party's own: both count in full."""
    from rag.question import read_question
    from rag.search.structure import reweigh

    story = Chunk("c", "Session 3.md", 0, "Allura offers a reward.", "Session 3 · The Keep", "The Keep", session=3)
    show = Chunk("c", "Session 3.md", 1, "The reward is a promo kit.", "Session 3 · Ann", "Announcements", session=3)
    cast = Chunk("c", "Session 3.md", 2, "Kima's player answers.", "Session 3 · Q&A", "Q&A", session=3)
    plans = Chunk("c", "Session 3.md", 3, "We will ask for a reward.", "Session 3 · Next", "Next Session", session=3)
    chunks = {c.id: c for c in (story, show, cast, plans)}
    config = load_config().retrieval
    fused = {c.id: 1.0 for c in chunks.values()}
    weighed, _ = reweigh(read_question("What reward did we get?"), fused, chunks, config, None)
    less = config.table_talk_weight
    assert weighed == {story.id: 1.0, show.id: less, cast.id: less, plans.id: 1.0} and less < 1
    asked_of_the_table, _ = reweigh(read_question("Who plays Grog?"), fused, chunks, config, None)
    assert asked_of_the_table == fused


THIRD_PERSON = {  # the party told of as "the party"; the only "us" is a character's, quoted
    "Session 1.md": '# Session 1\n## The map\nClarota gave the party a map.\n## The shout\nGrog shouts "Nostoc gave us a map!"\n'
    + "".join(f"## Hour {n}\nThe party walks the tunnel past a lantern and rests.\n" for n in range(60)),
}
DIARY = {"Session 1.md": "# Session 1\n- We met Clarota and he gave us a map.\n- Our rogue sneaks ahead of us.\n"}


@pytest.mark.parametrize("engine", ["qdrant", "edge"])
def test_asked_in_the_party_s_voice_the_meaning_search_reads_the_notes_voice(tmp_path, engine):
    """Notes that tell of the party in the third person never answer "us": "Who gave us a map?" means "Who gave the
    party a map?" there (``retrieval.party_voice``), so the passage telling it comes first, not a character's shout.
    Off, the shout comes first (this embedder counts shared words)."""
    p = indexed(tmp_path, engine, THIRD_PERSON, "t")
    try:
        dense = {"retrieval.mode": "dense", "retrieval.query_expansion": False}
        assert p.aliases("t").we_per_thousand < p.config.retrieval.third_person_below
        assert "Clarota gave the party" in p.with_settings(dense).search("Who gave us a map?").hits[0].chunk.text
        off = p.with_settings({**dense, "retrieval.party_voice": False}).search("Who gave us a map?")
        assert "Nostoc gave us" in off.hits[0].chunk.text
    finally:
        p.close()


def test_a_diary_keeps_the_party_s_voice(tmp_path):
    """Notes that say "we" answer "us" in their own words: the question is searched as asked."""
    from rag.campaign.voice import we_per_thousand
    from rag.question import told_of_the_party

    p = indexed(tmp_path, "edge", DIARY, "d")
    try:
        assert p.aliases("d").we_per_thousand > p.config.retrieval.third_person_below
    finally:
        p.close()
    assert we_per_thousand(["We met Clarota.", "Grog and Vex walk on."]) == 1000 / 8
    assert told_of_the_party("Where did we sleep? What's our plan? We're lost, we've won") == (
        "Where did the party sleep? What's the party's plan? the party is lost, the party has won"
    )


def test_the_same_words_twice_take_one_place(tmp_path):
    """A vault holding one note three times ("notes missing" copied into Sessions 21 to 23) filled three of the
    player's places with the same words; the best copy stays and the places below move up."""
    missing = "# Notes\n- Session data missing: Harshnag lost a leg to the frost giants near the glacier.\n"
    notes = {"Session 21.md": missing, "Session 22.md": missing, "Session 23.md": missing}
    notes["Session 24.md"] = "# Notes\n- Harshnag and the party reach the Eye of the All-Father at last.\n"
    p = indexed(tmp_path, "edge", notes, "t")
    try:
        hits = p.with_settings({"retrieval.mode": "keyword", "retrieval.k": 5}).search("harshnag leg").hits
    finally:
        p.close()
    assert [h.chunk.session for h in hits] == [21, 24]
    assert [h.rank for h in hits] == [1, 2] and [h.ranks["first_stage"] for h in hits] == [1, 2]
