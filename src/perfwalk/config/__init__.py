"""The configuration file: its settings declared as data, loaded into frozen dataclasses."""

from perfwalk.config.load import DEFAULT_CONFIG_NAME, load_config
from perfwalk.config.model import (
    AnalysisConfig,
    BuildConfig,
    Config,
    MetricConfig,
    ProjectConfig,
    QuirkConfig,
    ResolvedMetric,
    RunConfig,
    StoreConfig,
    TestConfig,
)

__all__ = [
    "DEFAULT_CONFIG_NAME",
    "AnalysisConfig",
    "BuildConfig",
    "Config",
    "MetricConfig",
    "ProjectConfig",
    "QuirkConfig",
    "ResolvedMetric",
    "RunConfig",
    "StoreConfig",
    "TestConfig",
    "load_config",
]
