"""A drill's search: the first-parent line between its two ends, walked in a drill
series of its own, each commit the scheduler (:mod:`perfwalk.drill`) asks for built and
measured, every step stored as it ends, until the scheduler answers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from perfwalk.analysis.breaks import BUILD, failed_value
from perfwalk.config.model import Config, ProfileConfig, TestConfig
from perfwalk.drill import Budget, Done, DrillState, Measure, next_action
from perfwalk.errors import UsageError
from perfwalk.git.repo import Repo
from perfwalk.git.worktree import Worktrees
from perfwalk.model import Checkout, Status
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk, applying
from perfwalk.orchestrate.drilling.target import DrillTarget
from perfwalk.orchestrate.session.session import Session
from perfwalk.orchestrate.walk.plan import PlannedCheckout, history_quirks
from perfwalk.orchestrate.walk.walk import Walk
from perfwalk.regress.history import failed_value as regress_failed_value
from perfwalk.store import Store


@dataclass(frozen=True)
class WalkedLine:
    """The first-parent commits a drill searches (``line``, from the last known before
    to the first known after), where the line starts on the branch, the quirks."""

    repo: Repo
    line: tuple[str, ...]
    start: int
    quirks: Sequence[PlannedQuirk]


def walked_line(config: Config, target: DrillTarget) -> WalkedLine:
    """The line ``target`` searches, on the first-parent history of the project's branch;
    a UsageError when an end is not on it or the two are in the wrong order."""
    repo = Repo(config.project.repo)
    history = repo.first_parent(config.project.branch)
    where = {commit: pos for pos, (commit, _) in enumerate(history)}
    for role, sha in (("first", target.before), ("last", target.after)):
        if sha not in where:
            raise UsageError(
                f"the {role} commit {sha[:12]} is not on the first-parent line of"
                f" {config.project.branch} in {config.project.repo}",
                hint="drill between two commits of the walked line (as `perfwalk changes` lists)",
            )
    start, end = where[target.before], where[target.after]
    if end <= start:
        raise UsageError(
            f"commit {target.after[:12]} is not later than {target.before[:12]}"
            f" on {config.project.branch}",
            hint="give the earlier commit first: --between BEFORE AFTER",
        )
    line = tuple(commit for commit, _ in history[start : end + 1])
    return WalkedLine(repo, line, start, history_quirks(repo, config, history))


@contextmanager
def searching(
    session: Session,
    config: Config,
    test: TestConfig,
    walked: WalkedLine,
    *,
    target: DrillTarget,
    series_id: int,
) -> Iterator[Search]:
    """The drill series ``series_id`` walked by this process during the block (marked
    finished at its end, interrupted when it raises), measured in worktrees of its own
    (removed at the end): what the search and the culprit's profiles measure with."""
    store = session.store
    walker = session.walker()
    worktrees = Worktrees.for_series(
        walked.repo, config.store.worktrees, store.store_id(), series_id
    )
    with session.walking(series_id, walker):
        walk = Walk(
            series_id=series_id,
            # the search runs no profiled run; the culprit's two commits may
            config=dataclasses.replace(
                config, tests=(dataclasses.replace(test, profile=ProfileConfig()),)
            ),
            store=store,
            worktrees=worktrees,
            topology=session.topology,
            quirks=walked.quirks,
            between=config.run.between,
            progress=lambda _p: session.check(),
            marker=walker.token,
        )
        with worktrees.held(f"series {series_id} of {store.url}, {session.purpose}"):
            yield Search(store, walk, walked.repo, walked.line, walked.start, walked.quirks, target)
            worktrees.remove()


@dataclass
class Search:
    """The parts the search loop measures with."""

    store: Store
    walk: Walk
    repo: Repo
    line: tuple[str, ...]
    offset: int  # the first-parent position of line[0]
    quirks: Sequence[PlannedQuirk]
    target: DrillTarget

    def planned(self, position: int) -> PlannedCheckout:
        """The checkout of the line's commit at ``position``, indexed by its position."""
        commit = self.repo.commit(self.line[position])
        patches, _crossed = applying(self.quirks, None, self.offset + position)
        checkout = Checkout(
            index=position,
            commit=commit.id,
            date=commit.date,
            since=(commit,),
            quirks=tuple(q.letter for q in patches),
        )
        return PlannedCheckout(checkout, self.offset + position)

    def measure(self, action: Measure) -> tuple[tuple[float, ...], Status | None]:
        """Build (if needed) and run the repetitions asked; the values they gave at that
        commit (as the walk returns them, not read back from the store), and the build
        status."""
        if self.target.regress:  # noise-free: 1.0 failing, 0.0 passing, as the matrix
            build, status = self.walk.regress_test_at(
                self.planned(action.position), self.target.test
            )
            return (() if status is None else regress_failed_value(status)), build
        measured = self.walk.measure_more(self.planned(action.position), action.repetitions)
        built = measured.builds.get(action.position)
        if self.target.broke:  # noise-free: 1.0 failing, 0.0 passing
            statuses = measured.statuses(action.position, self.target.test)
            return failed_value(self.target.broke, built, statuses), built
        return measured.values(action.position, self.target.test, self.target.name), built


def run_search(
    search: Search,
    stored: Mapping[int, tuple[float, ...]],
    budget: Budget,
    say: Callable[[str], None],
) -> Done:
    expected = search.target.change.get("relative")  # as the walk reported it
    state = DrillState(
        search.line,
        stored=stored,
        budget=budget,
        expected=expected if isinstance(expected, float) else None,
        exact=bool(search.target.broke),
    )
    series_id = search.walk.series_id
    while True:
        action = next_action(state)
        if isinstance(action, Done):
            return action
        say(
            f"  {action.commit[:12]} [{action.position}/{state.last}]: {action.repetitions} more"
            f" repetition{'s' if action.repetitions != 1 else ''} ({action.reason})"
        )
        gained, built = search.measure(action)
        unbuildable = set(state.unbuildable)
        why = ""
        if built is Status.NOEXIST and search.target.broke != BUILD:
            unbuildable.add(action.position)
            why = "does not build"
        elif not gained:
            unbuildable.add(action.position)
            why = f"{search.target.metric} gave no value"
        if why:
            say(f"  {action.commit[:12]}: {why}, skipped")
        search.store.drills.add_step(
            series_id,
            {
                "position": action.position,
                "commit": action.commit,
                "asked": action.repetitions,
                "reason": action.reason,
                "values": list(gained),
                "skipped": why or None,
            },
        )
        state = dataclasses.replace(
            state,
            measured={
                **state.measured,
                action.position: (*state.measured.get(action.position, ()), *gained),
            },
            order=(*state.order, *[action.position] * len(gained)),
            unbuildable=frozenset(unbuildable),
        )
