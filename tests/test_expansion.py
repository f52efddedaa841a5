from rag.models import Chunk
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
