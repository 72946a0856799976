"""The notify use cases: tell new changes to the receivers of ``[notify] urls`` (what
``watch`` calls once per cycle with the changes new in it), send what is due
(``perfwalk notify``, for cron when a receiver was down), and send a test message to
each receiver (``perfwalk notify --test``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from perfwalk.config.model import Config
from perfwalk.errors import ConfigError
from perfwalk.orchestrate.findings.notify import (
    Attempt,
    NotifyReport,
    deliver,
    tell,
    test_receivers,
)
from perfwalk.report.change_list import ListedChange
from perfwalk.store import Store


def notify_changes(
    store: Store,
    config: Config,
    changes: Sequence[ListedChange],
    *,
    now: datetime | None = None,
) -> NotifyReport:
    """Queue a message per alert group of ``changes`` and receiver, then send every
    message due (:func:`perfwalk.orchestrate.findings.notify.tell`)."""
    return tell(store, config, changes, now or datetime.now(UTC))


def notify_due(config: Config, *, now: datetime | None = None) -> NotifyReport:
    """Send the messages of the store that are due (failed before, or queued by a cycle
    that could not send them)."""
    _need_receivers(config)
    with Store.open(config.store.url) as store:
        return deliver(store, config, now or datetime.now(UTC))


def notify_test(config: Config) -> list[Attempt]:
    """Send a test message to each receiver; what each answered."""
    _need_receivers(config)
    return test_receivers(config)


def _need_receivers(config: Config) -> None:
    if not config.notify.urls:
        raise ConfigError(
            "no receivers: [notify] urls is empty",
            path=str(config.path),
            key="notify.urls",
            hint='add Apprise URLs, e.g. urls = ["mailto://user:password@mail.example.org'
            '?to=perf@example.org"] (docs/notifications.md)',
        )
