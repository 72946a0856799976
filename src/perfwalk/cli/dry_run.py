"""``perfwalk run --dry-run``: the checkouts a walk would take, and what it would run."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from perfwalk.cli.tables import print_table
from perfwalk.quantities import many
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:
    from perfwalk.services.run import DryRun


def print_dry_run(dry: DryRun) -> None:
    plan = dry.plan
    from_, to, step = plan.spec
    most = plan.measuring.repetitions_max
    each = f"{plan.repetitions}" if most is None else f"{plan.repetitions} to {most}"
    if plan.resumed is not None and plan.extension is not None:
        which = f"would extend series {plan.resumed.id} {show_controls(plan.resumed.name)!r}"
    elif plan.resumed is not None:
        which = f"would continue series {plan.resumed.id} {show_controls(plan.resumed.name)!r}"
    else:
        which = f"would start a series {show_controls(plan.name)!r}"
    print(
        f"the walk {which}: {many(len(plan.checkouts), 'checkout')} from "
        f"{from_ or 'the first commit'}"
        f" to {to[:12]} by {step}, {many(each, 'repetition')} each, between {plan.between}, "
        f"on {', '.join(plan.hosts)}"
    )
    wanting = {p.checkout.index: reps for p, reps in dry.wanting()}
    rows = [["#", "date", "commit", "since", "quirks", "runs", "subject"]]
    for planned in plan.checkouts:
        checkout = planned.checkout
        since = checkout.since
        subject = since[-1].subject if since and since[-1].id == checkout.commit else ""
        runs = wanting.get(checkout.index, 0)
        rows.append(
            [
                str(checkout.index),
                f"{checkout.date:%Y-%m-%d %H:%M}",
                checkout.commit[:12],
                str(len(since)),
                ",".join(checkout.quirks) or "-",
                "build failed" if checkout.index in dry.failed else str(runs),
                subject,
            ]
        )
    print_table(rows, stream=sys.stdout, fit=len(rows[0]) - 1)
    for quirk in plan.quirks:
        if any(quirk.letter in p.checkout.quirks for p in plan.checkouts):
            print(
                f"quirk {quirk.letter} at {quirk.config.at}: {show_controls(quirk.config.comment)}"
            )
    if plan.variants:
        names = ", ".join(show_controls(v.name) for v in plan.variants)
        print(f"variants measured beside each checkout, each in a series of its own: {names}")
    repetitions = sum(reps for _planned, reps in dry.wanting())
    print(
        f"it would run {many(dry.builds(), 'build')} and {many(repetitions, 'repetition')}"
        + (" at most (adaptive repetitions)" if most is not None else "")
        + "; nothing was built or stored (run it without --dry-run)"
    )
