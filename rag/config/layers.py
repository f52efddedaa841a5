"""Where settings come from: ``configs/base.yaml`` < ``configs/local.yaml`` < API keys saved in
``.streamlit/secrets.toml`` (``rag.config.secret_keys``) < environment < CLI flags.

Every layer is merged first and validated once, so an error names the key whatever layer it came from;
``save_local`` validates before it writes, so a bad value changes nothing.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rag.config.schema import (
    CONFIG_DIR,
    ENV_PREFIX,
    GM_PASSPHRASE_ENV,
    LOCAL_CONFIG_ENV,
    PROJECT_ROOT,
    SECRETS_FILE_ENV,
    Config,
)
from rag.config.secret_keys import read_keys, write_keys
from rag.errors import ConfigError
from rag.files import write_text


def local_config_path() -> Path:
    return Path(os.environ.get(LOCAL_CONFIG_ENV) or CONFIG_DIR / "local.yaml")


def local_config_name() -> str:
    """Where this computer's settings are saved, as a message names it: ``configs/local.yaml`` beside Chronicler,
    else the whole path (``CHRONICLER_LOCAL_CONFIG`` may point anywhere)."""
    path = local_config_path().resolve()
    return path.relative_to(PROJECT_ROOT).as_posix() if path.is_relative_to(PROJECT_ROOT) else str(path)


def deep_merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"{path} is not valid YAML: {str(err).splitlines()[0]}") from None
    except OSError as err:
        raise ConfigError(f"Cannot read config file {path}: {err.strerror}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of settings, not {type(data).__name__}")
    return data


def env_overrides(environ: dict[str, str] | None = None) -> dict:
    """``CHRONICLER_RETRIEVAL__K=8`` → ``{"retrieval": {"k": "8"}}``; values are parsed as YAML scalars.
    ``CHRONICLER_TEST_…`` belongs to the test suite (``CHRONICLER_TEST_LLM_URL``: a real model server), not the
    config."""
    environ = os.environ if environ is None else environ
    out: dict = {}
    for name, raw in environ.items():
        if not name.startswith(ENV_PREFIX) or name in (LOCAL_CONFIG_ENV, GM_PASSPHRASE_ENV, SECRETS_FILE_ENV):
            continue
        if name.startswith(f"{ENV_PREFIX}TEST_"):
            continue
        keys = [k.lower() for k in name[len(ENV_PREFIX) :].split("__") if k]
        if not keys:
            continue
        try:
            value = yaml.safe_load(raw) if raw != "" else ""
        except yaml.YAMLError:
            value = raw
        node = out
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return out


def dotted(overrides: dict[str, Any], keep_none: bool = False) -> dict:
    """``{"retrieval.k": 8}`` → ``{"retrieval": {"k": 8}}`` (how CLI flags and the UI pass settings).

    CLI flags left unset arrive as None and are skipped; the Settings page passes ``keep_none`` so a
    value can be set back to null ("no threshold", "no server URL")."""
    out: dict = {}
    for path, value in overrides.items():
        if value is None and not keep_none:
            continue
        node = out
        *parents, last = path.split(".")
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
    return out


def load_config(
    config_file: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
    *,
    environ: dict[str, str] | None = None,
) -> Config:
    """Merge the layers and validate. ``config_file`` is an extra layer above local.yaml."""
    data: dict = {}
    for path in (CONFIG_DIR / "base.yaml", local_config_path()):
        if path.exists():
            data = deep_merge(data, read_yaml(path))
    data = deep_merge(data, read_keys())
    if config_file:
        path = Path(config_file)
        if not path.exists():
            raise ConfigError(f"Config file {path} does not exist.")
        data = deep_merge(data, read_yaml(path))
    data = deep_merge(data, env_overrides(environ))
    data = deep_merge(data, dotted(overrides or {}))
    return validate(data)


def validate(data: dict) -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        if first["type"] == "extra_forbidden":
            raise ConfigError(f"Unknown config key '{key}'.") from None
        message = first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"Bad config value for '{key}': {message}.") from None


def save_local(changes: dict[str, Any]) -> Config:
    """Merge dotted ``changes`` into configs/local.yaml, validating first so a bad value changes nothing. API
    keys go to the secrets file instead (``rag.config.secret_keys``), and leave local.yaml if they were there."""
    keys = {k.split(".")[0]: v for k, v in changes.items() if k.endswith(".api_key")}
    path = local_config_path()
    current = read_yaml(path) if path.exists() else {}
    merged = deep_merge(
        current, dotted({k: v for k, v in changes.items() if not k.endswith(".api_key")}, keep_none=True)
    )
    for section in keys:
        if isinstance(merged.get(section), dict):
            merged[section].pop("api_key", None)
    base = read_yaml(CONFIG_DIR / "base.yaml")
    saved = {s: {"api_key": v} for s, v in keys.items() if v} | {s: v for s, v in read_keys().items() if s not in keys}
    config = validate(deep_merge(deep_merge(base, merged), saved))
    if keys:
        write_keys(keys)
    write_text(path, yaml.safe_dump(merged, sort_keys=False))
    return config
