"""``[drill]`` and ``[[environment]]`` as the program reads them: what `perfwalk drill`
does once it named a culprit (:mod:`perfwalk.composites.prove`), and the environments
`perfwalk drill-env` measures a change's commits in
(:mod:`perfwalk.composites.env_drill`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfwalk.config.env import Env
from perfwalk.config.settings import default_of


@dataclass(frozen=True)
class DrillConfig:
    """``[drill]``: whether a culprit is proved on today's tip, and how long a proof may
    measure."""

    prove: bool = default_of("drill.prove")
    prove_repetitions: int = default_of("drill.prove_repetitions")


@dataclass(frozen=True)
class EnvironmentConfig:
    """``[[environment]]``: an environment a commit can be measured in — a build
    environment or build steps of its own (a toolchain), an environment of the tests
    (a library path), a host of its own (another kernel, another machine) or a
    container image its builds and tests run in (run through ``engine``)."""

    name: str
    comment: str = default_of("environment.comment")
    build_env: Env = field(default_factory=Env)
    build_steps: tuple[str, ...] = default_of("environment.build_steps")
    run_env: Env = field(default_factory=Env)
    host: str = default_of("environment.host")
    image: str = default_of("environment.image")
    engine: tuple[str, ...] = default_of("environment.engine")
