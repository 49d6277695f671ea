"""Imports run one way in ``bot/`` and ``adapters/``: no module imports another that imports it
back, directly or through a circle. Read from the source (ast), so a cycle hidden behind a
function-level or a ``TYPE_CHECKING`` import is found too.

A package's ``__init__.py`` says what the package offers and imports none of its own modules,
so importing a package never closes a circle; ``bot/`` itself is a short table of contents.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOP = ("bot", "adapters")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _paths() -> list[Path]:
    return sorted(path for top in TOP for path in (REPO / top).rglob("*.py"))


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of ``bot`` and ``adapters`` that ``path`` names in an import statement."""
    return _named(_module_name(path), path.name == "__init__.py", path.read_text(), modules)


def _named(name: str, is_package: bool, source: str, modules: set[str]) -> set[str]:
    """The ``modules`` that module ``name``'s ``source`` names in an import statement."""
    package = name if is_package else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            # ``from pkg import mod`` names the module pkg.mod when there is one
            targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        found.update(target for target in targets if target in modules)
    found.discard(name)
    return found


def _graph() -> dict[str, set[str]]:
    paths = _paths()
    modules = {_module_name(path) for path in paths}
    return {_module_name(path): _imports(path, modules) for path in paths}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it began, or None."""
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> list[str] | None:
        if node in trail:
            return [*trail[trail.index(node) :], node]
        if node in done:
            return None
        for target in sorted(graph[node]):
            found = visit(target, [*trail, node])
            if found:
                return found
        done.add(node)
        return None

    for start in sorted(graph):
        found = visit(start, [])
        if found:
            return found
    return None


def test_bot_and_adapters_have_no_import_cycle() -> None:
    graph = _graph()
    assert "bot.turn.router" in graph and "adapters.matrix.adapter" in graph
    assert "bot.tools.gate" in graph and "bot.tools.reminders.job" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_circle_and_a_pair() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_finder_sees_function_level_and_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from bot.turn.router import Router\n"
        "def later():\n    import bot.delivery.outbox\n"
        "from . import rooms\n"
    )
    modules = {"bot.turn.router", "bot.delivery.outbox", "bot.turn", "bot.turn.rooms"}
    found = _named("bot.turn.probe", False, source, modules)
    assert found == {"bot.turn.router", "bot.delivery.outbox", "bot.turn", "bot.turn.rooms"}


def test_a_package_init_imports_nothing_of_its_own() -> None:
    """A package's ``__init__.py`` is a docstring (what it offers) and ``__all__``."""
    graph = _graph()
    for path in _paths():
        if path.name != "__init__.py":
            continue
        name = _module_name(path)
        own = {target for target in graph[name] if target.startswith(f"{name}.")}
        assert not own, f"{name} imports {sorted(own)}"
        assert ast.get_docstring(ast.parse(path.read_text())), f"{name} says nothing"


def test_the_top_level_is_a_short_table_of_contents() -> None:
    """``bot/`` holds its ``__init__.py``, ``py.typed`` and at most a dozen packages."""
    entries = sorted(p.name for p in (REPO / "bot").iterdir() if p.name != "__pycache__")
    loose = [name for name in entries if name not in ("__init__.py", "py.typed")]
    assert len(loose) <= 12, loose
    assert all((REPO / "bot" / name / "__init__.py").is_file() for name in loose), loose
    for platform in ("console", "matrix", "telegram", "discord", "nctalk"):
        assert (REPO / "adapters" / platform / "adapter.py").is_file(), platform
    assert sorted(p.name for p in (REPO / "adapters").glob("*.py")) == [
        "__init__.py",
        "base.py",
        "registry.py",
    ]


def test_a_feature_is_imported_from_the_bottom_up() -> None:
    """The registry and the gate know no feature; the features know no job scheduling."""
    graph = {
        name: {target for target in targets if target.startswith("bot.tools")}
        for name, targets in _graph().items()
        if name.startswith("bot.tools")
    }
    assert graph["bot.tools.registry"] == set()
    assert graph["bot.tools.gate"] == {"bot.tools.registry"}
    features = [
        name for name in graph if name.startswith(("bot.tools.reminders", "bot.tools.crons"))
    ]
    for name in features:
        assert not graph[name] & {"bot.tools.catalog", "bot.tools.jobs", "bot.tools.loop"}, name


def test_the_command_table_knows_the_router_only_as_a_protocol() -> None:
    graph = _graph()
    commands = [name for name in graph if name.startswith("bot.commands")]
    for name in commands:
        assert "bot.turn.router" not in graph[name], name
    assert not {"bot.daemon.daemon"} & (graph["bot.web.state"] | graph["bot.daemon.api"])
