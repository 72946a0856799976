"""The site's own files: the style, the plot script, the flame graph script, the
plotting library (Apache ECharts) and the flame graph renderer (d3-flame-graph, which
bundles the parts of d3 it uses), both installed by npm under web/ and copied into
every site with their licences, so the site needs no network."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from perfwalk.errors import PerfwalkError
from perfwalk.report import layout

#: where `make install` (npm ci in web/) puts the library, from the repository's root
_LIBRARY = Path("web/node_modules/echarts/dist/echarts.min.js")
#: the flame graph renderer (its d3 parts bundled) and its style; d3-selection, with
#: which a page hands the renderer the element to draw in
_FLAME = Path("web/node_modules/d3-flame-graph/dist")
_SELECTION = Path("web/node_modules/d3-selection/dist/d3-selection.min.js")
#: the packages whose code the renderer's bundle holds, for its licence file
_FLAME_BUNDLED = (
    "d3-flame-graph",
    "d3-array",
    "d3-color",
    "d3-dispatch",
    "d3-ease",
    "d3-format",
    "d3-hierarchy",
    "d3-interpolate",
    "d3-scale",
    "d3-selection",
    "d3-time",
    "d3-time-format",
    "d3-timer",
    "d3-transition",
    "internmap",
)


def _root() -> Path:
    return Path(__file__).resolve().parents[3]


def _installed(path: Path, what: str) -> Path:
    if not path.is_file():
        raise PerfwalkError(
            f"the {what} is missing: {path} does not exist",
            hint="run `make install` (it runs `npm ci` in web/) before publishing a site",
        )
    return path


def library_file() -> Path:
    """The plotting library; a clear error when it is not installed."""
    return _installed(_root() / _LIBRARY, "plotting library")


def flame_files() -> dict[str, bytes]:
    """Site path → content of the flame graph renderer, its style and its licences
    (the renderer's and those of the d3 modules its bundle holds)."""
    dist = _root() / _FLAME
    modules = dist.parents[1]
    licences = []
    for name in _FLAME_BUNDLED:
        found = modules / name / "LICENSE"
        if found.is_file():
            licences.append(f"== {name} ==\n\n".encode() + found.read_bytes())
    return {
        layout.SELECTION_JS: _installed(_root() / _SELECTION, "d3-selection library").read_bytes(),
        layout.FLAME_LIBRARY_JS: _installed(
            dist / "d3-flamegraph.min.js", "flame graph renderer"
        ).read_bytes(),
        layout.FLAME_CSS: _installed(dist / "d3-flamegraph.css", "flame graph style").read_bytes(),
        "d3-flamegraph-LICENSE.txt": b"\n".join(licences),
    }


def _static(name: str) -> bytes:
    return resources.files("perfwalk.report").joinpath("static", name).read_bytes()


def site_assets() -> dict[str, bytes]:
    """Site path → content of every file the pages share."""
    library = library_file()
    assets = {
        layout.STYLE: _static("style.css"),
        layout.PLOT_JS: _static("plot.js"),
        layout.HEATMAP_JS: _static("heatmap.js"),
        layout.SCALES_JS: _static("scales.js"),
        layout.SWEEP_JS: _static("sweep.js"),
        layout.TICKS_JS: _static("ticks.js"),
        layout.FORMAT_JS: _static("format.js"),
        layout.PAGES_JS: _static("pages.js"),
        layout.FLAME_JS: _static("flame.js"),
        layout.NIGHT_JS: _static("night.js"),
        layout.LIBRARY_JS: library.read_bytes(),
        **flame_files(),
    }
    license_file = library.parents[1] / "LICENSE"
    if license_file.is_file():
        assets["echarts-LICENSE.txt"] = license_file.read_bytes()
    return assets
