"""The options of an adaptive walk (``perfwalk run --adaptive --budget N``) and what
they cannot be given with."""

from __future__ import annotations

import argparse

from perfwalk.cli import options
from perfwalk.errors import UsageError

#: the options that choose a walk's checkouts otherwise, or take them from a series
_OTHERS = (
    ("step", "--step"),
    ("walk", "--walk"),
    ("extend", "--extend"),
    ("variants", "--variants"),
    ("resume", "--resume"),
    ("dry_run", "--dry-run"),  # its checkouts are chosen as it measures
)


def add_adaptive_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="choose the checkouts as the walk measures, where the series is most uncertain "
        "(levels that differ, steps suspected, long gaps), instead of a fixed step; "
        "needs --budget",
    )
    p.add_argument(
        "--budget",
        metavar="N",
        type=options.TOTAL,
        help="with --adaptive: the most checkouts (builds) the walk measures; it stops "
        "earlier when every gap is a single commit or flat within noise",
    )


def adaptive_budget(args: argparse.Namespace) -> int | None:
    """The budget of the adaptive walk ``args`` ask for (None: a walk by its step); a
    UsageError naming the option when they are not given together or with an option
    that chooses the checkouts otherwise."""
    if args.budget is not None and not args.adaptive:
        raise UsageError(
            "--budget is the budget of an adaptive walk",
            hint="add --adaptive, or leave out --budget",
        )
    if not args.adaptive:
        return None
    if args.budget is None:
        raise UsageError(
            "--adaptive needs --budget N, the most checkouts the walk builds and measures",
            hint="e.g. --adaptive --budget 40",
        )
    for name, flag in _OTHERS:
        if getattr(args, name):
            raise UsageError(
                f"--adaptive cannot be given with {flag}: an adaptive walk chooses its own "
                "checkouts",
                hint=f"leave out {flag} (an interrupted adaptive walk is resumed with "
                "`perfwalk run --resume` alone)",
            )
    return int(args.budget)
