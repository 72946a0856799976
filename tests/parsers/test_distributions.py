"""The distribution parsers (hdrhistogram, bpftrace-hist, dtrace-quantize): the
histograms of the real tools read whole, their percentiles, and the options a
config author gets wrong."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfwalk.errors import ConfigError, ParseError
from perfwalk.model import Histogram
from perfwalk.parsers import get_parser
from perfwalk.parsers.distribution import percentile
from tests.fixtures.latency_recorder import build_recorder


def by_name(values: tuple[object, ...]) -> dict[str, float]:
    return {v.name: v.value for v in values}  # type: ignore[attr-defined]


def test_the_real_hdrhistogram_library_gives_its_own_percentiles(tmp_path: Path) -> None:
    """A program linked with HdrHistogram prints its table; the parser's p50 and p99 are
    the library's getValueAtPercentile, and a worse tail moves p99, not p50."""
    record = build_recorder(tmp_path)
    parse = get_parser("hdrhistogram", {"percentiles": [50, 99]})
    found = {}
    for tail in (1, 5):
        text = subprocess.run(
            [*record, "20000", str(tail), "1000", "11"], capture_output=True, text=True, check=True
        ).stdout
        values = parse(text)
        print(tail, [(v.name, v.value) for v in values])
        histogram = values[0].histogram
        assert histogram is not None
        assert histogram.count == 20000
        assert all(v.histogram is histogram for v in values)
        found[tail] = by_name(values)
    assert 120 <= found[1]["latency.p50"] <= 130
    assert 120 <= found[5]["latency.p50"] <= 130
    assert found[1]["latency.p99"] < 150
    assert found[5]["latency.p99"] > 1000


def test_the_real_bpftrace_histograms(tmp_path: Path) -> None:
    """bpftrace's own hist() and lhist(), from a BEGIN probe (root and BPF needed)."""
    if shutil.which("bpftrace") is None:
        pytest.skip("bpftrace is not installed (scripts/debian-packages.txt)")
    done = subprocess.run(
        [
            "bpftrace",
            "-e",
            "BEGIN { $i = 0; while ($i < 100) { @usecs = hist($i * 40);"
            " @small = lhist($i, 0, 100, 10); $i++; } exit(); }",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if done.returncode != 0 or "@usecs" not in done.stdout:
        pytest.skip(f"bpftrace cannot load a program here: {done.stderr.strip()[:200]}")
    values = get_parser("bpftrace-hist")(done.stdout)
    found = by_name(values)
    print(found)
    hists = {v.name.split(".")[0]: v.histogram for v in values}
    assert set(hists) == {"usecs", "small"}
    assert all(h is not None and h.count == 100 for h in hists.values())
    assert 40 <= found["small.p50"] <= 60  # 0…99, ten to a bucket
    assert 1024 <= found["usecs.p50"] <= 2048  # 0…3960 in log2 buckets


def test_percentiles_inside_a_bucket_and_at_its_top() -> None:
    histogram = Histogram("x", "us", ((0, 0, 10), (0, 10, 0), (10, 20, 90)))
    assert percentile(histogram, 10) == 0
    assert percentile(histogram, 55) == pytest.approx(15)
    assert percentile(histogram, 55, interpolate=False) == 20
    assert percentile(histogram, 100) == 20


@pytest.mark.parametrize(
    ("options", "key", "said"),
    [
        ({"percentiles": []}, "t.parser_options.percentiles", "non-empty list"),
        ({"percentiles": [50, 101]}, "t.parser_options.percentiles", "at most 100"),
        ({"percentiles": [0]}, "t.parser_options.percentiles", "above 0"),
        ({"percentiles": "99"}, "t.parser_options.percentiles", "non-empty list"),
        ({"unit": ""}, "t.parser_options.unit", "non-empty word"),
        ({"name": 3}, "t.parser_options.name", "non-empty word"),
        ({"percentile": [99]}, "t.parser_options.percentile", "unknown option"),
    ],
)
def test_bad_options_name_their_key(options: dict[str, object], key: str, said: str) -> None:
    for parser in ("hdrhistogram", "bpftrace-hist", "dtrace-quantize"):
        with pytest.raises(ConfigError) as caught:
            get_parser(parser, options, key="t.parser")
        assert caught.value.key == key
        assert said in caught.value.message


@pytest.mark.parametrize(
    ("parser", "text", "said"),
    [
        ("hdrhistogram", "Value Percentile TotalCount\n\n 5.0 0.5 10\n 4.0 1.0 20\n", "line 4"),
        ("hdrhistogram", "Value Percentile TotalCount\n\n 5.0 0.5 10\n 6.0 1.0 9\n", "falls"),
        ("bpftrace-hist", "@x:\n[8, 4)  3 |@@@|\n", "upper bound is below"),
        ("bpftrace-hist", "@x:\n[0]  0 ||\n", "at least one sample"),
        ("dtrace-quantize", "  value  --- Distribution --- count\n  8 |@ 1\n  4 |@ 1\n", "ascend"),
    ],
)
def test_broken_histograms_are_a_parse_error(parser: str, text: str, said: str) -> None:
    with pytest.raises(ParseError) as caught:
        get_parser(parser)(text)
    print(caught.value.message)
    assert said in caught.value.message
