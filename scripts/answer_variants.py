"""The answerer again and again over searches made once: what a reading weight, or one of its rules switched off,
does to every answer of many sets in seconds instead of a `make eval` of minutes.

Why: the answerer's choices (which sentences to quote, when to lead, when to refuse) do not change the search, so
each question is searched once (the default pipeline, every set indexed as `python -m rag eval` indexes it) and
only the answers are made again. About 3 minutes to search the eleven training vaults, the tune parts and FairytaleQA
val tune, then about 10 s a variant. It is how docs/experiments/README.md's "eighteenth session" measured which rules pay and
refitted `answer.reading` on the training vaults (docs/eval/questions/README.md); nothing here is shipped.

    python scripts/answer_variants.py weights '{"meaning .7": {"pick_meaning": 0.7}}'
    python scripts/answer_variants.py rules no_unsaid no_missing_detail
    python scripts/answer_variants.py sweep
    python scripts/answer_variants.py --wrong-notes weights '{"floor .28": {"refusal_floor": 0.28}}'

Sets (each `name=notes:questions[:split]`, the split's *tune* part only when a split is named) default to the
eleven training vaults in `--trainvaults` (their questions as `<vault>-questions.jsonl` beside them, from
`scripts/outside_questions.py`), the tune parts of vault-toa, vault-strahd and CRD3 with their unanswerable sets,
vault-goblins when `--goblins` holds it, and FairytaleQA val with `--ftqa`. The figures per set are those of
`python -m rag eval --answers`; the training vaults also pooled ("training"). With `--wrong-notes`, each training
vault is also asked the next one's questions, which its notes never answer ("wrong notes": the share refused is
their "false_refusal_rate"). A weight that names an answer setting (`refusal_floor`) sets that instead.

`rules` switches a rule off by replacing it for the run (``RULES``): an experiment on the code as it stands, which
a renamed function breaks loudly.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _training import ROOT, log  # offline models, the project importable

TRAINING = (  # docs/eval/questions/README.md; those present in --trainvaults are read
    "vault-thread-pullers",
    "vault-mink-pendleham",
    "vault-nova",
    "vault-l5r",
    "vault-cos-bahodge",
    "vault-osaka",
    "vault-tyranny",
    "vault-icbm",
    "vault-krynn",
    "vault-kingmaker",
    "vault-carminus",
)
# a rule's name → (module, attribute, what stands in for it): the answerer without that rule
RULES = {
    "no_unsaid": ("rag.generators.extractive", "unsaid", lambda *a: None),
    "no_missing_detail": ("rag.generators.extractive", "missing_detail", lambda *a: None),
    "no_says_unknown": ("rag.generators.extractive", "says_unknown", lambda *a: False),
    "no_proving": ("rag.generators.extractive", "proving", lambda runs, s, k: runs),
    "no_near_tie": ("rag.generators.extractive", "near_tie", lambda *a: False),
    "no_session_gate": ("rag.generators.extractive", "sure_of_session", lambda *a: True),
    "no_owners": ("rag.generators.extractive", "owners", lambda q: ()),
    "no_identity_lead": ("rag.generators._reading", "describe", lambda *a: None),
    "no_amount_lead": ("rag.generators._reading", "amount_in", lambda *a: None),
    "no_done_to": ("rag.generators._reading", "says_done_to", lambda *a, **k: True),
    "no_doers": ("rag.generators._reading", "doers", lambda names, s, q: names),
    "no_by_place_only": ("rag.generators._reading", "by_place_only", lambda *a: False),
    "no_owned_place": ("rag.generators._reading", "owned_place", lambda *a: None),
    "no_given_as_name": ("rag.generators._reading", "given_as_name", lambda *a: True),
    "no_names_the_focus": ("rag.generators._reading", "names_the_focus", lambda *a: True),
    "no_opens_speech": ("rag.generators._reading", "opens_speech", lambda b: False),
    "no_as_quoted": ("rag.generators._reading", "as_quoted", lambda n, s: n),
    "no_is_place": ("rag.generators._reading", "is_place", lambda *a, **k: True),
    "no_in_place": ("rag.generators._reading", "in_place", lambda b: False),
}
# the coordinate search's values for each reading weight (`sweep`)
GRID = {
    "pick_meaning": [0.35, 0.45, 0.55, 0.7, 0.85],
    "pick_keywords": [0.0, 0.1, 0.2, 0.3, 0.45],
    "pick_before": [0.0, 0.05, 0.1, 0.2, 0.3],
    "pick_typed": [0.0, 0.05, 0.1, 0.2],
    "pick_rank": [0.0, 0.1, 0.2, 0.3, 0.45],
    "pick_sure": [0.0, 0.1, 0.2, 0.3, 0.45],
    "pick_keep": [0.6, 0.65, 0.7, 0.75, 0.8],
    "pick_mention": [0.25, 0.5, 0.75, 1.0],
    "tie_margin": [0.0, 0.05, 0.1, 0.15, 0.2],
    "tie_quotes": [1, 2, 3],
    "quote_words": [12, 16, 20, 25, 30],
    "quote_sentences": [2, 3, 4, 5, 6],
    "lead_quotes": [1, 2, 3, 4],
}


def default_sets(args) -> list[tuple[str, Path, Path, str | None]]:
    shared, questions = Path(args.shared), ROOT / "docs" / "eval" / "questions"
    sets = [
        (f"trn-{v}", Path(args.trainvaults) / v, Path(args.trainvaults) / f"{v}-questions.jsonl", None)
        for v in TRAINING
    ]
    sets += [
        ("toa", shared / "vault-toa", shared / "vault-toa-questions.jsonl", "vault-toa-questions"),
        (
            "toa-unanswerable",
            shared / "vault-toa",
            questions / "vault-toa-unanswerable.jsonl",
            "vault-toa-unanswerable",
        ),
        ("strahd", shared / "vault-strahd", shared / "vault-strahd-questions.jsonl", "vault-strahd-questions"),
        ("crd3", shared / "crd3-notes", shared / "crd3-questions.jsonl", "crd3-questions"),
        ("crd3-unanswerable", shared / "crd3-notes", questions / "crd3-unanswerable.jsonl", "crd3-unanswerable"),
    ]
    if args.goblins:
        goblins = Path(args.goblins)
        sets.append(
            ("goblins", goblins, goblins.with_name(f"{goblins.name}-questions.jsonl"), "vault-goblins-questions")
        )
    if args.wrong_notes:  # each training vault asked the next one's questions: the notes never answer them
        present = [v for v in TRAINING if (Path(args.trainvaults) / v).is_dir()]
        sets += [
            (
                f"wrong-{v}",
                Path(args.trainvaults) / v,
                Path(args.trainvaults) / f"{present[(i + 1) % len(present)]}-questions.jsonl",
                None,
            )
            for i, v in enumerate(present)
        ]
    if args.ftqa:
        sets.append(("ftqa", shared / "fairytaleqa" / "val", shared / "fairytaleqa-val.jsonl", "fairytaleqa-val"))
    return [s for s in sets if s[1].is_dir() and s[2].is_file()]


def parse_set(text: str) -> tuple[str, Path, Path, str | None]:
    name, _, rest = text.partition("=")
    notes, questions, *split = rest.split(":")
    return name, Path(notes), Path(questions), split[0] if split else None


def search_all(sets, data: str):
    """Every question of every set searched once: (set name, gold question, prepared search), and the generator
    and answer settings they were made with."""
    from rag.config import load_config
    from rag.measure.evaluation import indexed_corpora
    from rag.measure.questions import load_questions
    from rag.pipeline import Pipeline

    splits = json.loads((ROOT / "docs" / "eval" / "splits.json").read_text(encoding="utf-8"))
    items, pipeline = [], None
    for name, notes, questions, split in sets:
        pipeline = Pipeline(load_config(overrides={"data_dir": data, "notes_dir": str(notes)}))
        keep = set(splits[split]["tune"]) if split else None
        stories = name == "ftqa"  # FairytaleQA: one campaign per story
        for campaign, group in indexed_corpora(pipeline, notes, load_questions(questions), stories, lambda m: None):
            for q in group:
                if keep is None or q.id in keep:
                    items.append((name, q, pipeline._prepare(pipeline.read(q.question), campaign, None, None)))
        log(f"{name}: {sum(i[0] == name for i in items)} questions searched")
    return items, pipeline.generator, pipeline.config.answer


class CachedEmbedder:
    """The answerer's embedder, each sentence embedded once over every variant."""

    def __init__(self, inner):
        self.inner, self.cache = inner, {}

    def embed_exactly(self, texts):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, self.inner.embed_exactly(missing), strict=True))
        return np.stack([self.cache[t] for t in texts])

    def __getattr__(self, name):
        return getattr(self.inner, name)


def answer_all(items, embedder, answer_config, reading: dict | None = None) -> list[tuple[str, dict]]:
    from rag.answering import respond
    from rag.generators.extractive import ExtractiveGenerator
    from rag.measure.answer_eval import score_answer

    reading = dict(reading or {})
    top = {k: reading.pop(k) for k in list(reading) if k in type(answer_config).model_fields}  # "refusal_floor"
    config = answer_config.model_copy(update={**top, "reading": answer_config.reading.model_copy(update=reading)})
    generator = ExtractiveGenerator(config, embedder)
    rows = []
    for name, q, prepared in items:
        answer = respond(prepared, generator, config, time.perf_counter()).answer
        rows.append((name, {**score_answer(q, answer), "answer": answer.text}))
    return rows


def figures(rows) -> dict[str, dict]:
    """`python -m rag eval --answers`'s figures (``rag.measure.answer_eval.summarise``) per set, and for the
    training vaults pooled ("training")."""
    from rag.measure.answer_eval import summarise

    out = {"training": summarise([r for n, r in rows if n.startswith("trn-")])}
    if any(n.startswith("wrong-") for n, _ in rows):  # their "false_refusal_rate": the share refused, as it should be
        out["wrong notes"] = summarise([r for n, r in rows if n.startswith("wrong-")])
    for name in dict.fromkeys(n for n, _ in rows):
        out[name] = summarise([r for n, r in rows if n == name])
    return out


def objective(rows) -> float:
    """What `sweep` climbs: answers holding the evidence plus citation precision, the training vaults pooled."""
    f = figures(rows)["training"]
    return f.get("answer_has_evidence", 0.0) + f.get("citation_precision", 0.0)


def switched_off(rule: str):
    """Replace the rule for the run; returns what puts it back."""
    import importlib

    module_name, attribute, stand_in = RULES[rule]
    module = importlib.import_module(module_name)
    original = getattr(module, attribute)
    setattr(module, attribute, stand_in)
    return lambda: setattr(module, attribute, original)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["weights", "rules", "sweep"])
    ap.add_argument("args", nargs="*", help="weights: a JSON object of name → reading settings; rules: rule names")
    ap.add_argument("--set", action="append", default=[], help="name=notes:questions[:split] (replaces the defaults)")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--trainvaults", default=str(ROOT.parent / "trainvaults"))
    ap.add_argument("--goblins", default="", help="vault-goblins' folder (its questions file beside it)")
    ap.add_argument("--ftqa", action="store_true", help="FairytaleQA val's tune part too (~1 min more to search)")
    ap.add_argument("--wrong-notes", action="store_true", help="each training vault asked the next one's questions")
    ap.add_argument("--data", default="/tmp/answer_variants", help="where the sets are indexed")
    ap.add_argument("--out", default="", help="write every variant's answers and figures here (JSON)")
    args = ap.parse_args()
    sets = [parse_set(s) for s in args.set] or default_sets(args)
    if not sets:
        raise SystemExit("no set found: give --shared / --trainvaults, or --set name=notes:questions")
    items, generator, answer_config = search_all(sets, args.data)
    embedder = CachedEmbedder(generator.embedder)
    results = {"today": answer_all(items, embedder, answer_config)}
    if args.what == "weights":
        for name, reading in json.loads(args.args[0] if args.args else "{}").items():
            results[name] = answer_all(items, embedder, answer_config, reading)
    elif args.what == "rules":
        for rule in args.args or list(RULES):
            put_back = switched_off(rule)
            try:
                results[rule] = answer_all(items, embedder, answer_config)
            finally:
                put_back()
    else:
        training = [i for i in items if i[0].startswith("trn-")]
        chosen, best = {}, objective(answer_all(training, embedder, answer_config))
        for name, values in GRID.items():
            scores = {v: objective(answer_all(training, embedder, answer_config, {**chosen, name: v})) for v in values}
            value = max(scores, key=scores.get)
            log(f"{name}: {json.dumps({str(v): round(s, 4) for v, s in scores.items()})}")
            if scores[value] > best + 0.004:  # two answers of 494 more, not noise
                chosen[name], best = value, scores[value]
        log(f"chosen: {json.dumps(chosen)}")
        results["chosen"] = answer_all(items, embedder, answer_config, chosen)
    for name, rows in results.items():
        print(name, json.dumps(figures(rows)), flush=True)
    if args.out:
        Path(args.out).write_text(
            json.dumps({n: [r for _, r in rows] for n, rows in results.items()}), encoding="utf-8"
        )


if __name__ == "__main__":
    main()
