"""Where to measure next while drilling a change down to one commit.

Pure: numbers in, one decision out; no I/O, no clock, no randomness. The executor
builds a :class:`DrillState`, calls :func:`next_action`, runs what it asks for (or
records that the commit does not build), and calls again until it gets a
:class:`Done`.

The search, in the order it happens:

1. **The ends.** The last checkout before the change (position 0) and the first
   after it (the last position) define the two levels and the noise, so each
   needs ``min_end_repetitions`` values first. They must differ
   convincingly (two-sided Mann–Whitney); the ends are looked at after every batch,
   so each look but the last (at ``max_end_repetitions`` values each) is held to
   ``ends_alpha / ends_looks`` and the last to ``ends_alpha``: ends alike are taken
   for different at most about ``ends_alpha`` of the time. As soon as they differ
   the bisection starts — further repetitions go to the commits between, not to
   the ends (the change is known only roughly in heavy noise: that is carried on as
   wider kernels, and the ends get more values only when the commits around the
   answer have more, step 5). Until they differ, more repetitions are asked for at
   the ends, up to ``max_end_repetitions`` each; ends that never differ give
   ``NO_CHANGE``.
2. **The noise.** The values at both ends (those after the change moved back by it)
   are one pool of draws from the before level; its kernel density estimate is the
   noise shape (:mod:`perfwalk.drill.noise`): spikes and bimodal noise are
   learned, not assumed away, and the kernels are widened by the uncertainty of
   the change.
3. **Placing a commit.** Every repetition at a commit adds its log-likelihood ratio
   "after level" over "before level", clipped at ``max_sample_evidence`` so that
   no single value decides. A commit is placed when the sum reaches
   ``log(search_odds)`` either way: repetitions are added only while it is not
   placed yet (a sequential probability ratio test), a few at a time.
4. **Bisection.** The change lies between the last commit placed before it and the
   first placed after it; the next commit tried is the one that best halves that
   range (a commit that does not build is skipped and a neighbour tried instead).
   Values already stored count like new ones: a commit that has enough is never
   measured again.
5. **Verification.** Only the two commits around the answer decide whether it is
   right: a wrong placement anywhere else leaves a wrong commit on that boundary.
   So these two are confirmed at ``verify_odds``, on at least
   ``min_verify_repetitions`` values each (a run of values from one mode of a
   bimodal metric must not decide), and must also be
   ``rival_odds`` times likelier at their own level than at a rival level
   ``rival_share`` of the way to the other one (the ends get more values too, up
   to as many as the commit around the answer with the most, so that the levels
   they are held to are known as well as they are).
   A commit likelier at both rivals by ``between_odds`` sits between the levels
   — the metric is not a clean step there — and, like a commit that cannot be
   placed within its share of repetitions, it is skipped like an unbuildable one.
   Then the step between the two commits must carry ``boundary_share`` of the
   change (else more values there, then ``UNDECIDED``: a staircase). Last, the two
   are measured in turns, one repetition at a time (``DrillState.order`` tells
   which values ran so), until those values differ the way of the change at
   ``turn_alpha`` (Mann–Whitney) with ``turn_repetitions`` each at least:
   neighbouring runs are alike on a loaded machine, so a commit measured in one
   loaded stretch, or values stored from one, can look moved at any odds; in turns a
   load falls on both alike. Two that do not differ within ``max_turn_repetitions``
   turns each give ``UNDECIDED``.
6. **The answer.** ``CULPRIT`` when the two confirmed commits are neighbours;
   ``RANGE`` when only skipped commits lie between them (the smallest range the
   skips allow, each skip said why); ``UNDECIDED`` when the budget runs out first
   or the evidence is not a single step; never a guess.

Step 1 (and the stops at the ends) is :mod:`perfwalk.drill.ends`, steps 3 to 6
:mod:`perfwalk.drill.bisection` over the evidence of :mod:`perfwalk.drill.evidence`;
a break's noise-free drill is :mod:`perfwalk.drill.exact`. What a drill knows is in
:mod:`perfwalk.drill.state`, what it answers in :mod:`perfwalk.drill.actions`.
"""

from __future__ import annotations

from dataclasses import replace

from perfwalk.analysis.scaled import exponent, scale, scaled
from perfwalk.drill.actions import Action, Done, Levels
from perfwalk.drill.bisection import Bisection
from perfwalk.drill.ends import levels_of_ends
from perfwalk.drill.exact import exact_action
from perfwalk.drill.shift import Shift
from perfwalk.drill.state import DrillState


def next_action(state: DrillState) -> Action:
    """What to do next: measure somewhere, or stop with an answer.

    Values far from 1 (``1e308``, ``1e-300``) are drilled divided by a power of two:
    exact, and no decision depends on the scale, but no sum or difference overflows.
    The answer is in the units of the values.
    """
    k = exponent(v for values in (*state.stored.values(), *state.measured.values()) for v in values)
    if not k:
        return _next_action(state)
    action = _next_action(
        replace(
            state,
            stored={p: tuple(scaled(v, k)) for p, v in state.stored.items()},
            measured={p: tuple(scaled(v, k)) for p, v in state.measured.items()},
        )
    )
    return _unscaled(action, k) if isinstance(action, Done) else action


def _unscaled(done: Done, k: int) -> Done:
    """``done`` of values divided by ``2**k``, in the units of the values."""

    def shift(found: Shift) -> Shift:
        return replace(
            found,
            estimate=scale(found.estimate, k),
            low=scale(found.low, k),
            high=scale(found.high, k),
        )

    levels = done.levels
    if levels is not None:
        levels = Levels(
            before=scale(levels.before, k),
            after=scale(levels.after, k),
            shift=shift(levels.shift),
            noise=scale(levels.noise, k),
        )
    return replace(
        done,
        levels=levels,
        placements=tuple(
            replace(p, values=tuple(scale(v, k) for v in p.values)) for p in done.placements
        ),
        step=None if done.step is None else shift(done.step),
    )


def _next_action(state: DrillState) -> Action:
    if state.exact:
        return exact_action(state)
    ends = levels_of_ends(state)
    if isinstance(ends, Levels):
        return Bisection(state, ends).next()
    return ends
