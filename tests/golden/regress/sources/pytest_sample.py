"""A suite for pytest --junitxml: one test of each outcome pytest reports.

Not collected by perfwalk's own test run (the name does not start with test_);
tests/golden/regress/capture.sh and tests/regress run it on purpose.
"""

import sys

import pytest


def test_pass():
    assert sum([1]) == 1


def test_fail():
    print("computing the answer")
    one = 1
    assert one == 2, "one is not two"


@pytest.mark.skip(reason="no network here")
def test_skip():
    pass


@pytest.mark.xfail(reason="known bug 42")
def test_xfail():
    raise AssertionError("still broken")


@pytest.mark.xfail(reason="fixed upstream?", strict=True)
def test_xpass_strict():
    pass


@pytest.fixture
def broken():
    raise RuntimeError("setup broke")


def test_setup_error(broken):
    pass


@pytest.fixture
def messy():
    yield
    raise RuntimeError("teardown broke")


def test_teardown_error(messy):
    pass


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    print("stderr of", n, file=sys.stderr)
    assert n == 1


def test_hostile_output():
    print("<script>alert('out')</script> \x1b[31mred\x1b[0m")
    pytest.fail("<img src=x onerror=alert('msg')>")
