"""``perfwalk reparse``: a series' stored outputs read again by the parsers of the
configuration (a regex fixed after the walk), its values replaced with ``--apply`` and
put back with ``--undo --apply``; a dry run otherwise.

Exit status: 0; 2 for an unknown series, test or checkout range, or a series a walk
is measuring (with ``--apply``).
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.spec import Command
from perfwalk.quantities import format_value, many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.services.reparse import CheckoutChange, MetricChange, ReparseOutcome

_RANGE = re.compile(r"^(\d*)(?:(-)(\d*))?$")


def checkout_range(word: str) -> tuple[int | None, int | None]:
    """``5``, ``3-7``, ``3-`` (from 3 on) or ``-7`` (up to 7): checkout indexes, both
    ends included."""
    found = _RANGE.match(word.strip())
    if found is None or not (found.group(1) or found.group(3)):
        raise argparse.ArgumentTypeError(
            f"expected N, A-B, A- or -B (checkout indexes), got {word[:40]!r}"
        )
    first = int(found.group(1)) if found.group(1) else None
    last = int(found.group(3)) if found.group(3) else None
    if found.group(2) is None:
        last = first
    if first is not None and last is not None and first > last:
        raise argparse.ArgumentTypeError(f"{word!r}: the first checkout is after the last")
    return first, last


checkout_range.__name__ = "checkout range"


def _reparse_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("series", type=options.SERIES_ID, help="the series id")
    p.add_argument(
        "--checkouts",
        type=checkout_range,
        metavar="A-B",
        help="only these checkouts (indexes, both included): 5, 3-7, 3- or -7",
    )
    p.add_argument("--test", metavar="NAME", help="only this test")
    p.add_argument(
        "--apply",
        action="store_true",
        help="replace the values (the old ones are kept, for --undo); without it, only say "
        "what would change",
    )
    p.add_argument(
        "--undo",
        action="store_true",
        help="put back what the newest reparse of the series not undone yet replaced "
        "(with --apply; without it, say what would change)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="default: text")


def cmd_reparse(args: argparse.Namespace) -> int:
    from perfwalk.config.load import load_config
    from perfwalk.errors import UsageError
    from perfwalk.services.inspect import opened
    from perfwalk.services.reparse import Scope, reparse_series, undo_reparse

    config = load_config(args.config)
    if args.undo and (args.checkouts is not None or args.test is not None):
        raise UsageError(
            "--undo puts back all that the newest reparse replaced: no --checkouts or --test",
            hint=f"`perfwalk reparse {args.series} --undo` says what it would put back",
        )
    with opened(config) as store:
        if args.undo:
            outcome = undo_reparse(store, args.series, apply=args.apply)
        else:
            first, last = args.checkouts or (None, None)
            scope = Scope(first, last, args.test)
            outcome = reparse_series(store, config, args.series, scope, apply=args.apply)
    if args.format == "json":
        from perfwalk.numbers import json_text

        print(json_text(_json(outcome), indent=2))
    else:
        for line in _text(outcome, args.apply):
            print(show_controls(line))
    return exits.OK


def _text(outcome: ReparseOutcome, applied: bool) -> list[str]:
    s = outcome.series
    undo = outcome.undoes is not None
    head = f"series {s.id} {s.name!r}: "
    head += f"{outcome.why} puts back" if undo else f"parsed again with {outcome.why}"
    lines = [head, *outcome.skipped]
    lines += [_checkout_line(c) for c in outcome.checkouts]
    verb = ("put back" if undo else "replaced") if applied else "would change"
    counts = (
        f"{outcome.changed_checkouts} of {many(outcome.looked, 'checkout')} {verb} "
        f"({outcome.changed} of {many(outcome.results, 'result')})"
    )
    if outcome.refused:
        its = "its" if outcome.refused == 1 else "their"
        counts += f"; {many(outcome.refused, 'result')} not parsed again, {its} values kept"
    lines.append(counts)
    sid = s.id
    if outcome.applied is not None:
        kind = f"undo {outcome.applied}" if undo else f"reparse {outcome.applied}"
        back = (
            ""
            if undo
            else f"; the old values are kept: `perfwalk reparse {sid} --undo --apply` puts "
            "them back"
        )
        lines.append(
            f"{kind} stored{back}; `perfwalk changes --series {sid}`, `perfwalk show {sid}` "
            "and `perfwalk report` read the new values"
        )
    elif outcome.changed and not undo:
        lines.append(
            f"dry run, nothing changed: `perfwalk reparse {sid} --apply` replaces them (the old "
            f"values are kept: `perfwalk reparse {sid} --undo` says what an undo puts back)"
        )
    elif outcome.changed:
        lines.append(f"dry run, nothing changed: `perfwalk reparse {sid} --undo --apply` does it")
    return lines


def _checkout_line(change: CheckoutChange) -> str:
    said = [
        f"{st.test} {st.before.name} → {st.after.name}" + (f" ×{st.count}" if st.count > 1 else "")
        for st in change.statuses
    ]
    said += [_metric_words(m) for m in change.metrics]
    if change.refused:
        said.append("not parsed again: " + "; ".join(change.refused))
    if change.results and not change.statuses and not change.metrics and not change.refused:
        said.append(f"{many(change.results, 'message')} of results changed")
    return f"checkout {change.idx} ({change.sha[:10]}): " + "; ".join(said)


def _metric_words(metric: MetricChange) -> str:
    """``latency.p99 gained: 12.0 ms (n=3)``, ``latency.p50 10.0 ms (n=3) → 10.4 ms
    (n=3)``: medians of the PASS values."""
    import statistics

    def shown(values: tuple[float, ...]) -> str:
        if not values:
            return "-"
        return f"{format_value(statistics.median(values), metric.unit)} (n={len(values)})"

    name = f"{metric.test}.{metric.name}"
    if metric.gained:
        return f"{name} gained: {shown(metric.after)}"
    if metric.lost:
        return f"{name} lost: {shown(metric.before)}"
    return f"{name} {shown(metric.before)} → {shown(metric.after)}"


def _json(outcome: ReparseOutcome) -> dict[str, Any]:
    return {
        "series": outcome.series.id,
        "why": outcome.why,
        "applied": outcome.applied,
        "undoes": outcome.undoes.id if outcome.undoes is not None else None,
        "checkouts_read": outcome.looked,
        "results_read": outcome.results,
        "results_changed": outcome.changed,
        "results_refused": outcome.refused,
        "skipped": list(outcome.skipped),
        "checkouts": [
            {
                "idx": c.idx,
                "commit": c.sha,
                "results_changed": c.results,
                "statuses": [
                    {
                        "test": s.test,
                        "before": s.before.name,
                        "after": s.after.name,
                        "count": s.count,
                    }
                    for s in c.statuses
                ],
                "metrics": [
                    {
                        "test": m.test,
                        "name": m.name,
                        "unit": m.unit,
                        "before": list(m.before),
                        "after": list(m.after),
                    }
                    for m in c.metrics
                ],
                "refused": list(c.refused),
            }
            for c in outcome.checkouts
        ],
    }


COMMANDS: dict[str, Command] = {
    "reparse": Command(
        "read a series' stored outputs again with the parsers of the configuration (a regex "
        "fixed after the walk) and say, per checkout, what changes (values before → after, "
        "metrics gained and lost, statuses); --apply replaces the values, keeping the old "
        "ones (--undo --apply puts them back); an output cut by [store] log_limit is not "
        "parsed again",
        _reparse_args,
        cmd_reparse,
    ),
}
