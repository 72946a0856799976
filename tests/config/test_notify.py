"""``[notify]``: Apprise URLs checked at load, never shown; the retry settings."""

from __future__ import annotations

import tomllib

import pytest

from perfwalk.config import load_config
from perfwalk.config.receivers import masked, receiver_id, redacted
from perfwalk.config.secrets import config_secrets, mask_config_text
from perfwalk.errors import ConfigError
from tests.config.conftest import MINIMAL, WriteConfig

SLACK_TOKEN = "TIiajkdnlazkcOXrIdevi7FQ"
SLACK = f"slack://T1JJ3T3L2/A1BRTD4JD/{SLACK_TOKEN}/#perf"
MAIL = "mailto://walker:hunter2pw@mail.example.org?to=perf@example.org"


def _notify(*urls: str, extra: str = "") -> str:
    listed = ", ".join(f'"{url}"' for url in urls)
    return f"[notify]\nurls = [{listed}]\n{extra}" + MINIMAL


def test_the_defaults_notify_nobody(write_config: WriteConfig) -> None:
    notify = load_config(write_config(MINIMAL)).notify
    assert (notify.urls, notify.retry_after, notify.give_up_after, notify.timeout) == (
        (),
        60.0,
        7 * 86400.0,
        30.0,
    )


def test_urls_apprise_reads_are_kept_and_shown_nowhere(write_config: WriteConfig) -> None:
    config = load_config(
        write_config(_notify(SLACK, MAIL, extra="retry_after = 5\ngive_up_after = 600\n"))
    )
    assert config.notify.urls == (SLACK, MAIL)
    assert (config.notify.retry_after, config.notify.give_up_after) == (5.0, 600.0)
    assert SLACK_TOKEN not in repr(config)
    assert "hunter2pw" not in repr(config)
    secrets = config_secrets(config)
    assert {SLACK, MAIL, SLACK_TOKEN, "hunter2pw"} <= set(secrets)
    text = mask_config_text(config.text)
    assert SLACK_TOKEN not in text
    assert "hunter2pw" not in text
    assert tomllib.loads(text)["notify"]["urls"] == ["***", "***"]
    assert redacted(SLACK).startswith("slack://")
    assert SLACK_TOKEN not in redacted(SLACK)
    assert redacted(MAIL).startswith("mailto://walker:***@mail.example.org")
    said = f"could not log in to {MAIL} with hunter2pw (token {SLACK_TOKEN})"
    assert "hunter2pw" not in masked(said, MAIL)
    assert SLACK_TOKEN not in masked(said, SLACK)
    assert receiver_id(SLACK) == receiver_id(SLACK) != receiver_id(MAIL)
    assert SLACK_TOKEN not in receiver_id(SLACK)


def test_notify_does_not_change_the_hash(write_config: WriteConfig) -> None:
    plain = load_config(write_config(MINIMAL))
    assert load_config(write_config(_notify(SLACK))).hash == plain.hash


@pytest.mark.parametrize(
    ("urls", "words"),
    [
        (("json://127.0.0.1/hook", "bogus://x/hunter2pw"), "item 1 (urls[1]): Apprise cannot use"),
        (("slack://hunter2pw",), "item 0 (urls[0]): Apprise cannot use this slack:// URL"),
        (("hunter2pw@example.org",), "item 0 (urls[0]): expected an Apprise URL"),
        (("json://h/x", "json://h/x"), "given twice"),
    ],
)
def test_a_url_apprise_refuses_is_named_by_its_index_without_its_text(
    write_config: WriteConfig, urls: tuple[str, ...], words: str
) -> None:
    path = write_config(_notify(*urls))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    assert (error.path, error.key) == (str(path), "notify.urls")
    assert words in error.message
    assert "apprise" in str(error.hint).lower() or "Apprise" in error.message
    assert "hunter2pw" not in str(error) + str(error.hint)


def test_a_wait_must_be_positive(write_config: WriteConfig) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(_notify(extra="retry_after = 0\n")))
    assert caught.value.key == "notify.retry_after"
