"""Profiles on the site: a profile's flame graph page, and the "Profile" section of a
drill's or a try's page (the differential flame graph of after against before and
the functions whose share changed most).

A series with profiles has one page for them, ``profile.html``: ``flame.js`` draws
the profile its link names (``profile.html#p=7``) from its data file
(:func:`perfwalk.report.flame_data.profile_data_file`). A section's differential is
drawn in place from its own data file
(:func:`perfwalk.report.flame_data.diff_data_file`), written beside the page.

Function names are untrusted text: the table escapes them, flame.js puts them into
the page as text.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.analysis.profile_diff import (
    TOP,
    Differential,
    DiffNode,
    FunctionShare,
    diff_functions,
    diff_tree,
    moved,
)
from perfwalk.quantities import format_difference, format_share
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.flame_data import diff_data_file
from perfwalk.report.html import FLAME_CLASS, esc, page, table
from perfwalk.report.pages.series import series_crumbs
from perfwalk.store import Store
from perfwalk.store.profiles import ProfileRow


@dataclass(frozen=True)
class ProfilePair:
    """The differential profile of ``test`` that a section shows: ``before`` and
    ``after`` name the sides (the parent's and the culprit's short sha; A and B)."""

    test: str
    before: str
    after: str
    functions: tuple[FunctionShare, ...]  # those whose share moved most, largest first
    before_samples: int
    after_samples: int

    @classmethod
    def of(cls, test: str, before: str, after: str, diff: Differential) -> ProfilePair:
        return cls(test, before, after, diff.functions, diff.before_samples, diff.after_samples)


def stored_profiles(store: Store, ids: tuple[int, int]) -> tuple[ProfileRow, ProfileRow] | None:
    """The two stored profiles of a differential (``ids``: before, after), each read
    once; None when one is gone."""
    before, after = store.profiles.get(ids[0]), store.profiles.get(ids[1])
    return None if before is None or after is None else (before, after)


def stored_pair(
    test: str, profiles: tuple[ProfileRow, ProfileRow], labels: tuple[str, str]
) -> ProfilePair:
    """The differential of two stored profiles: the functions that moved most."""
    before, after = profiles
    functions = moved(diff_functions(before.stacks, after.stacks, top=TOP))
    return ProfilePair(test, *labels, functions, before.samples, after.samples)


def stored_diff_file(
    series_id: int, pair: ProfilePair, profiles: tuple[ProfileRow, ProfileRow]
) -> tuple[str, str]:
    """(site path, text) of the differential's data file of two stored profiles."""
    before, after = profiles
    return profile_diff_file(series_id, pair, diff_tree(before.stacks, after.stacks))


def profile_shell_page(ctx: SeriesContext) -> str:
    """The page of a series that flame.js fills with the profile its link names."""
    at = layout.profile_shell(ctx.id)
    body = (
        f'<div id="pw-profile" class="{FLAME_CLASS}" data-series="{ctx.id}">'
        '<p class="pw-wait">loading…</p>'
        "<noscript>This page is drawn by a script of the site: allow JavaScript.</noscript>"
        "</div>"
    )
    crumbs = [*series_crumbs(ctx.series), (layout.series_page(ctx.id), f"series {ctx.id}")]
    return page(at, f"profile of series {ctx.id}", body, crumbs=crumbs, flame=True)


def profile_diff_file(series_id: int, pair: ProfilePair, tree: DiffNode) -> tuple[str, str]:
    """(site path, text) of the data file that :func:`profile_section` draws from:
    ``tree``, the differential's (:func:`perfwalk.analysis.profile_diff.diff_tree`)."""
    return (
        layout.profile_diff_data(series_id, pair.test),
        diff_data_file(
            pair.test,
            tree,
            before=pair.before,
            after=pair.after,
            samples=(pair.before_samples, pair.after_samples),
        ),
    )


def profile_section(at: str, series_id: int, pair: ProfilePair | None) -> str:
    """HTML of the "Profile" section of the page at ``at`` (of series ``series_id``):
    the differential flame graph of ``pair`` and its table; nothing without one."""
    if pair is None:
        return ""
    src = layout.href(at, layout.profile_diff_data(series_id, pair.test))
    key = layout.profile_diff_key(pair.test)
    return (
        f"<h2>Profile</h2>\n<p>The profile of <strong>{esc(pair.test)}</strong>:"
        f" <code>{esc(pair.after)}</code> ({pair.after_samples} samples) against"
        f" <code>{esc(pair.before)}</code> ({pair.before_samples} samples).</p>\n"
        '<p class="flame-key">Each box is a function on a call path, as wide as its'
        f" samples in <code>{esc(pair.after)}</code>; its colour is the change of its share"
        ' of all samples: <span class="flame-grew">red, a larger share</span> than in'
        f' <code>{esc(pair.before)}</code>, <span class="flame-shrank">blue, a smaller'
        " share</span>; the deeper the colour, the larger the change; pale grey, no change."
        " Click a box to zoom into it; hover it for its samples and shares.</p>\n"
        f'<div class="{FLAME_CLASS}" data-src="{esc(src)}" data-key="{esc(key)}">'
        '<p class="pw-wait">loading…</p>'
        "<noscript>The flame graph is drawn by a script of the site: allow JavaScript."
        "</noscript></div>\n" + change_table(pair)
    )


def change_table(pair: ProfilePair) -> str:
    """The functions whose self or total share changed most, the largest first."""
    changes = pair.functions
    if not changes:
        return "<p>No function's share changed.</p>\n"
    header = [
        '<th class="name">function</th>',
        "<th>self before</th>",
        "<th>self after</th>",
        "<th>self Δ</th>",
        "<th>total before</th>",
        "<th>total after</th>",
        "<th>total Δ</th>",
    ]
    rows = [_row(f) for f in changes]
    return (
        f"<h3>The {len(changes)} functions whose share changed most</h3>\n"
        "<p>Share of all samples: <em>self</em>, where the function itself ran (the leaf"
        " of the stack); <em>total</em>, where it or what it called ran. Before:"
        f" <code>{esc(pair.before)}</code>; after: <code>{esc(pair.after)}</code>;"
        " Δ in percentage points.</p>\n" + table(header, rows, css="profile-changes") + "\n"
    )


def _row(f: FunctionShare) -> list[str]:
    return [
        f'<td class="name"><code>{esc(f.name)}</code></td>',
        f"<td>{format_share(f.self_before / 100)}</td>",
        f"<td>{format_share(f.self_after / 100)}</td>",
        _delta(f.self_delta),
        f"<td>{format_share(f.total_before / 100)}</td>",
        f"<td>{format_share(f.total_after / 100)}</td>",
        _delta(f.total_delta),
    ]


def _delta(points: float) -> str:
    css = ' class="flame-grew"' if points > 0 else ' class="flame-shrank"' if points < 0 else ""
    return f"<td{css}>{format_difference(points)}</td>"
