"""Where every page and data file of the site lives, and how pages link to each other.

Paths are relative to the site's root, with ``/`` separators; :func:`href` turns a
path into a link from the page that holds it. Checkouts are grouped into table
pages of :data:`TABLE_COLUMNS` and data blocks of :data:`PLOT_BLOCK`, so one new
checkout rewrites one of each, whatever the length of the series.

A checkout, its logs and its commits have no page of their own: one page per series
and kind (``checkout.html``, ``logs.html``, ``commits.html``) draws the one its link
names (``checkout.html#c=12``, ``logs.html#c=12&to=log-7-L3``) from the data file of
its block, a script that loads from file:// too.
"""

from __future__ import annotations

import hashlib

#: checkouts per table page of a series (columns)
TABLE_COLUMNS = 50
#: checkouts per plot data file (a multiple of TABLE_COLUMNS)
PLOT_BLOCK = 100
#: plot data blocks per sealed file: once a run of SEAL blocks is complete (the series
#: has gone past it), their data also go into one file, so a long plot loads a few
#: large files instead of a hundred small ones
SEAL = 10
#: the folder of the site's own state (manifest for incremental publishing)
STATE_DIR = ".perfwalk"

INDEX = "index.html"
#: the Atom feed of the changes (report.feed)
FEED = "changes.xml"
#: every metric's level per release window (report.pages.releases)
RELEASES = "releases.html"
#: the functional-regression matrix (report.matrix writes it under regress/)
MATRIX_DIR = "regress"
MATRIX_INDEX = f"{MATRIX_DIR}/index.html"
STYLE = "style.css"
PLOT_JS = "plot.js"
HEATMAP_JS = "heatmap.js"
#: the sweep families' profiles (a value against the swept parameter)
SWEEP_JS = "sweep.js"
#: which values of a plot share a y axis (the rest get a plot of their own)
SCALES_JS = "scales.js"
#: where a time axis ticks: round times of the site's time zone, not of UTC
TICKS_JS = "ticks.js"
#: how a number is written (the rules of perfwalk.quantities), for the other scripts
FORMAT_JS = "format.js"
#: the script that draws checkout, log and commit pages from the data files
PAGES_JS = "pages.js"
LIBRARY_JS = "echarts.min.js"
#: the script that turns the index's "last night" strip red once its last run is stale
NIGHT_JS = "night.js"
#: the script that draws flame graphs (a profile's page, a differential on a drill's page)
FLAME_JS = "flame.js"
#: the flame graph renderer (d3-flame-graph) and its style
FLAME_LIBRARY_JS = "d3-flamegraph.min.js"
FLAME_CSS = "d3-flamegraph.css"
#: d3's selections (d3-selection), with which flame.js hands the renderer its element
SELECTION_JS = "d3-selection.min.js"


def series_page(series_id: int) -> str:
    return f"series-{series_id}.html"


def series_dir(series_id: int) -> str:
    return f"series-{series_id}"


def release_page(place: int | None) -> str:
    """The page of one release window: the release's place in date order (None: the
    checkouts before the first release)."""
    return f"releases/{'before' if place is None else f'release-{place}'}.html"


def setup_page(series_id: int) -> str:
    return f"series-{series_id}/setup.html"


def table_page(series_id: int, page: int) -> str:
    return f"series-{series_id}/table-{page}.html"


def checkout_shell(series_id: int) -> str:
    """The page that shows any checkout of the series (which one: its link's ``#c=``)."""
    return f"series-{series_id}/checkout.html"


def logs_shell(series_id: int) -> str:
    """The page that shows every log of any checkout of the series."""
    return f"series-{series_id}/logs.html"


def commits_shell(series_id: int) -> str:
    """The page that shows the commit log up to any checkout of the series."""
    return f"series-{series_id}/commits.html"


def log_shell(series_id: int) -> str:
    """The page that shows one large log of the series, paged."""
    return f"series-{series_id}/log.html"


def _at(page: str, key: str, value: int, to: str | None) -> str:
    return f"{page}#{key}={value}" + (f"&to={to}" if to else "")


def checkout_page(series_id: int, idx: int, to: str | None = None) -> str:
    """The link to checkout ``idx`` (``to``: an element of its page, e.g. a test's row)."""
    return _at(checkout_shell(series_id), "c", idx, to)


def logs_page(series_id: int, idx: int, to: str | None = None) -> str:
    """The link to every log of checkout ``idx`` (``to``: a log, a line, a result)."""
    return _at(logs_shell(series_id), "c", idx, to)


def commits_page(series_id: int, idx: int, to: str | None = None) -> str:
    """The link to the commits up to checkout ``idx`` (``to``: a commit's anchor)."""
    return _at(commits_shell(series_id), "c", idx, to)


def commit_anchor(sha: str) -> str:
    """The id of a commit on the commits page (pages.js gives it the same)."""
    return "commit-" + "".join(ch for ch in sha.lower() if ch in "0123456789abcdef")


def log_page(series_id: int, log_id: int) -> str:
    """The link to a log too large for the logs of its checkout: its own page, paged."""
    return _at(log_shell(series_id), "log", log_id, None)


def log_text(series_id: int, log_id: int) -> str:
    """The whole stored log, as plain text to download."""
    return f"series-{series_id}/log-{log_id}.txt"


def checkout_data(series_id: int, block: int) -> str:
    """The checkouts of one block: repetitions, results, values, summaries."""
    return f"series-{series_id}/data/checkouts-{block}.js"


def logs_data(series_id: int, block: int) -> str:
    """The logs of one block's checkouts, compressed as the store keeps them."""
    return f"series-{series_id}/data/logs-{block}.js"


def large_log_data(series_id: int, log_id: int) -> str:
    """A large log, compressed, for its own page."""
    return f"series-{series_id}/data/log-{log_id}.js"


def commits_data(series_id: int, block: int) -> str:
    """The commits since the previous checkout of each checkout of one block."""
    return f"series-{series_id}/data/commits-{block}.js"


def plot_data(series_id: int, key: str, block: int) -> str:
    return f"series-{series_id}/data/{key}-{block}.js"


def sealed_data(series_id: int, key: str, seal: int) -> str:
    """Plot data blocks ``seal * SEAL`` … ``seal * SEAL + SEAL - 1`` in one file."""
    return f"series-{series_id}/data/{key}-s{seal}.js"


def series_meta(series_id: int) -> str:
    return f"series-{series_id}/data/meta.js"


def profile_shell(series_id: int) -> str:
    """The page that draws any profile of the series as a flame graph (which one: its
    link's ``#p=``)."""
    return f"series-{series_id}/profile.html"


def profile_page(series_id: int, profile_id: int) -> str:
    """The link to the flame graph of profile ``profile_id`` (a stored profile's id)."""
    return f"{profile_shell(series_id)}#p={profile_id}"


def profile_data(series_id: int, profile_id: int) -> str:
    """A profile's folded stacks, compressed, for its flame graph."""
    return f"series-{series_id}/data/profile-{profile_id}.js"


def profile_key(profile_id: int) -> str:
    """The key of a profile's data file: flame.js finds the data it loaded by it."""
    return f"p{profile_id}"


def profile_diff_key(test: str) -> str:
    """The key of the differential profile of ``test`` (a test name may hold anything)."""
    return "d" + hashlib.sha1(test.encode(), usedforsecurity=False).hexdigest()[:12]


def profile_diff_data(series_id: int, test: str) -> str:
    """The differential profile of ``test`` on a drill's or a try's page (after against
    before: the culprit against its parent, B against A)."""
    return f"series-{series_id}/data/profile-{profile_diff_key(test)}.js"


def conduct_page(conduct_id: int) -> str:
    """The page of a conductor run: its values, its trials' steps and outputs."""
    return f"conduct-{conduct_id}.html"


def conduct_output(conduct_id: int, log_id: int) -> str:
    """An output of a conductor run's step too long for its page, whole, as plain text."""
    return f"conduct-{conduct_id}/output-{log_id}.txt"


def log_anchor(log_id: int, line: int | None = None) -> str:
    return f"log-{log_id}" if line is None else f"log-{log_id}-L{line}"


def table_of(idx_position: int) -> int:
    """The table page of the checkout at ``idx_position`` (0-based position in the series)."""
    return idx_position // TABLE_COLUMNS


def block_of(idx_position: int) -> int:
    return idx_position // PLOT_BLOCK


def plot_key(test: str, unit: str) -> str:
    """A stable file-name-safe key of the plot of ``test``'s values in ``unit``."""
    return hashlib.sha1(f"{test}\0{unit}".encode(), usedforsecurity=False).hexdigest()[:12]


def href(page: str, target: str) -> str:
    """The relative link from ``page`` to ``target`` (both site paths; ``#`` kept)."""
    here = page.rpartition("/")[0]
    if not here:
        return target
    if target.startswith(here + "/"):
        return target[len(here) + 1 :]
    if target.startswith("#"):
        return target
    return "../" * (here.count("/") + 1) + target
