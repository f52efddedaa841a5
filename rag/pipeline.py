"""The library's one front door: pages, CLI commands, measurements and tests all call a ``Pipeline``.

``index`` a notes folder, ``search`` for passages, ``ask`` for a streamed, cited answer (``answer`` for the
finished one), and list, read or drop ``campaigns``. Every setting comes from the ``Config`` the caller
built; ``with_settings`` makes a pipeline with other settings on the same heavy parts, so nothing is passed
twice (as an argument and in the config).

Heavy parts (the embedding model, the store client) are created on first use and can be handed in, so the
app keeps one of each in ``st.cache_resource`` and builds a cheap ``Pipeline`` per rerun around them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from rag import access, registry
from rag.answering import AnswerStream, Prepared, named_sessions, respelt_question, respond, standalone_question
from rag.campaign.aliases import AliasTable
from rag.campaign.entities import Cast, Entity, SessionKey, entity_index, resolve, session_key
from rag.campaign.order import session_order
from rag.campaign.recap import RecapLine, recap
from rag.campaign.timeline import SessionEntry, timeline
from rag.config import AnswerConfig, Config, deep_merge, dotted, validate
from rag.embedders import Embedder, get_embedder
from rag.errors import CampaignNotFoundError, ConfigError, LanguageModelError, LimitError, ModelUnavailableError
from rag.expanders import QueryExpander, get_expander
from rag.files import INDEX_HINT, writing
from rag.generators import Generator, History, get_generator
from rag.ingest.campaign_files import CampaignFiles, alias_path, blank_pages, drop_campaign, save_blank_pages
from rag.ingest.indexing import IndexProgress, IndexReport, Progress, sync_campaign
from rag.llm import LLMClient
from rag.llm.fallback import FallbackStream, notice, recently_down, remember
from rag.models import VISIBILITIES, Answer, Chunk, Filters, Hit
from rag.question import Question, read_question
from rag.rerankers import Reranker, get_reranker
from rag.rerankers.cross_encoder import resolve_model
from rag.search.retrieval import Retrieval, Retriever
from rag.stores import Store, get_store
from rag.tracking import record_answer

T = TypeVar("T")
# What the front door hands back besides the value objects of rag.models: pages import them from here
__all__ = [
    "Cast",
    "CampaignFiles",
    "Embedder",
    "Entity",
    "IndexProgress",
    "IndexReport",
    "Pipeline",
    "RecapLine",
    "Retrieval",
    "SessionEntry",
    "SessionKey",
    "Store",
]


class Pipeline:
    """``lenient``: an optional stage (reranker, question expansion) whose model is missing is skipped with
    a notice in ``Retrieval.notices`` instead of failing the search (the app); strict by default (CLI)."""

    def __init__(
        self,
        config: Config,
        *,
        embedder: Embedder | None = None,
        store: Store | None = None,
        reranker: Reranker | None = None,
        generator: Generator | None = None,
        embedder_loader: Callable[[], Embedder] | None = None,
        passages_loader: Callable[[str | None, str], list[Chunk]] | None = None,
        entities_loader: Callable[[str | None, str, float | None], list[Entity]] | None = None,
        lenient: bool = False,
    ):
        self.config = config
        self._embedder = embedder
        self._embedder_loader = embedder_loader
        self._passages_loader = passages_loader  # (campaign, view) → its passages, kept by the caller (the app)
        self._entities_loader = entities_loader  # (campaign, view, "as of session" cap) → ``entity_index``, kept too
        self._store = store
        self._reranker = reranker
        self._generator = generator
        self._expander: QueryExpander | None = None
        self._owns_store = store is None
        self._alias_tables: dict[Path, tuple[int, AliasTable]] = {}  # saved table → (its mtime, the table)
        self.lenient = lenient

    def with_settings(self, changes: dict[str, Any] | None = None, **parts: Any) -> Pipeline:
        """A pipeline with these dotted settings changed (``{"retrieval.k": 20}``), validated like any config,
        on this one's embedder and store; ``parts`` replace a stage (``generator=…``)."""
        config = validate(deep_merge(self.config.model_dump(), dotted(changes or {}))) if changes else self.config
        shared = {
            "embedder": self._embedder,
            "embedder_loader": self._embedder_loader,
            "passages_loader": self._passages_loader,
            "entities_loader": self._entities_loader,
            "store": self.store,
        }
        if config.reranker == self.config.reranker and config.answer == self.config.answer:
            shared["reranker"] = self._reranker  # a loaded reranking model is reused, not loaded again
        if config.answer == self.config.answer and config.retrieval.mode == self.config.retrieval.mode:
            shared["generator"] = self._generator
        clone = Pipeline(config, **{**shared, **parts}, lenient=self.lenient)
        clone._alias_tables = self._alias_tables  # one store: its tables are read once for every setting
        return clone

    # -- stages, built on first use ------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._embedder_loader() if self._embedder_loader else get_embedder(self.config.embedding)
        return self._embedder

    def embedder_for(self, mode: str) -> Embedder | None:
        """Keyword-only work never waits ~10 s for the model; it uses it only if it is already loaded."""
        return self._embedder if mode == "keyword" else self.embedder

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = get_store(self.config)
        return self._store

    @property
    def reranker(self) -> Reranker | None:
        """None unless ``reranker.enabled``; created on first use, reusing the embedder if already loaded."""
        if not self.config.reranker.enabled:
            return None
        if self._reranker is None:
            self._reranker = get_reranker(self.config.reranker, self._embedder, self.config.answer)
        return self._reranker

    @property
    def expander(self) -> QueryExpander | None:
        """None unless ``retrieval.query_expansion``; without a configured LLM this raises with the fix."""
        if not self.config.retrieval.query_expansion:
            return None
        if self._expander is None:
            self._expander = get_expander(self.config)
        return self._expander

    @property
    def generator(self) -> Generator:
        if self._generator is None:
            mode = self.config.retrieval.mode
            self._generator = get_generator(self.config.answer, embedder=self.embedder_for(mode))
        return self._generator

    def _optional(self, stage: str, build: Callable[[], T | None], notices: list[str]) -> T | None:
        """An optional stage, or (when lenient and its model is missing) None and a notice naming the fix."""
        try:
            return build()
        except ModelUnavailableError as err:
            if not self.lenient:
                raise
            notices.append(f"{stage} is off for this search: {err.one_line()}")
            return None

    # -- the work ----------------------------------------------------------------------------------

    def index(
        self,
        notes_dir: str | Path | None = None,
        campaign: str | None = None,
        progress: Progress | None = None,
    ) -> IndexReport:
        """Read the notes folder into the campaign; ``progress`` gets an ``IndexProgress`` after every step. An
        exception raised by ``progress`` stops the run there and keeps every passage it counted: the next run
        reads only the rest."""
        notes_dir = self.config.resolve(str(notes_dir or self.config.notes_dir))
        try:
            with writing(self.store_place, INDEX_HINT):  # a full disk: one message naming the store folder
                report = sync_campaign(self.config, notes_dir, self.embedder, self.store, campaign, progress)
        except BaseException:  # stopped part way: what was written stays, so the saved tables are out of date
            with contextlib.suppress(Exception):  # never in the way of why it stopped
                self._forget_aliases(campaign)
            raise
        if report.embedded or report.deleted or report.relabelled:  # unchanged: reuse the saved tables
            self._forget_aliases(campaign)
        self.aliases(campaign)
        save_blank_pages(self.config, campaign, report.skipped)
        return report

    def search(
        self, question: str | Question, campaign: str | None = None, filters: Filters | None = None
    ) -> Retrieval:
        """The passages for a question (its text, or the ``Question`` already read), with every stage's score;
        mode, k, stages and who is reading (``view``: the player view never returns GM-only passages) from the
        config. A language model that does not answer (other wordings, re-reading) leaves the search to the offline
        stages, with a notice (``rag.llm.fallback``)."""
        if not self._search_asks_the_model():
            return self._search(question, campaign, filters)
        reason = recently_down(self.config.answer)
        if reason is None:
            try:
                return self._search(question, campaign, filters)
            except LanguageModelError as err:
                reason = err.one_line()
                remember(self.config.answer, reason)
        result = self.offline()._search(question, campaign, filters)
        result.notices.insert(0, notice(reason, searching=True, may_fix=self._may_fix()))
        return result

    def _search_asks_the_model(self) -> bool:
        r = self.config
        return r.answer.uses_llm and (
            r.retrieval.query_expansion or (r.reranker.enabled and r.reranker.backend == "llm")
        )

    def offline(self) -> Pipeline:
        """This pipeline without the language model: the offline answerer and search stages (``rag.llm.fallback``)."""
        changes: dict[str, Any] = {"answer.backend": "extractive"}
        if self.config.reranker.backend == "llm":
            changes["reranker.enabled"] = False
        if self.config.retrieval.expander == "llm":
            changes["retrieval.expander"] = "vault"
        return self.with_settings(changes)

    def _search(
        self, question: str | Question, campaign: str | None = None, filters: Filters | None = None
    ) -> Retrieval:
        self.require_campaign(campaign)
        question = self.read(question, campaign)
        filters = replace(filters or Filters(), view=self.config.view)
        notices: list[str] = []
        reranker = self._optional("Reranking", lambda: self.reranker, notices)
        expander = self._optional("Question expansion", lambda: self.expander, notices)
        r = self.config.retrieval
        needs_names = (
            r.alias_expansion
            or (r.spelling_variants and r.mode != "dense")
            or (r.subject_first != "off" and r.mode == "hybrid")
            or (r.party_voice and r.mode != "keyword")  # the table knows the notes' voice
            or (r.first_mention_weight > 0 and r.mode == "hybrid" and question.by_order)  # and what they name
        )
        aliases = self.aliases(campaign) if needs_names else None  # built from this view's passages only
        embedder = self.embedder_for(self.config.retrieval.mode)
        retriever = Retriever(self.config, embedder, self.store, campaign, aliases, reranker, expander)
        result = retriever.retrieve(question, filters)
        result.notices = notices + result.notices  # stages left out, then stages that failed
        return result

    def ask(
        self,
        question: str,
        campaign: str | None = None,
        filters: Filters | None = None,
        history: History | None = None,
    ) -> AnswerStream | FallbackStream:
        """Read the question, rewrite a follow-up, search (errors raise here, before anything streams), then
        answer lazily while the stream is read; ``stream.answer`` is the checked ``Answer``. With a language model,
        its first piece is waited for here: a model that does not answer gets the offline answer instead, with a
        notice (``rag.llm.fallback.FallbackStream``)."""
        started = time.perf_counter()  # every timing of the answer's run record counts from here
        question = self.read(question, campaign)  # a question too long is refused here, by any answerer
        if not self.config.answer.uses_llm:
            return self._ask(question, campaign, filters, history, started)

        def offline() -> AnswerStream:
            return self.offline()._ask(question, campaign, filters, history, started)

        answer = self.config.answer
        reason = recently_down(answer)
        if reason is None:
            try:
                prepared = self._prepare(question, campaign, filters, history)

                def refit(context_tokens: int) -> AnswerStream | None:  # the server named a smaller context
                    try:
                        fitted = self.with_settings({"answer.context_tokens": context_tokens})
                    except ConfigError:  # too small to hold a passage and a reply
                        return None
                    return fitted._respond(prepared, started)  # the same passages: only the prompt is refitted

                primary = self._respond(prepared, started)
                return FallbackStream(answer, primary, offline, refit=refit, may_fix=self._may_fix()).prime()
            except LanguageModelError as err:  # rewriting the follow-up, other wordings, re-reading
                reason = err.one_line()
        return FallbackStream(answer, None, offline, reason, may_fix=self._may_fix())

    def _may_fix(self) -> bool:
        """Whether whoever asks may change the model's settings: told what it said, and where to fix it."""
        return access.may(self.config.role, "settings")

    def _ask(
        self,
        question: Question,
        campaign: str | None = None,
        filters: Filters | None = None,
        history: History | None = None,
        started: float | None = None,
    ) -> AnswerStream:
        started = time.perf_counter() if started is None else started  # when the question came in
        return self._respond(self._prepare(question, campaign, filters, history), started)

    def _prepare(
        self, question: Question, campaign: str | None, filters: Filters | None, history: History | None
    ) -> Prepared:
        """Everything before the answer is written: the follow-up rewritten, the sessions it names, the search."""
        read = self.reader(campaign)
        asked = self.read(question, campaign)
        turns = self.config.answer.history_turns
        history = list(history or [])[-turns:] if turns else []
        standalone, rewrite = standalone_question(asked, history, self.generator, read)
        retrieval = self._search_as_asked(standalone, campaign, filters)  # a model that fails here fails the ask
        if retrieval.respelt:  # "Who is Clarrota?" where the notes write only "Clarota": asked as they spell it
            standalone, rewrite = respelt_question(standalone, retrieval.respelt, rewrite, read)
            retrieval = self._search_as_asked(standalone, campaign, filters)
        filters = retrieval.filters
        lines, retrieval = self._session_recap(standalone, campaign, filters, retrieval)
        return Prepared(asked, standalone, rewrite, retrieval, history, tuple(lines))

    def _search_as_asked(self, question: Question, campaign: str | None, filters: Filters | None) -> Retrieval:
        """The search within the sessions the question names or orders by ("session 5", "before we reached X"),
        narrowed from ``filters``."""
        filters = named_sessions(question, filters or Filters())
        if question.order is not None:  # "last session", "between sessions 10 and 12", "before we reached X"
            filters = self._story_order(question, campaign, filters)
        return self._search(question, campaign, filters)

    def _session_recap(
        self, question: Question, campaign: str | None, filters: Filters, retrieval: Retrieval
    ) -> tuple[list[RecapLine], Retrieval]:
        """For a question that asks only what happened in one session ("What happened in session 5?", "What did
        we do last session?"), that session's recap; for one that asks how it ended ("Where did we leave off?"),
        its last story lines. Their passages are the hits (the search's own where it found them); else no lines and
        the search as it was."""
        if question.kind != "recap" or filters.session_min is None or filters.session_min != filters.session_max:
            return [], retrieval
        passages = self.passages(campaign, filters)
        sessions = sorted(
            {
                key
                for c in passages
                if c.kind == "session" and c.session == filters.session_min and (key := session_key(c))
            }
        )
        talk, entities = self.config.table_talk, self._entities(campaign, filters, passages)
        lines = recap(passages, sessions, talk, entities, ending=question.ending) if sessions else []
        if not lines:
            return [], retrieval
        found, chunks = {h.chunk.id: h for h in retrieval.hits}, {c.id: c for c in passages}
        cited = dict.fromkeys(line.chunk_id for line in lines)
        hits = [replace(found[c], rank=r) if c in found else Hit(chunks[c], 0.0, r) for r, c in enumerate(cited, 1)]
        return lines, replace(retrieval, hits=hits)

    def _respond(self, prepared: Prepared, started: float) -> AnswerStream:
        return respond(prepared, self.generator, self.config.answer, started)

    def record(self, answer: Answer) -> Path:
        """Keep a run record of an answer (``tracking``): the rewrite, passages, prompt, answer and timings."""
        return record_answer(self.config, answer)

    def answer(
        self,
        question: str,
        campaign: str | None = None,
        filters: Filters | None = None,
        history: History | None = None,
    ) -> Answer:
        """``ask`` without streaming: the finished, checked Answer."""
        return self.ask(question, campaign, filters, history).answer

    # -- campaigns --------------------------------------------------------------------------------

    def aliases(self, campaign: str | None = None, rebuild: bool = False) -> AliasTable:
        """The campaign's alias table for this view, built at index time, kept beside the store as JSON and in
        memory (reading it took ~9 ms a question on CRD3); the player view's knows no name only GM notes give."""
        collection, view = self.config.collection(campaign), self.config.view
        path = self._alias_path(campaign, view)
        stamp = path.stat().st_mtime_ns if path.exists() else None  # indexing (any process) rewrites the file
        if not rebuild and (kept := self._alias_tables.get(path)) and kept[0] == stamp:
            return kept[1]
        count = self.store.count(collection, Filters(view=view))
        table = None if rebuild else AliasTable.load(path, count)
        if table is None:
            table = AliasTable.from_chunks(self.store.chunks(collection, filters=Filters(view=view)))
            table.save(path, count)
        self._alias_tables[path] = (path.stat().st_mtime_ns, table)
        return table

    def _forget_aliases(self, campaign: str | None) -> None:
        for view in VISIBILITIES:
            self._alias_path(campaign, view).unlink(missing_ok=True)

    def _alias_path(self, campaign: str | None, view: str) -> Path:
        return alias_path(self.config, campaign, view)

    def campaign_names(self) -> list[str]:
        """Indexed campaigns (collection names without the prefix), without opening any: what a campaign
        list needs at start, where counting every campaign's passages costs ~0.2 s a campaign."""
        prefix = self.config.store.collection_prefix
        return [name[len(prefix) :] for name in sorted(self.store.collections()) if name.startswith(prefix)]

    def passage_count(self, campaign: str | None = None) -> int:
        """Passages of the campaign this view may read (0 when it has no collection)."""
        return self.store.count(self.config.collection(campaign), Filters(view=self.config.view))

    def campaigns(self) -> dict[str, int]:
        """Indexed campaigns → the number of passages this view may read (opens every campaign)."""
        return {name: self.passage_count(name) for name in self.campaign_names()}

    def chunks(self, campaign: str | None = None, source: str | None = None) -> list[Chunk]:
        """The campaign's passages this view may read (all of one note with ``source``), in note order; from the
        ``passages_loader`` the caller keeps, when it gave one (never change the list: it may be shared)."""
        if source is None and self._passages_loader is not None:
            return self._passages_loader(campaign, self.config.view)
        return self.store.chunks(self.config.collection(campaign), source, Filters(view=self.config.view))

    # -- the campaign as players remember it (rag.campaign) ------------------------------------------

    def _story_order(self, question: Question, campaign: str | None, filters: Filters) -> Filters:
        passages = self.passages(campaign)
        sessions = sorted({c.session for c in passages if c.session is not None and c.kind == "session"})
        entities = self._entities(campaign, None, passages)

        def first_seen(name: str) -> float | None:
            entity = resolve(entities, name)
            return entity.first_session[1] if entity is not None and entity.first_session else None

        return session_order(question.order, filters, sessions, first_seen)

    def passages(self, campaign: str | None = None, filters: Filters | None = None) -> list[Chunk]:
        """The passages this view may read, without later session notes than ``filters.session_max``."""
        cap = filters.session_max if filters is not None else None
        return [c for c in self.chunks(campaign) if cap is None or c.session is None or c.session <= cap]

    def entities(self, campaign: str | None = None, filters: Filters | None = None) -> list[Entity]:
        """The campaign's people, places and things as of ``filters.session_max`` (``entity_index``)."""
        return self._entities(campaign, filters)

    def _entities(
        self, campaign: str | None, filters: Filters | None, passages: list[Chunk] | None = None
    ) -> list[Entity]:
        """``entities``, from the ``entities_loader`` the caller keeps, when it gave one: a big campaign's cast
        takes most of a second to read (CRD3's 2,923 passages: 0.3 s), and every page that names people needs it on
        every rerun. Else read from ``passages`` (``passages(campaign, filters)``, when the caller has them
        already) and the pages nothing is written in yet."""
        cap = filters.session_max if filters is not None else None
        if self._entities_loader is not None:
            return self._entities_loader(campaign, self.config.view, cap)
        passages = self.passages(campaign, filters) if passages is None else passages
        return entity_index(passages, blank_pages(self.config, campaign, self.config.view))

    def cast(self, campaign: str | None = None, filters: Filters | None = None) -> Cast:
        """The campaign's people, places and things with the passages they come from (People & places)."""
        passages = self.passages(campaign, filters)
        return Cast(self._entities(campaign, filters, passages), passages)

    def timeline(self, campaign: str | None = None, filters: Filters | None = None) -> list[SessionEntry]:
        passages = self.passages(campaign, filters)
        return timeline(passages, self._entities(campaign, filters, passages), self.config.table_talk)

    def recap(
        self, sessions: list[SessionKey], campaign: str | None = None, filters: Filters | None = None
    ) -> list[RecapLine]:
        passages = self.passages(campaign, filters)
        return recap(passages, sessions, self.config.table_talk, self._entities(campaign, filters, passages))

    def drop(self, campaign: str, uploads: bool = False) -> None:
        """The campaign and every file it left (its uploads too with ``uploads``); refused to a player."""
        drop_campaign(self.config, self.store, campaign, uploads)

    def read(self, question: str | Question, campaign: str | None = None) -> Question:
        """The question read once (``rag.question``), as ``reader`` reads it; a text over ``limits.question_chars``
        is refused before any work (a pasted chapter is not a question)."""
        if isinstance(question, Question):
            return question
        limit = self.config.limits.question_chars
        if len(question) > limit:
            raise LimitError(
                f"That question is {len(question):,} characters long; ask it in at most {limit:,} characters."
            )
        return self.reader(campaign)(question)

    def reader(self, campaign: str | None = None) -> Callable[[str], Question]:
        """How the campaign's questions are read (``rag.question.read_question``): one typed without capitals with
        the words its notes write as names (``AliasTable.cased``: "did grog get the greatsword?" names Grog where
        the notes capitalise him, and no Greatsword), read from the player's view of the notes like the rest of the
        alias table; any other question, or one asked before the campaign is indexed, from its text alone."""

        def cased() -> dict[str, bool]:  # asked for only by a question typed without capitals
            indexed = self.config.collection(campaign) in self.store.collections()
            return self.aliases(campaign).cased if indexed else {}

        def read(text: str) -> Question:
            return read_question(text, cased)

        return read

    def require_campaign(self, campaign: str | None = None) -> None:
        name = self.config.collection(campaign)
        if name not in self.store.collections():
            raise CampaignNotFoundError(f"Campaign '{campaign or self.config.campaign}' has no notes indexed yet.")

    @property
    def store_place(self) -> str:
        """Where the store writes, for messages: its server, or its folder."""
        return self.config.store.url or self.config.store_path

    # -- parts and checks, for the app's caches and its Settings page ----------------------------------

    @property
    def files(self) -> CampaignFiles:
        """The campaigns' files: uploads, the folders notes were read from, which folders may be read."""
        return CampaignFiles(self.config)

    @staticmethod
    def load_embedder(config: Config) -> Embedder:
        """The configured embedding model, loaded (seconds): what the app keeps in ``st.cache_resource``; a model
        that does not load raises ``ModelUnavailableError`` with the fix."""
        return get_embedder(config.embedding)

    @staticmethod
    def open_store(config: Config) -> Store:
        """A client of the configured store (a folder is locked while it is open): close it when done."""
        return get_store(config)

    @staticmethod
    def backends(kind: str) -> list[str]:
        """The backends installed for a stage (``embedders``, ``stores``, ``rerankers``…), by config string."""
        return registry.available(kind)

    @staticmethod
    def reranking_model(model: str) -> str:
        """Where the ``cross-encoder`` reranker would load ``model`` from; ``ModelUnavailableError`` if nowhere."""
        return resolve_model(model)

    @staticmethod
    def ping_answer_model(answer: AnswerConfig) -> str:
        """Ask the answer model for one word and return what it said (errors in player words)."""
        ping = [{"role": "user", "content": "Reply with the single word: ready"}]
        return LLMClient(answer).complete(ping, max_tokens=16)

    def close(self) -> None:
        if self._owns_store and self._store is not None:
            store, self._store = self._store, None
            with writing(self.store_place):  # an embedded store writes what it holds on close
                store.close()
