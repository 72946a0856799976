"""Alert groups: the changes that share a culprit commit, or (not drilled to one) a
commit, across metrics, tests, series, hosts and variants — one event, one row.

:func:`grouped` is the one place changes are grouped; the index, the series pages,
the feed, the Markdown report, the notifications, ``perfwalk changes``, ``perfwalk
triage`` and the HTTP API all take its groups.

- A change a drill traced to its culprit joins the group of that culprit.
- The other changes are grouped by their commit ranges: two whose ranges share a
  commit are one group (and so, step by step, are all that overlap). A range is the
  commits after the change's checkout before the step up to the one after it, or
  what a drill narrowed it to (:class:`~perfwalk.report.change_list.DrillMark`).
- A change not drilled whose range holds exactly one culprit of the others joins
  that culprit's group (a walk on another host saw the step the drill traced); the
  ranges that hold none or several are grouped among themselves, each group named
  by its narrowest range.

A group is named by its culprit's first 12 hex digits, or by its narrowest range
``BEFORE..AFTER`` (12 hex digits each, git's notation: BEFORE excluded): its
:attr:`ChangeGroup.id`, which ``perfwalk triage`` and the API take to triage every
member at once (each member keeps its own word: one may be triaged apart later).

Pure: changes in, groups out, the same groups in the same order for the same changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from perfwalk.report.change_list import Culprit, ListedChange, counted, counted_as, told_counts
from perfwalk.report.times import as_utc

#: how many hex digits of a commit name a group
ID_DIGITS = 12


@dataclass(frozen=True)
class ChangeGroup:
    """The changes of one culprit (``culprit``) or of overlapping commit ranges (the
    narrowest ``before`` .. ``after``, ``commits`` commits), worst first: the
    untriaged regressions first, then by the largest headline size."""

    members: tuple[ListedChange, ...]
    culprit: Culprit | None
    before: str  # the narrowest range: its checkout before the step (excluded) …
    after: str  # … up to this commit (included)
    commits: int

    @property
    def id(self) -> str:
        """ "5a17eab3c0de" (its culprit), "1f0c2a3b4d5e..9a8b7c6d5e4f" (a range)."""
        if self.culprit is not None:
            return self.culprit.sha[:ID_DIGITS]
        return f"{self.before[:ID_DIGITS]}..{self.after[:ID_DIGITS]}"

    @property
    def worst(self) -> ListedChange:
        return self.members[0]

    @property
    def date(self) -> datetime:
        """When it was seen: the newest date of its members' checkouts after the step."""
        return max((c.date for c in self.members), key=as_utc)

    @property
    def author(self) -> str:
        """Who should look: the name of the culprit's author, else of the author of a
        one-commit range (as its members know it), else "" (the e-mail left out)."""
        if self.culprit is not None and self.culprit.author:
            return author_name(self.culprit.author)
        return next((author_name(c.author) for c in self.members if c.author), "")

    @property
    def subject(self) -> str:
        """The culprit's subject, else a one-commit range's, else ""."""
        if self.culprit is not None and self.culprit.subject:
            return self.culprit.subject
        return next((c.subject for c in self.members if c.subject), "")

    @property
    def regression(self) -> bool:
        """Whether a member that counts (not refuted) made its metric worse."""
        return any(c.regression and not c.refuted for c in self.members)

    @property
    def refuted(self) -> bool:
        """Every member measured again and not there."""
        return all(c.refuted for c in self.members)

    @property
    def untriaged(self) -> bool:
        """Whether a member (not refuted) has no word yet."""
        return any(c.triage is None and not c.refuted for c in self.members)

    @property
    def needs_action(self) -> bool:
        """An untriaged regression among its members: what the default views show."""
        return any(c.needs_action for c in self.members)

    @property
    def triage_state(self) -> str:
        """ "untriaged" when a member is; else the members' one state, or "mixed"."""
        states = {c.triage_state for c in self.members if not c.refuted} or {
            c.triage_state for c in self.members
        }
        if "untriaged" in states:
            return "untriaged"
        return states.pop() if len(states) == 1 else "mixed"

    @property
    def metrics(self) -> int:
        """How many metrics (test.name) moved."""
        return len({c.metric for c in self.members})

    @property
    def hosts(self) -> int:
        """How many hosts its members were measured on (0: not known)."""
        return len({c.host for c in self.members if c.host})

    @property
    def series(self) -> tuple[int, ...]:
        return tuple(sorted({c.series_id for c in self.members}))

    @property
    def keys(self) -> tuple[tuple[int, str, str], ...]:
        """Its members' changes (series and commit range), each triaged under its own."""
        return tuple(dict.fromkeys(c.key for c in self.members))

    def spread(self) -> str:
        """ "1 metric", "100 metrics on 2 hosts", "2 metrics in 2 walks on 1 host" (the
        hosts left out when not known)."""
        metrics, hosts, walks = self.metrics, self.hosts, len(self.series)
        told = f"{metrics} metric{'' if metrics == 1 else 's'}"
        if walks > 1:
            told += f" in {walks} walks"
        if hosts > 1 or (walks > 1 and hosts):
            told += f" on {hosts} host{'' if hosts == 1 else 's'}"
        return told

    def where(self) -> str:
        """ "at 5a17eab3c0de" (its culprit), "at 9a8b7c6d5e4f" (a one-commit range), "in
        6 commits 1f0c2a3b4d5e..9a8b7c6d5e4f"."""
        if self.culprit is not None or self.commits == 1:
            sha = self.culprit.sha if self.culprit is not None else self.after
            return f"at {sha[:ID_DIGITS]}"
        return f"in {self.commits} commits {self.before[:ID_DIGITS]}..{self.after[:ID_DIGITS]}"


def author_name(author: str) -> str:
    """ "Ada Lovelace" of "Ada Lovelace <ada@example.org>"."""
    return author.split(" <", 1)[0].strip()


def grouped(changes: Iterable[ListedChange]) -> list[ChangeGroup]:
    """The groups of ``changes`` (see the module), newest first (ties: by id)."""
    listed = list(changes)
    by_culprit: dict[str, list[ListedChange]] = {}
    loose: list[ListedChange] = []
    for change in listed:
        if change.culprit is not None:
            by_culprit.setdefault(change.culprit.sha, []).append(change)
        else:
            loose.append(change)
    rest = []
    for change in loose:
        held = [sha for sha in range_of(change) if sha in by_culprit]
        if len(held) == 1:
            by_culprit[held[0]].append(change)
        else:
            rest.append(change)
    groups = [_group(cluster, None) for cluster in _overlapping(rest)]
    for members in by_culprit.values():
        culprit = next(c.culprit for c in members if c.culprit is not None)
        groups.append(_group(members, culprit))
    groups.sort(key=lambda g: g.id)
    groups.sort(key=lambda g: as_utc(g.date), reverse=True)
    return groups


def counted_groups(groups: Sequence[ChangeGroup]) -> str:
    """What a report's heading says of its ``groups`` (none refuted): the groups by
    kind when fewer than their changes, "2 regressions (200 changes in 2 alert
    groups)" (a group counted as the first kind any of its members is, triaged when
    every member is); else its changes as :func:`~perfwalk.report.change_list.counted`
    tells them, "1 regression (2 metrics)"."""
    members = [c for g in groups for c in g.members]
    changes = len({c.key for c in members if not c.refuted})
    if len(groups) >= changes:
        return counted(members)
    told = told_counts(
        (kind, not g.untriaged) for g in groups if (kind := counted_as(g.members)) is not None
    )
    metrics = sum(not c.refuted for c in members)
    more = f", {metrics} metrics" if metrics > changes else ""
    many = "alert group" if len(groups) == 1 else "alert groups"
    return f"{told} ({changes} changes in {len(groups)} {many}{more})"


def range_of(change: ListedChange) -> tuple[str, ...]:
    """The commits ``change`` may be due to: its range's, narrowed to what a drill
    narrowed it to; its commit after the step alone when its range's commits are not
    known."""
    shas = change.range_shas or (change.after_sha,)
    drill = change.drill
    if drill is not None and drill.hi in shas:
        start = shas.index(drill.lo) + 1 if drill.lo in shas else 0
        return shas[start : shas.index(drill.hi) + 1] or shas
    return shas


def _overlapping(changes: Sequence[ListedChange]) -> list[list[ListedChange]]:
    """``changes`` in clusters whose ranges overlap, step by step (union–find over the
    commits), each in the order given."""
    parent = list(range(len(changes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    for i, change in enumerate(changes):
        for sha in range_of(change):
            j = first.setdefault(sha, i)
            a, b = root(i), root(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    clusters: dict[int, list[ListedChange]] = {}
    for i, change in enumerate(changes):
        clusters.setdefault(root(i), []).append(change)
    return list(clusters.values())


def _group(members: list[ListedChange], culprit: Culprit | None) -> ChangeGroup:
    ordered = sorted(members, key=lambda c: (c.series_id, c.test, c.name, c.after_idx))
    ordered.sort(
        key=lambda c: (c.refuted, not c.needs_action, not c.regression, -abs(c.measured.size))
    )
    narrowest = min(ordered, key=lambda c: (len(range_of(c)), c.after_sha))
    shas = range_of(narrowest)
    drill = narrowest.drill
    narrowed = drill is not None and drill.hi in narrowest.range_shas
    return ChangeGroup(
        members=tuple(ordered),
        culprit=culprit,
        before=drill.lo if drill is not None and narrowed else narrowest.before_sha,
        after=shas[-1],
        commits=len(shas) if narrowest.range_shas else narrowest.commits,
    )


def group_named(groups: Sequence[ChangeGroup], text: str) -> list[ChangeGroup]:
    """The groups ``text`` names: a culprit's or a range's id, or its first 4 hex
    digits or more (each side of a range's ``..``)."""
    text = text.strip().lower()
    if ".." in text:
        lo, _, hi = text.partition("..")
        return [
            g
            for g in groups
            if g.culprit is None
            and len(lo) >= 4
            and len(hi) >= 4
            and g.before.startswith(lo)
            and g.after.startswith(hi)
        ]
    if len(text) < 4:
        return []
    return [g for g in groups if g.culprit is not None and g.culprit.sha.startswith(text)]
