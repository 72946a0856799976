"""What a walk tells as it goes (:class:`perfwalk.orchestrate.walk.walk_progress.Progress`):
each checkout done once, with a summary of its values, whatever the order; a failed
build once, with its status; the count of repetitions reaching the total."""

from __future__ import annotations

import pytest

from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import BUILD_FAILED, CHECKOUT_DONE, Progress
from perfwalk.services.run import run_series
from tests.services.conftest import MakeConfig

BROKEN = 3  # the checkout of the known-values walk whose build fails
CHECKOUTS = 11


@pytest.mark.parametrize("order", ["checkout", "rounds"])
def test_each_checkout_is_told_done_once_and_a_failed_build_once(
    make_config: MakeConfig, order: str
) -> None:
    told: list[Progress] = []
    config = make_config(run=f'order = "{order}"')
    run_series(config, RunOptions(repetitions=2), told.append)
    done = [p for p in told if p.kind == CHECKOUT_DONE]
    assert sorted(p.checkout - 1 for p in done) == [i for i in range(CHECKOUTS) if i != BROKEN]
    assert {p.message for p in done} <= {"latency.latency 100.0 ms", "latency.latency 130.0 ms"}
    (failed,) = [p for p in told if p.kind == BUILD_FAILED]
    assert failed.checkout - 1 == BROKEN
    assert failed.message.startswith("build failed (NOEXIST): ")
    assert len(failed.commit) == 40
    assert told[-1].done == told[-1].total == 2 * CHECKOUTS
