"""A parser that loses values is said, not silent: a real ``perfwalk run`` walks a
real git repository with a regex that misses the p99 line once its format changes
(commit 20 on: tests/services/lossy_walk.py). The walk says it on its line as each
of those checkouts is measured and at its end, with the checkouts and what to do;
``show`` marks the cells LOST; the checkout pages say it; the configuration's
``[test.metrics.real]`` (as ``perfwalk init`` writes it) that the series never
produced is flagged too."""

from __future__ import annotations

import re
from pathlib import Path

from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KNOWN_AFTER, KnownHistory
from tests.services.lossy_walk import FROM, MISSES, NEVER, TO, config_of, run
from tests.services.walks import finished

SAID = (
    "warning: latency: parser found 1 of the 2 metrics the previous checkouts had: missing "
    "p99, at 3 checkouts (4, 5, 6): fix its parser (`perfwalk parse --test latency FILE` "
    "tries it on an output `perfwalk log 1:4 --test latency` shows), then `perfwalk "
    "reparse 1` reads the stored outputs again, without a walk"
)


def test_a_walk_says_the_values_its_parser_lost_and_marks_their_checkouts(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    url = f"sqlite:///{tmp_path}/store.db"
    config = config_of(tmp_path / "perfwalk.toml", known.path, url, MISSES)
    code, out, err = finished("run", "-c", str(config), "--from", FROM, "--to", TO, timeout=300)
    assert code == 0, err
    with Store.open(url) as store:
        rows = store.checkouts(1)
        losses = store.parser_losses.of_series(1)
    lost = [row.idx for row in rows if known.value_of(row.sha) == KNOWN_AFTER]
    assert lost == [4, 5, 6]
    # the walk's line (a log: plain lines), once per checkout, as each is measured
    warned = re.findall(
        r"^checkout (\d+) [0-9a-f]{10}: warning: latency: parser found 1 of the 2 metrics "
        r"the previous checkouts had: missing p99 · repetitions \d+/14",
        err,
        re.MULTILINE,
    )
    assert [int(idx) for idx in warned] == lost
    # its end: the checkouts and what to do; the declared metric never produced
    assert SAID in out.splitlines()
    assert NEVER in out
    assert losses == [(idx, "latency", ("p50", "p99"), ("p99",)) for idx in lost]
    shown = run("show", "1", "-c", str(config))
    assert SAID in shown.splitlines()
    assert NEVER in shown
    table = {line.split()[0]: line for line in shown.splitlines() if line[:1].isdigit()}
    assert [idx for idx, line in table.items() if line.endswith("LOST")] == ["4", "5", "6"]
    # the checkout pages say it
    site = tmp_path / "site"
    run("report", "-c", str(config), "--out", str(site))
    data = (site / "series-1" / "data" / "checkouts-0.js").read_text()
    assert data.count('"lost":["latency: parser found 1 of the 2 metrics') == 3
    assert "function lostBox(c)" in (site / "pages.js").read_text()
