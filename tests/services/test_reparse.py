"""A fixed parser reads the stored outputs again without a walk: real ``perfwalk``
processes walk a real git repository with a regex that misses the p99 line once its
format changes (tests/services/lossy_walk.py); the regex fixed in the configuration,
``perfwalk reparse`` says what would change without changing a row, ``--apply``
replaces the values (``changes`` then finds the step of p99, ``show`` and the pages
mark nothing lost), ``--undo --apply`` puts the old ones back, and a publish writes
again the pages of the checkouts whose values changed. An output cut by ``[store]
log_limit`` is not parsed again; a series under a walk is not changed. SQLite, and
PostgreSQL."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KNOWN_AFTER, KNOWN_BEFORE, KnownHistory
from tests.services.lossy_walk import (
    COMMAND,
    FIXED,
    FROM,
    MISSES,
    NEVER,
    TO,
    config_of,
    p99_changes,
    rows_of,
    run,
    values_of,
)
from tests.services.walks import finished, perfwalk, stored_repetitions, wait_for
from tests.store.conftest import _pg_schema_url, pg_admin

__all__ = ["pg_admin"]


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from _pg_schema_url(request)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/store.db"
    return str(request.getfixturevalue("pg_url"))


@pytest.mark.slow
def test_a_reparse_finds_what_a_parser_lost_and_an_undo_puts_the_old_values_back(
    tmp_path: Path, known_values_repo_copy: KnownHistory, store_url: str
) -> None:
    known = known_values_repo_copy
    config = config_of(tmp_path / "perfwalk.toml", known.path, store_url, MISSES)
    run("run", "-c", str(config), "--from", FROM, "--to", TO)
    with Store.open(store_url) as store:
        rows = store.checkouts(1)
    lost = [row.idx for row in rows if known.value_of(row.sha) == KNOWN_AFTER]
    assert lost == [4, 5, 6]
    assert "LOST" in run("show", "1", "-c", str(config))
    site = tmp_path / "site"
    run("report", "-c", str(config), "--out", str(site))
    assert p99_changes(config) == []  # p99 stops where the parser lost it: no step

    # the regex fixed: a dry run says what would change, and changes no row
    config_of(config, known.path, store_url, FIXED)
    before, stored = rows_of(store_url), values_of(store_url)
    dry = run("reparse", "1", "-c", str(config))
    for idx in lost:
        assert re.search(
            rf"^checkout {idx} \([0-9a-f]{{10}}\): latency\.p99 gained: 130\.0 ms \(n=2\)$",
            dry,
            re.MULTILINE,
        ), dry
    assert "3 of 7 checkouts would change (6 of 14 results)" in dry
    assert "dry run, nothing changed: `perfwalk reparse 1 --apply` replaces them" in dry
    assert rows_of(store_url) == before
    assert values_of(store_url) == stored
    as_json = json.loads(run("reparse", "1", "-c", str(config), "--format", "json"))
    assert [c["idx"] for c in as_json["checkouts"]] == lost
    assert as_json["checkouts"][0]["metrics"] == [
        {"test": "latency", "name": "p99", "unit": "ms", "before": [], "after": [130.0, 130.0]}
    ]
    assert as_json["applied"] is None
    assert rows_of(store_url) == before

    # applied: the values replaced, the old kept; changes sees the step of p99
    applied = run("reparse", "1", "-c", str(config), "--apply")
    assert "3 of 7 checkouts replaced (6 of 14 results)" in applied
    assert "reparse 1 stored; the old values are kept" in applied
    now = rows_of(store_url)
    assert now["value"] == before["value"] + 6
    assert (now["reparse"], now["replaced_result"], now["parser_loss"]) == (1, 6, 0)
    assert (now["result"], now["log"], now["repetition"]) == (
        before["result"],
        before["log"],
        before["repetition"],
    )
    p99 = {(c, r): v for c, r, _t, _s, name, v in values_of(store_url) if name == "p99"}
    assert p99 == {(row.idx, rep): float(known.value_of(row.sha)) for row in rows for rep in (0, 1)}
    assert set(p99.values()) == {KNOWN_BEFORE, KNOWN_AFTER}
    assert p99_changes(config) == [4]
    shown = run("show", "1", "-c", str(config))
    assert "LOST" not in shown
    assert "parser found" not in shown
    assert NEVER in shown  # still: the table names no metric the test gives
    publish = run("report", "-c", str(config), "--out", str(site))
    assert '"lost"' not in (site / "series-1" / "data" / "checkouts-0.js").read_text()
    assert publish  # (a full publish: the configuration changed)

    # undone: a dry run first, then what the reparse replaced is back
    undo = run("reparse", "1", "-c", str(config), "--undo")
    assert "the undo of reparse 1 (" in undo
    assert re.search(r"^checkout 4 \([0-9a-f]{10}\): latency\.p99 lost: 130\.0 ms", undo, re.M)
    assert rows_of(store_url) == now
    run("reparse", "1", "-c", str(config), "--undo", "--apply")
    assert values_of(store_url) == stored
    assert p99_changes(config) == []
    again = run("report", "-c", str(config), "--out", str(site))
    assert "incremental publish:" in again
    assert " 3 checkouts rendered" in again  # the manifest saw the values change there
    assert (site / "series-1" / "data" / "checkouts-0.js").read_text().count('"lost"') == 3
    code, _out, err = finished("reparse", "1", "-c", str(config), "--undo")
    assert code == 2
    assert "perfwalk: error: series 1 has no reparse to undo" in err


def test_an_output_cut_by_the_log_limit_or_pruned_is_not_parsed_again(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    """Four of the checkouts print 3 000 lines of noise before their values: with a
    log_limit of 2 000 bytes their outputs are cut (head and tail kept), and a reparse
    keeps their values rather than replace them with what a cut output gives; so does it
    with the outputs retention dropped (``perfwalk prune``)."""
    known = known_values_repo_copy
    url = f"sqlite:///{tmp_path}/store.db"
    path = tmp_path / "perfwalk.toml"
    config = config_of(path, known.path, url, MISSES, extra="log_limit = 2000\n")
    noisy = 'if [ "$(cat commit.txt)" -lt 18 ]; then seq 3000; fi; '
    path.write_text(
        config.read_text().replace(json.dumps(COMMAND), json.dumps(noisy + COMMAND)),
        encoding="utf-8",
    )
    run("run", "-c", str(config), "--from", FROM, "--to", TO)
    config_of(config, known.path, url, FIXED, extra="log_limit = 2000\n")
    path.write_text(
        config.read_text().replace(json.dumps(COMMAND), json.dumps(noisy + COMMAND)),
        encoding="utf-8",
    )
    stored = values_of(url)
    out = run("reparse", "1", "-c", str(config), "--apply")
    cut = re.findall(
        r"^checkout (\d) \([0-9a-f]{10}\): not parsed again: repetition 0, latency: its output "
        r"was cut to \d+ bytes of \d+ \(\[store\] log_limit\): its values are kept; "
        r"repetition 1, latency: its output was cut",
        out,
        re.MULTILINE,
    )
    assert cut == ["0", "1"]
    assert "4 results not parsed again, their values kept" in out
    after = values_of(url)
    assert [v for v in after if v[0] < 2] == [v for v in stored if v[0] < 2]
    assert {v[4] for v in after if v[0] >= 4} == {"p50", "p99"}
    # retention drops the outputs of all but the newest checkout and the two ends of the
    # change of p99 (3 and 4): nothing to read there
    run("prune", "-c", str(config), "--max-size", "1", "--apply")
    out = run("reparse", "1", "-c", str(config), "--apply")
    pruned = re.findall(
        r"^checkout (\d) \([0-9a-f]{10}\): not parsed again: repetition 0, latency: its output "
        r"cannot be read: log pruned on \d{4}-\d\d-\d\d \(retention: beyond 1\.00 B\); ",
        out,
        re.MULTILINE,
    )
    assert pruned == ["0", "1", "2", "5"]
    assert "0 of 7 checkouts replaced (0 of 14 results); 8 results not parsed again" in out
    assert values_of(url) == after


def test_values_are_not_replaced_under_a_walk_and_bad_requests_are_refused(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    known = known_values_repo_copy
    db = tmp_path / "store.db"
    url = f"sqlite:///{db}"
    config = config_of(tmp_path / "perfwalk.toml", known.path, url, MISSES)
    slow = config.read_text().replace(json.dumps(COMMAND), json.dumps("sleep 0.5; " + COMMAND))
    config.write_text(slow, encoding="utf-8")
    walk = perfwalk("run", "-c", str(config), "--from", FROM, "--to", TO, capture=False)
    try:
        wait_for(lambda: stored_repetitions(db) >= 1, "a first repetition", timeout=120)
        code, out, err = finished("reparse", "1", "-c", str(config), "--apply")
        assert code == 2, out
        assert re.search(r"error: series 1 is being walked \(pid \d+ on ", err), err
        assert "hint: reparse it when the walk ends (`perfwalk status 1`)" in err
    finally:
        walk.kill()
        walk.wait(timeout=30)
    bad = [
        (("--checkouts", "9-3"), "argument --checkouts: '9-3': the first checkout is after"),
        (("--checkouts", "x"), "argument --checkouts: expected N, A-B, A- or -B"),
        (("--checkouts", "50-"), "error: --checkouts: series 1 has no checkout there"),
        (("--test", "nosuch"), "error: --test nosuch: no such test in"),
        (("--undo", "--test", "latency"), "error: --undo puts back all that the newest"),
        (("--undo",), "error: series 1 has no reparse to undo"),
    ]
    for args, said in bad:
        code, _out, err = finished("reparse", "1", "-c", str(config), *args)
        assert code == 2, (args, err)
        assert said in err, (args, err)
        assert "Traceback" not in err
    code, _out, err = finished("reparse", "7", "-c", str(config))
    assert code == 2
    assert "no series with id 7" in err


def test_where_a_quirk_replaces_the_parser_its_parser_reads_again(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    """Checkouts 4 to 6 ran under a quirk whose regex reads their p99 line: parsed
    again, each checkout by the parser it ran with, nothing changes (the test's own
    regex would lose p99 there)."""
    url = f"sqlite:///{tmp_path}/store.db"
    config = config_of(tmp_path / "perfwalk.toml", known_values_repo_copy.path, url, MISSES)
    quirk = f"""
[[quirk]]
at = "2024-01-06"
comment = "p99 printed as 'p99: N ms'"

[quirk.test.latency]
parser_options = {{ pattern = '{FIXED}', unit = "ms" }}
"""
    config.write_text(config.read_text() + quirk, encoding="utf-8")
    run("run", "-c", str(config), "--from", FROM, "--to", TO)
    with Store.open(url) as store:
        quirked = [row.idx for row in store.checkouts(1) if row.quirks]
    assert quirked == [4, 5, 6]
    stored = values_of(url)
    assert {(c, name) for c, _r, _t, _s, name, _v in stored if c >= 4} == {
        (c, name) for c in (4, 5, 6) for name in ("p50", "p99")
    }
    out = run("reparse", "1", "-c", str(config), "--apply")
    assert "0 of 7 checkouts replaced (0 of 14 results)" in out
    assert values_of(url) == stored
