"""Whether a benchmark measures what it is meant to: four signatures of one that
measures the wrong thing, each said with its evidence in words a developer acts on.
Pure: plain numbers, stacks and file names in, :class:`ValidityWarning` records out.

- **overhead** (:func:`overhead`): most of a test's profiled samples are in the clock
  (``clock_gettime``, the vDSO: a frame anywhere in the stack), in entering or leaving
  the kernel (``entry_SYSCALL_64``: the stack's leaf only, the work of a system call
  being the benchmark's) or in its harness's own functions (anywhere in the stack). A
  sample is counted once, by its innermost frame that matches.
- **drops** (:func:`drops`): its ``receiver`` is far below its ``sender`` (iperf3,
  udpbench): it measures what is dropped, not throughput.
- **flat** (:func:`flat`): a metric stays within a narrow band over a long stretch of
  checkouts while many commits changed the files of its hot path.
- **too short** (:func:`too_short`): a time metric whose values are a few steps of its
  timer's resolution (multiples of one step, as the values show it; or 0), or whose
  median is below a floor where the clock reads and cold caches are most of what is timed.
"""

from __future__ import annotations

import fnmatch
import itertools
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from perfwalk.quantities import format_share, format_value, many

#: the seconds of a time unit as parsers spell it
SECONDS_OF = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("ms", "msec", "msecs"), 1e-3),
    **dict.fromkeys(("us", "usec", "usecs", "µs", "μs"), 1e-6),
    **dict.fromkeys(("ns", "nsec", "nsecs"), 1e-9),
}
#: the frames said as evidence, per kind of overhead
SHOWN_FRAMES = 3
#: the commits named as evidence of a flat stretch
SHOWN_COMMITS = 5
#: the share of a profile's samples a file must hold (its frames' samples, anywhere in
#: the stack) to be on the hot path
HOT_FILE_SHARE = 0.05
#: a frame that names its file: ``function (path/file.py:12)`` (py-spy and others)
_FILE_FRAME = re.compile(r"\((?P<file>[^():]+):\d+\)\s*$")


@dataclass(frozen=True)
class ValidityWarning:
    """That ``test`` (its ``metric``; "" for its profile) measures the wrong thing:
    ``kind`` (overhead, drops, flat, too-short), ``said`` in one sentence with the
    figures, ``evidence`` the lines behind it (frames and their shares, commits: untrusted
    text, escaped where shown), ``remedy`` what to do about it."""

    test: str
    metric: str
    kind: str
    said: str
    evidence: tuple[str, ...] = ()
    remedy: str = ""

    @property
    def subject(self) -> str:
        """``test.metric``, or the test alone for its profile."""
        return f"{self.test}.{self.metric}" if self.metric else self.test

    def lines(self) -> list[str]:
        """The warning as ``perfwalk show`` says it: its subject and sentence, then
        the evidence and the remedy indented."""
        return [
            f"{self.subject}: {self.said}",
            *(f"    {line}" for line in self.evidence),
            *([f"    → {self.remedy}"] if self.remedy else []),
        ]


@dataclass(frozen=True)
class FramePatterns:
    """What counts as overhead in a profile (globs over its frames)."""

    clock: tuple[str, ...] = ()
    syscall: tuple[str, ...] = ()  # at the leaf only
    harness: tuple[str, ...] = ()


#: the kinds of overhead, as a sentence names them
_OVERHEAD_WORDS = {
    "clock": "reading the clock",
    "syscall": "entering and leaving the kernel",
    "harness": "the harness's own functions",
}


def _matches(frame: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(frame, pattern) for pattern in patterns)


def overhead_of(stack: str, patterns: FramePatterns) -> tuple[str, str] | None:
    """(kind, frame) of the innermost frame of ``stack`` that is overhead, or None."""
    frames = stack.split(";")
    if _matches(frames[-1], patterns.syscall):
        return "syscall", frames[-1]
    for frame in reversed(frames):
        if _matches(frame, patterns.clock):
            return "clock", frame
        if _matches(frame, patterns.harness):
            return "harness", frame
    return None


def overhead(
    test: str,
    stacks: Mapping[str, int],
    patterns: FramePatterns,
    *,
    threshold: float,
    profiles: int = 1,
) -> ValidityWarning | None:
    """The warning that more than ``threshold`` of ``stacks`` (a test's profiles merged,
    ``profiles`` of them) is overhead; None when less, or without samples."""
    total = sum(stacks.values())
    if total <= 0:
        return None
    kinds: Counter[str] = Counter()
    frames: dict[str, Counter[str]] = {kind: Counter() for kind in _OVERHEAD_WORDS}
    for stack, count in stacks.items():
        found = overhead_of(stack, patterns)
        if found is not None:
            kinds[found[0]] += count
            frames[found[0]][found[1]] += count
    spent = sum(kinds.values())
    if spent / total <= threshold:
        return None
    parts = [
        f"{format_share(kinds[kind] / total)} {_OVERHEAD_WORDS[kind]}"
        for kind in _OVERHEAD_WORDS
        if kinds[kind]
    ]
    evidence = tuple(
        f"{format_share(count / total)} in {frame} ({_OVERHEAD_WORDS[kind]})"
        for kind in _OVERHEAD_WORDS
        for frame, count in frames[kind].most_common(SHOWN_FRAMES)
    )
    return ValidityWarning(
        test=test,
        metric="",
        kind="overhead",
        said=(
            f"{format_share(spent / total)} of its {many(total, 'profiled sample')} "
            f"({many(profiles, 'profile')}) are overhead, not the code under test: "
            + ", ".join(parts)
        ),
        evidence=evidence,
        remedy=(
            "time more work between two clock reads (a loop of many iterations), or "
            "measure outside the process; its flame graph shows where the samples fall"
        ),
    )


def drops(
    test: str,
    sides: Sequence[tuple[float, float]],
    unit: str,
    *,
    threshold: float,
    metric: str = "receiver",
) -> ValidityWarning | None:
    """The warning that a test's receiver is far below its sender: ``sides`` are (sender,
    receiver) of each checkout (its summaries); said when the median of their ratios is
    below ``threshold``."""
    kept = [(s, r) for s, r in sides if math.isfinite(s) and math.isfinite(r) and s > 0]
    if not kept:
        return None
    ratios = [r / s for s, r in kept]
    share = statistics.median(ratios)
    if share >= threshold:
        return None
    below = sum(ratio < threshold for ratio in ratios)
    sender = statistics.median(s for s, _r in kept)
    receiver = statistics.median(r for _s, r in kept)
    return ValidityWarning(
        test=test,
        metric=metric,
        kind="drops",
        said=(
            f"its receiver gets {format_share(share)} of what its sender sends "
            f"({format_value(receiver, unit)} of {format_value(sender, unit)}, the medians "
            f"over {many(len(kept), 'checkout')}; below {format_share(threshold)} at "
            f"{below} of them): it measures what is dropped, not throughput"
        ),
        remedy=(
            "limit the sender's rate to what the receiver takes (iperf3 -b), or give the "
            "receiver a larger buffer (iperf3 -w), and watch the receiver's figure"
        ),
    )


@dataclass(frozen=True)
class StretchCommit:
    """A commit landed in a stretch of checkouts: its id, subject and the files it changed."""

    sha: str
    subject: str
    files: tuple[str, ...]


def flat_stretch(points: Sequence[float], within: float) -> tuple[int, int] | None:
    """The longest run of consecutive ``points`` (positions first … last, inclusive) that
    stay within ± ``within`` of each other's middle (the largest at most (1 + within) /
    (1 - within) times the smallest); None when a point is not a positive number."""
    if not points or any(not math.isfinite(p) or p <= 0 for p in points):
        return None
    bound = (1 + within) / (1 - within)
    best = (0, 0)
    low: list[int] = []  # positions of increasing points: the window's smallest first
    high: list[int] = []  # positions of decreasing points: the window's largest first
    first = 0
    for last, point in enumerate(points):
        while low and points[low[-1]] >= point:
            low.pop()
        low.append(last)
        while high and points[high[-1]] <= point:
            high.pop()
        high.append(last)
        while points[high[0]] > points[low[0]] * bound:
            first += 1
            if low[0] < first:
                low.pop(0)
            if high[0] < first:
                high.pop(0)
        if last - first > best[1] - best[0]:
            best = (first, last)
    return best


def hot_path_touched(path: str, hot_paths: Sequence[str], hot_files: Sequence[str]) -> bool:
    """Whether a commit's changed ``path`` is on the hot path: it matches one of
    ``hot_paths`` (globs, or directories that hold it), or ends one of ``hot_files`` (the
    files a profile's frames name, often absolute paths of a worktree)."""
    for pattern in hot_paths:
        if fnmatch.fnmatchcase(path, pattern) or path.startswith(pattern.rstrip("/") + "/"):
            return True
    return any(found == path or found.endswith("/" + path) for found in hot_files)


def hot_files_of(stacks: Mapping[str, int]) -> tuple[str, ...]:
    """The files a profile's frames name (``function (file:line)``) that hold at least
    :data:`HOT_FILE_SHARE` of its samples, the heaviest first."""
    total = sum(stacks.values())
    if total <= 0:
        return ()
    held: dict[str, int] = defaultdict(int)
    for stack, count in stacks.items():
        files = {m["file"] for frame in stack.split(";") if (m := _FILE_FRAME.search(frame))}
        for name in files:
            held[name] += count
    return tuple(
        name
        for name, count in sorted(held.items(), key=lambda item: -item[1])
        if count / total >= HOT_FILE_SHARE
    )


def flat(
    test: str,
    metric: str,
    points: Sequence[tuple[int, float]],
    commits: Mapping[int, Sequence[StretchCommit]],
    *,
    hot_paths: Sequence[str],
    hot_files: Sequence[str] = (),
    within: float,
    least_checkouts: int,
    least_commits: int,
) -> ValidityWarning | None:
    """The warning that a metric stayed flat while its hot path changed: ``points`` are
    (checkout index, summary) in checkout order, ``commits`` those landed since the
    previous checkout by checkout index; said when its longest flat stretch spans at least
    ``least_checkouts`` checkouts and ``least_commits`` of the commits landed within it
    changed the hot path."""
    found = flat_stretch([value for _idx, value in points], within)
    if found is None or found[1] - found[0] + 1 < least_checkouts:
        return None
    first, last = found
    inside = [value for _idx, value in points[first : last + 1]]
    touched: list[tuple[StretchCommit, tuple[str, ...]]] = []
    for idx, _value in points[first + 1 : last + 1]:
        for commit in commits.get(idx, ()):
            hot = tuple(f for f in commit.files if hot_path_touched(f, hot_paths, hot_files))
            if hot:
                touched.append((commit, hot))
    if len(touched) < least_commits:
        return None
    spread = (max(inside) - min(inside)) / (max(inside) + min(inside))  # ± of the middle
    files = Counter(f for _commit, hot in touched for f in hot)
    named = ", ".join(f for f, _n in files.most_common(SHOWN_FRAMES))
    more = f" and {len(files) - SHOWN_FRAMES} more" if len(files) > SHOWN_FRAMES else ""
    return ValidityWarning(
        test=test,
        metric=metric,
        kind="flat",
        said=(
            f"flat (±{format_share(spread)}) over {last - first + 1} "
            f"checkouts (#{points[first][0]} to #{points[last][0]}) while "
            f"{many(len(touched), 'commit')} changed {named}{more}"
        ),
        evidence=tuple(
            f"{commit.sha[:10]} {commit.subject}: {', '.join(hot)}"
            for commit, hot in touched[-SHOWN_COMMITS:]
        ),
        remedy=(
            "check that the benchmark runs the code it is meant to (its profile, its "
            "input): a hot path that changes this often and never moves it is not on it"
        ),
    )


def resolution_step(values: Sequence[float]) -> float | None:
    """The step every one of ``values`` is a multiple of, as they show it (the smallest
    gap between two distinct ones, when each is a whole number of it); None: no such step
    (fewer than two distinct values, or values finer than any step)."""
    distinct = sorted({v for v in values if math.isfinite(v) and v >= 0})
    if len(distinct) < 2:
        return None
    step = min(b - a for a, b in itertools.pairwise(distinct))
    if step <= 0:
        return None
    for value in distinct:
        ticks = value / step
        if abs(ticks - round(ticks)) > 1e-6 * max(1.0, ticks):
            return None
    return step


def too_short(
    test: str,
    metric: str,
    values: Sequence[float],
    unit: str,
    *,
    ticks: int,
    floor: float,
) -> ValidityWarning | None:
    """The warning that a time metric (``values`` per repetition, in ``unit``) finishes
    under its timer's resolution: a value of 0, a median under ``ticks`` steps of the
    resolution its values show, or a median below ``floor`` seconds (0: no floor)."""
    seconds = SECONDS_OF.get(unit.strip())
    kept = [v for v in values if math.isfinite(v)]
    if seconds is None or not kept:
        return None
    median = statistics.median(kept)
    zeros = sum(v == 0 for v in kept)
    step = resolution_step(kept)
    said, remedy = "", "time a loop of many iterations and report the time per iteration"
    if zeros:
        said = (
            f"{zeros} of its {many(len(kept), 'value')} are 0: the run finished under its "
            "timer's resolution"
        )
    elif step is not None and median < ticks * step:
        said = (
            f"its values are multiples of {format_value(step, unit)} (its timer's "
            f"resolution, as the values show it) and their median, "
            f"{format_value(median, unit)}, is {median / step:.0f} of those steps: it "
            "finishes under what its timer can tell apart"
        )
    elif median * seconds < floor:
        said = (
            f"the median of its {many(len(kept), 'value')} is {format_value(median, unit)}, "
            f"below the floor of {format_value(floor, 's')}: a region this short times "
            "mostly the clock's reads and cold caches"
        )
    if not said:
        return None
    return ValidityWarning(test=test, metric=metric, kind="too-short", said=said, remedy=remedy)
