"""A metric's policy is looked up in one place (perfwalk.config.policy), with its
defaults declared once (perfwalk.policy): the configuration's defaults, the
summaries' and the lookup's are the same numbers."""

from __future__ import annotations

import inspect
from pathlib import Path

from perfwalk.analysis.summary import summarize
from perfwalk.config.load import load_config
from perfwalk.config.policy import metric_policy
from perfwalk.config.settings import setting
from perfwalk.model import Direction
from perfwalk.policy import (
    DEFAULT_OUTLIER,
    DEFAULT_SUMMARY,
    DEFAULT_UNSTABLE_RSD,
    SUMMARIES,
    MetricPolicy,
)

CONFIG = """\
[project]
repo = "."
[analysis]
unstable_rsd = 0.04
[[test]]
name = "net"
command = "true"
parser = "value"
[test.metrics.rate]
summary = "best"
outlier = 0.3
[test.metrics.noise]
ignore = true
"""


def test_the_defaults_are_declared_once() -> None:
    assert setting("analysis.unstable_rsd").default == DEFAULT_UNSTABLE_RSD
    assert setting("analysis.outlier").default == DEFAULT_OUTLIER
    assert setting("test.metrics.<name>.summary").default == DEFAULT_SUMMARY
    allowed = setting("test.metrics.<name>.summary").rules[0]
    assert [word for word in SUMMARIES if allowed.problem(word) is None] == list(SUMMARIES)
    defaults = inspect.signature(summarize).parameters
    assert defaults["policy"].default == DEFAULT_SUMMARY
    assert defaults["unstable_rsd"].default == DEFAULT_UNSTABLE_RSD
    assert defaults["outlier"].default == DEFAULT_OUTLIER


def test_the_lookup_falls_back_metric_then_analysis_then_defaults(tmp_path: Path) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG)
    config = load_config(path)
    higher = Direction.HIGHER
    assert metric_policy(config, "net", "rate", "bits/sec", higher) == MetricPolicy(
        "best", higher, 0.04, 0.3, ignore=False, configured=True
    )
    assert metric_policy(config, "net", "time", "s", Direction.LOWER) == MetricPolicy(
        DEFAULT_SUMMARY, Direction.LOWER, 0.04, DEFAULT_OUTLIER, configured=True
    )
    assert metric_policy(config, "net", "noise", "s", Direction.LOWER).ignore
    unnamed = metric_policy(config, "gone", "time", "s", Direction.LOWER)
    assert unnamed == MetricPolicy(DEFAULT_SUMMARY, Direction.LOWER, 0.04, DEFAULT_OUTLIER)
    assert metric_policy(None, "net", "rate", "bits/sec", higher) == MetricPolicy(direction=higher)


def test_detection_takes_the_median_of_a_test_no_configuration_names(tmp_path: Path) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG)
    config = load_config(path)
    assert metric_policy(config, "net", "rate", "x", Direction.HIGHER).detection_summary == "best"
    assert metric_policy(config, "net", "t", "s", Direction.LOWER).detection_summary == "mean"
    assert metric_policy(config, "gone", "t", "s", Direction.LOWER).detection_summary == "median"
    assert metric_policy(None, "net", "t", "s", Direction.LOWER).detection_summary == "median"
