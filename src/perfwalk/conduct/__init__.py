"""Conductor test configurations, read as they are and played over ssh
(``perfwalk conduct MASTER.cfg``)."""

from perfwalk.conduct.config import DEFAULT_TIMEOUT, PHASES, MasterConfig, Player, Step, read_master
from perfwalk.conduct.trial import TrialOutcome, play_trial

__all__ = [
    "DEFAULT_TIMEOUT",
    "PHASES",
    "MasterConfig",
    "Player",
    "Step",
    "TrialOutcome",
    "play_trial",
    "read_master",
]
