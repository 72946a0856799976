"""The variants of a walk (``[[variant]]``, ``perfwalk run --variants``): which ones a
walk measures and in which series, how a variant changes a test (its runtime
modifiers, put in place in the startup phase and undone in the reset phase, which
always runs), and the seeded order in which the variants of a checkout take their
turns, repetition after repetition.

The plain checkout is the variant ``base``: the walk's own series. A ``[[variant]]``
named ``base`` says what the plain checkout is (e.g. a modifier every walk runs with).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from perfwalk.config.model import Config, VariantConfig
from perfwalk.config.settings import BASE_VARIANT
from perfwalk.errors import UsageError
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.phases.modifiers import runtime_modifiers
from perfwalk.orchestrate.phases.phases import TEST_PLACEHOLDERS
from perfwalk.orchestrate.steps.placeholders import substitute

_T = TypeVar("_T")


@dataclass(frozen=True)
class WalkVariant:
    """One variant a walk measures: its name, what it is (None: the plain checkout as
    it is) and the series its values go to."""

    name: str
    config: VariantConfig | None
    series_id: int

    @property
    def own_build(self) -> bool:
        """Whether it is built in a worktree of its own (its tree or build differ)."""
        return self.config is not None and self.config.own_build

    def slot(self, shared: str) -> str:
        """The worktree slot of its build: ``shared`` (the plain checkout's) unless it
        is built apart."""
        return f"{shared}-{self.name}" if self.own_build else shared


def base_variant(config: Config) -> VariantConfig | None:
    """What the plain checkout is: the ``[[variant]]`` named ``base``, if any."""
    return next((v for v in config.variants if v.name == BASE_VARIANT), None)


def chosen_variants(
    config: Config, names: Sequence[str], option: str = "--variants"
) -> tuple[VariantConfig, ...]:
    """The ``[[variant]]`` entries named by ``option`` (base left out: it is always
    measured), in the order given; a UsageError naming an unknown or repeated one."""
    known = {variant.name: variant for variant in config.variants}
    others = [name for name in known if name != BASE_VARIANT]
    chosen: list[VariantConfig] = []
    for name in names:
        if name == BASE_VARIANT:
            raise UsageError(
                f"{option}: base is the plain checkout, measured in every walk",
                hint="name only the other variants: " + (", ".join(others) or "none configured"),
            )
        if name not in known:
            listed = ", ".join(others) if others else "none: it has no [[variant]]"
            raise UsageError(
                f"{option}: no variant {name!r} in {config.path} (its variants: {listed})",
                hint=f'add [[variant]] name = "{name}" with its patches or modifiers to '
                f"{config.path}"
                if not others
                else f"name one of: {', '.join(others)}",
            )
        if any(found.name == name for found in chosen):
            raise UsageError(f"{option}: {name} is named twice", hint="name each variant once")
        chosen.append(known[name])
    return tuple(chosen)


def check_modifiers(variants: Sequence[VariantConfig], topology: Topology) -> None:
    """The placeholders of every modifier's commands name something: a ConfigError
    naming the key otherwise, before anything is stored."""
    known = dict.fromkeys((*TEST_PLACEHOLDERS, *topology.placeholders()), "")
    for variant in variants:
        for modifier in runtime_modifiers(variant):
            topology.member(modifier.config.role)  # a role no host plays: a ConfigError
            for phase in ("apply", "undo"):
                for text in getattr(modifier.config, phase):
                    substitute(text, known, key=f"{modifier.key}.{phase}")


def variant_order(variants: Sequence[_T], seed: int | None, index: int, number: int) -> list[_T]:
    """The variants of checkout ``index`` in the shuffled order of their repetition
    ``number``: the same for the same seed, checkout and repetition (a resume continues
    it), a new draw for each repetition, so that no variant runs all its repetitions
    before another."""
    shuffled = list(variants)
    random.Random(f"{seed}:{index}:{number}:variants").shuffle(shuffled)
    return shuffled


def variant_series_name(walk_name: str, variant: str) -> str:
    """The name of a variant's series: its walk's, with the variant."""
    return f"{walk_name} ({variant})"
