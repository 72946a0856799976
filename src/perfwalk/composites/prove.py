"""The culprit proved on today's tip: ``perfwalk prove [DRILL]``, ``[drill] prove`` and
the watch's cycle.

A drill names the commit where a metric moved, on the history as it was walked. Today's
tip of the branch may have moved on: the cost may still be there, moved elsewhere, or
fixed. A proof undoes the culprit on the tip (its revert as a patch: what ``git revert
--no-edit`` would commit) and measures the tip with the revert (B) against the tip
itself (A) as ``perfwalk try`` does — in turns, A B B A …, until the sequential test
decides the drilled metric or the most repetitions per side are spent
(:mod:`perfwalk.services.try_change`). It says one of:

- ``still``: reverting gives back the drilled cost ("gives back −29.4 % [−30.1, −28.8]:
  100 % of the drilled step (+41.7 %)");
- ``gone``: reverting changes nothing beyond the metric's min_change (the cost moved
  elsewhere, or was fixed, since);
- ``opposite``: reverting moves the metric the way the culprit did (what it cost is
  not the culprit's any more);
- ``undecided``: the most repetitions were spent before the test decided;
- ``conflict``: the revert does not apply to the tip (git apply's words; nothing is
  built);
- ``failed``: a side did not build or gave no value (the try's words).

Every proof is stored (:mod:`perfwalk.store.proofs`), with its try's series when one
ran; the drill's page and ``perfwalk drill`` show the newest.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.analysis.sequential import Decision, Verdict
from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.git.repo import Repo
from perfwalk.git.revert import conflict_on, revert_patch
from perfwalk.numbers import finite_or_none
from perfwalk.orchestrate.walk.plan import walk_config
from perfwalk.services.try_change import TryOptions, TryResult, run_try
from perfwalk.store import Store
from perfwalk.store.drills import DrillRow
from perfwalk.store.proofs import NewProof, Outcome, ProofRow


@dataclass(frozen=True)
class Proof:
    """A proof as stored, and the try that measured it (None: none ran)."""

    row: ProofRow
    tried: TryResult | None = None

    def said(self) -> str:
        """One line: what reverting the culprit on the tip did."""
        return self.row.said()


def provable(drill: DrillRow) -> str | None:
    """Why ``drill`` cannot be proved (None: it can): it has no culprit, or it narrowed
    a break (a build or a test's status, not a level)."""
    if drill.verdict != "culprit" or not drill.answer or not drill.answer.get("culprit"):
        said = (drill.verdict or "no answer").upper()
        return f"drill {drill.series_id} named no culprit (its answer: {said})"
    if drill.change.get("broke"):
        return f"drill {drill.series_id} narrowed a break, not a level: nothing to measure"
    return None


def drill_config(store: Store, config: Config, drill: DrillRow) -> Config:
    """``config`` as the walk whose change ``drill`` narrowed runs it."""
    parent = drill.change.get("series")
    return parent_walk_config(store, config, None if parent is None else int(parent))


def parent_walk_config(store: Store, config: Config, parent: int | None) -> Config:
    """``config`` as the walk of series ``parent`` runs it (its branch and host), when
    that walk is one of ``config``'s ``[[walk]]``s; else ``config`` as it is."""
    if parent is None:
        return config
    walk = store.series(parent).walk
    if walk is None or walk not in {w.name for w in config.walks}:
        return config
    return walk_config(config, walk)


def prove_culprit(
    store: Store,
    config: Config,
    drill: DrillRow,
    *,
    tip: str | None = None,
    max_repetitions: int | None = None,
    say: Callable[[str], None] = lambda _s: None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Proof:
    """Undo ``drill``'s culprit on ``tip`` (default: the branch of the drill's walk) and
    measure it against the tip; the proof, stored."""
    refused = provable(drill)
    if refused is not None:
        raise UsageError(refused, hint="`perfwalk drill` lists the drills and their answers")
    assert drill.answer is not None
    walked = drill_config(store, config, drill)
    ref = tip or walked.project.branch
    repo = Repo(walked.project.repo)
    culprit = repo.resolve(str(drill.answer["culprit"]))
    tip_sha = repo.resolve(ref)
    if not repo.is_ancestor(culprit, tip_sha):
        raise UsageError(
            f"drill {drill.series_id}: its culprit {culprit[:12]} is not in the history of "
            f"{ref} ({tip_sha[:12]})",
            hint="name a tip that contains it: prove --tip BRANCH",
        )
    metric = f"{drill.test}.{drill.name}"
    figures: dict[str, Any] = {"metric": metric, "step": drill.answer.get("relative")}

    def stored(outcome: Outcome, try_id: int | None, **more: Any) -> Proof:
        new = NewProof(
            drill.series_id, culprit, ref, tip_sha, clock(), try_id, outcome, figures | more
        )
        return Proof(ProofRow(**vars(new), id=store.proofs.add(new)))

    patch = revert_patch(repo, culprit)
    if not patch.strip():
        return stored("conflict", None, message=f"{culprit[:12]} changed no file")
    conflict = conflict_on(repo, patch, tip_sha)
    if conflict is not None:  # said once, by the answer
        return stored("conflict", None, message=conflict)
    say(f"proving {culprit[:12]} on {ref} ({tip_sha[:12]}): the tip against the tip without it")
    with tempfile.TemporaryDirectory(prefix="perfwalk-prove.") as folder:
        patch_file = Path(folder) / f"revert-{culprit[:12]}.diff"
        patch_file.write_text(patch, encoding="utf-8", errors="surrogateescape")
        options = TryOptions(
            base=tip_sha, patches=(patch_file,), metric=metric, max_repetitions=max_repetitions
        )
        try:
            tried = run_try(walked, options, say=say, clock=clock)
        except UsageError as error:
            return stored("failed", None, message=error.message)
    decision = tried.decisions.get(metric)
    if decision is None:
        return stored("failed", tried.series_id, message=f"the try gave no value of {metric}")
    outcome, share = _outcome(decision, drill)
    proof = stored(
        outcome,
        tried.series_id,
        unit=next((m.unit for m in tried.metrics if m.key == metric), ""),
        change=finite_or_none(decision.change),
        low=finite_or_none(decision.low),
        high=finite_or_none(decision.high),
        share=share,
        repetitions=list(tried.repetitions),
        stopped=tried.stopped,
        reason=decision.reason,
    )
    return Proof(proof.row, tried)


def _outcome(decision: Decision, drill: DrillRow) -> tuple[Outcome, float | None]:
    """What the revert did to the drilled metric, and the share of the drilled step
    it gave back (on the log scale: 1.0 undoes it whole; None when a level is not
    positive)."""
    assert drill.answer is not None
    step = drill.answer.get("relative")
    share = None
    if step is not None and step > -1 and decision.change > -1 and step != 0:
        share = finite_or_none(-math.log1p(decision.change) / math.log1p(step))
    if decision.verdict is Verdict.SAME:
        return "gone", share
    if decision.verdict is Verdict.UNDECIDED:
        return "undecided", share
    if step:  # back: the revert moves it against the culprit's step, whichever way that was
        back = decision.change * step < 0
    else:
        regression = bool(drill.change.get("kind", "regression") == "regression")
        back = decision.verdict is (Verdict.BETTER if regression else Verdict.WORSE)
    return ("still" if back else "opposite"), share
