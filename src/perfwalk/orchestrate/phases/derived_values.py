"""The derived metrics of a test (``[[test.derived]]``) at one repetition: computed from
the values it measured (and its sweep's parameters), each with its unit and
direction as the test resolves them; one it cannot compute is left out with the
reason, never the repetition (:mod:`perfwalk.config.derived`)."""

from __future__ import annotations

from collections.abc import Sequence

from perfwalk.config.derived import Missing
from perfwalk.config.model import TestConfig
from perfwalk.config.sweeps import PREFIX
from perfwalk.model import Value


def derived_values(
    test: TestConfig, measured: Sequence[Value]
) -> tuple[list[tuple[Value, str]], list[str]]:
    """The derived values of ``test`` from ``measured`` (value, better direction), in
    the order declared, and what to say of those left out. Nothing when nothing was
    measured (the test's status says why)."""
    if not test.derived or not measured:
        return [], []
    known = {value.name: value.value for value in measured}
    names = list(known)
    known.update({PREFIX + k: float(v) for k, v in test.sweep.items() if not isinstance(v, str)})
    found: list[tuple[Value, str]] = []
    said: list[str] = []
    for derived in test.derived:
        if derived.name in names:
            said.append(
                f"derived {derived.name} left out: the test measured a value of that name "
                "(rename the derived metric)"
            )
            continue
        absent = sorted(name for name in derived.parsed.names if name not in known)
        try:
            if absent:
                raise Missing(
                    f"no value {', '.join(absent)} at this repetition (its values: "
                    f"{', '.join(names)})"
                )
            number = derived.parsed.evaluate(known)
        except Missing as why:
            said.append(f"derived {derived.name} left out: {why}")
            continue
        known[derived.name] = number
        names.append(derived.name)
        metric = test.metric(derived.name, derived.unit)
        found.append((Value(derived.name, number, metric.unit), metric.direction.value))
    return found, said
