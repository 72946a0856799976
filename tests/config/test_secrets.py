"""Secrets of the configuration: which values are secret, and the file's text masked."""

from __future__ import annotations

import tomllib

import pytest

from perfwalk.config import load_config
from perfwalk.config.secrets import config_secrets, mask_config_text
from perfwalk.errors import ConfigError
from perfwalk.secret_text import hide_password, looks_secret, url_secrets
from tests.config.conftest import MINIMAL, WriteConfig

PASSWORD = "Sup3r/Secret"
TOKEN = "tok-123456"


@pytest.mark.parametrize(
    "name",
    ["PGPASSWORD", "API_KEY", "SSHKEY", "GITHUB_TOKEN", "BASIC_AUTH", "db_pass", "Client_Secret"],
)
def test_names_that_look_secret(name: str) -> None:
    assert looks_secret(name)


@pytest.mark.parametrize("name", ["LC_ALL", "CFLAGS", "JOBS", "PATH", "HOME", "KEYMAP", "PASSES"])
def test_names_that_do_not(name: str) -> None:
    assert not looks_secret(name)


@pytest.mark.parametrize(
    ("url", "shown", "secrets"),
    [
        ("postgresql://u:pw@h/db", "postgresql://u:***@h/db", ["pw"]),
        ("postgresql://u@h/db?host=/tmp/x@y", "postgresql://u@h/db?host=/tmp/x@y", []),
        (
            "postgresql+psycopg://u:p%40w@h/db?password=sec&host=/tmp",
            "postgresql+psycopg://u:***@h/db?password=***&host=/tmp",
            ["p%40w", "p@w", "sec"],
        ),
        ("sqlite:////tmp/a.db", "sqlite:////tmp/a.db", []),
    ],
)
def test_url_secrets(url: str, shown: str, secrets: list[str]) -> None:
    assert hide_password(url) == shown
    assert url_secrets(url) == secrets


def test_every_way_of_writing_a_secret_is_masked(write_config: WriteConfig) -> None:
    text = f"""\
        # the store's password is {PASSWORD}
        [project]
        repo = "."
        [store]
        url = "postgresql+psycopg://walker:{PASSWORD.replace("/", "%2F")}@db.example.org/perf"
        [build]
        env = {{ CFLAGS = "-O2", API_TOKEN = "{TOKEN}", ab = {{ value = "zz", secret = true }} }}
        [[test]]
        name = "t"
        command = "curl -u me:{TOKEN} https://bob:pw9@x.example.org/ && echo zz"
        parser = "value"
        env.PGPASSWORD = 'lit\\eral'
        env.ESCAPED_SECRET = "\\u0070assw0rd"
        env.MULTI_SECRET = \"\"\"
        line1
        line2\"\"\"
        env.KEYMAP = {{ value = "us", secret = false }}
        """
    path = write_config(text)
    config = load_config(path)
    secrets = config_secrets(config)
    assert {TOKEN, "zz", "lit\\eral", "passw0rd", "line1\nline2", PASSWORD} <= set(secrets)
    assert "us" not in secrets
    assert "-O2" not in secrets
    masked = mask_config_text(config.text)
    for secret in secrets:
        if len(secret) >= 4:
            assert secret not in masked
    data = tomllib.loads(masked)
    env = data["test"][0]["env"]
    assert env["PGPASSWORD"] == env["ESCAPED_SECRET"] == env["MULTI_SECRET"] == "***"
    assert env["KEYMAP"] == {"value": "us", "secret": False}
    assert data["build"]["env"] == {
        "CFLAGS": "-O2",
        "API_TOKEN": "***",
        "ab": {"value": "***", "secret": True},
    }
    assert data["store"]["url"] == "postgresql+psycopg://walker:***@db.example.org/perf"
    assert data["test"][0]["command"] == "curl -u me:*** https://bob:***@x.example.org/ && echo zz"
    assert masked.startswith("# the store's password is ***\n")
    assert mask_config_text(masked) == masked


def test_a_text_that_cannot_be_masked_in_place_is_written_out_again() -> None:
    # a key that is a secret's value: masking the strings leaves the key, the check
    # finds the secret, and the settings are written out again, masked
    text = f'[build]\nenv = {{ TOKEN = "{TOKEN}" }}\n[hosts.{TOKEN}]\nroles = ["dut"]\n'
    masked = mask_config_text(text)
    assert TOKEN not in masked
    assert masked.startswith("# the configuration's settings")
    assert tomllib.loads(masked)["build"]["env"] == {"TOKEN": "***"}


def test_a_text_that_is_not_toml_is_not_shown() -> None:
    assert "hunter2" not in mask_config_text('url = "postgresql://u:hunter2@h/db\n')


def test_the_values_reach_the_commands_and_the_hash_ignores_them(
    write_config: WriteConfig,
) -> None:
    config = load_config(write_config(MINIMAL + f'env = {{ TOKEN = "{TOKEN}", A = "1" }}\n'))
    assert dict(config.tests[0].env) == {"TOKEN": TOKEN, "A": "1"}
    assert config.tests[0].env.secret == {"TOKEN"}
    assert TOKEN not in repr(config.tests[0].env)
    other = load_config(write_config(MINIMAL + 'env = { TOKEN = "another", A = "1" }\n'))
    assert other.hash == config.hash
    changed = load_config(write_config(MINIMAL + f'env = {{ TOKEN = "{TOKEN}", A = "2" }}\n'))
    assert changed.hash != config.hash


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ("env = { API_TOKEN = 12345678 }\n", "test[0].env.API_TOKEN", "got an integer"),
        ('env = { X = { value = "v", secrets = true } }\n', "test[0].env.X", "'secrets'"),
        ('env = { X = { value = "v", secret = "yes" } }\n', "test[0].env.X.secret", "a string"),
        ("env = { X = { secret = true } }\n", "test[0].env.X.value", "got none"),
    ],
)
def test_a_bad_entry_is_named_without_its_value(
    write_config: WriteConfig, extra: str, key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(MINIMAL + extra))
    assert caught.value.key == key
    assert words in caught.value.message
    assert "12345678" not in str(caught.value)


def test_a_bad_store_url_is_named_without_its_password(write_config: WriteConfig) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config('[store]\nurl = "mysql://u:hunter2@h/db"\n' + MINIMAL))
    assert "hunter2" not in str(caught.value) + str(caught.value.hint)
    assert "mysql://u:***@h/db" in str(caught.value)
