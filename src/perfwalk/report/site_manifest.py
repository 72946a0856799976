"""The site's manifest (``.perfwalk/manifest.json``) and what a publish renders again
from it. Per series it keeps what each checkout looked like when its pages were written
(build, quirk runs, repetitions, commits, profiles, build facts), its zoom links, its
variants' columns, its changes and excursions as the tables mark them, the levels each
table page gives, a digest of what its page and plot metadata show besides its
checkouts, and per block its plot keys and status counts. :func:`plan_series` compares
that with the store's and gives the blocks to render again (:class:`BlockJob`; the
blocks of a seal together); :func:`settings_digest` is what every page depends on
besides the store (a change rewrites the whole site, as a new :data:`SITE_FORMAT`
does). The index's plots and worst statuses are read back from the entries."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwalk import __version__
from perfwalk.analysis.floor import Sight
from perfwalk.config.model import Config
from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.failures import walk_counts
from perfwalk.report.files import SiteFolder
from perfwalk.report.pages.build_facts import fact_sig
from perfwalk.report.pages.change_table import change_facts
from perfwalk.report.pages.plots import PlotSpec
from perfwalk.report.releases import NO_RELEASES, Releases
from perfwalk.report.times import UTC_TIMES, SiteTimes
from perfwalk.store import CheckoutRow

#: bump when pages change shape: a site written by another format is rewritten whole
#: (6: a walk's variants beside its checkouts, in its plots and its manifest entry;
#: a try's page in place of its series page; the conductor runs; 7: the checkouts' table
#: in a box that opens at its newest checkouts, failures on the plots; 8: releases, levels;
#: 9: differential profiles without their unresolved frames, their noise said; 10: the
#: index's "last night" strip and night.js; 11: ticks.js, time axes ticked in the zone)
SITE_FORMAT = 11
MANIFEST = f"{layout.STATE_DIR}/manifest.json"


def settings_digest(
    config: Config | None, releases: Releases = NO_RELEASES, times: SiteTimes = UTC_TIMES
) -> str:
    """What every page depends on besides the store: format, version, configuration
    (with what [validity] says, left out of its hash), the releases marked on the plots,
    the time zone its times are written in."""
    parts = [str(SITE_FORMAT), __version__, config.hash if config is not None else "-"]
    parts.append(times.zone)
    if config is not None:
        parts += [config.project.commit_url, config.project.file_url, repr(config.validity)]
        parts += [repr((t.name, t.validity)) for t in config.tests]
    if releases.found:
        parts.append(releases.digest())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def load_manifest(out: Path) -> dict[str, Any]:
    """The manifest of the site at ``out``; {} when it has none or one not readable."""
    data = SiteFolder(out).read(MANIFEST)
    try:
        loaded = json.loads(data or b"{}")
    except ValueError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


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


def _checkout_sig(row: CheckoutRow, marks: Mapping[int, tuple[int, ...]]) -> list[Any]:
    reps = marks.get(row.idx, (0, 0))
    return [
        row.sha,
        int(row.build_status) if row.build_status is not None else None,
        row.build_log_id,
        [[q.letter, q.log_id] for q in row.quirk_runs],
        row.commit_count,
        row.claimed,  # a commit's words git told over a push's claim: its commit log again
        list(reps),
        None if row.pruned is None else row.pruned.at.isoformat(),  # its logs say it
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
    ctx: SeriesContext, marks: Mapping[int, Mapping[int, tuple[int, ...]]]
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


def plan_series(
    ctx: SeriesContext,
    old: dict[str, Any] | None,
    drill: str,
    marks: Mapping[int, Mapping[int, tuple[int, ...]]],
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
        + ([["lost", *ctx.lost[r.idx]]] if r.idx in ctx.lost else [])
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


def plot_specs(state: dict[str, Any]) -> list[PlotSpec]:
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


def sealed_specs(specs: list[PlotSpec], state: dict[str, Any]) -> list[PlotSpec]:
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


def checkout_counts(state: dict[str, Any]) -> dict[str, dict[Status, int]]:
    """Per test of a series, how many checkouts had each worst status (a checkout that
    did not build: NOEXIST)."""
    blocks = state["blocks"].values()
    return walk_counts([(entry["counts"], entry["unbuilt"]) for entry in blocks])


def worst_statuses(counts: dict[str, dict[Status, int]]) -> dict[str, Status]:
    return {test: max(found) for test, found in counts.items() if found}
