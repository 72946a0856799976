"""A change's snapshot counters as rates (perfwalk.orchestrate.findings.walk_evidence):
each counter's difference per unit of the work its [[snapshot]] names for the test, or
per second between the two snapshots; a repetition without the work, with 0 of it, or
without its seconds gives no rate, a counter missing on one side none either."""

from __future__ import annotations

import math
from pathlib import Path

from perfwalk.config import load_config
from perfwalk.config.model import SnapshotConfig
from perfwalk.orchestrate.findings.walk_evidence import counter_rates
from perfwalk.store.records import SnapshotSpan

CONFIG = """\
[project]
repo = "."

[[test]]
name = "latency"
command = "true"
parser = "value"

[[snapshot]]
name = "work"
command = "x"
per = ["latency.ops"]

[[snapshot]]
name = "time"
command = "x"
"""


def span(checkout: int, rep: int, name: str, seconds: float | None, sent: int) -> SnapshotSpan:
    return SnapshotSpan(
        checkout_idx=checkout,
        repetition_idx=rep,
        test="latency",
        name=name,
        role="",
        before={"sent": 10, "gone": 1},
        after={"sent": 10 + sent, "new": 5},
        seconds=seconds,
    )


def test_rates_per_unit_of_work_or_per_second(tmp_path: Path) -> None:
    (tmp_path / "perfwalk.toml").write_text(CONFIG, encoding="utf-8")
    config = load_config(tmp_path / "perfwalk.toml")
    assert config.snapshots[0] == SnapshotConfig("work", "x", per=("latency.ops",))
    spans = [
        span(0, 0, "work", 2.0, 100),
        span(0, 1, "work", 2.0, 100),  # no ops value: no rate
        span(1, 0, "work", 2.0, 300),
        span(1, 1, "work", 2.0, 300),  # 0 ops: no rate
        span(0, 0, "time", 4.0, 100),
        span(1, 0, "time", None, 100),  # its steps were not stored: no rate
        span(1, 1, "time", 0.5, 100),
    ]
    rows = [
        (0, 0, "latency", "ops", "ops", 50.0, "higher"),
        (1, 0, "latency", "ops", "ops", 100.0, "higher"),
        (1, 1, "latency", "ops", "ops", 0.0, "higher"),
    ]
    found = {(c.snapshot, c.counter): c for c in counter_rates(spans, rows, {0: 0, 1: 1}, config)}
    assert set(found) == {("work", "sent"), ("time", "sent")}  # in both snapshots only
    work, time = found["work", "sent"], found["time", "sent"]
    assert (work.per, work.rates) == ("latency.ops", [[2.0], [3.0]])
    assert (time.per, time.rates) == ("s", [[25.0], [200.0]])
    # without a configuration (or a snapshot no longer in it): per second
    bare = counter_rates(spans[:1], rows, {0: 0, 1: 1}, None)
    assert [(c.per, c.rates) for c in bare] == [("s", [[50.0], []])]
    assert all(math.isfinite(r) for c in found.values() for rs in c.rates for r in rs)
