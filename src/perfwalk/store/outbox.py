"""The messages that tell new changes (``[notify]``), kept in the store until sent:
one ``outbox`` row per change (its series and commit range), metric and receiver.

A change enqueued again (a later cycle of ``watch`` that finds it again) is not
added twice: the row of a change, metric and receiver is made once and sent once.
A message that could not be sent stays with its attempts, its last error and when
to try it next; one given up is kept, marked, and never tried again. The receiver
is its URL's hash and its redacted form (:mod:`perfwalk.config.receivers`): the URL,
which may hold a token, is not stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, and_, func, select

from perfwalk.store import schema
from perfwalk.store.connect import StorePart

_o = schema.outbox
#: The longest error kept of an attempt (characters).
ERROR_MOST = 2000


@dataclass(frozen=True, kw_only=True)
class NewMessage:
    """A message to send: the change (``series_id``, ``before_sha`` … ``after_sha``),
    its metric (``test``, ``metric``), the receiver and what to say."""

    series_id: int
    before_sha: str
    after_sha: str
    test: str
    metric: str
    receiver: str  # perfwalk.config.receivers.receiver_id
    receiver_shown: str  # the URL redacted
    title: str
    text: str
    markdown: str

    @property
    def key(self) -> tuple[int, str, str, str, str, str]:
        return (
            self.series_id,
            self.before_sha,
            self.after_sha,
            self.test,
            self.metric,
            self.receiver,
        )


@dataclass(frozen=True, kw_only=True)
class MessageRow(NewMessage):
    """A stored message: ``attempts`` failed so far, the last one's ``last_error``;
    ``sent_at`` None until sent; ``given_up`` once it was not sent in time."""

    id: int
    created_at: datetime
    attempts: int
    next_attempt_at: datetime
    sent_at: datetime | None
    last_error: str
    given_up: bool

    @property
    def pending(self) -> bool:
        """Still to be sent: neither sent nor given up."""
        return self.sent_at is None and not self.given_up


class Outbox(StorePart):
    """The messages of a store; get it from :attr:`perfwalk.store.Store.outbox`."""

    def enqueue(self, messages: Sequence[NewMessage], now: datetime) -> int:
        """Add the messages not already there (by change, metric and receiver), due at
        ``now``; return how many were added."""
        added = 0
        with self._write(f"queue {len(messages)} notifications") as conn:
            for message in messages:
                key = [
                    column == value
                    for column, value in zip(_key_columns(), message.key, strict=True)
                ]
                if conn.scalar(select(func.count()).select_from(_o).where(*key)):
                    continue
                conn.execute(
                    _o.insert().values(
                        **_new_values(message),
                        created_at=now,
                        attempts=0,
                        next_attempt_at=now,
                        sent_at=None,
                        last_error="",
                        given_up=False,
                    )
                )
                added += 1
        return added

    def due(self, now: datetime) -> list[MessageRow]:
        """The messages to try at ``now``: not sent, not given up, their time come;
        oldest first."""
        query = (
            select(_o)
            .where(_o.c.sent_at.is_(None), _o.c.given_up.is_(False), _o.c.next_attempt_at <= now)
            .order_by(_o.c.id)
        )
        with self._read("read the notifications due") as conn:
            return [_row(row) for row in conn.execute(query)]

    def pending(self) -> list[MessageRow]:
        """Every message not sent yet and not given up, due or waiting; oldest first."""
        query = select(_o).where(_o.c.sent_at.is_(None), _o.c.given_up.is_(False)).order_by(_o.c.id)
        with self._read("read the notifications not sent") as conn:
            return [_row(row) for row in conn.execute(query)]

    def given_up(self) -> list[MessageRow]:
        """The messages given up (kept, never tried again); oldest first."""
        query = select(_o).where(_o.c.given_up.is_(True)).order_by(_o.c.id)
        with self._read("read the notifications given up") as conn:
            return [_row(row) for row in conn.execute(query)]

    def all(self) -> list[MessageRow]:
        """Every message, oldest first."""
        with self._read("read the notifications") as conn:
            return [_row(row) for row in conn.execute(select(_o).order_by(_o.c.id))]

    def mark_sent(self, message_id: int, at: datetime) -> None:
        """Message ``message_id`` was sent at ``at``."""
        with self._write(f"mark notification {message_id} sent") as conn:
            conn.execute(_o.update().where(_o.c.id == message_id).values(sent_at=at))

    def mark_failed(
        self, message_id: int, error: str, next_at: datetime, *, give_up: bool = False
    ) -> None:
        """An attempt to send message ``message_id`` failed with ``error``: try it again
        at ``next_at``, or never (``give_up``: it is kept, marked)."""
        shown = error if len(error) <= ERROR_MOST else error[: ERROR_MOST - 1] + "…"
        with self._write(f"mark notification {message_id} failed") as conn:
            conn.execute(
                _o.update()
                .where(and_(_o.c.id == message_id, _o.c.sent_at.is_(None)))
                .values(
                    attempts=_o.c.attempts + 1,
                    last_error=shown,
                    next_attempt_at=next_at,
                    given_up=give_up,
                )
            )


def _key_columns() -> tuple[Any, ...]:
    c = _o.c
    return (c.series_id, c.before_sha, c.after_sha, c.test, c.metric, c.receiver)


def _new_values(message: NewMessage) -> dict[str, Any]:
    return {
        "series_id": message.series_id,
        "before_sha": message.before_sha,
        "after_sha": message.after_sha,
        "test": message.test,
        "metric": message.metric,
        "receiver": message.receiver,
        "receiver_shown": message.receiver_shown,
        "title": message.title,
        "text": message.text,
        "markdown": message.markdown,
    }


def _row(row: Row[Any]) -> MessageRow:
    return MessageRow(
        id=int(row.id),
        series_id=int(row.series_id),
        before_sha=row.before_sha,
        after_sha=row.after_sha,
        test=row.test,
        metric=row.metric,
        receiver=row.receiver,
        receiver_shown=row.receiver_shown,
        title=row.title,
        text=row.text,
        markdown=row.markdown,
        created_at=row.created_at,
        attempts=int(row.attempts),
        next_attempt_at=row.next_attempt_at,
        sent_at=row.sent_at,
        last_error=row.last_error,
        given_up=bool(row.given_up),
    )
