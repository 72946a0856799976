"""The export use case: stored series as one JSON document, CSV or gnuplot rows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from perfwalk.model import Commit
from perfwalk.report.export import EXPORT_FORMAT, EXPORT_VERSION, render
from perfwalk.store import Store
from perfwalk.store.build_facts import CheckoutFacts
from perfwalk.store.records import SeriesRow


def export(store: Store, series_ids: Sequence[int] | None, fmt: str) -> str:
    """Render the chosen series (all when ``series_ids`` is None) in ``fmt``."""
    chosen = [store.series(i) for i in series_ids] if series_ids else store.list_series()[::-1]
    return render(document(store, chosen), fmt)


def document(store: Store, chosen: Sequence[SeriesRow]) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "series": [_series(store, s) for s in chosen],
    }


def _iso(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _commit(commit: Commit) -> dict[str, Any]:
    return {
        "id": commit.id,
        "date": _iso(commit.date),
        "author": commit.author,
        "subject": commit.subject,
        "body": commit.body,
        "files": list(commit.files),
    }


def _phases(store: Store, repetition_id: int) -> dict[str, Any]:
    """The steps of a repetition's phases (their outputs by log id) and the counters of
    its snapshots (export version 3)."""
    return {
        "steps": [
            {
                "test": step.test,
                "phase": step.phase,
                "role": step.role,
                "host": step.host,
                "kind": step.kind,
                "name": step.name,
                "command": step.command,
                "status": step.status.name,
                "message": step.message,
                "exit_code": step.exit_code,
                "started_at": _iso(step.started_at),
                "finished_at": _iso(step.finished_at),
                "stdout_log": step.stdout_log_id,
                "stderr_log": step.stderr_log_id,
            }
            for step in store.steps(repetition_id)
        ],
        "snapshots": [
            {
                "test": snap.test,
                "name": snap.name,
                "role": snap.role,
                "host": snap.host,
                "parser": snap.parser,
                "status": snap.status.name,
                "message": snap.message,
                "before": None if snap.before is None else dict(snap.before),
                "after": None if snap.after is None else dict(snap.after),
            }
            for snap in store.snapshots(repetition_id)
        ],
    }


def _ran(facts: CheckoutFacts | None) -> dict[str, Any] | None:
    """What a checkout ran (None when nothing was recorded: an older series)."""
    if facts is None:
        return None
    s = facts.symbols
    return {
        "hosts": [
            {"host": h.host, "kernel": h.kernel, "compiler": h.compiler} for h in facts.hosts
        ],
        "symbols": None
        if s is None
        else {
            "binary": s.binary,
            "count": s.count,
            "against": s.against_idx,
            "added": s.added,
            "removed": s.removed,
            "moved": s.moved,
            "message": s.message,
        },
    }


def _series(store: Store, series: SeriesRow) -> dict[str, Any]:
    variant = series.variant_name if series.kind == "variant" else "base"
    checkouts = []
    ran = store.build_facts.of_series(series.id)
    for row in store.checkouts(series.id):
        planned = series.planned_at(row)
        repetitions = [
            {
                "index": rep.idx,
                "started_at": _iso(rep.started_at),
                "finished_at": _iso(rep.finished_at),
                "between_status": None if rep.between_status is None else rep.between_status.name,
                "remeasure": planned is not None and rep.idx >= planned,
                "tests": [
                    {
                        "name": result.test,
                        "status": result.status.name,
                        "message": result.message,
                        "duration": result.duration,
                        "exit_code": result.exit_code,
                        "values": [
                            {
                                "name": v.name,
                                "unit": v.unit,
                                "value": v.value,
                                "direction": v.direction,
                                "variant": variant,
                            }
                            for v in result.values
                        ],
                    }
                    for result in rep.results
                ],
                **_phases(store, rep.id),
            }
            for rep in store.repetitions(row.id)
        ]
        checkouts.append(
            {
                "index": row.idx,
                "commit": row.sha,
                "date": _iso(row.date),
                "status": None if row.build_status is None else row.build_status.name,
                "build_seconds": row.build_seconds,
                "quirks": list(row.quirks),
                "commits_since": row.commit_count,
                "planned_repetitions": planned,
                "commits": [_commit(c) for c in store.commits_since(row.id)],
                "repetitions": repetitions,
                "ran": _ran(ran.get(row.idx)),
            }
        )
    return {
        "id": series.id,
        "name": series.name,
        "project": series.project,
        "kind": series.kind,
        "parent": series.parent_id,
        "variant": variant,
        "from": series.from_spec,
        "to": series.to_spec,
        "step": series.step,
        "repetitions": series.repetitions,
        "planned_repetitions": series.planned_repetitions,
        "between": series.between,
        "host": series.host,
        "state": series.state,
        "started_at": _iso(series.started_at),
        "finished_at": _iso(series.finished_at),
        "config_hash": series.config_hash,
        "fingerprint": series.fingerprint,
        "commands": series.commands,
        "quirks": [
            {"letter": q.letter, "date": _iso(q.at_date), "commit": q.commit, "comment": q.comment}
            for q in series.quirks
        ],
        "checkouts": checkouts,
    }
