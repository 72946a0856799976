"""Loading perfwalk.toml: valid files, defaults, relative paths, the hash, metrics."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

from perfwalk.config import (
    AnalysisConfig,
    BuildConfig,
    MetricConfig,
    ProjectConfig,
    QuirkConfig,
    ReleaseConfig,
    ResolvedMetric,
    RunConfig,
    StoreConfig,
    TestConfig,
    load_config,
)
from perfwalk.errors import ConfigError
from perfwalk.model import Direction
from tests.config.conftest import MINIMAL, WriteConfig

FULL = """\
[project]
name = "netstack"
repo = "src"
branch = "main"
commit_url = "https://git.example.org/netstack/commit/{commit}"

[store]
url = "postgresql+psycopg://perfwalk@db.example.org/perfwalk"
log_limit = 4096
worktrees = "/var/tmp/wt"

[build]
host = "local"
steps = ["./configure", "make -j2"]
timeout = 900
env = { CFLAGS = "-O2" }

[run]
from = "2024-01-01"
to = "v2.0"
step = "commit/10"
repetitions = 3
between = "sync; echo 3 > /proc/sys/vm/drop_caches"
host = "dut"

[analysis]
unstable_rsd = 0.05
outlier = 0.2

[[test]]
name = "tcp.throughput"
command = "iperf3 -c sink -J"
parser = "iperf3"
timeout = 120.5
env = { LC_ALL = "C" }

[test.metrics.sender]
unit = "bit/s"
direction = "higher"
summary = "best"
unstable_rsd = 0.01
outlier = 0.3
ignore = true

[[test]]
name = "latency"
command = "./bench"
parser = "regex"
parser_options = { pattern = 'lat (?P<value>\\d+)', name = "lat", unit = "us" }

[[quirk]]
at = "2024-03-01"
until = "v1.5"
comment = "the build needs the fixed linker script"
commands = ["make -C tools install"]
patch = "patches/ld.diff"

[[quirk]]
at = "abc1234"
comment = "new compiler"
"""


@pytest.fixture
def full(write_config: WriteConfig) -> Path:
    path = write_config(FULL)
    (path.parent / "src").mkdir()
    (path.parent / "patches").mkdir()
    (path.parent / "patches" / "ld.diff").write_text("--- a\n+++ b\n")
    return path


def test_full_config_loads_every_setting(full: Path) -> None:
    config = load_config(full)
    here = full.parent
    assert config.path == full
    assert config.text == full.read_text()
    assert config.project == ProjectConfig(
        name="netstack",
        repo=here / "src",
        branch="main",
        commit_url="https://git.example.org/netstack/commit/{commit}",
    )
    assert config.store == StoreConfig(
        url="postgresql+psycopg://perfwalk@db.example.org/perfwalk",
        worktrees=Path("/var/tmp/wt"),
        log_limit=4096,
    )
    assert config.build == BuildConfig(
        host="local",
        steps=("./configure", "make -j2"),
        timeout=900.0,
        env={"CFLAGS": "-O2"},
    )
    assert config.run == RunConfig(
        from_="2024-01-01",
        to="v2.0",
        step="commit/10",
        repetitions=3,
        between="sync; echo 3 > /proc/sys/vm/drop_caches",
        host="dut",
    )
    assert config.analysis == AnalysisConfig(unstable_rsd=0.05, outlier=0.2)
    throughput, latency = config.tests
    assert throughput == TestConfig(
        name="tcp.throughput",
        command="iperf3 -c sink -J",
        parser="iperf3",
        timeout=120.5,
        env={"LC_ALL": "C"},
        metrics={
            "sender": MetricConfig(
                unit="bit/s",
                direction=Direction.HIGHER,
                summary="best",
                unstable_rsd=0.01,
                outlier=0.3,
                ignore=True,
            )
        },
        analysis=config.analysis,
    )
    assert latency.parser_options == {"pattern": r"lat (?P<value>\d+)", "name": "lat", "unit": "us"}
    assert config.quirks == (
        QuirkConfig(
            at="2024-03-01",
            until="v1.5",
            comment="the build needs the fixed linker script",
            commands=("make -C tools install",),
            patch=here / "patches" / "ld.diff",
        ),
        QuirkConfig(at="abc1234", comment="new compiler"),
    )
    assert config.project.commit_link("abc") == "https://git.example.org/netstack/commit/abc"


def test_loaded_values_are_immutable(full: Path) -> None:
    config = load_config(full)
    assert isinstance(config.build.steps, tuple)
    assert isinstance(config.build.env, Mapping)
    assert isinstance(config.tests[1].parser_options, MappingProxyType)
    assert isinstance(config.tests[0].metrics, MappingProxyType)
    with pytest.raises(TypeError):
        config.build.env["X"] = "y"  # type: ignore[index]


def test_defaults_apply_to_a_minimal_file(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL)
    config = load_config(path)
    here = path.parent
    assert config.project == ProjectConfig(name="demo", repo=here)
    assert config.project.commit_link("abc") is None
    assert config.store == StoreConfig(
        url=f"sqlite:///{here / 'perfwalk.db'}", worktrees=here / ".perfwalk" / "worktrees"
    )
    assert config.store.log_limit == 1048576
    assert config.build == BuildConfig(host="local", steps=("make",), timeout=1800.0, env={})
    assert config.run == RunConfig(
        from_="", to="HEAD", step="1day", repetitions=5, between="keep", host="local"
    )
    assert config.analysis == AnalysisConfig(unstable_rsd=0.025, outlier=0.10)
    assert config.tests == (
        TestConfig(name="latency", command="./bench", parser="value", timeout=600.0),
    )
    assert config.quirks == ()


def test_relative_paths_resolve_against_the_file_not_the_working_directory(
    write_config: WriteConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_config(
        MINIMAL
        + """
        [project]
        repo = "../checkout"
        [store]
        url = "sqlite:///results/perf.db"
        worktrees = "wt"
        [[quirk]]
        at = "2024-01-01"
        comment = "patched"
        patch = "patches/fix.diff"
        """
    )
    (tmp_path / "checkout").mkdir()
    (path.parent / "patches").mkdir()
    (path.parent / "patches" / "fix.diff").write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(Path(os.path.relpath(path, elsewhere)))
    assert config.path == path
    assert config.project.repo == tmp_path / "checkout"
    assert config.project.name == "checkout"
    assert config.store.url == f"sqlite:///{path.parent / 'results' / 'perf.db'}"
    assert config.store.worktrees == path.parent / "wt"
    assert config.quirks[0].patch == path.parent / "patches" / "fix.diff"


@pytest.mark.parametrize(
    "url", ["sqlite:////abs/perf.db", "sqlite://", "sqlite:///:memory:", "postgresql://h/db"]
)
def test_absolute_and_special_store_urls_are_kept(write_config: WriteConfig, url: str) -> None:
    config = load_config(write_config(MINIMAL + f'[store]\nurl = "{url}"\n'))
    assert config.store.url == url


def test_toml_dates_may_be_written_without_quotes(write_config: WriteConfig) -> None:
    path = write_config(
        MINIMAL
        + """
        [run]
        from = 2024-03-01
        to = 2024-04-01T12:30:00
        [[quirk]]
        at = 2024-03-15
        comment = "unquoted"
        """
    )
    config = load_config(path)
    assert (config.run.from_, config.run.to) == ("2024-03-01", "2024-04-01T12:30:00")
    assert config.quirks[0].at == "2024-03-15"


@pytest.mark.parametrize("value", ["2024-03-01", "2024-03-01T10:00", "2024-03-01 10:00:05Z"])
def test_dates_in_run_from(write_config: WriteConfig, value: str) -> None:
    config = load_config(write_config(MINIMAL + f'[run]\nfrom = "{value}"\n'))
    assert config.run.from_ == value


@pytest.mark.parametrize("step", ["1sec", "30min", "2days", "1week", "3month", "commit/5"])
def test_steps_the_walk_understands(write_config: WriteConfig, step: str) -> None:
    config = load_config(write_config(MINIMAL + f'[run]\nstep = "{step}"\n'))
    assert config.run.step == step


def test_releases_are_read_in_order_and_leave_the_hash_alone(write_config: WriteConfig) -> None:
    plain = load_config(write_config(MINIMAL))
    config = load_config(
        write_config(
            MINIMAL + '[[release]]\nname = "7.4"\nat = "2024-01-01"\ncomment = "LTS"\n'
            '[[release]]\nname = "7.5"\nat = "v7.5"\n'
        )
    )
    assert config.releases == (
        ReleaseConfig(name="7.4", at="2024-01-01", comment="LTS"),
        ReleaseConfig(name="7.5", at="v7.5"),
    )
    assert plain.releases == ()
    assert config.hash == plain.hash  # releases mark the pages, they measure nothing


def test_the_hash_is_of_the_settings_not_of_the_layout(write_config: WriteConfig) -> None:
    first = load_config(write_config(MINIMAL))
    second = load_config(
        write_config(
            "# a comment\n"
            + MINIMAL.replace("parser", "  parser")
            + '\n[run]\nstep = "1day"   # the default\n'
        )
    )
    third = load_config(write_config(MINIMAL + "[run]\nrepetitions = 6\n"))
    assert first.text != second.text
    assert first.hash == second.hash
    assert first.hash != third.hash
    assert len(first.hash) == 64
    assert first.hash != hashlib.sha256(first.text.encode()).hexdigest()


def test_metric_takes_what_is_configured(full: Path) -> None:
    test = load_config(full).tests[0]
    assert test.metric("sender", "bits/sec") == ResolvedMetric(
        name="sender",
        unit="bit/s",
        direction=Direction.HIGHER,
        summary="best",
        unstable_rsd=0.01,
        outlier=0.3,
        ignore=True,
    )


def test_metric_falls_back_to_the_unit_and_to_analysis(full: Path) -> None:
    test = load_config(full).tests[0]
    assert test.metric("retransmits", "retransmits") == ResolvedMetric(
        name="retransmits",
        unit="retransmits",
        direction=Direction.LOWER,
        summary="mean",
        unstable_rsd=0.05,
        outlier=0.2,
        ignore=False,
    )
    assert test.metric("receiver", "bits/sec").direction is Direction.HIGHER


def test_metric_with_some_settings_keeps_the_others_default(write_config: WriteConfig) -> None:
    path = write_config(MINIMAL + '[test.metrics.lat]\nunit = "ms"\noutlier = 0.5\n')
    metric = load_config(path).tests[0].metric("lat", "MiB/s")
    assert (metric.unit, metric.direction, metric.summary) == ("ms", Direction.LOWER, "mean")
    assert (metric.unstable_rsd, metric.outlier) == (0.025, 0.5)


def test_a_hand_made_test_config_has_the_declared_defaults() -> None:
    test = TestConfig(name="t", command="true", parser="value")
    assert (test.timeout, dict(test.env), dict(test.parser_options)) == (600.0, {}, {})
    assert test.metric("x", "ops/s").unstable_rsd == 0.025


def test_report_base_url_loses_its_trailing_slash_and_must_be_a_web_address(
    write_config: WriteConfig,
) -> None:
    def loaded(value: str) -> str:
        return load_config(
            write_config(f'[report]\nbase_url = "{value}"\n' + MINIMAL)
        ).report.base_url

    assert load_config(write_config(MINIMAL)).report.base_url == ""
    assert loaded("https://perf.example.org/demo/") == "https://perf.example.org/demo"
    with pytest.raises(ConfigError, match=r"report\.base_url"):
        loaded("javascript:alert(1)")


def test_the_site_s_time_zone_is_read_from_the_report_table(write_config: WriteConfig) -> None:
    assert load_config(write_config(MINIMAL)).report.time_zone == "UTC"
    path = write_config(MINIMAL + '[report]\ntime_zone = "Asia/Kolkata"\n')
    assert load_config(path).report.time_zone == "Asia/Kolkata"
