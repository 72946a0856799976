"""The git layer: read a project's history, choose the checkouts of a walk, check them out.

* :mod:`~perfwalk.git.walk_steps` — ``--step`` values and ``--from``/``--to`` dates (pure);
* :mod:`~perfwalk.git.history` — which commits a walk visits (pure);
* :mod:`~perfwalk.git.repo` — :class:`Repo`, reading the repository with ``git``;
* :mod:`~perfwalk.git.worktree` — :class:`Worktrees`, where checkouts are built;
* :mod:`~perfwalk.git.worktree_lock` — the on-disk lock a walk holds on its worktrees;
* :mod:`~perfwalk.git.checkouts` — :func:`checkouts`, the three combined.
"""

from perfwalk.git.checkouts import checkouts
from perfwalk.git.history import HistoryEntry, Point, Timeline, head_at, select
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import Step, Unit, parse_date, parse_step
from perfwalk.git.worktree import Worktrees, apply_patch

__all__ = [
    "HistoryEntry",
    "Point",
    "Repo",
    "Step",
    "Timeline",
    "Unit",
    "Worktrees",
    "apply_patch",
    "checkouts",
    "head_at",
    "parse_date",
    "parse_step",
    "select",
]
