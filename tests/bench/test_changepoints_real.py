"""bench/changepoints.py's real corpus: every walk's manifest names its data and a
truth for each of its metrics, SAP HANA's and TCPD's series carry their licence and
provenance, SAP's engineers' change points name the first build of the regression, the
goals judge the performance series (TCPD shown beside them), the majority rule and
the pairing of detections with a person's changes do what bench/corpus/README.md
says, and ``--real-only --no-peers`` prints the table (its figures are perfwalk's on
recorded data: only the table's shape and its sources are checked)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
CORPUS = BENCH / "corpus"


@pytest.fixture(scope="module")
def changepoints() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_changepoints", BENCH / "changepoints.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_walk_has_its_data_its_provenance_and_a_truth_per_metric() -> None:
    manifests = sorted(CORPUS.glob("walks/*.manifest.json"))
    assert len({json.loads(m.read_text())["project"] for m in manifests}) >= 3
    for path in manifests:
        manifest = json.loads(path.read_text())
        data = json.loads(path.with_name(manifest["data"]).read_text())
        for key in ("repository", "walk", "machine", "analysis", "how_the_truth_was_decided"):
            assert manifest[key], (path.name, key)
        assert set(manifest["series"]) == set(data["metrics"]), path.name
        for name, metric in data["metrics"].items():
            assert len(metric["values"]) == len(data["checkouts"]), (path.name, name)
            for change in manifest["series"][name]["changes"]:
                assert change["verdict"] in ("real", "not real"), (path.name, change)
                assert change["evidence"], (path.name, change)
                assert 0 < change["index"] < len(data["checkouts"]), (path.name, change)


def test_every_tcpd_series_carries_its_licence_and_attribution() -> None:
    tcpd = json.loads((CORPUS / "tcpd.json").read_text())
    assert tcpd["citation"]
    assert re.fullmatch(r"[0-9a-f]{40}", tcpd["commit"])
    for dataset in tcpd["datasets"]:
        assert dataset["licence"], dataset["name"]
        assert dataset["attribution"], dataset["name"]
        assert len(dataset["annotations"]) == 5, dataset["name"]


def test_sap_series_keep_their_licence_and_the_engineers_judgement(
    changepoints: ModuleType,
) -> None:
    sap = json.loads((CORPUS / "sap.json").read_text())
    assert "CC BY 4.0" in sap["licence"]
    assert sap["attribution"]
    assert sap["citation"]
    assert sap["changes_made"]
    assert re.fullmatch(r"[0-9a-f]{40}", sap["commit"])
    judgements = [series["judgement"] for series in sap["series"]]
    assert len(judgements) == 25
    assert judgements.count("regression") == 5
    for series in sap["series"]:
        builds = [build["build"] for build in series["builds"]]
        assert builds == sorted(builds, key=int), series["name"]  # in the order measured
        assert len(set(builds)) == len(builds), series["name"]  # a build's values together
        first = series["first_build_with_it"]
        if series["judgement"] != "regression":
            assert first is None, series["name"]
            continue
        # the engineers' index is the last measurement before the regression: the
        # measurements before the first build that has it number at least that many
        before = sum(len(build["values"]) for build in series["builds"][:first])
        with_it = before + len(series["builds"][first]["values"])
        assert before <= series["change_point"] < with_it, series["name"]
    corpus = changepoints.real_corpus()
    judged = {s.source for s in corpus if s.judged}
    assert "SAP HANA" in judged
    assert "TCPD" not in judged
    assert any(s.source.startswith("walk ") for s in corpus if s.judged)


def test_a_change_is_flagged_by_a_majority_of_annotators_within_the_margin(
    changepoints: ModuleType,
) -> None:
    marks = {"a": [10, 50], "b": [12, 80], "c": [14], "d": [], "e": [90]}
    # 10, 12 and 14 are within 5 of each other: 3 of 5; 50, 80 and 90 stand alone
    assert changepoints._majority(marks) == [12]
    assert changepoints._majority({"a": [10], "b": [30], "c": []}) == []


def test_each_flagged_change_takes_its_nearest_detection(changepoints: ModuleType) -> None:
    series = changepoints.RealSeries("s", "n", [[1.0]] * 60, [38], [33], None, max)
    # 33 is within 5 of 38 too, but 38's own detection is nearer; 33 is confirmed
    assert changepoints.real_score([33, 38, 50], series) == ([0], [], [50])
    assert changepoints.real_score([31], series) == ([], [38], [])


def test_the_real_section_prints_every_source_and_perfwalk() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / "changepoints.py"), "--real-only", "--no-peers"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    sources = ("walk lz4", "walk xxHash", "walk libdeflate", "SAP HANA", "TCPD")
    for source in (*sources, "performance total", "all series"):
        assert re.search(rf"^{source} +\d+ +\d+ +\d+ ", out, re.M), (source, out)
    assert "TCPD is shown, not judged" in out
    assert re.search(r"^goals: on the real performance series .* -> (PASS|FAIL)", out, re.M), out
