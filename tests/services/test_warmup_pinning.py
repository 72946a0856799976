"""Warm-up runs (``warmup``): run and kept as steps, never counted; CPU pinning
(``cpus``): the test command runs under ``taskset -c`` and the series records it.
Real git repository, real processes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfwalk.analysis.summary import summarize
from perfwalk.errors import ConfigError
from perfwalk.hosts.fake import FakeHost, Rule
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.walk.plan import RunOptions, check_pinning
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.services.conftest import MakeConfig
from tests.services.walks import lines

BROKEN = 3  # the checkout whose build fails
BUILT = [index for index in range(11) if index != BROKEN]

#: a test that says when it warms up: warm-up runs print 999, counted runs the known value
WARMING = (
    'echo $PERFWALK_CHECKOUT w$PERFWALK_WARMUP >> {runs}; if [ -n \\"$PERFWALK_WARMUP\\" ];'
    " then echo VALUE 999 ms latency; else sh bench.sh; fi"
)

SECOND_TEST = """
[[test]]
name = "cold"
command = "echo $PERFWALK_CHECKOUT cold >> {runs}; sh bench.sh"
parser = "value"
warmup = 0
"""


@pytest.mark.parametrize("order", ["checkout", "rounds"])
def test_warm_up_runs_run_before_the_repetitions_and_are_never_counted(
    make_config: MakeConfig, known_values_repo_copy: KnownHistory, tmp_path: Path, order: str
) -> None:
    runs = tmp_path / "runs"
    config = make_config(
        command=WARMING.format(runs=runs),
        run=f'warmup = 3\norder = "{order}"',
        extra=SECOND_TEST.format(runs=runs),
    )
    result = run_series(config, RunOptions())

    seen = [line.split() for line in lines(runs)]
    for index in BUILT:  # 3 warm-ups + 2 repetitions of latency, 2 of cold (warmup = 0)
        mine = [what for i, what in seen if int(i) == index]
        assert mine.count("w1") == mine.count("w2") == mine.count("w3") == 1, mine
        assert (mine.count("w"), mine.count("cold")) == (2, 2), mine
        assert mine.index("w3") < mine.index("w")  # warm-ups come first
    with Store.open(config.store.url) as store:
        values = store.values(result.series_id)
        assert all(v.value != 999 for v in values)
        assert len(values) == len(BUILT) * 2 * 2
        for index in BUILT:
            latency = [v.value for v in values if v.checkout_idx == index and v.test == "latency"]
            found = summarize(latency)
            assert found is not None
            commit = store.checkouts(result.series_id)[index].sha
            assert (found.n, found.max) == (2, known_values_repo_copy.value_of(commit))
        # the warm-up runs' output is kept as warmup steps of the checkout's first repetition
        checkout = store.checkouts(result.series_id)[0]
        first, second = store.repetitions(checkout.id)
        steps = [s for s in store.steps(first.id) if s.phase == "warmup"]
        assert [(s.test, s.name) for s in steps] == [
            ("latency", f"warm-up {n}/3") for n in (1, 2, 3)
        ]
        assert all(b"VALUE 999" in store.log(s.stdout_log_id).data for s in steps)
        assert not [s for s in store.steps(second.id) if s.phase == "warmup"]


def test_a_pinned_test_runs_on_its_cpus_and_the_series_says_so(
    make_config: MakeConfig, tmp_path: Path
) -> None:
    cpu = str(max(os.sched_getaffinity(0)))
    seen = tmp_path / "status"
    config = make_config(
        command=f"grep Cpus_allowed_list /proc/self/status >> {seen}; sh bench.sh",
        run=f'cpus = "{cpu}"\nfrom = "2024-01-01"\nto = "2024-01-02"',
    )
    result = run_series(config, RunOptions())
    found = lines(seen)
    assert len(found) == 2 * 2  # 2 checkouts, 2 repetitions
    assert {line.split()[-1] for line in found} == {cpu}
    with Store.open(config.store.url) as store:
        commands = store.series(result.series_id).commands
    assert commands["tests"]["latency"]["cpus"] == cpu
    assert commands["tests"]["latency"]["pinned"].startswith(f"taskset -c {cpu} sh -c ")


def test_pinning_without_taskset_is_refused_naming_the_key(make_config: MakeConfig) -> None:
    config = make_config(extra='cpus = "0"')
    host = FakeHost([Rule("command -v taskset", returncode=1)], name="lab")
    with pytest.raises(ConfigError, match="need taskset, which host lab does not have") as info:
        check_pinning(config, Topology.single(host))
    assert info.value.key == "test[0].cpus"
    assert "util-linux" in (info.value.hint or "")
