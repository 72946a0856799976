"""The published site: hostile commit text is escaped, every link resolves."""

from __future__ import annotations

import base64
import re
import zlib
from pathlib import Path

from perfwalk.config import load_config
from perfwalk.orchestrate.walk.plan import RunOptions
from perfwalk.report.site import publish
from perfwalk.services.run import run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory
from tests.report.site_data import read_data

CONFIG = """\
[project]
repo = "{repo}"
[build]
steps = ["sh build.sh"]
[[test]]
name = "latency"
command = "sh bench.sh; printf '<script>alert(1)</script>\\\\033[31m\\\\377\\\\n' >&2"
parser = "value"
"""


def test_site_escapes_untrusted_text_and_links_resolve(
    tmp_path: Path, known_values_repo_copy: KnownHistory
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=known_values_repo_copy.path))
    config = load_config(path)
    run_series(
        config,
        RunOptions(step="commit", repetitions=1, from_=known_values_repo_copy.first_parent[30]),
    )
    with Store.open(config.store.url) as store:
        index = publish(store, config, tmp_path / "site").index
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert index in pages
    texts = {page: page.read_text(encoding="utf-8") for page in pages}
    everything = "\n".join(texts.values())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in everything  # the hostile commit
    logs = b""
    for data in (tmp_path / "site").rglob("*.js"):
        if data.parent.name != "data":
            continue
        call, found = read_data(data)  # every data file: one call with JSON, nothing else
        if call == "logs":
            raw, offset = base64.b64decode(found["z"]), 0
            for length in found["len"]:
                logs += zlib.decompress(raw[offset : offset + length])
                offset += length
    assert b"\x1b[31m" in logs  # kept as written; pages.js shows it as \x1b (browser tests)
    for page, text in texts.items():
        assert not re.search(
            r"<script(?![^>]* src=\"[./]*(echarts.min|plot|scales|ticks|pages|format|night).js\")",
            text,
        ), page
        assert "\x1b" not in text, page
        for href in re.findall(r'href="(?!data:)([^"#]+)', text):
            assert (page.parent / href).resolve().exists(), (page, href)
