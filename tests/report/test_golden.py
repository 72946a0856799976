"""Golden pages: the fixed store's site, byte for byte.

Regenerate after an intended change with ``pytest tests/report --regen-golden``
and read the diff before committing it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from perfwalk.report.assets import library_file, site_assets
from tests.report.conftest import Published

GOLDEN = Path(__file__).parents[1] / "golden" / "report"
#: copied as they are (the style, the scripts, the plotting library): compared with
#: their sources instead of frozen here
ASSETS = set(site_assets())


def _site_files(site: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(site)): p.read_bytes()
        for p in sorted(site.rglob("*"))
        if p.is_file() and str(p.relative_to(site)) not in ASSETS and ".perfwalk" not in p.parts
    }


def test_pages_match_the_golden_pages(published: Published, regen_golden: bool) -> None:
    produced = _site_files(published.site)
    if regen_golden:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for name, data in produced.items():
            (GOLDEN / name).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / name).write_bytes(data)
    expected = {
        str(p.relative_to(GOLDEN)): p.read_bytes() for p in GOLDEN.rglob("*") if p.is_file()
    }
    assert sorted(produced) == sorted(expected), "pages added or missing: run with --regen-golden"
    different = [name for name in produced if produced[name] != expected[name]]
    assert not different, f"pages differ from tests/golden/report: {different[:10]}"


def test_the_shared_files_are_copied_whole(published: Published) -> None:
    for name, data in site_assets().items():
        assert (published.site / name).read_bytes() == data, name
    assert (published.site / "echarts.min.js").read_bytes() == library_file().read_bytes()
