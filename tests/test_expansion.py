from rag.models import Chunk, Hit
from rag.search.aliases import AliasTable


def chunk(text, entities, aliases):
    return Chunk(campaign="t", source="a.md", position=0, text=text, name="a", entities=entities, aliases=aliases)


def test_alias_table_from_links():
    table = AliasTable.from_chunks(
        [
            chunk("The Keeper spoke.", ("Osiris",), (("the Keeper", "Osiris"),)),
            chunk("Pike healed.", ("Pike Trickfoot",), (("Pike", "Pike Trickfoot"),)),
            chunk("Duergar!", ("Duergar",), (("duergar", "Duergar"),)),  # case-only: not an alias
            chunk("He ran.", ("Grog",), (("He", "Grog"),)),  # too short to trust
        ]
    )
    assert table.names == {"Osiris": ["Osiris", "the Keeper"], "Pike Trickfoot": ["Pike Trickfoot", "Pike"]}
    assert table.expand("What did the keeper tell Pike?") == ["Osiris", "Pike Trickfoot"]
    assert table.expand("When did we meet Osiris?") == ["the Keeper"]
    assert table.expand("Who is Pikeman?") == []  # whole words only
    assert AliasTable.from_names(table.names).expand("the KEEPER") == ["Osiris"]


def ranked(texts: list[str]) -> list[Hit]:
    """The texts as one question's hits, best first."""
    return [
        Hit(Chunk(campaign="t", source=f"S{i}.md", position=0, text=t, name=f"S{i}"), 1.0 / (i + 1), i + 1)
        for i, t in enumerate(texts)
    ]


def test_feedback_adds_the_words_that_set_the_best_passages_apart():
    from rag.expanders.vault import feedback

    texts = [
        "The ship is carrying a secret cargo of fantasy LSD.",
        "Our ship docks and the cargo is unloaded at night.",
        "The captain of the ship hides the cargo below deck.",
        *(f"The party rests at inn number {i} and buys rope at the market." for i in range(12)),
    ]
    found = ranked(texts)
    phrasing = feedback("What contraband was the boat hauling?", found)
    assert phrasing.startswith("What contraband was the boat hauling? ")
    added = phrasing.split("? ", 1)[1].split()
    assert added[:2] == ["ship", "cargo"] and "party" not in added and "the" not in added
    assert feedback("What contraband was the boat hauling?", found[:3]) == ""  # too little to tell apart


def test_feedback_never_adds_a_name_the_question_did_not_ask_about():
    """The three best passages are about Ras Nsi, not about what saved Xandala: their common words may help,
    his name would pull the whole search to him."""
    from rag.expanders.vault import feedback

    texts = [
        "Xandala warns the cousins that Ras Nsi sent his undead army against Mezro.",
        "In the dream Ras Nsi speaks of Mezro and the undead army he raised.",
        "Morgan asks whether Ras Nsi still wants Mezro, and the undead army answers.",
        *(f"The party rests at inn number {i} and buys rope at the market." for i in range(12)),
    ]
    found = ranked(texts)
    added = feedback("What saved Xandala when the undead ape nearly killed her?", found).split("? ", 1)[1].split()
    assert "army" in added
    assert not {"ras", "nsi", "mezro", "morgan", "xandala"} & set(added)
