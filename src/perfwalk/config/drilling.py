"""``[drill]`` as the program reads it: what `perfwalk drill` does once it named a
culprit (:mod:`perfwalk.composites.prove`)."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.config.settings import default_of


@dataclass(frozen=True)
class DrillConfig:
    """``[drill]``: whether a culprit is proved on today's tip, and how long a proof may
    measure."""

    prove: bool = default_of("drill.prove")
    prove_repetitions: int = default_of("drill.prove_repetitions")
