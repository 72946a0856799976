"""Last night: a named walk over a history whose build breaks and whose functional test
starts failing, then ``perfwalk status`` (no series) says in one paragraph when the walk
ran, what it added and what its checkouts brought, and the published index opens on
the same strip; past ``[watch] stale_after`` both say the runs stopped (nothing said
when the last run was: a cron that stopped looked like a quiet night)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from tests.fixtures.breaking_repo import BREAKING_CONFIG, BreakingHistory

#: what the paragraph says of a walk of commits 0, 4 … 20, 23: the check fails from 12
#: on (it passed at 8), the build from 20 on (it built at 16)
RAN = re.compile(
    r"The last walk ran \d{4}-\d\d-\d\d \d\d:\d\d–(?:\d{4}-\d\d-\d\d )?\d\d:\d\d "
    r"\(times in UTC, ended \d+ seconds? ago\): nightly \+7 checkouts; 0 new regressions, "
    r"1 build broken, 1 test newly failing"
)


def _walked(tmp_path: Path, repo: BreakingHistory, stale: str = "") -> Path:
    path = tmp_path / "perfwalk.toml"
    path.write_text(BREAKING_CONFIG.format(repo=repo.path, more=stale))
    assert main(["run", "--walk", "nightly", "-c", str(path)]) == 1  # builds failed
    return path


def _status(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    capsys.readouterr()
    assert main(["status", "-c", str(path)]) == 0
    out = capsys.readouterr().out
    return " ".join(out.split("\n\n")[-1].split())  # the last paragraph, unwrapped


def test_status_says_when_the_last_walk_ran_and_what_it_brought(
    tmp_path: Path, breaking_repo: BreakingHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _walked(tmp_path, breaking_repo)
    said = _status(capsys, path)
    print(said)
    assert RAN.match(said), said
    assert "Stale" not in said
    assert main(["report", "-c", str(path)]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    strip = re.search(r'<p id="last-night" class="last-night"[^>]*>.*?</p>', index)
    assert strip is not None, index[:2000]
    print(strip.group(0))
    assert 'data-stale-after="172800"' in strip.group(0)  # twice [watch] interval
    assert "nightly +7 checkouts" in strip.group(0)
    assert "1 build broken, 1 test newly failing" in strip.group(0)
    assert "site published" in strip.group(0)
    assert _status(capsys, path).endswith(strip_published(index) + ".")


def strip_published(index: str) -> str:
    found = re.search(r"site published (\d{4}-\d\d-\d\d \d\d:\d\d)", index)
    assert found is not None
    return found.group(0)


def test_past_stale_after_status_and_the_index_say_the_runs_stopped(
    tmp_path: Path, breaking_repo: BreakingHistory, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _walked(tmp_path, breaking_repo, stale="stale_after = 1")
    time.sleep(1.5)
    said = _status(capsys, path)
    print(said)
    # 1.5 s or more since the run, as slow as this machine is
    assert re.search(
        r"Stale: no run for \d+ seconds?, more than 1 second \(\[watch\] stale_after\)\.$", said
    ), said
    assert main(["report", "-c", str(path)]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<p id="last-night" class="last-night stale"' in index
    assert "stale: no run for" in index
