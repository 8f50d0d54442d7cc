"""The house's shape, read from the code: imports point down, never round.

Layers, lowest first (a module imports only from its own layer or a lower one):
0. `pbem.errors`, `pbem.clock`, `pbem.paths`, `pbem.addresses`, `pbem.keys`, `pbem.i18n`,
   `pbem.latest`: small shared modules that import no other part of pbem but each other.
1. `pbem.games` (the rules, pure) and `pbem.bots` (search over the rules, pure).
2. `pbem.core`: the services, the only code that joins rules, database and time.
3. `pbem.config` and `pbem.templating`: settings and the template helpers the adapters share.
4. `pbem.mail`: SMTP and IMAP, composing, the outbox loop, the inbound pipeline.
5. the adapters people and processes talk to: `pbem.web`, `pbem.worker`, `pbem.cli`.

Inside core, `core.db` imports no other core package, and a package's `models` imports only
other `models` and `core.db`. Every import counts, also one inside a function: a lazy import is
still a dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import pbem

ROOT = Path(pbem.__file__).resolve().parent
LAYERS = (
    ("pbem.errors", "pbem.clock", "pbem.paths", "pbem.addresses", "pbem.keys", "pbem.i18n",
     "pbem.latest"),
    ("pbem.games", "pbem.bots"),
    ("pbem.core",),
    ("pbem.config", "pbem.templating"),
    ("pbem.mail",),
    ("pbem.web", "pbem.worker", "pbem.cli"),
)


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> Iterator[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                target = _resolve(f"{node.module}.{alias.name}") or _resolve(node.module)
                if target and target.startswith("pbem") and target != module:
                    yield target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = _resolve(alias.name)
                if target and target.startswith("pbem") and target != module:
                    yield target


GRAPH = {module: sorted(set(_imports(module))) for module in MODULES}


def _layer(module: str) -> int | None:
    for number, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return number
    return None


def test_every_module_has_a_layer() -> None:
    unplaced = [m for m in MODULES if m != "pbem" and _layer(m) is None]
    assert unplaced == [], f"add these to a layer in this test's LAYERS: {unplaced}"


def test_no_import_runs_up_a_layer() -> None:
    upward = [f"{module} -> {target}" for module, targets in GRAPH.items()
              for target in targets
              if module != "pbem" and (_layer(target) or 0) > (_layer(module) or 0)]
    assert upward == []


def test_no_import_cycle() -> None:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    assert cycles == []


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:3]) if module.startswith("pbem.core.") else module


def test_the_database_package_stands_alone() -> None:
    leaks = [f"{m} -> {t}" for m, ts in GRAPH.items() if m.startswith("pbem.core.db")
             for t in ts if t.startswith("pbem.core.") and not t.startswith("pbem.core.db")]
    assert leaks == []


def test_tables_import_only_tables_and_the_database() -> None:
    leaks = [f"{m} -> {t}" for m, ts in GRAPH.items()
             if m.startswith("pbem.core.") and m.endswith(".models")
             for t in ts if t.startswith("pbem.core.")
             and not (t.endswith(".models") or t.startswith("pbem.core.db"))]
    assert leaks == []


@pytest.mark.parametrize("folder", sorted({p.parent for p in ROOT.rglob("*.py")}),
                         ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_folder_is_crowded(folder: Path) -> None:
    # A newcomer finds a thing by its folder's name; past about fifteen modules a folder needs
    # sub-folders. Numbered migrations are a list, not a room.
    if folder.name == "migrations":
        return
    modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= 16, f"{folder} holds {len(modules)} modules"


def test_every_package_says_what_it_owns() -> None:
    packages = [p for p in (ROOT / "core").iterdir() if (p / "__init__.py").exists()]
    missing = [p.name for p in packages if not (p / "README.md").exists()]
    assert missing == []


# The prepared-query layer reaches into peewee's internals for speed, so it stays on the paths
# where it was measured to matter (a move, a page, the outbox), and peewee is pinned to the
# minor version it was written against (pyproject.toml). Another module that wants it should
# bring a benchmark that shows the gain.
HOT_PATHS = {
    "pbem.core.matches.models", "pbem.core.matches.changes", "pbem.core.matches.play",
    "pbem.core.matches.offers", "pbem.core.matches.lifecycle", "pbem.core.matches.deadlines",
    "pbem.core.matches.vacations", "pbem.core.matches.seat_links",
    "pbem.core.matches.conditional",
    "pbem.core.records.match_record", "pbem.core.mailout.notify", "pbem.core.mailout.contexts",
    "pbem.mail.outbox", "pbem.core.ratings.queries", "pbem.core.conversation.chat",
    "pbem.core.conversation.personal",
    # Which tournament a match is in: asked by every play page.
    "pbem.core.tournaments.table",
    # A seat's visit: written on its first play page after a move.
    "pbem.core.matches.visits",
    # A match by its id, and how far it has got (`progress_of`, polled by every waiting page
    # every few seconds); the events of its public page.
    "pbem.core.matches.creation", "pbem.core.matches.history",
    # Who is reading: a signed-in reader's session, or an API token, with its player.
    "pbem.core.accounts.sessions", "pbem.core.accounts.api_tokens",
    # A player's matches, challenges and seeks, read by their home page (/me) on every visit.
    "pbem.core.accounts.players", "pbem.core.lobby.challenges", "pbem.core.lobby.seeks",
    # The door's pipeline, and a page's reads sent ahead together (`read_ahead`).
    "pbem.core.db.pipeline",
}


def test_prepared_queries_stay_on_the_hot_paths() -> None:
    users = {m for m, ts in GRAPH.items() if "pbem.core.db.prepared" in ts}
    assert users - HOT_PATHS == set()


def test_production_code_asserts_nothing() -> None:
    """`python -O` drops an `assert`: a condition that can happen is raised as an error."""
    found = [f"{module}:{node.lineno}" for module, path in MODULES.items()
             if ".migrations." not in module
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Assert)]
    assert found == []
