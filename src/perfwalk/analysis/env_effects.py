"""Does a step follow the code or the environment? A change's two commits (``before``
and ``after``) measured in each of several environments, in the order they were in use
(oldest first), tell it apart: the commit's effect is ``after`` against ``before`` in the
same environment; an environment's effect is one environment against the one before it
at the same commit. Each effect is ministat's comparison (Student's t with the pooled
deviation, :func:`perfwalk.analysis.ministat.pooled_difference`) with its interval, and
counts only when it is proven and at least the metric's ``min_change``.

A drill makes several comparisons at once (four in two environments), and one effect
of noise that counts is a wrong answer (a commit that only changed a note "moves" the
metric: "both" where the environment alone did). So each is made at the confidence that
holds for all of them together (Bonferroni): 95 % for the drill is 98.75 % for each of
four; its interval is that wide.

- **environment**: an adjacent pair of environments moves the metric at both commits,
  the same way, while the commits do not (in the newer of the two): "the step follows
  gcc-12 → gcc-13, not any commit";
- **code**: the commits move it in every environment, the same way, and no
  environment does;
- **both**: each moves it;
- **neither**: nothing moves it beyond its min_change (the step is not reproduced by
  these commits in these environments);
- **undecided**: the rest (an effect proven at one commit only, or in some
  environments only: more repetitions, or an environment missing from the list).

Pure: numbers in, a record out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from perfwalk.analysis.ministat import DEFAULT_CONFIDENCE, Sample, pooled_difference
from perfwalk.analysis.sequential import each_confidence, student_t_quantile

Verdict = Literal["environment", "code", "both", "neither", "undecided"]
VERDICTS: tuple[Verdict, ...] = ("environment", "code", "both", "neither", "undecided")
#: the commits of a change, as the sides are named
COMMITS = ("before", "after")
#: the fewest values a side needs (ministat's floor)
LEAST = 3


@dataclass(frozen=True)
class Effect:
    """One comparison: ``to`` against ``of`` (at a commit, or in an environment), its
    relative change and interval at the confidence of each comparison, whether it counts
    (proven and at least the min_change)."""

    of: str
    to: str
    where: str  # the environment of a commit's effect, the commit of an environment's
    change: float  # relative: 0.10 = 10 % higher
    low: float
    high: float
    proven: bool
    counts: bool


@dataclass(frozen=True)
class EnvAnswer:
    """What moved the metric: the verdict, the commit's effect in each environment, each
    adjacent pair of environments' effect at each commit, the pair named (when the
    environment moved it), the share of the walk's step it accounts for, the confidence
    of all the effects together and that of each."""

    verdict: Verdict
    commits: tuple[Effect, ...]  # one per environment
    environments: tuple[Effect, ...]  # per adjacent pair, at before then at after
    moved_by: tuple[str, str] | None
    share: float | None
    confidence: float  # of all the effects together, in %
    each: float  # of each effect, in %

    def said(self, metric: str) -> str:
        """One line: the verdict in words."""
        if self.verdict == "environment" and self.moved_by is not None:
            pair = " → ".join(self.moved_by)
            at = [e for e in self.environments if (e.of, e.to) == self.moved_by]
            size = f" ({_percent(at[-1].change)} at the change's commit)" if at else ""
            share = "" if self.share is None else f", {self.share * 100:.0f} % of the step"
            return f"the step of {metric} follows {pair}{size}{share}, not any commit"
        if self.verdict == "code":
            sizes = ", ".join(f"{_percent(e.change)} in {e.where}" for e in self.commits)
            return f"the step of {metric} is the code's ({sizes}); no environment moves it"
        if self.verdict == "both":
            return f"the step of {metric} is the code's and the environment's: both move it"
        if self.verdict == "neither":
            return (
                f"neither the commits nor these environments move {metric} beyond its "
                "min_change: the step is not reproduced here"
            )
        return f"{metric}: undecided (an effect proven at one commit or environment only)"


def _percent(value: float) -> str:
    return f"{value * 100:+.1f} %"


def comparisons(environments: int) -> int:
    """How many effects a drill in ``environments`` compares: the commits in each, and
    each adjacent pair at both commits."""
    return environments + 2 * (environments - 1)


def _effect(
    names: tuple[str, str, str],
    base: Sequence[float],
    other: Sequence[float],
    floor: float,
    confidence: float,
) -> Effect:
    """``other`` against ``base`` at ``confidence`` (in %); ``names``: (of, to, where)."""
    of, to, where = names
    t = student_t_quantile(1 - (1 - confidence / 100) / 2, len(base) + len(other) - 2)
    found = pooled_difference(Sample(to, tuple(other)), Sample(of, tuple(base)), confidence, t)
    change = found.percent / 100
    half = found.percent_half_width / 100
    counts = found.proven and abs(change) >= floor
    return Effect(of, to, where, change, change - half, change + half, found.proven, counts)


def _one_way(effects: Sequence[Effect]) -> bool:
    """Every one of ``effects`` counts, all the same way."""
    return all(e.counts for e in effects) and len({e.change > 0 for e in effects}) == 1


def _distance(change: float, step: float | None) -> float:
    """How far an environment's ``change`` is from the walk's ``step`` on the log scale
    (a change the other way is farther than any the same way); without a step, the
    larger change is the nearer."""
    if step is None or step <= -1 or change <= -1:
        return -abs(change)
    apart = abs(math.log1p(change) - math.log1p(step))
    return apart if (change > 0) == (step > 0) else apart + 1e6


def env_effects(
    values: Mapping[tuple[str, str], Sequence[float]],
    environments: Sequence[str],
    *,
    min_change: float,
    step: float | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> EnvAnswer:
    """The verdict from ``values`` by (commit: ``before`` or ``after``, environment),
    ``environments`` oldest first (at least two, each side with :data:`LEAST` values),
    the metric's ``min_change``, the walk's relative ``step`` (for the share) and the
    ``confidence`` (in %, below 100) that holds for all the effects together."""
    if len(environments) < 2:
        raise ValueError("two environments or more are compared")
    if not 0 < confidence < 100:
        raise ValueError(f"confidence {confidence} % is not between 0 and 100")
    each = each_confidence(confidence, comparisons(len(environments)))
    commits = tuple(
        _effect(
            ("before", "after", e), values[("before", e)], values[("after", e)], min_change, each
        )
        for e in environments
    )
    by_pair = {
        (a, b): tuple(
            _effect((a, b, at), values[(at, a)], values[(at, b)], min_change, each)
            for at in COMMITS
        )
        for a, b in itertools.pairwise(environments)
    }
    envs = tuple(e for pair in by_pair.values() for e in pair)
    moving = {pair: effects[-1] for pair, effects in by_pair.items() if _one_way(effects)}
    code = _one_way(commits)
    if moving:
        moved_by = min(moving, key=lambda pair: _distance(moving[pair].change, step))
        after = moving[moved_by]
        newer = next(c for c in commits if c.where == moved_by[1])
        verdict: Verdict = "both" if code or newer.counts else "environment"
        share = None
        if step is not None and step > -1 and step != 0 and after.change > -1:
            share = math.log1p(after.change) / math.log1p(step)
        return EnvAnswer(verdict, commits, envs, moved_by, share, confidence, each)
    if code:
        return EnvAnswer("code", commits, envs, None, None, confidence, each)
    anything = any(e.counts for e in (*commits, *envs))
    verdict = "undecided" if anything else "neither"
    return EnvAnswer(verdict, commits, envs, None, None, confidence, each)
