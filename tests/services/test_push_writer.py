"""Concurrent pushes written together (:class:`perfwalk.services.push.PushWriter`):
each answered once committed, with the rows one after the other would leave; a
push that cannot be stored fails alone."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.errors import ParseError, StoreError
from perfwalk.services.push import PushRequest, PushWriter
from perfwalk.store import Store
from perfwalk.store.pushes import NewPush, PushedRow, TokenGone
from perfwalk.store.tokens import digest_of, new_token


def _request(k: int, *, branch: str = "main") -> PushRequest:
    text = json.dumps(
        {
            "machine_info": {},
            "benchmarks": [{"name": "t", "stats": {"mean": 1.0 + k, "min": 1.0, "max": 2.0}}],
        }
    )
    return PushRequest(
        format="pytest-benchmark",
        text=text,
        commit=f"{k // 3 + 1:040x}",
        branch=branch,
        host="ci",
        project="p",
        date=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(hours=k // 3),
    )


def test_concurrent_pushes_are_stored_together_each_once(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path}/s.db") as store:
        batches: list[int] = []

        def write(pushes: Sequence[NewPush]) -> list[PushedRow]:
            batches.append(len(pushes))
            return store.pushes.add_many(pushes)

        writer = PushWriter(write, gather=0.05)
        answers: dict[int, PushedRow] = {}

        def push(k: int) -> None:
            answers[k] = writer.store(_request(k))

        threads = [threading.Thread(target=push, args=(k,)) for k in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        writer.close()
        assert sum(batches) == 12
        assert len(batches) < 12  # some were written together
        (series,) = store.list_series()
        checkouts = store.checkouts(series.id)
        assert len(checkouts) == 4  # one per commit, three repetitions each
        means = [v for v in store.values(series.id) if v.name.endswith("mean")]
        assert sorted((v.sha, v.repetition_idx) for v in means) == sorted(
            (f"{k // 3 + 1:040x}", r) for k in range(0, 12, 3) for r in range(3)
        )
        assert sorted(v.value for v in means) == [1.0 + k for k in range(12)]
        # every answer names where its push went
        assert {(a.checkout_id, a.repetition_idx) for a in answers.values()} == {
            (c.id, r) for c in checkouts for r in range(3)
        }


def test_a_push_that_cannot_be_stored_fails_alone(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path}/s.db") as store:

        def write(pushes: Sequence[NewPush]) -> list[PushedRow]:
            if any(p.branch == "bad" for p in pushes):
                raise StoreError("cannot store branch bad")
            return store.pushes.add_many(pushes)

        writer = PushWriter(write, gather=0.05)
        failed: list[BaseException] = []
        stored: list[PushedRow] = []

        def push(k: int, branch: str) -> None:
            try:
                stored.append(writer.store(_request(k, branch=branch)))
            except StoreError as error:
                failed.append(error)

        threads = [
            threading.Thread(target=push, args=(k, "bad" if k == 2 else "main")) for k in range(6)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with pytest.raises(ParseError):  # a file its parser cannot read: at once
            writer.store(PushRequest(**{**_request(0).__dict__, "text": "{"}))
        writer.close()
        assert len(failed) == 1
        assert len(stored) == 5


def test_a_push_whose_token_was_revoked_fails_alone_in_its_batch(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path}/s.db") as store:
        kept, revoked = new_token(), new_token()
        at = datetime(2024, 1, 1, tzinfo=UTC)
        store.tokens.add("kept", ["push"], kept, who="ci", at=at)
        store.tokens.add("gone", ["push"], revoked, who="ci", at=at)
        assert store.tokens.revoke("gone")
        batches: list[int] = []

        def write(pushes: Sequence[NewPush]) -> list[PushedRow]:
            batches.append(len(pushes))
            return store.pushes.add_many(pushes)

        writer = PushWriter(write, gather=0.2)  # all six in one batch, unless very slow
        tokens = [digest_of(revoked if k == 3 else kept) for k in range(6)]
        waiting = [writer.submit(_request(k), token_digest=tokens[k]) for k in range(6)]
        with pytest.raises(TokenGone):
            waiting[3].result()
        rows = [done.result() for k, done in enumerate(waiting) if k != 3]
        writer.close()
        (series,) = store.list_series()
        means = sorted(v.value for v in store.values(series.id) if v.name.endswith("mean"))
        assert means == [1.0 + k for k in range(6) if k != 3]  # each stored once
        assert len({(r.checkout_id, r.repetition_idx) for r in rows}) == 5
