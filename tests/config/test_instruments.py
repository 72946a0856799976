"""[[test.instrument]]: the kinds a test may name, each once, checked before anything
runs; a mistake is a ConfigError naming the file, the test and the key."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.config.instruments import (
    INSTRUMENT_KINDS,
    INSTRUMENT_METRICS,
    counts_work,
    load_immune,
)
from perfwalk.errors import ConfigError
from perfwalk.policy import EXACT_COUNT_MIN_CHANGE, EXACT_COUNT_MIN_SIZE
from tests.config.conftest import MINIMAL, WriteConfig

SPIN = """\
[[test]]
name = "spin"
command = "./spin"
parser = "value"
"""


def test_a_test_has_its_instruments_and_another_none(write_config: WriteConfig) -> None:
    kinds = '[[test.instrument]]\nkind = "rusage"\n[[test.instrument]]\nkind = "cachegrind"\n'
    path = write_config(MINIMAL + SPIN + kinds + 'runs = "extra"\n')
    latency, spin = load_config(path).tests
    assert latency.instruments == ()
    assert [(i.kind, i.runs) for i in spin.instruments] == [
        ("rusage", "all"),
        ("cachegrind", "extra"),
    ]
    assert [i.kind for i in spin.instruments_of("all")] == ["rusage"]
    assert [i.kind for i in spin.instruments_of("extra")] == ["cachegrind"]


# (what follows [[test]] "spin", the key named, words of the message, words of the hint)
MISTAKES = {
    "unknown kind": (
        '[[test.instrument]]\nkind = "rusage"\n[[test.instrument]]\nkind = "rusge"\n',
        "test[1].instrument[1].kind",
        ["test 'spin'", "unknown instrument 'rusge'", "the known kinds: rusage, cachegrind"],
        ["did you mean 'rusage'?", "docs/instruments.md"],
    ),
    "a kind far from any": (
        '[[test.instrument]]\nkind = "valgrind"\n',
        "test[1].instrument[0].kind",
        ["test 'spin'", "unknown instrument 'valgrind'", "the known kinds: rusage, cachegrind"],
        ["docs/instruments.md"],
    ),
    "a near kind": (
        '[[test.instrument]]\nkind = "cachegrnd"\n',
        "test[1].instrument[0].kind",
        ["test 'spin'", "unknown instrument 'cachegrnd'"],
        ["did you mean 'cachegrind'?"],
    ),
    "no kind": (
        "[[test.instrument]]\n",
        "test[1].instrument[0].kind",
        ["missing required key 'kind'"],
        ["one of: rusage, cachegrind"],
    ),
    "an empty kind": (
        '[[test.instrument]]\nkind = ""\n',
        "test[1].instrument[0].kind",
        ["expected a non-empty value"],
        ["one of: rusage, cachegrind"],
    ),
    "a kind of the wrong type": (
        "[[test.instrument]]\nkind = 1\n",
        "test[1].instrument[0].kind",
        ["expected a string, got an integer"],
        ["one of: rusage, cachegrind"],
    ),
    "one kind twice": (
        '[[test.instrument]]\nkind = "rusage"\n[[test.instrument]]\nkind = "rusage"\n',
        "test[1].instrument[1].kind",
        ["test 'spin' has the instrument 'rusage' twice"],
        ["keep one [[test.instrument]] of each kind"],
    ),
    "a table instead of an array": (
        '[test.instrument]\nkind = "rusage"\n',
        "test[1].instrument",
        ["expected an array of tables"],
        ["[[instrument]]"],
    ),
    "an unknown key": (
        '[[test.instrument]]\nkind = "rusage"\nevery = 2\n',
        "test[1].instrument[0].every",
        ["unknown key 'every'"],
        ["Known here: kind, runs"],
    ),
    "runs neither all nor extra": (
        '[[test.instrument]]\nkind = "cachegrind"\nruns = "once"\n',
        "test[1].instrument[0].runs",
        ["'once'"],
        ["all", "extra"],
    ),
    "a role named like an instrument": (
        '[[test.instrument]]\nkind = "rusage"\n[test.roles.rusage]\nrun = ["true"]\n',
        "test[1].roles.rusage",
        ["test 'spin': the role 'rusage' has the name of an instrument"],
        ["name the role otherwise"],
    ),
}


@pytest.mark.parametrize("case", MISTAKES)
def test_a_mistake_names_the_file_the_test_and_the_key(
    write_config: WriteConfig, case: str
) -> None:
    extra, key, said, hinted = MISTAKES[case]
    path = write_config(MINIMAL + SPIN + extra)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    text = str(error)
    print(f"{case}: {text} (hint: {error.hint})")
    assert text.startswith(f"{path}: {key}: "), text
    for words in said:
        assert words in text, text
    for words in hinted:
        assert words in (error.hint or ""), error.hint


def test_every_instrument_metric_but_those_the_machine_moves_is_load_immune() -> None:
    assert tuple(INSTRUMENT_METRICS) == INSTRUMENT_KINDS
    moved_by_the_machine = {
        "rusage.user_cpu",
        "rusage.system_cpu",
        "rusage.involuntary_switches",
        "rusage.major_faults",
        "perf-stat.cycles",
        "perf-stat.cache_misses",
    }
    for kind, metrics in INSTRUMENT_METRICS.items():
        for metric in metrics:
            assert metric.name.startswith(f"{kind}.")
            assert load_immune(metric.name) is (metric.name not in moved_by_the_machine)
    assert not load_immune("rusage")
    assert not load_immune("latency")
    assert not load_immune("sink.user_cpu")
    assert load_immune("cachegrind.instructions")
    assert load_immune("cachegrind.cycles")
    assert counts_work("cachegrind.instructions")
    assert counts_work("cachegrind.cycles")


def test_an_exact_count_has_thresholds_of_its_own_that_its_metric_replaces(
    write_config: WriteConfig,
) -> None:
    kinds = '[[test.instrument]]\nkind = "cachegrind"\n[[test.instrument]]\nkind = "rusage"\n'
    own = '[test.metrics."cachegrind.cycles"]\nmin_change = 0.02\nmin_size = 4\n'
    analysis = "[analysis]\nmin_change = 0.05\nmin_size = 5\n"
    path = write_config(MINIMAL + SPIN + kinds + own + analysis)
    spin = load_config(path).tests[1]
    thresholds = {
        name: (spin.metric(name, unit).min_change, spin.metric(name, unit).min_size)
        for name, unit in (
            ("cachegrind.instructions", "instructions"),  # exact: its own
            ("cachegrind.cycles", "cycles"),  # its own, configured
            ("rusage.user_cpu", "s"),  # not exact: the file's
            ("value", "ms"),  # the test's own value: the file's
        )
    }
    assert thresholds == {
        "cachegrind.instructions": (EXACT_COUNT_MIN_CHANGE, EXACT_COUNT_MIN_SIZE),
        "cachegrind.cycles": (0.02, 4),
        "rusage.user_cpu": (0.05, 5),
        "value": (0.05, 5),
    }
