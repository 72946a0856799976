"""Triage: a person's word on a change (``perfwalk triage``), stored with its history.

The change is named as ``perfwalk changes`` names it (SERIES:CHECKOUT, or
SERIES:COMMIT: either form for any series, :mod:`perfwalk.change_ids`) and resolved
against the changes found now to its key: its series and commit range. The word is
stored under that key (:mod:`perfwalk.store.triage`), so a walk continued or an
analysis rerun that finds the change again on the same range keeps it. A word is
checked before anything is written: a state of :data:`TRIAGE_STATES`, a reason (why
the triage matters), and a bug that is an http(s) address when there is one.

An alert group (:mod:`perfwalk.report.change_groups`) is triaged at once: named by
its id (its culprit's commit, or its range ``BEFORE..AFTER``: hex digits and no
``:``, where a change's id has one), the word is stored on each of its members'
changes, each under its own key, so that a member can be triaged apart later.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlsplit

from perfwalk.analysis.thresholds import CONFIGURED, Thresholds
from perfwalk.change_ids import FORMS, id_series
from perfwalk.config.model import Config
from perfwalk.errors import UsageError
from perfwalk.orchestrate.findings.breaks import BreakEvent, series_breaks
from perfwalk.orchestrate.findings.change_events import ChangeEvent
from perfwalk.orchestrate.findings.changes import find_all, find_changes
from perfwalk.orchestrate.findings.listed_changes import listed_findings
from perfwalk.report.change_groups import ChangeGroup, group_named, grouped
from perfwalk.report.change_list import TRIAGE_STATES
from perfwalk.store import Store
from perfwalk.store.leases import user_at_machine
from perfwalk.store.triage import ChangeKey, TriageRow


@dataclass(frozen=True)
class Word:
    """What a person says of a change, checked (:func:`checked_word`)."""

    state: str
    reason: str
    bug: str = ""


@dataclass(frozen=True)
class Triaged:
    """A word stored on ``change``: ``word`` the new current one, ``previous`` the one
    it follows (None: the change was untriaged)."""

    change: Change
    word: TriageRow
    previous: TriageRow | None


#: what a person triages: a speed change, or a build broken or a test newly failing
Change = ChangeEvent | BreakEvent


def change_key(event: Change) -> ChangeKey:
    """What names a change across walks and analyses: its series and commit range."""
    return (event.series_id, event.before.sha, event.after.sha)


def checked_word(state: str, reason: str, bug: str = "") -> Word:
    """The word, or a :class:`UsageError` that says what is wrong with it."""
    if state not in TRIAGE_STATES:
        raise UsageError(
            f"triage state {state!r} is not one of {', '.join(TRIAGE_STATES)}",
            hint="acknowledged: a real change, being looked at; expected: meant to happen; "
            "invalid: not a change (noise, the machine); fixed: a later commit undid it",
        )
    reason = reason.strip()
    if not reason:
        raise UsageError(
            "a triage needs a reason (--reason): it was given empty",
            hint="say why the change is what you say it is, e.g. --reason 'the new "
            "checksum is slower by design': it is what the next person reads",
        )
    bug = bug.strip()
    if bug:
        parts = urlsplit(bug)
        if parts.scheme not in ("http", "https") or not parts.netloc or re.search(r"\s", bug):
            raise UsageError(
                f"--bug {bug!r} is not an http(s) address",
                hint="give the address of the bug that tracks the change, e.g. "
                "--bug https://bugs.example.org/1234, or leave --bug out",
            )
    return Word(state, reason, bug)


def find_change(
    store: Store, config: Config, change_id: str, *, tuning: Thresholds = CONFIGURED
) -> Change:
    """The change ``change_id`` (SERIES:CHECKOUT or SERIES:COMMIT) among the changes
    found now: a speed change, else a build broken or a test newly failing there."""
    series_id = id_series(change_id)
    found: list[Change] = []
    series = [s for s in store.list_series() if s.id == series_id]
    if series:
        events = find_changes(store, config, [s.id for s in series], tuning=tuning)
        found = [e for e in events if e.named(change_id)]
        found = found or [b for b in series_breaks(store, series) if b.named(change_id)]
    if len(found) == 1:
        return found[0]
    if found:
        raise UsageError(
            f"change id {change_id!r} names {len(found)} changes: "
            + ", ".join(f"{e.id} ({e.before.sha[:12]}..{e.after.sha[:12]})" for e in found),
            hint="give the id `perfwalk changes` lists, or more digits of the commit after "
            "the change",
        )
    known = ", ".join(e.id for e in find_changes(store, config, tuning=tuning)) or "none"
    what = "no change" if series_id is not None else f"not a change id ({FORMS}):"
    raise UsageError(
        f"{what} {change_id!r} among the changes found in the store {store.url} (known: {known})",
        hint=f"`perfwalk changes` lists the changes with their ids ({FORMS}); "
        "give the same thresholds as there, if any",
    )


def triage_change(
    store: Store,
    config: Config,
    change_id: str,
    word: Word,
    *,
    tuning: Thresholds = CONFIGURED,
    now: datetime | None = None,
    who: str | None = None,
) -> Triaged:
    """Store ``word`` as the current word on the change ``change_id`` (the earlier ones
    stay, its history); ``who`` says who (default: user@machine)."""
    event = find_change(store, config, change_id, tuning=tuning)
    return store_word(store, event, word, now=now, who=who)


def store_word(
    store: Store,
    event: Change,
    word: Word,
    *,
    now: datetime | None = None,
    who: str | None = None,
) -> Triaged:
    """Store ``word`` as the current word on ``event``, a change :func:`find_change`
    found (the analysis is done: a writer that holds others back while it stores the
    word need not hold them while the change is found)."""
    key = change_key(event)
    history = store.triage.history(key)
    stored = store.triage.add(
        key,
        state=word.state,
        reason=word.reason,
        bug=word.bug,
        who=who or user_at_machine(),
        at=now or datetime.now(UTC),
    )
    return Triaged(event, stored, history[-1] if history else None)


def triage_history(
    store: Store, config: Config, change_id: str, *, tuning: Thresholds = CONFIGURED
) -> tuple[Change, list[TriageRow]]:
    """The change ``change_id`` and every word on it, oldest first."""
    event = find_change(store, config, change_id, tuning=tuning)
    return event, store.triage.history(change_key(event))


#: how an alert group is named: a commit, or a range BEFORE..AFTER (4 hex digits or more)
_GROUP_ID = re.compile(r"[0-9a-f]{4,40}(\.\.[0-9a-f]{4,40})?", re.IGNORECASE)


def names_group(text: str) -> bool:
    """Whether ``text`` names an alert group (a commit or a range, 4 hex digits or
    more each) rather than a change (SERIES:CHECKOUT, SERIES:COMMIT)."""
    return _GROUP_ID.fullmatch(text.strip()) is not None


def find_group(
    store: Store, config: Config, group_id: str, *, tuning: Thresholds = CONFIGURED
) -> tuple[ChangeGroup, list[ChangeEvent]]:
    """The alert group ``group_id`` names among the groups of the changes found now,
    and its members' changes (one per series and commit range)."""
    found = find_all(store, config, tuning=tuning)
    listed = [c for c in listed_findings(store, found)[0] if not c.refuted]
    groups = grouped(listed)
    named = group_named(groups, group_id)
    if len(named) != 1:
        known = ", ".join(g.id for g in groups) or "none"
        what = f"{len(named)} groups" if named else "no group"
        raise UsageError(
            f"{what} named {group_id!r} among the groups of the changes found in the store "
            f"{store.url} (known: {known})",
            hint="give a group as `perfwalk changes` lists it: its culprit's commit (4 hex "
            "digits or more) or its range BEFORE..AFTER; or a change as SERIES:CHECKOUT",
        )
    (group,) = named
    events = {change_key(e): e for e in found.changes}
    return group, [events[key] for key in group.keys if key in events]


def triage_group(
    store: Store,
    config: Config,
    group_id: str,
    word: Word,
    *,
    tuning: Thresholds = CONFIGURED,
    now: datetime | None = None,
    who: str | None = None,
) -> tuple[ChangeGroup, list[Triaged]]:
    """Store ``word`` on every change of the alert group ``group_id``, each under its
    own key (:func:`store_word`), all at the same moment."""
    group, events = find_group(store, config, group_id, tuning=tuning)
    return group, store_words(store, events, word, now=now, who=who)


def store_words(
    store: Store,
    events: Sequence[ChangeEvent],
    word: Word,
    *,
    now: datetime | None = None,
    who: str | None = None,
) -> list[Triaged]:
    """Store ``word`` on each of ``events`` (a group's), said by the same person at the
    same moment."""
    when, by = now or datetime.now(UTC), who or user_at_machine()
    return [store_word(store, event, word, now=when, who=by) for event in events]
