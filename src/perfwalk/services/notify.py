"""The notify use cases: tell new changes to the receivers of ``[notify] urls`` (what
``watch`` calls once per cycle with the changes new in it), send what is due
(``perfwalk notify``, for cron when a receiver was down), and send a test message to
each receiver (``perfwalk notify --test``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from perfwalk.config.model import Config
from perfwalk.config.receivers import receiver_id, redacted
from perfwalk.errors import ConfigError
from perfwalk.orchestrate.findings.notify import Attempt, NotifyReport, deliver, test_receivers
from perfwalk.report.change_groups import grouped
from perfwalk.report.change_list import ListedChange
from perfwalk.report.markdown import Links
from perfwalk.report.notice import notice
from perfwalk.store import Store
from perfwalk.store.outbox import NewMessage


def notify_changes(
    store: Store,
    config: Config,
    changes: Sequence[ListedChange],
    *,
    now: datetime | None = None,
) -> NotifyReport:
    """Queue a message per alert group of ``changes`` (:mod:`perfwalk.report.change_groups`:
    the changes of one culprit or of overlapping commit ranges, across metrics, walks
    and hosts) and receiver (a group whose worst change was queued before is not
    queued again), then send every message due, those that failed before included."""
    when = now or datetime.now(UTC)
    queued = store.outbox.enqueue(_messages(store, config, changes), when)
    return deliver(store, config, when, queued=queued)


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


def _messages(store: Store, config: Config, changes: Sequence[ListedChange]) -> list[NewMessage]:
    receivers = [(receiver_id(url), redacted(url)) for url in config.notify.urls]
    if not receivers:
        return []
    links = Links(commit_url=config.project.commit_url, base_url=config.report.base_url)
    hosts: dict[int, str] = {}
    messages = []
    for group in grouped(changes):  # one message per alert group: its changes together
        # its worst first (the untriaged regressions, the largest): the one the title names
        change, *others = group.members
        for sid in group.series:
            if sid not in hosts:
                hosts[sid] = _host(store, sid)
        told = notice(
            change,
            project=config.project.name,
            host=", ".join(dict.fromkeys(hosts[c.series_id] for c in group.members)),
            links=links,
            others=others,
        )
        messages += [
            NewMessage(
                series_id=change.series_id,
                before_sha=change.before_sha,
                after_sha=change.after_sha,
                test=change.test,
                metric=change.name,
                receiver=receiver,
                receiver_shown=shown,
                title=told.title,
                text=told.text,
                markdown=told.markdown,
            )
            for receiver, shown in receivers
        ]
    return messages


def _host(store: Store, series_id: int) -> str:
    """The host a series was measured on: its name in the configuration and, when the
    fingerprint has another, the machine's own (``local (builder-1)``)."""
    series = store.series(series_id)
    machine = str(series.fingerprint.get("hostname", ""))
    return f"{series.host} ({machine})" if machine and machine != series.host else series.host
