"""``perfwalk run --extend SERIES --variants NAME``: a variant added to a walk that was
measured without it gets a series of its own at exactly the walk's checkouts, its
repetitions interleaved with as many new repetitions of the plain checkout (numbered
after the stored ones), so that the two are compared as measured side by side; ``-n``
then extends the plain checkout and every variant alike. Real git repository, real
processes, SQLite."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from perfwalk.errors import UsageError
from perfwalk.model import Status
from perfwalk.orchestrate.checkout.variants import variant_order
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.services.run import plan_series, run_series
from perfwalk.store import Store
from tests.services.conftest import MakeConfig
from tests.services.test_variants import BROKEN, CHECKOUTS, SLOWER, _command, _variants


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "slower.diff").write_text(SLOWER, encoding="utf-8")
    (tmp_path / "only-before.diff").write_text("", encoding="utf-8")
    return tmp_path / "modifier.state"


def _stored(store: Store, series_id: int) -> dict[int, list[tuple[int, int, float]]]:
    """Per checkout index: (repetition id, repetition, value) in the order stored."""
    found: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for checkout in store.checkouts(series_id):
        for rep in store.repetitions(checkout.id):
            for result in rep.results:
                found[checkout.idx] += [(rep.id, rep.idx, v.value) for v in result.values]
    return {index: sorted(reps) for index, reps in found.items()}


def test_a_variant_added_later_is_measured_at_the_walks_checkouts_beside_new_plain_ones(
    make_config: MakeConfig, state: Path
) -> None:
    config = make_config(command=_command(state), extra=_variants(state))
    walked = run_series(config, RunOptions())
    with Store.open(config.store.url) as store:
        before = _stored(store, walked.series_id)
        plain = store.checkouts(walked.series_id)
    assert len(before) == CHECKOUTS - 1  # the broken build has none

    dry = plan_series(config, RunOptions(extend=walked.series_id, variants=("slower",)))
    assert dry.plan.extension is not None
    assert [p.checkout.commit for p in dry.plan.checkouts] == [c.sha for c in plain]
    # 2 of the variant and 2 more of the plain checkout at each checkout that built
    assert [reps for _p, reps in dry.wanting()] == [4] * (CHECKOUTS - 1)
    assert dry.builds() == 2 * (CHECKOUTS - 1)  # the variant's patches: a build of its own

    result = run_series(config, RunOptions(extend=walked.series_id, variants=("slower",)))
    assert result.extended is not None
    assert result.extended.said() == (
        "variant slower, 2 repetitions per checkout beside as many new ones of the plain "
        f"checkout (2 to 4), interleaved with seed {result.extended.seed}; "
        f"{4 * (CHECKOUTS - 1)} repetitions added"
    )
    with Store.open(config.store.url) as store:
        base = store.series(walked.series_id)
        (variant,) = store.variant_series(walked.series_id)
        assert (variant.kind, variant.variant, variant.parent_id) == (
            "variant",
            "slower",
            walked.series_id,
        )
        assert (base.repetitions, variant.repetitions) == (4, 2)
        assert variant.state == base.state == "finished"
        # the variant at exactly the walk's checkouts; the broken one fails for it too
        theirs = store.checkouts(variant.id)
        assert [(c.idx, c.sha) for c in theirs] == [(c.idx, c.sha) for c in plain]
        assert [c.build_status is Status.NOEXIST for c in theirs] == [
            c.idx == BROKEN for c in plain
        ]
        assert [len(store.commits_since(c.id)) for c in theirs] == [
            len(store.commits_since(c.id)) for c in plain
        ]
        now, added = _stored(store, walked.series_id), _stored(store, variant.id)
        started: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
        for name, stored in (("base", now), ("slower", added)):
            for index, reps in stored.items():
                started[index] += [(rep_id, name, rep) for rep_id, rep, _v in reps]
    seed = result.extended.seed
    assert seed is not None
    for index, reps in now.items():
        assert reps[:2] == before[index]  # nothing stored measured again
        assert [rep for _id, rep, _v in reps] == [0, 1, 2, 3]
        value = reps[0][2]
        assert [v for _id, _rep, v in reps] == [value] * 4
        assert [(rep, v) for _id, rep, v in added[index]] == [(0, value + 10), (1, value + 10)]
        # interleaved: new repetition r of the plain checkout and repetition r of the
        # variant before either's r + 1, in the extension's seeded order
        order = [(name, rep) for _id, name, rep in sorted(started[index]) if _id > reps[1][0]]
        assert order == [
            (name, (2 if name == "base" else 0) + number)
            for number in range(2)
            for name in variant_order(["base", "slower"], seed, index, number)
        ], index

    # measured already: refused, with what to do instead
    with pytest.raises(UsageError, match=r"measures the variant slower already \(series "):
        run_series(config, RunOptions(extend=walked.series_id, variants=("slower",)))
    # -n extends the plain checkout and its variant alike, each up to 6
    more = run_series(config, RunOptions(extend=walked.series_id, repetitions=6))
    assert more.extended is not None
    assert more.extended.said().startswith("from 4 to 6 repetitions per checkout")
    with Store.open(config.store.url) as store:
        assert [e.variants for e in store.series(walked.series_id).extensions] == [
            ("slower",),
            (),
        ]
        for series_id, first in ((walked.series_id, 4), (variant.id, 2)):
            for index, reps in _stored(store, series_id).items():
                assert [rep for _id, rep, _v in reps] == list(range(6)), (series_id, index)
                assert reps[first][0] > max(i for i, _r, _v in now[index])
