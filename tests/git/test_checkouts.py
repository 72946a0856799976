"""checkouts(): from --from/--to/--step to the checkouts of a walk, on the known history."""

from __future__ import annotations

from datetime import timedelta

import pytest

from perfwalk.errors import GitError, UsageError
from perfwalk.git import checkouts
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import parse_step
from perfwalk.model import Checkout
from tests.fixtures.synthetic_repo import (
    KNOWN_COMMITS,
    KNOWN_INTERVAL,
    KNOWN_MERGE_AT,
    KNOWN_START,
    KNOWN_STEP_AT,
    KnownHistory,
)


@pytest.fixture
def repo(known_values_repo: KnownHistory) -> Repo:
    return Repo(known_values_repo.path)


def positions(history: KnownHistory, walk: list[Checkout]) -> list[int]:
    return [history.index(c.commit) for c in walk]


def test_daily_walk_of_the_whole_history(repo: Repo, known_values_repo: KnownHistory) -> None:
    walk = checkouts(repo, "2024-01-01", "2024-01-10T18:00", "1day")
    # one commit every 6 hours: four commits a day, and the last commit at the end
    assert positions(known_values_repo, walk) == [*range(0, KNOWN_COMMITS, 4), KNOWN_COMMITS - 1]
    assert [c.index for c in walk] == list(range(len(walk)))
    first = walk[0]
    assert [c.id for c in first.since] == [known_values_repo.first_parent[0]]
    assert first.date == KNOWN_START
    assert [c.id for c in walk[1].since] == list(known_values_repo.first_parent[1:5])
    assert [c.id for c in walk[-1].since] == list(known_values_repo.first_parent[37:40])
    every = [c.id for checkout in walk for c in checkout.since]
    assert every == list(known_values_repo.first_parent)
    assert all(checkout.quirks == () for checkout in walk)
    for checkout in walk:
        assert checkout.since[-1].id == checkout.commit
        assert checkout.since[-1].date == checkout.date


def test_the_step_change_is_in_the_since_of_its_checkout(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    walk = checkouts(repo, "2024-01-01", None, parse_step("1day"))
    carrying = [c for c in walk if known_values_repo.step_change in {s.id for s in c.since}]
    assert len(carrying) == 1
    assert carrying[0].commit == known_values_repo.step_change  # commit 20 = day 5, 00:00
    assert [s.subject for s in carrying[0].since][-1] == "Make the hot path slower"


def test_commit_step_walks_the_first_parent_line(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    walk = checkouts(repo, None, None, "commit")
    assert [c.commit for c in walk] == list(known_values_repo.first_parent)
    assert all(len(c.since) == 1 for c in walk)
    merge = walk[KNOWN_MERGE_AT]
    assert merge.commit == known_values_repo.merge
    assert not set(known_values_repo.side) & {c.commit for c in walk}


def test_every_tenth_commit(repo: Repo, known_values_repo: KnownHistory) -> None:
    walk = checkouts(repo, None, "HEAD", "commit/10")
    assert positions(known_values_repo, walk) == [0, 10, 20, 30, 39]
    assert [len(c.since) for c in walk] == [1, 10, 10, 10, 9]


def test_commit_ends(repo: Repo, known_values_repo: KnownHistory) -> None:
    line = known_values_repo.first_parent
    walk = checkouts(repo, line[KNOWN_STEP_AT - 2][:10], "HEAD~17", "1hour")
    assert positions(known_values_repo, walk) == [18, 19, 20, 21, 22]
    assert [c.id for c in walk[0].since] == [line[18]]


def test_a_range_that_starts_before_the_first_commit(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    walk = checkouts(repo, "2023-12-30T12:00", "2024-01-01T13:00", "1day")
    assert positions(known_values_repo, walk) == [2]
    walk = checkouts(repo, "2023-12-30", "2024-01-01T13:00", "commit")
    assert positions(known_values_repo, walk) == [0, 1, 2]


def test_from_later_than_to(repo: Repo) -> None:
    with pytest.raises(UsageError, match="is later than") as caught:
        checkouts(repo, "2024-01-05", "2024-01-02", "1day")
    assert "'2024-01-05'" in str(caught.value)
    assert "'2024-01-02'" in str(caught.value)
    assert caught.value.hint
    with pytest.raises(UsageError, match=r"'HEAD'.*is later than.*'HEAD~3'"):
        checkouts(repo, "HEAD", "HEAD~3", "commit")


def test_nothing_selected(repo: Repo, known_values_repo: KnownHistory) -> None:
    with pytest.raises(GitError, match="no commit of HEAD") as caught:
        checkouts(repo, "2023-01-01", "2023-06-01", "1week")
    assert "'2023-01-01'" in str(caught.value)
    assert "'2023-06-01'" in str(caught.value)
    assert known_values_repo.first_parent[0][:12] in (caught.value.hint or "")


def test_bad_step_and_bad_points(repo: Repo, known_values_repo: KnownHistory) -> None:
    with pytest.raises(UsageError, match="'1fortnight'"):
        checkouts(repo, None, None, "1fortnight")
    with pytest.raises(GitError, match="'no-such-tag'"):
        checkouts(repo, "no-such-tag", None, "1day")
    with pytest.raises(GitError, match="not on the first-parent line"):
        checkouts(repo, known_values_repo.side[0], None, "1day")


def test_another_branch(repo: Repo, known_values_repo: KnownHistory) -> None:
    walk = checkouts(repo, None, None, "commit/100", branch="side")
    assert [c.commit for c in walk] == [
        known_values_repo.first_parent[0],
        known_values_repo.side[-1],
    ]


def test_a_date_between_commits_takes_the_earlier(
    repo: Repo, known_values_repo: KnownHistory
) -> None:
    when = KNOWN_START + 5 * KNOWN_INTERVAL + timedelta(hours=5, minutes=59)
    walk = checkouts(repo, when.isoformat(), when.isoformat(), "1day")
    assert positions(known_values_repo, walk) == [5]
