"""Shared test options and fixtures."""

from __future__ import annotations

import signal

import pytest

# A test suite started in the background (`make test &`, some CI runners) inherits an
# ignored SIGINT, and Python then never raises KeyboardInterrupt, in this process or in
# the perfwalk processes the tests start. The Ctrl-C tests need the ordinary behaviour.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: fixtures for every folder: real git repositories with a known history
#: (known_values_repo, …) and one headless chromium per session (browser, watched)
#: and how the tests share pytest-xdist's workers (groups, tests that run alone)
pytest_plugins = [
    "tests.fixtures.workers",  # first: tests.fixtures.demo imports it
    "tests.fixtures.synthetic_repo",
    "tests.fixtures.breaking_repo",
    "tests.fixtures.chromium",
    "tests.fixtures.demo",
    "tests.fixtures.receivers",  # mailbox, hook: real receivers of notifications
]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regen-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current output instead of comparing",
    )


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    """True when golden files are to be rewritten (pytest --regen-golden)."""
    return bool(request.config.getoption("--regen-golden"))
