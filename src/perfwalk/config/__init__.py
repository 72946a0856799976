"""The configuration files: perfwalk's own, its settings declared as data, loaded into
frozen dataclasses; and Conductor's master and player files (:mod:`perfwalk.config.conduct`)."""

from perfwalk.config.checker import DEFAULT_CONFIG_NAME
from perfwalk.config.load import load_config
from perfwalk.config.model import (
    AnalysisConfig,
    BuildConfig,
    Config,
    MetricConfig,
    ProjectConfig,
    QuirkConfig,
    ReleaseConfig,
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
    "ReleaseConfig",
    "ResolvedMetric",
    "RunConfig",
    "StoreConfig",
    "TestConfig",
    "load_config",
]
