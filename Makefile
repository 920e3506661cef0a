# adk-fluent developer commands. Every target creates .venv (newest supported google-adk,
# plus the codegen and dev tools) when it is missing; only Python is needed beforehand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed

help:  ## List the commands (this page).
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:[^#]*## /\t/' | awk -F'\t' '{printf "  make %-14s %s\n", $$1, $$2}'

.PHONY: help setup demo docs docs-serve regen check gate test test-workflow test-as-user test-fast test-unit tide tide-one tide-newest lint typecheck bench bench-quick report-screenshot clean

# pytest rewrites assertions in test modules and plugins; let it cache them in __pycache__ even
# where the environment turns bytecode caching off (it would otherwise recompile ~200 modules on
# every run, seconds of the unit tier's budget).
unexport PYTHONDONTWRITEBYTECODE

# uv (from PyPI) installs in seconds; plain pip is the fallback if uv cannot be had.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check uv \
		&& $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[dev]' \
		|| $(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

setup: $(STAMP)  ## Create .venv and install adk-fluent with its dev tools.

# The documentation tools (the `docs` extra: MkDocs, Material, mkdocstrings) go into the same
# .venv, on top of whatever is there; `docs-serve` needs only them.
$(DOCS_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check uv \
		&& $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[docs]' \
		|| $(BIN)/python -m pip install --quiet -e '.[docs]'
	@touch $(DOCS_STAMP)

# NO_MKDOCS_2_WARNING: Material prints a notice about MkDocs 2 on every build; it is not about
# this site. The check reads the site just built (ADK_FLUENT_SITE_DIR) and stays out of CI's
# tier table (ADK_FLUENT_TIER_REPORT=), whose rows are the suite's runs per ADK release.
docs: $(STAMP) $(DOCS_STAMP)  ## Build the documentation site into site/ (strict: any warning, broken link or reference fails), then check it.
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site
	ADK_FLUENT_SITE_DIR=site ADK_FLUENT_TIER_REPORT= $(BIN)/python -m pytest tests/integration/docs/test_site.py -q -p no:cacheprovider

docs-serve: $(DOCS_STAMP)  ## Serve the documentation on http://127.0.0.1:8000, rebuilt on every edit.
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

demo: $(STAMP)  ## Run the example pipeline offline (scripted model); uses a real model if GOOGLE_API_KEY is set.
	$(BIN)/python examples/demo.py

# `make regen RELEASES="2.14.0 2.15.0"` scans those releases instead, each in its own throwaway
# environment (uv; needs PyPI); RELEASES=missing scans every published release without a scan,
# RELEASES=all rescans them all (about 50, ~10 minutes on 2 cores).
RELEASES ?=

regen: $(STAMP)  ## Scan the installed ADK (or RELEASES=...), regenerate generated/, diffs/, docs/compatibility.md.
ifeq ($(strip $(RELEASES)),)
	$(BIN)/adk-fluent-codegen regen
else
	$(BIN)/adk-fluent-codegen scan-releases $(RELEASES)
endif

check: $(STAMP)  ## Fail if generated/ or diffs/ drifted from templates and manifests.
	$(BIN)/adk-fluent-codegen check

gate: $(STAMP)  ## Fail on breaking ADK changes nobody acknowledged in diffs/acknowledged.toml.
	$(BIN)/python -m adk_fluent_codegen.gate

test: $(STAMP)  ## The whole suite (every tier) on both ADK ends (google-adk 1.25.0 and the newest 2.x).
	$(BIN)/nox -s tests

test-workflow: $(STAMP)  ## The behaviour tier on the newest ADK with every tree compiled to a Workflow graph.
	$(BIN)/nox -s tests_workflow

test-as-user: $(STAMP)  ## As a user installs it: every README/docs block against the package built as a wheel, and each extra alone (one real use each).
	$(BIN)/nox -s docs_as_user extras

test-fast: $(STAMP)  ## The whole suite (every tier) on the ADK in .venv only, on every core.
	$(BIN)/python -m pytest -q -n auto

test-unit: $(STAMP)  ## The unit tier only (pure tests, seconds) on the ADK in .venv.
	$(BIN)/python -m pytest tests/unit -q

tide: $(STAMP)  ## The whole suite on the tide sample of ADK releases (noxfile TIDE_RELEASES; ~15 min).
	$(BIN)/nox -s tide

tide-one: $(STAMP)  ## The whole suite on one release: ADK=2.4.0, ADK=newest, or the rotating middle one.
	$(BIN)/nox -s tide_one -- $(ADK)

tide-newest: $(STAMP)  ## When ADK publishes: scan the newest release, gate its changes, run the suite on it.
	$(BIN)/adk-fluent-codegen scan-releases newest
	@status=0; \
	$(BIN)/python -m adk_fluent_codegen.gate || status=1; \
	$(BIN)/nox -s tide_one -- newest || status=1; \
	git status --short generated diffs docs/compatibility.md; \
	exit $$status

lint: $(STAMP)  ## ruff, the import contracts (.importlinter), and mypy over the generated package and the core.
	$(BIN)/ruff check codegen src tests bench examples noxfile.py
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check codegen src tests bench examples noxfile.py
	$(BIN)/mypy generated/adk_fluent_generated src/adk_fluent

typecheck: $(STAMP)  ## mypy (strict for src/) over the generated package and the core.
	$(BIN)/mypy generated/adk_fluent_generated src/adk_fluent

bench: $(STAMP)  ## Benchmarks: ratios against raw ADK doing the same work, a PASS/MISS per budget.
	$(BIN)/python -m bench

bench-quick: $(STAMP)  ## The benchmarks' CI guard (~40 s): per-turn and build costs, failing past 1.5x a budget.
	$(BIN)/python -m bench --quick

report-screenshot: $(STAMP)  ## Regenerate docs/images/run-report.png (a real run's HTML report in headless chromium; .ci/install-chromium).
	$(BIN)/python -m tests.support.report_screenshot

clean:  ## Remove .venv, .nox, caches and the built site.
	rm -rf $(VENV) .nox .pytest_cache .mypy_cache site
