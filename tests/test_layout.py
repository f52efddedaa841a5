"""The layout a newcomer can read, kept true: imports go one way, the library stays free of the UI, modules
stay readable. Read from the source with ``ast`` (nothing is imported), except the config-load check, which
runs in a fresh interpreter to see what loading a config really imports."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCTION = [*ROOT.glob("rag/**/*.py"), *ROOT.glob("app/*.py"), *ROOT.glob("pages/*.py"), ROOT / "streamlit_app.py"]
UI_LIBRARIES = {"streamlit", "plotly", "pandas"}
MAX_LINES = 300


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PRODUCTION}


def project_module(name: str) -> str | None:
    """The project module an import names (``rag.config.load_config`` → ``rag.config``), if any."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(path: Path) -> list[tuple[str, bool]]:
    """(imported name, inside a function?) for every import of a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {
        id(node)
        for fn in ast.walk(tree)
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(fn)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in inner) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in inner))
            found += [(f"{node.module}.{alias.name}", id(node) in inner) for alias in node.names]
    return found


def graph() -> dict[str, set[str]]:
    edges = {}
    for name, path in MODULES.items():
        targets = {project_module(imported) for imported, _ in imports(path)}
        edges[name] = {t for t in targets if t and t != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_the_checker_sees_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles_among_the_projects_modules():
    edges = graph()
    assert len(edges) > 60 and edges["rag.pipeline"]  # the graph is really read
    assert cycles(edges) == []


def package_of(module: str) -> str:
    """The package a module belongs to, one level below ``rag`` (``rag.search.retrieval`` → ``rag.search``); a
    module directly in ``rag/`` is its own."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "rag" else parts[0]


def test_no_import_cycles_among_the_libraries_packages():
    """Packages too import one way: ``rag.search`` may use ``rag.rerankers``, never the other way round as well."""
    edges: dict[str, set[str]] = {}
    for module, targets in graph().items():
        edges.setdefault(package_of(module), set()).update(package_of(t) for t in targets)
    for package, targets in edges.items():
        targets.discard(package)
    assert {"rag.search", "rag.question", "rag.generators"} <= set(edges)
    assert cycles(edges) == []


def test_no_project_import_is_hidden_inside_a_function():
    hidden = [
        f"{module_name(path)} imports {imported}"
        for path in PRODUCTION
        for imported, inside in imports(path)
        if inside and project_module(imported)
    ]
    assert hidden == []


def test_the_library_never_imports_the_ui():
    found = [
        f"{module_name(path)} imports {imported}"
        for path in PRODUCTION
        if module_name(path).startswith("rag")
        for imported, _ in imports(path)
        if imported.split(".")[0] in UI_LIBRARIES or imported.split(".")[0] in {"app", "pages"}
    ]
    assert found == []


def test_loading_a_config_imports_no_backend():
    code = "import json, sys; from rag.config import load_config; load_config(); print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    backends = {
        m for m in loaded if m.split(".")[:2][-1] in {"embedders", "stores", "rerankers", "expanders", "generators"}
    }
    assert "rag.config" in loaded and backends == set() and "numpy" not in loaded


def test_modules_stay_readable_and_the_top_level_holds_only_the_router():
    """A long module is a hint to look for two concepts in it, not a rule to split by: it warns, never fails (a
    module split only to pass a line count reads worse than one whole idea)."""
    long = {module_name(p): n for p in PRODUCTION if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    if long:
        warnings.warn(f"modules over {MAX_LINES} lines (does one hold two ideas?): {long}", stacklevel=1)
    root_modules = [p.stem for p in (ROOT / "rag").glob("*.py") if p.stem not in ("__init__", "__main__")]
    assert len(root_modules) <= 12, root_modules
    assert [p.name for p in ROOT.glob("*.py")] == ["streamlit_app.py"]


def test_the_readme_layout_table_names_every_module_and_nothing_that_is_gone():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Layout", 1)[1]
    named = set(re.findall(r"`([^`]+)`", table))
    words = {w.removesuffix(".py").rstrip("/").rsplit("/", 1)[-1] for w in named}
    missing = []
    for path in PRODUCTION:
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] in ("__init__", "__main__"):
            parts = parts[:-1]
        if parts and parts[-1] not in words and "formats" not in parts:
            missing.append("/".join(parts))
    top = {p.name for p in ROOT.iterdir()}
    gone = [w for w in named if "/" in w and w.split("/")[0] in top and not (ROOT / w).exists()]
    assert (sorted(set(missing)), gone) == ([], [])


# What the pages and app/ may import from the library: the front door (``rag.pipeline``, which also hands out the
# types it returns), the values passed through it (models, config, errors, who may act) and the measurements, which
# sit above the Pipeline and drive one. Stores, models, backends, the campaign's reading, ingest and run records
# are reached through the Pipeline only.
FRONT_DOOR = {"rag.pipeline", "rag.models", "rag.config", "rag.errors", "rag.access", "rag.measure"}


def test_the_pages_reach_the_library_through_the_front_door_only():
    found = []
    for path in PRODUCTION:
        if module_name(path).startswith("rag"):
            continue
        for imported, _ in imports(path):
            module = project_module(imported) or ""
            inside = module.startswith("rag.") and not any(
                module == d or module.startswith(d + ".") for d in FRONT_DOOR
            )
            if inside:
                found.append(f"{module_name(path)} imports {module}")
    assert found == []
