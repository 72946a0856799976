# perfwalk: the two commands are `make demo` and `make test`.
VENV    := .venv
STAMP   := $(VENV)/.installed
PYTHON  ?= python3

.PHONY: demo test check install debian clean

demo: install
	$(VENV)/bin/perfwalk demo --dir demo

test: install
	scripts/check

# ruff, mypy and pytest without reinstalling anything (what scripts/check runs).
check:
	scripts/check

install: debian $(STAMP) web/node_modules/.installed

debian:
	@scripts/install-debian-packages

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.lock
	$(VENV)/bin/pip install -q --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

# the plotting library the published site copies into itself (npm, locked)
web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	touch $@

clean:
	rm -rf $(VENV) demo web/node_modules
