"""The tools package's imports run one way: no module imports another that imports it back,
directly or through a circle. Read from the source (ast), so a cycle hidden behind a
function-level import is found too."""

from __future__ import annotations

import ast
from pathlib import Path

import bot.tools

PACKAGE = "bot.tools"
ROOT = Path(bot.tools.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` names in an import statement."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
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
    paths = sorted(ROOT.rglob("*.py"))
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


def test_the_tools_package_has_no_import_cycle() -> None:
    graph = _graph()
    assert "bot.tools.gate" in graph and "bot.tools.reminders.job" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_cycle_finder_finds_a_circle_and_a_pair() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_a_feature_is_imported_from_the_bottom_up() -> None:
    """The registry and the gate know no feature; the features know no job scheduling."""
    graph = _graph()
    assert graph["bot.tools.registry"] == set()
    assert graph["bot.tools.gate"] == {"bot.tools.registry"}
    features = [
        name for name in graph if name.startswith(("bot.tools.reminders", "bot.tools.crons"))
    ]
    for name in features:
        assert not graph[name] & {"bot.tools.catalog", "bot.tools.jobs", "bot.tools.loop"}, name
