"""The findings of some tests only (``--tests``): what ``perfwalk changes`` and a site
published with ``perfwalk report --tests`` show."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from perfwalk.analysis.breaks import TEST
from perfwalk.orchestrate.findings.changes import Findings


def of_tests(found: Findings, keeps: Callable[[str], bool]) -> Findings:
    """``found`` without what belongs to a test ``keeps`` refuses: a change keeps the
    metrics of the tests kept (none: it is gone), a build that broke stays."""
    changes = []
    for event in found.changes:
        metrics = tuple(m for m in event.metrics if keeps(m.test))
        if len(metrics) == len(event.metrics):
            changes.append(event)
        elif metrics:
            changes.append(dataclasses.replace(event, metrics=metrics))
    return Findings(
        changes=changes,
        episodes=[e for e in found.episodes if keeps(e.test)],
        points={s: [p for p in points if keeps(p.test)] for s, points in found.points.items()},
        breaks=[b for b in found.breaks if b.kind != TEST or keeps(b.test)],
    )
