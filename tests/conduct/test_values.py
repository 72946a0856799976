"""Conductor trials become numbers: the run-phase outputs of each trial parsed by a
parser (``conduct --parser``, ``conduct --parse ID``) and stored with the run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.errors import ConfigError, UsageError
from perfwalk.model import Value
from perfwalk.services.conduct import make_parser, parse_run
from perfwalk.store import Store
from perfwalk.store.conduct import ConductValue

from .runs import store_run


def test_each_trial_run_output_becomes_its_values(tmp_path: Path) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
        outputs = [{"source.timeout20": f"VALUE {v} Mbit/s rate\n"} for v in (940, 941, 939.5)]
        conduct_id = store_run(store, outputs)
        parsed = parse_run(store, conduct_id, make_parser("value", []))
        assert parsed.values == {
            1: (Value("rate", 940.0, "Mbit/s"),),
            2: (Value("rate", 941.0, "Mbit/s"),),
            3: (Value("rate", 939.5, "Mbit/s"),),
        }
        assert (parsed.missing, parsed.count) == ({}, 3)
        assert store.conduct.values(conduct_id) == [
            ConductValue(1, "rate", 940.0, "Mbit/s"),
            ConductValue(2, "rate", 941.0, "Mbit/s"),
            ConductValue(3, "rate", 939.5, "Mbit/s"),
        ]
        # parsed again (another parser): the values replace those stored before
        regex = make_parser("regex", ["pattern=VALUE (?P<value>[0-9.]+)", "name=n", "unit=x"])
        parse_run(store, conduct_id, regex)
        assert [(v.trial, v.name, v.value) for v in store.conduct.values(conduct_id)] == [
            (1, "n", 940.0),
            (2, "n", 941.0),
            (3, "n", 939.5),
        ]


def test_several_steps_give_qualified_names_and_a_trial_without_value_is_told(
    tmp_path: Path,
) -> None:
    with Store.open(f"sqlite:///{tmp_path / 'perfwalk.db'}") as store:
        outputs = [
            {"source.step1": "VALUE 1 s a\n", "dut.step2": "VALUE 5 s a\n"},
            {"source.step1": "garbage", "dut.step2": "nothing"},
        ]
        conduct_id = store_run(store, outputs)
        parsed = parse_run(store, conduct_id, make_parser("value", []))
    assert parsed.values == {1: (Value("source.step1.a", 1, "s"), Value("dut.step2.a", 5, "s"))}
    assert list(parsed.missing) == [2]
    assert "source step1" in parsed.missing[2]


def test_conduct_parse_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    with Store.open(url) as store:
        conduct_id = store_run(store, [{"source.step1": "VALUE 7 ms lat\n"}])
    assert main(["conduct", "--parse", str(conduct_id), "--parser", "value", "--store", url]) == 0
    out = capsys.readouterr().out
    assert ["1", "lat", "7.00", "ms"] in [line.split() for line in out.splitlines()]
    assert f"conductor run {conduct_id}: 1 values from 1 trials stored" in out
    with Store.open(url) as store:
        assert store.conduct.values(conduct_id) == [ConductValue(1, "lat", 7.0, "ms")]


def test_parser_mistakes_are_user_errors() -> None:
    with pytest.raises(ConfigError, match="unknown parser 'ipref3'"):
        make_parser("ipref3", [])
    with pytest.raises(UsageError, match="expected KEY=VALUE"):
        make_parser("regex", ["pattern"])
    assert main(["conduct", "--parse", "1"]) == 2  # no --parser


A = (941.2, 940.7, 942.0, 939.9, 941.5, 940.3)
B = (912.4, 915.0, 910.8, 913.7, 911.9)


def test_two_conductor_runs_compare_exactly_as_ministat_compares_their_numbers(
    tmp_path: Path,
) -> None:
    """Conductor run → values → compare → ministat's own table, as the 2015 paper's."""
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    with Store.open(url) as store:
        first = store_run(store, [{"source.timeout20": f"VALUE {v} Mbit/s rate\n"} for v in A])
        second = store_run(store, [{"source.timeout20": f"VALUE {v} Mbit/s rate\n"} for v in B])
    for conduct_id in (first, second):
        assert (
            main(["conduct", "--parse", str(conduct_id), "--parser", "value", "--store", url]) == 0
        )
    numbers = tmp_path / "numbers"  # the same numbers as files named as the operands
    numbers.mkdir()
    operands = [f"conduct:{first}", f"conduct:{second}"]
    for operand, values in zip(operands, (A, B), strict=True):
        (numbers / operand).write_text("".join(f"{v!r}\n" for v in values))
    ministat = subprocess.run(
        ["ministat", *operands], cwd=numbers, capture_output=True, text=True, check=False
    )
    ours = subprocess.run(
        [sys.executable, "-m", "perfwalk", "compare", "-q", *operands, "--store", url],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ministat.returncode == 0
    assert "Difference at 95.0% confidence" in ministat.stdout
    assert (ours.returncode, ours.stdout) == (0, ministat.stdout), ours.stderr


def test_compare_conduct_mistakes_are_user_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'perfwalk.db'}"
    with Store.open(url) as store:
        unparsed = store_run(
            store, [{"source.step1": f"VALUE 1 s a\nVALUE {n} s b\n"} for n in (2, 3, 5)]
        )
    assert main(["compare", f"conduct:{unparsed}", "--store", url]) == 2
    assert f"perfwalk conduct --parse {unparsed} --parser NAME" in capsys.readouterr().err
    main(["conduct", "--parse", str(unparsed), "--parser", "value", "--store", url])
    capsys.readouterr()
    assert main(["compare", f"conduct:{unparsed}", "--store", url]) == 2
    assert "pick one with --metric: a, b" in capsys.readouterr().err
    assert main(["compare", f"conduct:{unparsed}", "--metric", "b", "--store", url]) == 0
    assert main(["compare", "conduct:99", "--store", url]) == 2
    err = capsys.readouterr().err
    assert "no conductor run with id 99" in err
    assert f"hint: the conductor runs stored there: {unparsed}\n" in err
