"""One entity index behind every page: the Campaign page's "Most mentioned", People & places, "Seen with" and "Ask
about" are the same people, each once, and a name joins a person only where the notes say it is theirs.

The demo is read into the app (AppTest) and the two pages compared as a player sees them; the dev vaults, too big
to embed here, are read through the Pipeline's front door from the passages their notes are cut into."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import state as app_state
from app.story import ask_about, entities_frame, most_mentioned, page_opening
from rag.campaign.entities import Entity, resolve
from rag.config import load_config
from rag.ingest.indexing import prepare_chunks
from rag.models import Filters
from rag.pipeline import Pipeline
from tests.helpers import SHARED, start, write_notes
from tests.secret_vault import canaries_in, write_secret_vault

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"
VAULTS = {"demo": DEMO, "crd3": SHARED / "crd3-notes", "vault-toa": SHARED / "vault-toa"}


def table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_the_campaign_page_and_people_and_places_list_the_same_people_in_the_app(app_env):
    app_state.pipeline(load_config()).index(DEMO, "demo")
    app_state.changed()
    at = start("pages/home.py")
    top = table(at, "passages")
    at.switch_page("pages/people.py").run()
    people = table(at, "also called")
    assert list(top["name"]) == list(people["name"][: len(top)])
    assert list(top["passages"]) == list(people["passages"][: len(top)])
    names = list(people["name"])
    assert "Scanlan Shorthalt" in names and "Scanlan" not in names  # one entry, whatever the link says
    assert "Grog Strongjaw" in names and "Grog" not in names
    assert "Percival de Rolo" in names and "Percy" not in names
    percy = people.set_index("name").loc["Percival de Rolo"]
    assert "Percy" in percy["also called"] and "Bad News" not in percy["also called"]  # Bad News is his gun

    at.selectbox(key="entity").set_value("Keyleth").run()
    seen_with = next(m.value for m in at.markdown if m.value.startswith("**Seen with**"))
    assert "Percival de Rolo" in seen_with and "Percy" not in seen_with.replace("Percival de Rolo", "")
    at.button(key="ask_about").click().run()  # the chat asks about the entry's own name
    assert at.chat_message[0].markdown[0].value == "Who is Keyleth?"


def test_the_cast_the_app_keeps_is_read_per_view_and_session_cap_and_again_after_new_notes(app_env):
    """The app keeps each campaign's cast between reruns; a player's kept cast never serves the GM view or the
    other way round, an "as of session" cap has its own, and notes read since are in the next one."""
    config = load_config()
    vault = write_secret_vault(app_env / "vault")
    app_state.pipeline(config).index(vault, "secrets")
    app_state.changed()
    player = app_state.pipeline(config)
    assert resolve(player.entities("secrets"), "Nightbloom") is None
    assert canaries_in(str([vars(e) for e in player.cast("secrets").entities])) == []
    gm = player.with_settings({"view": "gm"})
    assert resolve(gm.entities("secrets"), "Nightbloom").name == "Baron"  # a GM page's alias
    assert resolve(player.entities("secrets"), "Nightbloom") is None  # asked again after the GM
    reyes = resolve(player.entities("secrets"), "Captain Reyes")
    assert [e.label for e in player.timeline("secrets", Filters(session_max=1))] == ["Session 1"]
    capped = resolve(player.entities("secrets", Filters(session_max=1)), "Captain Reyes")
    assert capped.sessions == [s for s in reyes.sessions if s[1] <= 1] != reyes.sessions

    write_notes(vault, {"Session 9.md": "# Session 9\n\nWe met [[Ormund Vale]] at the docks of Harbortown."})
    app_state.pipeline(config).index(vault, "secrets")
    app_state.changed()
    assert resolve(app_state.pipeline(config).entities("secrets"), "Ormund Vale") is not None


def test_a_page_opening_with_its_tags_shows_what_it_says_next(tmp_path):
    """A real character page (kingmaker, training) opens with tags and "Played by solonarv (me)": People & places
    showed only that. The page is shown down to its first passage that says something, tags aside."""
    sheet = "#party #kitsune #she/her\ndarkvision\n\nPlayed by solonarv (me)\n\n## Backstory\nHer father is a distant cousin of the king.\n\n## Looks\nShe has white fur and a bushy tail, and she paints.\n"
    npc = "#half-elf #ally\n\nLady Jamandi Aldori, swordlord of Restov, calls the expedition.\n\n## Later\nShe duels in the pit.\n"
    vault = write_notes(tmp_path / "v", {"PCs/Izaya.md": sheet, "NPCs/Jamandi.md": npc})
    config = load_config(overrides={"chunking": {"max_chars": 120, "min_chars": 20}})
    chunks, _, _ = prepare_chunks(config, vault, "v")
    for source, headings in (("PCs/Izaya.md", ["", "Backstory"]), ("NPCs/Jamandi.md", [""])):
        page = sorted((c for c in chunks if c.source == source), key=lambda c: c.position)
        assert [c.heading for c in page_opening(page)] == headings, source


def test_a_name_the_notes_say_someone_goes_by_is_theirs(tmp_path):
    """A real vault (vault-nova, training) links [[Esha|Sha]] 27 times and [[Sha]] 11, and says "His name is Esha,
    but he asks to be called Sha": People & places listed Esha and Sha as two people, Esha "seen with" Sha. What
    he carries is still his own thing ("Esha draws Stormbite")."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 0.md": "- We meet a tabaxi. His name is [[Esha]], but he asks to be called [[Sha]].\n"
            "- [[Esha|Sha]] scouts ahead. [[Esha]] draws [[Esha|Stormbite]] and cuts the rope.\n",
            "Session 1.md": "- [[Esha|Sha]] listens at the door while [[Sha]] hums.\n",
        },
    )
    chunks, _, _ = prepare_chunks(load_config(), vault, "v")
    cast = Pipeline(load_config(), passages_loader=lambda campaign, view: chunks).cast("v")
    assert cast.find("Sha") is cast.find("Esha") and "Sha" in cast.find("Esha").aliases
    assert "Stormbite" not in cast.find("Esha").aliases


@pytest.mark.parametrize("vault", VAULTS)
def test_most_mentioned_are_the_first_entries_of_people_and_places(vault):
    folder = VAULTS[vault]
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside this checkout")
    chunks, _, _ = prepare_chunks(load_config(), folder, vault)
    pipeline = Pipeline(load_config(), passages_loader=lambda campaign, view: chunks)
    cast = pipeline.cast(vault)
    top, people = most_mentioned(cast.entities), entities_frame(cast.entities)
    assert top.to_dict("list") == people[["name", "passages"]].head(len(top)).to_dict("list")
    for name in top["name"]:  # each once: no entry is another entry's other name
        assert cast.find(name).name == name
        others = [e.name for e in cast.entities if name.casefold() in {a.casefold() for a in e.aliases}]
        assert others == [], (name, others)


@pytest.mark.parametrize("vault", ["demo", "crd3"])
def test_a_thing_a_person_carries_is_not_one_of_their_names(vault):
    folder = VAULTS[vault]
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside this checkout")
    chunks, _, _ = prepare_chunks(load_config(), folder, vault)
    cast = Pipeline(load_config(), passages_loader=lambda campaign, view: chunks).cast(vault)
    percy = cast.find("Percy")
    assert percy.name == "Percival de Rolo" and "Percival" in percy.aliases  # [[Percy|Percival]] names him
    assert "Bad News" not in percy.aliases  # "Percy brings out Bad News": his gun (CRD3 links it as itself)
    assert cast.find("Bad News") in (None, *[e for e in cast.entities if e.name == "Bad News"])
    assert cast.find("Scanlan").name == "Scanlan Shorthalt" and cast.find("Vax").name == "Vax'ildan"
    if vault == "crd3":  # [[Zadash|Archive]], [[Zadash|Tri-Spires]]…: a city linked as its parts, not renamed
        assert cast.find("Tri-Spires") is None and cast.find("Zadash").aliases == []


def test_ask_about_asks_in_the_campaign_shown_not_the_first_one(app_env):
    """A real vault's walk: "Ask about Zephyros" on People & places opened the chat in the demo, which answered
    "they never mention Zephyros". The chat asks in the campaign the page was showing."""
    app_state.pipeline(load_config()).index(DEMO, "demo")
    vault = write_notes(
        app_env / "thread",
        {
            "Session 1.md": "## The tower\n- We climb the ruined tower of [[Zephyros]], a cloud giant wizard.\n",
            "Zephyros.md": "An old cloud giant wizard who flies a tower through the sky.\n",
        },
    )
    app_state.pipeline(load_config()).index(vault, "threads")
    app_state.changed()
    at = start("pages/people.py")
    at.selectbox(key="campaign").set_value("threads").run()
    at.selectbox(key="entity").set_value("Zephyros").run()
    at.button(key="ask_about").click().run()
    assert at.selectbox(key="campaign").value == "threads"
    assert at.chat_message[0].markdown[0].value == "Who is Zephyros?"
    assert "never mention" not in at.chat_message[1].markdown[0].value


def test_ask_about_asks_who_of_a_person_whose_page_is_in_a_people_folder_at_any_depth():
    """vault-icbm keeps its wiki in "Tredracomundus Features/NPCs/…": "Ask about Motte Hayat" asked "What is…?"."""
    world = "Tredracomundus Features"
    motte = Entity("Motte Hayat", kind=world, page=f"{world}/NPCs/Motte Hayat.md")
    menz = Entity("Menz", kind=world, page=f"{world}/Cities/Menz.md")
    assert (ask_about(motte), ask_about(menz)) == ("Who is Motte Hayat?", "What is Menz?")
    assert ask_about(Entity("Grog", kind="note", page="Grog.md")) == "Who is Grog?"


def test_the_same_words_in_three_sessions_are_shown_once_with_where_else(app_env):
    """Thread-pullers' Sessions 21 to 23 are one "notes missing" page copied three times: Zephyros's mentions
    showed the same block six times. Shown once, the page says which sessions hold the same words."""
    missing = "## Missing\n- Session data missing: [[Zephyros]] flew the tower north.\n"
    notes = {f"Session {n}.md": missing for n in (21, 22, 23)}
    notes["Session 24.md"] = "## The tower\n- [[Zephyros]] lands the tower by the glacier.\n"
    app_state.pipeline(load_config()).index(write_notes(app_env / "thread", notes), "threads")
    app_state.changed()
    at = start("pages/people.py")
    at.selectbox(key="campaign").set_value("threads").run()
    at.selectbox(key="entity").set_value("Zephyros").run()
    assert not at.exception
    shown = [m.value for m in at.markdown if "flew the tower" in m.value or "lands the tower" in m.value]
    assert len(shown) == 2, shown
    assert "The same words are also in [Session 22 · Missing], [Session 23 · Missing]." in [c.value for c in at.caption]
