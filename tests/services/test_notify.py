"""Notifications of new changes, sent through Apprise to real receivers on 127.0.0.1:
an SMTP server (aiosmtpd) and an HTTP receiver of JSON webhooks, both started by the
test. A receiver that is down keeps its message (with the error) for a later
delivery, which sends it once; a message not sent within give_up_after is kept,
given up."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.orchestrate.findings.changes import find_all
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.report.change_list import ListedChange
from perfwalk.services.notify import notify_changes
from perfwalk.store import Store
from tests.fixtures.receivers import Hook, Mailbox, free_port
from tests.services.test_analyse import CONFIG, TIME, add_series, commit, step
from tests.store.factories import new_series

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BASE = "https://perf.example.org/demo"


def configured(tmp_path: Path, *urls: str, extra: str = "") -> Config:
    path = tmp_path / "perfwalk.toml"
    listed = ", ".join(json.dumps(url) for url in urls)
    path.write_text(
        CONFIG.replace(
            'repo = "."',
            'name = "demo"\nrepo = "."\ncommit_url = "https://git.example.org/{commit}"',
        )
        + f'\n[report]\nbase_url = "{BASE}"\n\n[notify]\nurls = [{listed}]\n{extra}',
        encoding="utf-8",
    )
    return load_config(path)


def mail_url(box: Mailbox) -> str:
    return f"mailto://127.0.0.1:{box.port}?from=perfwalk@localhost&to=dev@localhost"


def hook_url(port: int) -> str:
    return f"json://127.0.0.1:{port}/perf"


@dataclass(frozen=True)
class Slower:
    series: int
    drill: int
    changes: list[ListedChange]


def slower_walk(config: Config) -> Slower:
    """A walk 30 % slower from checkout 8, whose drill named a culprit."""
    with Store.open(config.store.url) as store:
        series = add_series(store, {TIME: step(10, 13, 8)})
        drill = store.create_series(new_series(kind="drill", parent_id=series, step="drill"))
        ends = {"before_sha": commit(7, 1).id, "after_sha": commit(8, 1).id}
        store.drills.start(drill, "bench", "time", {"id": f"{series}:8", **ends})
        answer = {"verdict": "culprit", "reason": "a step", "culprit": commit(8, 0).id}
        store.drills.finish(
            drill, "culprit", {**answer, "lo": ends["before_sha"], "hi": answer["culprit"]}
        )
        changes = listed_findings(store, find_all(store, config))[0]
    return Slower(series, drill, changes)


def test_a_new_change_is_told_by_mail_and_webhook(
    tmp_path: Path, mailbox: Mailbox, hook: Hook
) -> None:
    config = configured(tmp_path, mail_url(mailbox), hook_url(hook.port))
    walk = slower_walk(config)
    assert len(walk.changes) == 1
    with Store.open(config.store.url) as store:
        report = notify_changes(store, config, walk.changes, now=NOW)
        assert (report.queued, len(report.sent), report.failed, report.pending) == (2, 2, (), 0)
        again = notify_changes(store, config, walk.changes, now=NOW + timedelta(hours=1))
        assert (again.queued, again.sent) == (0, ())  # told once
    culprit = commit(8, 0)
    (mail,) = mailbox.texts()
    (post,) = hook.posts
    told = f"{post['title']}\n{post['message']}"
    for text in (mail, told):
        for words in (
            "regression",
            culprit.id,
            culprit.subject,
            "Dev 0",
            "bench.time",
            "+30.0 %",
            "95 % interval",
            "confidence",
            "series",
            "host: local",
            f"{BASE}/series-{walk.series}.html",
        ):
            assert words in text, (words, text)
    assert "**" not in post["message"]  # the plain body to a webhook that reads text
    assert mailbox.mails[0]["To"] == "dev@localhost"


def test_one_alert_group_across_hosts_is_one_message(tmp_path: Path, hook: Hook) -> None:
    """The walk drilled to its culprit, and a walk on another host that stepped across
    the same commits (not drilled): one group, one message naming both hosts and the
    other walk's metric."""
    config = configured(tmp_path, hook_url(hook.port))
    with Store.open(config.store.url) as store:
        add_series(store, {TIME: step(10, 12, 8)}, seed="other", host="builder-2")
    walk = slower_walk(config)
    assert len({c.series_id for c in walk.changes}) == 2
    with Store.open(config.store.url) as store:
        report = notify_changes(store, config, walk.changes, now=NOW)
    assert (report.queued, len(report.sent)) == (1, 1)
    (post,) = hook.posts
    print(post["title"])
    assert post["title"].endswith(" and 1 more metric on local, builder-2")
    assert "also across these commits:\nregression: bench.time in 1: " in post["message"]
    assert commit(8, 0).id in post["message"]  # the culprit


def test_a_receiver_that_is_down_gets_the_change_later_and_once(
    tmp_path: Path, mailbox: Mailbox
) -> None:
    down = free_port()  # nothing listens there yet
    config = configured(tmp_path, hook_url(down), mail_url(mailbox), extra="retry_after = 60\n")
    walk = slower_walk(config)
    with Store.open(config.store.url) as store:
        first = notify_changes(store, config, walk.changes, now=NOW)
        assert len(first.sent) == 1  # the mail: the webhook being down does not hold it back
        (failed,) = first.failed
        assert "Connection refused" in failed.error or "connect" in failed.error.lower()
        assert failed.receiver == f"json://127.0.0.1:{down}/***"  # its path: maybe a token
        (waiting,) = store.outbox.pending()
        assert (waiting.attempts, waiting.next_attempt_at) == (1, NOW + timedelta(seconds=60))
        assert waiting.last_error == failed.error

        assert (
            notify_changes(store, config, walk.changes, now=NOW + timedelta(seconds=30)).sent == ()
        )
        with Hook(down).running() as hook:
            later = notify_changes(store, config, walk.changes, now=NOW + timedelta(seconds=61))
            assert [a.receiver for a in later.sent] == [failed.receiver]
            assert notify_changes(store, config, [], now=NOW + timedelta(days=1)).sent == ()
        assert len(hook.posts) == 1
        assert walk.changes[0].culprit is not None
        assert walk.changes[0].culprit.sha in hook.posts[0]["message"]
    assert len(mailbox.mails) == 1


def test_the_pause_doubles_and_a_message_is_given_up_but_kept(tmp_path: Path) -> None:
    down = free_port()
    config = configured(
        tmp_path, hook_url(down), extra="retry_after = 60\ngive_up_after = 3600\ntimeout = 5\n"
    )
    walk = slower_walk(config)
    with Store.open(config.store.url) as store:
        notify_changes(store, config, walk.changes, now=NOW)
        waits = []
        when = NOW
        for _ in range(4):
            (row,) = store.outbox.pending()
            waits.append((row.next_attempt_at - when).total_seconds())
            when = row.next_attempt_at
            notify_changes(store, config, [], now=when)
        assert waits == [60, 120, 240, 480]
        at = NOW + timedelta(seconds=3600)
        report = notify_changes(store, config, [], now=at)
        assert len(report.given_up) == 1
        assert store.outbox.pending() == []
        (gone,) = store.outbox.given_up()
        assert (gone.given_up, gone.sent_at, gone.attempts) == (True, None, 6)
        assert notify_changes(store, config, [], now=at + timedelta(days=1)).failed == ()


def test_perfwalk_notify_sends_what_is_due_and_tests_each_receiver(
    tmp_path: Path, mailbox: Mailbox, capsys: pytest.CaptureFixture[str]
) -> None:
    down = free_port()
    config = configured(
        tmp_path,
        mail_url(mailbox),
        f"json://user:hunter2pw@127.0.0.1:{down}/x",
        extra="retry_after = 0.001\n",
    )
    code = main(["notify", "-c", str(config.path), "--test"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"ok     mailto://127.0.0.1:{mailbox.port}" in out
    assert f"FAILED json://user:***@127.0.0.1:{down}/***: " in out
    assert "hunter2pw" not in out
    assert "test notification" in mailbox.texts()[0]

    walk = slower_walk(config)
    with Store.open(config.store.url) as store:
        first = notify_changes(store, config, walk.changes)  # now: perfwalk notify's clock
        assert (len(first.sent), len(first.failed)) == (1, 1)
    assert main(["notify", "-c", str(config.path)]) == 0
    out = capsys.readouterr().out
    assert "0 sent, 1 failed" in out  # the mail was sent by the cycle; the hook is due again
    assert "hunter2pw" not in out

    empty = configured(tmp_path)
    assert main(["notify", "-c", str(empty.path)]) == 2
    assert "[notify] urls is empty" in capsys.readouterr().err
