"""Conductor configurations read as they are: the original and the 2025 names, key
and value prefixes, and a clear error for every mistake (never a traceback)."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwalk.config.conduct import DEFAULT_TIMEOUT, read_master
from perfwalk.errors import ConfigError

NETPERF_SOURCE = """\
[Master]
player: 192.168.5.81
conductor: 192.168.5.1
cmdport: 6970
resultsport: 6971

[Startup]
step1:kldload if_ix
step2:ifconfig ix0 172.16.1.2/24

[Run]
timeout30:pkt-gen -i ix0 -f tx -l 64
timeout31:pkt-gen -i ix0 -f tx -l 128
spawn1:pmcstat -S instruction-retired -O /tmp/pmc.out

[Collect]
step1:netstat -s -p tcp
step2:sysctl dev.cxl.0 > $TMPDIR/after.cxl0

[Reset]
step1:kldunload if_ix
"""


#: A master file with one player, p.cfg.
ONE = "[Test]\ntrials: 1\n[Clients]\na: p.cfg\n"


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path / next(iter(files))


def test_a_netperf_style_configuration_reads_unchanged(tmp_path: Path) -> None:
    master = _write(
        tmp_path,
        {
            "conductor.cfg": "[Test]\ntrials: 5\n\n[Clients]\nclient1: source.cfg\n",
            "source.cfg": NETPERF_SOURCE,
        },
    )
    config = read_master(master)
    assert config.trials == 5
    (player,) = config.players
    assert (player.name, player.address, player.cmdport, player.resultsport) == (
        "client1",
        "192.168.5.81",
        6970,
        6971,
    )
    assert [s.command for s in player.steps("Startup")] == [
        "kldload if_ix",
        "ifconfig ix0 172.16.1.2/24",
    ]
    run = player.steps("Run")
    assert [(s.key, s.timeout, s.spawn) for s in run] == [
        ("timeout30", 30.0, False),
        ("timeout31", 31.0, False),
        ("spawn1", DEFAULT_TIMEOUT, True),
    ]
    assert player.steps("Collect")[1].command == "sysctl dev.cxl.0 > $TMPDIR/after.cxl0"
    assert "### " in config.text
    assert "pkt-gen" in config.text


def test_the_2025_names_value_prefixes_and_inline_comments(tmp_path: Path) -> None:
    master = _write(
        tmp_path,
        {
            "master.cfg": "[Test]\ntrials = 2\nformat = json\n[Workers]\nweb: web.cfg\n",
            "web.cfg": (
                "[Coordinator]\nplayer = 10.0.1.10  # Web server IP\nconductor = 10.0.1.100\n"
                "[Run]\nstep1 = spawn:nginx -g 'daemon off;'\n"
                "step2 = timeout120:ab -n 100 http://10.0.1.10/ # not a comment here\n"
                "step3 = date +%s\n"
            ),
        },
    )
    config = read_master(master)
    (player,) = config.players
    assert player.address == "10.0.1.10"
    steps = player.steps("Run")
    assert (steps[0].spawn, steps[0].command) == (True, "nginx -g 'daemon off;'")
    assert (steps[1].timeout, steps[1].command) == (
        120.0,
        "ab -n 100 http://10.0.1.10/ # not a comment here",
    )
    assert steps[2].command == "date +%s"  # no interpolation
    assert config.format == "json"


@pytest.mark.parametrize(
    ("files", "said"),
    [
        (
            {"m.cfg": ONE, "p.cfg": "[Master]\nplayer: h\n[Run]\ntimeout120 = a\ntimeout120 = b\n"},
            "p.cfg: line 5: duplicate key 'timeout120' in [Run]",
        ),
        ({"m.cfg": "[Test]\ntrials: 1\n[Clients]\na: p.cfg\n[Bogus]\n"}, "unknown section [Bogus]"),
        (
            {"m.cfg": ONE, "p.cfg": "[Master]\nplayer: h\n[Rnu]\n"},
            "unknown section [Rnu]",
        ),
        ({"m.cfg": "[Test]\ntrials: many\n[Clients]\na: p.cfg\n"}, "expected a whole number"),
        ({"m.cfg": "[Test]\ntrials: 0\n[Clients]\na: p.cfg\n"}, "at least 1"),
        ({"m.cfg": "[Test]\ntrials: 1\n"}, "no players"),
        ({"m.cfg": "[Test]\ntrials: 1\n[Clients]\na: missing.cfg\n"}, "no such file 'missing.cfg'"),
        ({"m.cfg": "trials: 1\n"}, "a key before any [Section]"),
        ({"m.cfg": "[Clients]\na: p.cfg\n"}, "no [Test] section"),
        (
            {"m.cfg": ONE, "p.cfg": "[Run]\nstep1: x\n"},
            "no [Master] section",
        ),
        (
            {"m.cfg": ONE, "p.cfg": "[Master]\nplayer: h\ncmdport: 70000\n"},
            "70000 is not a port",
        ),
        (
            {"m.cfg": ONE, "p.cfg": "[Master]\nplayer: h\n[Run]\ntimeout: x\n"},
            "a timeout key needs its seconds",
        ),
        (
            {"m.cfg": ONE, "p.cfg": "[Master]\nplayr: h\n"},
            "unknown key 'playr'",
        ),
    ],
)
def test_mistakes_are_config_errors_that_name_the_file(
    tmp_path: Path, files: dict[str, str], said: str
) -> None:
    master = _write(tmp_path, files)
    with pytest.raises(ConfigError) as info:
        read_master(master)
    assert said in str(info.value)
    assert ".cfg" in str(info.value)
    assert info.value.hint


def test_a_missing_master_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        read_master(tmp_path / "nothing.cfg")
