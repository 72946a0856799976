#!/usr/bin/env bash
# Record real results files as inputs of the regress parser golden tests.
#
# Run by hand, never by the tests:
#     bash tests/golden/regress/capture.sh
# then rewrite the expected parses and read what changed:
#     .venv/bin/pytest tests/regress --regen-golden
#     git diff --stat tests/golden/regress
#
# junit/*.xml are written by pytest itself (--junitxml) running
# sources/pytest_sample.py; tap/*.tap by prove (and perl) running sources/t/*.t;
# markers/*.log by GNU make -k running the shell suite sources/suite (each test
# directory announced by "===> dir", as BSD make does). Needs python3 with pytest
# (the project's .venv), perl with Test::More (prove), GNU make and timeout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$here/sources
python=${PYTHON:-$here/../../../.venv/bin/python}
work=$(mktemp -d /tmp/perfwalk-capture-regress.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$here/junit" "$here/tap" "$here/markers"

# junit <case> <pytest options...>: pytest on the sample, its JUnit XML kept.
junit() {
    local case=$1
    shift
    (cd "$work/py" && "$python" -m pytest -q -p no:cacheprovider -c pytest.ini \
        --junitxml="$here/junit/$case.xml" "$@" pytest_sample.py >/dev/null 2>&1) || true
    echo "captured junit/$case.xml"
}

mkdir "$work/py"
cp "$src/pytest_sample.py" "$work/py/"
printf '[pytest]\n' >"$work/py/pytest.ini"
junit pytest
junit pytest-logging -o junit_logging=all
junit pytest-xunit1 -o junit_family=xunit1

# tap <case> <command...>: the TAP (or prove's output), stdout and stderr merged.
tap() {
    local case=$1
    shift
    (cd "$work" && "$@" >"$here/tap/$case.tap" 2>&1) || true
    echo "captured tap/$case.tap"
}

cp -r "$src/t" "$work/"
tap prove-verbose prove -v --merge t/
tap prove-quiet prove t/
tap perl-plain perl t/b.t

cp -r "$src/suite" "$work/"
cat >"$work/suite/Makefile" <<'MAKE'
TESTS = pass fail xpass skip xfail noexit hang
regress: $(TESTS)
$(TESTS):
	@echo "===> $@"
	@cd $@ && timeout 2 sh run.sh
.PHONY: regress $(TESTS)
MAKE
(cd "$work/suite" && make -k regress >"$here/markers/make-k.log" 2>&1) || true
echo "captured markers/make-k.log"
