"""What perfwalk knows of where a change's code lies, gathered for the layout-artefact
verdict (:mod:`perfwalk.analysis.verdict`, rule 5):

- :class:`~perfwalk.analysis.verdict.CodeMoved`: the symbol lists (``[build]
  symbols``) of the change's two checkouts, compared: which functions moved, which
  changed their size;
- :class:`~perfwalk.analysis.verdict.Randomised`: the same metric in the walk's
  series of random layouts (a ``[[variant]]`` with ``layout = "random"`` measured
  beside it), across the same two commits: how it moved there, and what it could
  see.

A metric of the plain checkout only: a variant's change is judged on its own series.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from perfwalk.analysis.levels import MetricPoints
from perfwalk.analysis.symbols import Symbol, code_moves, diff_symbols, parse_nm
from perfwalk.analysis.verdict import CodeMoved, Randomised
from perfwalk.config.model import Config
from perfwalk.config.settings import RANDOM_LAYOUT
from perfwalk.errors import StoreError
from perfwalk.orchestrate.findings.change_events import ChangeEvent, MetricChange
from perfwalk.store import Store
from perfwalk.store.build_facts import SymbolsRow


def with_layout_evidence(
    store: Store,
    config: Config | None,
    events: Sequence[ChangeEvent],
    points_of: Callable[[int], Sequence[MetricPoints]],
) -> list[ChangeEvent]:
    """``events``, each metric of a plain checkout's change with what its symbol lists
    and the walk's random layouts say (``points_of``: the metrics of a series as its
    search read them)."""
    random_names = {
        v.name for v in (config.variants if config is not None else ()) if v.layout == RANDOM_LAYOUT
    }
    symbols: dict[int, Mapping[int, SymbolsRow]] = {}
    judged = []
    for event in events:
        if event.variant is not None:
            judged.append(event)
            continue
        if event.series_id not in symbols:
            facts = store.build_facts.of_series(event.series_id)
            symbols[event.series_id] = {
                idx: f.symbols for idx, f in facts.items() if f.symbols is not None
            }
        code = _code_moved(store, symbols[event.series_id], event)
        randomised = _randomised(store, event, random_names, points_of)
        if code is None and not randomised:
            judged.append(event)
            continue
        metrics = tuple(
            replace(m, code_moved=code, randomised=randomised.get((m.test, m.name)))
            for m in event.metrics
        )
        judged.append(replace(event, metrics=metrics))
    return judged


def _code_moved(
    store: Store, lists: Mapping[int, SymbolsRow], event: ChangeEvent
) -> CodeMoved | None:
    """The functions that moved and changed between the change's two checkouts; None
    when either has no symbol list (or it cannot be read)."""
    before, after = lists.get(event.before.idx), lists.get(event.after.idx)
    if before is None or after is None or before.binary != after.binary:
        return None
    old, new = _listing(store, before), _listing(store, after)
    if old is None or new is None:
        return None
    return CodeMoved(after.binary, code_moves(diff_symbols(old, new), old, new))


def _listing(store: Store, row: SymbolsRow) -> tuple[Symbol, ...] | None:
    if row.list_log_id is None:
        return None
    try:
        return parse_nm(store.log(row.list_log_id).text())
    except StoreError:
        return None


def _randomised(
    store: Store,
    event: ChangeEvent,
    random_names: set[str],
    points_of: Callable[[int], Sequence[MetricPoints]],
) -> dict[tuple[str, str], Randomised]:
    """What each metric of the change did in the walk's series of random layouts, by
    (test, metric); empty when it has none."""
    if not random_names:
        return {}
    siblings = [s for s in store.variant_series(event.series_id) if s.variant in random_names]
    found: dict[tuple[str, str], Randomised] = {}
    for sibling in siblings:
        idx_of = {c.sha: c.idx for c in store.checkouts(sibling.id)}
        before, after = idx_of.get(event.before.sha), idx_of.get(event.after.sha)
        if before is None or after is None:
            continue
        label = f"series {sibling.id} ({sibling.variant})"
        for metric in points_of(sibling.id):
            change = next(
                (m for m in event.metrics if (m.test, m.name) == (metric.test, metric.name)),
                None,
            )
            if change is None or (metric.test, metric.name) in found:
                continue
            found[(metric.test, metric.name)] = _across(metric, change, before, after, label)
    return found


def _across(
    metric: MetricPoints, change: MetricChange, before: int, after: int, label: str
) -> Randomised:
    """How ``metric`` moved between checkouts ``before`` and ``after`` over as many
    checkouts on each side as ``change`` has, and the smallest change it could see."""
    size = metric.moved(before, after, change.checkouts_before, change.checkouts_after)
    return Randomised(label, size, metric.floor)
