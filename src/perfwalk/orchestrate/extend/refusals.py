"""What an extension (:mod:`perfwalk.orchestrate.extend.extension`) refuses, before
anything is stored, each error naming the series and saying what to do: options it
does not take, a series it cannot extend (a drill's, a try's, a push or regress
series, a variant's, another project's, one being walked), an extension that did not finish
asked anew with other counts, a variant measured already, a count not above the
series', commits gone from the repository, other build steps or tests than the series
was measured with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfwalk.config.model import Config
from perfwalk.errors import GitError, UsageError
from perfwalk.git.history import HistoryEntry
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import looks_like_date
from perfwalk.orchestrate.checkout.quirks import PlannedQuirk
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.orchestrate.walk.provenance import walk_commands
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, ExtensionInfo, SeriesRow

#: what each kind of series that cannot be extended is, and what to do instead
_NOT_EXTENDED = {
    "drill": (
        "a drill's series",
        "a drill measures what it needs to decide; extend the walk it drills, or drill again",
    ),
    "try": (
        "a try's series",
        "a try measures until it decides; try again with a higher [try] max_repetitions",
    ),
    "environment": (
        "an environment drill's series",
        "it measures what it needs to decide; drill the environments again "
        "(`perfwalk drill-env --repetitions N`), or extend the walk",
    ),
    "push": (
        "a push series (its values came from `perfwalk push`)",
        "perfwalk measured none of it; push more results, or extend a walk's series",
    ),
    "regress": (
        "a regress series (the runs of a functional suite on a host)",
        "run the suite again (`perfwalk regress`), or extend a walk's series",
    ),
}


def check_options(options: RunOptions, config: Config, series_id: int) -> None:
    """``--extend`` takes the series' checkouts, step, tests and action between
    repetitions."""
    given = [
        flag
        for flag, value in (
            ("--from", options.from_),
            ("--to", options.to),
            ("--step", options.step),
            ("--between", options.between),
            ("--name", options.name),
            ("--walk", options.walk),
        )
        if value is not None
    ]
    if options.extend is not None and options.resume:
        given.append("--resume")
    if config.only is not None:  # an extension measures the tests its series measured
        given.append("--tests")
    if given:
        asked = f"--extend {series_id}" if options.extend is not None else "--resume"
        raise UsageError(
            f"{asked} measures series {series_id} at its checkouts, as its walk did (an "
            f"extension): {', '.join(given)} cannot be given with it",
            hint="give only -n (repetitions per checkout) and --variants with --extend",
        )


def check_series(store: Store, config: Config, series: SeriesRow) -> None:
    """A series that can be extended: a walk's, of this project, not being walked."""
    if series.kind in _NOT_EXTENDED:
        what, hint = _NOT_EXTENDED[series.kind]
        raise UsageError(f"series {series.id} is {what}: it cannot be extended", hint=hint)
    if series.kind == "variant":
        raise UsageError(
            f"series {series.id} is the variant {series.variant_name} of series "
            f"{series.parent_id}: it is extended with its walk",
            hint=f"extend series {series.parent_id}: `perfwalk run --extend "
            f"{series.parent_id} -n N` extends its variants too",
        )
    if series.project != config.project.name:
        raise UsageError(
            f"series {series.id} is a walk of project {series.project!r}, not of "
            f"{config.project.name!r} that {config.path} describes",
            hint="extend it with the configuration it was walked with",
        )
    walker = store.walkers.of([series.id]).get(series.id)
    if series.state == "running" and (walker is None or walker.liveness() != "gone"):
        by = f" by {walker.describe()}" if walker is not None else ""
        raise UsageError(
            f"series {series.id} is being walked{by}",
            hint="wait until its walk ends, then extend it",
        )


def check_same(options: RunOptions, unfinished: ExtensionInfo) -> None:
    """An unfinished extension is continued as it began, or not at all."""
    asked = unfinished.variant_repetitions if unfinished.variants else unfinished.repetitions
    differ = (options.variants and tuple(options.variants) != unfinished.variants) or (
        options.repetitions is not None and options.repetitions != asked
    )
    if differ:
        sid = unfinished.series_id
        raise UsageError(
            f"series {sid} has an extension that did not finish, started "
            f"{unfinished.started_at:%Y-%m-%d %H:%M:%S} UTC: {unfinished.said()}",
            hint=f"continue it first with `perfwalk run --extend {sid}` (no -n, no --variants), "
            "then extend the series again",
        )


def check_new(
    store: Store, series: SeriesRow, added: Sequence[str], stored: Mapping[str, int]
) -> None:
    """The variants an extension adds are not measured in the series yet."""
    for name in added:
        found = stored.get(name)
        if found is not None and store.checkouts(found):
            raise UsageError(
                f"series {series.id} measures the variant {name} already (series {found})",
                hint=f"more repetitions of both: `perfwalk run --extend {series.id} -n N`",
            )


def more_repetitions(options: RunOptions, series: SeriesRow, before: int) -> int:
    """The repetitions per checkout ``-n`` asks of a series that has ``before``."""
    if options.repetitions is None:
        raise UsageError(
            f"--extend {series.id}: give -n N, the repetitions every checkout gets (it has "
            f"{before}), or --variants NAME,… to measure variants at its checkouts",
            hint=f"e.g. perfwalk run --extend {series.id} -n {2 * before}",
        )
    if options.repetitions <= before:
        raise UsageError(
            f"--extend {series.id} -n {options.repetitions}: series {series.id} has "
            f"{before} repetitions per checkout already",
            hint=f"give more than {before}, e.g. -n {2 * before}",
        )
    return options.repetitions


def walked_line(
    repo: Repo, config: Config, series: SeriesRow, rows: Sequence[CheckoutRow]
) -> list[HistoryEntry]:
    """The first-parent line the series walked (as a resume walks it); a UsageError
    naming the checkout whose commit is gone from the repository, or off the line."""
    line = config.project.branch if looks_like_date(series.to_spec) else series.to_spec
    try:
        history = repo.first_parent(line)
    except GitError as error:
        for row in rows:
            _check_there(repo, series, row)
        raise UsageError(
            f"series {series.id}: the end of its walk, {line[:12]}, is gone from repository "
            f"{repo.path} ({error.message})",
            hint=_GONE_HINT,
        ) from error
    where = {entry.id for entry in history}
    for row in rows:
        if row.sha not in where:
            _check_there(repo, series, row)
            raise UsageError(
                f"series {series.id}: the commit of its checkout {row.idx}, {row.sha[:12]}, is "
                f"not on the first-parent line of {line[:40]} in repository {repo.path} any more",
                hint=_GONE_HINT,
            )
    return history


_GONE_HINT = (
    "fetch the commits the series measured back into the repository (git fetch), or start a "
    "new walk of the history as it is now"
)


def _check_there(repo: Repo, series: SeriesRow, row: CheckoutRow) -> None:
    """A UsageError when the commit of checkout ``row`` is not in the repository."""
    try:
        repo.resolve(row.sha)
    except GitError as error:
        raise UsageError(
            f"series {series.id}: the commit of its checkout {row.idx}, {row.sha[:12]}, is "
            f"gone from repository {repo.path}",
            hint=_GONE_HINT,
        ) from error


def check_commands(config: Config, series: SeriesRow, quirks: Sequence[PlannedQuirk]) -> None:
    """The build steps of ``config`` and its tests that the series measured are those
    it was measured with (as its setup page shows them): its extension measures the
    same thing (the tests the series measured, not one added to the file since)."""
    now = walk_commands(config, series.between, quirks)
    for key, what in (("build", "build steps"), ("tests", "tests")):
        then, found = series.commands.get(key), now[key]
        differ = ""
        if isinstance(then, dict) and isinstance(found, dict):
            names = sorted(name for name in then if then[name] != found.get(name))
            if not names:
                continue
            differ = f" (test {names[0]})"
        elif then is None or then == found:
            continue
        raise UsageError(
            f"series {series.id} was measured with other {what} than {config.path} has now"
            f"{differ}: an extension measures the same as its walk",
            hint="extend it with the configuration it was walked with (its setup page shows "
            "it, `perfwalk report`), or start a new walk",
        )
