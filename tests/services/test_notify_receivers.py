"""What hostile receivers and hostile commits can do to a notification: real
receivers on 127.0.0.1 keep each request as it came.

- A commit whose subject and author are HTML, mentions, Markdown links, a tracking
  image and emphasis reaches Mattermost (``mmost://``, a local server) and Discord
  (``discord://``, through a local HTTPS proxy that answers as discord.com) as escaped
  Markdown, and a JSON webhook and a mail as plain text whose mentions and links are
  neutralised.
- A receiver that redirects (307 to another path, 302 to another origin) never gets
  its message re-posted where it points: the send fails, "the receiver redirected",
  and is tried again later.
- A generic webhook's path (its token) is shown and stored as ``***``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from html import unescape
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from perfwalk.cli.main import main
from perfwalk.config.receivers import RENDERS_MARKDOWN, load_apprise
from perfwalk.report.change_list import ListedChange
from perfwalk.services.notify import notify_changes
from perfwalk.store import Store
from tests.fixtures.receivers import Mailbox, free_port
from tests.fixtures.web_receivers import Interceptor, Recorder, openssl_missing
from tests.services.test_notify import BASE, NOW, configured, mail_url, slower_walk

SUBJECT = (
    '<img src=x onerror=alert("subj")> @channel @here <!channel> <@U024BE7LH> '
    "[click](javascript:alert(1)) ![px](http://127.0.0.1:18091/pixel.png) **bold**"
)
AUTHOR = '<script>alert("author")</script> @everyone'
MATTERMOST_KEY = "3ccdd113474722377935511fc85d3dd4"
DISCORD = (
    "discord://123456789012345678/"
    + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGhIjKlMnOpQrStUvWxYz01"
)
#: what would ping everyone in Mattermost, Discord or Matrix (as the reader sees it),
#: and in Slack or Discord (as sent)
_MENTIONS = re.compile(r"@(?:channel|here|everyone|all|room)\b")
_TAGS = re.compile(r"<!channel>|<@U024BE7LH>")


def hostile(change: ListedChange) -> ListedChange:
    assert change.culprit is not None
    return replace(change, culprit=replace(change.culprit, subject=SUBJECT, author=AUTHOR))


def live_markdown(text: str) -> list[str]:
    """What ``text``, rendered as Markdown (HTML allowed, as Mattermost and Discord
    render theirs), makes live that perfwalk did not write: mentions, images, HTML,
    links elsewhere than the site and the commits, emphasis of the subject."""
    html = MarkdownIt("commonmark").render(text)
    found = _TAGS.findall(text) + _MENTIONS.findall(unescape(re.sub(r"<[^>]+>", "", html)))
    found += re.findall(r"<(?:img|script)\b[^>]*>", html)
    found += [
        href
        for href in re.findall(r'<a href="([^"]*)"', html)
        if not href.startswith((BASE, "https://git.example.org/"))
    ]
    found += re.findall(r"<strong>bold</strong>", html)
    return found


def live_plain(text: str) -> list[str]:
    """What ``text`` (plain) would make a mention or a Markdown link or image of."""
    return _MENTIONS.findall(text) + _TAGS.findall(text) + re.findall(r"!?\[[^\]]*\]\(", text)


@pytest.fixture
def discord_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Interceptor]:
    """The requests to https://discord.com of this process go to a local proxy."""
    if why := openssl_missing():
        pytest.skip(why)
    with Interceptor(tmp_path).running() as proxy:
        for name, value in proxy.environment().items():
            monkeypatch.setenv(name, value)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        yield proxy


def test_hostile_subjects_reach_every_receiver_neutralised(
    tmp_path: Path, mailbox: Mailbox, discord_proxy: Interceptor
) -> None:
    with Recorder().running() as chat, Recorder().running() as hook:
        config = configured(
            tmp_path,
            f"mmost://127.0.0.1:{chat.port}/{MATTERMOST_KEY}",
            DISCORD,
            f"json://127.0.0.1:{hook.port}/hooks/perf",
            mail_url(mailbox),
        )
        walk = slower_walk(config)
        with Store.open(config.store.url) as store:
            report = notify_changes(store, config, [hostile(c) for c in walk.changes], now=NOW)
        assert (len(report.sent), report.failed) == (4, ())

    (mattermost,) = chat.received
    assert mattermost.path == f"/hooks/{MATTERMOST_KEY}"
    (discord,) = discord_proxy.received
    assert discord.path.startswith("/api/webhooks/123456789012345678/")
    (webhook,) = hook.received
    (mail,) = mailbox.texts()
    for rendered in (mattermost.json()["text"], discord.json()["content"]):
        assert "alert" in rendered  # the subject is there…
        assert live_markdown(rendered) == [], rendered  # …as text
        assert "@\u2060channel" in rendered
        assert rendered.startswith("**perfwalk demo\\: regression")  # the title, escaped
    for plain in (webhook.json()["title"] + webhook.json()["message"], mail):
        assert '<img src=x onerror=alert("subj")>' in plain  # the HTML, as text
        assert live_plain(plain) == [], plain
        assert "@\u2060everyone" in plain


def test_a_receiver_that_redirects_gets_no_message_and_is_tried_again(tmp_path: Path) -> None:
    with Recorder().running() as elsewhere:
        bounces = {
            f"/hooks/{MATTERMOST_KEY}": (307, elsewhere.url("/stolen307")),
            "/hook": (302, elsewhere.url("/stolen302")),  # another origin (port)
        }
        with Recorder(bounces).running() as receiver:
            config = configured(
                tmp_path,
                f"mmost://127.0.0.1:{receiver.port}/{MATTERMOST_KEY}?redirect=yes",
                f"json://127.0.0.1:{receiver.port}/hook",
                extra="retry_after = 60\n",
            )
            walk = slower_walk(config)
            with Store.open(config.store.url) as store:
                first = notify_changes(store, config, walk.changes, now=NOW)
                later = notify_changes(store, config, [], now=NOW + timedelta(seconds=61))
                waiting = store.outbox.pending()
    assert elsewhere.received == []  # nothing re-posted where the receivers pointed
    assert len(receiver.received) == 4  # each message, twice: when queued and a minute later
    assert (first.sent, len(first.failed), later.sent, len(later.failed)) == ((), 2, (), 2)
    errors = sorted(attempt.error for attempt in first.failed)
    assert errors[0].startswith("the receiver redirected (HTTP 302)"), errors
    assert errors[1].startswith("the receiver redirected (HTTP 307)"), errors
    assert [m.attempts for m in waiting] == [2, 2]
    assert all(m.next_attempt_at == NOW + timedelta(seconds=61 + 120) for m in waiting)


def test_a_webhook_path_is_shown_masked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    down = free_port()
    token = "T0123ABC/S3cretW3bhookTok3n"
    config = configured(tmp_path, f"json://127.0.0.1:{down}/hooks/{token}")
    walk = slower_walk(config)
    with Store.open(config.store.url) as store:
        (failed,) = notify_changes(store, config, walk.changes, now=NOW).failed
        (stored,) = store.outbox.pending()
    assert failed.receiver == stored.receiver_shown == f"json://127.0.0.1:{down}/***"
    assert "Connection refused" in failed.error
    assert main(["notify", "-c", str(config.path), "--test"]) == 1
    out = capsys.readouterr().out
    assert f"FAILED json://127.0.0.1:{down}/***: " in out
    for shown in (failed.error, stored.last_error, out):
        assert "S3cretW3bhookTok3n" not in shown


def test_the_docs_name_the_services_that_get_markdown() -> None:
    from apprise.plugins import N_MGR

    load_apprise()
    docs = (Path(__file__).parents[2] / "docs" / "notifications.md").read_text(encoding="utf-8")
    row = next(line for line in docs.splitlines() if line.startswith("| Mattermost"))
    for name in sorted(RENDERS_MARKDOWN):
        assert str(N_MGR[name].service_name) in row, name
