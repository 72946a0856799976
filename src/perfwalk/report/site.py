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
else (:mod:`perfwalk.report.site_manifest` keeps the manifest and plans the blocks to
render again). A conductor run's page (:mod:`perfwalk.report.pages.conduct`) is
rewritten when its state, trials or values changed. Blocks are independent: a full
publish of a long series spreads them over worker processes
(:mod:`perfwalk.report.site_blocks` renders them).

A try (a series of kind ``try``) has a page of its own in place of the series page
(:mod:`perfwalk.report.pages.tries`), listed apart on the index: no plots of two
checkouts, and not among the walks.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from perfwalk.analysis.levels import MetricPoints
from perfwalk.config.model import Config, WatchConfig
from perfwalk.report import layout
from perfwalk.report.assets import site_assets
from perfwalk.report.change_list import (
    ListedChange,
    ListedEpisode,
    by_series,
    episodes_by_series,
)
from perfwalk.report.collect import Policies
from perfwalk.report.context import SeriesContext, variants_of, zoom_links
from perfwalk.report.feed import atom_feed
from perfwalk.report.files import SiteFolder, SiteWriter
from perfwalk.report.heatmaps import by_checkout
from perfwalk.report.host_use import host_days, window
from perfwalk.report.last_night import last_night
from perfwalk.report.pages.checkout import checkout_shell_page
from perfwalk.report.pages.commits import commits_shell_page
from perfwalk.report.pages.conduct import ConductData, conduct_page
from perfwalk.report.pages.drill import drill_sections
from perfwalk.report.pages.environments import env_drill_sections
from perfwalk.report.pages.hosts import hosts_page
from perfwalk.report.pages.index import SeriesSummary, index_page
from perfwalk.report.pages.last_night import last_night_strip
from perfwalk.report.pages.logs import log_shell_page, logs_shell_page
from perfwalk.report.pages.now import now_page
from perfwalk.report.pages.plots import meta_file
from perfwalk.report.pages.profiles import profile_shell_page
from perfwalk.report.pages.releases import overview_page, release_page
from perfwalk.report.pages.series import series_page
from perfwalk.report.pages.setup import previous_of, setup_page
from perfwalk.report.pages.tries import TryListing, try_page, try_sections
from perfwalk.report.pages.variants import variants_section
from perfwalk.report.parser_findings import stored_losses
from perfwalk.report.release_levels import merged, of_release, overview
from perfwalk.report.releases import NO_RELEASES, Releases
from perfwalk.report.series_levels import MetricLevels
from perfwalk.report.site_blocks import RenderShared, render_blocks
from perfwalk.report.site_manifest import (
    MANIFEST,
    BlockJob,
    checkout_counts,
    load_manifest,
    plan_series,
    plot_specs,
    sealed_specs,
    settings_digest,
    worst_statuses,
)
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.report.validity_warnings import of_points, series_validity
from perfwalk.store import Store
from perfwalk.store.conduct import ConductSummary


@dataclass(frozen=True)
class PublishOptions:
    """``changes`` to list (the index's "Changes", the feed ``changes.xml``) and mark
    (tables, plots, checkout pages), one per metric with its culprit and triage;
    ``episodes`` (excursions, drifts) to show; ``full`` rewrites every page;
    ``workers`` > 1 renders blocks in that many processes, each opening the store at
    ``store_url``; ``points``, by series, its metrics' per-checkout summaries as the
    change detection read them (cut into the levels the pages show; without them, a
    table gives the levels among its own checkouts only); ``times``: the site's time
    zone (``[report] time_zone``), every page's dates and times written in it;
    ``now``: the time the site is published at (None: the clock's), the one the live
    and host-use pages are as of."""

    changes: Sequence[ListedChange] = ()
    episodes: Sequence[ListedEpisode] = ()
    full: bool = False
    workers: int = 1
    store_url: str | None = None
    releases: Releases = NO_RELEASES  # the project's, resolved (report.releases)
    points: Mapping[int, Sequence[MetricPoints]] | None = None
    times: SiteTimes = UTC_TIMES
    now: datetime | None = None


@dataclass(frozen=True)
class PublishReport:
    index: Path
    written: int  # files written
    series: int
    checkouts: int  # checkouts whose pages were (re)written
    seconds: float
    full: bool
    warnings: tuple[str, ...] = ()  # what was left out (a release without its repository)


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
    settings = settings_digest(config, options.releases, options.times)
    manifest = {} if options.full else load_manifest(out)
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
    file_url = config.project.file_url if config is not None else ""
    contexts = {
        s.id: SeriesContext(
            series=s,
            checkouts=checkouts[s.id],
            commit_url=commit_url,
            file_url=file_url,
            zooms=zooms.get(s.id, {}),
            changes=changes.get(s.id, ()),
            episodes=episodes.get(s.id, ()),
            facts=store.build_facts.of_series(s.id),
            profiles=store.profiles.listed(s.id),
            releases=options.releases.found,
            times=options.times,
            lost=stored_losses(store, s.id),
            histograms=by_checkout(store.histograms.of_series(s.id)),
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
    drills |= env_drill_sections(store.env_drills.all(), contexts)  # on top of its page too
    for at, text in profile_files.items():
        files.write(at, text)
    tried = {row.series_id: row for row in store.tries.all()}
    tries, profile_files = try_sections(store, contexts, list(tried.values()), written, config)
    for at, text in profile_files.items():
        files.write(at, text)
    marks = {s.id: store.site.repetition_marks(s.id) for s in every}
    for s in every:
        section = drills.get(s.id, "") + tries.get(s.id, "")
        state, series_jobs = plan_series(contexts[s.id], old_series.get(str(s.id)), section, marks)
        new_series[str(s.id)] = state
        jobs.extend(series_jobs)
    shared = RenderShared(out, contexts, Policies(config), store, options.store_url, full)
    outcomes = render_blocks(shared, jobs, options.workers)
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
    specs_of = {s.id: sealed_specs(plot_specs(state_of[s.id]), state_of[s.id]) for s in every}
    counts_of_series = {s.id: checkout_counts(state_of[s.id]) for s in every}
    worst_of_series = {s.id: worst_statuses(counts_of_series[s.id]) for s in every}
    earlier = previous_of(every)
    for s in every:
        ctx, state, specs = contexts[s.id], state_of[s.id], specs_of[s.id]
        if rendered[s.id] or state["facts"] != old_series.get(str(s.id), {}).get("facts"):
            files.write(layout.setup_page(s.id), setup_page(s, ctx.times, earlier.get(s.id)))
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
                    validity=series_validity(
                        store, config, s, of_points((options.points or {}).get(s.id, ()))
                    ),
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
    now = options.now or datetime.now(UTC)
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
        _write_releases(store, files, [contexts[x.series.id] for x in summaries], options)
    manifest_text = json.dumps(
        {"settings": settings, "series": new_series, "matrix": matrix, "conduct": new_conduct},
        sort_keys=True,
        allow_nan=False,
    )
    site.write(MANIFEST, (manifest_text + "\n").encode())  # not counted: always written
    _write_ops_pages(store, site, now, options.times)
    return PublishReport(
        index=out / layout.INDEX,
        written=files.written,
        series=len(every),
        checkouts=sum(len(job.checkouts) for group in jobs for job in group),
        seconds=time.perf_counter() - started,
        full=full,
        warnings=options.releases.warnings,
    )


def _write_ops_pages(store: Store, site: SiteFolder, now: datetime, times: SiteTimes) -> None:
    """The live page and the host-use page, as of ``now``: written at every publish
    and not counted (they say the time they are as of, as the manifest does)."""
    site.write(layout.NOW, now_page(store.live.now(), now, times, served=False).encode())
    since = window(now, times)[0][0]
    spans = store.host_use.spans(since)
    jobs = store.host_use.jobs(sorted({span.series_id for span in spans}))
    hosts = host_days(spans, jobs, now, times)
    site.write(layout.HOSTS, hosts_page(hosts, store.leases.list(), now, times).encode())


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


def undecided_metrics(contexts: Iterable[SeriesContext]) -> list[tuple[int, str, str]]:
    """(series, its name, why) of each metric of ``contexts`` the walk could not judge
    (none of a drill's or a try's series: they have no sight)."""
    return [
        (ctx.id, ctx.series.name, sight.undecided)
        for ctx in contexts
        for _key, found in sorted((ctx.levels or {}).items())
        if (sight := found.sight) is not None and sight.undecided
    ]


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


def _write_releases(
    store: Store, files: SiteWriter, contexts: Sequence[SeriesContext], options: PublishOptions
) -> None:
    """The releases overview and a page per release window with a checkout (the
    pages of windows gone removed)."""
    walks = [ctx for ctx in contexts if merged(ctx)]
    statuses = {ctx.id: store.test_statuses(ctx.id) for ctx in walks}
    found = options.releases.found
    columns = overview(found, walks, statuses)
    left_out = sum(len(ctx.checkouts) for ctx in contexts if not merged(ctx))
    _write_changed(
        files, layout.RELEASES, overview_page(columns, bool(found), left_out, options.times)
    )
    pages = set()
    for n, col in enumerate(columns):  # newest first: the one before is the next
        previous = columns[n + 1].window if n + 1 < len(columns) else None
        whole, parts = of_release(col.window, previous, walks, statuses)
        pages.add(at := layout.release_page(col.window.place))
        _write_changed(files, at, release_page(whole, parts, options.times))
    folder = layout.release_page(None).rpartition("/")[0]
    for name, is_folder in files.site.entries(folder):  # a release removed or moved
        if not is_folder and name.endswith(".html") and f"{folder}/{name}" not in pages:
            files.site.remove(f"{folder}/{name}")


def _write_changed(files: SiteWriter, at: str, text: str | bytes) -> None:
    """The file ``at``, written when its bytes differ from the site's."""
    data = text.encode() if isinstance(text, str) else text
    if files.site.read(at) != data:
        files.write(at, data)


def _write_feed(files: SiteWriter, config: Config | None, listed: Sequence[ListedChange]) -> None:
    """The Atom feed of the changes, written when its bytes differ from the site's."""
    text = atom_feed(
        config.project.name if config is not None else "",
        listed,
        base_url=config.report.base_url if config is not None else "",
    )
    _write_changed(files, layout.FEED, text)


def _write_assets(files: SiteWriter, full: bool) -> None:
    for name, content in site_assets().items():
        if full or files.site.read(name) != content:
            files.write(name, content)
