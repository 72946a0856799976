"""Drill: narrow a detected change down to the one commit that caused it.

:mod:`perfwalk.drill.schedule` decides where to measure next and when to stop
(pure: no I/O, no clock, no randomness); :mod:`perfwalk.drill.noise` and
:mod:`perfwalk.drill.shift` are its statistics. The executor that builds and
measures the commits it asks for lives above, in the services layer.
"""

from perfwalk.drill.schedule import (
    Action,
    Budget,
    Done,
    DrillState,
    Levels,
    Measure,
    Placement,
    Settings,
    Side,
    Verdict,
    next_action,
)

__all__ = [
    "Action",
    "Budget",
    "Done",
    "DrillState",
    "Levels",
    "Measure",
    "Placement",
    "Settings",
    "Side",
    "Verdict",
    "next_action",
]
