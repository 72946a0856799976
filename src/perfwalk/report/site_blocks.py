"""Rendering a series' blocks of :data:`~perfwalk.report.layout.PLOT_BLOCK` checkouts,
each independent of the others (a long series' blocks spread over forked worker
processes, each with a store of its own): the block's plot data (a seal's into the
seal's files), its table pages, and for the checkouts that changed the data files of
their checkout, log and commit pages, with the large logs, profiles and symbol diffs the
site lacks. What a block found (its plot keys, status counts, the newest table) goes back
to the publish as a :class:`BlockOutcome`."""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfwalk.report import layout
from perfwalk.report.collect import CheckoutData, Policies, read_block
from perfwalk.report.context import SeriesContext
from perfwalk.report.failures import Failure, failures_of, has_failures, status_counts
from perfwalk.report.files import SiteWriter
from perfwalk.report.flame_data import profile_data_file
from perfwalk.report.forked import in_forks
from perfwalk.report.html import newest_first
from perfwalk.report.pages.build_facts import symbol_diffs
from perfwalk.report.pages.checkout import checkout_data_file
from perfwalk.report.pages.commits import commits_data_file
from perfwalk.report.pages.logs import large_log_file, logs_data_file, pruned_large_log
from perfwalk.report.pages.plots import block_files
from perfwalk.report.pages.series import table_page
from perfwalk.report.pages.table import checkout_table
from perfwalk.report.pages.variants import VariantBlock, variant_table
from perfwalk.report.phase_data import phases_json, step_logs
from perfwalk.report.site_manifest import BlockJob
from perfwalk.store import CheckoutRow, Store
from perfwalk.store.site_reads import StepSite


@dataclass(frozen=True)
class BlockOutcome:
    series_id: int
    block: int
    keys: dict[str, tuple[str, str, tuple[str, ...]]]  # key → test, unit, names
    newest: str | None
    #: per test, how many checkouts had each worst status (by severity); how many
    #: checkouts did not build and ran no test
    written: int
    counts: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)
    unbuilt: int = 0


@dataclass
class RenderShared:
    """What block jobs need; inherited by forked workers, never pickled."""

    out: Path
    contexts: dict[int, SeriesContext]
    policies: Policies
    store: Store
    store_url: str | None
    full: bool

    def open_own_store(self) -> None:
        """In a forked worker: a store of its own (publishing only reads)."""
        assert self.store_url is not None
        self.store = Store.open(self.store_url, read_only=True)


def render_blocks(
    shared: RenderShared, groups: list[tuple[BlockJob, ...]], workers: int
) -> list[BlockOutcome]:
    """Render the groups of blocks, in ``workers`` forked processes when the store can
    be opened again (``shared.store_url``)."""
    done = in_forks(
        lambda number: _render_group(shared, groups[number]),
        len(groups),
        workers if shared.store_url is not None else 1,
        what="the site's pages",
        start=shared.open_own_store,
    )
    return [outcome for outcomes in done for outcome in outcomes]


def _render_group(shared: RenderShared, group: tuple[BlockJob, ...]) -> list[BlockOutcome]:
    """Render the blocks of ``group``; a seal's plot data into the seal's files (and
    its blocks' own files, from before it was complete, removed). The first outcome
    counts the files the group wrote."""
    files = SiteWriter(shared.out)
    outcomes: list[BlockOutcome] = []
    parts: dict[str, list[str]] = {}
    for job in group:
        outcome, plots = _render(shared, job, files)
        outcomes.append(outcome)
        for key, text in plots.items():
            if job.sealed:
                parts.setdefault(key, []).append(text)
                files.site.remove(layout.plot_data(job.series_id, key, job.block))
            else:
                files.write(layout.plot_data(job.series_id, key, job.block), text)
    first = group[0]
    for key, texts in parts.items():
        seal = first.block // layout.SEAL
        files.write(layout.sealed_data(first.series_id, key, seal), "".join(texts))
    outcomes[0] = dataclasses.replace(outcomes[0], written=files.written)
    return outcomes


def _render(
    shared: RenderShared, job: BlockJob, files: SiteWriter
) -> tuple[BlockOutcome, dict[str, str]]:
    """Render one block's tables and checkouts' data; its plot data, to be written."""
    store = shared.store
    ctx = shared.contexts[job.series_id]
    start = job.block * layout.PLOT_BLOCK
    rows = ctx.checkouts[start : start + layout.PLOT_BLOCK]
    data = read_block(store, ctx.id, rows, shared.policies)
    failures = {c.row.idx: failures_of(store, c) for c in data if has_failures(c)}
    plots = block_files(ctx, job.block, data, failures, shared.policies.drawn)
    variants = _variant_blocks(shared, ctx, rows) if job.tables or job.newest else []
    for number in job.tables:
        first = number * layout.TABLE_COLUMNS - start
        part = data[first : first + layout.TABLE_COLUMNS]
        at = layout.table_page(ctx.id, number)
        files.write(at, table_page(ctx, number, _table(at, ctx, part, variants)))
    if job.checkouts:
        _render_checkouts(store, ctx, files, job.block, data, failures=failures, full=shared.full)
    counts, unbuilt = status_counts(data)
    newest = None
    if job.newest:
        last_start = layout.table_of(len(ctx.checkouts) - 1) * layout.TABLE_COLUMNS - start
        newest = _table(layout.series_page(ctx.id), ctx, data[last_start:], variants)
    outcome = BlockOutcome(
        series_id=ctx.id,
        block=job.block,
        keys={key: (t, u, n) for key, (t, u, n, _text) in plots.items()},
        newest=newest,
        written=0,
        counts=counts,
        unbuilt=unbuilt,
    )
    return outcome, {key: text for key, (_t, _u, _n, text) in plots.items()}


def _variant_blocks(
    shared: RenderShared, ctx: SeriesContext, rows: Sequence[CheckoutRow]
) -> list[VariantBlock]:
    """The checkouts of each variant of the walk ``ctx`` at the checkouts ``rows``."""
    wanted = {row.idx for row in rows}
    found = []
    for variant in ctx.variants:
        own = [row for row in variant.checkouts if row.idx in wanted]
        data = read_block(shared.store, variant.id, own, shared.policies)
        found.append(VariantBlock(variant, {c.row.idx: c for c in data}))
    return found


def _table(
    at: str, ctx: SeriesContext, part: Sequence[CheckoutData], variants: Sequence[VariantBlock]
) -> str:
    """The checkouts' table: with the variants' columns beside the walk's, if it has any;
    in a box that opens at its newest checkouts (its right end) when it is too wide."""
    if ctx.variants:
        return newest_first(variant_table(at, ctx, part, variants))
    return newest_first(checkout_table(at, ctx, part))


def _render_checkouts(
    store: Store,
    ctx: SeriesContext,
    files: SiteWriter,
    block: int,
    data: Sequence[CheckoutData],
    *,
    failures: Mapping[int, Sequence[Failure]],
    full: bool,
) -> None:
    """The data files of a block's checkout, log and commit pages; the large logs'
    files when they are new (a stored log never changes)."""
    rows = [c.row for c in data]
    first, last = rows[0].idx, rows[-1].idx
    steps = store.site.steps(ctx.id, first, last)
    snapshots = store.site.snapshots(ctx.id, first, last)
    for c in data:
        c.phases = phases_json(steps.get(c.row.idx, []), snapshots.get(c.row.idx, []))
    files.write(layout.checkout_data(ctx.id, block), checkout_data_file(ctx, block, data, failures))
    commits = store.site.commits(ctx.id, first, last)
    files.write(layout.commits_data(ctx.id, block), commits_data_file(ctx, block, rows, commits))
    logs = store.site.logs(ctx.id, first, last)
    text, large = logs_data_file(ctx, block, logs, lambda: _log_owners(data, steps))
    files.write(layout.logs_data(ctx.id, block), text)
    _write_profiles(store, ctx, files, rows, full=full)
    for log_id, target in symbol_diffs(ctx, [row.idx for row in rows]):
        if full or not files.site.exists(target):  # a stored diff never changes
            files.write(target, store.log(log_id).data)
    for big in large:
        target = layout.large_log_data(ctx.id, big.row.id)
        if full or not files.site.exists(target):
            files.write(layout.log_text(ctx.id, big.row.id), zlib.decompress(big.row.data))
            files.write(target, large_log_file(ctx, big))
    gone = [r for r in logs if r.pruned and files.site.exists(layout.large_log_data(ctx.id, r.id))]
    owners = _log_owners(data, steps) if gone else {}
    for row in gone:  # a large log pruned since its files were written: they say so
        script, said = pruned_large_log(ctx, row, owners.get(row.id, -1))
        files.write(layout.large_log_data(ctx.id, row.id), script)
        files.write(layout.log_text(ctx.id, row.id), said)


def _write_profiles(
    store: Store, ctx: SeriesContext, files: SiteWriter, rows: Sequence[CheckoutRow], *, full: bool
) -> None:
    """The data files of the profiles taken at ``rows`` that the site lacks (a stored
    profile never changes)."""
    for row in rows:
        for test, profile_id in ctx.profiles.get(row.idx, ()):
            target = layout.profile_data(ctx.id, profile_id)
            if not full and files.site.exists(target):
                continue
            found = store.profiles.shipped(profile_id)
            if found is None:
                continue
            profile, compressed = found
            run = "the extra run" if profile.extra else f"repetition {profile.repetition}"
            what = f"{run} on {profile.host}: {profile.tool} {profile.event}"
            what += f", {profile.samples} samples"
            if profile.cut:
                what += f" ({profile.dropped} in the lightest stacks not kept)"
            if profile.message:  # what a bound changed (deep stacks folded…)
                what += f"; {profile.message}"
            text = profile_data_file(profile_id, compressed, test=test, checkout=row.idx, what=what)
            files.write(target, text)


def _log_owners(
    data: Iterable[CheckoutData], steps: Mapping[int, Sequence[StepSite]]
) -> dict[int, int]:
    """Log id → the index of the checkout it belongs to."""
    owner: dict[int, int] = {}
    for idx, own in steps.items():
        owner.update((log_id, idx) for log_id in step_logs(own))
    for c in data:
        ids = [c.row.build_log_id, *(q.log_id for q in c.row.quirk_runs)]
        if c.detail:
            detail = json.loads(c.detail)
            ids += [rep[3] for rep in detail["reps"]]
            ids += [log for result in detail["results"] for log in result[7:9]]
        owner.update((log_id, c.row.idx) for log_id in ids if log_id)
    return owner
