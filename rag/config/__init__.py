"""Configuration: the settings (``schema``) and where they come from (``layers``):
``configs/base.yaml`` < ``configs/local.yaml`` < environment < CLI flags. Import from here."""

from rag.config.layers import deep_merge, dotted, load_config, local_config_path, read_yaml, save_local, validate
from rag.config.schema import (
    CONFIG_DIR,
    GM_PASSPHRASE_ENV,
    PROJECT_ROOT,
    AnswerConfig,
    ChunkingConfig,
    Config,
    EmbeddingConfig,
    GMViewConfig,
    NotesConfig,
    RerankConfig,
    RetrievalConfig,
    SecretsConfig,
    StoreConfig,
    TableTalkConfig,
    TrackingConfig,
    slug,
)

__all__ = [
    "CONFIG_DIR",
    "GM_PASSPHRASE_ENV",
    "PROJECT_ROOT",
    "AnswerConfig",
    "ChunkingConfig",
    "Config",
    "EmbeddingConfig",
    "GMViewConfig",
    "NotesConfig",
    "RerankConfig",
    "RetrievalConfig",
    "SecretsConfig",
    "StoreConfig",
    "TableTalkConfig",
    "TrackingConfig",
    "deep_merge",
    "dotted",
    "load_config",
    "local_config_path",
    "read_yaml",
    "save_local",
    "slug",
    "validate",
]
