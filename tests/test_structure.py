"""Session notes and reference pages (rag/search/structure.py), on both engines, with the fake embedder:
pages count for less when a question asks what happened, "Who is X?" gets the session passage saying who X is
first (or X's own page), and a page
that matches lends its score to the session passages that link it, within the search's own filters."""

import pytest

from rag.models import Filters
from rag.question import read_question
from tests.test_retrieval import indexed

VAULT = {
    "NPCs/Aremag.md": "# Aremag\nAn old dragon turtle of the harbour who demands a toll from every ship.\n",
    "NPCs/Ras Nsi.md": "# Character Profile\n## Personality\nA fallen prince, proud and cruel, who wants his "
    "city back.\n",
    "Session 1.md": "# Session Start\n## The Harbour\n- The party sails into the harbour at dawn and sells "
    "the cargo.\n",
    "Session 2.md": "# Session Start\n## Paying up\n- We paid [[Aremag]] forty gold so he would leave us alone.\n",
    "Session 3.md": "# Session Start\n## Again\n- [[Aremag]] came back and asked for more.\n",
    "Session 4.md": "# Session Start\n## The Toll\n- At the harbour a dragon turtle stopped our ship.\n",
}
TOLL = "How much did we pay to get the dragon turtle off our backs?"


@pytest.fixture(params=["qdrant", "edge"])
def vault(request, tmp_path):
    p = indexed(tmp_path, request.param, VAULT, "s")
    yield p
    p.close()


def sources(result) -> list[str]:
    return [h.chunk.source for h in result.hits]


def test_a_matching_page_lends_its_score_to_the_sessions_that_link_it(vault):
    result = vault.search(TOLL)
    linked = {h.chunk.source: h for h in result.hits if "links" in h.scores}
    assert {"Session 2.md", "Session 3.md"} <= set(linked)  # they share no word of the question with it
    assert linked["Session 2.md"].scores["links"] > 0
    off = vault.with_settings({"retrieval.link_weight": 0}).search(TOLL)
    assert all("links" not in h.scores for h in off.candidates)


def test_links_stay_within_the_filters(vault):
    capped = vault.search(TOLL, filters=Filters(session_max=2))
    assert "Session 2.md" in sources(capped)
    assert all(h.chunk.session is None or h.chunk.session <= 2 for h in capped.candidates)


def test_pages_count_for_less_when_the_question_asks_what_happened(vault):
    question = "What did the old dragon turtle demand from every ship?"
    equal = vault.with_settings({"retrieval.reference_weight": 1.0, "retrieval.link_weight": 0}).search(question)
    ruled = vault.with_settings({"retrieval.link_weight": 0}).search(question)
    assert sources(equal)[0] == "NPCs/Aremag.md"  # the short page with every word wins on its own
    assert sources(ruled)[0] == "Session 4.md" and "NPCs/Aremag.md" in sources(ruled)
    page = next(h for h in ruled.candidates if h.chunk.source == "NPCs/Aremag.md")
    same = next(h for h in equal.candidates if h.chunk.source == "NPCs/Aremag.md")
    assert page.scores["fused"] == pytest.approx(same.scores["fused"] / 2)


PAGED = {
    "NPCs/Soggy Wren.md": "# Soggy Wren\nSoggy Wren. Agent of the Harpers in the port. Drinks.\n",
    "Session 1.md": "# Session Start\n## Docks\n- At the docks we meet a drunk Harper agent, named Soggy Wren.\n",
    "Session 2.md": "# Session Start\n## Letters\n- Soggy Wren sends Soggy Wren's letter to the port.\n",
}


@pytest.mark.parametrize("engine", ["qdrant", "edge"])
def test_who_is_x_gets_the_session_passage_saying_who_x_is_before_xs_page(tmp_path, engine):
    """The notes tell who X is in the story where the party met X; X's page says it without the story, and the
    passages players point to for "Who is X?" are session passages (docs/experiments/README.md). The page comes
    next: its line is what the answer leads with."""
    notes = indexed(tmp_path, engine, PAGED, "w")
    try:
        top = [h.chunk.source for h in notes.search("Who is Soggy Wren?").hits[:2]]
        assert top == ["Session 1.md", "NPCs/Soggy Wren.md"]  # the page right after, for the answer's first line
        paged = notes.with_settings({"retrieval.subject_first": "page"}).search("Who is Soggy Wren?")
        assert paged.hits[0].chunk.source == "NPCs/Soggy Wren.md"
    finally:
        notes.close()


def test_who_is_x_gets_xs_own_page_first_named_by_its_file(vault):
    top = vault.with_settings({"retrieval.subject_first": "page"}).search("Who is Ras Nsi?").hits[0]
    assert top.chunk.source == "NPCs/Ras Nsi.md"
    assert top.chunk.name == "Ras Nsi · Personality"  # not "Character Profile", the template's heading
    assert top.chunk.text.startswith("Ras Nsi\nCharacter Profile\nPersonality")  # the name is searchable
    assert not read_question("What did Ras Nsi do in the city?").definition
    assert read_question("Who's Aremag?").definition and read_question("what are the Harpers").definition
    assert not read_question("What is the name of the ship we sold?").definition


def test_keyword_mode_is_left_alone(vault):
    result = vault.with_settings({"retrieval.mode": "keyword"}).search(TOLL)
    assert all("links" not in h.scores and "fused" not in h.scores for h in result.candidates)


AVANTIKA = {
    "Session 36.md": "# Session Start\n## Interrogation\n- Avantika, Avantika, Avantika: the crew only ever talks of "
    "Avantika and her orb.\n",
    "Session 37.md": "# Session Start\n## The Cabin\n- The party drinks on deck and Fjord sleeps badly.\n"
    "- Avantika is the chosen of the great leviathan and intends to free him from the sea floor.\n",
    "Session 38.md": "# Session Start\n## The Temple\n- Avantika is knocked out by the gas. Avantika wakes up "
    "and Avantika swims to shore.\n",
}


INTRODUCED = {
    "Session 2.md": "# Session Start\n## The Mine\n- The goblins whisper of Clarota, and Clarota's name scares them.\n",
    "Session 3.md": "# Session Start\n## The Crevasse\n- Vex finds a figure curled in a ball in the alcove, a "
    "scarred, desperate creature. Revenge interests the illithid, named Clarota, and he agrees to meet their allies.\n",
    "Session 4.md": "# Session Start\n## The Plan\n- Clarota warns Clarota's new friends about the lake, and Clarota "
    "suggests they attack the camp, since Clarota knows it.\n",
}

RELATIVE = {  # a relative clause says what X is: "X, who is a…"
    "Session 11.md": "# Session Start\n## The Camp\n- We arrive in the Vistani camp at dusk. We meet Gell Wiildheart "
    "who is a berzerker from the northern clans.\n",
    "Session 21.md": "# Session Start\n## After the Ritual\n- Gell Wiildheart holds up the axe, and Gell Wiildheart "
    "cheers while Gell Wiildheart's folk dance.\n",
}


@pytest.mark.parametrize("engine", ["qdrant", "edge"])
@pytest.mark.parametrize(
    "vault, question, source, otherwise",
    [
        (AVANTIKA, "Who is Avantika?", "Session 37.md", ("What did Avantika do in the temple?", "Session 38.md")),
        (INTRODUCED, "Who is Clarota?", "Session 3.md", ("What did Clarota suggest about the camp?", "Session 4.md")),
        (RELATIVE, "Who's Gell Wiildheart?", "Session 11.md", ("What did Gell Wiildheart hold up?", "Session 21.md")),
    ],
    ids=["says-what-x-is", "introduces-x", "who-is-a"],
)
def test_who_is_x_without_a_page_gets_the_passage_saying_what_x_is_first(
    tmp_path, engine, vault, question, source, otherwise
):
    """No page for X: the passage whose sentence starts by saying what X is ("Avantika is the chosen of…"), else
    the one introducing X ("the illithid, named Clarota") or saying it in a relative clause ("Gell Wiildheart who
    is a berzerker"; asked "Who's…?" as players type it), comes first, not the ones that only name X more often
    ("is knocked out" says what happened to her, not what she is)."""
    notes = indexed(tmp_path, engine, vault, "a")
    try:
        plain = notes.with_settings({"retrieval.subject_first": "off"}).search(question)
        assert plain.hits[0].chunk.source != source  # mentions win on words alone
        assert notes.search(question).hits[0].chunk.source == source
        asked, where = otherwise  # not "Who is": no rule
        assert notes.search(asked).hits[0].chunk.source == where
    finally:
        notes.close()


CAST = {
    "Session 1.md": "# Session Start\n## Announcements\n- The cast introduce themselves:\n"
    + "".join(
        f"- {p} plays {c}, the {r}.\n"
        for p, c, r in [
            ("Travis", "Grog", "goliath barbarian"),
            ("Laura", "Vex", "half-elven ranger"),
            ("Liam", "Vax", "rogue"),
        ]
    ),
    **{
        f"Session {n}.md": f"# Session Start\n## Fight {n}\n- Grog rages. Grog swings at the ogre and Grog falls.\n"
        f"- Not getting anywhere with Grog, the party interrogates the ogre.\n"
        for n in range(2, 30)
    },
}


def cast_list_found(tmp_path, vault: dict[str, str], question: str) -> tuple[int, str]:
    """Where the search puts the cast list (Session 1) among 50 candidates without ``retrieval.subject_first``, and
    the note of its first passage with it."""
    notes = indexed(tmp_path, "edge", vault, "g")
    try:
        deep = notes.with_settings({"retrieval.candidates": 50})
        plain = deep.with_settings({"retrieval.subject_first": "off"}).search(question)
        first = deep.search(question).hits[0]
        return [h.chunk.source for h in plain.candidates].index("Session 1.md"), first.chunk.source
    finally:
        notes.close()


def test_who_is_x_finds_where_the_notes_say_in_passing_what_x_is_however_far_down(tmp_path):
    """A cast list says "Grog, the goliath barbarian." once, and 28 fights name Grog three times each: the cast
    list is searched among every candidate, not only the best 20. "Grog, the party interrogates…" is no
    description: a clause ends there."""
    unruled, first = cast_list_found(tmp_path, CAST, "Who is Grog?")
    assert unruled >= 20
    assert first == "Session 1.md"


def test_who_is_x_finds_the_passage_saying_what_x_is_under_xs_full_name(tmp_path):
    """Asked by one word, "Who is Scanlan?" is answered where the cast list writes the name in full ("Scanlan
    Shorthalt, the gnome bard."), as "Scanlan" says "Scanlan Shorthalt" anywhere else."""
    cast = {
        "Session 1.md": CAST["Session 1.md"] + "- Sam plays Scanlan Shorthalt, the gnome bard.\n",
        **{
            f"Session {n}.md": f"# Session Start\n## Fight {n}\n- Scanlan sings. Scanlan falls and Scanlan gets up.\n"
            for n in range(2, 30)
        },
    }
    unruled, first = cast_list_found(tmp_path, cast, "Who is Scanlan?")
    assert unruled >= 5  # not among the five shown without the rule
    assert first == "Session 1.md"
