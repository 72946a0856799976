"""``perfwalk run --variants``: every checkout measured as the plain checkout (base) and
as each variant, in a series of its own per variant, their repetitions interleaved in
a seeded shuffled order; a variant's patches applied before its build (one that does
not apply: NOEXIST for that variant only), its runtime modifiers put in place in each
test's startup and undone in its reset (real git repository, real processes, SQLite).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from perfwalk.errors import ConfigError, UsageError
from perfwalk.model import Status
from perfwalk.orchestrate.checkout.variants import variant_order
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import run_series
from perfwalk.store import Store
from perfwalk.store.records import SeriesRow
from tests.fixtures.synthetic_repo import KNOWN_AFTER, KNOWN_BEFORE, git, git_date
from tests.services.conftest import MakeConfig

#: bench.sh prints 10 ms more (applies at every commit: bench.sh never changes)
SLOWER = """\
--- a/bench.sh
+++ b/bench.sh
@@ -1,4 +1,4 @@
 #!/bin/sh
 # Prints the value this commit is known to have.
 cd "$(dirname "$0")" || exit 1
-echo "VALUE $(cat value.txt) ms latency"
+echo "VALUE $(( $(cat value.txt) + 10 )) ms latency"
"""

#: value.txt from 100 to 90: applies only where the value is 100
ONLY_BEFORE = """\
--- a/value.txt
+++ b/value.txt
@@ -1 +1 @@
-100
+90
"""

CHECKOUTS = 11
BROKEN = 3  # the checkout whose build fails, for every variant


def _variants(state: Path) -> str:
    return f"""
[[variant]]
name = "slower"
comment = "bench.sh adds 10 ms"
patches = ["slower.diff"]

[[variant]]
name = "partial"
patches = ["only-before.diff"]

[[variant]]
name = "loaded"
comment = "a state file the test reads, put in place and taken away per test"
[[variant.modifier]]
apply = ["echo 7 > {state}"]
undo = ["rm {state}"]
"""


def _command(state: Path) -> str:
    """bench.sh's value, plus what the state file says while a modifier holds."""
    return (
        "v=$(sh bench.sh | cut -d' ' -f2); "
        f"e=$(cat {state} 2>/dev/null || echo 0); "
        'echo \\"VALUE $((v + e)) ms latency\\"'
    )


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "slower.diff").write_text(SLOWER, encoding="utf-8")
    (tmp_path / "only-before.diff").write_text(ONLY_BEFORE, encoding="utf-8")
    return tmp_path / "modifier.state"


def _values(store: Store, series_id: int) -> dict[int, list[float]]:
    found: dict[int, list[float]] = defaultdict(list)
    for row in store.values(series_id):
        found[row.checkout_idx].append(row.value)
    return found


def _series(store: Store, base: int) -> dict[str, SeriesRow]:
    return {row.variant_name: row for row in [store.series(base), *store.variant_series(base)]}


def test_each_variant_is_measured_in_its_own_series_beside_the_plain_checkout(
    make_config: MakeConfig, state: Path
) -> None:
    config = make_config(command=_command(state), extra=_variants(state))
    result = run_series(config, RunOptions(variants=("slower", "partial", "loaded")))
    assert not state.exists(), "the modifier was not undone"
    with Store.open(config.store.url) as store:
        series = _series(store, result.series_id)
        assert sorted(series) == ["base", "loaded", "partial", "slower"]
        for name, row in series.items():
            assert row.state == "finished", name
            assert row.kind == ("walk" if name == "base" else "variant")
            assert row.parent_id == (None if name == "base" else result.series_id)
        base = _values(store, series["base"].id)
        assert len(base) == CHECKOUTS - 1  # the broken build has none
        for index, values in base.items():
            assert values == [values[0]] * 2
            assert values[0] in (KNOWN_BEFORE, KNOWN_AFTER)
            assert _values(store, series["slower"].id)[index] == [values[0] + 10] * 2
            assert _values(store, series["loaded"].id)[index] == [values[0] + 7] * 2

        # the patch that does not apply: NOEXIST for that variant only, with git's reject
        partial = {row.idx: row for row in store.checkouts(series["partial"].id)}
        plain = {row.idx: row for row in store.checkouts(series["base"].id)}
        assert len(partial) == CHECKOUTS
        for index, row in partial.items():
            if index == BROKEN:
                assert row.build_status is Status.NOEXIST
            elif base[index][0] == KNOWN_BEFORE:
                assert row.build_status is Status.PASS
                assert _values(store, series["partial"].id)[index] == [KNOWN_BEFORE - 10] * 2
            else:
                assert row.build_status is Status.NOEXIST, index
                assert plain[index].build_status is Status.PASS
                assert row.build_log_id is not None
                log = store.log(row.build_log_id).text()
                assert "only-before.diff does not apply" in log
                assert "patch failed: value.txt:1" in log
                assert index not in _values(store, series["partial"].id)


def test_the_repetitions_of_the_variants_are_interleaved_in_their_seeded_order(
    make_config: MakeConfig, state: Path
) -> None:
    config = make_config(command=_command(state), extra=_variants(state), repetitions="3")
    result = run_series(config, RunOptions(to="2024-01-04", variants=("slower", "loaded")))
    with Store.open(config.store.url) as store:
        series = _series(store, result.series_id)
        seed = series["base"].measuring.seed if series["base"].measuring else None
        assert seed is not None
        started: dict[int, list[tuple[object, str, int]]] = defaultdict(list)
        for name, row in series.items():
            for checkout in store.checkouts(row.id):
                for rep in store.repetitions(checkout.id):
                    started[checkout.idx].append((rep.started_at, name, rep.idx))
    orders = set()
    for index, reps in started.items():
        stored = [(name, rep) for _at, name, rep in sorted(reps)]
        # repetition r of every variant before any variant's r + 1, each in its draw
        expected = [
            (name, number)
            for number in range(3)
            for name in variant_order(["base", "slower", "loaded"], seed, index, number)
        ]
        assert stored == expected, index
        orders.update(tuple(name for name, rep in stored if rep == n) for n in range(3))
    assert len(orders) > 1, "every repetition in the same order of variants"


def test_a_resumed_walk_measures_the_variants_it_started_with(
    make_config: MakeConfig, state: Path
) -> None:
    config = make_config(command=_command(state), extra=_variants(state))
    first = run_series(config, RunOptions(to="2024-01-03", variants=("slower",)))
    with Store.open(config.store.url) as store:
        store.set_series_state(first.series_id, "interrupted")
        [variant] = store.variant_series(first.series_id)
        store.set_series_state(variant.id, "interrupted")
        done = len(store.values(variant.id))
    with pytest.raises(UsageError, match="--variants cannot be given with --resume"):
        run_series(config, RunOptions(resume=True, variants=("slower",)))
    again = run_series(config, RunOptions(resume=True))
    assert again.series_id == first.series_id
    with Store.open(config.store.url) as store:
        assert [v.id for v in store.variant_series(first.series_id)] == [variant.id]
        assert store.series(variant.id).state == "finished"
        assert len(store.values(variant.id)) == done  # nothing measured twice


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("fast",), "no variant 'fast' in .*perfwalk.toml \\(its variants: slower, partial"),
        (("base",), "base is the plain checkout"),
        (("slower", "slower"), "slower is named twice"),
    ],
)
def test_a_wrong_variant_is_refused_before_anything_is_stored(
    make_config: MakeConfig, state: Path, names: tuple[str, ...], message: str
) -> None:
    config = make_config(command=_command(state), extra=_variants(state))
    with pytest.raises(UsageError, match=message):
        run_series(config, RunOptions(variants=names))
    with Store.open(config.store.url) as store:
        assert store.list_series() == []


def test_variant_settings_are_checked_when_the_file_loads(
    make_config: MakeConfig, state: Path
) -> None:
    twice = _variants(state) + '\n[[variant]]\nname = "slower"\n'
    with pytest.raises(ConfigError, match=r"variant\[3\].name: duplicate variant name 'slower'"):
        make_config(extra=twice)
    missing = '\n[[variant]]\nname = "x"\npatches = ["nowhere.diff"]\n'
    with pytest.raises(ConfigError, match=r"variant\[0\].patches: .*nowhere.diff: no such file"):
        make_config(extra=missing)
    role = '\n[[variant]]\nname = "x"\n[[variant.modifier]]\nrole = "dut"\n'
    role += 'apply = ["a"]\nundo = ["b"]\n'
    with pytest.raises(ConfigError, match=r"variant\[0\].modifier\[0\].role: no host plays"):
        make_config(extra=role)
    walk = '\n[[walk]]\nname = "nightly"\nvariants = ["nope"]\n'
    with pytest.raises(ConfigError, match=r"walk\[0\].variants\[0\]: no \[\[variant\]\] is named"):
        make_config(extra=_variants(state) + walk)


def test_a_modifier_is_undone_when_the_test_fails_and_one_that_fails_is_noexist(
    make_config: MakeConfig, state: Path
) -> None:
    refusing = '\n[[variant]]\nname = "refused"\n[[variant.modifier]]\napply = ["exit 4"]\n'
    refusing += f'undo = ["echo undone >> {state}.undone"]\n'
    config = make_config(
        command=f"test -e {state} && exit 3; sh bench.sh",
        extra=_variants(state) + refusing,
    )
    result = run_series(config, RunOptions(to="2024-01-02", variants=("loaded", "refused")))
    assert not state.exists(), "the modifier of a failed test was not undone"
    with Store.open(config.store.url) as store:
        series = _series(store, result.series_id)
        statuses = {
            name: {
                found.status
                for checkout in store.checkouts(row.id)
                for rep in store.repetitions(checkout.id)
                for found in rep.results
            }
            for name, row in series.items()
        }
        checkouts = len(store.checkouts(result.series_id))
    assert statuses == {
        "base": {Status.PASS},
        "loaded": {Status.NOEXIT},
        "refused": {Status.NOEXIST},
    }
    # reset runs whatever happened in startup: one undo per test run of the variant
    assert Path(f"{state}.undone").read_text().count("undone") == checkouts * 2


def test_a_modifier_with_an_unknown_placeholder_is_refused_before_anything_is_stored(
    make_config: MakeConfig, state: Path
) -> None:
    unknown = '\n[[variant]]\nname = "x"\n[[variant.modifier]]\napply = ["echo {nope}"]\n'
    unknown += 'undo = ["true"]\n'
    config = make_config(command=_command(state), extra=unknown)
    with pytest.raises(ConfigError, match=r"variant\.x\.modifier\[0\]\.apply.*nope"):
        run_series(config, RunOptions())
    with Store.open(config.store.url) as store:
        assert store.list_series() == []


def test_a_named_walk_continues_its_variants_in_their_own_series(
    make_config: MakeConfig, state: Path
) -> None:
    nightly = '\n[[walk]]\nname = "nightly"\nfrom = "2024-01-09"\nstep = "1day"\n'
    nightly += 'variants = ["slower"]\n'
    config = make_config(command=_command(state), extra=_variants(state) + nightly)
    first = run_series(config, RunOptions(walk="nightly"))
    repo = config.project.repo
    (repo / "value.txt").write_text("100\n", encoding="utf-8")
    git(repo, "add", "-A")
    when = git_date(datetime(2024, 1, 12, 12, tzinfo=UTC))
    dates = {
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    git(repo, "commit", "-q", "-m", "one more", env=dates)
    again = run_series(config, RunOptions(walk="nightly"))
    assert again.series_id == first.series_id
    with Store.open(config.store.url) as store:
        [slower] = store.variant_series(first.series_id)  # the same variant series
        plain = [c.idx for c in store.checkouts(first.series_id)]
        assert [c.idx for c in store.checkouts(slower.id)] == plain
        assert store.series(slower.id).planned_checkouts == len(plain)
        values = _values(store, slower.id)
        assert values[plain[-1]] == [KNOWN_BEFORE + 10] * 2  # the new checkout, patched
