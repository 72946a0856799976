"""From ``--from``/``--to``/``--step`` to the checkouts of a walk."""

from __future__ import annotations

from perfwalk.errors import GitError, UsageError
from perfwalk.git.history import HistoryEntry, Point, Timeline, select
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import Step, parse_step
from perfwalk.model import Checkout


def checkouts(
    repo: Repo,
    from_text: str | None,
    to_text: str | None,
    step: Step | str,
    branch: str = "HEAD",
) -> list[Checkout]:
    """The checkouts of a walk along ``branch``'s first-parent line, oldest first.

    ``from_text``/``to_text`` are dates or commit-ishes (see
    :meth:`Repo.resolve_point`); None means the first / the last commit of the
    line. The commits are chosen by :func:`perfwalk.git.history.select`. Each
    checkout's ``date`` is its commit's committer date, and ``since`` holds the
    first-parent commits after the previous checkout up to and including this
    one (for the first checkout: that commit alone); ``quirks`` is left empty
    for the walk to fill.

    Raises UsageError when ``--from`` is later than ``--to`` or the step is
    invalid, GitError for an unknown commit-ish or when nothing is selected.
    """
    chosen_step = parse_step(step) if isinstance(step, str) else step
    history = repo.first_parent(branch)
    timeline = Timeline(history)
    start: Point = 0 if from_text is None else repo.resolve_point(from_text, history, branch=branch)
    end: Point = (
        len(history) - 1 if to_text is None else repo.resolve_point(to_text, history, branch=branch)
    )
    first_date, last_date = timeline.date_of(start), timeline.date_of(end)
    reversed_commits = isinstance(start, int) and isinstance(end, int) and start > end
    if first_date > last_date or reversed_commits:
        raise UsageError(
            f"--from {_shown(from_text)} ({first_date.isoformat()}) is later than"
            f" --to {_shown(to_text)} ({last_date.isoformat()})",
            hint="swap the values of --from and --to",
        )
    chosen = select(timeline, start, end, chosen_step)
    if not chosen:
        raise GitError(
            f"no commit of {branch} in repository {repo.path} from --from {_shown(from_text)}"
            f" to --to {_shown(to_text)}",
            hint=f"{branch} starts with commit {_entry(history[0])} and ends with"
            f" {_entry(history[-1])}; choose dates in between",
        )
    after = history[chosen[0] - 1].id if chosen[0] > 0 else None
    commits = {c.id: c for c in repo.commits_between(after, history[chosen[-1]].id)}
    result: list[Checkout] = []
    previous = chosen[0] - 1
    for index, position in enumerate(chosen):
        since_ids = [history[i].id for i in range(previous + 1, position + 1)]
        missing = [commit for commit in since_ids if commit not in commits]
        if missing:
            raise GitError(
                f"commit {missing[0][:12]} of the first-parent line of {branch} is missing from"
                f" git log in repository {repo.path}",
                hint="the repository may be shallow or damaged: git fetch --unshallow; git fsck",
            )
        entry = history[position]
        result.append(
            Checkout(
                index=index,
                commit=entry.id,
                date=entry.date,
                since=tuple(commits[commit] for commit in since_ids),
            )
        )
        previous = position
    return result


def _shown(text: str | None) -> str:
    return "(none)" if text is None else repr(text)


def _entry(entry: HistoryEntry) -> str:
    return f"{entry.id[:12]} ({entry.date.isoformat()})"
