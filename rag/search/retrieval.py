"""Question → ranked hits, keeping every stage's score on every hit.

First stages are the engine's own (dense cosine, BM25 keyword). Fusion is Reciprocal Rank Fusion done
here rather than inside Qdrant, because Qdrant's fused query returns only the fused score and the
dashboard charts each stage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rag.campaign.aliases import AliasTable
from rag.config import Config
from rag.embedders import Embedder
from rag.errors import ChroniclerError, LanguageModelError
from rag.expanders import QueryExpander
from rag.models import Chunk, Filters, Hit, same_words
from rag.names import content_words
from rag.question import Question, told_of_the_party
from rag.rerankers import Reranker
from rag.search import structure
from rag.search.first_mention import mention_passages
from rag.search.ties import break_tie
from rag.search.unknown_names import respellings, unknown_names
from rag.stores import Store


@dataclass
class Retrieval:
    """What one question found: the kept top-k, every candidate (for the inspector), and timings."""

    question: str
    hits: list[Hit]
    candidates: list[Hit]
    mode: str
    filters: Filters
    timings: dict[str, float] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)  # stage → the text it searched for the question
    queries: list[str] = field(default_factory=list)  # the question, then the expander's phrasings
    notices: list[str] = field(default_factory=list)  # optional stages skipped or failed, with the fix
    verdict: str | None = None  # the reranker's word on the best passage ("high"/"medium"/"low"), if it gives one
    unknown: list[str] = field(default_factory=list)  # names the question asks about that the notes never write
    respelt: dict[str, str] = field(default_factory=dict)  # the question's names the notes write only another way

    @property
    def shares_no_word(self) -> bool:
        """None of the passages kept has a word of the question: a search always finds the nearest passages, and
        for words the notes never use ("xyzzy plugh") they are near in nothing but the model's space."""
        asked = content_words(self.question)
        return bool(self.hits) and not any(asked & content_words(h.chunk.text) for h in self.hits)


def reread_failed(err: ChroniclerError) -> str:
    """The line a player reads when re-reading the passages with the language model did not work."""
    return (
        "Re-reading the passages with the language model did not work, so they are in the order the search "
        f"found them: {err.one_line()}"
    )


def rrf(rankings: dict[str, list[tuple[Chunk, float]]], k: int, weights: dict[str, float]) -> dict[str, float]:
    """Weighted Reciprocal Rank Fusion: sum over lists of weight / (k + rank).

    Equal scores share the better rank: two passages of a two-passage note have the same context window, so
    the same context score, and the engine's order between them is arbitrary (it changed an eval between two
    builds of the same index)."""
    fused: dict[str, float] = {}
    for stage, found in rankings.items():
        w = weights.get(stage, 1.0)
        rank, previous = 0, None
        for position, (chunk, score) in enumerate(found, start=1):
            if score != previous:
                rank, previous = position, score
            fused[chunk.id] = fused.get(chunk.id, 0.0) + w / (k + rank)
    return fused


def with_phrasings(found: list[list[Hit]], weight: float) -> list[Hit]:
    """The question's own hits (``found[0]``) with what its other phrasings found added: each phrasing's score
    for a passage, times ``weight``, is added to the passage's own (``scores["expansion"]``), and a passage only
    a phrasing found comes in with that alone. A phrasing is a guess at what the player meant, so it counts less.

    Why added, not the best of the two: a passage that the question and its phrasing both find is likelier the
    one; keeping the best and the phrasing's own stage scores made the reranker read a longer phrasing's higher
    scores as the question's, and lose its best passage (docs/experiments/history.md). The stage scores a hit carries stay
    the question's own; a passage only a phrasing found has none, like a passage a stage did not find."""
    best: dict[str, Hit] = {h.chunk.id: h for h in found[0]}
    for hits in found[1:]:
        for hit in hits:
            added = hit.score * weight
            mine = best.get(hit.chunk.id)
            if mine is None:
                best[hit.chunk.id] = mine = Hit(hit.chunk, 0.0, hit.rank, {}, {}, hit.variant)
            mine.score += added
            mine.scores["expansion"] = mine.scores.get("expansion", 0.0) + added
    merged = sorted(best.values(), key=lambda h: -h.score)  # stable: ties keep the question's own order
    for rank, hit in enumerate(merged, start=1):
        hit.rank = hit.ranks["first_stage"] = rank
    return merged


def without_repeats(candidates: list[Hit]) -> list[Hit]:
    """The candidates with each passage whose words repeat a better one's left out, ranked again. A vault can hold
    one note twice (a copied file, three sessions' "notes missing" page), and the same words three times filled
    three of a player's five places with nothing new."""
    seen: set[str] = set()
    kept: list[Hit] = []
    for hit in candidates:
        words = same_words(hit.chunk.text)
        if words not in seen:
            seen.add(words)
            kept.append(hit)
    if len(kept) < len(candidates):
        for rank, hit in enumerate(kept, start=1):
            hit.rank = hit.ranks["first_stage"] = rank
    return kept


def in_story_order_when_tied(found: list[tuple[Chunk, float]]) -> list[tuple[Chunk, float]]:
    """A stage's results best first, passages with equal scores in story order. Engines order ties as they
    please, and differently from one process to the next (the embedded engine's keyword search did): a tie's rank
    is a feature of the reranker, so the same question got another answer in another run (a FairytaleQA question
    moved between "high" and "medium" confidence)."""
    return sorted(found, key=lambda found: (-found[1], found[0].story_key))


def best_with_ties_in_story_order(
    search: Callable[[int], list[tuple[Chunk, float]]], limit: int
) -> list[tuple[Chunk, float]]:
    """The best ``limit`` results of ``search(n)`` (an engine's best n, best first), ties in story order at the cut
    too. An engine returns tied passages in the order they were written into it, so which of two passages tied for
    the last place got in depended on which note a sync had read first: a campaign synced in two steps kept
    another passage than the same notes indexed at once (keyword scores tie often: two passages with the same
    words of the question in the same number of words). Asked for one more than it keeps, and for twice as many
    while that one still ties with the last kept."""
    if limit <= 0:
        return []
    asked = limit + 1
    while True:
        found = search(asked)
        if len(found) < asked or found[-1][1] < found[limit - 1][1]:
            return in_story_order_when_tied(found)[:limit]
        asked *= 2


class Retriever:
    def __init__(
        self,
        config: Config,
        embedder: Embedder | None,
        store: Store,
        campaign: str | None = None,
        aliases: AliasTable | None = None,
        reranker: Reranker | None = None,
        expander: QueryExpander | None = None,
    ):
        self.config = config
        self.embedder = embedder
        self.store = store
        self.collection = config.collection(campaign)
        self.aliases = aliases
        self.reranker = reranker
        self.expander = expander
        self._stage_texts: dict[tuple[str, str], dict[str, str]] = {}  # one search: the trace and the stages
        self._first_mentions: list[Chunk] | None = None  # one search: the same for every phrasing

    def retrieve(self, question: Question, filters: Filters | None = None) -> Retrieval:
        """Mode, k, weights and the threshold all come from ``config.retrieval``. Every phrasing of the question
        is searched with the question's own reading (``Question``): what it asks does not change with its words.
        A Retriever serves one search (it keeps that search's stage texts), never two."""
        text = " ".join(question.text.split())
        if not text:
            raise ChroniclerError("Type a question first.")
        cfg = self.config.retrieval
        mode, k = cfg.mode, cfg.k
        if mode != "keyword" and self.embedder is None:
            raise ChroniclerError(f"Retrieval mode '{mode}' needs an embedding model.")
        filters = filters or Filters()
        timings: dict[str, float] = {}
        variants = self._stage_queries(text, mode, question)  # the question's own, for the trace
        (own, pinned), *_ = self._search(question, [text], mode, max(cfg.candidates, k), filters, timings)
        found, queries = [own], [text]
        # other phrasings, which may build on what the question found; not for "Who is X?" when the search placed
        # passages first on purpose (``structure.subject_passages``): other wordings pushed them down (held-out
        # vault, docs/experiments/history.md)
        if self.expander is not None and pinned is None:
            t0 = time.perf_counter()
            queries += self.expander.expand(question, cfg.expansion_variants, self.aliases, own)
            timings["expand"] = time.perf_counter() - t0
            more = self._search(question, queries[1:], mode, max(cfg.candidates, k), filters, timings)
            found += [hits for hits, _ in more]
        candidates = without_repeats(found[0] if len(found) == 1 else with_phrasings(found, cfg.expansion_weight))
        notices: list[str] = []
        for hit in candidates:
            hit.searched = hit.score
        if self.reranker is not None and candidates:
            t0 = time.perf_counter()
            try:
                candidates = self._rerank(question, candidates)
            except LanguageModelError as err:  # the llm reranker: the order the search found serves the question
                notices.append(reread_failed(err))
            timings["rerank"] = time.perf_counter() - t0
        # The threshold cuts the search's own score, on the scale its slider shows for the mode. Cut on the reranker's
        # (about -3 to 1), a keyword threshold of .5 dropped the 20 passages re-read and kept the 21st on (#1)
        floor = cfg.score_threshold
        for hit in candidates:
            hit.kept = floor is None or hit.searched >= floor
        kept = [h for h in candidates if h.kept][:k]
        if cfg.order == "session":  # read like the campaign unfolded; each hit keeps its rank for the charts
            kept.sort(key=lambda h: h.chunk.story_key)
        timings["total"] = sum(timings.values())
        best = min(kept, key=lambda h: h.rank, default=None)  # kept[0] is not the best in session order
        rerank = best.scores.get("rerank") if best is not None else None
        verdict = self.reranker.verdict(rerank) if self.reranker is not None and rerank is not None else None
        # the alias table knows the names of every session: with "as of session N", of sessions the search may not read
        whole = self.aliases is not None and filters.session_max is None and filters.session_min is None
        unknown = (
            unknown_names(question, candidates, self.aliases.words if whole else frozenset()) if mode != "dense" else []
        )
        spelt_as = self.aliases.spellings.spelt_as(text) if self._searches_spellings(mode) else {}
        return Retrieval(
            text,
            kept,
            candidates,
            mode,
            filters,
            timings,
            variants,
            queries,
            notices=notices,
            verdict=verdict,
            unknown=unknown,
            respelt=respellings(spelt_as, candidates),
        )

    def _searches_spellings(self, mode: str) -> bool:
        """The keyword stages search the notes' other spellings of the question's names."""
        return mode != "dense" and self.config.retrieval.spelling_variants and self.aliases is not None

    def _search(
        self, question: Question, queries: list[str], mode: str, limit: int, filters: Filters, timings: dict[str, float]
    ) -> list[tuple[list[Hit], str | None]]:
        """Each query (the question's text or a phrasing of it) through the first stages and the fusion: one
        ranked list of hits per query, and the passage it put first on purpose ("Who is X?"), if any."""
        if not queries:
            return []
        stages = [self._stage_queries(query, mode, question) for query in queries]
        vectors: list = [None] * len(queries)
        if mode != "keyword":
            t0 = time.perf_counter()
            vectors = list(self.embedder.embed_queries([s["dense"] for s in stages]))
            timings["embed"] = timings.get("embed", 0.0) + time.perf_counter() - t0
        found = []
        for stage_queries, vector in zip(stages, vectors, strict=True):
            rankings = self._first_stage(question, stage_queries, vector, limit, filters, timings)
            found.append(self._merge(question, rankings, mode, stage_queries, self._link_search(vector, filters)))
        return found

    def _in_the_notes_voice(self, query: str) -> str:
        """What the meaning search reads: asked in the party's voice, told as the notes tell it (``rag.campaign.voice``:
        "us" is "the party" where the notes never say "we"). Keyword search keeps the question's own words."""
        cfg, table = self.config.retrieval, self.aliases
        if cfg.party_voice and table is not None and table.we_per_thousand < cfg.third_person_below:
            return told_of_the_party(query)
        return query

    def _stage_queries(self, query: str, mode: str, question: Question) -> dict[str, str]:
        """stage → the text it searches: keyword search also gets the aliases of names in the query."""
        if (query, mode) not in self._stage_texts:
            self._stage_texts[(query, mode)] = self._stage_texts_for(query, mode, question)
        return dict(self._stage_texts[(query, mode)])

    def _stage_texts_for(self, query: str, mode: str, question: Question) -> dict[str, str]:
        stages = {"dense": self._in_the_notes_voice(query), "keyword": query}
        other_names = []
        if self.config.retrieval.alias_expansion and self.aliases is not None:
            other_names += self.aliases.expand(query)
        if self._searches_spellings(mode):  # "Ellias" also finds "Elias"
            other_names += self.aliases.spellings.variants(query)
        if other_names:
            stages["keyword"] = f"{query} {' '.join(other_names)}"
        stages = {s: t for s, t in stages.items() if mode in (s, "hybrid")}
        if mode == "hybrid" and self.config.retrieval.context_weight > 0:
            stages["context"] = stages["keyword"]  # the same words, over each passage with its neighbours
        if mode == "hybrid" and self.config.retrieval.first_mention_weight > 0 and question.by_order:
            stages["first_mention"] = query
        return stages

    def _first_stage(
        self,
        question: Question,
        stage_queries: dict[str, str],
        vector,
        limit: int,
        filters: Filters,
        timings: dict[str, float],
    ) -> dict[str, list[tuple[Chunk, float]]]:
        rankings: dict[str, list[tuple[Chunk, float]]] = {}
        for stage, text in stage_queries.items():
            t0 = time.perf_counter()
            if stage == "dense":
                rankings[stage] = best_with_ties_in_story_order(
                    lambda n: self.store.dense_search(self.collection, vector, n, filters), limit
                )
            elif stage == "first_mention":  # score: 1 for the first (or last) passage naming it, 1/2 for the next…
                if self._first_mentions is None:
                    cased = self.aliases.cased if self.aliases is not None else {}
                    self._first_mentions = mention_passages(self.store, self.collection, question, filters, cased)
                found = self._first_mentions
                rankings[stage] = [(c, 1.0 / i) for i, c in enumerate(found, start=1)]
            else:
                context = stage == "context"
                rankings[stage] = best_with_ties_in_story_order(
                    lambda n, text=text, context=context: self.store.keyword_search(
                        self.collection, text, n, filters, context=context
                    ),
                    limit,
                )
            timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - t0
        return rankings  # each in story order where tied (the first mentions' scores never tie)

    def _rerank(self, question: Question, candidates: list[Hit]) -> list[Hit]:
        """Re-score the top ``reranker.candidates`` and reorder them; the rest keep their order below. Every
        candidate keeps its first-stage score and rank until the reranker has scored them all: one that fails
        midway leaves them as they were."""
        n = self.config.reranker.candidates
        head, tail = candidates[:n], candidates[n:]
        scores = self.reranker.rerank(question, head)
        if len(scores) != len(head):
            raise ChroniclerError(
                f"The reranker returned {len(scores)} scores for {len(head)} passages.",
                hint="This is a bug in the reranker backend.",
            )
        for hit, score in zip(head, scores, strict=True):
            hit.score = hit.scores["rerank"] = float(score)
            hit.sure = self.reranker.certainty(hit.score)
        head = sorted(head, key=lambda h: -h.score)  # stable: ties keep the first-stage order
        for rank, hit in enumerate(head + tail, start=1):
            hit.rank = rank
            if rank <= len(head):
                hit.ranks["rerank"] = rank
        return break_tie(question, head + tail, self.embedder, self.config.reranker.tie_margin, self.config.retrieval)

    def _link_search(self, vector, filters: Filters) -> structure.LinkSearch | None:
        """Session passages that link a page, best first by meaning, within the search's own filters."""
        if vector is None or filters.entities:  # keyword-only, or the player already chose whose passages
            return None
        limit = self.config.retrieval.candidates

        def search(pages: tuple[str, ...]) -> list[Chunk]:
            linking = Filters(**{**vars(filters), "entities": pages})
            return [c for c, _ in self.store.dense_search(self.collection, vector, limit, linking)]

        return search

    def _merge(
        self,
        question: Question,
        rankings: dict[str, list[tuple[Chunk, float]]],
        mode: str,
        variants: dict[str, str],
        link_search: structure.LinkSearch | None = None,
    ) -> tuple[list[Hit], str | None]:
        cfg = self.config.retrieval
        pinned = None
        chunks: dict[str, Chunk] = {}
        scores: dict[str, dict[str, float]] = {}
        ranks: dict[str, dict[str, int]] = {}
        for stage, found in rankings.items():
            for rank, (chunk, score) in enumerate(found, start=1):
                chunks.setdefault(chunk.id, chunk)
                scores.setdefault(chunk.id, {})[stage] = float(score)
                ranks.setdefault(chunk.id, {})[stage] = rank
        if mode == "hybrid":
            weights = {
                "dense": cfg.dense_weight,
                "keyword": cfg.keyword_weight,
                "context": cfg.context_weight,
                "first_mention": cfg.first_mention_weight,
            }
            fused, links = structure.reweigh(question, rrf(rankings, cfg.rrf_k, weights), chunks, cfg, link_search)
            for cid, value in fused.items():
                scores.setdefault(cid, {})["fused"] = value
                ranks.setdefault(cid, {})
            for rank, cid in enumerate(sorted(links, key=lambda c: -links[c]), start=1):
                scores[cid]["links"], ranks[cid]["links"] = links[cid], rank
            order = sorted(fused, key=lambda cid: -fused[cid])
            placed = structure.subject_passages(question, order, chunks, self.aliases, cfg.subject_first)
            if placed:  # first, with the best score, so a threshold never drops them
                order = [*placed, *(cid for cid in order if cid not in placed)]
                top = max(fused.values())
                fused.update(dict.fromkeys(placed, top))
                pinned = placed[0]
            final = fused
        else:
            stage = next(iter(rankings))
            order = [c.id for c, _ in rankings[stage]]
            final = {cid: scores[cid][stage] for cid in order}
        hits = []
        stage_text = {**variants, "links": variants.get("dense", "")}
        for rank, cid in enumerate(order, start=1):
            ranks[cid]["first_stage"] = rank
            # the variant that ranked it best is the one that "found" it
            best = min((r, stage) for stage, r in ranks[cid].items() if stage in stage_text)[1]
            hits.append(Hit(chunks[cid], final[cid], rank, scores[cid], ranks[cid], stage_text[best]))
        return hits, pinned
