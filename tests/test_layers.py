"""The house's shape, read from the code: imports point down, never round.

Layers, lowest first (a module imports only from its own layer or a lower one):
0. `pbem.errors`, `pbem.clock`, `pbem.paths`, `pbem.addresses`, `pbem.keys`, `pbem.i18n`,
   `pbem.latest`: small shared modules that import no other part of pbem but each other.
1. `pbem.games` (the rules, pure) and `pbem.bots` (search over the rules, pure).
2. `pbem.core`: the services, the only code that joins rules, database and time.
3. `pbem.config` and `pbem.templating`: settings and the template helpers the adapters share.
4. `pbem.mail`: SMTP and IMAP, composing, the outbox loop, the inbound pipeline.
5. the adapters people and processes talk to: `pbem.web`, `pbem.worker`, `pbem.cli`.

Inside core, the packages keep one order too (`CORE_TIERS`, lowest first): a package imports
only from its own tier or a lower one, and packages of one tier may import each other only where
no cycle between packages follows. `docs/ARCHITECTURE.md` draws that order from `CORE_TIERS`
(`core_drawing`). A package's `models` imports only other `models` and `core.db`. Every import
counts, also one inside a function: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

import pbem

ROOT = Path(pbem.__file__).resolve().parent
LAYERS = (
    ("pbem.errors", "pbem.clock", "pbem.paths", "pbem.addresses", "pbem.keys", "pbem.i18n",
     "pbem.latest", "pbem.library_versions"),
    ("pbem.games", "pbem.bots"),
    ("pbem.core",),
    ("pbem.config", "pbem.templating"),
    ("pbem.mail", "pbem.push"),
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
    cycles = [sorted(component)
              for component in _cycles({module: set(targets) for module, targets in GRAPH.items()})]
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
    "pbem.core.records.home", "pbem.core.lobby.challenges", "pbem.core.lobby.seeks",
    # The door's pipeline, and a page's reads sent ahead together (`read_ahead`).
    "pbem.core.db.pipeline",
    # A mail's thread (its subject, the mails its References names): read for every mail sent.
    "pbem.core.mailout.threads",
    # /me and /api/me show the feed links and push choices on every read; every turn,
    # reminder and result mail asks whether its player has a browser subscribed to pushes.
    "pbem.core.feeds.links", "pbem.core.push.channels", "pbem.core.push.subscriptions",
    # Whether a turn mail waits (its seat looked, its player takes pushes): asked in the door.
    "pbem.core.mailout.waiting",
    # What a seat may do about takebacks (its takeback rows, the last move): asked by every
    # first read of a play page and of the API (with the position read left out in a game
    # that hides nothing, an API first read's CPU fell from 2.32 to 1.96 ms: bench/RESULTS.md).
    "pbem.core.takebacks.rules",
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


# Core's order, lowest first: each name is a package (a folder) or a module directly under
# `pbem/core`. A package imports only from its own tier or lower ones; within a tier, peers may
# import each other as long as no cycle between packages follows. `schema` (every table) and
# `settlers` (the door's settlers, registered in one list) see every package, so they sit on
# top. A new package is placed here before it can be imported.
CORE_TIERS: tuple[tuple[str, ...], ...] = (
    ("db",),
    ("accounts",),
    ("matches",),
    ("records", "ratings", "mailout", "mailin", "conversation", "admin", "presence",
     "push"),
    ("lobby", "computer", "tournaments", "leagues", "feeds", "takebacks"),
    ("schema", "settlers"),
)
CORE_TIER_OF = {name: number for number, names in enumerate(CORE_TIERS) for name in names}
# What each tier is for, drawn beside it in docs/ARCHITECTURE.md.
CORE_TIER_WORDS = (
    "connection, prepared queries, base table, migrations",
    "who someone is: players, admins, sessions, sign-in, tokens, limits",
    "the door: every change to a match goes through it",
    "what follows from matches: records, ratings, mail, push, chat, the admin, who looks",
    ("built on all of those: finding an opponent, the computer, tournaments, leagues, "
     "feeds, takebacks"),
    "the whole of core: every table; the door's settlers in their order",
)


def _core_unit(module: str) -> str | None:
    """The package (or top-level module) of core that `module` belongs to."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["pbem", "core"] else None


def _core_edges() -> list[tuple[str, str, str, str]]:
    """Every import from one core package into another: (module, target, unit, target's unit)."""
    edges = []
    for module, targets in GRAPH.items():
        unit = _core_unit(module)
        for target in targets:
            target_unit = _core_unit(target)
            if unit and target_unit and unit != target_unit:
                edges.append((module, target, unit, target_unit))
    return edges


def test_every_core_package_has_a_tier() -> None:
    units = {path.stem for path in (ROOT / "core").iterdir()
             if (path / "__init__.py").exists() or (path.suffix == ".py"
                                                    and path.name != "__init__.py")}
    unplaced = sorted(units - set(CORE_TIER_OF))
    assert unplaced == [], (f"place these core packages in a tier of CORE_TIERS "
                            f"(tests/test_layers.py): {unplaced}")


def test_no_core_import_runs_up_a_tier() -> None:
    upward = [f"{module} -> {target} ({unit}, tier {CORE_TIER_OF[unit]}, may not import "
              f"{target_unit}, tier {CORE_TIER_OF[target_unit]})"
              for module, target, unit, target_unit in _core_edges()
              if unit in CORE_TIER_OF and target_unit in CORE_TIER_OF
              and CORE_TIER_OF[target_unit] > CORE_TIER_OF[unit]]
    assert upward == [], ("move the code to the package that owns what it needs, or hand a "
                          "value in from above:\n" + "\n".join(upward))


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one node (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _shortest_cycle(graph: dict[str, set[str]], start: str) -> list[str]:
    """The shortest way from `start` back to itself, as the nodes passed ([] if none)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph.get(node, ())):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return []


def _tier(unit: str) -> int:
    return CORE_TIER_OF.get(unit, len(CORE_TIERS))


def _rotated(path: list[str]) -> tuple[str, ...]:
    """A cycle (first node repeated last) begun at its lowest package, so each is said once."""
    ring = path[:-1]
    first = ring.index(min(ring, key=lambda unit: (_tier(unit), unit)))
    ring = ring[first:] + ring[:first]
    return (*ring, ring[0])


def test_no_cycle_between_core_packages() -> None:
    graph: dict[str, set[str]] = {}
    imports: dict[tuple[str, str], list[str]] = {}
    for module, target, unit, target_unit in _core_edges():
        graph.setdefault(unit, set()).add(target_unit)
        imports.setdefault((unit, target_unit), []).append(f"{module} -> {target}")
    rounds = {_rotated(_shortest_cycle(graph, unit)) for cycle in _cycles(graph)
              for unit in cycle}
    said = [" -> ".join(path) + ", by:\n  " + "\n  ".join(
                edge + (" (up a tier)" if _tier(step[1]) > _tier(step[0]) else "")
                for step in pairwise(path) for edge in imports[step])
            for path in sorted(rounds)]
    assert said == [], ("core packages that import each other round; break one step of "
                        "each:\n" + "\n".join(said))


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    assert _shortest_cycle({"a": {"b", "c"}, "b": {"a"}, "c": {"b"}}, "a") == ["a", "b", "a"]


def core_drawing() -> str:
    """The drawing of core's tiers in docs/ARCHITECTURE.md, highest first, as `CORE_TIERS`
    says them."""
    lines = []
    for number in reversed(range(len(CORE_TIERS))):
        names = "  ".join(f"{name}/" if (ROOT / "core" / name).is_dir() else f"{name}.py"
                          for name in CORE_TIERS[number])
        lines.append(f"{number}  {names}")
        lines.append(f"     {CORE_TIER_WORDS[number]}")
        if number:
            lines.append("        │")
    return "\n".join(lines)


ARCHITECTURE = ROOT.parent / "docs" / "ARCHITECTURE.md"


def _generated(name: str) -> str:
    """The text between `<!-- {name}: generated by tests/test_layers.py -->` and
    `<!-- end of {name} -->` in docs/ARCHITECTURE.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name}: generated by tests/test_layers.py -->\n(.*?)\n"
                      rf"<!-- end of {name} -->", text, re.DOTALL)
    assert found, f"docs/ARCHITECTURE.md lost its block '<!-- {name}: generated by ... -->'"
    return found.group(1)


def test_the_architecture_drawing_follows_the_tiers() -> None:
    assert len(CORE_TIER_WORDS) == len(CORE_TIERS), "say in CORE_TIER_WORDS what each tier is for"
    drawn = f"```\n{core_drawing()}\n```"
    assert _generated("core tiers") == drawn, (
        "paste this into docs/ARCHITECTURE.md's core tiers block:\n" + drawn)


def _change_kinds() -> dict[str, list[str]]:
    """Every kind of change to a match (a subclass of `Change`, however deep), by the module
    that defines it, read from the code."""
    classes: dict[str, tuple[str, list[str]]] = {}
    for module, path in MODULES.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
                classes[node.name] = (module, bases)
    kinds: set[str] = set()
    grown = True
    while grown:
        new = {name for name, (_module, bases) in classes.items()
               if name not in kinds and any(base == "Change" or base in kinds for base in bases)}
        kinds |= new
        grown = bool(new)
    by_module: dict[str, list[str]] = {}
    for name in sorted(kinds, key=lambda kind: (classes[kind][0], kind)):
        by_module.setdefault(classes[name][0], []).append(name)
    return by_module


def change_kinds_text() -> str:
    """The list of change kinds in docs/ARCHITECTURE.md: one line per module."""
    return "\n".join(
        f"- `{module.removeprefix('pbem.').replace('.', '/')}.py`: "
        + ", ".join(f"`{name}`" for name in names)
        for module, names in sorted(_change_kinds().items()))


def test_the_architecture_lists_every_change_kind() -> None:
    assert sum(map(len, _change_kinds().values())) >= 20  # the reader found them
    assert _generated("change kinds") == change_kinds_text(), (
        "paste this into docs/ARCHITECTURE.md's change kinds block:\n" + change_kinds_text())
