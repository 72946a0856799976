"""[hosts.<name>] power settings: read as given, defaults when absent, and the
combinations that cannot work refused with the key that fixes them."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from tests.config.conftest import MINIMAL, WriteConfig


def test_power_settings_are_read_and_default_to_nothing(write_config: WriteConfig) -> None:
    path = write_config(
        MINIMAL
        + """
[hosts.dut]
target = "root@dut"
roles = ["dut"]
power_cycle = "virsh reset dut"
power_cycles = 2
alive_timeout = 15
power_on = "virsh start dut"
power_off = "virsh destroy dut"
at_end = "power_off"

[hosts.sink]
target = "root@sink"
roles = ["sink"]
"""
    )
    hosts = load_config(path).hosts
    dut, sink = hosts["dut"], hosts["sink"]
    assert (dut.power_cycle, dut.power_cycles, dut.alive_timeout) == ("virsh reset dut", 2, 15)
    assert (dut.power_on, dut.power_off, dut.at_end) == (
        "virsh start dut",
        "virsh destroy dut",
        "power_off",
    )
    assert (sink.power_cycle, sink.power_cycles, sink.alive_timeout) == ("", 4, 60)
    assert (sink.power_on, sink.power_off, sink.at_end) == ("", "", "leave")


@pytest.mark.parametrize(
    ("lines", "key", "said"),  # a cross check's "said" ends with its remedy in the hint
    [
        (
            'target = "local"\npower_cycle = "ipmitool chassis power cycle"',
            "hosts.dut.power_cycle",
            "is this machine",
        ),
        ('target = "local"\npower_on = "true"', "hosts.dut.power_on", "is this machine"),
        ('target = "root@dut"\nat_end = "power_off"', "hosts.dut.at_end", "no power_off command"),
        ('target = "root@dut"\nat_end = "off"', "hosts.dut.at_end", "leave, power_off"),
        ('target = "root@dut"\npower_cycles = 0', "hosts.dut.power_cycles", "1 to"),
        ('target = "root@dut"\nalive_timeout = 0', "hosts.dut.alive_timeout", "> 0"),
    ],
)
def test_power_settings_that_cannot_work_are_refused(
    write_config: WriteConfig, lines: str, key: str, said: str
) -> None:
    path = write_config(MINIMAL + f'\n[hosts.dut]\nroles = ["dut"]\n{lines}\n')
    with pytest.raises(ConfigError, match=said) as info:
        load_config(path)
    assert info.value.key == key
    if said in ("is this machine", "no power_off command"):
        assert info.value.hint
