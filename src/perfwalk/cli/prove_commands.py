"""Sub-command of the drill area: prove a drill's culprit on today's tip."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from perfwalk.cli import exits, options
from perfwalk.cli.analysis_commands import format_arg
from perfwalk.cli.spec import Command
from perfwalk.untrusted import show_controls

if TYPE_CHECKING:  # the rest is imported by the command that runs (start-up time)
    from perfwalk.config.model import Config
    from perfwalk.store import Store
    from perfwalk.store.drills import DrillRow
    from perfwalk.store.proofs import ProofRow


def _prove_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "drill",
        nargs="?",
        metavar="DRILL",
        help="the drill whose culprit to prove: its series (as `perfwalk drill` prints it) "
        "or the id of the change it drilled (SERIES:CHECKOUT); default: every drill of the "
        "project that named a culprit and has no proof on the tip's commit yet",
    )
    p.add_argument(
        "--tip",
        metavar="REF",
        help="the commit-ish to prove it on (default: the branch of the drill's walk, "
        "[[walk]] branch or [project] branch)",
    )
    p.add_argument(
        "--max-repetitions",
        type=options.COUNT,
        metavar="N",
        help="the most repetitions per side (default: [drill] prove_repetitions)",
    )
    p.add_argument(
        "--again",
        action="store_true",
        help="prove again a culprit proved on the tip's commit already",
    )
    format_arg(p)


def cmd_prove(args: argparse.Namespace) -> int:
    from perfwalk.composites.prove import provable, prove_culprit
    from perfwalk.config.load import load_config
    from perfwalk.numbers import json_text
    from perfwalk.services.inspect import opened

    config = load_config(args.config)
    text = args.format == "text"
    say = print if text else (lambda _s: None)
    proved: list[ProofRow] = []
    with opened(config) as store:
        drills = _chosen(store, config, args.drill)
        for drill in drills:
            if args.drill is None and provable(drill) is not None:
                continue
            if not args.again and (row := _proved_before(store, config, drill, args.tip)):
                say(f"drill {drill.series_id}: proved before on this tip: {_said(row)}")
                proved.append(row)
                continue
            found = prove_culprit(
                store,
                config,
                drill,
                tip=args.tip,
                max_repetitions=args.max_repetitions or config.drill.prove_repetitions,
                say=say,
            )
            say(f"drill {drill.series_id}: {_said(found.row)}")
            proved.append(found.row)
    if not proved:
        print("no culprit to prove" if text else json_text({"proofs": []}, indent=2))
        return exits.OK
    if not text:
        print(json_text({"proofs": [proof_json(row) for row in proved]}, indent=2))
    return _status(proved)


def proved_after_drill(config: Config, drill_id: int, text: bool) -> dict[str, Any]:
    """``[drill] prove``: the culprit drill ``drill_id`` just named, proved on today's tip
    (said as it goes when ``text``); the proof as ``--format json`` gives it."""
    from perfwalk.composites.prove import prove_culprit
    from perfwalk.errors import PerfwalkError
    from perfwalk.services.inspect import opened

    with opened(config) as store:
        drill = store.drills.get(drill_id)
        assert drill is not None
        try:
            found = prove_culprit(
                store,
                config,
                drill,
                max_repetitions=config.drill.prove_repetitions,
                say=print if text else lambda _s: None,
            )
        except PerfwalkError as error:  # the drill's answer stands without its proof
            if text:
                print(f"  not proved: {show_controls(str(error))}")
            return {"outcome": None, "message": str(error)}
    if text:
        print(f"  proved: {_said(found.row)}")
    return proof_json(found.row)


def _said(row: ProofRow) -> str:
    return show_controls(row.said())


def _status(proved: list[ProofRow]) -> int:
    """1 when a culprit's cost is still on the tip (something to act on), 4 when a
    proof could not tell (undecided, a revert that does not apply, a side that failed),
    else 0."""
    outcomes = {row.outcome for row in proved}
    if "still" in outcomes:
        return exits.FOUND
    if outcomes & {"undecided", "conflict", "failed"}:
        return exits.UNDECIDED
    return exits.OK


def proof_json(row: ProofRow) -> dict[str, Any]:
    """A stored proof as ``--format json`` and the drill's page give it."""
    return {
        "id": row.id,
        "drill": row.drill_id,
        "culprit": row.culprit_sha,
        "tip": row.tip_ref,
        "tip_commit": row.tip_sha,
        "at": row.at.isoformat(),
        "try": row.try_id,
        "outcome": row.outcome,
        **row.answer,
    }


def _chosen(store: Store, config: Config, chosen: str | None) -> list[DrillRow]:
    """The drills of ``config``'s project, or the one ``chosen`` names (its series, or the
    id of the change it drilled); a UsageError naming what is known otherwise."""
    from perfwalk.errors import UsageError

    project = {s.id for s in store.list_series() if s.project == config.project.name}
    drills = [d for d in store.drills.all() if d.series_id in project]
    if chosen is None:
        return drills
    picked = [
        d for d in drills if chosen == str(d.series_id) or chosen == str(d.change.get("id") or "")
    ]
    if not picked:
        known = ", ".join(f"{d.series_id} ({d.change.get('id') or 'a range'})" for d in drills)
        raise UsageError(
            f"no drill {chosen!r} in project {config.project.name} (known: {known or 'none'})",
            hint="give a drill's series as `perfwalk drill` prints it, or the change's id",
        )
    return picked[-1:]  # the newest drill of that change


def _proved_before(
    store: Store, config: Config, drill: DrillRow, tip: str | None
) -> ProofRow | None:
    """The newest proof of ``drill`` on the commit its tip names now, if any."""
    from perfwalk.composites.prove import drill_config
    from perfwalk.git.repo import Repo

    proofs = store.proofs.of_drill(drill.series_id)
    if not proofs:
        return None
    walked = drill_config(store, config, drill)
    sha = Repo(walked.project.repo).resolve(tip or walked.project.branch)
    return next((p for p in reversed(proofs) if p.tip_sha == sha), None)


COMMANDS: dict[str, Command] = {
    "prove": Command(
        "prove a drill's culprit on today's tip: undo it there (its revert as a patch) "
        "and measure the tip with the revert against the tip, as try does; exit 1 when "
        "a culprit's cost is still there, 4 when a proof could not tell (undecided, the "
        "revert does not apply), else 0",
        _prove_args,
        cmd_prove,
        when_interrupted="`perfwalk prove` again proves it anew; the try's repetitions "
        "so far are kept in its series",
    ),
}
