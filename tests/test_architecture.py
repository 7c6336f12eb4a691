"""The import map of the apps, checked from the source (``ast``; nothing is imported).

Three rules:

1. No cycle between the apps. Every import counts: at module level, inside functions and
   methods, under ``if TYPE_CHECKING:`` — a function-level import is a dependency that only
   hides from the reader. The direction wanted is
   ``casino ← wallets ← jackpot ← tables ← backoffice`` (and ``poker`` beside ``tables``).
2. No app uses another app's private names: ``from x.y import _name``, ``import x._y`` or
   ``y._name`` where ``y`` was imported from another app.
3. Inside ``backoffice``, a staff API module (``api*.py`` / ``api/``) does not import a
   page-views module (``views*.py`` / ``views/``) and the other way round: what both need
   lives in a selector or serializer module that both import.

Each failure names the offending ``file:line``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Project wiring: these modules exist to put every app together (settings list the apps,
# the URL confs mount every app's views, the ASGI entry point routes every app's
# consumers, the Celery module schedules every app's tasks). Their imports of other apps
# are not dependencies of the app they sit in, so they are left out of the app graph.
# Keep this list short; a module belongs here only if its whole job is wiring.
WIRING = frozenset(
    {
        "casino/settings.py",
        "casino/urls.py",
        "casino/page_urls.py",
        "casino/asgi.py",
        "casino/wsgi.py",
        "casino/celery.py",
    }
)

# The direction wanted: an app imports only apps to its left. The cycle check
# fails on any cycle; this order only decides which side of a cycle the message names
# line by line.
LAYERS = ("casino", "wallets", "jackpot", "tables", "poker", "backoffice")

# Django's own underscore API on model classes (``Model._meta`` …): not an app's private name.
DJANGO_PUBLIC_UNDERSCORE = frozenset({"_meta", "_default_manager", "_base_manager"})


def apps() -> list[str]:
    """The project's apps: top-level packages with an ``apps.py`` (``poker`` once it exists)."""
    return sorted(p.parent.name for p in ROOT.glob("*/apps.py") if (p.parent / "__init__.py").exists())


def app_files(app: str) -> list[Path]:
    """An app's source, without its migrations (frozen history, tied to other apps by
    ``dependencies``, not by imports of their code)."""
    return sorted(p for p in (ROOT / app).rglob("*.py") if "migrations" not in p.relative_to(ROOT).parts)


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass(frozen=True)
class Import:
    file: str  # relative to the repository
    line: int
    target: str  # the module imported (absolute, dotted)
    names: tuple[str, ...]  # the names taken from it (``from … import a, b``), else ()

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """``from ..x import y`` inside ``module`` as an absolute module name."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, target] if target else base)


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imports_of(path: Path, root: Path = ROOT) -> list[Import]:
    """Every import statement in the file, wherever it stands."""
    rel = path.relative_to(root).as_posix()
    module = module_name(path, root)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            found.extend(Import(rel, node.lineno, alias.name, ()) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node.level, node.module)
            found.append(Import(rel, node.lineno, target, tuple(a.name for a in node.names)))
    return found


def app_of(dotted: str, known: list[str]) -> str | None:
    top = dotted.split(".", 1)[0]
    return top if top in known else None


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# ---------------------------------------------------------------------------------------
# 1. cycles


def app_graph() -> dict[tuple[str, str], list[Import]]:
    """(importing app, imported app) -> the imports that make the edge."""
    known = apps()
    edges: dict[tuple[str, str], list[Import]] = {}
    for app in known:
        for path in app_files(app):
            if path.relative_to(ROOT).as_posix() in WIRING:
                continue
            for imp in imports_of(path):
                other = app_of(imp.target, known)
                if other and other != app:
                    edges.setdefault((app, other), []).append(imp)
    return edges


def strongly_connected(nodes: list[str], edges) -> list[list[str]]:
    """Tarjan's components of more than one app (a cycle lives inside one)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for a, b in edges:
            if a != node:
                continue
            if b not in index:
                visit(b)
                low[node] = min(low[node], low[b])
            elif b in on_stack:
                low[node] = min(low[node], index[b])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in nodes:
        if node not in index:
            visit(node)
    return components


def _layer(app: str) -> int:
    return LAYERS.index(app) if app in LAYERS else len(LAYERS)


def cycle_report(edges: dict[tuple[str, str], list[Import]]) -> list[str]:
    """Per cycle: each import against the wanted direction (``LAYERS``) by file:line, the
    imports along it by count (they close the cycle too, but are where they belong)."""
    lines = []
    nodes = sorted({app for edge in edges for app in edge})
    for component in strongly_connected(nodes, edges):
        members = set(component)
        lines.append(f"cycle between {', '.join(component)} (wanted: {' <- '.join(LAYERS)}):")
        inside = sorted((edge, imps) for edge, imps in edges.items() if set(edge) <= members)
        for (a, b), imps in inside:
            if _layer(a) < _layer(b):
                lines.extend(f"  {imp.where}: {a} imports {imp.target}" for imp in imps)
        for (a, b), imps in inside:
            if _layer(a) >= _layer(b):
                lines.append(f"  and {a} imports {b} in {len(imps)} places, first {imps[0].where}")
    return lines


def test_no_import_cycle_between_apps():
    problems = cycle_report(app_graph())
    assert not problems, "\n".join(problems)


def test_the_cycle_check_sees_a_cycle():
    """The check itself: two edges that close a loop are reported with their file:line."""
    a = Import("wallets/services.py", 3, "tables.models", ("Table",))
    b = Import("tables/services.py", 7, "wallets.locks", ("lock_accounts",))
    c = Import("jackpot/services.py", 9, "wallets.services", ("transfer",))
    report = "\n".join(
        cycle_report({("wallets", "tables"): [a], ("tables", "wallets"): [b], ("jackpot", "wallets"): [c]})
    )
    assert "cycle between tables, wallets" in report
    assert "wallets/services.py:3" in report and "tables/services.py:7" in report
    assert "jackpot/services.py" not in report  # jackpot → wallets is one way: no cycle


def test_imports_are_found_inside_functions_and_relative(tmp_path):
    """A function-level import and a relative import both count (parsed, not executed)."""
    package = tmp_path / "tables"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "services.py").write_text(
        "from .models import Table\n\ndef f():\n    from wallets.services import _transfer\n    return _transfer\n"
    )
    found = {(imp.where, imp.target, imp.names) for imp in imports_of(package / "services.py", tmp_path)}
    assert found == {
        ("tables/services.py:1", "tables.models", ("Table",)),
        ("tables/services.py:4", "wallets.services", ("_transfer",)),
    }


# ---------------------------------------------------------------------------------------
# 2. private names of another app


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything that is not a plain name chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def private_uses(path: Path, known: list[str], root: Path = ROOT) -> list[str]:
    rel = path.relative_to(root).as_posix()
    own = rel.split("/", 1)[0]
    tree = _parse(path)
    module = module_name(path, root)
    is_package = path.name == "__init__.py"
    problems = []
    # Local names bound to another app's module or object -> what they stand for.
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                other = app_of(alias.name, known)
                if not other or other == own:
                    continue
                private = [p for p in alias.name.split(".") if _is_private(p)]
                if private:
                    problems.append(f"{rel}:{node.lineno}: imports {alias.name} (private {private[0]} of {other})")
                bound[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node.level, node.module)
            other = app_of(target, known)
            if not other or other == own:
                continue
            private = [p for p in target.split(".") if _is_private(p)]
            if private:
                problems.append(f"{rel}:{node.lineno}: imports from {target} (private {private[0]} of {other})")
            for alias in node.names:
                if _is_private(alias.name):
                    problems.append(f"{rel}:{node.lineno}: imports {alias.name} from {target} (private to {other})")
                bound[alias.asname or alias.name] = f"{target}.{alias.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = _dotted(node)
        if not chain or chain[0] not in bound:
            continue
        attr = chain[-1]
        if _is_private(attr) and attr not in DJANGO_PUBLIC_UNDERSCORE:
            full = ".".join([bound[chain[0]], *chain[1:]])
            problems.append(f"{rel}:{node.lineno}: uses {full} (private to {app_of(full, known)})")
    return problems


def private_report() -> list[str]:
    known = apps()
    return [problem for app in known for path in app_files(app) for problem in private_uses(path, known)]


def test_no_app_uses_another_apps_private_names():
    problems = private_report()
    assert not problems, "private names used across apps:\n  " + "\n  ".join(problems)


def test_the_private_check_sees_each_form(tmp_path):
    for app in ("jackpot", "tables"):
        (tmp_path / app).mkdir()
        (tmp_path / app / "__init__.py").write_text("")
    source = tmp_path / "jackpot" / "services.py"
    source.write_text(
        "from tables.services import _required, table_sit\n"
        "from tables import services as table_services\n"
        "import tables.locks\n"
        "from .models import _own\n"
        "def f(t):\n"
        "    table_services._lock_table(t)\n"
        "    tables.locks._lock_hand(t)\n"
        "    t._meta\n"
        "    return table_services.table_sit, _own\n"
    )
    problems = private_uses(source, ["jackpot", "tables"], tmp_path)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "jackpot/services.py:1",
        "jackpot/services.py:6",
        "jackpot/services.py:7",
    ]
    assert "_required" in problems[0] and "tables.services._lock_table" in problems[1]
    assert "tables.locks._lock_hand" in problems[2]


# ---------------------------------------------------------------------------------------
# 3. backoffice: staff APIs and staff pages apart


def backoffice_kind(dotted: str) -> str | None:
    """ "api" for a staff API module, "pages" for a page-views module, else None (URL confs,
    forms, selectors, serializers … may be imported by both)."""
    parts = dotted.split(".")
    if parts[0] != "backoffice":
        return None
    for part in parts[1:]:
        if "urls" in part:
            return None
        if part == "api" or part.startswith("api_"):
            return "api"
        if part == "views" or part.startswith("views_"):
            return "pages"
    return None


def backoffice_report() -> list[str]:
    problems = []
    for path in app_files("backoffice"):
        kind = backoffice_kind(module_name(path))
        if kind is None:
            continue
        for imp in imports_of(path):
            targets = [imp.target, *(f"{imp.target}.{name}" for name in imp.names)]
            for target in targets:
                other = backoffice_kind(target)
                if other and other != kind:
                    problems.append(f"{imp.where}: {kind} module {module_name(path)} imports {other} module {target}")
                    break
    return problems


def test_backoffice_apis_and_pages_do_not_import_each_other():
    problems = backoffice_report()
    assert not problems, "staff API and page modules import each other:\n  " + "\n  ".join(problems)


def test_backoffice_kinds():
    assert backoffice_kind("backoffice.api_auditor") == "api"
    assert backoffice_kind("backoffice.auditor.api") == "api"
    assert backoffice_kind("backoffice.views_manager") == "pages"
    assert backoffice_kind("backoffice.manager.views") == "pages"
    assert backoffice_kind("backoffice.auditor.api_urls") is None
    assert backoffice_kind("backoffice.urls_cashier") is None
    assert backoffice_kind("backoffice.selectors") is None
    assert backoffice_kind("tables.views") is None
