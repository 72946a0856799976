"""Telling changes: a message per alert group queued in the outbox
(:mod:`perfwalk.store.outbox`, :func:`tell`), and the messages of the outbox sent
through Apprise.

Each receiver of ``[notify] urls`` gets its own Apprise object: one that is down
does not keep the others from their messages. A message that could not be sent
stays in the outbox with the reason Apprise logged (its secrets masked) and is tried
again after ``retry_after`` × 2^(attempts before), at most a day later; once
``give_up_after`` has passed since it was queued, a failure gives it up (kept,
marked). A receiver that failed is not tried again in the same delivery: its other
messages wait as long as the one that failed.

A receiver that renders Markdown (:func:`perfwalk.config.receivers.takes_markdown`:
Mattermost, Discord, Zulip…, Slack, Rocket.Chat…, any other given ``?format=markdown``
in its URL) gets the Markdown message, its title in it; the others (mail, Matrix,
Telegram, generic JSON webhooks…) the title and the plain body (mail as text/plain),
which Apprise escapes into HTML for a service that takes only HTML (Telegram).

No redirect is followed (:func:`perfwalk.config.receivers.new_plugin`): a receiver that
answers one fails, "the receiver redirected", and is tried again later as any other.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from perfwalk.config.model import Config, NotifyConfig
from perfwalk.config.receivers import (
    load_apprise,
    masked,
    new_plugin,
    quiet_apprise,
    receiver_id,
    redacted,
    takes_markdown,
)
from perfwalk.config.settings import LONGEST_RETRY
from perfwalk.orchestrate.findings.breaks import regress_breaks
from perfwalk.orchestrate.findings.changes import Findings
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.report.change_groups import grouped
from perfwalk.report.change_list import ListedChange
from perfwalk.report.markdown import Links
from perfwalk.report.notice import notice
from perfwalk.store import Store
from perfwalk.store.outbox import MessageRow, NewMessage

#: What a test message says.
TEST_TITLE = "perfwalk: test notification"
TEST_BODY = "This is a test of perfwalk's [notify] settings: this receiver works.\n"
TEST_MARKDOWN = f"**{TEST_TITLE}**\n\n" + TEST_BODY.replace("[", "\\[").replace("]", "\\]")
#: The lines of Apprise's log kept as an attempt's error: its warnings and errors, and
#: the debug lines that carry the cause (a socket's or a server's exception).
_CAUSES = ("Exception", "Response Details", "Error", "error")
#: how Apprise's services log an answer they did not want (``…: Temporary Redirect,
#: error=307.``): a redirect is one
_REDIRECTED = re.compile(r"\berror=(3\d\d)\b")
_CAPTURE = threading.Lock()


@dataclass(frozen=True)
class Attempt:
    """One message (``title``) to one receiver (its URL redacted), and why it failed
    ("" when sent)."""

    receiver: str
    title: str
    error: str = ""


@dataclass(frozen=True)
class NotifyReport:
    """What one delivery did: messages ``queued`` (new ones, by the caller), ``sent``,
    ``failed`` (to be tried again), ``given_up``; how many are still ``pending`` after
    it (waiting for their next attempt), and how many are for ``unknown`` receivers
    (no longer in ``[notify] urls``: never sent until they are again)."""

    queued: int
    sent: tuple[Attempt, ...]
    failed: tuple[Attempt, ...]
    given_up: tuple[Attempt, ...]
    pending: int
    unknown: int


def tell(
    store: Store, config: Config, changes: Sequence[ListedChange], now: datetime
) -> NotifyReport:
    """Queue a message per alert group of ``changes`` (:mod:`perfwalk.report.change_groups`:
    the changes of one culprit or of overlapping commit ranges, across metrics, walks
    and hosts) and receiver (a group whose worst change was queued before is not
    queued again), then send every message due, those that failed before included."""
    queued = store.outbox.enqueue(_messages(store, config, changes), now)
    return deliver(store, config, now, queued=queued)


def tell_regress_breaks(
    store: Store, config: Config, series_id: int, now: datetime, *, history: bool = False
) -> list[ListedChange]:
    """The regress tests newly failing on the host of the regress series ``series_id``
    that were not seen before, told (those nobody triaged, when ``[notify] urls`` has
    receivers) and recorded as seen; ``history``: the series was just made of runs
    stored before, whose breaks are no news (recorded, not told)."""
    found = Findings([], [], breaks=regress_breaks(store, store.series(series_id)))
    seen = store.seen.keys()
    new = [c for c in listed_findings(store, found)[0] if c.key not in seen]
    told = [c for c in new if c.triage is None]
    if told and config.notify.urls and not history:
        tell(store, config, told, now)
    store.seen.add({c.key for c in new}, now)
    return new


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


def deliver(store: Store, config: Config, now: datetime, *, queued: int = 0) -> NotifyReport:
    """Send every message of the outbox due at ``now``, receiver by receiver."""
    urls = {receiver_id(url): url for url in config.notify.urls}
    sent: list[Attempt] = []
    failed: list[Attempt] = []
    given_up: list[Attempt] = []
    down: dict[str, str] = {}  # receivers that failed in this delivery, with why
    for message in store.outbox.due(now):
        url = urls.get(message.receiver)
        if url is None:
            continue
        error = down.get(message.receiver)
        if error is None:
            error = send(url, message.title, message.text, message.markdown, config.notify)
        if error is None:
            store.outbox.mark_sent(message.id, now)
            sent.append(Attempt(message.receiver_shown, message.title))
            continue
        down[message.receiver] = error
        next_at, give_up = next_attempt(message, config.notify, now)
        store.outbox.mark_failed(message.id, error, next_at, give_up=give_up)
        (given_up if give_up else failed).append(
            Attempt(message.receiver_shown, message.title, error)
        )
    waiting = store.outbox.pending()
    return NotifyReport(
        queued=queued,
        sent=tuple(sent),
        failed=tuple(failed),
        given_up=tuple(given_up),
        pending=sum(m.receiver in urls for m in waiting),
        unknown=sum(m.receiver not in urls for m in waiting),
    )


def next_attempt(message: MessageRow, notify: NotifyConfig, now: datetime) -> tuple[datetime, bool]:
    """When to try ``message`` again after a failure at ``now``, and whether to give it
    up instead (``give_up_after`` has passed since it was queued)."""
    deadline = message.created_at + timedelta(seconds=notify.give_up_after)
    if now >= deadline:
        return now, True
    longest = max(float(LONGEST_RETRY), notify.retry_after)
    wait = min(notify.retry_after * 2.0 ** min(message.attempts, 60), longest)
    return min(now + timedelta(seconds=wait), deadline), False


def send(url: str, title: str, text: str, markdown: str, notify: NotifyConfig) -> str | None:
    """Send one message to the receiver ``url``; None when it was sent, else why not
    (what Apprise logged, the URL's secrets masked)."""
    apprise = load_apprise()
    with _captured() as said:
        service = new_plugin(url)
        if service is None:
            return f"Apprise cannot use {redacted(url)}"
        service.socket_connect_timeout = notify.timeout
        service.socket_read_timeout = notify.timeout
        rich = takes_markdown(url, service)
        sender = apprise.Apprise(asset=service.asset)
        sender.add(service)
        try:
            done = sender.notify(
                title="" if rich else title,
                body=markdown if rich else text,
                body_format=apprise.NotifyFormat.MARKDOWN if rich else apprise.NotifyFormat.TEXT,
            )
        except Exception as error:
            said.append(f"{type(error).__name__}: {error}")
            done = False
    if done:
        return None
    reason = "; ".join(dict.fromkeys(said)) or "Apprise reported a failure without a reason"
    if redirect := next((m for line in said if (m := _REDIRECTED.search(line))), None):
        reason = (
            f"the receiver redirected (HTTP {redirect.group(1)}), and redirects are not "
            "followed (they could take the message elsewhere): give its final address in "
            f"[notify] urls; {reason}"
        )
    return masked(reason, url)


def test_receivers(config: Config) -> list[Attempt]:
    """Send a test message to each receiver of ``[notify] urls``; one attempt each."""
    return [
        Attempt(
            redacted(url),
            TEST_TITLE,
            send(url, TEST_TITLE, TEST_BODY, TEST_MARKDOWN, config.notify) or "",
        )
        for url in config.notify.urls
    ]


class _Said(logging.Handler):
    """The lines Apprise logs that say why a message failed (Apprise may send from a
    thread of its own: sends are one at a time, see :func:`_captured`)."""

    def __init__(self, found: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.found = found

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        if record.levelno >= logging.WARNING or any(word in line for word in _CAUSES):
            self.found.append(" ".join(line.split()))


@contextlib.contextmanager
def _captured() -> Iterator[list[str]]:
    """Apprise's log of what runs inside, captured (and kept from the program's own
    handlers): its warnings and the causes of failures. One send at a time in this
    process, so that each failure gets its own reasons."""
    logger = logging.getLogger("apprise")
    found: list[str] = []
    handler = _Said(found)
    with _CAPTURE, quiet_apprise():
        level = logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            yield found
        finally:
            logger.setLevel(level)
            logger.removeHandler(handler)
