"""The published site: hostile commit text is escaped, every link resolves."""

from __future__ import annotations

import re
from pathlib import Path

from perfwalk.config import load_config
from perfwalk.report.site import publish
from perfwalk.services.run import RunOptions, run_series
from perfwalk.store import Store
from tests.fixtures.synthetic_repo import KnownHistory

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
    assert "\\x1b[31m" in everything  # ANSI escape shown, not interpreted
    for page, text in texts.items():
        assert not re.search(r"<script(?![^>]* src=\"[./]*(echarts.min|plot).js\")", text), page
        assert "\x1b" not in text, page
        for href in re.findall(r'href="(?!data:)([^"#]+)', text):
            assert (page.parent / href).resolve().exists(), (page, href)
