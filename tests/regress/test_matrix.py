"""The matrix pages on a fixed history: data, order, failing streaks, commit pages,
escaping, incremental publishing (the browser side: test_matrix_in_chromium.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from perfwalk.config.load import load_config
from perfwalk.errors import PerfwalkError
from perfwalk.model import Status
from perfwalk.regress.history import severity_order
from perfwalk.report.matrix_paths import host_data, host_key, host_page
from perfwalk.services.publish import publish_regress
from perfwalk.store import Store
from perfwalk.store.regress import NewRegressRun
from tests.fixtures.synthetic_repo import KnownHistory
from tests.regress.history import (
    HOSTILE_HOST,
    HOSTILE_TEST,
    NIGHTS,
    build_history,
)

CONFIG = """\
[project]
repo = "{repo}"
commit_url = "https://git.example.org/c/{{commit}}"
[store]
url = "sqlite:///{store}"
[[test]]
name = "unused"
command = "true"
parser = "value"
[regress]
source_url = "https://git.example.org/tree/{{commit}}/{{path}}"
"""


@pytest.fixture
def site(tmp_path: Path, known_values_repo: KnownHistory) -> tuple[Path, Path]:
    """(config file, site directory) with the fixed history published."""
    config = tmp_path / "perfwalk.toml"
    config.write_text(CONFIG.format(repo=known_values_repo.path, store=tmp_path / "store.db"))
    with Store.open(load_config(config).store.url) as store:
        build_history(store, known_values_repo)
    out = tmp_path / "site"
    publish_regress(load_config(config), out)
    return config, out


def data_of(out: Path, path: str) -> dict[str, object]:
    text = (out / path).read_text(encoding="utf-8")
    found = re.fullmatch(r"perfwalkMatrix\.\w+\((.*)\);\n", text, re.S)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def expand(row: str) -> str:
    return re.sub(r"([.a-k])(\d+)", lambda m: m.group(1) * int(m.group(2)), row)


def histories(host: str) -> dict[str, list[int]]:
    """Per test, its severities newest first on ``host`` (0: not run)."""
    return {
        name: [0 if s is None else int(s) for s in reversed(statuses)]
        for name, statuses in NIGHTS[host].items()
    }


def test_host_data_holds_the_history_newest_first(site: tuple[Path, Path]) -> None:
    _config, out = site
    tests = data_of(out, "regress/data/tests.js")
    names: list[str] = tests["names"]  # type: ignore[assignment]
    assert names == sorted({name for tests in NIGHTS.values() for name in tests})
    links = dict(zip(names, tests["links"], strict=True))  # type: ignore[call-overload]
    assert (
        links["hangs"]
        == "https://git.example.org/tree/" + links["hangs"].split("/")[4] + "/regress/hangs"
    )
    assert links[HOSTILE_TEST] == ""  # no source path: no link
    data = data_of(out, host_data("alpha"))
    runs = data["runs"]
    assert [run[2] for run in runs] == [f"2026-03-0{d}" for d in range(6, 0, -1)]  # type: ignore[index, union-attr]
    # pass rate = PASS / (all − SKIP − XFAIL): night 5 has 1 PASS of 8 − 1 SKIP − 1 XFAIL
    expected = []
    for night in reversed(range(6)):
        statuses = [h[night] for h in NIGHTS["alpha"].values() if h[night] is not None]
        counted = [s for s in statuses if s not in (Status.SKIP, Status.XFAIL)]
        expected.append([statuses.count(Status.PASS), len(counted)])
    assert expected[0] == [1, 6]
    assert [run[6:8] for run in runs] == expected  # type: ignore[index, union-attr]
    rows = {names[int(t)]: expand(r) for t, r in data["rows"].items()}  # type: ignore[union-attr]
    letters = ".abcdefghijk"
    assert rows == {
        name: "".join(letters[s] for s in history) for name, history in histories("alpha").items()
    }


def test_failing_tests_have_their_streak_and_commits(
    site: tuple[Path, Path], known_values_repo: KnownHistory
) -> None:
    _config, out = site
    names: list[str] = data_of(out, "regress/data/tests.js")["names"]  # type: ignore[assignment]
    data = data_of(out, host_data("alpha"))
    since = {names[int(t)]: v for t, v in data["since"].items()}  # type: ignore[union-attr]
    # broke on night 4 (position 1 newest first) after passing on night 3 (position 2)
    first, last, commits_href, count = since["broke-recently"]
    assert (first, last) == (1, 2)
    assert count == 5  # commits 16..20 of the known history
    page = out / "regress" / commits_href
    text = page.read_text(encoding="utf-8")
    assert known_values_repo.first_parent[20][:12] in text
    assert known_values_repo.first_parent[15][:12] not in text.split("</h1>")[1].split("after")[0]
    assert since["hangs"][:2] == [5, -1]  # never passed
    assert since["new-test"][:2] == [0, -1]
    assert "always-passes" not in since
    flaky = {names[t] for t in data["flaky"]}  # type: ignore[union-attr]
    assert flaky == {"flaky"}


def test_the_failing_table_is_sorted_by_decayed_severity(site: tuple[Path, Path]) -> None:
    _config, out = site
    html = (out / host_page("alpha")).read_text(encoding="utf-8")
    table = html.split("<h2>Failing now")[1]
    shown = re.findall(r'<tr><td class="name">(?:<a [^>]*>)?([^<]*)', table)
    failing_now = {n: h for n, h in histories("alpha").items() if h[0] >= Status.XPASS}
    assert shown == [
        name.replace("<", "&lt;").replace(">", "&gt;") for name in severity_order(failing_now)
    ]


def test_untrusted_text_is_escaped_in_every_page(site: tuple[Path, Path]) -> None:
    _config, out = site
    pages = sorted((out / "regress").rglob("*.html"))
    assert len(pages) >= 12 + 4  # runs, matrix pages, log viewer, commits
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "<script>alert" not in text, page
        assert "<img src=x" not in text, page
        assert "<i>x</i>" not in text, page
        assert "<b>cpu</b>" not in text, page
    for script in (out / "regress").rglob("*.js"):
        assert "</script" not in script.read_text(encoding="utf-8").lower(), script


def test_publishing_again_writes_only_the_new_runs(
    site: tuple[Path, Path], known_values_repo: KnownHistory
) -> None:
    config, out = site
    again = publish_regress(load_config(config), out)
    assert (again.runs, again.runs_written) == (12, 0)
    with Store.open(load_config(config).store.url) as store:
        old = store.regress.runs()[0]
        store.regress.add_run(
            NewRegressRun(
                host=old.host,
                started_at=old.started_at.replace(day=20),
                finished_at=old.finished_at.replace(day=20),
                results=(),
            )
        )
    assert publish_regress(load_config(config), out).runs_written == 1
    full = publish_regress(load_config(config), out, full=True)
    assert full.runs_written == 13
    assert full.largest[1] < 100_000


def test_a_planted_link_never_makes_the_matrix_write_outside(
    site: tuple[Path, Path], tmp_path: Path
) -> None:
    config, out = site
    victim = tmp_path / "outside" / "victim"
    victim.parent.mkdir()
    victim.write_bytes(b"outside")
    (out / "regress" / "index.html.new").symlink_to(victim)  # an earlier fixed name
    publish_regress(load_config(config), out, full=True)
    assert victim.read_bytes() == b"outside"
    assert not (out / "regress" / "index.html").is_symlink()
    elsewhere = tmp_path / "outside" / "logs"
    (elsewhere / "7").mkdir(parents=True)
    (elsewhere / "1-0.js").write_bytes(b"outside")
    shutil.rmtree(out / "regress" / "logs")
    (out / "regress" / "logs").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PerfwalkError, match="regress/logs is a symbolic link"):
        publish_regress(load_config(config), out, full=True)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["1-0.js", "7"]
    assert (elsewhere / "1-0.js").read_bytes() == b"outside"


def test_host_keys_are_file_names_and_distinct() -> None:
    keys = {host_key(h) for h in ["alpha", "a/b", "a_b", "a b", "..", "", HOSTILE_HOST]}
    assert len(keys) == 7
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", key) and key not in (".", "..") for key in keys)
