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
    Differential,
    DiffNode,
    FunctionShare,
    differential,
    few_samples,
    noise_text,
)
from perfwalk.config.model import Config, ProfileConfig
from perfwalk.quantities import format_difference, format_share
from perfwalk.report import layout
from perfwalk.report.context import SeriesContext
from perfwalk.report.flame_data import diff_data_file
from perfwalk.report.html import FLAME_CLASS, esc, page, table
from perfwalk.report.pages.series import series_crumbs
from perfwalk.store import Store
from perfwalk.store.profiles import ProfileRow

#: the fewest samples a side should have when the configuration does not say
LEAST_SAMPLES = ProfileConfig().min_samples


@dataclass(frozen=True)
class ProfilePair:
    """The differential profile of ``test`` that a section shows: ``before`` and
    ``after`` name the sides (the parent's and the culprit's short sha; A and B);
    ``hidden``, the functions whose share moved within the noise of the counts;
    ``unresolved``, the samples of each side whose stack lost an unresolved frame;
    ``least``, the samples a side should have ([test.profile] min_samples)."""

    test: str
    before: str
    after: str
    functions: tuple[FunctionShare, ...]  # those whose share moved beyond the noise
    before_samples: int
    after_samples: int
    hidden: int = 0
    unresolved: tuple[int, int] = (0, 0)
    least: int = LEAST_SAMPLES

    @classmethod
    def of(
        cls, test: str, before: str, after: str, diff: Differential, least: int = LEAST_SAMPLES
    ) -> ProfilePair:
        return cls(
            test,
            before,
            after,
            diff.functions,
            diff.before_samples,
            diff.after_samples,
            diff.hidden,
            diff.unresolved,
            least,
        )


def least_samples(config: Config | None, test: str) -> int:
    """The samples a side of ``test``'s differential should have ([test.profile]
    min_samples of ``config``; the default without it or the test)."""
    found = next((t for t in config.tests if t.name == test), None) if config else None
    return found.profile.min_samples if found is not None else LEAST_SAMPLES


def stored_profiles(store: Store, ids: tuple[int, int]) -> tuple[ProfileRow, ProfileRow] | None:
    """The two stored profiles of a differential (``ids``: before, after), each read
    once; None when one is gone."""
    before, after = store.profiles.get(ids[0]), store.profiles.get(ids[1])
    return None if before is None or after is None else (before, after)


def stored_pair(
    test: str,
    profiles: tuple[ProfileRow, ProfileRow],
    labels: tuple[str, str],
    least: int = LEAST_SAMPLES,
) -> ProfilePair:
    """The differential of two stored profiles: the functions that moved most."""
    before, after = profiles
    return ProfilePair.of(test, *labels, differential(before.stacks, after.stacks), least)


def stored_diff_file(
    series_id: int, pair: ProfilePair, profiles: tuple[ProfileRow, ProfileRow]
) -> tuple[str, str]:
    """(site path, text) of the differential's data file of two stored profiles."""
    before, after = profiles
    return profile_diff_file(series_id, pair, differential(before.stacks, after.stacks).tree)


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
        + _few_samples(pair)
        + _unresolved(pair)
        + '<p class="flame-key">Each box is a function on a call path, as wide as its'
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


def _few_samples(pair: ProfilePair) -> str:
    """The warning of a side with fewer samples than ``pair.least``; "" without one."""
    samples = (pair.before_samples, pair.after_samples)
    said = few_samples(samples, (pair.before, pair.after), pair.least)
    return f'<p class="flame-warning"><strong>Warning:</strong> {esc(said)}.</p>\n' if said else ""


def _unresolved(pair: ProfilePair) -> str:
    """What leaving the unresolved frames out changed; "" when nothing."""
    before, after = pair.unresolved
    if not before and not after:
        return ""
    return (
        "<p>Frames without a symbol inside a stack (<code>[unknown]</code>, an address, a"
        " library's name in brackets) are left out of both sides, so that a call path"
        f" compares: {after} of {pair.after_samples} samples in <code>{esc(pair.after)}</code>"
        f" and {before} of {pair.before_samples} in <code>{esc(pair.before)}</code> had"
        " one; such a frame at the top of a stack (the samples ran there) is kept.</p>\n"
    )


def _noise(pair: ProfilePair) -> str:
    return noise_text(pair.before_samples, pair.after_samples, pair.hidden)


def change_table(pair: ProfilePair) -> str:
    """The functions whose self or total share changed beyond the noise of the
    counts, the largest self change first; how many changed within it."""
    changes = pair.functions
    if not changes:
        within = f" beyond the noise ({esc(_noise(pair))})" if pair.hidden else ""
        return f"<p>No function's share changed{within}.</p>\n"
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
        " Δ in percentage points, the largest self Δ first. A function whose change the"
        " counts cannot tell from chance (a two-proportion test at 95 %) is not listed:"
        f' <span class="profile-noise">{esc(_noise(pair))}</span>.</p>\n'
        + table(header, rows, css="profile-changes")
        + "\n"
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
