"""What a push may hold, checked before anything of it is stored
(:func:`perfwalk.services.push.prepared_push`), with the default [api] bounds."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from perfwalk.config.model import ApiConfig
from perfwalk.model import Commit
from perfwalk.services.push import PushRefused, PushRequest, prepared_push

NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)


def _request(commands: int = 1, mean: float = 0.1, **fields: object) -> PushRequest:
    results = [
        {"command": f"c{k}", "mean": mean, "median": mean, "min": mean, "max": mean, "stddev": 0}
        for k in range(commands)
    ]
    base: dict[str, object] = {
        "format": "hyperfine",
        "text": json.dumps({"results": results}),
        "commit": "4a84497e1f3c9d2b" * 2 + "01234567",
        "branch": "main",
        "host": "ci",
        "project": "demo",
    }
    return PushRequest(**{**base, **fields})  # type: ignore[arg-type]


def _refused(request: PushRequest) -> PushRefused:
    with pytest.raises(PushRefused) as refused:
        prepared_push(request, now=NOW, limits=ApiConfig())
    return refused.value


def test_the_default_bounds() -> None:
    assert (ApiConfig().push_values, ApiConfig().push_series, ApiConfig().push_future) == (
        10_000,
        300,
        86_400,
    )
    assert (
        len(prepared_push(_request(2000), now=NOW, limits=ApiConfig()).results[0].values) == 10_000
    )
    over = _refused(_request(2001))  # 10 005 values
    assert over.field == "text"
    assert "10005 values, more than the 10000" in str(over)


@pytest.mark.parametrize(
    ("date", "kept"),
    [
        (NOW + timedelta(hours=23), True),
        (NOW + timedelta(days=1, seconds=1), False),
        (datetime(1970, 1, 1, tzinfo=UTC), True),
        (datetime(1969, 12, 31, 23, 59, tzinfo=UTC), False),
        (datetime(9999, 12, 31, tzinfo=UTC), False),
        (datetime.fromisoformat("9999-12-31T23:59:59-23:59"), False),  # past 9999 in UTC
        (datetime.fromisoformat("0001-01-01T00:00:00+23:59"), False),  # before 0001 in UTC
    ],
)
def test_a_date_from_1970_to_a_day_past_the_clock(date: datetime, kept: bool) -> None:
    if kept:
        push = prepared_push(_request(date=date), now=NOW, limits=ApiConfig())
        assert push.commit.date == date
    else:
        assert _refused(_request(date=date)).field == "date"


@pytest.mark.parametrize("mean", [-100.0, -5e-324])
def test_a_negative_value_is_refused(mean: float) -> None:
    refused = _refused(_request(mean=mean))
    assert (refused.field, "finite and not negative" in str(refused)) == ("text", True)


@pytest.mark.parametrize("mean", [0.0, 5e-324, 1e308])
def test_zero_and_the_tiniest_values_are_kept_as_measured(mean: float) -> None:
    push = prepared_push(_request(mean=mean), now=NOW, limits=ApiConfig())
    assert {value.value for value, _direction in push.results[0].values} == {mean, 0.0}


@pytest.mark.parametrize("commit", ["HEAD", "....", "../../etc/passwd", "-abcdef", "abc"])
def test_a_commit_is_an_object_id(commit: str) -> None:
    assert _refused(_request(commit=commit)).field == "commit"


def test_what_git_says_is_stored_instead_of_the_claim() -> None:
    claim = _request(commit="4A84497E", subject="forged", author="Mallory <m@x>", date=NOW)
    git = Commit(id="4a84497e" + "0" * 32, date=NOW - timedelta(days=300), author="A", subject="s")
    push = prepared_push(claim, now=NOW, limits=ApiConfig(), known=git)
    assert (push.commit, push.told_by_git) == (git, True)
    alone = prepared_push(claim, now=NOW, limits=ApiConfig())
    assert (alone.commit.id, alone.commit.subject, alone.told_by_git) == (
        "4a84497e",
        "forged",
        False,
    )
