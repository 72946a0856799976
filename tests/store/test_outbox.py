"""The outbox of notifications: a message per change, metric and receiver, made once
and sent once; failed attempts kept with their error and their next time; given up
messages kept, marked. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from perfwalk.store import Store
from perfwalk.store.outbox import ERROR_MOST, NewMessage
from tests.store.factories import T0, new_series


def message(series_id: int, **fields: object) -> NewMessage:
    base = NewMessage(
        series_id=series_id,
        before_sha="a" * 40,
        after_sha="b" * 40,
        test="crc",
        metric="time",
        receiver="0123456789abcdef",
        receiver_shown="json://127.0.0.1/hook",
        title="perfwalk demo: regression: crc.time +10 %",
        text="regression…",
        markdown="**regression**…",
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def test_a_message_is_queued_once_per_change_metric_and_receiver(store: Store) -> None:
    walk = store.create_series(new_series())
    first = message(walk)
    others = [
        message(walk, receiver="fedcba9876543210"),
        message(walk, metric="size"),
        message(walk, after_sha="c" * 40),
    ]
    assert store.outbox.enqueue([first, *others], T0) == 4
    later = T0 + timedelta(hours=1)
    assert store.outbox.enqueue([first, replace(first, title="again"), *others], later) == 0
    rows = store.outbox.all()
    assert [row.key for row in rows] == [first.key, *(o.key for o in others)]
    assert rows[0].title == first.title  # the first one told is kept
    assert all(r.created_at == T0 and r.next_attempt_at == T0 and r.pending for r in rows)


def test_due_failed_sent_and_given_up(store: Store) -> None:
    walk = store.create_series(new_series())
    store.outbox.enqueue([message(walk), message(walk, metric="size")], T0)
    first, second = store.outbox.due(T0)
    assert store.outbox.due(T0 - timedelta(seconds=1)) == []

    retry = T0 + timedelta(minutes=1)
    store.outbox.mark_failed(first.id, "connection refused", retry)
    store.outbox.mark_sent(second.id, T0)
    assert store.outbox.due(T0) == []
    (waiting,) = store.outbox.pending()
    assert (waiting.attempts, waiting.last_error, waiting.next_attempt_at) == (
        1,
        "connection refused",
        retry,
    )
    assert [row.id for row in store.outbox.due(retry)] == [first.id]

    store.outbox.mark_failed(first.id, "x" * (ERROR_MOST + 10), retry, give_up=True)
    assert store.outbox.due(retry + timedelta(days=9)) == []
    assert store.outbox.pending() == []
    (gone,) = store.outbox.given_up()
    assert (gone.attempts, gone.given_up, gone.sent_at, len(gone.last_error)) == (
        2,
        True,
        None,
        ERROR_MOST,
    )
    sent = next(row for row in store.outbox.all() if row.id == second.id)
    assert (sent.sent_at, sent.attempts, sent.pending) == (T0, 0, False)
    store.outbox.mark_failed(second.id, "late", retry)  # a sent message stays sent
    assert next(row for row in store.outbox.all() if row.id == second.id).attempts == 0


def test_untrusted_text_with_a_nul_is_queued_once(store: Store) -> None:
    walk = store.create_series(new_series())
    odd = message(walk, test="crc\x00\ud800", title="t\x00")
    assert store.outbox.enqueue([odd], T0) == 1
    assert store.outbox.enqueue([odd], T0) == 0
