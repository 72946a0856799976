"""Adaptive repetitions (``[run] repetitions = "auto"`` or ``repetitions_max``): a
checkout gets repetitions until the relative standard error of its values is below
``rse_target``. On the known-values history, with a test that adds seeded noise at odd
checkouts only, the quiet checkouts stop at the least and the noisy ones go to the most,
in checkout order and in rounds; the pages say how many each needed."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report.layout import series_page
from perfwalk.services.inspect import series_status
from perfwalk.services.publish import publish_site
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig
from tests.services.walks import finished, kill_walk_once_stored, walk

BROKEN = 3  # the checkout whose build fails

#: the known value at even checkouts; at odd ones, noise of ±30 drawn from the checkout
#: and the repetition (seeded: the same on every run)
NOISY_BENCH = """\
v=$(cat value.txt)
if [ $((PERFWALK_CHECKOUT % 2)) -eq 1 ]; then
  v=$((v + (PERFWALK_CHECKOUT * 7919 + PERFWALK_REPETITION * 104729) % 61 - 30))
fi
echo "VALUE $v ms latency"
"""


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    """The noisy test's script."""
    path = tmp_path / "noisy-bench.sh"
    path.write_text(NOISY_BENCH, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("order", "repetitions", "least"),
    [("checkout", "2", ""), ("rounds", "2", ""), ("checkout", '"auto"', "repetitions_min = 2")],
)
def test_quiet_checkouts_stop_at_the_least_noisy_ones_at_the_most(
    make_config: MakeConfig, bench: Path, order: str, repetitions: str, least: str
) -> None:
    config = make_config(
        command=f"sh {bench}",
        repetitions=repetitions,
        run=f'{least}\nrepetitions_max = 7\nrse_target = 0.01\norder = "{order}"',
    )
    result = run_series(config, RunOptions())
    with Store.open(config.store.url) as store:
        series = store.series(result.series_id)
        assert series.adaptive
        assert series.measuring is not None
        assert (series.measuring.repetitions_max, series.measuring.rse_target) == (7, 0.01)
        counts = {
            row.idx: len(store.repetitions(row.id)) for row in store.checkouts(result.series_id)
        }
        stored = sorted(
            (rep.id, row.idx)
            for row in store.checkouts(result.series_id)
            for rep in store.repetitions(row.id)
        )
    assert counts == {i: 0 if i == BROKEN else 7 if i % 2 else 2 for i in range(11)}
    if order == "rounds":  # rounds 3 to 7 hold only the checkouts not precise yet
        assert {idx for _id, idx in stored[2 * 10 :]} == {1, 5, 7, 9}

    site = config.path.parent / "site"
    publish_site(config, site)
    page = (site / series_page(result.series_id)).read_text(encoding="utf-8")
    assert "2 to 7 repetitions per checkout" in page
    assert page.count("2 repetitions needed to bring the relative standard error below") == 6
    assert page.count("7 repetitions: the most allowed (repetitions_max)") == 4


def test_a_count_above_the_most_is_refused(make_config: MakeConfig) -> None:
    config = make_config(run="repetitions_max = 4")
    with pytest.raises(Exception, match=r"--repetitions 5 is above run.repetitions_max = 4"):
        run_series(config, RunOptions(repetitions=5))


def test_a_resumed_adaptive_walk_counts_the_values_stored_before(
    make_config: MakeConfig, bench: Path
) -> None:
    config = make_config(command=f"sh {bench}; sleep 0.2", run="repetitions_max = 7")
    db = config.path.parent / "perfwalk.db"
    kill_walk_once_stored(config.path, db, 4)  # 2 + 2 of 7
    with Store.open(config.store.url) as store:
        noisy = store.checkouts(1)[1]
        assert 2 <= len(store.repetitions(noisy.id)) < 7, "killed too late; slow the test"

    resumed = walk(config.path, "--resume")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 1, err  # 1: the broken build
    assert "11 checkouts × 2 to 7 repetitions" in out.decode()
    with Store.open(config.store.url) as store:
        counts = {row.idx: len(store.repetitions(row.id)) for row in store.checkouts(1)}
        status = series_status(store, store.series(1))
    # status: done of the most the walk could take (not of the least, which it exceeds)
    assert (status.repetitions_done, status.repetitions_total) == (6 * 2 + 4 * 7, 11 * 7)
    assert counts == {i: 0 if i == BROKEN else 7 if i % 2 else 2 for i in range(11)}


def test_a_walk_warns_of_its_unstable_sets_on_its_last_lines(
    make_config: MakeConfig, bench: Path
) -> None:
    config = make_config(command=f"sh {bench}", repetitions="3")
    status, out, err = finished("run", "-c", str(config.path))
    assert status == 1, err  # 1: the broken build
    (warning,) = [line for line in out.splitlines() if "repetition sets" in line]
    with Store.open(config.store.url) as store:
        by_checkout: dict[int, list[float]] = {}
        for row in store.values(1):
            by_checkout.setdefault(row.checkout_idx, []).append(row.value)
    spread = [statistics.stdev(v) / statistics.fmean(v) for v in by_checkout.values()]
    unstable = sum(1 for rsd in spread if rsd >= 0.025)  # the default analysis.unstable_rsd
    assert unstable, spread  # the noise of the test makes some
    assert warning.startswith(f"warning: {unstable} of 10 repetition sets"), warning
    assert "of 30 values outliers" in warning
    assert "`perfwalk show 1`" in warning
    assert 'more repetitions (`[run] repetitions = "auto"`)' in warning  # the remedy


def test_a_steady_walk_warns_of_nothing(make_config: MakeConfig) -> None:
    status, out, err = finished("run", "-c", str(make_config().path))
    assert status == 1, err
    assert "repetition sets" not in out
