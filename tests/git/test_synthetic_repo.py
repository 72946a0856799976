"""The shared synthetic-repository fixture builds the history it promises."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from tests.fixtures.synthetic_repo import (
    KNOWN_AFTER,
    KNOWN_BEFORE,
    KNOWN_COMMITS,
    KNOWN_INTERVAL,
    KNOWN_START,
    KNOWN_STEP_AT,
    CommitSpec,
    KnownHistory,
    git,
    git_date,
    make_repo,
)


def test_known_history(known_values_repo: KnownHistory) -> None:
    assert len(known_values_repo.first_parent) == KNOWN_COMMITS
    assert len(set(known_values_repo.first_parent)) == KNOWN_COMMITS
    assert known_values_repo.dates[1] - known_values_repo.dates[0] == KNOWN_INTERVAL
    assert known_values_repo.values[KNOWN_STEP_AT - 1] == KNOWN_BEFORE
    assert known_values_repo.value_of(known_values_repo.step_change) == KNOWN_AFTER
    assert len(known_values_repo.side) == 2
    all_commits = git(known_values_repo.path, "rev-list", "--all").split()
    assert len(all_commits) == KNOWN_COMMITS + 2
    parents = git(
        known_values_repo.path, "rev-list", "--parents", "-n", "1", known_values_repo.merge
    )
    assert len(parents.split()) == 3
    assert git(known_values_repo.path, "status", "--porcelain") == ""


def test_values_as_stored(known_values_repo: KnownHistory) -> None:
    for position in (0, KNOWN_STEP_AT - 1, KNOWN_STEP_AT, KNOWN_COMMITS - 1):
        commit = known_values_repo.first_parent[position]
        stored = git(known_values_repo.path, "show", f"{commit}:value.txt")
        assert int(stored) == known_values_repo.values[position]


def test_the_hostile_message_holds_raw_bytes(known_values_repo: KnownHistory) -> None:
    raw = subprocess.run(
        ["git", "-C", str(known_values_repo.path), "cat-file", "commit", known_values_repo.hostile],
        capture_output=True,
        check=True,
    ).stdout
    assert b"\xff\xfe\xc3(" in raw
    assert b"<script>alert(1)</script>" in raw
    assert b"$(touch /tmp/pwned)" in raw
    assert b"\x1b[31m" in raw


def test_make_repo_keeps_dates_authors_and_zones(tmp_path: Path) -> None:
    zone = timezone(timedelta(hours=-7))
    ids = make_repo(
        tmp_path,
        [
            CommitSpec(
                date=datetime(2020, 5, 6, 7, 8, 9, tzinfo=zone), message="one", files={"a": "1"}
            ),
            CommitSpec(
                date=datetime(2020, 5, 7, tzinfo=UTC),
                author_date=datetime(2019, 1, 1, tzinfo=UTC),
                author="Someone Else <else@example.org>",
                message="two",
                files={"a": None, "b/c.sh": "#!/bin/sh\n"},
                executable=("b/c.sh",),
            ),
        ],
    )
    assert len(ids) == 2
    shown = git(tmp_path, "log", "-1", "--format=%cI|%aI|%an <%ae>|%cn", ids[0])
    assert shown.split("|") == [
        "2020-05-06T07:08:09-07:00",
        "2020-05-06T07:08:09-07:00",
        "Ada Lovelace <ada@example.org>",
        "perfwalk fixture",
    ]
    shown = git(tmp_path, "log", "-1", "--format=%cI|%aI|%an", ids[1])
    assert shown == "2020-05-07T00:00:00+00:00|2019-01-01T00:00:00+00:00|Someone Else"
    assert git(tmp_path, "ls-files", "-s", "b/c.sh").startswith("100755")
    assert not (tmp_path / "a").exists()
    assert git_date(KNOWN_START) == "1704067200 +0000"
