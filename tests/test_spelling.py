"""Names spelt two ways in the notes ("Ellias" / "Elias"): keyword search finds both, ordinary words stay apart."""

import pytest

from rag.campaign.capitals import Capitals
from rag.campaign.spelling import Spellings, misspellings, misspelt, one_letter_away
from tests.test_retrieval import indexed

ELIAS = {
    "Session 16.md": "# Session Start\n## Camp\n- Valindra casts a spell of pain on Ellias, who collapses in the mud "
    "while Rodvan shouts for help.\n",
    "Session 17.md": "# Session Start\n## The Deal\n- Ash talks to Valindra about healing Elias. She accepts, but he "
    "needs to resign from the Red Wizards and give a written apology.\n",
    "Session 18.md": "# Session Start\n## Road\n- The party walks to the river and counts the blood on the road, "
    "which looks like a bloom of red flowers.\n",
}


def name_counts(texts) -> dict[str, int]:
    """The names the spelling stage respells (``AliasTable.from_chunks``)."""
    return Spellings.from_capitals(Capitals.count(texts)).names


def test_the_notes_names_are_the_words_they_capitalise():
    counts = name_counts(ELIAS.values())
    assert counts["ellias"] == 1 and counts["elias"] == 1
    assert counts["valindra"] == 1  # not counted where it opens a bullet
    assert "session" not in counts and "spell" not in counts and "healing" not in counts
    assert "the" not in counts  # a sentence's first word is capitalised whatever it is
    linked = name_counts(["Ash talks to [[Valindra]] about it. [[Elias]] waits. He sees *Ellias*."])
    assert linked == {"valindra": 1, "ellias": 1}  # a link is a name; a link opening a sentence is not counted


@pytest.mark.parametrize(
    "a, b",
    [
        ("koylan", "kolyan"),
        ("vallaki", "valaki"),
        ("marion lavorre", "marian lavorre"),
        ("highbearer vord", "high bearer vord"),
        ("harshnagg", "harshnag"),  # a last letter typed twice (vault-thread-pullers walk), no plural
    ],
)
def test_a_name_and_its_misspelling_are_one_name(a, b):
    assert misspelt(a, b) and misspelt(b, a)


@pytest.mark.parametrize(
    "a, b",
    [
        ("norda", "yorda"),  # a rhyme is another name
        ("slayer's take", "slayer's cake"),
        ("horn of orcus", "horns of orcus"),  # a plural, or another word
        ("esa manor", "esa minor"),  # two words of the dictionary: a house and a village
        ("dane", "dana"),  # short names one letter apart are often two people
        ("map 20220621082114", "map 20220621082141"),  # numbers are no name
        ("koylan", "kolyanov"),  # more than one letter apart
    ],
)
def test_names_that_only_look_alike_stay_apart(a, b):
    assert not misspelt(a, b)


def test_misspellings_are_found_among_many_names():
    names = ["koylan", "kolyan", "vallaki", "valaki", "norda", "yorda", "esa manor", "esa minor", "strahd"]
    assert sorted(misspellings(names)) == [("kolyan", "koylan"), ("valaki", "vallaki")]


def test_variants_are_other_spellings_of_names_one_letter_away():
    table = Spellings({"elias": 6, "ellias": 5, "knights": 3, "knight": 9, "princes": 2, "bloom": 2, "valindra": 9})
    assert table.variants("What did Valindra demand of Ellias?") == ["Elias"]
    assert table.variants("what did valindra demand of elias?") == ["Ellias"]  # lower case: the notes' names
    assert table.variants("Which Knight came?") == []  # a plural is not a misspelling (keyword search folds it)
    assert table.variants("What did the Princess say about the Blood?") == []  # different words, apart at the end
    assert table.variants("What did Ellias and Elias do?") == []  # both already asked
    others = Spellings({"karuki": 1, "dinna": 4, "mending": 3})  # a rhyme is another name; spells are words
    assert others.variants("What did Haruki and Zinna get for Sending?") == []
    assert "elias" in one_letter_away("ellias") and "ellias" in one_letter_away("elias")


def test_a_possessive_typed_without_its_apostrophe_is_the_name_it_owns_by():
    """ "Who is Haffyds father?" was answered "Adonis." (someone's father; the notes never name Haffyd's): read as
    typed, no passage named Haffyd's (vault-thread-pullers walk). A plural is no one's."""
    table = Spellings({"haffyd": 12, "cimber": 8})
    assert table.spelt_as("Who is Haffyds father?") == {"Haffyds": "Haffyd's"}
    assert table.spelt_as("Where are the Cimbers now?") == {}  # a family, before no noun
    assert table.spelt_as("Who is Haffyd's father?") == {}  # typed right


def test_a_name_the_notes_never_write_is_searched_as_the_one_that_sounds_the_same():
    table = Spellings({"velakki": 77, "vellaki": 2, "haskel": 30, "minda": 15, "sinda": 6, "strahd": 90, "manor": 4})
    assert table.variants("Where is Vallaki?") == ["Velakki"]  # three letters off, the most written of two
    assert table.variants("Why couldn't Haskell open the vault?") == ["Haskel"]  # one letter off, at the end
    assert table.variants("What did Strahd say?") == []  # the notes' own spelling
    assert table.variants("Why did the Monedo run?") == []  # the consonants of "Minda", not her two vowel sounds
    assert table.variants("Who lives in the Minor?") == []  # a word of the dictionary is no misspelt name
    assert table.variants("Who is Cinda?") == []  # sounds like "Sinda", but starts with another letter


def test_a_question_typed_without_capitals_shows_its_names_by_being_no_word():
    table = Spellings({"velakki": 77, "clarota": 20, "sleeps": 3})
    assert table.spelt_as("where is vallaki?") == {"vallaki": "Velakki"}
    assert table.spelt_as("who is clarrota?") == {"clarrota": "Clarota"}
    assert table.spelt_as("where did we sleep?") == {}  # a word of the dictionary is no name, in any case
    assert table.spelt_as("Where is the vallaki?") == {}  # the question's capitals say which words are names


def test_a_name_typed_without_the_marks_over_its_letters_is_the_notes_name():
    notes = ["We met Jurō at the gate, and later Jurō sent Shakäste to us. Then Kima and Dane left."]
    table = Spellings.from_capitals(Capitals.count(notes))
    assert table.spelt_as("Who is Juro?") == {"Juro": "Jurō"}  # four letters: short, but no guess
    assert table.spelt_as("who sent shakaste?") == {"shakaste": "Shakäste"}
    assert table.spelt_as("Who is Jurō?") == {}  # as the notes write it
    assert table.spelt_as("Who is Dana?") == {}  # a short name one letter off is another name
    plain = Spellings.from_capitals(Capitals.count(["Later Shakaste sent us north, and Shakaste paid."]))
    assert plain.spelt_as("Who is Shakäste?") == {"Shakäste": "Shakaste"}  # the other way round


@pytest.mark.parametrize("engine", ["qdrant", "edge"])
def test_a_question_spelling_a_name_one_way_finds_the_passage_spelling_it_the_other(tmp_path, engine):
    pipeline = indexed(tmp_path, engine, ELIAS, "e")
    try:
        question = "What was asked of Ellias?"
        found = pipeline.with_settings({"retrieval.mode": "keyword"}).search(question)
        assert found.variants["keyword"] == f"{question} Elias"
        assert any("resign" in h.chunk.text for h in found.hits)
        plain = pipeline.with_settings({"retrieval.mode": "keyword", "retrieval.spelling_variants": False})
        off = plain.search(question)
        assert off.variants["keyword"] == question
        assert not any("resign" in h.chunk.text for h in off.hits)
    finally:
        pipeline.close()


VELAKKI = {
    "Session 20.md": "# Session Start\n## Road\n- The party takes the wine cart north along the river road, past the "
    "burned mill and the old watchtower.\n",
    "Session 21.md": "# Session Start\n## Town of Velakki\n- Velakki is a walled town on the shore of Lake Zarovich, "
    "ruled by a burgomaster who holds a festival every week.\n",
    "Session 22.md": "# Session Start\n## Haskell\n- Haskell keeps the vault key. Haskel counts the gold at night, and "
    "nobody in Velakki trusts him.\n",
}


JURO = {
    "NPCs/Jurō.md": "# Jurō\nA rice merchant's son from Tochi, married to Gaoxing's daughter.\n",
    "Session 2.md": "# Session 2\n## The Wedding\n- Gaoxing married his daughter off to Jurō, a rice merchant's son, "
    "and Jurō paid the dowry in silk.\n- The party stayed for the feast at the inn.\n",
    "Session 3.md": "# Session 3\n## Road\n- We rode north along the river road to the castle.\n",
}


def test_a_name_asked_without_its_marks_is_answered_not_refused(tmp_path):
    pipeline = indexed(tmp_path, "edge", JURO, "j")
    try:
        answer = pipeline.answer("Who is Juro?")
        assert not answer.refused and "rice merchant" in answer.text
        assert answer.read_as == "Who is Jurō?" and answer.question == "Who is Juro?"
    finally:
        pipeline.close()


def test_a_question_naming_someone_the_notes_spell_otherwise_is_answered_as_they_spell_it(tmp_path):
    pipeline = indexed(tmp_path, "edge", VELAKKI, "v")
    try:
        misspelt, spelt = pipeline.answer("Where is Vallaki?"), pipeline.answer("Where is Velakki?")
        assert misspelt.respelt == {"Vallaki": "Velakki"} and misspelt.read_as == "Where is Velakki?"
        assert misspelt.question == "Where is Vallaki?"  # the player's words stay theirs
        assert not misspelt.refused and "Lake Zarovich" in misspelt.text
        assert misspelt.text == spelt.text and not spelt.respelt
        written = pipeline.answer("Who keeps the vault key, Haskell?")  # the notes write both spellings
        assert not written.respelt and written.read_as == written.question
        plain = pipeline.with_settings({"retrieval.spelling_variants": False}).answer("Where is Vallaki?")
        assert not plain.respelt and plain.read_as == "Where is Vallaki?"
    finally:
        pipeline.close()
