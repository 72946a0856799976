"""The declarations themselves: complete, self-consistent, and matched by the dataclasses."""

from __future__ import annotations

import dataclasses

import pytest

from perfwalk.config.load import _CLASSES
from perfwalk.config.model import TestConfig
from perfwalk.config.settings import (
    REQUIRED,
    SECTIONS,
    Form,
    Section,
    Setting,
    default_of,
    walk,
)

SETTINGS = list(walk())
IDS = [name for name, _section, _setting in SETTINGS]


def _sections(
    sections: tuple[Section, ...] = SECTIONS, prefix: str = ""
) -> list[tuple[str, Section]]:
    found = []
    for section in sections:
        path = prefix + section.key
        found.append((path, section))
        found += _sections(section.sections, path + ".")
    return found


@pytest.mark.parametrize(("name", "section", "setting"), SETTINGS, ids=IDS)
def test_every_setting_has_help_and_its_default_and_example_are_allowed(
    name: str, section: Section, setting: Setting
) -> None:
    assert setting.help, name
    if setting.default is None:
        assert setting.default_doc, f"{name}: say what applies when it is not set"
    for value in (setting.default, setting.example):
        if value is None or value is REQUIRED:
            continue
        assert setting.kind.check(value) is None, (name, value)
        converted = setting.kind.convert(value)
        assert [rule.problem(converted) for rule in setting.rules if rule.problem(converted)] == []


def test_keys_are_unique_within_a_section() -> None:
    for path, section in _sections():
        assert len(set(section.keys)) == len(section.keys), path


@pytest.mark.parametrize(("path", "section"), _sections(), ids=[p for p, _ in _sections()])
def test_each_dataclass_has_a_field_per_setting(path: str, section: Section) -> None:
    fields = {field.name for field in dataclasses.fields(_CLASSES[path])}
    declared = {s.attribute for s in section.settings} | {s.attribute for s in section.sections}
    # the file's [analysis], and the sweep a test was expanded from (not a key: made)
    extra = {"analysis", "family"} if _CLASSES[path] is TestConfig else set()
    assert fields == declared | extra


@pytest.mark.parametrize(("name", "section", "setting"), SETTINGS, ids=IDS)
def test_dataclass_defaults_are_the_declared_ones(
    name: str, section: Section, setting: Setting
) -> None:
    path = name.rsplit(".", 1)[0].replace(".<name>", "")
    field = {f.name: f for f in dataclasses.fields(_CLASSES[path])}[setting.attribute]
    if field.default_factory is not dataclasses.MISSING:
        default = field.default_factory()
    else:
        default = field.default
    if setting.required:
        assert default is dataclasses.MISSING, name
    elif default is not dataclasses.MISSING and setting.finish is None:
        assert default == default_of(name), name


def test_sections_of_the_file() -> None:
    assert [s.key for s in SECTIONS] == [
        "project",
        "store",
        "build",
        "run",
        "hosts",
        "install",
        "analysis",
        "test",
        "snapshot",
        "quirk",
        "release",
        "walk",
        "variant",
        "environment",
        "try",
        "drill",
        "validity",
        "watch",
        "retention",
        "regress",
        "report",
        "notify",
        "api",
    ]
    assert {path: s.form for path, s in _sections()}["test.metrics"] is Form.NAMED


def test_default_of_converts() -> None:
    assert default_of("build.steps") == ("make",)
    assert default_of("run.from") == ""
    with pytest.raises(KeyError):
        default_of("run.nothing")
