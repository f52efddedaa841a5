"""Backends by config string, as in simonw/llm and txtai.

``create("embedders", "local", config)`` imports ``rag.embedders.local`` and calls its ``create``;
adding a backend means adding one file. Tests register fakes the same way a real backend is found:
``register("embedders", "fake", factory)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator

from rag.errors import ConfigError

_HERE = Path(__file__).resolve().parent
_REGISTERED: dict[tuple[str, str], Callable[..., Any]] = {}


def register(kind: str, name: str, factory: Callable[..., Any]) -> None:
    _REGISTERED[(kind, name)] = factory


def create(kind: str, name: str, *args: Any, **kwargs: Any) -> Any:
    factory = _REGISTERED.get((kind, name))
    if factory is None:
        if not name.isidentifier():
            raise ConfigError(f"Unknown {kind} backend '{name}'.")
        try:
            module = importlib.import_module(f"rag.{kind}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"rag.{kind}.{name}":
                raise
            raise ConfigError(f"Unknown {kind} backend '{name}'. Available: {', '.join(available(kind))}.") from None
        factory = module.create
    return factory(*args, **kwargs)


def available(kind: str) -> list[str]:
    """Backend names of a kind: the files of ``rag/<kind>/`` and the registered ones.

    Read from the folder, never by importing the package, so validating a config (which checks every
    backend name against this list) loads no backend code and no numpy."""
    names = {p.stem for p in (_HERE / kind).glob("*.py") if not p.stem.startswith("_")}
    names |= {n for (k, n) in _REGISTERED if k == kind}
    return sorted(names - {"base"})


def unregister(kind: str, name: str) -> None:
    """Undo ``register`` (tests register fakes in fixtures and remove them afterwards)."""
    _REGISTERED.pop((kind, name), None)


def known_backend(kind: str, name: str) -> str:
    """A backend name this registry can build (``rag/<kind>/<name>.py`` or a registered one), so a typo in
    ``reranker.backend`` fails when the config loads, naming the key, rather than at the first search."""
    known = available(kind)
    if name not in known and name.replace("-", "_") not in known:
        raise ValueError(f"'{name}' is not one of {', '.join(n.replace('_', '-') for n in known)}")
    return name


def backend_name(kind: str) -> Any:
    """The config field type of a backend name of ``kind``: a string checked by ``known_backend``."""
    return Annotated[str, AfterValidator(partial(known_backend, kind))]
