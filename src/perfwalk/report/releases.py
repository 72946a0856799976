"""The project's releases (``[[release]]``) as the pages mark them: each resolved to a
moment when the site is published, a date as it is, a commit-ish to its commit's date.

A commit-ish the repository cannot resolve stops the publish with a
:class:`~perfwalk.errors.ConfigError` naming the release (nothing stored changes: a
publish only reads the store). Without a repository to read (a site published on
another machine than the walks), the releases given by a commit-ish are left out,
each with a warning, and those given by a date are kept.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from perfwalk.config.model import Config
from perfwalk.errors import ConfigError, GitError
from perfwalk.git.repo import Repo
from perfwalk.git.walk_steps import looks_like_date, parse_date


@dataclass(frozen=True)
class Release:
    """A release at a moment (its commit's date), with its commit when named by one."""

    name: str
    at: datetime
    commit: str | None = None
    comment: str = ""

    @property
    def ms(self) -> int:
        """The moment in milliseconds since the epoch, as the plots take it."""
        return int(self.at.timestamp() * 1000)


@dataclass(frozen=True)
class Releases:
    """The resolved releases in date order, and what was left out (a warning each)."""

    found: tuple[Release, ...] = ()
    warnings: tuple[str, ...] = ()

    def digest(self) -> str:
        """What the pages show of them, as a digest (a change rewrites every page)."""
        text = json.dumps(
            [[r.name, r.at.isoformat(), r.commit, r.comment] for r in self.found],
            ensure_ascii=False,
            allow_nan=False,
        )
        return hashlib.sha256(text.encode()).hexdigest()


#: No releases.
NO_RELEASES = Releases()


def resolve_releases(config: Config) -> Releases:
    """``config``'s releases resolved in its project's repository, in date order (the
    file's order for releases at the same moment)."""
    if not config.releases:
        return NO_RELEASES
    repo: Repo | None = None
    unreadable = ""
    if any(not looks_like_date(r.at) for r in config.releases):
        try:
            repo = Repo(config.project.repo)
        except GitError as error:
            unreadable = error.message
    found: list[Release] = []
    warnings: list[str] = []
    for index, release in enumerate(config.releases):
        if looks_like_date(release.at):
            found.append(Release(release.name, parse_date(release.at), None, release.comment))
            continue
        if repo is None:
            warnings.append(
                f"release {release.name!r} (release[{index}].at = {release.at!r}) left out: "
                f"{unreadable}; give its date instead to show it without the repository"
            )
            continue
        try:
            commit = repo.commit(release.at)
        except GitError as error:
            raise ConfigError(
                f"release {release.name!r}: {error.message}",
                path=str(config.path),
                key=f"release[{index}].at",
                hint="name a commit, tag or branch of the project's repository, or give the "
                "release's date (YYYY-MM-DD)",
            ) from error
        found.append(Release(release.name, commit.date, commit.id, release.comment))
    return Releases(tuple(sorted(found, key=lambda r: r.at)), tuple(warnings))


def positions(releases: Sequence[Release], dates: Sequence[datetime]) -> list[int | None]:
    """Each release's place among checkouts dated ``dates`` (sorted): the position of
    the first checkout at or after it, None when it is after the last."""
    out: list[int | None] = []
    for release in releases:
        pos = bisect.bisect_left(dates, release.at)
        out.append(pos if pos < len(dates) else None)
    return out
