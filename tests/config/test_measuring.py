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
    ("text", "least", "most"),
    [
        ('repetitions = "auto"', 3, 20),
        ('repetitions = "auto"\nrepetitions_min = 4\nrepetitions_max = 9', 4, 9),
        ('repetitions = "auto"\nrepetitions_max = 5', 3, 5),
        ("repetitions = 4\nrepetitions_max = 9", 4, 9),
    ],
)
def test_auto_repetitions_go_from_the_least_to_the_most(
    write_config: WriteConfig, text: str, least: int, most: int
) -> None:
    config = load_config(write_config(f"[run]\n{text}\n" + MINIMAL))
    assert (config.run.repetitions, config.run.repetitions_max) == (least, most)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ('[run]\norder = "round"\n', "run.order", "expected one of"),
        ("[run]\nrepetitions = 5\nrepetitions_max = 3\n", "run.repetitions_max", "below"),
        ("[run]\nrse_target = 0\n", "run.rse_target", "> 0"),
        ('[run]\nrepetitions = "many"\n', "run.repetitions", 'an integer or "auto"'),
        ("[run]\nrepetitions = 0\n", "run.repetitions", '1 to 10000, or "auto"'),
        (
            '[run]\nrepetitions = "auto"\nrepetitions_min = 8\nrepetitions_max = 5\n',
            "run.repetitions_max",
            "below repetitions_min = 8",
        ),
        ("[run]\nrepetitions = 5\nrepetitions_min = 2\n", "run.repetitions_min", "goes with"),
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
