"""Where the regress matrix's files are in the site, and the links between them
(see :mod:`perfwalk.report.matrix` for what each file holds)."""

from __future__ import annotations

import hashlib
import posixpath
import re

from perfwalk.report import layout

DIR = layout.MATRIX_DIR
INDEX = layout.MATRIX_INDEX
LOG_PAGE = f"{DIR}/log.html"
TESTS_DATA = f"{DIR}/data/tests.js"
ASSETS = {
    "matrix.js": f"{DIR}/matrix.js",
    "log.js": f"{DIR}/log.js",
    "matrix.css": f"{DIR}/matrix.css",
}
#: what the site holds of each run: {run id: {"stamp": …, "parts": …}} (not a page)
PUBLISHED = f"{DIR}/logs/published.json"
_PREFIX = f"{DIR}/"
_RUNS_DIR = f"{DIR}/runs"
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def host_key(host: str) -> str:
    """A file-name-safe key of a host name, distinct for distinct names."""
    safe = _SAFE.sub("_", host)[:40]
    if safe == host and safe not in ("", ".", ".."):
        return safe
    return f"{safe}-{hashlib.sha1(host.encode(), usedforsecurity=False).hexdigest()[:8]}"


def host_page(host: str) -> str:
    return f"{DIR}/host-{host_key(host)}.html"


def host_data(host: str) -> str:
    return f"{DIR}/data/host-{host_key(host)}.js"


def run_page(run_id: int) -> str:
    return f"{DIR}/runs/{run_id}.html"


def log_link(run_id: int, test: int | str) -> str:
    return f"{LOG_PAGE}#run={run_id}&test={test}"


def commits_page(after: str, until: str) -> str:
    return f"{DIR}/commits/{after[:12]}-{until[:12]}.html"


def href(at: str, target: str) -> str:
    """The link from page ``at`` to ``target``, both site paths (``#…`` kept)."""
    if target.startswith("#"):
        return target
    here = at.rpartition("/")[0]
    if here == DIR and target.startswith(_PREFIX):  # the common cases, quickly
        return target[len(_PREFIX) :]
    if here == _RUNS_DIR and target.startswith(_PREFIX) and "/" not in target[len(_PREFIX) :]:
        return "../" + target[len(_PREFIX) :]
    path, hash_, fragment = target.partition("#")
    return posixpath.relpath(path, here or ".") + hash_ + fragment
