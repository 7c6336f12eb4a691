"""The project's own checks, run by ``make test`` with the rest of the suite.

- the models and the migrations agree (``makemigrations --check``): a model change
  without its migration fails here, not on a deploy;
- mypy over the pure game engines (``casino/game``, ``casino/stud``; settings in
  ``pyproject.toml``);
- the pages' JavaScript unit tests (``node --test tests/js/``): the table pages' event
  reducers on recorded event sequences;
- every page script an ES module with ``// @ts-check``, loaded by the templates as one;
- ruff's lint and layout over the whole repository (``pyproject.toml``).

A missing tool fails under CI (``CI`` set) and is skipped on a machine without it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], *, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ})


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail(f"{name} is not installed: CI runs this check")
    pytest.skip(f"{name} is not installed")


def test_every_model_change_has_its_migration():
    done = _run([sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"])
    assert done.returncode == 0, f"models changed without a migration:\n{done.stdout}\n{done.stderr}"


def test_the_game_engines_type_check():
    try:
        import mypy  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("mypy is not installed (requirements-dev.txt): CI runs this check")
        pytest.skip("mypy is not installed")
    done = _run([sys.executable, "-m", "mypy", "--no-incremental"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pages_scripts_pass_their_unit_tests():
    node = _tool("node")
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    assert tests, "no JavaScript test found in tests/js/"
    done = _run([node, "--test", *tests])
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-4000:]
    assert " fail 0" in done.stdout, done.stdout[-4000:]


def test_every_page_script_is_a_type_checked_module_loaded_as_one():
    """The pages' scripts are ES modules (they import the shared helpers by relative path),
    each with ``// @ts-check`` for an editor's type checker; a template loads them as modules
    (a classic <script> would fail at its first ``import``)."""
    scripts = sorted((ROOT / "static").rglob("*.js"))
    assert scripts
    for path in scripts:
        assert path.read_text().startswith("// @ts-check\n"), path
    tags = []
    for template in (ROOT / "templates").rglob("*.html"):
        tags += [
            (template, tag)
            for tag in re.findall(r"<script\b[^>]*\{% static '[^']+\.js' %\}[^>]*>", template.read_text())
        ]
    assert len(tags) >= 8, tags
    for template, tag in tags:
        assert 'type="module"' in tag, (template, tag)


def test_the_code_is_linted_and_formatted():
    """ruff, as configured in ``pyproject.toml``: pyflakes, pycodestyle, the imports' order,
    and the formatter's layout (``ruff format`` fixes a failure here)."""
    try:
        import ruff  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("ruff is not installed (requirements-dev.txt): CI runs this check")
        pytest.skip("ruff is not installed")
    lint = _run([sys.executable, "-m", "ruff", "check", "--no-cache", "."])
    assert lint.returncode == 0, lint.stdout[-6000:] + lint.stderr[-2000:]
    layout = _run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."])
    assert layout.returncode == 0, layout.stdout[-6000:] + layout.stderr[-2000:]
