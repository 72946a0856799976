"""Where every page and data file of the site lives, and how pages link to each other.

Paths are relative to the site's root, with ``/`` separators; :func:`href` turns a
path into a link from the page that holds it. Checkouts are grouped into table
pages of :data:`TABLE_COLUMNS` and plot data files of :data:`PLOT_BLOCK`, so one new
checkout rewrites one of each, whatever the length of the series.
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
#: the functional-regression matrix (report.matrix writes it under regress/)
MATRIX_DIR = "regress"
MATRIX_INDEX = f"{MATRIX_DIR}/index.html"
STYLE = "style.css"
PLOT_JS = "plot.js"
LIBRARY_JS = "echarts.min.js"


def series_page(series_id: int) -> str:
    return f"series-{series_id}.html"


def series_dir(series_id: int) -> str:
    return f"series-{series_id}"


def setup_page(series_id: int) -> str:
    return f"series-{series_id}/setup.html"


def table_page(series_id: int, page: int) -> str:
    return f"series-{series_id}/table-{page}.html"


def checkout_page(series_id: int, idx: int) -> str:
    return f"series-{series_id}/checkout-{idx}.html"


def logs_page(series_id: int, idx: int) -> str:
    """Every log of one checkout (build, quirks, between, each result's output)."""
    return f"series-{series_id}/logs-{idx}.html"


def log_page(series_id: int, log_id: int) -> str:
    """A log too large to show inline: its own page, head and tail."""
    return f"series-{series_id}/log-{log_id}.html"


def log_text(series_id: int, log_id: int) -> str:
    """The whole stored log, as plain text to download."""
    return f"series-{series_id}/log-{log_id}.txt"


def commits_page(series_id: int, idx: int) -> str:
    return f"series-{series_id}/commits-{idx}.html"


def plot_data(series_id: int, key: str, block: int) -> str:
    return f"series-{series_id}/data/{key}-{block}.js"


def sealed_data(series_id: int, key: str, seal: int) -> str:
    """Plot data blocks ``seal * SEAL`` … ``seal * SEAL + SEAL - 1`` in one file."""
    return f"series-{series_id}/data/{key}-s{seal}.js"


def series_meta(series_id: int) -> str:
    return f"series-{series_id}/data/meta.js"


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
