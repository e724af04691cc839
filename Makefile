# ampsched: `make demo` runs the main job, `make test` runs every test, `make reproduce` regenerates
# the papers' reproductions in docs/reproduction.
# Everything installs into .venv from the package registries; nothing else is needed but
# python3 (>= 3.9) and a Rust toolchain.

PYTHON ?= python3
VENV   := .venv
VPY    := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# maturin's build hook runs the `maturin` executable from PATH.
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

SOURCES := $(shell find crates python catalog -type f \( -name '*.rs' -o -name '*.py' -o -name '*.toml' -o -name '*.c' -o -name '*.h' \)) Cargo.toml Cargo.lock pyproject.toml

.PHONY: demo test test-all lint test-rust test-python bench install clean reproduce speedup-model docs docs-check

$(VENV)/.tools:
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "maturin>=1.5,<2" "pandas>=1.5" "pyarrow>=14" "tqdm>=4.60" "matplotlib>=3.5" "pytest>=7" "pytest-xdist>=3" "hypothesis>=6" "ray>=2.9"
	touch $@

# `pip install .` builds the Rust engine and the Python package together (maturin backend),
# here with the tests' Cargo profile (`ci`, Cargo.toml: no link-time optimisation) in the same
# target directory, so the workspace's crates are compiled once for both; a user's `pip install .`
# builds the release profile.
CARGO_PROFILE := ci

$(STAMP): $(VENV)/.tools $(SOURCES)
	MATURIN_PEP517_ARGS="--profile $(CARGO_PROFILE)" $(VPY) -m pip install -q --no-build-isolation .
	touch $@

install: $(STAMP)

demo: $(STAMP)
	mkdir -p out
	$(VENV)/bin/ampsched compare --report out/report.html

# Every reproduction, full version: docs/reproduction/NAME.md and its figures (committed).
reproduce: $(STAMP)
	$(VPY) -c 'from ampsched import reproductions as r; print("\n".join(r.registry()))' | \
		while read name; do $(VENV)/bin/ampsched reproduce $$name || exit 1; done

test: lint docs-check test-rust test-python

$(VENV)/.ruff: $(VENV)/.tools
	$(VPY) -m pip install -q "ruff>=0.6,<1"
	touch $@

# The documentation site's tools, pinned in pyproject.toml's `docs` extra (read from there, so the
# versions are written once), installed like ruff: in .venv, apart from the package, so that
# `make docs` needs no build of the engine (mkdocstrings reads python/ampsched's sources without
# importing them). A regular expression, not a TOML parser: Python 3.9 has none built in.
DOCS_EXTRA := import re; t = open("pyproject.toml").read(); \
	print(*re.findall(r"\x22([^\x22]+)\x22", re.search(r"(?m)^docs = \[(.*)\]$$", t).group(1)))
$(VENV)/.docs: $(VENV)/.tools pyproject.toml
	$(VPY) -m pip install -q $$($(VPY) -c '$(DOCS_EXTRA)')
	touch $@

# Material for MkDocs prints a notice about its successor at every build; it says nothing about ours.
MKDOCS := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs

# The site (mkdocs.yml, docs/) into site/; open site/index.html.
docs: $(VENV)/.docs
	$(MKDOCS) build -q

# `make test`'s check of the site: a warning (a broken link or anchor, a page missing from the
# nav or a nav entry without its page) fails the build. A few seconds; writes into a scratch dir.
# Not -q: MkDocs 1.6 counts strict mode's warnings through the log, and -q drops them uncounted
# (a broken link then passed, seen in this project).
docs-check: $(VENV)/.docs
	$(MKDOCS) build --strict --site-dir $(CURDIR)/$(VENV)/docs-check-site

# Format and lint, enforced: rustfmt (rustfmt.toml), clippy with warnings as errors (the
# workspace's lints in Cargo.toml), ruff's formatter and linter ([tool.ruff] in pyproject.toml).
lint: $(VENV)/.ruff
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --profile $(CARGO_PROFILE) -q -- -D warnings
	$(VENV)/bin/ruff format --check -q python tests bench
	$(VENV)/bin/ruff check -q python tests bench

# Everything `make test` runs, plus the slow tests it reports as skipped (pytest's `slow`
# marker) and the long fuzz: 3,000 hostile inputs instead of 140.
test-all:
	AMPSCHED_TEST_ALL=1 AMPSCHED_FUZZ_CASES=3000 $(MAKE) test

# ampsched-py (no Rust tests) stays in: left out, the features its pyo3 macros give syn are not
# unified here, and `make install` then compiles serde_derive and every crate after it again
# (measured: 106 + 51 s CPU against 132 + 13 s).
test-rust:
	cargo test --workspace --profile $(CARGO_PROFILE)

# Two parts: the tests that need the machine to themselves (the `serial` marker: live programs
# timed by CPU time; tests/python/conftest.py) alone, the others first on two pytest-xdist
# workers, which keeps both CPUs busy while one test waits on a child process; a test module runs
# on one worker (`loadfile`), so a reproduction's quick version, which its module caches, runs once;
# the longest modules are handed out first (conftest.py's LONGEST_FIRST).
test-python: $(STAMP)
	cd tests/python && ../../$(VPY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder -m "not serial"
	cd tests/python && ../../$(VPY) -m pytest -q -m serial

bench:
	cargo run --release -q -p ampsched-runner --bin ampsched-bench

# WASH's speedup models (catalog/models/wash-speedup.toml; README, "The speedup model").
speedup-model:
	cargo run --release -q -p ampsched-runner --bin ampsched-train-speedup-model

clean:
	rm -rf $(VENV) target out
