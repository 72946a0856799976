"""What every part of a walk shares (:class:`WalkSetup`): the series it measures, its
configuration, store, worktrees and hosts, the quirks it crosses, the action between
two repetitions, the marker of the processes it starts, and the hosts that hung in it
(:mod:`perfwalk.orchestrate.hosts.hangs`), and what each host does now
(:mod:`perfwalk.orchestrate.steps.live`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from perfwalk.config.model import Config
from perfwalk.git.worktree import Worktrees
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk
from perfwalk.orchestrate.checkout.variants import WalkVariant
from perfwalk.orchestrate.hosts.hangs import Hangs
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.steps.live import LiveBoard
from perfwalk.store import Store


@dataclass
class WalkSetup:
    """Series ``series_id`` measured on the hosts of ``topology`` (builds on its [run]
    host, in ``worktrees``), stored in ``store``."""

    series_id: int
    config: Config
    store: Store
    worktrees: Worktrees
    topology: Topology
    quirks: Sequence[PlannedQuirk]
    between: str  # keep, reboot, rebuild or a command
    marker: str = ""  # PERFWALK_WALK of every process it starts ("" for none)
    #: the variants measured besides the plain checkout, each in its own series
    variants: Sequence[WalkVariant] = ()
    #: the hosts that hung in this walk, and their power cycles
    hangs: Hangs = field(init=False)
    #: what each host does now, told to the store as it does it
    live: LiveBoard = field(init=False)

    def __post_init__(self) -> None:
        self.hangs = Hangs(self.topology)
        self.live = LiveBoard(self.store, self.series_id)
