"""The layout of a build (``[build] layout``, ``[[variant]] layout``): how it places
code in memory, told to the build through its environment, and the seed of each
repetition's layout with ``layout = "random"``.

Every build and relink receives:

- ``PERFWALK_LAYOUT``: the mode, ``as-built``, ``sort``, ``align`` or ``random``;
- ``PERFWALK_LAYOUT_CFLAGS``: compiler flags of the mode (GCC and Clang):
  ``-ffunction-sections`` for ``sort`` and ``random`` (each function its own section,
  so that the linker can place it), ``-falign-functions=N`` for ``align``;
- ``PERFWALK_LAYOUT_LDFLAGS``: linker flags of the mode: ``-Wl,--sort-section=name``
  for ``sort`` (GNU ld, gold and lld: the functions in the order of their names);
- ``PERFWALK_LAYOUT_SEED`` with ``random``: the seed of the layout, which the build
  uses to shuffle its objects' link order (or, with lld, its sections:
  ``-Wl,--shuffle-sections=*=SEED``), and a kernel's relink command its own.

The seed of a repetition is drawn from the series, the commit, the variant and the
repetition's number: a different layout for each repetition of a checkout, the same
one again for the same repetition (a resumed walk rebuilds what it measured).
"""

from __future__ import annotations

import random
import re

from perfwalk.config.model import Config, VariantConfig
from perfwalk.config.settings import RANDOM_LAYOUT

LAYOUT_ENV = "PERFWALK_LAYOUT"
SEED_ENV = "PERFWALK_LAYOUT_SEED"
CFLAGS_ENV = "PERFWALK_LAYOUT_CFLAGS"
LDFLAGS_ENV = "PERFWALK_LAYOUT_LDFLAGS"

#: a line of a relink command's output that says the seed it used instead
_SAID_SEED = re.compile(rb"^PERFWALK_LAYOUT_SEED=(\d{1,18})\s*$", re.MULTILINE)


def layout_of(config: Config, variant: VariantConfig | None) -> str:
    """The layout of ``variant``'s build (None: the plain checkout's): its own, else
    ``[build] layout``."""
    if variant is not None and variant.layout:
        return variant.layout
    return config.build.layout


def layout_env(mode: str, align: int, seed: int | None) -> dict[str, str]:
    """The environment that tells a build its layout ``mode`` (``align``: the bytes of
    ``align``; ``seed``: the seed of ``random``)."""
    cflags = {
        "sort": "-ffunction-sections",
        "align": f"-falign-functions={align}",
        RANDOM_LAYOUT: "-ffunction-sections",
    }
    ldflags = {"sort": "-Wl,--sort-section=name"}
    env = {
        LAYOUT_ENV: mode,
        CFLAGS_ENV: cflags.get(mode, ""),
        LDFLAGS_ENV: ldflags.get(mode, ""),
    }
    if mode == RANDOM_LAYOUT and seed is not None:
        env[SEED_ENV] = str(seed)
    return env


def layout_seed(series_id: int, commit: str, variant: str, rep: int) -> int:
    """The seed of repetition ``rep``'s layout of ``commit`` as ``variant`` in series
    ``series_id``: 1 to 2**31 - 1."""
    return random.Random(f"{series_id}:{commit}:{variant}:{rep}:layout").randrange(1, 2**31)


def said_seed(output: bytes) -> int | None:
    """The seed a relink command said it used (its last ``PERFWALK_LAYOUT_SEED=N``
    line), if it said one."""
    found = _SAID_SEED.findall(output)
    return int(found[-1]) if found else None
