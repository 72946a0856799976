"""``[retention]``: unset by default (``watch`` then drops nothing), sizes read as people
write them, a wrong value named with its key, and no part of the configuration's hash."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError

from .conftest import MINIMAL, WriteConfig


def test_unset_by_default(write_config: WriteConfig) -> None:
    retention = load_config(write_config(MINIMAL)).retention
    assert (retention.older_than, retention.max_size, retention.set) == (None, None, False)


def test_days_and_a_size(write_config: WriteConfig) -> None:
    text = MINIMAL + '\n[retention]\nolder_than = 30\nmax_size = "2GiB"\n'
    retention = load_config(write_config(text)).retention
    assert (retention.older_than, retention.max_size, retention.set) == (30, 2 << 30, True)
    assert load_config(write_config(MINIMAL)).hash == load_config(write_config(text)).hash


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("older_than = 0", r"retention\.older_than.*1 to 36500"),
        ('older_than = "30"', r"retention\.older_than.*an integer"),
        ('max_size = "lots"', r"retention\.max_size.*expected a size such as 500M"),
        ("max_size = 2048", r"retention\.max_size.*a string"),
    ],
)
def test_a_wrong_value_is_named_with_its_key(
    write_config: WriteConfig, line: str, said: str
) -> None:
    with pytest.raises(ConfigError, match=said):
        load_config(write_config(MINIMAL + f"\n[retention]\n{line}\n"))
