"""Several players at once: 20 sessions asking through one shared store and one model (as the app's
st.cache_resource shares them) while an index runs beside them. Nothing fails, every answer is the one a quiet
run gives, and the latency is recorded (docs/RELIABILITY.md takes the printed figure)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from rag.config import load_config
from rag.measure.stats import p50_p95
from rag.pipeline import Pipeline
from tests.helpers import CONCURRENT_QUESTIONS as QUESTIONS
from tests.helpers import SMALL_CAMPAIGN, VAULT, write_notes

SESSIONS = 20


@pytest.mark.long  # an index runs in a loop beside twenty sessions
def test_twenty_sessions_ask_while_an_index_runs(tmp_path, real_embedder):
    config = load_config(overrides={"data_dir": str(tmp_path / "data")})
    shared = Pipeline(config, embedder=real_embedder)
    try:
        shared.index(write_notes(tmp_path / "vault", VAULT), "demo")
        quiet = {q: shared.answer(q, "demo").text for q in QUESTIONS}
        other = write_notes(tmp_path / "other", SMALL_CAMPAIGN)

        def ingest() -> int:
            runs = 0
            while not done:
                (other / "Session 9.md").write_text(f"## Road\n- The party walks for {runs} days.\n")
                shared.index(other, "other")
                runs += 1
            return runs

        def player(n: int) -> list[tuple[str, str, float]]:
            session = shared.with_settings()  # a page run's own Pipeline around the shared parts
            out = []
            for q in QUESTIONS[n % len(QUESTIONS) :] + QUESTIONS[: n % len(QUESTIONS)]:
                started = time.perf_counter()
                out.append((q, session.answer(q, "demo").text, time.perf_counter() - started))
            return out

        done = False
        with ThreadPoolExecutor(max_workers=SESSIONS + 1) as pool:
            indexing = pool.submit(ingest)
            answers = [a for f in [pool.submit(player, n) for n in range(SESSIONS)] for a in f.result()]
            done = True
            runs = indexing.result()
    finally:
        shared.close()
    assert len(answers) == SESSIONS * len(QUESTIONS) and runs >= 1
    assert [q for q, text, _ in answers if text != quiet[q]] == []  # the same answers as a quiet run
    seconds = [s for _, _, s in answers]
    p50, p95 = p50_p95(seconds, 2)
    print(f"\n{len(answers)} answers from {SESSIONS} sessions during {runs} index runs: p50 {p50} s, p95 {p95} s")


def test_players_asking_different_questions_at_once_get_the_answers_they_get_alone(tmp_path, real_embedder):
    """One Pipeline object (one generator, one reranker) answers every thread: a stage that kept anything of one
    call for the next would hand one player another's quotes or refusal reason."""
    questions = [*QUESTIONS, "Who is Grog?", "Where is Kraghammer?", "What did Trinket do?", "Who offered gold?"]
    pipeline = Pipeline(load_config(overrides={"data_dir": str(tmp_path / "data")}), embedder=real_embedder)
    try:
        pipeline.index(write_notes(tmp_path / "vault", VAULT), "demo")
        alone = {q: pipeline.answer(q, "demo") for q in questions}
        with ThreadPoolExecutor(max_workers=len(questions)) as pool:
            for _ in range(3):
                together = list(pool.map(lambda q: (q, pipeline.answer(q, "demo")), questions * 2))
                for q, answer in together:
                    assert (answer.text, answer.trace["support_note"], answer.confidence) == (
                        alone[q].text,
                        alone[q].trace["support_note"],
                        alone[q].confidence,
                    ), q
    finally:
        pipeline.close()
