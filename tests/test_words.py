"""Word forms from maintained packages: the keyword overlap of the answerer, the citation check and the reranker's
features read words the same way, through the Snowball stemmer (``rag.names.stem``); a thing a question names is
found in either number by lemminflect's noun forms (``rag.names.noun_forms``), and its verb by lemma
(``rag.question.who.base``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from rag.generators._amounts import amount_in
from rag.generators._who import given_as_owner, says_asked_verb
from rag.names import content_words, names, noun_forms, read_words, stem
from rag.question import read_question
from rag.question.who import base


def test_forms_of_a_word_meet_and_different_words_stay_apart():
    assert content_words("The parties died") == content_words("a party dying")
    assert stem("named") == stem("names") == stem("name")
    assert stem("gave") != stem("given")  # a verb's irregular forms are read by lemma (rag.question.who.base)
    assert stem("plan") != stem("planes")
    assert stem("grog's") == stem("grog")


def test_a_word_misspelt_at_the_table_reads_as_the_word_meant_and_a_name_as_written():
    """Notes are typed during play: "warewolf", "captian". A passage's word no dictionary knows, one letter from one,
    also reads as that word; the question's words, and names (capitalised), stay as typed."""
    assert stem("werewolf") in read_words("Sumrak was turned into a warewolf by Kiril")
    assert {stem("captain"), stem("caption")} <= read_words("the captian of the guard")
    assert stem("werewolf") not in content_words("a warewolf")  # the question's side, and what evaluation counts
    assert stem("strand") not in read_words("Strahd flies away")  # a name, not "strand" misspelt
    assert read_words("the harbour lift") == content_words("the harbour lift")  # short words: "lift" / "left"
    assert read_words("a werewolf howls") == content_words("a werewolf howls")  # a word of the dictionary


def test_players_asking_at_once_get_the_same_stems():
    """The app answers several players in threads, and a Snowball stemmer keeps its word in its own fields while it
    works: each thread has its own. (``__wrapped__``: the stemmer itself, not the cache in front of it.)"""
    words = [f"{w}{suffix}" for w in ("hunt", "fight", "cast", "heal", "search") for suffix in ("", "s", "ed", "ing")]
    words += [f"word{i}ings" for i in range(3000)]
    alone = [stem.__wrapped__(w) for w in words]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(stem.__wrapped__, words))
    assert together == alone


def test_a_thing_asked_about_is_found_in_either_number():
    assert {"elf", "elves"} <= noun_forms("elves") and {"party", "parties"} <= noun_forms("party")
    assert {"dwarf", "dwarves"} <= noun_forms("dwarves") and {"mouse", "mice"} <= noun_forms("mice")
    assert {"halfling", "halflings"} <= noun_forms("halflings")  # a word the dictionary does not know: its rules
    assert given_as_owner("elves", "Vex", "Vex's elf guards the gate")
    assert given_as_owner("party", "Grog", "the parties of Grog were loud")
    assert amount_in(read_question("How many dwarves were there?"), "We met three dwarves and a gnome") == "three"
    assert amount_in(read_question("How many dwarves were there?"), "one dwarf and three gnomes guarded it") == "one"


def test_any_number_word_counts_what_follows_it():
    """A head count is written in words of every size, and with the nouns that count ("a pair of"); the noun must
    follow the number, so "a pair of gloves" counts no guards."""
    guards = read_question("How many guards were there?")
    assert amount_in(guards, "Fifteen guards stood by the gate") == "Fifteen"
    assert amount_in(guards, "twenty-three guards stood by the gate") == "twenty-three"
    assert amount_in(guards, "a couple of the guards stood by the gate") == "a couple"
    assert amount_in(guards, "half a dozen guards stood by the gate") == "half a dozen"
    assert amount_in(guards, "He sold a pair of gloves to the guards") is None
    hulks = read_question("How many umber hulks did we fight?")
    assert amount_in(hulks, "the encounter with a pair of umber hulks") == "a pair"


def test_a_verb_is_read_by_its_lemma_and_a_role_by_the_verb_it_names():
    assert base("gave") == base("given") == base("gives") == "give"
    assert base("married") == "marry" and base("yeeted") == "yeet"  # the dictionary's, then its rules
    assert says_asked_verb(read_question("Who rules Kraghammer?"), "The king of the dwarves is old and sick.")
    assert not says_asked_verb(read_question("Who rules Kraghammer?"), "The dwarves of the city are old and sick.")


def test_a_name_is_searched_whole_with_its_particles_and_abbreviated_title():
    """ "Who is Valentina von Zapp?" searched "Valentina" and "Zapp", and "Who is Prof. Mink?" "Prof" and "Mink":
    a name holds lower-case particles and opens with a title whose period ends no sentence. A period that does end
    one still cuts two names apart."""
    assert read_question("Who is Valentina von Zapp?").names == ("Valentina von Zapp",)
    assert read_question("Who is Prof. Mink?").names == ("Prof. Mink",)
    assert read_question("What did Ludwig van der Berg sell to Mr. Durst?").names == (
        "Ludwig van der Berg",
        "Mr. Durst",
    )
    assert read_question("What's the Heart of the Wild?").names == ("Heart of the Wild",)
    assert names("We met Kima. Grog was angry.") == ["We", "Kima", "Grog"]
