"""``[validity]`` and a test's ``[test.validity]`` as the program reads them: the frame
patterns and thresholds of the warnings that a benchmark measures the wrong thing
(:mod:`perfwalk.analysis.validity`)."""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.config.settings import default_of


@dataclass(frozen=True)
class ValidityConfig:
    """``[validity]``: what counts as overhead in a profile, and when each warning is said."""

    overhead_share: float = default_of("validity.overhead_share")
    clock_frames: tuple[str, ...] = default_of("validity.clock_frames")
    syscall_frames: tuple[str, ...] = default_of("validity.syscall_frames")
    receiver_share: float = default_of("validity.receiver_share")
    flat_within: float = default_of("validity.flat_within")
    flat_checkouts: int = default_of("validity.flat_checkouts")
    flat_commits: int = default_of("validity.flat_commits")
    resolution_ticks: int = default_of("validity.resolution_ticks")
    time_floor: float = default_of("validity.time_floor")


@dataclass(frozen=True)
class TestValidity:
    """``[test.validity]``: the files of a test's hot path and its harness's functions."""

    __test__ = False  # not a pytest test class

    hot_paths: tuple[str, ...] = default_of("test.validity.hot_paths")
    harness_frames: tuple[str, ...] = default_of("test.validity.harness_frames")
