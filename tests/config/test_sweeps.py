"""[test.sweep], [[test.derived]], group and description: a sweep expands into one test
per combination with stable names, a derived metric's unit and direction reach its
metric, and every mistake is a ConfigError naming the file, the key and the remedy."""

from __future__ import annotations

import pytest

from perfwalk.config import load_config
from perfwalk.errors import ConfigError
from perfwalk.model import Direction
from tests.config.conftest import MINIMAL, WriteConfig

UDP = """\
[[test]]
name = "udp"
group = "net"
description = "UDP throughput through the DUT"
command = "udpbench -l {sweep.size} -P {sweep.streams}"
parser = "value"
[test.sweep]
size = [64, 512, 1500]
streams = [1, 10]
"""


def test_a_sweep_of_3_by_2_is_six_tests_named_by_their_parameters(
    write_config: WriteConfig,
) -> None:
    config = load_config(write_config(MINIMAL + UDP))
    names = [t.name for t in config.tests]
    print(names)
    assert names == [
        "latency",
        "udp[size=64,streams=1]",
        "udp[size=64,streams=10]",
        "udp[size=512,streams=1]",
        "udp[size=512,streams=10]",
        "udp[size=1500,streams=1]",
        "udp[size=1500,streams=10]",
    ]
    members = config.tests[1:]
    assert {t.family for t in members} == {"udp"}
    assert config.tests[0].family == ""
    assert {t.group for t in members} == {"net"}
    assert {t.description for t in members} == {"UDP throughput through the DUT"}
    assert [dict(t.sweep) for t in members[:2]] == [
        {"size": 64, "streams": 1},
        {"size": 64, "streams": 10},
    ]
    assert members[5].placeholders() == {"sweep.size": "1500", "sweep.streams": "10"}
    assert config.tests[0].placeholders() == {}


def test_the_names_stay_when_a_value_is_added_or_the_parameters_swap(
    write_config: WriteConfig,
) -> None:
    before = {t.name for t in load_config(write_config(UDP)).tests}
    grown = UDP.replace("[64, 512, 1500]", "[64, 512, 1500, 9000]")
    swapped = grown.replace(
        "size = [64, 512, 1500, 9000]\nstreams = [1, 10]",
        "streams = [1, 10]\nsize = [64, 512, 1500, 9000]",
    )
    after = [t.name for t in load_config(write_config(swapped)).tests]
    assert before < set(after)
    assert set(after) - before == {"udp[size=9000,streams=1]", "udp[size=9000,streams=10]"}
    assert after[:2] == ["udp[size=64,streams=1]", "udp[size=512,streams=1]"]  # streams first


def test_words_and_floats_name_members_and_a_quirk_or_snapshot_names_the_sweep(
    write_config: WriteConfig,
) -> None:
    text = """\
    [[test]]
    name = "fwd"
    command = "./fwd {sweep.via} {sweep.ratio}"
    parser = "value"
    [test.sweep]
    via = ["em0", "vlan0"]
    ratio = [0.5]

    [[snapshot]]
    name = "netstat"
    command = "netstat -s"
    tests = ["fwd"]

    [[quirk]]
    at = "v1"
    until = "v2"
    comment = "the old option"
    [quirk.test.fwd]
    command = "./fwd --old {sweep.via}"
    """
    config = load_config(write_config(text))
    names = [t.name for t in config.tests]
    assert names == ["fwd[ratio=0.5,via=em0]", "fwd[ratio=0.5,via=vlan0]"]
    assert config.snapshots[0].tests == tuple(names)
    assert sorted(config.quirks[0].tests) == names


def test_a_derived_metric_has_its_unit_and_direction_as_a_metric(
    write_config: WriteConfig,
) -> None:
    text = (
        UDP
        + """\
    [[test.derived]]
    name = "line_rate"
    expression = "receiver / 10e9 * 100"
    unit = "%"
    direction = "higher"
    [[test.derived]]
    name = "pps"
    expression = "receiver / 8 / sweep.size"
    unit = "packets/s"
    [test.metrics.pps]
    summary = "median"
    """.replace("    ", "")
    )
    test = load_config(write_config(text)).tests[0]
    assert [(d.name, d.unit) for d in test.derived] == [("line_rate", "%"), ("pps", "packets/s")]
    rate = test.metric("line_rate", "%")
    assert (rate.unit, rate.direction) == ("%", Direction.HIGHER)  # % alone is lower
    pps = test.metric("pps", "packets/s")
    assert (pps.unit, pps.direction, pps.summary) == ("packets/s", Direction.HIGHER, "median")


# (what follows the minimal test, the key named, words of the message, words of the hint)
MISTAKES = {
    "an empty sweep": (
        UDP.replace("[64, 512, 1500]", "[]"),
        "test[1].sweep",
        ["size is an empty list: give it a value at least, or remove it"],
        ["size = [64, 512, 1500]"],
    ),
    "a value twice": (
        UDP.replace("[64, 512, 1500]", '[64, 512, "64"]'),
        "test[1].sweep",
        ["size[2] is 64 again (size[0])", "same name"],
        ["sweep"],
    ),
    "a parameter that is no list": (
        UDP.replace("[64, 512, 1500]", "64"),
        "test[1].sweep",
        ["size is not a list", "size = [64]"],
        [],
    ),
    "a boolean value": (
        UDP.replace("[1, 10]", "[true]"),
        "test[1].sweep",
        ["streams[0] is a boolean: a value is an integer, a float or a word"],
        [],
    ),
    "a word a shell would read": (
        UDP.replace("[1, 10]", '["1; rm -rf ~"]'),
        "test[1].sweep",
        ["streams[0] is '1; rm -rf ~'", "letters, digits and _ . : + -"],
        [],
    ),
    "a parameter's name": (
        UDP.replace("streams = [1, 10]", "Streams = [1, 10]"),
        "test[1].sweep",
        ["parameter 'Streams'", "lower-case"],
        [],
    ),
    "too many combinations": (
        UDP.replace("[64, 512, 1500]", str(list(range(101)))).replace(
            "[1, 10]", str(list(range(11)))
        ),
        "test[1].sweep",
        ["1111 combinations", "1000 tests at most"],
        [],
    ),
    "a sweep that is no table": (
        UDP.replace("[test.sweep]\nsize = [64, 512, 1500]\nstreams = [1, 10]\n", "sweep = 3\n"),
        "test[1].sweep",
        ["expected a table of lists (size = [64, 1500]), got an integer"],
        [],
    ),
    "a placeholder of no parameter": (
        UDP.replace("{sweep.streams}", "{sweep.stream}"),
        "test[1].command",
        ["{sweep.stream}: the test's sweep has no parameter 'stream'"],
        ["its parameters: size, streams"],
    ),
    "a sweep placeholder without a sweep": (
        MINIMAL.replace("./bench", "./bench {sweep.size}"),
        "test[0].command",
        ["no parameter 'size'"],
        ["add [test.sweep] size = [...]"],
    ),
    "a group named like a test": (
        UDP.replace('group = "net"', 'group = "latency"'),
        "test[1].group",
        ["group 'latency' is also the name of test[0]"],
        ["another name"],
    ),
    "a description of two lines": (
        UDP.replace('"UDP throughput through the DUT"', '"UDP\\nthroughput"'),
        "test[1].description",
        ["one line of printable text"],
        [],
    ),
    "an expression Python would run": (
        UDP + '[[test.derived]]\nname = "x"\nexpression = "__import__(\'os\')"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["cannot read the expression", "unexpected '(' at character 11"],
        ["numbers, value names, sweep.<parameter>"],
    ),
    "an expression cut short": (
        UDP + '[[test.derived]]\nname = "x"\nexpression = "receiver / (8 *"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["ends too early"],
        [],
    ),
    "an unclosed parenthesis": (
        UDP + '[[test.derived]]\nname = "x"\nexpression = "(receiver / 8"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["the ( at character 1 is never closed"],
        [],
    ),
    "an unknown sweep parameter in an expression": (
        UDP + '[[test.derived]]\nname = "pps"\nexpression = "rx / sweep.bytes"\nunit = "pps"\n',
        "test[1].derived[0].expression",
        ["sweep.bytes: the test's sweep has no parameter 'bytes'"],
        ["its parameters: size, streams"],
    ),
    "a word parameter in an expression": (
        UDP.replace("[1, 10]", '["one", "ten"]')
        + '[[test.derived]]\nname = "x"\nexpression = "rx * sweep.streams"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["sweep.streams is not a number everywhere ('one')"],
        ["numeric parameter"],
    ),
    "a derived metric twice": (
        UDP
        + '[[test.derived]]\nname = "x"\nexpression = "rx"\nunit = "s"\n'
        + '[[test.derived]]\nname = "x"\nexpression = "tx"\nunit = "s"\n',
        "test[1].derived[1].name",
        ["'x' is derived twice (derived[0] too)"],
        ["its own name"],
    ),
    "a derived metric read before it is derived": (
        UDP
        + '[[test.derived]]\nname = "a"\nexpression = "b * 2"\nunit = "s"\n'
        + '[[test.derived]]\nname = "b"\nexpression = "rx"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["b is derived after a"],
        ["declare [[test.derived]] b before a"],
    ),
    "a derived metric that reads itself": (
        UDP + '[[test.derived]]\nname = "a"\nexpression = "a + 1"\nunit = "s"\n',
        "test[1].derived[0].expression",
        ["a reads itself"],
        [],
    ),
    "a derived metric named like an instrument's": (
        UDP
        + '[[test.instrument]]\nkind = "rusage"\n'
        + '[[test.derived]]\nname = "rusage.max_rss"\nexpression = "rx"\nunit = "KiB"\n',
        "test[1].derived[0].name",
        ["'rusage.max_rss' is a metric of the test's instrument"],
        ["another name"],
    ),
    "a unit set twice": (
        UDP
        + '[[test.derived]]\nname = "pps"\nexpression = "rx / 8"\nunit = "packets/s"\n'
        + '[test.metrics.pps]\nunit = "pps"\n',
        "test[1].metrics.pps.unit",
        ["pps here, packets/s in test[1].derived[0]"],
        ["set the unit of pps once, in test[1].derived[0]"],
    ),
    "a derived metric without a unit": (
        UDP + '[[test.derived]]\nname = "pps"\nexpression = "rx / 8"\n',
        "test[1].derived[0].unit",
        ["missing required key 'unit'"],
        [],
    ),
}


@pytest.mark.parametrize("case", MISTAKES)
def test_a_mistake_names_the_file_the_key_and_the_remedy(
    write_config: WriteConfig, case: str
) -> None:
    extra, key, said, hinted = MISTAKES[case]
    text = extra if case == "a sweep placeholder without a sweep" else MINIMAL + extra
    path = write_config(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    error = caught.value
    message = str(error)
    print(f"{case}: {message} (hint: {error.hint})")
    assert message.startswith(f"{path}: {key}: "), message
    for words in said:
        assert words in message, message
    for words in hinted:
        assert words in (error.hint or ""), error.hint
