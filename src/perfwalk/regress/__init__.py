"""Functional regression suites: what a test run says, and what a history of runs means.

Everything here is pure (text or statuses in, typed results out; no I/O, no clock):

- :mod:`~perfwalk.regress.outcome`: one test's outcome, and a parsed suite;
- :mod:`~perfwalk.regress.markers`: the status rules of a test command and the
  marker-style logs (``FAILED``, ``SKIPPED``, ``EXPECTED_FAIL``, ``UNEXPECTED_PASS``);
- :mod:`~perfwalk.regress.junit`, :mod:`~perfwalk.regress.tap`: results files of
  other runners (JUnit XML, TAP and ``prove`` output);
- :mod:`~perfwalk.regress.formats`: the formats by name, and telling them apart;
- :mod:`~perfwalk.regress.history`: decayed severity, pass rate, flakiness, the
  first failing run of a test's history and where it broke.
"""
