"""Every class, view and function the settings name by dotted path loads when it is the
first thing imported after ``django.setup()``.

Django and DRF import these lazily, in an order nobody chooses (the system checks run from
a set): a path that loads only after some other module has warmed the import graph fails
one start in many, as a circular import. Each path here is imported first in a process of
its own (a fork of one set-up interpreter).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("casino.", "wallets.", "tables.", "jackpot.", "poker.", "backoffice.")

_SCRIPT = r"""
import json, os, sys
import django
django.setup()
from importlib import import_module


def load(path):
    # A module, or a name inside one (a.b.Class.Inner, or Celery's a.b:Class).
    parts = path.replace(":", ".").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            if cut == 1:
                raise
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found

failures = {}
for path in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            load(path)
            os.write(write, b"")
            os._exit(0)
        except BaseException as exc:
            os.write(write, f"{type(exc).__name__}: {exc}".encode()[:4000])
            os._exit(1)
    os.close(write)
    message = os.read(read, 4096).decode()
    os.close(read)
    _, status = os.waitpid(pid, 0)
    if status:
        failures[path] = message
print(json.dumps(failures))
"""


def _dotted_paths(value) -> set[str]:
    if isinstance(value, str):
        return {value} if value.startswith(PROJECT) and " " not in value and "/" not in value else set()
    if isinstance(value, dict):
        return set().union(*(_dotted_paths(v) for v in value.values())) if value else set()
    if isinstance(value, (list, tuple, set)):
        return set().union(*(_dotted_paths(v) for v in value)) if value else set()
    return set()


def test_every_dotted_path_in_the_settings_loads_when_imported_first():
    paths = set()
    for name in dir(settings):
        if name.isupper():
            paths |= _dotted_paths(getattr(settings, name))
    urls = __import__(settings.ROOT_URLCONF, fromlist=["handler500"])
    paths |= {getattr(urls, h) for h in ("handler400", "handler403", "handler404", "handler500") if hasattr(urls, h)}
    paths.discard(settings.DATABASES["default"]["ENGINE"])  # a backend package, loaded by django.setup's connection
    for expected in (
        "casino.http.parsers.DecimalJSONParser",
        "casino.http.api.api_csrf_failure",
        "casino.http.api.exception_handler",
    ):
        assert expected in paths  # the walk found the settings' own paths

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings"}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(sorted(paths))],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {}
