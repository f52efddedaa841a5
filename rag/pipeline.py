"""The library's front door: what the CLI and the pages call.

Heavy parts (the embedding model, the store client) are created on first use and can be handed in,
so the app keeps one of each in ``st.cache_resource`` and builds a cheap ``Pipeline`` per rerun.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from rag.config import Config
from rag.embedders import Embedder, get_embedder
from rag.expanders import QueryExpander, get_expander
from rag.search.aliases import AliasTable
from rag.ingest.indexing import IndexReport, sync_campaign
from rag.models import Chunk, Filters
from rag.rerankers import Reranker, get_reranker
from rag.search.retrieval import Retrieval, Retriever
from rag.stores import Store, get_store


class Pipeline:
    def __init__(
        self,
        config: Config,
        embedder: Embedder | None = None,
        store: Store | None = None,
        reranker: Reranker | None = None,
    ):
        self.config = config
        self._embedder = embedder
        self._store = store
        self._reranker = reranker
        self._expander: QueryExpander | None = None
        self._owns_store = store is None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = get_embedder(self.config.embedding)
        return self._embedder

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
    def store(self) -> Store:
        if self._store is None:
            self._store = get_store(self.config)
        return self._store

    def embedder_for(self, mode: str) -> Embedder | None:
        """Keyword-only work never waits ~10 s for the model; it uses it only if it is already loaded."""
        return self._embedder if mode == "keyword" else self.embedder

    def index(
        self,
        notes_dir: str | Path | None = None,
        campaign: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> IndexReport:
        notes_dir = self.config.resolve(str(notes_dir or self.config.notes_dir))
        report = sync_campaign(self.config, notes_dir, self.embedder, self.store, campaign, progress)
        self.aliases(campaign, rebuild=bool(report.embedded or report.deleted))  # unchanged: reuse the saved table
        return report

    def aliases(self, campaign: str | None = None, rebuild: bool = False) -> AliasTable:
        """The campaign's alias table, built at index time and kept beside the store as JSON."""
        collection = self.config.collection(campaign)
        path = self.config.data_path / "aliases" / f"{collection}.json"
        count = self.store.count(collection)
        if not rebuild and path.exists():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                if saved.get("count") == count:
                    return AliasTable.from_names(saved["names"])
            except (OSError, ValueError, KeyError):
                pass  # rebuilt below
        table = AliasTable.from_chunks(self.store.chunks(collection))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"count": count, "names": table.names}, ensure_ascii=False), encoding="utf-8")
        return table

    def retrieve(
        self,
        question: str,
        campaign: str | None = None,
        k: int | None = None,
        filters: Filters | None = None,
        mode: str | None = None,
    ) -> Retrieval:
        mode = mode or self.config.retrieval.mode
        embedder = self.embedder_for(mode)
        self.require_campaign(campaign)
        aliases = self.aliases(campaign) if self.config.retrieval.alias_expansion else None
        retriever = Retriever(self.config, embedder, self.store, campaign, aliases, self.reranker, self.expander)
        return retriever.retrieve(question, k, filters, mode)

    def campaigns(self) -> dict[str, int]:
        """Indexed campaigns → chunk count (collection names without the prefix)."""
        prefix = self.config.store.collection_prefix
        return {
            name[len(prefix) :]: self.store.count(name)
            for name in sorted(self.store.collections())
            if name.startswith(prefix)
        }

    def chunks(self, campaign: str | None = None, source: str | None = None) -> list[Chunk]:
        return self.store.chunks(self.config.collection(campaign), source)

    def drop(self, campaign: str) -> None:
        self.store.drop(self.config.collection(campaign))

    def require_campaign(self, campaign: str | None = None) -> None:
        from rag.errors import CampaignNotFoundError

        name = self.config.collection(campaign)
        if name not in self.store.collections():
            raise CampaignNotFoundError(f"Campaign '{campaign or self.config.campaign}' has no notes indexed yet.")

    def close(self) -> None:
        if self._owns_store and self._store is not None:
            self._store.close()
            self._store = None
