"""Publish the static site: all series → one series → one checkout → its logs, the
commit log between neighbouring checkouts, and interactive plots. Plain files, no
CDN: any web server (or none: open index.html) shows it.

Publishing is incremental: ``.perfwalk/manifest.json`` in the site remembers what
each checkout looked like when its pages were written (build, quirk runs,
repetitions, commits, zoom links, changes), so a publish after one new checkout
rewrites that checkout's pages, the table page and plot data block it falls in,
the series page, its plot metadata and the index, and nothing else. Blocks are
independent: a full publish of a long series spreads them over worker processes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfwalk import __version__
from perfwalk.config.model import Config
from perfwalk.model import Status
from perfwalk.report import layout
from perfwalk.report.assets import site_assets
from perfwalk.report.changes import ChangeMark, by_series
from perfwalk.report.collect import CheckoutData, Policies, read_block
from perfwalk.report.context import SeriesContext, zoom_links
from perfwalk.report.pages.checkout import checkout_page
from perfwalk.report.pages.commits import commits_page
from perfwalk.report.pages.index import SeriesSummary, index_page
from perfwalk.report.pages.logs import log_page, logs_page
from perfwalk.report.pages.plots import PlotSpec, block_files, meta_file
from perfwalk.report.pages.series import series_page, table_page
from perfwalk.report.pages.setup import setup_page
from perfwalk.report.pages.table import checkout_table, worst_of
from perfwalk.store import CheckoutRow, SeriesRow, Store

#: bump when pages change shape: a site written by another format is rewritten whole
SITE_FORMAT = 1
MANIFEST = f"{layout.STATE_DIR}/manifest.json"


@dataclass(frozen=True)
class PublishOptions:
    """``changes`` to mark; ``full`` rewrites every page; ``workers`` > 1 renders
    blocks in that many processes, each opening the store at ``store_url``."""

    changes: Sequence[ChangeMark] = ()
    full: bool = False
    workers: int = 1
    store_url: str | None = None


@dataclass(frozen=True)
class PublishReport:
    index: Path
    written: int  # files written
    series: int
    checkouts: int  # checkouts whose pages were (re)written
    seconds: float
    full: bool


@dataclass(frozen=True)
class BlockJob:
    """Render one plot block of a series: its plot data, the ``tables`` pages in it,
    the pages of the ``checkouts`` given, and (``newest``) the newest table."""

    series_id: int
    block: int
    tables: tuple[int, ...]
    checkouts: tuple[int, ...]  # checkout indexes
    newest: bool


@dataclass(frozen=True)
class BlockOutcome:
    series_id: int
    block: int
    keys: dict[str, tuple[str, str, tuple[str, ...]]]  # key → test, unit, names
    worst: dict[str, int]
    newest: str | None
    written: int


@dataclass
class _Shared:
    """What block jobs need; inherited by forked workers, never pickled."""

    out: Path
    contexts: dict[int, SeriesContext]
    policies: Policies
    store: Store
    store_url: str | None
    pid: int = field(default_factory=os.getpid)


_SHARED: _Shared | None = None


def publish(
    store: Store,
    config: Config | None,
    out: Path,
    options: PublishOptions | None = None,
) -> PublishReport:
    """Write (or bring up to date) the site under ``out``."""
    global _SHARED  # noqa: PLW0603 (what forked workers inherit)
    options = options or PublishOptions()
    started = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    settings = _settings(config)
    manifest = {} if options.full else _load_manifest(out)
    full = options.full or manifest.get("settings") != settings
    if full:
        manifest = {}
    written = _write_assets(out, full)
    every = store.list_series()
    checkouts = {s.id: store.checkouts(s.id) for s in every}
    zooms = zoom_links(every, checkouts)
    changes = by_series(options.changes)
    commit_url = config.project.commit_url if config is not None else ""
    contexts = {
        s.id: SeriesContext(
            series=s,
            checkouts=checkouts[s.id],
            commit_url=commit_url,
            zooms=zooms.get(s.id, {}),
            changes=changes.get(s.id, ()),
        )
        for s in every
    }
    old_series: dict[str, Any] = manifest.get("series", {})
    new_series: dict[str, Any] = {}
    jobs: list[BlockJob] = []
    for s in every:
        state, series_jobs = _plan(store, contexts[s.id], old_series.get(str(s.id)))
        new_series[str(s.id)] = state
        jobs.extend(series_jobs)
    _SHARED = _Shared(out, contexts, Policies(config), store, options.store_url)
    try:
        outcomes = _run(jobs, options)
    finally:
        _SHARED = None
    rendered = {s.id: False for s in every}
    rendered_blocks: dict[int, set[int]] = {s.id: set() for s in every}
    newest: dict[int, str] = {}
    for outcome in outcomes:
        rendered_blocks[outcome.series_id].add(outcome.block)
        state = new_series[str(outcome.series_id)]
        state["blocks"][str(outcome.block)] = {
            "keys": {k: [t, u, list(n)] for k, (t, u, n) in outcome.keys.items()},
            "worst": outcome.worst,
        }
        rendered[outcome.series_id] = True
        written += outcome.written
        if outcome.newest is not None:
            newest[outcome.series_id] = outcome.newest
    summaries = []
    for s in every:
        ctx, state = contexts[s.id], new_series[str(s.id)]
        specs = _specs(state)
        if rendered[s.id]:
            specs, sealed_written = _seal(out, s.id, specs, state, rendered_blocks[s.id])
            written += sealed_written
        else:
            specs = _sealed_specs(specs, state)
        if rendered[s.id] or state["facts"] != old_series.get(str(s.id), {}).get("facts"):
            _write(out / layout.setup_page(s.id), setup_page(s))
            _write(out / layout.series_meta(s.id), meta_file(ctx, specs))
            _write(out / layout.series_page(s.id), series_page(ctx, specs, newest.get(s.id, "")))
            written += 3
        summaries.append(
            SeriesSummary(
                series=s,
                first=ctx.checkouts[0] if ctx.checkouts else None,
                last=ctx.checkouts[-1] if ctx.checkouts else None,
                checkouts=len(ctx.checkouts),
                worst=_worst(state),
                specs=tuple(specs),
            )
        )
    index = out / layout.INDEX
    matrix = (out / layout.MATRIX_INDEX).exists()
    changed = set(old_series) != set(new_series) or matrix != manifest.get("matrix", False)
    if written or changed or not index.exists():
        _write(index, index_page(summaries, matrix=matrix))
        written += 1
    _write(
        out / MANIFEST,
        json.dumps({"settings": settings, "series": new_series, "matrix": matrix}, sort_keys=True)
        + "\n",
    )
    return PublishReport(
        index=index,
        written=written,
        series=len(every),
        checkouts=sum(len(job.checkouts) for job in jobs),
        seconds=time.perf_counter() - started,
        full=full,
    )


# -- planning: what changed since the last publish -------------------------------------


def _settings(config: Config | None) -> str:
    """What every page depends on besides the store: format, version, configuration."""
    parts = [str(SITE_FORMAT), __version__, config.hash if config is not None else "-"]
    if config is not None:
        parts.append(config.project.commit_url)
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _load_manifest(out: Path) -> dict[str, Any]:
    try:
        loaded = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _checkout_sig(row: CheckoutRow, marks: dict[int, tuple[int, int]]) -> list[Any]:
    reps = marks.get(row.idx, (0, 0))
    return [
        row.sha,
        int(row.build_status) if row.build_status is not None else None,
        row.build_log_id,
        [[q.letter, q.log_id] for q in row.quirk_runs],
        row.commit_count,
        list(reps),
    ]


def _facts(series: SeriesRow) -> str:
    text = json.dumps(
        [
            series.name,
            series.state,
            series.finished_at.isoformat() if series.finished_at else None,
            [[q.letter, q.at_date.isoformat(), q.comment] for q in series.quirks],
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _plan(
    store: Store, ctx: SeriesContext, old: dict[str, Any] | None
) -> tuple[dict[str, Any], list[BlockJob]]:
    """The manifest entry of a series and the blocks to render for it."""
    old = old or {}
    marks = store.repetition_marks(ctx.id)
    rows = ctx.checkouts
    sigs = {str(r.idx): _checkout_sig(r, marks) for r in rows}
    zoom = {str(idx): [[z.series_id, z.label] for z in zs] for idx, zs in ctx.zooms.items()}
    change_list = sorted(
        [c.test, c.name, c.before_idx, c.after_idx, c.size, c.regression] for c in ctx.changes
    )
    old_sigs, old_zoom = old.get("checkouts", {}), old.get("zoom", {})
    dirty_checkouts = {r.idx for r in rows if old_sigs.get(str(r.idx)) != sigs[str(r.idx)]}
    # the checkout before a new one gains a "next" link
    for pos in range(1, len(rows)):
        if rows[pos].idx in dirty_checkouts and str(rows[pos].idx) not in old_sigs:
            dirty_checkouts.add(rows[pos - 1].idx)
    dirty_tables = {
        layout.table_of(pos)
        for pos, r in enumerate(rows)
        if r.idx in dirty_checkouts or zoom.get(str(r.idx)) != old_zoom.get(str(r.idx))
    }
    old_changes = {tuple(c) for c in old.get("changes", [])}
    new_changes = {tuple(c) for c in change_list}
    for change in old_changes ^ new_changes:
        for idx in change[2:4]:
            if isinstance(idx, int) and idx in {r.idx for r in rows}:
                dirty_tables.add(layout.table_of(ctx.position(idx)))
    pages = (len(rows) + layout.TABLE_COLUMNS - 1) // layout.TABLE_COLUMNS
    if old.get("tables") not in (None, pages) and pages > 0:
        dirty_tables.add(min(int(old["tables"]), pages) - 1)  # gains a "newer" link
    facts = _facts(ctx.series)
    per_block = layout.PLOT_BLOCK // layout.TABLE_COLUMNS
    blocks_needed = {t // per_block for t in dirty_tables}
    last_block = (len(rows) - 1) // layout.PLOT_BLOCK if rows else None
    series_dirty = bool(blocks_needed) or facts != old.get("facts")
    if series_dirty and last_block is not None:
        blocks_needed.add(last_block)
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
        )
        for b in sorted(blocks_needed)
    ]
    state = {
        "checkouts": sigs,
        "zoom": zoom,
        "changes": change_list,
        "tables": pages,
        "facts": facts,
        "blocks": blocks,
    }
    return state, jobs


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


def _complete_seals(state: dict[str, Any]) -> list[int]:
    """Seals whose blocks are all there and that the series has gone past."""
    blocks = {int(b) for b in state["blocks"]}
    if not blocks:
        return []
    newest = max(blocks)
    return [
        seal
        for seal in range((newest + 1) // layout.SEAL)
        if (seal + 1) * layout.SEAL - 1 < newest
        and all(b in blocks for b in range(seal * layout.SEAL, (seal + 1) * layout.SEAL))
    ]


def _sealed_specs(specs: list[PlotSpec], state: dict[str, Any]) -> list[PlotSpec]:
    seals = _complete_seals(state)
    return [
        dataclasses.replace(
            spec,
            sealed=tuple(
                seal for seal in seals if any(b // layout.SEAL == seal for b in spec.blocks)
            ),
        )
        for spec in specs
    ]


def _seal(
    out: Path, series_id: int, specs: list[PlotSpec], state: dict[str, Any], rendered: set[int]
) -> tuple[list[PlotSpec], int]:
    """Write the sealed data files that are new or whose blocks were rewritten (their
    blocks' files, concatenated); the specs with their seals."""
    sealed = _sealed_specs(specs, state)
    written = 0
    for spec in sealed:
        for seal in spec.sealed:
            target = out / layout.sealed_data(series_id, spec.key, seal)
            members = [b for b in spec.blocks if b // layout.SEAL == seal]
            if target.exists() and not any(b in rendered for b in members):
                continue
            parts = [(out / layout.plot_data(series_id, spec.key, b)).read_bytes() for b in members]
            _write_bytes(target, b"".join(parts))
            written += 1
    return sealed, written


def _worst(state: dict[str, Any]) -> dict[str, Status]:
    worst: dict[str, int] = {}
    for entry in state["blocks"].values():
        for test, severity in entry["worst"].items():
            worst[test] = max(worst.get(test, 0), severity)
    return {test: Status(severity) for test, severity in worst.items()}


# -- rendering blocks -------------------------------------------------------------------


def _run(jobs: list[BlockJob], options: PublishOptions) -> list[BlockOutcome]:
    workers = min(options.workers, len(jobs))
    if workers <= 1 or options.store_url is None:
        return [_render(job) for job in jobs]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(_render, jobs, chunksize=1))


def _render(job: BlockJob) -> BlockOutcome:
    shared = _SHARED
    assert shared is not None
    store = _worker_store(shared)
    ctx = shared.contexts[job.series_id]
    out = shared.out
    start = job.block * layout.PLOT_BLOCK
    rows = ctx.checkouts[start : start + layout.PLOT_BLOCK]
    data = read_block(store, ctx.id, rows, shared.policies)
    written = 0
    files = block_files(ctx, job.block, data)
    for key, (_test, _unit, _names, text) in files.items():
        _write(out / layout.plot_data(ctx.id, key, job.block), text)
        written += 1
    for number in job.tables:
        first = number * layout.TABLE_COLUMNS - start
        part = data[first : first + layout.TABLE_COLUMNS]
        at = layout.table_page(ctx.id, number)
        _write(out / at, table_page(ctx, number, checkout_table(at, ctx, part)))
        written += 1
    if job.checkouts:
        written += _render_checkouts(
            store, ctx, out, [d for d in data if d.row.idx in set(job.checkouts)]
        )
    newest = None
    if job.newest:
        last_start = layout.table_of(len(ctx.checkouts) - 1) * layout.TABLE_COLUMNS - start
        newest = checkout_table(layout.series_page(ctx.id), ctx, data[last_start:])
    return BlockOutcome(
        series_id=ctx.id,
        block=job.block,
        keys={key: (t, u, n) for key, (t, u, n, _text) in files.items()},
        worst={test: int(status) for test, status in worst_of(data).items()},
        newest=newest,
        written=written,
    )


def _worker_store(shared: _Shared) -> Store:
    """The parent's store, or in a forked worker a store of its own."""
    if shared.pid != os.getpid():
        assert shared.store_url is not None
        shared.store = Store.open(shared.store_url)
        shared.pid = os.getpid()
    return shared.store


def _render_checkouts(
    store: Store, ctx: SeriesContext, out: Path, data: Sequence[CheckoutData]
) -> int:
    if not data:
        return 0
    commits = store.block_commits(ctx.id, data[0].row.idx, data[-1].row.idx)
    logs = store.logs_of(_log_ids(data))
    written = 0
    for c in data:
        idx = c.row.idx
        table_no = layout.table_of(ctx.position(idx))
        _write(out / layout.checkout_page(ctx.id, idx), checkout_page(ctx, c, table_no))
        text, large = logs_page(ctx, c, logs)
        _write(out / layout.logs_page(ctx.id, idx), text)
        _write(
            out / layout.commits_page(ctx.id, idx), commits_page(ctx, c.row, commits.get(idx, []))
        )
        written += 3
        for big in large:
            _write(out / layout.log_page(ctx.id, big.log_id), log_page(ctx, idx, big))
            _write_bytes(out / layout.log_text(ctx.id, big.log_id), big.log.data)
            written += 2
    return written


def _log_ids(data: Iterable[CheckoutData]) -> set[int]:
    ids: set[int] = set()
    for c in data:
        if c.row.build_log_id:
            ids.add(c.row.build_log_id)
        ids.update(q.log_id for q in c.row.quirk_runs)
        ids.update(r.between_log_id for r in c.repetitions if r.between_log_id)
        for result in c.results:
            ids.update((result.stdout_log_id, result.stderr_log_id))
    return ids


# -- files ------------------------------------------------------------------------------


def _write_assets(out: Path, full: bool) -> int:
    written = 0
    for name, content in site_assets().items():
        path = out / name
        if full or not path.exists() or path.read_bytes() != content:
            _write_bytes(path, content)
            written += 1
    return written


def _write(path: Path, text: str) -> None:
    _write_bytes(path, text.encode("utf-8"))


def _write_bytes(path: Path, data: bytes) -> None:
    """Write atomically (a reader never sees half a page), making folders as needed."""
    tmp = path.with_name(path.name + ".new")
    try:
        tmp.write_bytes(data)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
    os.replace(tmp, path)
