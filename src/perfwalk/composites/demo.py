"""The demo, the main job on the embedded default: create the sample project, walk
its history, analyse, publish, and check what was found against the known events."""

from __future__ import annotations

import dataclasses
import shutil
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwalk.analysis.changepoints import find_change_points
from perfwalk.composites.watch import WatchCycle, seen_now, watch_once
from perfwalk.config import load_config
from perfwalk.config.model import Config
from perfwalk.demo import story
from perfwalk.demo.project import DemoProject, KnownEvent, add_night, create_project
from perfwalk.demo.receiver import webhook_receiver
from perfwalk.errors import UsageError
from perfwalk.model import Direction, Status
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.walk_progress import Progress
from perfwalk.quantities import format_change, many
from perfwalk.services.drill import DrillResult, DrillTarget, change_targets, run_drill
from perfwalk.services.publish import publish_store
from perfwalk.services.run import run_series
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, ValueRow

#: the named walk of the demo's perfwalk.toml, continued by its extra night
WALK = "nightly"

#: written into a demo folder so that a later demo may replace it, and nothing else
MARKER = ".perfwalk-demo"


@dataclass(frozen=True)
class Finding:
    event: KnownEvent
    found: bool
    detail: str


@dataclass(frozen=True)
class DrillFinding:
    """Whether drilling found the exact commit of a known speed change."""

    event: KnownEvent
    exact: bool
    detail: str
    series_id: int | None = None  # the drill across it, if any


@dataclass(frozen=True)
class OtherChange:
    """A change the walk found where the demo's history has no known event, with what
    its drill answered: a real effect of that commit (code layout, a compiler's
    choice) or the machine, for a person to look at."""

    target: DrillTarget
    detail: str


@dataclass(frozen=True)
class Night:
    """The demo's extra night: the slowdown that landed, what the watch cycle did and
    the messages its notification receiver got."""

    event: KnownEvent
    cycle: WatchCycle
    messages: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class DemoResult:
    project: DemoProject
    series_id: int
    site: Path
    findings: tuple[Finding, ...]  # the night's slowdown last
    drills: tuple[DrillFinding, ...] = ()
    others: tuple[OtherChange, ...] = ()
    night: Night | None = None

    @property
    def exact(self) -> int:
        """Known speed changes whose exact commit a drill named."""
        return sum(d.exact for d in self.drills)

    @property
    def known(self) -> int:
        return len(self.findings)

    @property
    def found(self) -> int:
        return sum(f.found for f in self.findings)


def run_demo(
    directory: Path,
    progress: Callable[[Progress], None] = lambda _p: None,
    *,
    say: Callable[[str], None] = lambda _s: None,
) -> DemoResult:
    """Create the sample project under ``directory`` (replacing an earlier demo there),
    walk it, publish ``directory/site`` and compare with ``known-changes.json``."""
    directory = directory.resolve()
    _clear(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER).write_text("made by perfwalk demo; `perfwalk demo` may replace it\n")
    say(f"creating the sample project in {directory / 'project'}")
    project = create_project(directory)
    config = load_config(project.config)
    say(
        f"walking its history by {config.run.step} from {config.run.from_} to {config.run.to}, "
        f"{config.run.repetitions} repetitions per checkout"
    )
    result = run_series(config, RunOptions(walk=WALK), progress)
    with Store.open(config.store.url) as store:
        findings = evaluate(
            project.events,
            store.checkouts(result.series_id),
            store.values(result.series_id),
            project.commits,
        )
        for finding in findings:
            say(
                f"  {'found' if finding.found else 'MISSED'}: {finding.event.direction} at "
                f"{finding.event.commit[:12]} ({finding.detail})"
            )
        targets = change_targets(store, config)
    say(f"drilling {len(targets)} detected change{'' if len(targets) == 1 else 's'} down")
    answers = [run_drill(config, target) for target in targets]
    drills = drill_findings(project.events, answers, project.commits)
    for drill in drills:
        say(
            f"  {'exact' if drill.exact else 'NOT EXACT'}: {drill.event.direction} at "
            f"{drill.event.commit[:12]} ({drill.detail})"
        )
    others = other_changes(project.events, answers, project.commits)
    for other in others:
        say(f"  not a known change: {other.detail}")
    site = config.watch.site
    with Store.open(config.store.url) as store:
        publish_store(store, config, site)
    project, night = _night(project, config, say)
    answers = [d.result for d in night.cycle.drills if d.result is not None]
    with Store.open(config.store.url) as store:
        findings += evaluate(
            [night.event],
            store.checkouts(result.series_id),
            store.values(result.series_id),
            project.commits,
        )
    drills += drill_findings([night.event], answers, project.commits)
    others += other_changes(project.events, answers, project.commits)
    return DemoResult(
        project,
        result.series_id,
        site,
        tuple(findings),
        tuple(drills),
        tuple(others),
        night,
    )


def _night(
    project: DemoProject, config: Config, say: Callable[[str], None]
) -> tuple[DemoProject, Night]:
    """One more night: the story's next commits land, one of them a known slowdown,
    and one ``watch --once`` cycle continues the walk, drills what is new, publishes
    and tells a webhook receiver the demo starts and stops itself."""
    seen_now(config)  # the six weeks were drilled and told above: the night tells what is new
    project, event = add_night(project)
    say(
        f"one more night, after a week the watch did not run: {len(story.NIGHT)} commits"
        f" landed on {config.project.branch}, one of them a known slowdown"
        f" ({event.commit[:12]} {event.subject!r}); perfwalk watch --once"
    )
    with webhook_receiver() as hook:
        notify = dataclasses.replace(config.notify, urls=(hook.url,))
        cycle = watch_once(dataclasses.replace(config, notify=notify), say=say)
    return project, Night(event, cycle, tuple(hook.bodies))


def drill_findings(
    events: Sequence[KnownEvent], answers: Sequence[DrillResult], line: Sequence[str]
) -> list[DrillFinding]:
    """For each known speed change, whether a drill across it named its exact commit."""
    position = {commit: pos for pos, commit in enumerate(line)}
    found = []
    for event in events:
        if event.direction == "broken-build":
            continue
        at = position[event.commit]
        across = [a for a in answers if position[a.target.before] < at <= position[a.target.after]]
        if not across:
            found.append(DrillFinding(event, False, "no drill across it"))
            continue
        drill = across[0]
        done, culprit, sid = drill.done, drill.culprit, drill.series_id
        spent = f"{many(done.builds, 'build')}, {many(done.repetitions, 'repetition')}"
        if culprit is not None and culprit.id == event.commit:
            found.append(DrillFinding(event, True, f"drill {sid}: {spent}", sid))
        else:
            named = culprit.id[:12] if culprit is not None else done.verdict.value
            found.append(DrillFinding(event, False, f"drill answered {named} ({spent})", sid))
    return found


def other_changes(
    events: Sequence[KnownEvent], answers: Sequence[DrillResult], line: Sequence[str]
) -> list[OtherChange]:
    """The drilled changes that lie across no known change of their kind (a speed
    change, or a build broken), each with its answer."""
    position = {commit: pos for pos, commit in enumerate(line)}
    known = [position[e.commit] for e in events if e.direction != "broken-build"]
    broken = [position[e.commit] for e in events if e.direction == "broken-build"]
    others = []
    for answer in answers:
        target = answer.target
        lo, hi = position[target.before], position[target.after]
        if any(lo < at <= hi for at in (broken if target.change.get("broke") else known)):
            continue
        change = target.change
        relative = change.get("relative")
        size = format_change(relative) if isinstance(relative, float) else "a step"
        culprit = answer.culprit
        said = (
            f"CULPRIT {culprit.id[:12]} {culprit.subject!r}"
            if culprit is not None
            else answer.done.verdict.name.replace("_", "-")
        )
        others.append(
            OtherChange(
                target,
                f"{change.get('kind', 'change')} {target.metric} {size} between checkouts "
                f"{change.get('before_idx')} and {change.get('after_idx')}; "
                f"drill {answer.series_id} answered {said}",
            )
        )
    return others


def _clear(directory: Path) -> None:
    if not directory.exists() or not any(directory.iterdir()):
        return
    if not (directory / MARKER).exists():
        raise UsageError(
            f"{directory} exists and is not a perfwalk demo folder",
            hint="give an empty or new folder with --dir",
        )
    shutil.rmtree(directory)


def evaluate(
    events: Sequence[KnownEvent],
    checkouts: Sequence[CheckoutRow],
    values: Sequence[ValueRow],
    line: Sequence[str],
) -> list[Finding]:
    """Whether the walk found each known event.

    A speed change is found when a step in the event's metric, in the event's
    direction, lies between the last checkout before the event's commit and the
    first checkout at or after it. A broken build is found when a checkout on one
    of the broken commits has the build status NOEXIST.
    """
    position = {commit: pos for pos, commit in enumerate(line)}
    findings = []
    for event in events:
        if event.direction == "broken-build":
            broken = {event.commit, *event.broken}
            hit = [c for c in checkouts if c.sha in broken]
            ok = any(c.build_status is Status.NOEXIST for c in hit)
            detail = (
                f"checkout {hit[0].idx} did not build"
                if ok
                else "no checkout landed on a broken commit"
            )
            findings.append(Finding(event, ok, detail))
            continue
        findings.append(_speed_finding(event, checkouts, values, position))
    return findings


def _speed_finding(
    event: KnownEvent,
    checkouts: Sequence[CheckoutRow],
    values: Sequence[ValueRow],
    position: dict[str, int],
) -> Finding:
    per_checkout: dict[int, list[float]] = defaultdict(list)
    direction = Direction.LOWER
    for row in values:
        if row.test == event.test and row.name == event.metric and row.status is Status.PASS:
            per_checkout[row.checkout_idx].append(row.value)
            direction = Direction(row.direction)
    ordered = list(checkouts)
    sets = [per_checkout.get(c.idx, []) for c in ordered]
    at = position[event.commit]
    want_worse = event.direction == "slower"
    for change in find_change_points(sets).changes:
        first, last = ordered[change.previous], ordered[change.index]
        worse = change.rising if direction is Direction.LOWER else not change.rising
        if position[first.sha] < at <= position[last.sha] and worse == want_worse:
            size = format_change(change.relative) if change.relative is not None else "a step"
            return Finding(event, True, f"{size} between checkouts {first.idx} and {last.idx}")
    return Finding(event, False, "no step found around it")
