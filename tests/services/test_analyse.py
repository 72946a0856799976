"""The analysis use cases over a real SQLite store filled with known values."""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from perfwalk.analysis.segments import DEFAULT_TUNING
from perfwalk.analysis.thresholds import Thresholds
from perfwalk.config import load_config
from perfwalk.config.model import AnalysisConfig, Config
from perfwalk.errors import UsageError
from perfwalk.model import EMPTY_LOG, Checkout, Commit, Direction, Status, Value
from perfwalk.orchestrate.findings import changes, metric_search
from perfwalk.orchestrate.findings.changes import find_changes
from perfwalk.report.forked import can_fork
from perfwalk.services.analyse import detect_file
from perfwalk.services.compare import ReadOptions, file_sample, store_sample
from perfwalk.store import NewRepetition, NewResult, QuirkInfo, Store
from tests.store.factories import T0, new_series

CONFIG = """\
[project]
repo = "."

[[test]]
name = "bench"
command = "true"
parser = "value"

[test.metrics.best_time]
summary = "best"

[test.metrics.ignored]
ignore = true
"""

#: time (lower is better) and rate (higher is better) of the benchmark at each checkout
Metric = tuple[str, str, Direction]
TIME: Metric = ("time", "ms", Direction.LOWER)
RATE: Metric = ("rate", "ops/s", Direction.HIGHER)


def commit(idx: int, k: int) -> Commit:
    """The k-th commit since the checkout before ``idx``."""
    return Commit(
        id=hashlib.sha1(f"{idx}:{k}".encode()).hexdigest(),
        date=T0 + timedelta(days=idx, hours=k - 2),
        author=f"Dev {k} <dev{k}@example.org>",
        subject=f"change {idx}.{k}",
    )


@pytest.fixture
def config(tmp_path: Path) -> Config:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return load_config(path)


@pytest.fixture
def store(config: Config) -> Iterator[Store]:
    with Store.open(config.store.url) as opened:
        yield opened


def add_series(
    store: Store,
    levels: dict[Metric, Sequence[float | None]],
    *,
    seed: str = "walk",
    reps: int = 3,
    noise: float = 0.01,
    quirk_until: int | None = None,
    failed: Sequence[int] = (),
    variant_of: int | None = None,
    **fields: Any,
) -> int:
    """A series with one checkout per level (None: nothing measured there), ``reps``
    repetitions with ``noise`` relative noise; quirk A applies to the checkouts
    before ``quirk_until``; the checkouts in ``failed`` did not build. With
    ``variant_of`` (a walk's id), the variant ``fast`` of that walk, at the same
    commits; ``fields``: more of the series' (NewSeries)."""
    rng = random.Random(seed)
    quirks = () if quirk_until is None else (QuirkInfo("A", T0, "f00d", "compiler upgraded"),)
    if variant_of is not None:
        fields = {"kind": "variant", "parent_id": variant_of, "variant": "fast", **fields}
    sid = store.create_series(new_series(repetitions=reps, quirks=quirks, **fields))
    count = len(next(iter(levels.values())))
    for idx in range(count):
        since = tuple(commit(idx, k) for k in range(2))
        applies = quirk_until is not None and idx < quirk_until
        cid = store.add_checkout(
            sid,
            Checkout(
                index=idx,
                commit=since[-1].id,
                date=T0 + timedelta(days=idx),
                since=since,
                quirks=("A",) if applies else (),
            ),
        )
        if idx in failed:
            store.set_build(cid, Status.NOEXIST, 1.0, EMPTY_LOG)
            continue
        store.set_build(cid, Status.PASS, 1.0, EMPTY_LOG)
        for rep in range(reps):
            values = tuple(
                (Value(name, level * (1 + noise * rng.gauss(0, 1)), unit), direction)
                for (name, unit, direction), series_levels in levels.items()
                if (level := series_levels[idx]) is not None
            )
            store.add_repetition(
                cid,
                NewRepetition(
                    idx=rep,
                    started_at=T0,
                    finished_at=T0,
                    results=(NewResult(test="bench", status=Status.PASS, values=values),),
                ),
            )
    return sid


def step(before: float, after: float, at: int, count: int = 16) -> list[float | None]:
    return [before if i < at else after for i in range(count)]


def test_metrics_that_change_in_the_same_range_are_one_event(store: Store, config: Config) -> None:
    sid = add_series(store, {TIME: step(10, 13, 8), RATE: step(1000, 770, 8)})
    (event,) = find_changes(store, config)
    assert (event.series_id, event.before_idx, event.after_idx) == (sid, 7, 8)
    assert event.kind == "regression"
    assert event.regression
    assert [(m.name, m.regression) for m in event.metrics] == [("rate", True), ("time", True)]
    time = event.metrics[1]
    assert time.size == pytest.approx(0.30, abs=0.02)
    assert time.low < 0.30 < time.high
    assert time.before == pytest.approx(10, rel=0.01)
    assert time.after == pytest.approx(13, rel=0.01)
    assert time.confidence > 0.9999
    assert (time.checkouts_before, time.checkouts_after) == (8, 8)
    assert [c.id for c in event.commits] == [commit(8, k).id for k in range(2)]
    assert event.known_causes == ()


def test_improvements_and_mixed_events(store: Store, config: Config) -> None:
    add_series(store, {TIME: step(10, 7, 8), RATE: step(1000, 1000, 8)})
    (better,) = find_changes(store, config)
    assert better.kind == "improvement"
    assert not better.regression
    add_series(store, {TIME: step(10, 7, 8), RATE: step(1000, 800, 8)}, seed="mixed")
    mixed = find_changes(store, config)[-1]
    assert mixed.kind == "mixed"
    assert mixed.regression


def test_a_checkout_without_values_widens_the_range(store: Store, config: Config) -> None:
    add_series(store, {TIME: step(10, 13, 8)}, failed=[8])
    (event,) = find_changes(store, config)
    assert (event.before_idx, event.after_idx) == (7, 9)
    assert len(event.commits) == 4  # those of the checkout that did not build, and of 13


def test_a_quirk_in_the_range_is_a_known_cause(store: Store, config: Config) -> None:
    add_series(store, {TIME: step(10, 13, 8)}, quirk_until=8)
    (event,) = find_changes(store, config)
    assert [q.letter for q in event.known_causes] == ["A"]


def test_ignored_metrics_and_the_best_of_n_policy(store: Store, config: Config) -> None:
    ignored: Metric = ("ignored", "ms", Direction.LOWER)
    best: Metric = ("best_time", "ms", Direction.LOWER)
    add_series(store, {ignored: step(10, 20, 8), best: step(10, 13, 8)}, noise=0.05)
    (event,) = find_changes(store, config)
    (change,) = event.metrics
    assert change.name == "best_time"
    assert change.before < 10  # the minimum of five noisy values, not their median


def test_only_the_series_asked_for(store: Store, config: Config) -> None:
    first = add_series(store, {TIME: step(10, 13, 8)})
    second = add_series(store, {TIME: step(10, 10, 8)}, seed="flat")
    assert [e.series_id for e in find_changes(store, config, [first])] == [first]
    assert find_changes(store, config, [second]) == []
    assert len(find_changes(store, None)) == 1  # no configuration: every metric, medians


def test_no_series_no_changes(store: Store, config: Config) -> None:
    assert find_changes(store, config) == []


def test_the_searches_of_a_long_series_in_two_processes_find_the_same(
    store: Store, config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size: Metric = ("size", "KiB", Direction.LOWER)
    best: Metric = ("best_time", "ms", Direction.LOWER)
    add_series(
        store,
        {
            TIME: step(10, 13, 8, count=24),
            RATE: step(1000, 770, 16, count=24),
            size: [100.0 + (20.0 if 9 <= i < 12 else 0.0) for i in range(24)],  # an excursion
            best: step(5, 4, 12, count=24),
        },
        noise=0.02,
    )
    alone = changes.find_all(store, config)
    assert alone.changes
    assert alone.episodes  # the excursion
    where = tmp_path / "searched-in"
    search = metric_search.find_change_points

    def searched(*args: Any, **kwargs: Any) -> Any:
        with where.open("a") as out:  # written by the process that searched
            out.write(f"{os.getpid()}\n")
        return search(*args, **kwargs)

    monkeypatch.setattr(metric_search, "find_change_points", searched)
    monkeypatch.setattr(metric_search, "FORK_FROM", 0)  # this short series counts as long
    assert can_fork(computing=True)  # two cores: the condition of the forked searches
    forked = changes.find_all(store, config)
    processes = where.read_text().split()
    assert len(processes) == 4
    assert str(os.getpid()) not in processes  # forked (one may do both halves, if quicker)
    assert forked == alone


@pytest.mark.parametrize("at", [14, 15, 1, 2])
def test_a_step_in_the_first_or_last_two_checkouts_is_reported_at_the_edge(
    store: Store, config: Config, at: int
) -> None:
    # issue 13, defect 3: with the default minimum of 3 checkouts per level, a step that
    # leaves one or two checkouts at an end was never reported ("no changes found")
    sid = add_series(store, {TIME: step(10, 14, at)})
    (event,) = find_changes(store, config, [sid])
    (change,) = event.metrics
    assert (event.before_idx, event.after_idx) == (at - 1, at)
    assert change.edge
    assert change.regression
    assert change.size == pytest.approx(0.4, abs=0.03)
    assert min(change.checkouts_before, change.checkouts_after) == min(at, 16 - at)


def test_a_step_that_leaves_three_checkouts_is_no_edge(store: Store, config: Config) -> None:
    add_series(store, {TIME: step(10, 14, 13)})
    (event,) = find_changes(store, config)
    assert not event.metrics[0].edge


def test_thresholds_per_metric_and_for_the_run(tmp_path: Path) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(
        CONFIG + "\n[test.metrics.time]\nmin_change = 0.5\n\n[test.metrics.rate]\nmin_size = 9\n",
        encoding="utf-8",
    )
    config = load_config(path)
    with Store.open(config.store.url) as store:
        add_series(store, {TIME: step(10, 13, 8), RATE: step(1000, 770, 8)})
        assert find_changes(store, config) == []  # +30 % < 50 %; levels of 8 < 9 checkouts
        (event,) = find_changes(store, config, tuning=Thresholds(min_change=0.1))
        assert [m.name for m in event.metrics] == ["time"]  # the run's min_change wins
        assert not event.metrics[0].edge
        (event,) = find_changes(store, config, tuning=Thresholds(min_size=3))
        assert [m.name for m in event.metrics] == ["rate"]
        assert find_changes(store, config, tuning=Thresholds(threshold=100)) == []
        assert find_changes(store, None)  # no configuration: the defaults


def test_the_configured_defaults_are_the_detectors() -> None:
    analysis = AnalysisConfig()
    assert (analysis.threshold, analysis.min_size, analysis.min_change) == (
        DEFAULT_TUNING.threshold,
        DEFAULT_TUNING.min_size,
        DEFAULT_TUNING.min_change,
    )


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    """A store with one series of two metrics, for the tests that only read it."""
    path = tmp_path_factory.mktemp("filled") / "perfwalk.db"
    with Store.open(f"sqlite:///{path}") as opened:
        yield opened, add_series(opened, {TIME: step(10, 13, 8), RATE: step(1000, 770, 8)})


def test_samples_of_the_store(filled: tuple[Store, int]) -> None:
    store, sid = filled
    sample = store_sample(store, f"{sid}:3", "bench.time")
    assert sample.n == 3
    assert sample.name == f"series {sid} checkout 3 ({commit(3, 1).id[:10]}) bench.time"
    assert store_sample(store, ":3", "rate").values[0] > 900  # the newest series
    by_commit = store_sample(store, f"{sid}:{commit(4, 1).id[:7]}", "time")
    assert by_commit.name.startswith(f"series {sid} checkout 4 ")


@pytest.mark.parametrize(
    ("operand", "metric", "message"),
    [
        ("nothing-here", None, "neither a file nor SERIES:CHECKOUT"),
        ("x:3", "time", "'x' is not a series id"),
        ("1:99", "time", "'99' matches no checkout"),
        ("1:3", None, "several metrics here"),
        ("1:3", "speed", "metric 'speed' is not measured here"),
    ],
)
def test_store_operands_that_do_not_exist_are_user_errors(
    filled: tuple[Store, int], operand: str, metric: str | None, message: str
) -> None:
    store, _ = filled
    with pytest.raises(UsageError, match=message) as error:
        store_sample(store, operand, metric)
    assert error.value.hint


def test_files_for_compare_and_detect(tmp_path: Path) -> None:
    numbers = tmp_path / "a.txt"
    numbers.write_text("# ms\n1 x\n2 y\n3 z\n", encoding="utf-8")
    assert file_sample(numbers).values == (1.0, 2.0, 3.0)
    table = tmp_path / "b.csv"
    table.write_text("1;4\n2;5\n3;6\n", encoding="utf-8")
    assert file_sample(table, ReadOptions(column=2, delimiters=";")).values == (4.0, 5.0, 6.0)
    series = tmp_path / "s.txt"
    series.write_text("".join(f"{10 if i < 30 else 20}\n" for i in range(60)), encoding="utf-8")
    assert [c.index for c in detect_file(series).changes] == [30]
    with pytest.raises(UsageError, match="no such file"):
        detect_file(tmp_path / "missing.txt")
    with pytest.raises(UsageError, match="is a directory"):
        file_sample(tmp_path)
