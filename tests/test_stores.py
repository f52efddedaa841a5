"""The same contract for every store backend, on hand-made vectors (no embedding model).

Parametrized over ``qdrant`` (in memory and on a folder) and ``edge`` (folder and temporary folder):
whatever retrieval relies on must hold for both, or switching ``store.backend`` changes answers.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from rag.config import Config, StoreConfig
from rag.errors import CampaignNotFoundError, OtherModelError, StoreError, StoreLockedError
from rag.models import Chunk, Filters
from rag.stores import Store, edge, get_store

BACKENDS = [("qdrant", "memory"), ("qdrant", "disk"), ("edge", "disk"), ("edge", "memory")]
ON_DISK = [b for b in BACKENDS if b[1] == "disk"]
CAMPAIGN = "Test Campaign"
ROOT = Path(__file__).resolve().parent.parent


def make_config(tmp_path, backend: str, where: str) -> Config:
    path = ":memory:" if where == "memory" else str(tmp_path / "store")
    return Config(data_dir=str(tmp_path / "data"), store=StoreConfig(backend=backend, path=path))


def unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def chunk(source: str, position: int, text: str, session=None, **kw) -> Chunk:
    name = f"{source} · Part {position + 1}"
    return Chunk(campaign=CAMPAIGN, source=source, position=position, text=text, name=name, session=session, **kw)


# Six chunks: three sessions of campaign 1, one of campaign 2, and an NPC note without a session.
# fmt: off
CHUNKS = [
    chunk("Session 1.md", 0, "The party meets in a tavern and the bard sings badly.", 1,
          campaign_no=1, entities=("Scanlan",)),
    chunk("Session 1.md", 1, "They travel by boat towards Vasselheim, the city of the gods.", 1,
          campaign_no=1, entities=("Vex'ahlia", "Vax'ildan")),
    chunk("Session 2.md", 0, "A dragon attacks the village and the party runs from the dragon.", 2,
          campaign_no=1, entities=("Thordak",)),
    chunk("Session 3.md", 0, "The party defeats the dragon with help from the village.", 3,
          campaign_no=1, entities=("Thordak", "Scanlan")),
    chunk("C2 Session 1.md", 0, "A new party of adventurers gathers at a tavern on the coast.", 1, campaign_no=2),
    chunk("NPCs/Scanlan.md", 0, "Scanlan is a gnome bard of the party who sings of every dragon.", None,
          kind="NPCs", entities=("Scanlan",)),
]
VECTORS = np.stack([unit(1, 0, 0, 0), unit(1, 1, 0, 0), unit(0, 1, 0, 0), unit(0, 1, 1, 0),
                    unit(0, 0, 1, 0), unit(0, 0, 0, 1)])
# fmt: on
HASHES = [f"h{i}" for i in range(len(CHUNKS))]


@pytest.fixture(params=BACKENDS, ids=["-".join(b) for b in BACKENDS])
def config(request, tmp_path) -> Config:
    return make_config(tmp_path, *request.param)


@pytest.fixture
def store(config):
    s = get_store(config)
    yield s
    s.close()


@pytest.fixture
def filled(store, config) -> tuple[Store, str]:
    """A fresh collection with CHUNKS, for tests that write."""
    name = config.collection(CAMPAIGN)
    assert store.ensure_collection(name, 4) is True
    store.upsert(name, CHUNKS, VECTORS, HASHES)
    return store, name


@pytest.fixture(scope="module", params=BACKENDS, ids=["-".join(b) for b in BACKENDS])
def shared(request, tmp_path_factory):
    """One filled collection per backend for the read-only tests: creating an edge collection with
    its six payload indexes takes ~0.2-1 s, and there are dozens of filter cases."""
    config = make_config(tmp_path_factory.mktemp("shared"), *request.param)
    store = get_store(config)
    name = config.collection(CAMPAIGN)
    store.ensure_collection(name, 4)
    store.upsert(name, CHUNKS, VECTORS, HASHES)
    yield store, name
    store.close()


def ids(results) -> list[str]:
    return [c.id for c, _ in results]


def test_ensure_collection_creates_keeps_and_recreates_on_dim_change(store, config):
    name = config.collection(CAMPAIGN)
    assert store.ensure_collection(name, 4) is True
    assert store.ensure_collection(name, 4) is False
    store.upsert(name, CHUNKS, VECTORS, HASHES)
    assert store.ensure_collection(name, 4) is False and store.count(name) == len(CHUNKS)
    assert store.ensure_collection(name, 8) is True
    assert store.count(name) == 0
    store.upsert(name, CHUNKS[:1], np.ones((1, 8)), ["x"])
    assert store.count(name) == 1


def test_a_question_embedded_by_another_model_is_refused_in_words_until_the_campaign_is_made_again(store, config):
    """Settings changed the embedding model and the campaign was not read again: its passages' vectors have
    another size than the question's. The engines refuse it in their own words (a bare Exception on edge); the
    store says what to do. Made again at the new size, it is searched."""
    name = config.collection(CAMPAIGN)
    store.ensure_collection(name, 4)
    store.upsert(name, CHUNKS, VECTORS, HASHES)
    assert len(store.dense_search(name, unit(1, 0, 0, 0), limit=2)) == 2
    with pytest.raises(OtherModelError, match="Read its notes again"):
        store.dense_search(name, np.ones(8, dtype=np.float32), limit=2)
    store.ensure_collection(name, 8)
    store.upsert(name, CHUNKS[:1], np.ones((1, 8)), ["x"])
    assert ids(store.dense_search(name, np.ones(8, dtype=np.float32), limit=2)) == [CHUNKS[0].id]


def test_collections_lists_prefixed_names_and_drop_removes(store, config):
    name = config.collection(CAMPAIGN)
    assert store.collections() == []
    store.ensure_collection(name, 4)
    store.ensure_collection(config.collection("Other"), 4)
    assert store.collections() == sorted([name, config.collection("Other")])
    store.drop(name)
    store.drop(name)  # twice is fine
    assert store.collections() == [config.collection("Other")]


def test_upsert_count_hashes_update_and_delete(filled):
    store, name = filled
    assert store.count(name) == 6
    assert store.stored_hashes(name) == {c.id: h for c, h in zip(CHUNKS, HASHES, strict=True)}
    store.upsert(name, CHUNKS[:2], VECTORS[:2], ["new0", "new1"])  # same ids: update, not duplicate
    assert store.count(name) == 6
    assert store.stored_hashes(name)[CHUNKS[0].id] == "new0"
    store.delete(name, [CHUNKS[0].id, CHUNKS[5].id])
    store.delete(name, [])
    assert store.count(name) == 4
    assert set(store.stored_hashes(name)) == {c.id for c in CHUNKS[1:5]}


def test_upsert_rejects_mismatched_batch(filled):
    store, name = filled
    with pytest.raises(ValueError, match="one vector and one hash per chunk"):
        store.upsert(name, CHUNKS[:2], VECTORS[:1], HASHES[:2])


def test_dense_search_ranks_by_cosine(shared):
    store, name = shared
    query = unit(1, 0.3, 0.1, 0.05)
    results = store.dense_search(name, query, limit=4)
    assert ids(results) == [CHUNKS[i].id for i in (0, 1, 2, 3)]
    assert [s for _, s in results] == pytest.approx([float(VECTORS[i] @ query) for i in (0, 1, 2, 3)], abs=1e-5)
    assert results[0][0] == CHUNKS[0]  # the payload round-trips into an equal Chunk
    assert len(store.dense_search(name, query, limit=100)) == 6


def test_keyword_search_finds_rare_proper_noun_first(shared):
    store, name = shared
    for query in ("Vasselheim", "where is vasselheim?", "boat to Vasselheim tavern"):
        results = store.keyword_search(name, query, limit=5)
        assert results[0][0].id == CHUNKS[1].id, query
        assert results[0][1] > 0
        assert all(a[1] >= b[1] for a, b in zip(results, results[1:], strict=False))
    assert store.keyword_search(name, "?!", limit=5) == []
    assert store.keyword_search(name, "Nonexistentword", limit=5) == []


def test_keyword_search_word_matching(shared):
    store, name = shared
    found = {c.id for c, _ in store.keyword_search(name, "DRAGON", limit=10)}
    assert {CHUNKS[2].id, CHUNKS[3].id, CHUNKS[5].id} <= found
    assert CHUNKS[0].id not in found


SEARCHES = {
    "dense": lambda s, n, f: s.dense_search(n, unit(1, 1, 1, 1), limit=10, filters=f),
    "keyword": lambda s, n, f: s.keyword_search(n, "party tavern dragon Vasselheim", limit=10, filters=f),
}


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (None, {0, 1, 2, 3, 4, 5}),
        (Filters(), {0, 1, 2, 3, 4, 5}),
        (Filters(session_max=2), {0, 1, 2, 4}),  # hides session 3 and the sessionless NPC note
        (Filters(session_min=2, session_max=2.5), {2}),
        (Filters(session_min=3), {3}),
        (Filters(campaign_no=2), {4}),
        (Filters(sources=("Session 2.md", "NPCs/Scanlan.md")), {2, 5}),
        (Filters(entities=("Scanlan",)), {0, 3, 5}),
        (Filters(entities=("Vax'ildan", "Thordak")), {1, 2, 3}),
        (Filters(kinds=("NPCs",)), {5}),
        (Filters(session_max=1, campaign_no=1, entities=("Scanlan",)), {0}),
        (Filters(kinds=("nothing",)), set()),
    ],
)
def test_filters(shared, search, filters, expected):
    store, name = shared
    found = SEARCHES[search](store, name, filters)
    assert {c.id for c, _ in found} == {CHUNKS[i].id for i in expected}


def test_chunks_in_source_position_order_and_by_source(shared):
    store, name = shared
    assert store.chunks(name) == sorted(CHUNKS, key=lambda c: (c.source, c.position))
    assert store.chunks(name, source="Session 1.md") == CHUNKS[:2]
    assert store.chunks(name, source="nope.md") == []


def test_missing_collection(store):
    name = "chronicler-never-indexed"
    assert store.count(name) == 0
    assert store.stored_hashes(name) == {}
    assert store.chunks(name) == []
    store.delete(name, [CHUNKS[0].id])
    store.drop(name)
    with pytest.raises(CampaignNotFoundError, match=name):
        store.dense_search(name, unit(1, 0, 0, 0), limit=3)
    with pytest.raises(CampaignNotFoundError, match=name):
        store.keyword_search(name, "dragon", limit=3)
    with pytest.raises(CampaignNotFoundError, match=name):
        store.upsert(name, CHUNKS[:1], VECTORS[:1], HASHES[:1])
    assert store.collections() == []


@pytest.mark.parametrize(("backend", "where"), ON_DISK, ids=["-".join(b) for b in ON_DISK])
def test_persists_across_close_and_reopen(tmp_path, backend, where):
    config = make_config(tmp_path, backend, where)
    name = config.collection(CAMPAIGN)
    first = get_store(config)
    first.ensure_collection(name, 4)
    first.upsert(name, CHUNKS, VECTORS, HASHES)
    first.delete(name, [CHUNKS[4].id])
    first.close()
    first.close()  # safe twice
    second = get_store(config)
    try:
        assert second.collections() == [name]
        assert second.ensure_collection(name, 4) is False
        assert second.count(name) == 5
        assert second.stored_hashes(name)[CHUNKS[1].id] == "h1"
        assert second.keyword_search(name, "Vasselheim", limit=3)[0][0] == CHUNKS[1]
        assert second.dense_search(name, unit(0, 0, 0, 1), limit=1, filters=Filters(kinds=("NPCs",)))[0][0] == CHUNKS[5]
    finally:
        second.close()


@pytest.mark.parametrize(("backend", "where"), ON_DISK, ids=["-".join(b) for b in ON_DISK])
def test_second_store_on_same_folder_is_locked(tmp_path, backend, where):
    config = make_config(tmp_path, backend, where)
    first = get_store(config)
    first.ensure_collection(config.collection(CAMPAIGN), 4)
    with pytest.raises(StoreLockedError) as err:
        get_store(config)  # same process: the lock is per open file, so this is refused too
    assert config.store_path in str(err.value)
    assert "\n" not in err.value.one_line() and "store.url" in err.value.one_line()
    first.close()
    third = get_store(config)  # released on close
    assert third.count(config.collection(CAMPAIGN)) == 0
    third.close()


@pytest.mark.parametrize("backend", ["qdrant", "edge"])
def test_memory_stores_are_independent(tmp_path, backend):
    a, b = (
        get_store(make_config(tmp_path, backend, "memory")),
        get_store(make_config(tmp_path, backend, "memory")),
    )
    a.ensure_collection("chronicler-x", 4)
    assert b.collections() == []
    a.close()
    b.close()
    if backend == "edge":  # its temporary folder goes with it
        assert not a._root.exists()


def test_unreachable_server_is_a_store_error():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = Config(store=StoreConfig(backend="qdrant", url=f"http://127.0.0.1:{port}"))
    with pytest.raises(StoreError, match=f"127.0.0.1:{port}"):
        get_store(config)


@pytest.mark.parametrize(("backend", "where"), ON_DISK, ids=["-".join(b) for b in ON_DISK])
def test_folder_held_by_another_process_is_locked(tmp_path, backend, where):
    """The real case: the app holds the folder while a CLI command starts."""
    config = make_config(tmp_path, backend, where)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, backend, config.store_path, config.data_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match="in use by another program"):
            get_store(config)
    finally:
        holder.communicate("", timeout=30)
    get_store(config).close()  # free again once the other process has exited


HOLD = """
import sys
from rag.config import Config, StoreConfig
from rag.stores import get_store
backend, path, data = sys.argv[1:]
store = get_store(Config(data_dir=data, store=StoreConfig(backend=backend, path=path)))
print("ready", flush=True)
sys.stdin.read()
store.close()
"""


def test_edge_recreates_collection_when_keyword_scheme_changes(tmp_path, monkeypatch):
    config = make_config(tmp_path, "edge", "disk")
    name = config.collection(CAMPAIGN)
    store = get_store(config)
    store.ensure_collection(name, 4)
    store.upsert(name, CHUNKS, VECTORS, HASHES)
    store.close()
    monkeypatch.setattr(edge, "SCHEME", "another-tokenizer")
    store = get_store(config)
    try:
        assert store.ensure_collection(name, 4) is True  # old sparse vectors would not match new queries
        assert store.count(name) == 0
    finally:
        store.close()


def test_concurrent_threads_lose_nothing(store, config):
    """Streamlit serves each session from its own thread with one shared store."""
    name = config.collection(CAMPAIGN)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            batch = [chunk(f"Session {i}.md", j, f"Vasselheim dragon {i} {j}", i) for j in range(30)]
            store.upsert(name, batch, np.tile(unit(1, 0, 0, i), (30, 1)), ["h"] * 30)
            for _ in range(5):
                store.dense_search(name, unit(1, 0, 0, 0), limit=5)
                store.keyword_search(name, "dragon", limit=5)
                store.stored_hashes(name)
        except BaseException as err:  # noqa: BLE001 - reported by the assert below
            errors.append(err)

    store.ensure_collection(name, 4)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count(name) == 120


@pytest.mark.parametrize(("backend", "where"), ON_DISK, ids=["-".join(b) for b in ON_DISK])
def test_writes_survive_a_process_that_dies_without_close(tmp_path, backend, where):
    config = make_config(tmp_path, backend, where)
    script = CRASH.format(backend=backend, path=config.store_path, data=config.data_dir)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    store = get_store(config)  # the dead process's locks are gone with it
    try:
        assert store.count(config.collection(CAMPAIGN)) == 3
        assert store.stored_hashes(config.collection(CAMPAIGN)) == {c.id: "h" for c in CHUNKS[:3]}
    finally:
        store.close()


CRASH = """
import os
import numpy as np
from rag.config import Config, StoreConfig
from rag.stores import get_store
from tests.test_stores import CAMPAIGN, CHUNKS
config = Config(data_dir={data!r}, store=StoreConfig(backend={backend!r}, path={path!r}))
store = get_store(config)
store.ensure_collection(config.collection(CAMPAIGN), 4)
store.upsert(config.collection(CAMPAIGN), CHUNKS[:3], np.eye(4)[:3], ["h"] * 3)
os._exit(9)
"""
