# The two commands: `make run` and `make test`. Everything they need is installed here.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install browser node messages run test bench migrate demo clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo

# Debian's Chromium for the browser tests (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is not installed: the browser tests will be skipped"; fi; }

# Node for the pages' JavaScript unit tests (tests/js/, run by tests/test_tooling.py).
node:
	@command -v node >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs >/dev/null; \
	  else echo "node is not installed: the JavaScript tests will be skipped (they fail under CI)"; fi; }

# The German and English catalogs (locale/*/LC_MESSAGES/*.po) compiled to the .mo files
# Django reads (built here, not kept in git); GNU gettext's msgfmt from Debian where missing.
messages: install
	@command -v msgfmt >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gettext >/dev/null; \
	  else echo "msgfmt (GNU gettext) is missing: install gettext"; exit 1; fi; }
	$(PY) manage.py compilemessages --ignore '.venv' --ignore 'bench' --ignore 'node_modules' -v 0

# The whole product in one process: HTTP, websockets and the periodic work (deadlines,
# jackpot meters, ledger seal: CASINO_PERIODIC_IN_SERVER, on without REDIS_URL).
run: demo messages
	@echo "Serving on http://$(HOST):$(PORT)/  (API docs: http://$(HOST):$(PORT)/api/docs/)"
	$(PY) manage.py runserver $(HOST):$(PORT)

# The suite over a worker per core (pytest-xdist; TEST_WORKERS=N chooses, 0 runs it in this
# process). Each worker has its own test database and Redis database (tests/conftest.py).
# Beside the tests, the suite runs the project's checks (tests/test_tooling.py): the
# migrations check, mypy on the game engines and the pages' JavaScript tests (node --test).
TEST_WORKERS ?= auto
test: install browser node messages
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder

# The database benchmarks need DATABASE_URL (PostgreSQL); see bench/README.md.
bench: install
	$(PY) bench/bench_evaluator.py
	$(PY) bench/bench_stud_eval.py
	$(PY) bench/bench_stud_engine.py
	$(PY) bench/bench_settlement.py
	$(PY) bench/bench_jackpot_contention.py
	$(PY) bench/bench_export.py
	$(PY) bench/bench_verify.py
	$(PY) bench/bench_history.py
	$(PY) bench/bench_live_tables.py
	$(PY) bench/bench_poker_tables.py

clean:
	rm -rf $(VENV) db.sqlite3 .pytest_cache .hypothesis
