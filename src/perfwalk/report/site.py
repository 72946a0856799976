"""Publish the static site: all series → one series → one checkout → its logs, the
commit log between neighbouring checkouts, and interactive plots. Plain files, no
CDN: any web server (or none: open index.html) shows it.

The checkout, log and commit pages of a series are one page each that draws what
its link names from data files, one per block of :data:`layout.PLOT_BLOCK`
checkouts (and one per large log): publishing 10 000 checkouts writes a few hundred
files, not tens of thousands of pages.

Publishing is incremental: ``.perfwalk/manifest.json`` in the site remembers what
each checkout looked like when its pages were written (build, quirk runs,
repetitions, commits, zoom links, changes, excursions, its variants' columns), so a
publish after one new checkout rewrites the data files and the table page of the
block it falls in, the series page, its plot metadata and the index, and nothing
else. A conductor run's page (:mod:`perfwalk.report.pages.conduct`) is rewritten
when its state, trials or values changed. Blocks are independent: a full publish of
a long series spreads them over worker processes.

A try (a series of kind ``try``) has a page of its own in place of the series page
(:mod:`perfwalk.report.pages.tries`), listed apart on the index: no plots of two
checkouts, and not among the walks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk import __version__
from perfwalk.analysis.floor import Sight
from perfwalk.analysis.levels import MetricPoints
from perfwalk.config.model import Config, WatchConfig
from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.assets import site_assets
from perfwalk.report.change_list import (
    ListedChange,
    ListedEpisode,
    by_series,
    episodes_by_series,
)
from perfwalk.report.collect import CheckoutData, Policies, read_block
from perfwalk.report.context import SeriesContext, variants_of, zoom_links
from perfwalk.report.failures import Failure, failures_of, has_failures, status_counts, walk_counts
from perfwalk.report.feed import atom_feed
from perfwalk.report.files import SiteFolder, SiteWriter
from perfwalk.report.flame_data import profile_data_file
from perfwalk.report.forked import in_forks
from perfwalk.report.html import newest_first
from perfwalk.report.last_night import last_night
from perfwalk.report.pages.build_facts import fact_sig, symbol_diffs
from perfwalk.report.pages.change_table import change_facts
from perfwalk.report.pages.checkout import checkout_data_file, checkout_shell_page
from perfwalk.report.pages.commits import commits_data_file, commits_shell_page
from perfwalk.report.pages.conduct import ConductData, conduct_page
from perfwalk.report.pages.drill import drill_sections
from perfwalk.report.pages.index import SeriesSummary, index_page
from perfwalk.report.pages.last_night import last_night_strip
from perfwalk.report.pages.logs import (
    large_log_file,
    log_shell_page,
    logs_data_file,
    logs_shell_page,
)
from perfwalk.report.pages.plots import PlotSpec, block_files, meta_file
from perfwalk.report.pages.profiles import profile_shell_page
from perfwalk.report.pages.series import series_page, table_page
from perfwalk.report.pages.setup import setup_page
from perfwalk.report.pages.table import checkout_table
from perfwalk.report.pages.tries import TryListing, try_page, try_sections
from perfwalk.report.pages.variants import VariantBlock, variant_table, variants_section
from perfwalk.report.phase_data import phases_json, step_logs
from perfwalk.report.releases import NO_RELEASES, Releases
from perfwalk.report.series_levels import MetricLevels
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store import CheckoutRow, Store
from perfwalk.store.conduct import ConductSummary
from perfwalk.store.site_reads import StepSite

#: bump when pages change shape: a site written by another format is rewritten whole
#: (6: a walk's variants beside its checkouts, in its plots and its manifest entry;
#: a try's page in place of its series page; the conductor runs; 7: the checkouts' table
#: in a box that opens at its newest checkouts, failures on the plots; 8: releases, levels;
#: 9: differential profiles without their unresolved frames, their noise said; 10: the
#: index's "last night" strip and night.js; 11: ticks.js, time axes ticked in the zone)
SITE_FORMAT = 11
MANIFEST = f"{layout.STATE_DIR}/manifest.json"


@dataclass(frozen=True)
class PublishOptions:
    """``changes`` to list (the index's "Changes", the feed ``changes.xml``) and mark
    (tables, plots, checkout pages), one per metric with its culprit and triage;
    ``episodes`` (excursions, drifts) to show; ``full`` rewrites every page;
    ``workers`` > 1 renders blocks in that many processes, each opening the store at
    ``store_url``; ``points``, by series, its metrics' per-checkout summaries as the
    change detection read them (cut into the levels the pages show; without them, a
    table gives the levels among its own checkouts only); ``times``: the site's time
    zone (``[report] time_zone``), every page's dates and times written in it."""

    changes: Sequence[ListedChange] = ()
    episodes: Sequence[ListedEpisode] = ()
    full: bool = False
    workers: int = 1
    store_url: str | None = None
    releases: Releases = NO_RELEASES  # the project's, resolved (report.releases)
    points: Mapping[int, Sequence[MetricPoints]] | None = None
    times: SiteTimes = UTC_TIMES


@dataclass(frozen=True)
class PublishReport:
    index: Path
    written: int  # files written
    series: int
    checkouts: int  # checkouts whose pages were (re)written
    seconds: float
    full: bool
    warnings: tuple[str, ...] = ()  # what was left out (a release without its repository)


@dataclass(frozen=True)
class BlockJob:
    """Render one block of a series: its plot data, the ``tables`` pages in it, the
    data of its checkouts' pages when ``checkouts`` (those that changed) are given,
    and (``newest``) the newest table."""

    series_id: int
    block: int
    tables: tuple[int, ...]
    checkouts: tuple[int, ...]  # checkout indexes
    newest: bool
    sealed: bool = False  # its plot data go into its seal's files, not its own


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
class _Shared:
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


def publish(
    store: Store,
    config: Config | None,
    out: Path,
    options: PublishOptions | None = None,
) -> PublishReport:
    """Write (or bring up to date) the site under ``out``."""
    options = options or PublishOptions()
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    SiteFolder(out).remove_stale_temporaries()  # what a killed publish left
    settings = _settings(config, options.releases, options.times)
    manifest = {} if options.full else _load_manifest(out)
    full = options.full or manifest.get("settings") != settings
    if full:
        manifest = {}
    files = SiteWriter(out)
    _write_assets(files, full)
    every = store.list_series()
    checkouts = {s.id: store.checkouts(s.id) for s in every}
    zooms = zoom_links(every, checkouts, options.times)
    changes = by_series(options.changes)
    episodes = episodes_by_series(options.episodes)
    commit_url = config.project.commit_url if config is not None else ""
    contexts = {
        s.id: SeriesContext(
            series=s,
            checkouts=checkouts[s.id],
            commit_url=commit_url,
            zooms=zooms.get(s.id, {}),
            changes=changes.get(s.id, ()),
            episodes=episodes.get(s.id, ()),
            facts=store.build_facts.of_series(s.id),
            profiles=store.profiles.listed(s.id),
            releases=options.releases.found,
            times=options.times,
        )
        for s in every
    }
    drill_rows = store.drills.all()
    for row in drill_rows:  # a drill's levels are those its answer found
        if row.series_id in contexts:
            drilled = drill_level_starts(row.verdict, row.answer)
            contexts[row.series_id] = dataclasses.replace(contexts[row.series_id], drilled=drilled)
    if options.points is not None:
        contexts = {sid: _with_levels(ctx, options.points) for sid, ctx in contexts.items()}
    for walk, variants in variants_of(every).items():  # shown beside the walk's checkouts
        columns = tuple((s.variant_name, s.id) for s in (contexts[walk].series, *variants))
        for v in variants:
            contexts[v.id] = dataclasses.replace(contexts[v.id], columns=columns)
        contexts[walk] = dataclasses.replace(
            contexts[walk], variants=tuple(contexts[v.id] for v in variants), columns=columns
        )
    old_series: dict[str, Any] = manifest.get("series", {})
    new_series: dict[str, Any] = {}
    jobs: list[tuple[BlockJob, ...]] = []
    # a differential's data file is written once, and again by a full publish
    written = (lambda _at: False) if full else files.site.exists
    drills, profile_files = drill_sections(store, drill_rows, contexts, written, config)
    for at, text in profile_files.items():
        files.write(at, text)
    tried = {row.series_id: row for row in store.tries.all()}
    tries, profile_files = try_sections(store, contexts, list(tried.values()), written, config)
    for at, text in profile_files.items():
        files.write(at, text)
    marks = {s.id: store.site.repetition_marks(s.id) for s in every}
    for s in every:
        section = drills.get(s.id, "") + tries.get(s.id, "")
        state, series_jobs = _plan(contexts[s.id], old_series.get(str(s.id)), section, marks)
        new_series[str(s.id)] = state
        jobs.extend(series_jobs)
    shared = _Shared(out, contexts, Policies(config), store, options.store_url, full)
    outcomes = _run(shared, jobs, options)
    rendered = {s.id: False for s in every}
    newest: dict[int, str] = {}
    for outcome in outcomes:
        state = new_series[str(outcome.series_id)]
        state["blocks"][str(outcome.block)] = {
            "keys": {k: [t, u, list(n)] for k, (t, u, n) in outcome.keys.items()},
            "counts": outcome.counts,
            "unbuilt": outcome.unbuilt,
        }
        rendered[outcome.series_id] = True
        files.add(outcome.written)
        if outcome.newest is not None:
            newest[outcome.series_id] = outcome.newest
    summaries: list[SeriesSummary] = []
    listed: list[TryListing] = []
    state_of = {s.id: new_series[str(s.id)] for s in every}
    specs_of = {s.id: _sealed_specs(_specs(state_of[s.id]), state_of[s.id]) for s in every}
    counts_of_series = {s.id: _counts(state_of[s.id]) for s in every}
    worst_of_series = {s.id: _worst(counts_of_series[s.id]) for s in every}
    for s in every:
        ctx, state, specs = contexts[s.id], state_of[s.id], specs_of[s.id]
        if rendered[s.id] or state["facts"] != old_series.get(str(s.id), {}).get("facts"):
            files.write(layout.setup_page(s.id), setup_page(s, ctx.times))
            files.write(layout.series_meta(s.id), meta_file(ctx, specs))
            if s.kind == "try" and s.id in tried:
                page_text = try_page(ctx, tried[s.id], tries[s.id], newest.get(s.id, ""))
            else:
                page_text = series_page(
                    ctx,
                    specs,
                    newest.get(s.id, ""),
                    drills.get(s.id, ""),
                    variants=variants_section(layout.series_page(s.id), ctx, worst_of_series),
                    variant_specs=[spec for v in ctx.variants for spec in specs_of[v.id]],
                )
            files.write(layout.series_page(s.id), page_text)
        _write_shells(files, ctx, full)
        if s.kind == "try" and s.id in tried:
            listed.append(TryListing(s, tried[s.id]))
            continue
        summaries.append(
            SeriesSummary(
                series=s,
                first=ctx.checkouts[0] if ctx.checkouts else None,
                last=ctx.checkouts[-1] if ctx.checkouts else None,
                checkouts=len(ctx.checkouts),
                worst=worst_of_series[s.id],
                counts=counts_of_series[s.id],
                specs=tuple(specs),
                changes=tuple(ctx.changes),
                episodes=tuple(ctx.episodes),
                undecided=len(undecided_metrics([ctx])),
            )
        )
    runs = store.conduct.summaries()
    old_conduct: dict[str, Any] = manifest.get("conduct", {})
    new_conduct = _write_conduct(store, files, runs, old_conduct, full=full, times=options.times)
    site = files.site
    _write_feed(files, config, options.changes)
    matrix = site.exists(layout.MATRIX_INDEX)
    changed = (
        set(old_series) != set(new_series)
        or set(old_conduct) != set(new_conduct)
        or matrix != manifest.get("matrix", False)
    )
    now = datetime.now(UTC)
    night = last_night(
        store,
        options.changes,
        stale_after=(config.watch if config is not None else WatchConfig()).stale_seconds,
        published_at=now,
    )
    if files.written or changed or night is not None or not site.exists(layout.INDEX):
        index = index_page(
            summaries,
            options.changes,
            undecided=undecided_metrics(contexts[x.series.id] for x in summaries),
            matrix=matrix,
            conduct=runs,
            tries=listed,
            releases=options.releases.found,
            times=options.times,
            night=last_night_strip(night, options.times, now),
        )
        files.write(layout.INDEX, index)
    manifest_text = json.dumps(
        {"settings": settings, "series": new_series, "matrix": matrix, "conduct": new_conduct},
        sort_keys=True,
        allow_nan=False,
    )
    site.write(MANIFEST, (manifest_text + "\n").encode())  # not counted: always written
    return PublishReport(
        index=out / layout.INDEX,
        written=files.written,
        series=len(every),
        checkouts=sum(len(job.checkouts) for group in jobs for job in group),
        seconds=time.perf_counter() - started,
        full=full,
        warnings=options.releases.warnings,
    )


def _with_levels(ctx: SeriesContext, points: Mapping[int, Sequence[MetricPoints]]) -> SeriesContext:
    """``ctx`` with the levels of each metric the detection read in it (none for a try)."""
    found = points.get(ctx.id)
    if found is None:
        return ctx
    levels = {(p.test, p.name): MetricLevels.of(p, ctx.level_starts(p.test, p.name)) for p in found}
    return dataclasses.replace(ctx, levels=levels)


def drill_level_starts(verdict: str | None, answer: Mapping[str, Any] | None) -> tuple[int, ...]:
    """Where a drill's answer puts the levels of its series (checkout indexes of its
    series, which are positions in its line of commits): the old level up to ``lo``,
    the new from ``hi`` on, the commits it could not place between; one level when it
    found no change or has no answer yet."""
    answer = answer or {}
    lo, hi = answer.get("lo_position"), answer.get("hi_position")
    if verdict in (None, "no-change") or not isinstance(lo, int) or not isinstance(hi, int):
        return ()
    return tuple(sorted({lo + 1, hi}))


# -- planning: what changed since the last publish -------------------------------------


def _settings(
    config: Config | None, releases: Releases = NO_RELEASES, times: SiteTimes = UTC_TIMES
) -> str:
    """What every page depends on besides the store: format, version, configuration,
    the releases marked on the plots, the time zone its times are written in."""
    parts = [str(SITE_FORMAT), __version__, config.hash if config is not None else "-"]
    parts.append(times.zone)
    if config is not None:
        parts.append(config.project.commit_url)
    if releases.found:
        parts.append(releases.digest())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _load_manifest(out: Path) -> dict[str, Any]:
    data = SiteFolder(out).read(MANIFEST)
    try:
        loaded = json.loads(data or b"{}")
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _checkout_sig(row: CheckoutRow, marks: Mapping[int, tuple[int, int]]) -> list[Any]:
    reps = marks.get(row.idx, (0, 0))
    return [
        row.sha,
        int(row.build_status) if row.build_status is not None else None,
        row.build_log_id,
        [[q.letter, q.log_id] for q in row.quirk_runs],
        row.commit_count,
        row.claimed,  # a commit's words git told over a push's claim: its commit log again
        list(reps),
    ]


def _facts(ctx: SeriesContext, drill: str) -> tuple[str, list[Any], list[Any]]:
    """What the series page and its plot metadata show besides its checkouts, as a
    digest: ``drill`` (the drill section), the changes (what the plots' tooltips and
    the checkout pages' banners tell of each: its culprit, triage…), the other
    findings and, for a walk with variants, the same of each variant (its page lists
    their changes and findings); with the changes and findings as the manifest keeps
    them (what marks the tables)."""
    changes, episodes = _change_list(ctx), _episode_list(ctx)
    series = ctx.series
    told = [change_facts(layout.INDEX, c, ctx.times) for c in ctx.changes]
    text = json.dumps(
        [
            drill,
            episodes,
            told,
            series.name,
            series.state,
            series.finished_at.isoformat() if series.finished_at else None,
            [[q.letter, q.at_date.isoformat(), q.comment] for q in series.quirks],
            [[v.id, v.variant_name, _facts(v, "")[0]] for v in ctx.variants],
            [list(column) for column in ctx.columns],  # its checkouts link the others
            _levels_list(ctx),  # its section "Levels"
        ],
        allow_nan=False,
    )
    return hashlib.sha256(text.encode()).hexdigest(), changes, episodes


def _levels_list(ctx: SeriesContext) -> list[list[Any]]:
    """The levels of every metric, as the series page lists them (ends and figures),
    and what the walk could see in it."""
    return [
        [
            test,
            name,
            [
                [x.first, x.last, x.n, repr(x.median), repr(x.sd), repr(x.min), repr(x.max)]
                for x in found.levels
            ],
            _sight_words(found.sight),
        ]
        for (test, name), found in sorted((ctx.levels or {}).items())
    ]


def _sight_words(sight: Sight | None) -> list[Any]:
    """What the series page says of what the walk could see in a metric."""
    if sight is None:
        return []
    step = sight.floor.candidate
    where = [] if step is None else [step.previous, step.index, repr(step.relative)]
    return [sight.said, bool(sight.undecided or sight.kept), where]


def undecided_metrics(contexts: Iterable[SeriesContext]) -> list[tuple[int, str, str]]:
    """(series, its name, why) of each metric of ``contexts`` the walk could not judge
    (none of a drill's or a try's series: they have no sight)."""
    return [
        (ctx.id, ctx.series.name, sight.undecided)
        for ctx in contexts
        for _key, found in sorted((ctx.levels or {}).items())
        if (sight := found.sight) is not None and sight.undecided
    ]


def _table_levels(ctx: SeriesContext) -> list[str]:
    """Per table page, a digest of the levels its rows give (its own series' and its
    variants'): a page is written again when a level it shows moved or changed, even
    if none of its checkouts did (a change detected later closes the level)."""
    rows, size = ctx.checkouts, layout.TABLE_COLUMNS
    every = [v for v in (ctx, *ctx.variants) if v.levels]
    if not every:
        return []
    found = []
    for start in range(0, len(rows), size):
        first, last = rows[start].idx, rows[min(start + size, len(rows)) - 1].idx
        shown = [
            [v.id, key, levels.page_key(first, last)]
            for v in every
            for key, levels in sorted((v.levels or {}).items())
        ]
        text = json.dumps(shown, allow_nan=False)
        found.append(hashlib.sha256(text.encode()).hexdigest()[:16])
    return found


def _change_list(ctx: SeriesContext) -> list[list[Any]]:
    return sorted(  # the size as text: JSON has no infinity (a step from 0)
        [
            c.test,
            c.name,
            c.before_idx,
            c.after_idx,
            repr(c.size),
            c.regression,
            c.unconfirmed,
            c.confirmed,
            c.told(),
            c.size_and_interval(),
            c.confidence_text(),
        ]
        for c in ctx.changes
    )


def _episode_list(ctx: SeriesContext) -> list[list[Any]]:
    return sorted(
        [
            e.kind,
            e.test,
            e.name,
            e.first_idx,
            e.last_idx,
            repr(e.size),
            e.worse,
            repr(e.before),
            repr(e.after),
        ]
        for e in ctx.episodes
    )


def _variant_sigs(
    ctx: SeriesContext, marks: Mapping[int, Mapping[int, tuple[int, int]]]
) -> dict[str, list[Any]]:
    """Per checkout of a walk with variants, what its variants' columns show of it
    (each variant's series and checkout signature; None where it has none yet)."""
    if not ctx.variants:
        return {}
    by_idx = [{r.idx: r for r in v.checkouts} for v in ctx.variants]
    sigs: dict[str, list[Any]] = {}
    for row in ctx.checkouts:
        sigs[str(row.idx)] = [
            [v.id, _checkout_sig(own[row.idx], marks[v.id]) if row.idx in own else None]
            for v, own in zip(ctx.variants, by_idx, strict=True)
        ]
    return sigs


def _plan(
    ctx: SeriesContext,
    old: dict[str, Any] | None,
    drill: str,
    marks: Mapping[int, Mapping[int, tuple[int, int]]],
) -> tuple[dict[str, Any], list[tuple[BlockJob, ...]]]:
    """The manifest entry of a series and the blocks to render for it (``drill``: the
    drill or try section of its page, for a drill or a try; ``marks``: the repetitions of each
    series, by checkout, as :meth:`SiteReads.repetition_marks` reads them). A table
    of a walk with variants is rendered again when a variant's column in it changed."""
    old = old or {}
    rows = ctx.checkouts
    sigs = {
        str(r.idx): _checkout_sig(r, marks[ctx.id])
        + fact_sig(ctx.facts.get(r.idx))
        + [[test, pid] for test, pid in ctx.profiles.get(r.idx, ())]
        for r in rows
    }
    zoom = {str(idx): [[z.series_id, z.label] for z in zs] for idx, zs in ctx.zooms.items()}
    variant_sigs = _variant_sigs(ctx, marks)
    facts, change_list, episode_list = _facts(ctx, drill)
    old_sigs, old_zoom = old.get("checkouts", {}), old.get("zoom", {})
    old_variants = old.get("variants", {})
    dirty_checkouts = {r.idx for r in rows if old_sigs.get(str(r.idx)) != sigs[str(r.idx)]}
    # the checkout before a new one gains a "next" link
    for pos in range(1, len(rows)):
        if rows[pos].idx in dirty_checkouts and str(rows[pos].idx) not in old_sigs:
            dirty_checkouts.add(rows[pos - 1].idx)
    dirty_tables = {
        layout.table_of(pos)
        for pos, r in enumerate(rows)
        if r.idx in dirty_checkouts
        or zoom.get(str(r.idx)) != old_zoom.get(str(r.idx))
        or variant_sigs.get(str(r.idx)) != old_variants.get(str(r.idx))
    }
    old_changes = {tuple(c) for c in old.get("changes", [])}
    new_changes = {tuple(c) for c in change_list}
    known = {r.idx for r in rows}
    for change in old_changes ^ new_changes:
        for idx in change[2:4]:
            if isinstance(idx, int) and idx in known:
                dirty_tables.add(layout.table_of(ctx.position(idx)))
    table_levels = _table_levels(ctx)
    old_levels = old.get("levels", [])
    dirty_tables.update(
        page
        for page, digest in enumerate(table_levels)
        if page >= len(old_levels) or old_levels[page] != digest
    )
    old_episodes = {tuple(e) for e in old.get("episodes", [])}
    for kind, _test, _name, first, last, *_rest in old_episodes ^ {tuple(e) for e in episode_list}:
        if kind == "excursion":  # marks the cells of the checkouts it spans
            dirty_tables.update(
                layout.table_of(pos) for pos, r in enumerate(rows) if first <= r.idx <= last
            )
    pages = (len(rows) + layout.TABLE_COLUMNS - 1) // layout.TABLE_COLUMNS
    if old.get("tables") not in (None, pages) and pages > 0:
        dirty_tables.add(min(int(old["tables"]), pages) - 1)  # gains a "newer" link
    per_block = layout.PLOT_BLOCK // layout.TABLE_COLUMNS
    blocks_needed = {t // per_block for t in dirty_tables}
    last_block = (len(rows) - 1) // layout.PLOT_BLOCK if rows else None
    series_dirty = bool(blocks_needed) or facts != old.get("facts")
    if series_dirty and last_block is not None:
        blocks_needed.add(last_block)
    complete = _complete_seals(last_block)
    written_seals = set(old.get("sealed", []))
    for seal in complete:  # a seal is written whole, from all its blocks
        members = set(range(seal * layout.SEAL, (seal + 1) * layout.SEAL))
        if seal not in written_seals or members & blocks_needed:
            blocks_needed |= members
    old_blocks: dict[str, Any] = old.get("blocks", {})
    blocks = {
        b: v
        for b, v in old_blocks.items()
        if int(b) not in blocks_needed and last_block is not None and int(b) <= last_block
    }
    jobs = [
        BlockJob(
            series_id=ctx.id,
            block=b,
            tables=tuple(sorted(t for t in dirty_tables if t // per_block == b)),
            checkouts=tuple(
                r.idx
                for r in rows[b * layout.PLOT_BLOCK : (b + 1) * layout.PLOT_BLOCK]
                if r.idx in dirty_checkouts
            ),
            newest=b == last_block,
            sealed=b // layout.SEAL in complete,
        )
        for b in sorted(blocks_needed)
    ]
    state = {
        "checkouts": sigs,
        "zoom": zoom,
        "variants": variant_sigs,
        "changes": change_list,
        "episodes": episode_list,
        "tables": pages,
        "levels": table_levels,
        "facts": facts,
        "blocks": blocks,
        "sealed": complete,
    }
    return state, _groups(jobs)


def _groups(jobs: list[BlockJob]) -> list[tuple[BlockJob, ...]]:
    """Jobs as a worker takes them: a block alone, or the blocks of a seal together."""
    groups: list[tuple[BlockJob, ...]] = []
    for job in jobs:
        last = groups[-1][-1] if groups else None
        if (
            job.sealed
            and last is not None
            and last.sealed
            and last.series_id == job.series_id
            and last.block // layout.SEAL == job.block // layout.SEAL
        ):
            groups[-1] = (*groups[-1], job)
        else:
            groups.append((job,))
    return groups


def _specs(state: dict[str, Any]) -> list[PlotSpec]:
    found: dict[str, tuple[str, str, dict[str, None], list[int]]] = {}
    for block, entry in sorted(state["blocks"].items(), key=lambda item: int(item[0])):
        for key, (test, unit, names) in entry["keys"].items():
            spec = found.setdefault(key, (test, unit, {}, []))
            spec[2].update(dict.fromkeys(names))
            spec[3].append(int(block))
    return [
        PlotSpec(key, test, unit, tuple(names), tuple(blocks))
        for key, (test, unit, names, blocks) in sorted(
            found.items(), key=lambda i: (i[1][0], i[1][1])
        )
    ]


def _complete_seals(last_block: int | None) -> list[int]:
    """The seals the series has gone past (its newest block is after them)."""
    if last_block is None:
        return []
    return [
        seal for seal in range(last_block // layout.SEAL) if (seal + 1) * layout.SEAL <= last_block
    ]


def _sealed_specs(specs: list[PlotSpec], state: dict[str, Any]) -> list[PlotSpec]:
    seals = state["sealed"]
    return [
        dataclasses.replace(
            spec,
            sealed=tuple(
                seal for seal in seals if any(b // layout.SEAL == seal for b in spec.blocks)
            ),
        )
        for spec in specs
    ]


def _counts(state: dict[str, Any]) -> dict[str, dict[Status, int]]:
    """Per test of a series, how many checkouts had each worst status (a checkout that
    did not build: NOEXIST)."""
    blocks = state["blocks"].values()
    return walk_counts([(entry["counts"], entry["unbuilt"]) for entry in blocks])


def _worst(counts: dict[str, dict[Status, int]]) -> dict[str, Status]:
    return {test: max(found) for test, found in counts.items() if found}


# -- rendering blocks -------------------------------------------------------------------


def _run(
    shared: _Shared, groups: list[tuple[BlockJob, ...]], options: PublishOptions
) -> list[BlockOutcome]:
    """Render the groups of blocks, in ``options.workers`` forked processes when the
    store can be opened again (``options.store_url``)."""
    workers = options.workers if options.store_url is not None else 1
    done = in_forks(
        lambda number: _render_group(shared, groups[number]),
        len(groups),
        workers,
        what="the site's pages",
        start=shared.open_own_store,
    )
    return [outcome for outcomes in done for outcome in outcomes]


def _render_group(shared: _Shared, group: tuple[BlockJob, ...]) -> list[BlockOutcome]:
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
    shared: _Shared, job: BlockJob, files: SiteWriter
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
    shared: _Shared, ctx: SeriesContext, rows: Sequence[CheckoutRow]
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


# -- files ------------------------------------------------------------------------------


def _write_shells(files: SiteWriter, ctx: SeriesContext, full: bool) -> None:
    """The series' checkout, logs, commits and log pages (the same until the site's
    format changes): written by a full publish or when missing."""
    shells = {
        layout.checkout_shell(ctx.id): checkout_shell_page,
        layout.logs_shell(ctx.id): logs_shell_page,
        layout.commits_shell(ctx.id): commits_shell_page,
        layout.log_shell(ctx.id): log_shell_page,
    }
    if ctx.profiles:
        shells[layout.profile_shell(ctx.id)] = profile_shell_page
    for at, render in shells.items():
        if full or not files.site.exists(at):
            files.write(at, render(ctx))


def _conduct_sig(summary: ConductSummary) -> list[Any]:
    """What the page of a conductor run shows that can change: its end, its trials
    (their steps: a stored step never changes) and its values (those a parser finds
    in the same outputs are the same)."""
    run = summary.run
    return [
        run.name,
        run.state,
        run.finished_at.isoformat() if run.finished_at else None,
        run.trials,
        summary.steps,
        summary.newest_step,
        summary.values,
        run.parser,
    ]


def _write_conduct(
    store: Store,
    files: SiteWriter,
    runs: Sequence[ConductSummary],
    old: dict[str, Any],
    *,
    full: bool,
    times: SiteTimes,
) -> dict[str, Any]:
    """The page of each conductor run that is new or changed since the last publish
    (every one when ``full``), with its long outputs; the manifest's entry."""
    state: dict[str, Any] = {}
    for summary in runs:
        conduct_id = summary.run.id
        sig = state[str(conduct_id)] = _conduct_sig(summary)
        at = layout.conduct_page(conduct_id)
        if not full and old.get(str(conduct_id)) == sig and files.site.exists(at):
            continue
        data = ConductData(
            summary=summary,
            steps=store.conduct.steps(conduct_id),
            outputs=store.conduct.logs(conduct_id),
            values=store.conduct.values(conduct_id),
            times=times,
        )
        text, outputs = conduct_page(data)
        for path, content in outputs.items():  # a stored output never changes
            if full or not files.site.exists(path):
                files.write(path, content)
        files.write(at, text)
    return state


def _write_feed(files: SiteWriter, config: Config | None, listed: Sequence[ListedChange]) -> None:
    """The Atom feed of the changes, written when its bytes differ from the site's."""
    text = atom_feed(
        config.project.name if config is not None else "",
        listed,
        base_url=config.report.base_url if config is not None else "",
    ).encode()
    if files.site.read(layout.FEED) != text:
        files.write(layout.FEED, text)


def _write_assets(files: SiteWriter, full: bool) -> None:
    for name, content in site_assets().items():
        if full or files.site.read(name) != content:
            files.write(name, content)
