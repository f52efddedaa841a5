"""Word stems: the keyword overlap of the answerer, the citation check and the reranker's features read words the
same way, through the Snowball stemmer (``rag.names.stem``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from rag.names import content_words, stem


def test_forms_of_a_word_meet_and_different_words_stay_apart():
    assert content_words("The parties died") == content_words("a party dying")
    assert stem("named") == stem("names") == stem("name")
    assert stem("gave") != stem("given")  # a verb's irregular forms are read by lemma (rag.question.who.base)
    assert stem("plan") != stem("planes")
    assert stem("grog's") == stem("grog")


def test_players_asking_at_once_get_the_same_stems():
    """The app answers several players in threads, and a Snowball stemmer keeps its word in its own fields while it
    works: each thread has its own. (``__wrapped__``: the stemmer itself, not the cache in front of it.)"""
    words = [f"{w}{suffix}" for w in ("hunt", "fight", "cast", "heal", "search") for suffix in ("", "s", "ed", "ing")]
    words += [f"word{i}ings" for i in range(3000)]
    alone = [stem.__wrapped__(w) for w in words]
    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(stem.__wrapped__, words))
    assert together == alone
