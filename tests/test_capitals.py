"""Which words a campaign writes as names (``rag.campaign.capitals``): what a question typed without capitals is
read with, so "did grog get the greatsword?" names Grog where the notes capitalise him, and no Greatsword."""

from rag.campaign.capitals import Capitals
from rag.question import read_question

NOTES = [
    "The party meets Grog at the inn. Later, Grog and Pike find a greatsword in the hoard.",
    "- Grog swings the greatsword at the troll, and Pike heals him. The greatsword breaks.",
    "Clay is what the golem is made of, and the party digs clay from the riverbank.",
]


def test_the_notes_say_which_words_are_names():
    cased = Capitals.count(NOTES).as_written()
    assert cased["grog"] is True and cased["pike"] is True  # everyday words, but the notes' names
    assert cased["greatsword"] is False  # no everyday word list knows it; the notes write it in lower case
    # an everyday word in lower case (a sentence's first word says nothing): left to the word list
    assert "clay" not in cased
    assert "party" not in cased and "the" not in cased  # everyday words in lower case tell nothing new


def test_a_title_says_nothing_of_names():
    """A heading capitalises its every word: "The Day of the Raid" makes no name of "raid"."""
    cased = Capitals.count(
        ["The Day of the Raid\nA man runs into town, mortally wounded by Grog.", "Lesser Restoration"]
    )
    assert "raid" not in cased.as_written() and "restoration" not in cased.as_written()
    assert cased.as_written()["grog"] is True


def test_a_question_typed_without_capitals_reads_the_campaigns_names():
    cased = Capitals.count(NOTES).as_written()
    asked = read_question("did grog get the greatsword?", cased)
    assert asked.names == ("Grog",) and asked.asked_names == ("Grog",)
    alone = read_question("did grog get the greatsword?")  # from its text alone, as before the campaign is known
    assert alone.names == ("Greatsword",)
    assert read_question("who rules whitestone?", cased).asked_names == ("Whitestone",)  # the notes never say it
    assert read_question("Did grog get it?", cased).names == ()  # a capital says the player wrote the names
