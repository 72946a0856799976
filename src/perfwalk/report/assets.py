"""The site's own files: the style, the plot script, and the plotting library
(Apache ECharts, installed by npm under web/ and copied into every site, so the
site needs no network)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from perfwalk.errors import PerfwalkError
from perfwalk.report import layout

#: where `make install` (npm ci in web/) puts the library, from the repository's root
_LIBRARY = Path("web/node_modules/echarts/dist/echarts.min.js")


def library_file() -> Path:
    """The plotting library; a clear error when it is not installed."""
    root = Path(__file__).resolve().parents[3]
    found = root / _LIBRARY
    if not found.is_file():
        raise PerfwalkError(
            f"the plotting library is missing: {found} does not exist",
            hint="run `make install` (it runs `npm ci` in web/) before publishing a site",
        )
    return found


def _static(name: str) -> bytes:
    return resources.files("perfwalk.report").joinpath("static", name).read_bytes()


def site_assets() -> dict[str, bytes]:
    """Site path → content of every file the pages share."""
    library = library_file()
    assets = {
        layout.STYLE: _static("style.css"),
        layout.PLOT_JS: _static("plot.js"),
        layout.PAGES_JS: _static("pages.js"),
        layout.LIBRARY_JS: library.read_bytes(),
    }
    license_file = library.parents[1] / "LICENSE"
    if license_file.is_file():
        assets["echarts-LICENSE.txt"] = license_file.read_bytes()
    return assets
