"""Read and validate ``perfwalk.toml`` into a :class:`~perfwalk.config.model.Config`.

The checks walk the declarations of :mod:`perfwalk.config.settings`
(:mod:`perfwalk.config.checker`): unknown keys (with a "did you mean"), missing
required keys, wrong types and disallowed values are found the same way for every
setting. Only what involves several settings at once (unique test and walk names,
parser options, ``until`` without a range, a quirk's test replacements) is checked
by name, in :mod:`perfwalk.config.cross_checks` (and a test's group, sweep and
derived metrics in :mod:`perfwalk.config.test_checks`, which then expands each
sweep into its tests). Every problem is a
:class:`~perfwalk.errors.ConfigError` naming the file, the dotted key
(``test[2].metrics.sender.direction``) and a remedy.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from perfwalk.config.checker import Checker
from perfwalk.config.cross_checks import (
    check_environments,
    check_quirks,
    check_releases,
    check_relink,
    check_run,
    check_snapshots,
    check_tests,
    check_topology,
    check_variants,
    check_walks,
)
from perfwalk.config.derived import DerivedConfig
from perfwalk.config.drilling import DrillConfig, EnvironmentConfig
from perfwalk.config.env import Env
from perfwalk.config.host_model import HostConfig, InstallConfig
from perfwalk.config.model import (
    AnalysisConfig,
    ApiConfig,
    BuildConfig,
    Config,
    InstrumentConfig,
    MetricConfig,
    ModifierConfig,
    NotifyConfig,
    ProfileConfig,
    ProjectConfig,
    QuirkConfig,
    QuirkTestConfig,
    RegressConfig,
    RegressTestConfig,
    ReleaseConfig,
    ReportConfig,
    RoleConfig,
    RunConfig,
    ServiceConfig,
    SnapshotConfig,
    StoreConfig,
    TestConfig,
    TryConfig,
    VariantConfig,
    WalkConfig,
    WatchConfig,
)
from perfwalk.config.retention import RetentionConfig
from perfwalk.config.settings import SECTIONS, Form, Section
from perfwalk.config.test_checks import check_test_parts, expand_tests
from perfwalk.config.validity import TestValidity, ValidityConfig
from perfwalk.secret_text import hide_password

#: The dataclass of each section, by its dotted path.
_CLASSES: Mapping[str, type] = {
    "project": ProjectConfig,
    "store": StoreConfig,
    "build": BuildConfig,
    "run": RunConfig,
    "analysis": AnalysisConfig,
    "test": TestConfig,
    "test.metrics": MetricConfig,
    "test.service": ServiceConfig,
    "test.roles": RoleConfig,
    "test.profile": ProfileConfig,
    "test.instrument": InstrumentConfig,
    "test.derived": DerivedConfig,
    "test.validity": TestValidity,
    "hosts": HostConfig,
    "install": InstallConfig,
    "snapshot": SnapshotConfig,
    "quirk": QuirkConfig,
    "quirk.test": QuirkTestConfig,
    "release": ReleaseConfig,
    "walk": WalkConfig,
    "variant": VariantConfig,
    "variant.modifier": ModifierConfig,
    "environment": EnvironmentConfig,
    "try": TryConfig,
    "drill": DrillConfig,
    "validity": ValidityConfig,
    "watch": WatchConfig,
    "retention": RetentionConfig,
    "regress": RegressConfig,
    "regress.test": RegressTestConfig,
    "report": ReportConfig,
    "notify": NotifyConfig,
    "api": ApiConfig,
}

_ANALYSIS = next(s for s in SECTIONS if s.key == "analysis")


def load_config(path: Path, text: str | None = None) -> Config:
    """Read, validate and resolve the configuration file at ``path`` (or ``text``, its
    content as read elsewhere: a job of team mode carries it to its worker).

    Relative paths in the file are resolved against the file's directory.
    Raises :class:`ConfigError` for anything wrong, naming the file and the key.
    """
    where = Path(os.path.abspath(path))
    checker = Checker(str(path), where.parent)
    if text is None:
        text = checker.read(path)
    values = checker.root(checker.parse(text))
    check_tests(checker, values["test"])
    check_test_parts(checker, values["test"])
    check_quirks(checker, values["quirk"], values["test"])
    check_walks(checker, values["walk"])
    check_releases(checker, values["release"])
    check_snapshots(checker, values["snapshot"], values["test"])
    check_variants(checker, values["variant"], values["walk"])
    check_environments(checker, values["environment"])
    check_relink(checker, values["build"], values["variant"])
    check_topology(checker, values)
    check_run(checker, values)
    expand_tests(values)  # after the checks, which name the tests as the file has them
    project = values["project"]
    project["name"] = project["name"] or project["repo"].name
    hashed = {**values, "store": {**values["store"], "url": hide_password(values["store"]["url"])}}
    del hashed["notify"]  # where changes are told is not how they are measured
    del hashed["api"]  # nor where they are served
    del hashed["release"]  # nor the releases marked on the pages
    del hashed["retention"]  # nor how long their logs are kept
    del hashed["validity"]  # nor what is said of what they measure
    hashed["test"] = [{k: v for k, v in t.items() if k != "validity"} for t in hashed["test"]]
    canonical = json.dumps(_plain(hashed), sort_keys=True, separators=(",", ":"))
    analysis = AnalysisConfig(**values["analysis"])
    extra = {"test": {"analysis": analysis}}
    sections = {
        s.attribute: _build(s, values[s.key], s.key, extra) for s in SECTIONS if s is not _ANALYSIS
    }
    return Config(
        path=where,
        text=text,
        hash=hashlib.sha256(canonical.encode()).hexdigest(),
        analysis=analysis,
        **sections,
    )


def _build(
    section: Section, value: Any, path: str, extra: Mapping[str, Mapping[str, object]]
) -> Any:
    """The dataclass(es) of ``section`` from its checked values."""
    if section.form is Form.ARRAY:
        return tuple(_make(section, item, path, extra) for item in value)
    if section.form is Form.NAMED:
        return MappingProxyType({n: _make(section, v, path, extra) for n, v in value.items()})
    return _make(section, value, path, extra)


def _make(
    section: Section, values: dict[str, Any], path: str, extra: Mapping[str, Mapping[str, object]]
) -> Any:
    fields = dict(values)
    for child in section.sections:
        child_path = f"{path}.{child.key}"
        fields[child.attribute] = _build(child, fields[child.attribute], child_path, extra)
    return _CLASSES[path](**fields, **extra.get(path, {}))


def _plain(value: object) -> object:
    """``value`` as JSON data: paths as strings, enums as their values, secrets masked."""
    if isinstance(value, Env):
        return value.masked()
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value
