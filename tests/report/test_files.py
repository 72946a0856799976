"""The site's files are written through unique temporary files, never through a link,
and two publishers of one site do not get in each other's way."""

from __future__ import annotations

import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from perfwalk.cli.main import main
from perfwalk.errors import PerfwalkError
from perfwalk.hosts.leftovers import start_time
from perfwalk.report import layout
from perfwalk.report.files import SiteFolder
from perfwalk.report.site import PublishOptions, publish
from perfwalk.store import Store
from tests.report.conftest import Published, publish_fixed
from tests.report.history import config_for
from tests.report.test_commands import _config

VICTIM = b"an outside file that perfwalk must never write\n"


def _victim(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(VICTIM)
    return path


def _republish(published: Published) -> None:
    with Store.open(published.fixed.url) as store:
        publish(store, published.config, published.site, PublishOptions(full=True))


def test_a_link_in_place_of_a_page_is_replaced_and_its_target_untouched(tmp_path: Path) -> None:
    published = publish_fixed(tmp_path)
    site, daily = published.site, published.fixed.daily
    setup = site / layout.setup_page(daily)
    setup.unlink()
    setup.symlink_to(_victim(tmp_path / "outside" / "setup-victim"))
    # the fixed temporary names of earlier versions, planted by someone else
    (site / "index.html.new").symlink_to(_victim(tmp_path / "outside" / "index-victim"))
    (site / layout.series_dir(daily) / "setup.html.new").symlink_to(tmp_path / "outside" / "x")
    _republish(published)
    assert (tmp_path / "outside" / "setup-victim").read_bytes() == VICTIM
    assert (tmp_path / "outside" / "index-victim").read_bytes() == VICTIM
    assert not (tmp_path / "outside" / "x").exists()
    assert not setup.is_symlink()
    assert b"setup of series" in setup.read_bytes()
    assert [p.name for p in site.rglob("*.tmp")] == []


def test_a_linked_folder_stops_the_publish_and_nothing_is_written_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, _url, daily = _config(tmp_path)
    site = tmp_path / "site"
    assert main(["report", "-c", str(config), "--out", str(site)]) == 0
    outside = tmp_path / "outside"
    _victim(outside / "setup.html")
    _victim(outside / "table-0.html")
    folder = site / layout.series_dir(daily)
    shutil.rmtree(folder)
    folder.symlink_to(outside, target_is_directory=True)
    capsys.readouterr()
    assert main(["report", "-c", str(config), "--out", str(site), "--full"]) == 2
    err = capsys.readouterr().err
    assert f"{layout.series_dir(daily)} is a symbolic link" in err
    assert "hint: perfwalk writes a site only into its own folders" in err
    assert sorted(p.name for p in outside.iterdir()) == ["setup.html", "table-0.html"]
    assert (outside / "setup.html").read_bytes() == VICTIM
    assert (outside / "table-0.html").read_bytes() == VICTIM


def test_the_folder_refuses_links_on_the_way_and_paths_out_of_the_site(tmp_path: Path) -> None:
    site = SiteFolder(tmp_path / "site")
    site.write("a/b/page.html", b"one")
    (tmp_path / "site" / "link").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(PerfwalkError, match="link is a symbolic link"):
        site.write("link/page.html", b"two")
    with pytest.raises(PerfwalkError, match="link is a symbolic link"):
        site.remove("link/a")
    assert site.read("link/site/a/b/page.html") is None
    assert not site.exists("link/site/a/b/page.html")
    assert site.read("a/b/page.html") == b"one"
    for bad in ("../x", "a/../../x", "/etc/passwd", ""):
        with pytest.raises(ValueError, match="not a path inside the site"):
            site.write(bad, b"x")
    assert not (tmp_path / "x").exists()
    written = tmp_path / "site" / "a" / "b" / "page.html"
    assert oct(written.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _publish_rounds(url: str, folder: str, rounds: int) -> None:
    config = config_for(url, Path(folder))
    with Store.open(url) as store:
        for _ in range(rounds):
            publish(store, config, Path(folder) / "site", PublishOptions(full=True))


def test_two_publishers_of_one_site_at_once_both_succeed(tmp_path: Path) -> None:
    published = publish_fixed(tmp_path)
    context = multiprocessing.get_context("fork")
    publishers = [
        context.Process(target=_publish_rounds, args=(published.fixed.url, str(tmp_path), 8))
        for _ in range(3)
    ]
    for process in publishers:
        process.start()
    for process in publishers:
        process.join(timeout=300)
    assert [p.exitcode for p in publishers] == [0, 0, 0]
    assert [p.name for p in published.site.rglob("*.tmp")] == []
    assert [p.name for p in published.site.rglob("*.new")] == []
    assert b"setup of series" in (published.site / layout.setup_page(1)).read_bytes()


def test_a_killed_publish_leaves_temporaries_that_the_next_publish_removes(
    tmp_path: Path,
) -> None:
    """A publish killed between writing a temporary file and renaming it left it in the
    site (seen in tests/services/test_faults.py); the next publish removes it, and keeps
    the temporary file of a publisher that is still writing."""
    published = publish_fixed(tmp_path)
    ended = multiprocessing.get_context("fork").Process(target=os.getpid)
    ended.start()
    ended.join()
    assert ended.pid is not None
    ours = f"{os.getpid()}-{start_time(os.getpid())}"
    left = {
        "series-1/.index.html.{}-{}.0123456789abcdef.tmp": (ended.pid, "12345"),  # killed
        ".index.html.{}-{}.00000000000000ff.tmp": (os.getpid(), "1"),  # its PID reused since
        "regress/.data.js.{}-{}.fedcba9876543210.tmp": (ended.pid, "?"),
    }
    for pattern, (pid, started) in left.items():
        path = published.site / pattern.format(pid, started)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a page")
    writing = published.site / f".plot.js.{ours}.0000000000000001.tmp"  # a live writer's
    writing.write_bytes(b"being written")

    _republish(published)

    assert [p.name for p in published.site.rglob("*.tmp")] == [writing.name]
    assert SiteFolder(published.site).remove_stale_temporaries() == 0
