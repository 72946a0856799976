"""``--tests``: groups, tests, sweeps and some of a sweep's members pick the tests a
command works on; a name that names none is a UsageError listing what there is; a
metric TEST.VALUE is found when the test's name holds dots."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.config.test_selection import load_selected, named_metric, select_tests, split_names
from perfwalk.errors import UsageError
from tests.config.conftest import WriteConfig

TESTS = """\
[[test]]
name = "udp"
group = "net"
command = "./udp {sweep.size} {sweep.streams}"
parser = "value"
[test.sweep]
size = [64, 1500]
streams = [1, 10]

[[test]]
name = "tcp"
group = "net"
command = "./tcp"
parser = "value"

[[test]]
name = "fsmark"
group = "fs"
command = "./fs_mark"
parser = "value"

[[test]]
name = "boot"
command = "./boot"
parser = "value"

[[test]]
name = "ratio"
command = "./ratio {sweep.r}"
parser = "value"
[test.sweep]
r = [0.5, 1.5]
"""


@pytest.fixture
def config(write_config: WriteConfig) -> Config:
    return load_config(write_config(TESTS))


def test_names_split_at_the_commas_outside_brackets() -> None:
    assert split_names("net, udp[size=64,streams=1] ,fs,,") == (
        "net",
        "udp[size=64,streams=1]",
        "fs",
    )


CHOICES = {
    "net": {
        "udp[size=64,streams=1]",
        "udp[size=64,streams=10]",
        "udp[size=1500,streams=1]",
        "udp[size=1500,streams=10]",
        "tcp",
    },
    "fs,boot": {"fsmark", "boot"},
    "udp[size=64]": {"udp[size=64,streams=1]", "udp[size=64,streams=10]"},
    "udp[streams=10,size=1500]": {"udp[size=1500,streams=10]"},
    "udp[size=1500,streams=10],tcp": {"udp[size=1500,streams=10]", "tcp"},
    "ratio[r=1.5]": {"ratio[r=1.5]"},
}


@pytest.mark.parametrize("asked", CHOICES)
def test_groups_tests_and_sweeps_pick_tests(config: Config, asked: str) -> None:
    chosen = select_tests(config, split_names(asked))
    assert {t.name for t in chosen.tests} == CHOICES[asked]
    assert chosen.only == CHOICES[asked]
    assert all(chosen.keeps(name) for name in CHOICES[asked])
    assert not chosen.keeps("boot" if "boot" not in CHOICES[asked] else "tcp")
    assert chosen.hash != config.hash  # a site of some tests is not the site of all
    assert select_tests(config, split_names(asked), same_hash=True).hash == config.hash


def test_no_selection_keeps_every_test(config: Config) -> None:
    assert load_selected(config.path, None).tests == config.tests
    assert config.keeps("anything")
    assert config.only is None


UNKNOWN = ["nett", "udp[size=9000]", "udp[mtu=64]", "udp[", "tcp[size=64]", ""]


@pytest.mark.parametrize("asked", UNKNOWN)
def test_a_name_that_names_no_test_lists_what_there_is(config: Config, asked: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_selected(config.path, split_names(asked))
    error = caught.value
    print(f"{asked!r}: {error} (hint: {error.hint})")
    if asked:
        assert f"--tests {asked}: no group, test or sweep of that name" in str(error)
        assert "its groups: fs, net; its tests: udp, tcp, fsmark, boot, ratio" in (error.hint or "")
    else:
        assert "--tests: no test named" in str(error)


def test_a_metric_of_a_test_whose_name_holds_dots_is_found(config: Config) -> None:
    assert named_metric(config, "ratio[r=1.5].rate", "drill --metric") == ("ratio[r=1.5]", "rate")
    assert named_metric(config, "tcp.a.b", "drill --metric") == ("tcp", "a.b")
    with pytest.raises(UsageError) as caught:
        named_metric(config, "ratio[r=2.5].rate", "drill --metric")
    assert "not TEST.VALUE of a test of" in str(caught.value)
