"""[test.profile]: absent means no profile; every bad value is a ConfigError naming
its key."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from tests.config.conftest import MINIMAL, WriteConfig


def test_absent_means_no_profile(write_config: WriteConfig) -> None:
    (test,) = load_config(write_config(MINIMAL)).tests
    assert not test.profile.on
    assert (test.profile.frequency, test.profile.event) == (999, "cpu-clock")
    assert test.profile.repetitions == "extra"
    assert test.profile.limit < 2 << 20


def test_perf_profile(write_config: WriteConfig) -> None:
    path = write_config(
        MINIMAL + '[test.profile]\ntool = "perf"\nfrequency = 4999\nevent = ""\n'
        'repetitions = "all"\nlimit = 65536\n'
    )
    (test,) = load_config(path).tests
    assert test.profile.on
    assert (test.profile.tool, test.profile.frequency, test.profile.event) == ("perf", 4999, "")
    assert (test.profile.repetitions, test.profile.limit) == ("all", 65536)


def test_profiler_command(write_config: WriteConfig) -> None:
    path = write_config(
        MINIMAL
        + '[test.profile]\ntool = "command"\ncommand = "py-spy record -f raw -o {profile} --"\n'
    )
    (test,) = load_config(path).tests
    assert test.profile.command.endswith("{profile} --")


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ('tool = "gprof"', "test[0].profile.tool", "one of"),
        ('tool = "perf"\nfrequency = 0', "test[0].profile.frequency", "1 to"),
        ('tool = "perf"\nfrequency = "high"', "test[0].profile.frequency", "integer"),
        ('tool = "perf"\nevent = "cycles; rm -rf /"', "test[0].profile.event", "perf event"),
        ('tool = "perf"\nrepetitions = "some"', "test[0].profile.repetitions", "one of"),
        ('tool = "perf"\nlimit = 0', "test[0].profile.limit", "1 to"),
        ('tool = "command"', "test[0].profile.command", "needs"),
        ('tool = "command"\ncommand = "py-spy record --"', "test[0].profile.command", "{profile}"),
        ('tool = "perf"\ncommand = "x {profile}"', "test[0].profile.command", "tool"),
        ('tool = "perf"\nrole = "sink"', "test[0].profile.role", "sink"),
        ('tool = "perf"\nfrequncy = 99', "test[0].profile.frequncy", "unknown key"),
    ],
)
def test_bad_values_name_their_key(
    write_config: WriteConfig, table: str, key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(write_config(MINIMAL + "[test.profile]\n" + table + "\n"))
    assert caught.value.key == key
    assert words in str(caught.value)
    assert caught.value.hint
