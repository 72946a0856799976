"""Drill: narrow a detected change down to the one commit that caused it.

:mod:`perfwalk.drill.schedule` decides where to measure next and when to stop
(pure: no I/O, no clock, no randomness), from the ends (:mod:`~perfwalk.drill.ends`),
by a bisection (:mod:`~perfwalk.drill.bisection`, weighing each commit's
:mod:`~perfwalk.drill.evidence`) or, for noise-free values, a plain one
(:mod:`~perfwalk.drill.exact`); :mod:`perfwalk.drill.noise` and
:mod:`perfwalk.drill.shift` are its statistics. :mod:`perfwalk.drill.state` holds
what a drill knows, :mod:`perfwalk.drill.actions` what the scheduler answers. The
executor that builds and measures the commits it asks for lives above, in the
services layer.
"""

from perfwalk.drill.actions import Action, Done, Levels, Measure, Placement, Side, Verdict
from perfwalk.drill.schedule import next_action
from perfwalk.drill.state import Budget, DrillState, Settings

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
