"""What a checkout's commands are given: their environment (``PERFWALK_COMMIT``,
``PERFWALK_CHECKOUT``, ``PERFWALK_REPETITION``, the walk's marker) and the values of
their placeholders (``{commit}``, ``{worktree}``, ``{checkout}``, ``{repetition}``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from perfwalk.hosts.leftovers import WALK_MARKER
from perfwalk.model import Checkout


def checkout_env(
    extra: Mapping[str, str], checkout: Checkout, rep: int | None, marker: str
) -> dict[str, str]:
    """The environment of a command at ``checkout`` (repetition ``rep``, None for a
    build), in the walk marked ``marker`` ("" for none), with ``extra`` over it."""
    env = {"PERFWALK_COMMIT": checkout.commit, "PERFWALK_CHECKOUT": str(checkout.index)}
    if marker:
        env[WALK_MARKER] = marker
    if rep is not None:
        env["PERFWALK_REPETITION"] = str(rep)
    env.update(extra)
    return env


def checkout_values(checkout: Checkout, worktree: Path, rep: int | None) -> dict[str, str]:
    """The placeholder values of a command at ``checkout`` in ``worktree``."""
    values = {
        "commit": checkout.commit,
        "worktree": str(worktree),
        "checkout": str(checkout.index),
    }
    if rep is not None:
        values["repetition"] = str(rep)
    return values
