"""Pushed results: a series per project, branch and host, a checkout per commit in
commit-date order, a repetition per push; and the API's tokens, kept as digests."""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select, text

from perfwalk.errors import StoreError
from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.store import LATEST_VERSION, NewResult, Store, packs, schema
from perfwalk.store.coltypes import safe_text
from perfwalk.store.pushes import NewPush, TokenGone, TooManySeries
from perfwalk.store.tokens import digest_of, new_token

from .factories import new_series

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def _push(sha: str, day: int, value: float, *, branch: str = "main") -> NewPush:
    commit = Commit(id=sha, date=T0 + timedelta(days=day), author="", subject="")
    result = NewResult(
        test="bench",
        status=Status.PASS,
        stdout=Log.of(b'{"results": []}'),
        values=((Value("mean", value, "s"), Direction.LOWER),),
    )
    return NewPush(
        project="demo",
        branch=branch,
        host="ci-1",
        commit=commit,
        results=(result,),
        started_at=T0,
        finished_at=T0,
    )


def test_pushes_make_one_checkout_per_commit_in_commit_date_order(store: Store) -> None:
    first = store.pushes.add(_push("c" * 40, 2, 1.0))
    again = store.pushes.add(_push("c" * 40, 2, 1.1))
    older = store.pushes.add(_push("a" * 40, 0, 2.0))
    newer = store.pushes.add(_push("d" * 40, 3, 3.0))
    other = store.pushes.add(_push("a" * 40, 0, 2.0, branch="next"))
    assert first.new_series
    assert not again.new_series
    assert (again.checkout_id, again.repetition_idx) == (first.checkout_id, 1)
    assert older.checkout_idx == 0
    assert not older.new_series
    assert other.series_id != first.series_id
    series = store.series(first.series_id)
    assert (series.kind, series.name, series.host) == ("push", "main on ci-1", "ci-1")
    checkouts = store.checkouts(first.series_id)
    assert [c.sha[0] for c in checkouts] == ["a", "c", "d"]
    assert [c.idx for c in checkouts] == [0, 1, 2]
    assert newer.checkout_idx == 2
    assert [c.commit_count for c in checkouts] == [1, 1, 1]
    values = store.passed_values(first.series_id)
    assert [(v[0], v[1], v[5]) for v in values] == [
        (0, 0, 2.0),
        (1, 0, 1.0),
        (1, 1, 1.1),
        (2, 0, 3.0),
    ]
    assert store.pushes.series_of("demo", "main", "ci-1") == first.series_id


def test_tokens_are_kept_as_digests_and_found_by_the_token(store: Store, raw: object) -> None:
    token = new_token()
    row = store.tokens.add("ci", ["triage", "push"], token, who="ada@lab", at=T0)
    assert row.scopes == ("push", "triage")
    assert store.tokens.find(token) == row
    assert store.tokens.find(token + "x") is None
    with pytest.raises(StoreError, match="already called 'ci'"):
        store.tokens.add("ci", ["push"], new_token(), who="ada@lab", at=T0)
    with store._read("look") as conn:
        stored = conn.execute(select(schema.api_token)).one()
    assert stored.digest == digest_of(token)
    assert token not in str(tuple(stored))
    assert [t.name for t in store.tokens.list()] == ["ci"]
    assert store.tokens.revoke("ci")
    assert not store.tokens.revoke("ci")
    assert store.tokens.find(token) is None


def test_pushes_stored_together_make_the_rows_of_pushes_stored_one_by_one(store: Store) -> None:
    # a repeated commit, an older commit placed before two of the lot, another branch
    lot = [
        _push("c" * 40, 2, 1.0),
        _push("d" * 40, 3, 2.0),
        _push("c" * 40, 2, 1.1),
        _push("a" * 40, 0, 3.0),
        _push("a" * 40, 0, 3.1, branch="next"),
        _push("d" * 40, 3, 2.1),
    ]
    together = store.pushes.add_many(lot)
    one_by_one = [store.pushes.add(_push_on(push, "later")) for push in lot]
    assert [
        (r.checkout_idx, r.repetition_idx, r.new_series, r.new_checkout, r.values) for r in together
    ] == [
        (r.checkout_idx, r.repetition_idx, r.new_series, r.new_checkout, r.values)
        for r in one_by_one
    ]
    assert [r.checkout_idx for r in together[:2]] == [0, 1]  # then moved up by the third
    for lot_series, alone_series in ((together[0], one_by_one[0]), (together[4], one_by_one[4])):
        assert store.passed_values(lot_series.series_id) == store.passed_values(
            alone_series.series_id
        )
        assert [c.sha for c in store.checkouts(lot_series.series_id)] == [
            c.sha for c in store.checkouts(alone_series.series_id)
        ]
    assert [(v[0], v[1], v[5]) for v in store.passed_values(together[0].series_id)] == [
        (0, 0, 3.0),
        (1, 0, 1.0),
        (1, 1, 1.1),
        (2, 0, 2.0),
        (2, 1, 2.1),
    ]
    assert _packs(store, together[0].series_id) == _packs(store, one_by_one[0].series_id)
    assert len(_packs(store, together[0].series_id)) == 3


def _packs(store: Store, series_id: int) -> list[tuple[int, bytes, bytes, str]]:
    """The packs of a series by checkout index: what each holds but row ids."""
    ck, pk = schema.checkout, schema.checkout_pack
    query = (
        select(ck.c.idx, pk.c.vals, pk.c.stats, pk.c.head)
        .join(pk, pk.c.checkout_id == ck.c.id)
        .where(ck.c.series_id == series_id)
        .order_by(ck.c.idx)
    )
    with store._read("look") as conn:
        return [tuple(row) for row in conn.execute(query)]


def _push_on(push: NewPush, project: str) -> NewPush:
    return NewPush(
        project=project,
        branch=push.branch,
        host=push.host,
        commit=push.commit,
        results=push.results,
        started_at=push.started_at,
        finished_at=push.finished_at,
    )


def test_a_pack_extended_by_pushes_is_the_pack_built_from_all_its_rows(store: Store) -> None:
    """A push's pack is written from the rows the push has at hand, never read back:
    byte for byte the pack built from the stored rows, from the checkout's first push
    (its text as the store keeps it: NUL, a lone surrogate, a tab, a newline, a
    backslash) to later ones."""

    def push(values: tuple[tuple[str, float], ...], status: Status = Status.PASS) -> NewPush:
        result = NewResult(
            test="bench\x00\ud800",
            status=status,
            stdout=Log.of(b"{}"),
            duration=0.25,
            exit_code=0,
            values=tuple((Value(name, v, "s\x00"), Direction.LOWER) for name, v in values),
        )
        return dataclasses.replace(_push("c" * 40, 2, 0.0), results=(result,))

    def repacked(checkout_id: int) -> tuple[object, ...]:
        kept = _pack_row(store, checkout_id)
        with store._write("pack again") as conn:
            packs.refresh(conn, checkout_id)
        assert _pack_row(store, checkout_id) == kept
        return kept

    odd = (("odd\x00\ud800", 3.0), ("tab\tnew\nline\\N", math.inf))  # as COPY must escape
    first = store.pushes.add_many([push((("mean", 1.0),)), push(odd)])
    assert first[0].new_checkout
    repacked(first[0].checkout_id)
    store.pushes.add_many([push((("mean", 1.1), ("max", 2.0))), push((("mean", math.nan),))])
    repacked(first[0].checkout_id)
    store.pushes.add(push((("mean", 0.5), ("min", 0.1)), Status.FAIL))
    done = store.pushes.add_many([push((("max", 2.2),)), push((("mean", 1.2),))])
    kept = repacked(done[0].checkout_id)
    assert json.loads(str(kept[2]))["reps"] == [0, 1, 2, 3, 4, 5, 6]
    names = [m[1] for m in json.loads(str(kept[2]))["metrics"]]
    assert names == ["mean", safe_text("odd\x00\ud800"), "tab\tnew\nline\\N", "max", "min"]


def _pack_row(store: Store, checkout_id: int) -> tuple[object, ...]:
    pk = schema.checkout_pack
    with store._read("look") as conn:
        return tuple(conn.execute(select(pk).where(pk.c.checkout_id == checkout_id)).one())


def test_a_push_whose_token_is_gone_is_refused_in_its_transaction(store: Store) -> None:
    token = new_token()
    store.tokens.add("ci", ["push"], token, who="ada@lab", at=T0)
    kept = dataclasses.replace(_push("c" * 40, 2, 1.0), token_digest=digest_of(token))
    assert store.pushes.add(kept).values == 1
    assert store.tokens.revoke("ci")
    with pytest.raises(TokenGone, match="revoked"):
        store.pushes.add_many([_push("d" * 40, 3, 2.0), kept])
    series = store.pushes.series_of("demo", "main", "ci-1")
    assert series is not None
    assert [c.sha[0] for c in store.checkouts(series)] == ["c"]  # nothing of the lot


def _claimed(sha: str, day: int, *, subject: str, author: str, branch: str = "main") -> NewPush:
    pushed = _push(sha, day, 1.0, branch=branch)
    claim = dataclasses.replace(pushed.commit, subject=subject, author=author)
    return dataclasses.replace(pushed, commit=claim)


def _git_commit(sha: str, day: int) -> Commit:
    return Commit(
        id=sha,
        date=T0 + timedelta(days=day, hours=1),
        author="Tester <tester@example.org>",
        subject="commit 21: real subject",
        body="the body git keeps",
        files=("counter",),
    )


def _commit_row(raw: Engine, sha: str) -> tuple[str, str, str, list[str], bool]:
    gc = schema.git_commit
    with raw.connect() as conn:
        row = conn.execute(select(gc).where(gc.c.sha == sha)).one()
    return (row.subject, row.author, row.body, list(row.files), bool(row.pushed))


def test_what_git_says_of_a_commit_wins_over_what_a_push_claimed(store: Store, raw: Engine) -> None:
    """A push's subject and author are its claim (kept, marked pushed) until a walk or
    a drill stores git's words over them; no push changes git's words afterwards."""
    sha = "e" * 40
    forged = _claimed(sha, 2, subject='Revert "fix overflow" (approved)', author="Trusted <m@x>")
    done = store.pushes.add(forged)
    assert _commit_row(raw, sha) == (
        'Revert "fix overflow" (approved)',
        "Trusted <m@x>",
        "",
        [],
        True,
    )
    walk = store.create_series(new_series(project="demo"))
    git = _git_commit(sha, 2)
    store.add_checkout(walk, Checkout(0, sha, git.date, since=(git,), quirks=()))
    told = ("commit 21: real subject", "Tester <tester@example.org>", "the body git keeps")
    assert _commit_row(raw, sha) == (*told, ["counter"], False)
    (shown,) = store.commits_since(done.checkout_id)  # the push series shows git's words
    assert (shown.subject, shown.author, shown.date) == (git.subject, git.author, git.date)
    store.pushes.add(_claimed(sha, 2, subject="forged again", author="Mallory <m@x>"))
    assert _commit_row(raw, sha) == (*told, ["counter"], False)
    # a push that git told the API about from the start is stored as git's words
    other = "f" * 40
    store.pushes.add(_claimed(other, 3, subject="claimed", author="CI <ci@x>"))
    known = dataclasses.replace(
        _claimed(other, 3, subject="x", author="y"),
        commit=dataclasses.replace(_git_commit(other, 3), subject="git's own subject"),
        told_by_git=True,
    )
    store.pushes.add(known)
    assert _commit_row(raw, other)[0] == "git's own subject"
    assert not _commit_row(raw, other)[4]


def test_a_project_has_at_most_its_bound_of_push_series(store: Store) -> None:
    store.pushes.add(_push("a" * 40, 0, 1.0, branch="b1"), most_series=2)
    store.pushes.add(_push("a" * 40, 0, 1.0, branch="b2"), most_series=2)
    with pytest.raises(TooManySeries, match=r"has 2 push series .* branch 'b3'") as refused:
        store.pushes.add_many(
            [_push("b" * 40, 1, 1.0, branch="b1"), _push("a" * 40, 0, 1.0, branch="b3")],
            most_series=2,
        )
    assert "[api] push_series" in (refused.value.hint or "")
    assert len(store.list_series()) == 2
    assert len(store.checkouts(store.pushes.series_of("demo", "b1", "ci-1") or 0)) == 1
    again = store.pushes.add(_push("b" * 40, 1, 1.0, branch="b2"), most_series=2)
    assert not again.new_series  # a known branch and host: pushed as ever
    other = dataclasses.replace(_push("a" * 40, 0, 1.0, branch="b3"), project="other")
    assert store.pushes.add(other, most_series=2).new_series  # a bound per project


def test_step_23_marks_the_commits_that_only_pushes_made(store_url: str, raw: Engine) -> None:
    with Store.open(store_url) as store:
        store.pushes.add(_claimed("a" * 40, 0, subject="only pushed", author="ci"))
        store.pushes.add(_claimed("b" * 40, 1, subject="pushed, then walked", author="ci"))
        walk = store.create_series(new_series(project="demo"))
        walked = [_git_commit("b" * 40, 1), _git_commit("c" * 40, 1)]
        store.add_checkout(walk, Checkout(0, "c" * 40, T0, since=tuple(walked), quirks=()))
    with raw.begin() as conn:  # the store as step 22 left it
        conn.execute(text("ALTER TABLE git_commit DROP COLUMN pushed"))
        conn.execute(
            schema.meta.update().where(schema.meta.c.key == "schema_version").values(value="22")
        )
    with Store.open(store_url) as store:
        assert store.schema_version == LATEST_VERSION
    assert [_commit_row(raw, sha)[4] for sha in ("a" * 40, "b" * 40, "c" * 40)] == [
        True,
        False,
        False,
    ]
