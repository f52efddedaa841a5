"""The answerer: refusals that never reach a generator, citations checked against the context (flagged,
never dropped), streaming that ends in the same checked Answer, follow-up rewrites, run records without
secrets, answer evaluation, and the ``run`` command. Fake embedder + in-memory Qdrant unless noted."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from rag.answering import generated_confidence, offline_rewrite
from rag.citations import attribute, check_citations, check_claims, claims_note
from rag.cli import main
from rag.config import load_config
from rag.measure.answer_eval import lead_is_right, run_answer_eval, said, score_answer, token_f1
from rag.measure.questions import GoldQuestion
from rag.measure.report import render_answers
from rag.models import Answer, Chunk, Filters, Hit
from rag.pipeline import Pipeline
from rag.question import Question, read_question
from tests.fakes import FakeEmbedder, FakeGenerator
from tests.helpers import write_notes, write_vault


@pytest.fixture
def pipeline(tmp_path):
    config = load_config(overrides={"store.backend": "qdrant", "store.path": ":memory:", "answer.backend": "fake"})
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(write_vault(tmp_path / "vault"), "demo")
    yield p
    p.close()


def with_fake(**kw) -> FakeGenerator:
    return FakeGenerator(**kw)


def test_answer_cites_a_passage_from_the_context(pipeline):
    result = pipeline.answer("Which bear did Vex tame?", "demo")
    assert not result.refused
    assert result.citations and all(c.chunk_id for c in result.citations)
    assert result.citations[0].chunk_id in {h.chunk.id for h in result.hits}
    prompt = result.trace["prompt"][-1]["content"]
    assert all(h.chunk.label in prompt for h in result.hits) and prompt.count("\n---\n") == len(result.hits)
    assert result.trace["hits"] and "total" in result.trace["timings"]


def test_nothing_above_the_threshold_refuses_without_generating(pipeline):
    pipeline.config.retrieval.score_threshold = 0.99  # above any fused score (the first stages alone)
    pipeline.config.reranker.enabled = False
    gen = with_fake()
    result = pipeline.with_settings(generator=gen).answer("Which bear did Vex tame?", "demo")
    assert result.refused and result.text.startswith("The notes don't say")
    assert gen.calls == [] and result.citations == [] and result.trace["prompt"] is None


def test_low_support_refuses_without_generating(pipeline):
    gen = with_fake(support=0.1)
    result = pipeline.with_settings(generator=gen).answer("What colour is the cook's hat?", "demo")
    assert result.refused and gen.calls == []
    assert result.trace["refusal_rule"] == "support below the floor"


def test_unresolvable_citation_is_flagged_not_dropped(pipeline):
    gen = with_fake(reply="Grog smashes the patrol. [Session 9 · Part 4]")
    result = pipeline.with_settings(generator=gen).answer("What did Grog smash?", "demo")
    assert result.citations[-1].chunk_id is None and result.citations[-1].label == "Session 9 · Part 4"
    assert "[Session 9 · Part 4]" in result.text and "⚠ [Session 9 · Part 4] is not a passage" in result.text
    assert result.confidence == "low"


def test_llm_refusal_is_a_refusal(pipeline):
    result = pipeline.with_settings(generator=with_fake(reply="The notes don't say.")).answer(
        "What is the cook's name?", "demo"
    )
    assert result.refused and result.citations == []


def test_stream_pieces_are_the_answer_text(pipeline):
    stream = pipeline.with_settings(generator=with_fake(reply="A bear. [Session 9 · Part 1]")).ask(
        "Who tames a bear?", "demo"
    )
    pieces = list(stream)
    assert len(pieces) >= 2 and "".join(pieces) == stream.answer.text
    assert stream.answer.trace["timings"]["first_token"] is not None


def chunk(name: str) -> Hit:
    return Hit(Chunk("demo", "C1 Session 2.md", 10, "text", name, session=2, campaign_no=1), 1.0, 1)


def test_citation_labels_resolve_loosely_but_uniquely():
    hits = [chunk("C1 Session 2 · Part 11"), chunk("C1 Session 2 · Part 1")]
    text, cites = check_citations(
        "A [Session 2 - Part 11]. B [C1 Session 2 · Part 1; Session 2 · Part 11]. [they]", hits
    )
    assert [c.chunk_id for c in cites] == [hits[0].chunk.id, hits[1].chunk.id, hits[0].chunk.id]
    assert "⚠" not in text
    # a wiki's footnote mark quoted from the notes is their text, not a citation of "… Part 1" or "… Part 11"
    text, cites = check_citations("[1] As the carpet circles around, Grog falls. [C1 Session 2 · Part 11]", hits)
    assert [c.chunk_id for c in cites] == [hits[0].chunk.id] and "⚠" not in text


def part(name: str, position: int, text: str = "text") -> Hit:
    return Hit(Chunk("demo", "C1 Session 2.md", position, text, name, session=2, campaign_no=1), 1.0, position + 1)


def test_a_label_copied_from_the_title_and_heading_a_passage_is_shown_under_resolves_to_it():
    """The prompt shows each passage as "[C1 Session 1 · First Night] (C1E001 Arrival at Kraghammer · First Night)";
    a small model cited the second form, in square brackets."""
    night = Hit(
        Chunk(
            "demo",
            "C1 Session 1.md",
            0,
            "Thompson tells them to go to the Pig Pits.",
            "C1 Session 1 · First Night",
            heading="First Night",
            session=1,
            campaign_no=1,
            title="C1E001 Arrival at Kraghammer",
        ),
        1.0,
        1,
    )
    text, cites = check_citations("The Pig Pits. [C1E001 Arrival at Kraghammer · First Night]", [night])
    assert [c.chunk_id for c in cites] == [night.chunk.id] and "⚠" not in text


def test_a_label_names_the_passage_so_labelled_before_one_whose_title_and_heading_it_copies():
    """A scene's first part is labelled "Session 10 · Pharast 27", the title and heading its sixth part is shown
    under: the answer cited the first part and its chip opened the sixth, a combat log without the quote
    (vault-kingmaker walk)."""
    scene = [
        Hit(Chunk("demo", "Session 10.md", i, text, name, heading="Pharast 27", session=10, title="Session 10"), 1, r)
        for i, text, name, r in (
            (5, "Round 7: a miss.", "Session 10 · Pharast 27 (6)", 1),
            (0, "There we see Valerie tied up.", "Session 10 · Pharast 27", 2),
        )
    ]
    assert scene[0].chunk.title_and_heading == scene[1].chunk.name
    text, cites = check_citations("There we see Valerie tied up. [Session 10 · Pharast 27]", scene)
    assert [c.chunk_id for c in cites] == [scene[1].chunk.id] and "⚠" not in text


def test_uncited_sentences_get_the_passage_holding_most_of_their_words_and_only_that():
    mines = part("C1 Session 2 · The Mines", 0, "Herris warns them about the ankhegs below. He gives them a map.")
    deal = part("C1 Session 2 · A Deal", 1, "Nostoc offers 50 gold pieces for the missing miners.")
    text, added = attribute(
        "Herris gives them a map. [2] Nostoc offers 50 gold pieces. [C1 Session 2 · A Deal]\nA dragon ate the miners.",
        [mines, deal],
        0.5,
    )
    assert text == (
        "Herris gives them a map. [2] [C1 Session 2 · The Mines] Nostoc offers 50 gold pieces. [C1 Session 2 · A Deal]"
        "\nA dragon ate the miners."  # a footnote mark "[2]" cites nothing; already cited; held by no passage
    )
    assert [a["label"] for a in added] == ["C1 Session 2 · The Mines", None]
    assert attribute("The notes don't say.", [mines], 0.5)[0] == "The notes don't say."


def test_a_label_without_its_part_number_or_campaign_resolves_when_it_names_one_passage_given():
    deal = part("C1 Session 2 · A Deal with Nostoc Greyspine (2)", 1)
    text, cites = check_citations(
        "Herris gave them a map of the mines. [Session 2 · A Deal with Nostoc Greyspine]",
        [part("C1 Session 2 · The Mines", 0), deal],
    )
    assert [c.chunk_id for c in cites] == [deal.chunk.id] and "⚠" not in text


def test_a_label_two_parts_of_one_scene_could_be_is_left_unresolved_and_said_once():
    both = [
        part("C1 Session 2 · A Deal with Nostoc Greyspine", 0),
        part("C1 Session 2 · A Deal with Nostoc Greyspine (2)", 1),
    ]
    deal = "[Session 2 · A Deal with Nostoc Greyspine]"
    text, cites = check_citations(f"Herris gave them a map. {deal} He left. {deal}", both)
    assert [c.chunk_id for c in cites] == [None, None]
    assert text.count("⚠") == 1 and "could be any of 2 passages" in text
    # the full name still names one
    _, cites = check_citations("A map. [C1 Session 2 · A Deal with Nostoc Greyspine (2)]", both)
    assert [c.chunk_id for c in cites] == [both[1].chunk.id]


def test_each_unresolved_citation_gets_one_line_in_player_words():
    hits = [part("C1 Session 2 · The Mines", 0)]
    tavern = "[Session 5 · The Sunken Tavern]"
    text, cites = check_citations(f"It is stated in {tavern}. Also [Session 7 · Part 1]. {tavern}", hits)
    assert [c.chunk_id for c in cites] == [None, None, None]
    notes = [line for line in text.splitlines() if line.startswith("⚠")]
    assert notes == [
        "⚠ [Session 5 · The Sunken Tavern] is not a passage this answer was given, so it is not checked; "
        "check the passages below.",
        "⚠ [Session 7 · Part 1] is not a passage this answer was given, so it is not checked; "
        "check the passages below.",
    ]


def test_the_answer_prompt_has_no_label_a_model_could_copy():
    from rag.generators import SYSTEM_PROMPT

    assert "[" not in SYSTEM_PROMPT and "Session 5" not in SYSTEM_PROMPT
    assert "label" in SYSTEM_PROMPT  # it still says how to cite


@pytest.fixture
def with_model(tmp_path, llm_server):
    """``with_model(name, **settings)``: a pipeline over the small vault whose answers come from a model of
    tests/llm_server.py (``right``, ``invents``, ``uncited``…: each streams a scripted answer)."""
    from tests.llm_server import KEY

    made = []

    def make(model: str, **settings) -> Pipeline:
        overrides = {"store.backend": "qdrant", "store.path": ":memory:", "answer.backend": "openai"}
        overrides |= {"answer.base_url": llm_server, "answer.model": model, "answer.api_key": KEY, **settings}
        made.append(Pipeline(load_config(overrides=overrides), embedder=FakeEmbedder()))
        made[-1].index(write_vault(tmp_path / "vault"), "demo")
        return made[-1]

    yield make
    for p in made:
        p.close()


def test_a_right_cited_answer_from_a_model_is_found_in_the_notes(with_model):
    result = with_model("right").answer("Which bear did Vex tame?", "demo")
    assert result.text == "Vex tames a bear named Trinket. [Session 3 · The Underdark]"  # nothing to warn about
    assert result.confidence == "high"
    assert [c["holds"] for c in result.trace["claims"]] == [True]


def test_an_invented_answer_under_a_real_passages_label_is_marked_and_never_sure(with_model):
    stream = with_model("invents").ask("What did Nostoc offer?", "demo")
    pieces = list(stream)
    result = stream.answer
    assert result.citations[0].chunk_id  # the label is real…
    assert result.text.endswith("\n\n⚠ The notes cited don't say this; check the passages below.")  # …the claim not
    assert "".join(pieces).rstrip() == result.text  # the line streams last, as the answer's end
    assert result.confidence == "low"


def test_a_sentence_that_cites_nothing_is_cited_where_a_passage_holds_it(with_model):
    """A small local model often answers right and cites nothing: the passage holding most of the sentence's words
    is cited after it, and the answer is as sure as one the model cited itself."""
    result = with_model("uncited").answer("Which bear did Vex tame?", "demo")
    assert result.text == "Vex tamed a bear named Trinket. [Session 3 · The Underdark]"
    assert [c.chunk_id is not None for c in result.citations] == [True]
    assert result.trace["attributed"][0]["label"] == "Session 3 · The Underdark"
    assert result.confidence == with_model("right").answer("Which bear did Vex tame?", "demo").confidence == "high"


def test_a_sentence_left_uncited_that_no_passage_holds_is_named_under_a_cited_answer(with_model):
    result = with_model("half-invents").answer("Which bear did Vex tame?", "demo")
    assert result.text == (
        "Vex tamed a bear named Trinket. [Session 3 · The Underdark] The bear later became king of the dwarves."
        "\n\n⚠ No passage says “The bear later became king of the dwarves”; check the passages below."
    )
    assert result.confidence != "high"


def test_an_answer_that_cites_nothing_no_passage_holds_says_so(with_model):
    result = with_model("uncited-invents").answer("What colour is the cook's favourite hat?", "demo")
    assert (
        result.text == "The cook's favourite hat is brown.\n\n⚠ This answer cites no passage; check the passages below."
    )
    assert result.confidence == "low" and [a["label"] for a in result.trace["attributed"]] == [None]


def test_how_much_of_a_sentence_its_passage_must_hold_is_a_setting(with_model):
    """The invented sentence shares half its words with the passage it cites (party, Nostoc, gold, Kraghammer; not
    paid, 100, pieces, map): not most of them, unless the setting asks for less."""
    result = with_model("invents", **{"answer.claim_words_held": 0.4}).answer("What did Nostoc offer?", "demo")
    assert "⚠" not in result.text and result.trace["claims"][0]["held"] == 0.5


def test_a_cited_sentence_with_a_title_in_it_is_checked_and_named_whole():
    """ "Mr. Durst" does not end a sentence: the warning quotes what the answer claimed, not its last word."""
    house = part("C1 Session 2 · Death House", 0, "Rose and Thorn are the children of Mr. Durst and Mrs. Durst.")
    text = "Rose is a child of Mr. Durst. [Session 2 · Death House] The cook's hat belongs to Mr. Durst."
    text += " [Session 2 · Death House]"
    claims = check_claims(text, [house], 0.5)
    assert [(c["sentence"], c["holds"]) for c in claims] == [
        ("Rose is a child of Mr. Durst.", True),
        ("The cook's hat belongs to Mr. Durst.", False),
    ]
    _, citations = check_citations(text, [house])
    assert claims_note(citations, claims) == (
        "⚠ The notes cited don't say “The cook's hat belongs to Mr. Durst”; check the passages below."
    )


def test_each_cited_sentence_is_checked_against_the_passages_it_cites():
    mines = part("C1 Session 2 · The Mines", 0, "Herris warns them about the ankhegs below. He gives them a map.")
    deal = part("C1 Session 2 · A Deal", 1, "Nostoc offers 50 gold pieces for the missing miners.")
    text = (
        "Herris gives them a map of the mines. [Session 2 · The Mines] Nostoc offers 50 gold. "
        "This is stated in [Session 2 · A Deal]. The miners were eaten by a dragon. [Session 2 · A Deal]"
    )
    claims = check_claims(text, [mines, deal], 0.5)
    assert [(c["sentence"], c["holds"]) for c in claims] == [
        ("Herris gives them a map of the mines.", True),
        ("Nostoc offers 50 gold.", True),  # "This is stated in" claims nothing of its own
        ("The miners were eaten by a dragon.", False),
    ]
    _, citations = check_citations(text, [mines, deal])
    assert claims_note(citations, claims) == (
        "⚠ The notes cited don't say “The miners were eaten by a dragon”; check the passages below."
    )
    hits = [mines, deal]
    assert generated_confidence(hits, citations, claims, 0.7, 0.5) != "high"  # one sentence is not in the notes
    # every sentence held, but no reranker says how sure it is of the passages, and their meaning score is weak
    assert generated_confidence(hits, citations, claims[:2], 0.7, 0.5) == "medium"
    for hit in hits:
        hit.sure = 0.9
    assert generated_confidence(hits, citations, claims[:2], 0.7, 0.5) == "high"
    assert generated_confidence(hits, citations, [{**c, "holds": False} for c in claims], 0.7, 0.5) == "low"


def test_offline_rewrite_carries_names_and_session():
    history = [("What did Foreman Herris give Vox Machina in session 2?", "A map. [Session 2 · Part 11]")]
    question, carried = offline_rewrite(read_question("And what did he warn them about?"), history)
    assert carried == ["Foreman Herris", "Vox Machina", "session 2"]
    assert question.startswith("And what did he warn them about?")
    assert offline_rewrite(read_question("Who is Grog?"), history) == ("Who is Grog?", [])  # standalone: untouched
    kima = [("What about Kima?", "Kima backs down. [Session 6 · Part 2]")]
    assert offline_rewrite(read_question("Who is she?"), kima) == ("Who is Kima?", ["Kima"])  # asked of her
    assert offline_rewrite(read_question("who's she again?"), kima) == ("who's Kima again?", ["Kima"])
    # one name carried: it takes the pronoun's place, as the player would have typed it
    assert offline_rewrite(read_question("What did she do next?"), kima) == ("What did Kima do next?", ["Kima"])
    assert offline_rewrite(read_question("Did we give her the map?"), kima)[0] == "Did we give Kima the map?"
    assert offline_rewrite(read_question("Where is her bear?"), kima)[0] == "Where is Kima's bear?"
    assert offline_rewrite(read_question("When did we see her first?"), kima)[0] == "When did we see Kima first?"
    kima_in_5 = [("What did Kima do in session 5?", "She fought. [Session 5]")]
    assert offline_rewrite(read_question("Who did she fight?"), kima_in_5) == (
        "Who did Kima fight? (session 5)",
        ["Kima", "session 5"],
    )
    assert offline_rewrite(read_question("Where did they go?"), kima)[0] == "Where did they go? (Kima)"  # "they": us?
    # two people in one question: which one is Kima is not said, so the name goes in brackets
    assert offline_rewrite(read_question("What did she give him?"), kima)[0] == "What did she give him? (Kima)"
    assert offline_rewrite(read_question("What did she tell her?"), kima)[0] == "What did she tell her? (Kima)"
    assert (
        offline_rewrite(read_question("Who is she?"), history)[0]
        == "Who is she? (Foreman Herris, Vox Machina, session 2)"
    )
    # a "who" question that named no one: a pronoun after it is whom its answer named, not an older turn's name
    trusted = [*kima_in_5, ("Who didn't we trust?", "Clarota. [Session 6 · Part 2]\n\nKima does not trust Clarota.")]
    assert offline_rewrite(read_question("What's the name of his tribe?"), trusted) == (
        "What's the name of Clarota's tribe?",
        ["Clarota"],
    )
    quoted = [*kima_in_5, ("Who did we fight?", "Adra is at the door, nervous. [Session 1 · Bear Fight]")]
    assert offline_rewrite(read_question("What did she do next?"), quoted)[0] == "What did Kima do next? (session 5)"
    refused = [*kima_in_5, ("Who didn't we trust?", "The notes don't say: no passage found says so.")]
    assert offline_rewrite(read_question("What did she do next?"), refused)[0] == "What did Kima do next? (session 5)"
    # someone asked for by what they are to others: the pronoun is them, not whom the question named (a walk through
    # a real vault: "What does he teach?" after "Who is Selda Hightower's father?" was asked of Selda)
    father = [("Who is Selda Hightower's father?", "Selda Hightower, daughter of Triston. [Session 5]")]
    assert (
        offline_rewrite(read_question("What does he teach?"), father)[0] == "What does Selda Hightower's father teach?"
    )
    brother = [("Who is Vetri's brother?", "Viraj. [Session 8]\n\nViraj Rakta Yildiz, Vetri's Brother")]
    assert offline_rewrite(read_question("What does he do?"), brother)[0] == "What does Viraj do?"

    # an earlier question typed without capitals names whom the campaign writes as a name, as the question did
    def campaign(text: str) -> Question:
        return read_question(text, {"halia": True})

    halia = [("who is halia", "Halia: the godmother of Qelline's kids. [Session 3]")]
    assert offline_rewrite(campaign("and what did she do next?"), halia, campaign) == (
        "and what did Halia do next?",
        ["Halia"],
    )


@pytest.mark.parametrize(
    ("question", "borrows"),
    [
        ("Where did the party stay on their first night in Kraghammer?", False),  # "their" is the party's
        ("Who runs the Iron Hearth Tavern?", False),
        ("What is the name of Grog's mother?", False),
        ("What did she do next?", True),
        ("And then?", True),
        ("What about Vex?", True),
        ("Did the party trust her?", True),
        ("What did he give Vex?", True),
    ],
)
def test_only_a_question_that_leans_on_the_last_turn_borrows_from_it(question, borrows):
    history = [("Who is Trinket?", "Vex's bear. [Session 3 · Part 2]")]
    standalone, carried = offline_rewrite(read_question(question), history)
    assert bool(carried) == borrows and (standalone == question) != borrows


def test_follow_up_rewrite_is_in_the_trace(pipeline):
    result = pipeline.answer("And what did he offer?", "demo", history=[("Who is Nostoc?", "A dwarf.")])
    assert result.trace["rewrite"] == {
        "standalone": "And what did Nostoc offer?",
        "method": "offline",
        "carried": ["Nostoc"],
    }
    assert result.trace["variants"]["dense"].endswith("what did Nostoc offer?")


def test_run_record_has_answer_citations_prompt_and_no_secret(pipeline, tmp_path):
    pipeline.config.answer.api_key = "sk-super-secret"
    result = pipeline.answer("Which bear did Vex tame?", "demo")
    folder = pipeline.record(result)
    files = {p.name: p.read_text() for p in folder.iterdir()}
    assert {"answer.json", "citations.json", "prompt.json", "hits.json", "rewrite.json", "config.json"} <= set(files)
    assert json.loads(files["citations.json"])[0]["chunk_id"]
    assert not any("sk-super-secret" in text for text in files.values())


@pytest.mark.parametrize("model", ["slow-model", None])
def test_a_run_records_timings_all_counted_from_the_question(pipeline, with_model, model, monkeypatch):
    """The first piece cannot come before the passages were found, nor after the whole answer: both count from
    when the question came in (a run once logged 20 s to the first piece of a 96 s wait)."""
    from tests.llm_server import Handler

    monkeypatch.setattr(Handler, "slow_seconds", 0.3)
    asking = with_model(model) if model else pipeline
    timings = asking.answer("Which bear did Vex tame?", "demo").trace["timings"]
    assert timings["rewrite_and_retrieve"] <= timings["first_token"] <= timings["total"]
    if model:  # the model's own wait is in both
        assert timings["first_token"] >= timings["rewrite_and_retrieve"] + 0.3


def test_answer_eval_counts_refusals_and_citations(pipeline, tmp_path):
    questions = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "1",
            "question": "Which bear did Vex tame?",
            "sessions": [3],
            "evidence": ["tames a bear"],
            "kind": "fact",
            "answer": "Trinket",
        },
        {"id": "2", "question": "What is the cook's name?", "sessions": [], "evidence": [], "kind": "unanswerable"},
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows))
    pipeline.config.answer.backend = "extractive"
    result = run_answer_eval(pipeline, tmp_path / "vault", questions)
    o = result["overall"]
    assert set(o) == {
        "refusal_accuracy",
        "false_refusal_rate",
        "citation_precision",
        "answer_has_evidence",
        "short_answer_correct",
        "short_answer_precision",
        "answer_f1",
        "cited_evidence",
    }
    assert o["false_refusal_rate"] == 0.0 and o["answer_has_evidence"] == 1.0 and o["cited_evidence"] == 1.0
    assert 0.0 < o["answer_f1"] < 1.0  # "Trinket", and the sentence that proves it
    level = result["per_question"][0]["confidence"]
    assert result["by_confidence"][level]["n"] == 1 and result["by_confidence"][level]["citation_precision"] == 1.0
    table = render_answers([{"questions": "q.jsonl", "answers": result}], {"q": {"tune": ["1"], "test": ["2"]}})
    rows = {line.split(" | ")[1]: line.split(" | ")[3:-1] for line in table.splitlines() if line.startswith("| q |")}
    f1 = f"{o['answer_f1']:.3f}"
    assert rows["tune"] == ["–", "0.000", "1.000", "1.000", *rows["tune"][4:6], f1, "1.000"]  # the answerable one
    assert rows["test"] == ["1.000"] + ["–"] * 7 and "(n=1)" in table  # the unanswerable one


def test_a_right_answer_in_the_models_own_words_scores_on_the_metrics_that_fit_it(with_model, tmp_path):
    """No verbatim evidence in the answer (answer_has_evidence 0), but its cited passage holds it, and its words
    overlap the reference answer's."""
    questions = tmp_path / "q.jsonl"
    row = {"id": "1", "question": "Which bear did Vex tame?", "sessions": [3], "kind": "fact", "answer": "Trinket"}
    questions.write_text(json.dumps({**row, "evidence": ["tames a bear named Trinket"]}))
    result = run_answer_eval(with_model("paraphrases"), tmp_path / "vault", questions)
    [scored] = result["per_question"]
    assert scored["has_evidence"] == 0.0 and scored["cited_evidence"] == 1.0
    assert scored["answer_f1"] == round(token_f1("Vex's new bear is called Trinket.", "Trinket"), 4) > 0


def test_a_lead_is_right_only_by_what_it_says_not_by_the_passage_it_cites():
    """The passage's name in a lead's citation is not the lead's answer: "Caduceus." does not say who Pumat Sol
    is because the passage it cites is called "Trip to The Invulnerable Vagrant"."""
    gold = GoldQuestion(
        id="1",
        question="Who is Pumat Sol?",
        sessions=[31],
        evidence=[],
        kind="entity",
        answer="The enchanter who runs the Invulnerable Vagrant.",
    )

    def lead(text: str) -> float:
        return score_answer(gold, Answer(question=gold.question, text=f"{text}\n\nThe proof.", confidence="medium"))[
            "short_answer_correct"
        ]

    assert lead("Caduceus. [C2 Session 31 · Trip to The Invulnerable Vagrant]") == 0.0
    assert lead("Pumat Sol: the owner of the Invulnerable Vagrant. [C2 Session 31 · Part I]") == 1.0


def test_a_description_answers_who_someone_is_when_the_gold_answer_says_it_too():
    """Asked who X is, "Esher: a male bride." is right for "A male bride of Strahd…", though it does not name
    Strahd (the key term); a description sharing no word with the gold answer, or only the question's words, is
    not. Other kinds still need the key term."""
    gold = GoldQuestion(
        id="1",
        question="Who is Esher?",
        sessions=[17],
        evidence=[],
        kind="entity",
        answer="A male bride of Strahd who tried to overthrow him and failed.",
    )
    assert lead_is_right(gold, "Esher: a male bride. [Session 17]")
    assert lead_is_right(gold, "Esher: the brides' rebel, Strahd's. [Session 17]")  # the key term still counts
    assert not lead_is_right(gold, "Esher: a vampire spawn. [Session 17]")
    assert not lead_is_right(gold, "Esher: Esher. [Session 17 · Brides]")  # the question's word; the citation
    fact = replace(gold, kind="fact", question="Who tried to overthrow Strahd?", answer="Esher, a male bride.")
    assert not lead_is_right(fact, "A male bride. [Session 17]")  # "Esher" is what it asks
    assert lead_is_right(replace(gold, answer=""), "Esher: a bride.") is None


def test_answer_f1_is_squads():
    assert token_f1("Trinket.", "trinket") == 1.0
    assert token_f1("The bear Trinket", "a bear named Trinket") == 0.8  # articles and case do not count
    assert token_f1("It was Session 3", "Session 3") == 2 * 0.5 * 1 / 1.5
    assert token_f1("Grog", "Trinket") == 0.0
    assert said("Trinket. [Session 3 · The Underdark]\n\n⚠ This answer cites no passage.") == "Trinket.  \n"


def test_the_report_sets_each_labels_stated_likelihood_beside_how_often_it_held():
    rows = [
        {"id": "a", "citations": 1, "confidence": "high", "holds_evidence": 0.8, "has_evidence": 1.0, "refused": False},
        {"id": "b", "citations": 1, "confidence": "high", "holds_evidence": 0.9, "has_evidence": 0.0, "refused": False},
        {"id": "c", "citations": 1, "confidence": "low", "holds_evidence": 0.2, "has_evidence": 0.0, "refused": False},
        {"id": "d", "confidence": "low", "holds_evidence": 0.3, "has_evidence": 0.0, "refused": True},
        {"id": "e", "confidence": "low", "holds_evidence": 0.3, "has_evidence": 0.0, "refused": False},  # no span
    ]
    table = render_answers([{"questions": "q.jsonl", "answers": {"per_question": rows}}], {})
    assert (
        "| q | 0.85 / 0.50 (n=2) | – | 0.20 / 0.00 (n=1) |" in table
    )  # a refusal shows no label; nor counts a question with no span to hold
    unstated = [{**r, "holds_evidence": None} for r in rows]
    assert "stated / held" not in render_answers([{"questions": "q.jsonl", "answers": {"per_question": unstated}}], {})


def test_run_command_prints_a_cited_answer_and_records_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    data = str(tmp_path / "data")
    assert main(["index", "--notes", str(write_vault(tmp_path / "vault")), "--data", data]) == 0
    assert main(["run", "Which bear did Vex tame?", "--data", data]) == 0
    out = capsys.readouterr()
    assert "tames a bear named Trinket" in out.out and "confidence:" in out.out
    assert "run recorded in" in out.err
    assert list((tmp_path / "data" / "runs").glob("*/answer.json"))


def test_real_embedder_refuses_the_unanswerable_and_answers_the_rest(tmp_path, real_embedder):
    config = load_config(overrides={"store.backend": "qdrant", "store.path": ":memory:"})
    p = Pipeline(config, embedder=real_embedder)
    p.index(write_vault(tmp_path / "vault"), "demo")
    good = p.answer("What is the name of the bear Vex tamed?", "demo")
    bad = p.answer("What did the elven queen sing at the carnival?", "demo")
    p.close()
    assert not good.refused and "Trinket" in good.text and good.citations[0].chunk_id
    assert bad.refused, bad.trace["support"]


def test_a_named_session_filters_and_a_follow_up_keeps_it(pipeline):
    first = pipeline.answer("What happened in session 2?", "demo")
    assert first.trace["filters"] == {"session_min": 2.0, "session_max": 2.0}
    assert first.hits and {h.chunk.session for h in first.hits} == {2}
    follow = pipeline.answer("And what did they smash there?", "demo", history=[("What happened in session 2?", "…")])
    assert follow.trace["rewrite"]["carried"] == ["session 2"]
    assert {h.chunk.session for h in follow.hits} == {2}


def test_a_named_session_never_lifts_the_spoiler_cap(pipeline):
    result = pipeline.answer("What happened in session 3?", "demo", filters=Filters(session_max=2))
    assert result.trace["filters"] == {"session_max": 2}
    assert all(h.chunk.session <= 2 for h in result.hits if h.chunk.session is not None)


MEETING = {
    "Session 1.md": "# Session Start\n## Emon\n- The council sends the party to find Lady Kima, a paladin lost in "
    "the mines below Kraghammer.\n",
    "Session 4.md": "# Session Start\n## Cells\n- Deep in the mines the party meets Lady Kima in a duergar cell, and "
    "she fights her way out beside them.\n",
    "Session 6.md": "# Session Start\n## Home\n- Lady Kima thanks the party and rides back to Emon with them.\n",
}


@pytest.fixture(params=["qdrant", "edge"])
def meeting(request, tmp_path):
    """Lady Kima: sent for in session 1, met in session 4, last named in session 6; on each embedded engine."""
    config = load_config(overrides={"store.backend": request.param, "retrieval.candidates": 10})
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(write_notes(tmp_path / "notes", MEETING), "demo")
    yield p
    p.close()


def test_first_meeting_is_not_the_first_mention(meeting):
    met = meeting.answer("When did we first meet Lady Kima?", "demo")
    assert met.text.startswith("First met in Session 4. [Session 4 · Cells]")
    heard = meeting.answer("When did we first hear of Lady Kima?", "demo")
    assert heard.text.startswith("First mentioned in Session 1. [Session 1 · Emon]")


def test_last_time_questions_are_answered_where_the_notes_last_name_them(meeting):
    """Session 4 says "meets" and "Lady Kima" as the question does; the last note to name her is session 6. The
    search offers session 6's passage naming her, the answer leads with it, and an "as of session" cap holds."""
    last = meeting.answer("When did we last see Lady Kima?", "demo")
    assert last.text.startswith("Last mentioned in Session 6. [Session 6 · Home]")
    assert last.hits[0].chunk.session == 6 and last.hits[0].scores["first_mention"] == 1.0
    capped = meeting.answer("When did we last see Lady Kima?", "demo", filters=Filters(session_max=4))
    assert capped.text.startswith("Last mentioned in Session 4. [Session 4 · Cells]")


RONIN = {
    "Session 2.md": "# Session Start\n## Who Did We Meet?\n- Doji Nobinaru, the captain of the boat out of Lonely "
    "Shore, and Matsu Mioko, who once dueled Gaoxing.\n",
    "Session 5.md": "# Session Start\n## The Inn\n- At the inn the party meets Koganshi Onotatsu, a masked ronin who "
    "rides for Unicorn lands.\n",
    "Session 8.md": "# Session Start\n## The Road\n- The first time we run into real trouble on the road, Onotatsu "
    "says he would still serve his clan if things had ended differently.\n",
}


def test_first_time_questions_quote_where_the_notes_first_name_them(tmp_path):
    """A later sentence says more of the question's words ("run into"), but the first time is where the notes
    first name him: the answer quotes the passage the search found for it first, as for a last time."""
    p = Pipeline(load_config(overrides={"retrieval.candidates": 10}), embedder=FakeEmbedder())
    try:
        p.index(write_notes(tmp_path / "notes", RONIN), "demo")
        answer = p.answer("When did we first run into Onotatsu?", "demo")
        assert answer.text.startswith("First met in Session 5. [Session 5 · The Inn]")
        # as of session 4 he is in no note yet: a player walk got "First named in Session 2", from a cast list
        before = p.answer("When did we first run into Onotatsu?", "demo", filters=Filters(session_max=4))
        assert before.refused and before.text == "The notes don't say: up to Session 4 they never mention Onotatsu."
        # a session after the cap is not told by the notes up to it: no quotes of earlier sessions instead
        later = p.answer("What happened in session 8?", "demo", filters=Filters(session_max=5))
        assert later.refused and later.text == (
            "The notes don't say: you are reading as of Session 5, and Session 8 comes after it."
        )
        assert not p.answer("What happened in session 5?", "demo", filters=Filters(session_max=5)).refused
    finally:
        p.close()


def test_the_rerankers_verdict_moves_the_confidence_and_high_needs_both():
    """The answerer's signals and the learned reranker's word on the best passage, averaged and rounded down:
    one "low" never gives "high", a sure search lifts a fair answer no higher than "medium"."""
    from rag.answering import Citation, confidence
    from rag.rerankers.learned import LearnedReranker

    chunk = Chunk("demo", "Session 1.md", 0, "Vex tames a bear named Trinket.", "Session 1", session=1)
    hits = [Hit(chunk, 2.5, 1, {"rerank": 2.5})]
    cited = [Citation("Session 1", chunk.id)]
    strong, fair, weak = 0.32 + 0.3, 0.32 + 0.1, 0.32
    assert confidence(strong, 0.32, hits, cited) == "high"  # no verdict: the answerer's own level
    assert confidence(strong, 0.32, hits, cited, "high") == "high"
    assert confidence(strong, 0.32, hits, cited, "medium") == "medium"
    assert confidence(strong, 0.32, hits, cited, "low") == "medium"
    assert confidence(fair, 0.32, hits, cited, "high") == "medium"
    assert confidence(weak, 0.32, hits, cited, "high") == "medium"
    assert confidence(weak, 0.32, hits, cited, "medium") == "low"
    assert confidence(strong, 0.32, hits, [], "high") == "low"  # nothing cited: never above low
    learned = LearnedReranker()
    assert [learned.verdict(s) for s in (2.0, 1.5, 0.99)] == ["high", "medium", "low"]


def test_the_answer_says_what_the_reranker_thought(pipeline):
    on = pipeline.with_settings({"reranker.enabled": True, "reranker.backend": "learned"})
    result = on.answer("Which bear did Vex tame?", "demo")
    assert result.trace["verdict"] in {"high", "medium", "low"}
    off = pipeline.with_settings({"reranker.enabled": False}).answer("Which bear did Vex tame?", "demo")
    assert off.trace["verdict"] is None
    # the verdict is on the best-ranked passage, also when the passages are shown in story order
    story = on.with_settings({"retrieval.order": "session"}).search("Which bear did Vex tame?", "demo")
    best = min(story.hits, key=lambda h: h.rank)
    assert story.verdict == on.reranker.verdict(best.score) == result.trace["verdict"]


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Who rules Whitestone?", "Whitestone"),
        ("who rules whitestone?", "Whitestone"),  # typed as a chat is, without capitals: the same question
        ("What did we buy from Strahd in Kraghammer?", "Strahd"),
        # its words said in passing ("a duergar patrol", "a mind flayer colony") do not say a name of several words
        ("Who guards the Duergar Gate?", "Duergar Gate"),
        ("Who founded the Mind Flayer Academy?", "Mind Flayer Academy"),
    ],
)
def test_a_name_the_notes_never_write_is_refused_without_generating(pipeline, question, name):
    """Retrieval always finds something; for a name no note writes, whatever name it holds would be a wrong answer."""
    gen = with_fake()
    result = pipeline.with_settings(generator=gen).answer(question, "demo")
    assert result.refused and gen.calls == []
    assert result.text == f"The notes don't say: they never mention {name}."


@pytest.mark.parametrize(
    "question",
    [
        "Which bear did Vex'ahlia tame?",  # the link's target, never written in the passage's text
        "Where did we meet Groog?",  # a letter off
        "What did the dwarf Nostok offer?",  # a letter off
        "Remind me what Grog smashed",  # the first word is no name
        "Which NPC offered gold?",  # nor a short word in capitals
        "Where is the Mind Flayer colony?",  # said whole, in lower case
        "Where did we meet Grog Strongjaw?",  # one of its words written as a name
        "Which dwarves live in Krag Hammer?",  # its words run together
        "where did we meet groog?",  # typed without capitals, a letter off
        "what did the dwarf nostoc offer in kraghammer?",
    ],
)
def test_a_name_written_some_other_way_is_not_refused_for_it(pipeline, question):
    result = pipeline.with_settings(generator=with_fake()).answer(question, "demo")
    assert not result.refused, result.text


def test_the_shipped_confidence_model_reads_only_what_the_answerer_records():
    """Every feature the model weighs is a signal the offline answerer records, a rule it applies, or its
    support; the file is small and says what it was trained on."""
    from rag.generators._decisions import DECISIONS_PATH, RULES, load_decisions

    decisions = load_decisions()
    assert DECISIONS_PATH.stat().st_size < 20_000 and "FairytaleQA train" in decisions.spec["trained_on"]
    recorded = {"sentences", "best_score", "second_score", "best_meaning", "best_overlap", "rest_words"}
    recorded |= {"rest_in_best", "rest_in_top", "rest_anywhere", "names_found", "typed_in_picks", "verb_said"}
    recorded |= {"best_rank", "top_rerank", "top_dense", "unknown_names", "support", *RULES}
    assert set(decisions.features) <= recorded


def test_learned_confidence_trusts_an_answer_whose_best_passage_the_reranker_is_sure_of(pipeline):
    """The same answer is more likely to hold what answers it when the reranker is sure of its best passage, and
    every answer's trace says how likely (the chat's badge reads the band)."""
    from rag.answering import holds_evidence

    result = pipeline.answer("Which bear did Vex tame?", "demo")
    assert 0.0 <= result.trace["holds_evidence"] <= 1.0
    signals = dict(result.trace["signals"])
    sure = holds_evidence({**signals, "top_rerank": 4.0}, result.trace["support"], None)
    doubtful = holds_evidence({**signals, "top_rerank": -4.0}, result.trace["support"], None)
    assert sure > doubtful
