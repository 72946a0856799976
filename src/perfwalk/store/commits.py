"""The commits of a project (table ``git_commit``, shared by every series of the
project): the rows the checkouts of walks, drills and pushes point to.

What git says of a commit always wins over what a push claimed:

- a walk or a drill stores each commit as git told it (date, author, subject, body,
  files): a new row, or over a row a push made (``pushed``), never over one git
  told already (:func:`git_commit_ids`);
- a push stores the commit as it claimed it, marked ``pushed``, only when the
  project has no row for it yet (:func:`pushed_commit_id`): a push never changes
  what git said, nor what an earlier push claimed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from perfwalk.model import Commit
from perfwalk.store import schema
from perfwalk.store.bulk import chunks, insert_or_keep

_gc = schema.git_commit
#: the columns git tells, written over a pushed row
_TOLD = ("date", "tz_offset", "author", "subject", "body", "files")


def git_commit_ids(conn: Connection, project: str, commits: Iterable[Commit]) -> dict[str, int]:
    """Store ``commits`` as git told them (new, or over a row a push made); the id of
    each by its sha."""
    unique = {commit.id: commit for commit in commits}
    insert = insert_or_keep(conn)(_gc)
    told = insert.on_conflict_do_update(
        index_elements=["project", "sha"],
        set_={**{name: insert.excluded[name] for name in _TOLD}, "pushed": False},
        where=_gc.c.pushed,
    )
    for chunk in chunks(list(unique.values())):
        conn.execute(told, [_row(project, commit, pushed=False) for commit in chunk])
    ids: dict[str, int] = {}
    for shas in chunks(list(unique)):
        query = select(_gc.c.sha, _gc.c.id).where(_gc.c.project == project, _gc.c.sha.in_(shas))
        ids.update({row.sha: int(row.id) for row in conn.execute(query)})
    return ids


def pushed_commit_id(conn: Connection, project: str, commit: Commit) -> int:
    """The id of ``commit`` in the project's commits: the row that is there (git's, or
    an earlier push's), else a new one of what the push claimed, marked pushed."""
    insert = insert_or_keep(conn)(_gc)
    conn.execute(
        insert.values(_row(project, commit, pushed=True)).on_conflict_do_nothing(
            index_elements=["project", "sha"]
        )
    )
    return int(
        conn.execute(
            select(_gc.c.id).where(_gc.c.project == project, _gc.c.sha == commit.id)
        ).scalar_one()
    )


def _row(project: str, commit: Commit, *, pushed: bool) -> dict[str, Any]:
    return {
        "project": project,
        "sha": commit.id,
        "date": commit.date,
        "tz_offset": _offset_minutes(commit.date),
        "author": commit.author,
        "subject": commit.subject,
        "body": commit.body,
        "files": list(commit.files),
        "pushed": pushed,
    }


def _offset_minutes(moment: datetime) -> int:
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError(f"naive commit date {moment.isoformat()}: commit dates must be aware")
    return int(offset.total_seconds() // 60)
