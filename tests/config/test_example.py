"""The `perfwalk init` template: it loads, it shows every setting, its test runs."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config import load_config
from perfwalk.config.example import example_config
from perfwalk.config.settings import walk
from perfwalk.model import Direction
from perfwalk.parsers import get_parser
from tests.fixtures.synthetic_repo import CommitSpec, make_repo


def _written(repo: Path) -> Path:
    path = repo / "perfwalk.toml"
    path.write_text(example_config(repo), encoding="utf-8")
    return path


def test_the_template_loads_as_written(tmp_path: Path) -> None:
    repo = tmp_path / "my project"
    repo.mkdir()
    config = load_config(_written(repo))
    assert config.project.name == "my project"
    assert config.project.repo == repo
    assert config.build.steps == ()
    assert [test.name for test in config.tests] == ["git-log"]
    assert config.quirks == ()


def test_the_template_shows_every_setting() -> None:
    text = example_config(Path("demo"))
    for name, _section, setting in walk():
        assert re.search(rf"^(# )?{setting.key} = ", text, re.MULTILINE), name


def test_the_commented_settings_load_once_uncommented(tmp_path: Path) -> None:
    keys = "|".join(sorted({setting.key for _name, _section, setting in walk()}))
    text = re.sub(
        rf"^# (\[\[quirk\]\]$|\[regress\]$|\[\[regress\.test\]\]$|\[hosts\.dut\]$|"
        rf"\[install\.dut\]$|\[\[test\.service\]\]$|\[test\.roles\.dut\]$|"
        rf"\[quirk\.test\.git-log\]$|\[\[walk\]\]$|\[\[variant\]\]$|\[\[variant\.modifier\]\]$|"
        rf"\[\[environment\]\]$|"
        rf"\[\[snapshot\]\]$|\[\[release\]\]$|\[\[test\.instrument\]\]$|\[\[test\.derived\]\]$|"
        rf"(?:{keys}) = )",
        r"\1",
        example_config(tmp_path),
        flags=re.M,
    )
    path = tmp_path / "perfwalk.toml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "patches").mkdir()
    (tmp_path / "patches" / "fix-build.diff").write_text("")
    (tmp_path / "patches" / "fast-path.diff").write_text("")
    config = load_config(path)
    assert len(config.quirks) == 1
    assert config.quirks[0].tests["git-log"].command.startswith("time -p git log")
    assert len(config.regress.tests) == 1
    assert [walk.name for walk in config.walks] == ["nightly"]
    assert [(r.name, r.at) for r in config.releases] == [("7.4", "v7.4")]
    [variant] = config.variants
    assert variant.patches == (tmp_path / "patches" / "fast-path.diff",)
    assert variant.modifiers[0].role == "dut"
    assert variant.own_build
    [environment] = config.environments
    assert environment.build_env == {"CC": "gcc-13"}
    assert config.hosts["dut"].roles == ("dut",)
    assert config.tests[0].services[0].role == "dut"
    assert [i.kind for i in config.tests[0].instruments] == ["rusage"]
    assert config.tests[0].metrics["real"].unit == "s"
    [derived] = config.tests[0].derived
    assert (derived.name, derived.unit) == ("line_rate", "%")
    assert config.tests[0].metrics["line_rate"].direction is Direction.HIGHER
    [snapshot] = config.snapshots
    assert (snapshot.name, snapshot.roles, snapshot.parser) == ("netstat", ("dut",), "counters")


def test_the_template_test_measures_any_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_repo(repo, [CommitSpec(datetime(2024, 1, 1, tzinfo=UTC), "first", {"a.txt": "a\n"})])
    test = load_config(_written(repo)).tests[0]
    done = subprocess.run(
        ["sh", "-c", test.command],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=test.timeout,
        check=True,
    )
    values = get_parser(test.parser, test.parser_options)(done.stdout + done.stderr)
    assert [value.name for value in values] == ["real", "user", "sys"]
    assert test.metric("real", values[0].unit).summary == "median"
