"""Which tests of a configuration a command works on, and which test a metric names.

``--tests net,fs`` names groups (``[[test]] group``), tests, and sweeps: a sweep's
name is all its members, ``udp[size=64]`` those whose parameter ``size`` is 64
(``udp[size=64,streams=1]``, a member's whole name, is that member). The names are
split at the commas outside brackets.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from pathlib import Path

from perfwalk.config.load import load_config
from perfwalk.config.model import Config, TestConfig
from perfwalk.config.sweeps import shown
from perfwalk.errors import UsageError


def split_names(text: str) -> tuple[str, ...]:
    """``net,udp[size=64,streams=1]`` → ``("net", "udp[size=64,streams=1]")``: the
    names between the commas outside brackets, blanks around them dropped."""
    found: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "," and depth == 0:
            found.append("".join(current).strip())
            current = []
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        current.append(char)
    found.append("".join(current).strip())
    return tuple(name for name in found if name)


def chosen_tests(config: Config, names: Sequence[str], option: str = "--tests") -> frozenset[str]:
    """The names of the tests of ``config`` that ``names`` name (groups, tests, sweeps
    and some of a sweep's members); a UsageError for a name that names none."""
    if not names:
        raise UsageError(
            f"{option}: no test named",
            hint=f"name groups or tests, e.g. {option} {_example(config)}",
        )
    found: dict[str, None] = {}
    for name in names:
        matched = _matching(config.tests, name)
        if not matched:
            raise UsageError(
                f"{option} {name}: no group, test or sweep of that name in {config.path}",
                hint=_known(config.tests, option),
            )
        found.update(dict.fromkeys(matched))
    return frozenset(found)


def select_tests(
    config: Config, names: Sequence[str], option: str = "--tests", *, same_hash: bool = False
) -> Config:
    """``config`` with only the tests ``names`` name: its other tests are not run,
    shown or published (:meth:`Config.keeps`). Its hash tells the selection apart (a
    site published of some tests is rewritten whole when they change), but with
    ``same_hash``: a walk of some tests is a walk of the file, which its series
    records with the tests it measures."""
    chosen = chosen_tests(config, names, option)
    said = "\0".join(sorted(chosen))
    own = hashlib.sha256(f"{config.hash}\0tests\0{said}".encode()).hexdigest()
    return dataclasses.replace(
        config,
        tests=tuple(test for test in config.tests if test.name in chosen),
        only=chosen,
        hash=config.hash if same_hash else own,
    )


def load_selected(path: Path, names: Sequence[str] | None, *, same_hash: bool = False) -> Config:
    """The configuration at ``path`` with the tests ``names`` names (``--tests``; None:
    every test), its hash the file's with ``same_hash`` (:func:`select_tests`)."""
    config = load_config(path)
    return config if names is None else select_tests(config, names, same_hash=same_hash)


def _matching(tests: Sequence[TestConfig], name: str) -> list[str]:
    exact = [t.name for t in tests if name in (t.name, t.group, t.family)]
    if exact:
        return exact
    family, bracket, rest = name.partition("[")
    if not bracket or not rest.endswith("]"):
        return []
    wanted = dict(pair.partition("=")[::2] for pair in rest[:-1].split(","))
    return [
        t.name
        for t in tests
        if t.family == family
        and all(k in t.sweep and shown(t.sweep[k]) == v.strip() for k, v in wanted.items())
    ]


def _example(config: Config) -> str:
    groups = [t.group for t in config.tests if t.group]
    return ",".join(dict.fromkeys(groups or [t.family or t.name for t in config.tests][:2]))


def _known(tests: Sequence[TestConfig], option: str) -> str:
    groups = sorted({t.group for t in tests if t.group})
    names = list(dict.fromkeys(t.family or t.name for t in tests))
    said = f"its groups: {', '.join(groups)}; " if groups else "it has no group; "
    said += f"its tests: {', '.join(names)}"
    if any(t.family for t in tests):
        said += " (a sweep's members by the sweep's name, or some of them: name[parameter=value])"
    return said + f"; e.g. {option} {','.join((groups or names)[:2])}"


def named_metric(config: Config, metric: str, option: str) -> tuple[str, str]:
    """The test and the value that ``metric`` (``TEST.VALUE``, given as ``option``)
    names: a test of ``config`` (the longest whose name and a dot begin ``metric``:
    a test's name may hold dots) and a value of it (known once measured); else a
    UsageError that lists the tests."""
    names = [t.name for t in config.tests]
    heads = [n for n in names if metric.startswith(f"{n}.") and len(metric) > len(n) + 1]
    if not heads:
        raise UsageError(
            f"{option} {metric}: not TEST.VALUE of a test of {config.path}",
            hint=f"name one of its tests and a value of it, e.g. {names[0]}.VALUE; "
            f"its tests: {', '.join(names)}"
            if names
            else "the configuration has no test",
        )
    test = max(heads, key=len)
    return test, metric[len(test) + 1 :]
