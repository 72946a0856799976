"""The [run] keys of how a walk measures: order, adaptive repetitions, warm-up, pinning."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from tests.config.conftest import MINIMAL, WriteConfig


def test_the_defaults_measure_checkout_after_checkout_a_fixed_count(
    write_config: WriteConfig,
) -> None:
    config = load_config(write_config(MINIMAL))
    run = config.run
    assert (run.order, run.repetitions_max, run.warmup, run.cpus) == ("checkout", 0, 0, "")
    (test,) = config.tests
    assert (test.warmups(run), test.pinned(run)) == (0, "")


def test_a_test_replaces_the_run_warm_up_and_cpus(write_config: WriteConfig) -> None:
    text = '[run]\norder = "rounds"\nrepetitions_max = 9\nwarmup = 2\ncpus = "0-1"\n'
    text += MINIMAL + 'warmup = 0\ncpus = "1"\n'
    text += '[[test]]\nname = "other"\ncommand = "./bench"\nparser = "value"\n'
    config = load_config(write_config(text))
    first, other = config.tests
    assert (first.warmups(config.run), first.pinned(config.run)) == (0, "1")
    assert (other.warmups(config.run), other.pinned(config.run)) == (2, "0-1")
    assert (config.run.order, config.run.repetitions_max) == ("rounds", 9)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ('[run]\norder = "round"\n', "run.order", "expected one of"),
        ("[run]\nrepetitions = 5\nrepetitions_max = 3\n", "run.repetitions_max", "below"),
        ("[run]\nrse_target = 0\n", "run.rse_target", "> 0"),
        ("[run]\nwarmup = -1\n", "run.warmup", "0 to"),
        ('[run]\ncpus = "2-3;reboot"\n', "run.cpus", "CPU list"),
        (
            '[run]\norder = "rounds"\n[hosts.dut]\nroles = ["dut"]\n[install.dut]\nsteps = ["x"]\n',
            "run.order",
            "installs one checkout at a time",
        ),
    ],
)
def test_mistakes_name_the_key(write_config: WriteConfig, text: str, key: str, words: str) -> None:
    path = write_config(text + MINIMAL)
    with pytest.raises(ConfigError, match=words) as caught:
        load_config(path)
    assert caught.value.key == key
    assert caught.value.hint
