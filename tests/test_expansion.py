from rag.campaign.aliases import AliasTable
from rag.models import Chunk, Hit
from rag.question import read_question


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


def test_a_curled_apostrophe_is_the_one_a_player_types():
    """Notes written on a phone curl apostrophes; a player types them straight, and either way it is one name."""
    table = AliasTable.from_chunks(
        [
            chunk("They sail to Ank’Harel.", ("Ank’Harel",), (("the City of Ank’Harel", "Ank’Harel"),)),
            chunk("Ank'Harel again.", (), (("Ank'Harel", "Ank’Harel"),)),  # the same name typed straight
        ]
    )
    assert table.names == {"Ank’Harel": ["Ank’Harel", "the City of Ank’Harel"]}
    assert table.expand("When did we reach the city of Ank'Harel?") == ["Ank’Harel"]


def test_a_saved_table_keeps_the_notes_voice_and_one_saved_before_it_is_read_again(tmp_path):
    """The table is kept beside the store; one saved before it knew how often the notes say "we", or which words
    they capitalise, or by a version that read the notes otherwise, is stale: the campaign's passages are read
    again rather than every question taken as asked of a diary."""
    import json

    table = AliasTable.from_chunks([chunk("We met the Keeper. He gave us a map, and Grog took it.", ("Osiris",), ())])
    assert table.we_per_thousand == 2000 / 13 and table.cased["grog"] is True
    table.save(tmp_path / "aliases.json", count=1)
    kept = AliasTable.load(tmp_path / "aliases.json", count=1)
    assert kept.we_per_thousand == table.we_per_thousand and kept.cased == table.cased
    saved = json.loads((tmp_path / "aliases.json").read_text(encoding="utf-8"))
    for stale in ({"we_per_thousand": None}, {"cased": None}, {"format": saved["format"] - 1}):
        old = {k: v for k, v in (saved | stale).items() if v is not None}
        (tmp_path / "aliases.json").write_text(json.dumps(old), encoding="utf-8")
        assert AliasTable.load(tmp_path / "aliases.json", count=1) is None, stale


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
    phrasing = feedback(read_question("What contraband was the boat hauling?"), found)
    assert phrasing.startswith("What contraband was the boat hauling? ")
    added = phrasing.split("? ", 1)[1].split()
    assert added[:2] == ["ship", "cargo"] and "party" not in added and "the" not in added
    assert feedback(read_question("What contraband was the boat hauling?"), found[:3]) == ""  # too little to tell apart


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
    added = (
        feedback(read_question("What saved Xandala when the undead ape nearly killed her?"), found)
        .split("? ", 1)[1]
        .split()
    )
    assert "army" in added
    assert not {"ras", "nsi", "mezro", "morgan", "xandala"} & set(added)


def test_a_phrasing_adds_to_what_the_question_found_and_never_replaces_its_scores():
    """A passage that the question and its phrasing both find moves above one only the question found; the stage
    scores the reranker reads stay the question's own, and a passage only the phrasing found has none of them."""
    from rag.search.retrieval import with_phrasings

    def hit(name, score, rank, stages):
        c = Chunk(campaign="t", source=f"{name}.md", position=0, text=name, name=name)
        return Hit(c, score, rank, {**stages, "fused": score}, {s: rank for s in stages})

    asked = [hit("a", 0.50, 1, {"keyword": 2.0}), hit("b", 0.45, 2, {"keyword": 1.8})]
    longer = [hit("b", 0.60, 1, {"keyword": 9.0}), hit("c", 0.55, 2, {"keyword": 8.5})]  # more words, higher BM25
    merged = with_phrasings([asked, longer], weight=0.2)
    assert [h.chunk.name for h in merged] == ["b", "a", "c"]
    b, a, c = merged
    assert b.score == 0.45 + 0.2 * 0.60 and b.scores["keyword"] == 1.8 and b.scores["expansion"] == 0.2 * 0.60
    assert a.scores == {"keyword": 2.0, "fused": 0.50} and a.score == 0.50
    assert "keyword" not in c.scores and c.scores["expansion"] == c.score == 0.2 * 0.55
    assert [h.rank for h in merged] == [h.ranks["first_stage"] for h in merged] == [1, 2, 3]


# What the demo's notes make of the alias table, for each format: a change to how the table reads the notes changes
# the digest, and a player's saved table would then be trusted though it was read otherwise
TABLE_DIGESTS = {2: "bed450d0b07c8d8e", 3: "9a6e587f55fb99a0"}


def test_a_table_read_otherwise_has_a_format_of_its_own():
    """``aliases.FORMAT`` is what makes a saved table be read again after an upgrade. Nothing but this test notices
    when the counting changes and the format does not: raise ``FORMAT`` and pin the new digest beside the old."""
    import hashlib
    import json
    from pathlib import Path

    from rag.campaign import aliases

    notes = sorted((Path(__file__).resolve().parent.parent / "data" / "demo" / "notes").rglob("*.md"))
    assert len(notes) >= 10
    links = [chunk("The Keeper spoke.", ("Osiris",), (("the Keeper", "Osiris"),))]
    table = AliasTable.from_chunks([chunk(n.read_text(encoding="utf-8"), (), ()) for n in notes] + links)
    read = {
        "names": table.names,
        "spellings": table.spellings.names,
        "we_per_thousand": round(table.we_per_thousand, 6),
        "cased": table.cased,
    }
    digest = hashlib.sha256(json.dumps(read, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    assert len(set(TABLE_DIGESTS.values())) == len(TABLE_DIGESTS), "two formats that read the notes alike"
    assert TABLE_DIGESTS.get(aliases.FORMAT) == digest, (
        f"the alias table reads the demo's notes otherwise than format {aliases.FORMAT} did (digest {digest}): "
        "raise aliases.FORMAT and add the digest under it"
    )
