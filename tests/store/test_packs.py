"""Checkout packs (perfwalk.store.packs) and the site's reads, on both back-ends: a
pack is rewritten with every repetition, holds what the values hold, and its moments
are those of the analysis."""

from __future__ import annotations

import json
import math
import zlib

from sqlalchemy import Engine, delete, update

from perfwalk.analysis.summary import summarize
from perfwalk.model import Log, Status
from perfwalk.store import NewRepetition, Store, schema
from perfwalk.store.packs import STATS, from_little_endian

from .factories import T0, checkout, new_series, repetition, result


def _stored(store: Store) -> tuple[int, int]:
    series_id = store.create_series(new_series())
    checkout_id = store.add_checkout(series_id, checkout(0))
    store.add_repetition(checkout_id, repetition(0, result("iperf", 940.0, 1.0)))
    store.add_repetition(
        checkout_id,
        NewRepetition(
            idx=1,
            started_at=T0,
            finished_at=T0,
            between_status=Status.PASS,
            between_log=Log.of(b"rebooted\n"),
            results=(
                result("iperf", 960.0, math.nan),
                result("fs", 5.0, status=Status.FAIL),
            ),
        ),
    )
    return series_id, checkout_id


def test_a_pack_holds_the_repetitions_values_and_moments(store: Store) -> None:
    series_id, _ = _stored(store)
    [pack] = store.site.packs(series_id, 0, 0)
    head = json.loads(pack.head)
    assert head["reps"] == [0, 1]
    assert head["metrics"] == [
        ["iperf", "iperf.v0", "bits/sec", "higher"],
        ["iperf", "iperf.v1", "bits/sec", "lower"],
        ["fs", "fs.v0", "bits/sec", "higher"],
    ]
    assert head["worst"] == {"iperf": int(Status.PASS), "fs": int(Status.FAIL)}
    values = list(from_little_endian(pack.vals))
    assert values[:2] == [940.0, 960.0]
    assert values[2] == 1.0
    assert math.isnan(values[3])
    assert math.isnan(values[4])
    assert values[5] == 5.0
    passed = list(from_little_endian(pack.passed))
    assert math.isnan(passed[5])  # a FAIL's value is no PASS value
    stats = from_little_endian(pack.stats)
    expected = summarize([940.0, 960.0])
    assert expected is not None
    assert list(stats[:STATS]) == [2, expected.mean, expected.median, 940.0, 960.0, expected.sd]
    assert list(stats[2 * STATS : 3 * STATS]) == [0.0] * STATS  # no PASS value of fs
    detail = json.loads(pack.detail)
    assert [r[0] for r in detail["reps"]] == [0, 1]
    assert detail["reps"][1][2] == "PASS"
    assert [r[2:4] for r in detail["results"]] == [
        ["iperf", "PASS"],
        ["iperf", "PASS"],
        ["fs", "FAIL"],
    ]
    assert detail["nan"] == [[1, 1]]


def test_a_missing_or_older_pack_is_built_when_read(store: Store, raw: Engine) -> None:
    series_id, _ = _stored(store)
    [before] = store.site.packs(series_id, 0, 0)
    with raw.begin() as conn:  # a pack of an older format: built again
        conn.execute(update(schema.checkout_pack).values(format=0, head="{}"))
    assert store.site.packs(series_id, 0, 0) == [before]
    with raw.begin() as conn:  # a store whose packs are gone
        conn.execute(delete(schema.checkout_pack))
    assert store.site.packs(series_id, 0, 0) == [before]


def test_site_reads_a_blocks_logs_and_commits(store: Store) -> None:
    series_id, _ = _stored(store)
    logs = store.site.logs(series_id, 0, 0)
    texts = sorted(zlib.decompress(row.data) for row in logs)
    builds = [b"make: done\n"] if b"make: done\n" in texts else []
    assert texts == sorted([b"iperf out\n", b"iperf out\n", b"fs out\n", b"rebooted\n", *builds])
    assert all(row.total > 0 for row in logs)  # empty outputs are left out
    commits = store.site.commits(series_id, 0, 0)
    assert [c.id for c in commits[0]] == [c.id for c in checkout(0).since]
    assert store.site.repetition_marks(series_id)[0][0] == 2
