"""``perfwalk report`` and ``perfwalk serve`` on a real configuration and store."""

from __future__ import annotations

import threading
import time
import urllib.request
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.report import layout
from perfwalk.report.site import PublishReport
from perfwalk.services.publish import serve_site
from perfwalk.store import Store
from tests.report.history import add_daily_checkout, make_fixed_store

CONFIG = """\
[project]
repo = "{repo}"
commit_url = "https://git.example.org/c/{{commit}}"
[store]
url = "{url}"
[[test]]
name = "iperf"
command = "true"
parser = "value"
"""


def _config(tmp_path: Path, daily_checkouts: int = 4) -> tuple[Path, str, int]:
    fixed = make_fixed_store(tmp_path / "store.db", daily_checkouts=daily_checkouts)
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG.format(repo=tmp_path, url=fixed.url))
    return path, fixed.url, fixed.daily


def test_report_writes_the_site_then_only_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, _url, daily = _config(tmp_path)
    out = tmp_path / "site"
    assert main(["report", "-c", str(config), "--out", str(out)]) == 0
    first = capsys.readouterr().out
    assert "full publish" in first
    assert f"site: {out / 'index.html'}" in first
    assert '"idx":3,' in (out / layout.checkout_data(daily, 0)).read_text()
    assert "git.example.org/c/" in (out / layout.series_meta(daily)).read_text()
    assert main(["report", "-c", str(config), "--out", str(out)]) == 0
    assert "incremental publish: 0 files written" in capsys.readouterr().out


def test_report_names_a_missing_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "-c", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml" in capsys.readouterr().err


def test_serve_rebuilds_the_pages_while_a_run_adds_results(tmp_path: Path) -> None:
    path, url, daily = _config(tmp_path)
    config = load_config(path)
    out = tmp_path / "site"
    ready: list[str] = []
    published: list[PublishReport] = []
    stop = threading.Event()
    server = threading.Thread(
        target=serve_site,
        args=(config, out),
        kwargs={
            "port": 0,
            "interval": 0.1,
            "ready": lambda address, _report: ready.append(address),
            "published": published.append,
            "stop": stop,
        },
    )
    server.start()
    try:
        deadline = time.monotonic() + 30
        while not ready and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready, "the server did not start"
        address = ready[0]
        assert address.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(address + layout.INDEX) as answer:
            assert answer.status == 200
            assert "all series" in answer.read().decode()
        data = address + layout.checkout_data(daily, 0)
        with urllib.request.urlopen(data) as answer:
            assert '"idx":4,' not in answer.read().decode()
        with Store.open(url) as store:
            add_daily_checkout(store, daily, 4)
        while time.monotonic() < deadline:
            with urllib.request.urlopen(data) as answer:
                if '"idx":4,' in answer.read().decode() and published:
                    break  # (the files are there before the publish that wrote them returns)
            time.sleep(0.1)
        else:
            pytest.fail("the new checkout never reached the site")
        assert published
        assert not published[-1].full
    finally:
        stop.set()
        server.join(timeout=30)
    assert not server.is_alive()
