"""The plan of an extension (``perfwalk run --extend SERIES``): more repetitions, or
variants, at the checkouts a stored walk's series has, measured as the walk measured
them (its order: rounds shuffled with a seed of the extension's own, or checkout after
checkout), without measuring again or duplicating anything stored.

- ``-n N``: every checkout of the series, and of its variants' series, gets
  repetitions up to N, numbered after the stored ones;
- ``--variants NAME,…``: each variant gets a series of its own measured at exactly the
  series' checkouts (``-n`` repetitions each, else as many as the series has), and the
  plain checkout as many new repetitions, interleaved with them: a variant is compared
  with the plain checkout measured beside it, on the machine as it is now, not with
  repetitions measured days before.

An interrupted extension is continued by ``--extend SERIES`` again or by ``run
--resume``: its repetition numbers come from what was stored before it began (the
repetitions up to its ``last_repetition``), so the continuation measures exactly what
is missing. A series that runs, a drill's, a try's, a push or regress series, one
whose walk did not end, and one whose checkouts' commits are gone are refused, each
error saying what to do.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

from perfwalk.config.model import Config, VariantConfig
from perfwalk.config.settings import BASE_VARIANT
from perfwalk.errors import UsageError
from perfwalk.git.history import HistoryEntry
from perfwalk.git.repo import Repo
from perfwalk.model import Checkout
from perfwalk.orchestrate.checkout.variants import check_modifiers, chosen_variants
from perfwalk.orchestrate.extend.refusals import (
    check_commands,
    check_new,
    check_options,
    check_same,
    check_series,
    more_repetitions,
    walked_line,
)
from perfwalk.orchestrate.hosts.topology import Topology
from perfwalk.orchestrate.walk.plan import (
    Extending,
    PlannedCheckout,
    RunOptions,
    Unit,
    WalkPlan,
    check_walk,
    history_quirks,
    quirks_base,
    stored_variants,
)
from perfwalk.store import Store
from perfwalk.store.records import CheckoutRow, Measuring, SeriesRow


def extension_to_resume(store: Store, config: Config, options: RunOptions) -> SeriesRow | None:
    """The series whose unfinished extension ``run --resume`` continues: the series a
    job resumes, or the newest unfinished extension or walk made with this
    configuration when it is an extension (None: a walk is resumed, or nothing)."""
    if options.resume_series is not None:
        series = store.series(options.resume_series)
        return series if store.extensions.unfinished(series.id) is not None else None
    walk = store.find_unfinished(config.hash)
    found = store.extensions.unfinished_made_with(config.hash)
    if walk is not None:
        own = store.extensions.unfinished(walk.id)
        if own is not None and (found is None or own.started_at >= found.started_at):
            return walk
        if found is None or walk.started_at > found.started_at:
            return None
    return None if found is None else store.series(found.series_id)


def plan_extension(
    store: Store, config: Config, topology: Topology, options: RunOptions, series: SeriesRow
) -> WalkPlan:
    """The plan that extends ``series`` as ``options`` ask (``repetitions``,
    ``variants``), or continues its unfinished extension; a UsageError naming the
    series and what to do when it cannot be extended so. ``config`` is as the series'
    walk runs it (a named walk's: :func:`perfwalk.orchestrate.walk.plan.walk_config`)."""
    check_options(options, config, series.id)
    check_series(store, config, series)
    unfinished = store.extensions.unfinished(series.id)
    if unfinished is None and series.state != "finished":
        raise UsageError(
            f"series {series.id} is {series.state}: its walk did not end",
            hint="finish it first with `perfwalk run --resume`, then extend it",
        )
    rows = store.checkouts(series.id)
    if not rows:
        raise UsageError(
            f"series {series.id} has no checkout to extend",
            hint="extend a series that measured something",
        )
    repo = Repo(config.project.repo)
    history = walked_line(repo, config, series, rows)
    quirks = history_quirks(repo, config, history)
    check_commands(config, series, quirks)
    stored = {row.variant_name: row.id for row in store.variant_series(series.id)}
    if unfinished is not None:
        check_same(options, unfinished)
        added, mark, before = (
            unfinished.variants,
            unfinished.last_repetition,
            unfinished.repetitions_before,
        )
    else:
        added, mark = options.variants, store.extensions.last_repetition()
        before = series.planned_repetitions or series.repetitions
        check_new(store, series, added, stored)
    variants = chosen_variants(config, added) if added else stored_variants(store, config, series)
    ids = {
        BASE_VARIANT: series.id,
        **{v.name: stored[v.name] for v in variants if v.name in stored},
    }
    firsts = {name: _firsts(store.done_repetitions(sid, through=mark)) for name, sid in ids.items()}
    each: int | None = None
    if added:  # each new variant's count, and as many more of the plain checkout
        if unfinished is not None:
            each, target = unfinished.variant_repetitions or before, unfinished.repetitions
        else:
            each = options.repetitions or before
            target = max(firsts[BASE_VARIANT].values(), default=0) + each
        counts = {BASE_VARIANT: target, **dict.fromkeys(added, each)}
    else:
        target = (
            unfinished.repetitions
            if unfinished is not None
            else more_repetitions(options, series, before)
        )
        counts = {BASE_VARIANT: target, **{v.name: target for v in variants}}
    check_walk(config, topology, max(counts.values()), series.between, series)
    check_modifiers(config.variants, topology)
    planned = _placed(store, repo, config, history, rows)
    spans: dict[Unit, range] = {}
    for name, count in counts.items():
        first = firsts.get(name, {})
        for p in planned:
            start = first.get(p.checkout.index, 0)
            spans[(name, p.checkout.index)] = range(start, max(start, count))
    seed = unfinished.seed if unfinished is not None else _new_seed(series, variants)
    return WalkPlan(
        repo=repo,
        checkouts=tuple(planned),
        quirks=quirks,
        spec=(series.from_spec, series.to_spec, series.step),
        repetitions=target,
        between=series.between,
        hosts=tuple(member.name for member in topology),
        name=series.name,
        resumed=series,
        parent=series.parent_id,
        measuring=Measuring(order=series.order, seed=seed),
        variants=variants,
        extension=Extending(
            stored=unfinished,
            last_repetition=mark,
            repetitions_before=before,
            spans=spans,
            left=_left(store, ids, spans),
            added=tuple(added),
            variant_repetitions=each,
        ),
    )


def _placed(
    store: Store,
    repo: Repo,
    config: Config,
    history: Sequence[HistoryEntry],
    rows: Sequence[CheckoutRow],
) -> list[PlannedCheckout]:
    """The stored checkouts as a walk builds them, each with its position on the line,
    the commits since the previous one and its quirks' letters; the first crosses the
    quirks from ``[run] quirks_since`` as the walk's did."""
    where = {entry.id: position for position, entry in enumerate(history)}
    base = quirks_base(repo, config, history)
    return [
        PlannedCheckout(
            Checkout(
                row.idx,
                row.sha,
                row.date,
                since=tuple(store.commits_since(row.id)),
                quirks=row.quirks,
            ),
            where[row.sha],
            base if n == 0 else None,
        )
        for n, row in enumerate(rows)
    ]


def _firsts(done: set[tuple[int, int]]) -> dict[int, int]:
    """Per checkout index, the number after its last stored repetition."""
    found: dict[int, int] = {}
    for index, rep in done:
        found[index] = max(found.get(index, 0), rep + 1)
    return found


def _left(store: Store, ids: Mapping[str, int], spans: Mapping[Unit, range]) -> dict[int, int]:
    """Per checkout index, the repetitions of ``spans`` not stored yet."""
    have: dict[Unit, set[int]] = {}
    for name, series_id in ids.items():
        for index, rep in store.done_repetitions(series_id):
            have.setdefault((name, index), set()).add(rep)
    left: dict[int, int] = {}
    for unit, span in spans.items():
        stored = have.get(unit, set())
        left[unit[1]] = left.get(unit[1], 0) + sum(1 for rep in span if rep not in stored)
    return left


def _new_seed(series: SeriesRow, variants: Sequence[VariantConfig]) -> int | None:
    """The seed of an extension's shuffles: its own, drawn anew, in rounds or with
    variants interleaved (None: checkout after checkout, nothing to shuffle)."""
    return secrets.randbits(62) if series.order == "rounds" or variants else None
