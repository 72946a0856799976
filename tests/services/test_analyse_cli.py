"""``perfwalk compare``, ``detect`` and ``changes`` end to end: output and exit status."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perfwalk.cli import exits
from perfwalk.cli.main import main
from perfwalk.config import load_config
from perfwalk.store import Store
from tests.services.test_analyse import CONFIG, RATE, TIME, add_series, step


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    a, b, same = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "same.txt"
    a.write_text("10\n11\n12\n13\n", encoding="utf-8")
    b.write_text("20\n25\n30\n35\n40\n", encoding="utf-8")
    same.write_text("10.5\n11\n12.5\n12\n", encoding="utf-8")
    return a, b, same


@pytest.mark.skipif(shutil.which("ministat") is None, reason="ministat is not installed")
def test_compare_prints_what_ministat_prints_then_the_rank_test(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path]
) -> None:
    a, b, _ = files
    code, out, _ = run(capsys, "compare", str(a), str(b))
    ministat = subprocess.run(
        ["ministat", str(a), str(b)], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith(ministat)
    assert out[len(ministat) :] == (
        "Mann-Whitney U = 20, z = 2.33, p = 0.0159 (exact, two-sided)\n"
        "Cliff's delta = +1.000 (large): P(+ > x) - P(+ < x)\n"
    )
    assert code == 1  # a difference is proven


def test_compare_exit_status_and_options(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path]
) -> None:
    a, b, same = files
    code, out, _ = run(capsys, "compare", "-A", str(a), str(same))
    assert code == 0
    assert "No difference proven at 95.0% confidence" in out
    assert "+----" not in out  # no plot
    code, out, _ = run(capsys, "compare", "-n", str(a), str(b))
    assert "Difference" not in out
    assert "Mann-Whitney" not in out
    assert code == 1  # the exit status still tells
    code, out, _ = run(capsys, "compare", "-c", "99.5", "--format", "json", str(a), str(b))
    data = json.loads(out)
    assert data["student_t"]["confidence"] == 99.5
    assert data["student_t"]["difference"] == 18.5
    assert data["mann_whitney"]["exact"] is True
    assert data["cliffs_delta"]["magnitude"] == "large"


@pytest.mark.skipif(shutil.which("ministat") is None, reason="ministat is not installed")
@pytest.mark.parametrize(
    "operands",
    [["a"], ["a", "b", "same"], ["-", "b"], [], ["a", "b", "same", "a", "b", "same", "b"]],
    ids=["one", "three", "stdin-and-b", "stdin-alone", "seven"],
)
def test_compare_quiet_prints_exactly_what_ministat_prints(
    files: tuple[Path, Path, Path], operands: list[str]
) -> None:
    """As people use ministat: one file (a summary), up to seven (each against the
    first), the standard input as - or as nothing; a real process, a real pipe."""
    a, b, same = files
    paths = {"a": str(a), "b": str(b), "same": str(same), "-": "-"}
    argv = [paths[o] for o in operands]
    stdin = a.read_text(encoding="utf-8")

    def output(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(command), input=stdin, capture_output=True, text=True, check=False
        )

    ministat = output("ministat", *argv)
    ours = output(sys.executable, "-m", "perfwalk", "compare", "-q", *argv)
    assert (ours.returncode, ours.stdout) == (0, ministat.stdout), ours.stderr
    assert ministat.returncode == 0


def test_compare_more_samples_rank_each_against_the_first(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path]
) -> None:
    a, b, same = files
    code, out, _ = run(capsys, "compare", str(a), str(same), str(b))
    assert code == 1  # b differs from a
    assert out.count("against x: Mann-Whitney U") == 2
    assert "* against x: Cliff's delta = +1.000 (large): P(* > x) - P(* < x)" in out
    code, out, _ = run(capsys, "compare", "--format", "json", str(a), str(same), str(b))
    data = json.loads(out)
    assert [s["name"] for s in data["samples"]] == [str(a), str(same), str(b)]
    assert [(c["sample"], c["student_t"]["difference_proven"]) for c in data["comparisons"]] == [
        (2, False),
        (3, True),
    ]
    assert "a" not in data  # the two-sample keys are for two samples only
    code, out, _ = run(capsys, "compare", "-q", str(a), str(b))
    assert code == 0  # as ministat: the verdict is in the text
    assert "Difference at 95.0% confidence" in out
    assert "Mann-Whitney" not in out


def test_compare_refuses_eight_samples_and_two_standard_inputs(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path]
) -> None:
    a, _, _ = files
    code, _, err = run(capsys, "compare", *[str(a)] * 8)
    assert code == 2
    assert "8 samples to compare: ministat compares 1 to 7" in err
    code, _, err = run(capsys, "compare", "-", "-")
    assert code == 2
    assert "the standard input (-) given more than once" in err


def test_compare_errors_name_the_file_and_what_to_do(
    capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    a, _, _ = files
    code, _, err = run(capsys, "compare", str(a), str(tmp_path / "missing.txt"))
    assert code == 2
    assert "missing.txt: no such file" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("1\n2\nthree\n", encoding="utf-8")
    code, _, err = run(capsys, "compare", str(a), str(bad))
    assert code == 2
    assert "bad.txt line 3: 'three' is not a number" in err
    assert "hint:" in err
    code, _, err = run(capsys, "compare", "-c", "97", str(a), str(a))
    assert code == 2
    assert "80, 90, 95, 98, 99, 99.5" in err


def test_compare_two_checkouts_of_the_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with Store.open(load_config(path).store.url) as store:
        sid = add_series(store, {TIME: step(10, 13, 8), RATE: step(1000, 770, 8)})
    code, out, _ = run(
        capsys, "compare", "--config", str(path), "--metric", "time", f"{sid}:7", ":8"
    )
    assert code == 1
    assert f"x series {sid} checkout 7 (" in out
    assert "Difference at 95.0% confidence" in out


def test_detect_text_json_and_exit_status(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    series = tmp_path / "s.txt"
    series.write_text("".join(f"{100 if i < 40 else 120}\n" for i in range(80)), encoding="utf-8")
    code, out, _ = run(capsys, "detect", str(series))
    assert code == 1
    assert out.splitlines()[0] == f"{series}: 80 points, noise 0 per point, 1 change"
    assert out.splitlines()[2].split()[:4] == ["40", "100.0", "120.0", "+20.0"]
    code, out, _ = run(capsys, "detect", "--format", "json", str(series))
    (change,) = json.loads(out)["changes"]
    assert change["index"] == 40
    assert change["relative"] == pytest.approx(0.2)
    flat = tmp_path / "flat.csv"
    flat.write_text("when,ms\n" + "".join(f"d{i},{5 + i % 2}\n" for i in range(50)), "utf-8")
    code, out, _ = run(capsys, "detect", "--column", "ms", str(flat))
    assert code == 0
    assert out.startswith(f"{flat}: 50 points")
    code, _, err = run(capsys, "detect", "--column", "speed", str(flat))
    assert code == 2
    assert "no column 'speed'" in err


def test_changes_exit_status_for_ci(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with Store.open(load_config(path).store.url) as store:
        faster = add_series(store, {TIME: step(10, 8, 8)})
        slower = add_series(store, {TIME: step(10, 13, 8)}, seed="slower")
        explained = add_series(store, {TIME: step(10, 13, 8)}, seed="known", quirk_until=8)
    code, out, _ = run(capsys, "changes", "-c", str(path), "--series", str(faster), "--all")
    assert code == 0
    assert out.startswith(f"IMPROVEMENT {faster}:")
    code, out, _ = run(capsys, "changes", "-c", str(path), "--series", str(slower))
    assert code == 1
    assert "REGRESSION" in out
    assert "bench.time [ms]" in out
    assert "change 8.0" in out  # the commits in the range
    code, out, _ = run(capsys, "changes", "-c", str(path), "--series", str(explained))
    assert code == 0  # a regression with a known cause does not fail CI
    assert "known cause: quirk A: compiler upgraded" in out
    code, out, _ = run(capsys, "changes", "-c", str(path), "--format", "json")
    events = json.loads(out)["changes"]
    assert [e["series"] for e in events] == [faster, slower, explained]
    assert events[1]["metrics"][0]["regression"] is True
    assert events[2]["known_causes"][0]["letter"] == "A"
    assert len(events[1]["commits"]) == 2


def test_changes_at_the_edge_and_min_change(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with Store.open(load_config(path).store.url) as store:
        sid = add_series(store, {TIME: step(10, 14, 15)})  # the last checkout is slower
    code, out, _ = run(capsys, "changes", "-c", str(path))
    assert code == exits.UNDECIDED  # not quiet, not confirmed: more checkouts decide it
    assert out.startswith(f"REGRESSION {sid}:15 (undecided) ")
    assert "bench.time: at the edge: confirm with more checkouts" in out
    assert "\n  undecided: detected in " in out
    assert out.count("undecided: at the edge, confirm with more checkouts") == 1
    code, out, _ = run(capsys, "changes", "-c", str(path), "--format", "json")
    assert json.loads(out)["changes"][0]["metrics"][0]["edge"] is True
    code, out, _ = run(capsys, "changes", "-c", str(path), "--min-change", "0.5")
    assert (code, out) == (0, "no changes found\n")
    with pytest.raises(SystemExit) as refused:  # the option's type refuses it (exit 2)
        main(["changes", "-c", str(path), "--min-change", "-1"])
    assert refused.value.code == 2
    assert "argument --min-change: expected >= 0 and at most 10, got -1" in capsys.readouterr().err


def test_changes_lists_excursions_and_drifts_which_never_fail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    dip: list[float | None] = [13.0 if 20 <= i < 24 else 10.0 for i in range(40)]
    slope: list[float | None] = [10 + 0.5 * i / 199 for i in range(200)]  # +5 %, slowly
    with Store.open(load_config(path).store.url) as store:
        away = add_series(store, {TIME: dip})
        drifting = add_series(store, {TIME: slope}, seed="drift")
    code, out, _ = run(capsys, "changes", "-c", str(path), "--all")
    # slower for four checkouts, then back; slower slowly: no regression. But the slow
    # move hides steps: there the walk could not see a change of 1 % (its min_change),
    # and says so, undecided (4), never "no changes found"
    assert code == 4
    undecided, episodes = out.split("\n\n")
    blind, likely = undecided.splitlines()
    assert blind.startswith(f"series {drifting} ")
    assert ": undecided: too noisy to see changes below 1." in blind
    assert blind.endswith(" % in bench.time")  # no machine's state recorded: no load
    assert likely.startswith("  most likely step: between checkout ")
    excursion, drift = episodes.splitlines()
    assert excursion.startswith(f"EXCURSION in series {away} ")
    assert "bench.time [ms] " in excursion
    assert "(+29." in excursion
    assert "worse" in excursion
    assert "over checkouts 20 (" in excursion
    assert ") to 23 (" in excursion
    assert excursion.endswith("an excursion, not a change")
    assert drift.startswith(f"DRIFT in series {drifting} ")
    assert "over checkouts 0 (" in drift
    assert ") to 199 (" in drift
    assert drift.endswith("a slow drift, no step")
    code, out, _ = run(capsys, "changes", "-c", str(path), "--format", "json")
    listed = json.loads(out)
    assert (code, listed["changes"]) == (4, [])
    floors = {f["series"]: f for f in listed["floors"]}
    assert floors[away]["undecided"] is None
    assert floors[away]["floor"] < 0.01 == floors[away]["min_change"]
    assert floors[drifting]["floor"] > 0.01
    assert floors[drifting]["undecided"].startswith("undecided: too noisy")
    found = [
        (e["kind"], e["series"], e["first"]["idx"], e["last"]["idx"], e["worse"])
        for e in listed["episodes"]
    ]
    assert found == [("excursion", away, 20, 23, True), ("drift", drifting, 0, 199, True)]
    assert listed["episodes"][1]["relative"] == pytest.approx(0.05, abs=0.01)


def test_detect_edges_excursions_drifts_and_min_change(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    values = [100 + (i % 3) for i in range(40)]
    values[20:24] = [80, 81, 80, 79]  # four points away, then back
    series = tmp_path / "s.txt"
    series.write_text("".join(f"{v}\n" for v in [*values, 150, 151]), encoding="utf-8")
    code, out, _ = run(capsys, "detect", str(series))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].endswith("1 change (1 at the edge), 1 excursion")
    assert lines[2].split()[0] == "40"
    assert lines[2].split()[3].startswith("+49.")
    assert lines[3] == "change at 40: at the edge: confirm with more checkouts"
    assert lines[4].startswith("excursion at 20..23: -20.")
    code, out, _ = run(capsys, "detect", "--format", "json", str(series))
    detected = json.loads(out)
    assert [(c["index"], c["edge"]) for c in detected["changes"]] == [(40, True)]
    assert [(e["kind"], e["start"], e["end"]) for e in detected["episodes"]] == [
        ("excursion", 20, 24)
    ]
    small = tmp_path / "small.txt"
    small.write_text("".join(f"{100 if i < 40 else 100.5}\n" for i in range(80)), "utf-8")
    code, out, _ = run(capsys, "detect", str(small))
    assert (code, out.splitlines()[0].endswith("0 changes")) == (0, True)  # 0.5 % < 1 %
    code, out, _ = run(capsys, "detect", "--min-change", "0", str(small))
    assert code == 1


def test_a_drills_series_is_never_undecided_in_text_or_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a drill measures a few commits, many times: its answer is the drill's, and no
    # output says it was too short to see a change (the JSON's floors said so of it)
    path = tmp_path / "perfwalk.toml"
    path.write_text(CONFIG, encoding="utf-8")
    with Store.open(load_config(path).store.url) as store:
        walk = add_series(store, {TIME: step(10, 13, 8)})
        drill = add_series(store, {TIME: [10.0, 13.0, 13.0]}, seed="drill", kind="drill")
    code, out, _ = run(capsys, "changes", "-c", str(path))
    assert code == exits.FOUND, out
    assert f"series {drill} " not in out
    code, out, _ = run(capsys, "changes", "-c", str(path), "--format", "json")
    assert code == exits.FOUND
    floors = json.loads(out)["floors"]
    assert [f["series"] for f in floors] == [walk], floors
    for command in ("show", "status"):  # nor the drill's own table ("too few checkouts")
        code, out, _ = run(capsys, command, "-c", str(path), str(drill))
        assert code == exits.OK
        assert "undecided" not in out, out
    # nor its page, nor the index (the drill series' floors were left out in the
    # terminal and the JSON, its page said "undecided: too few checkouts")
    site = tmp_path / "site"
    assert run(capsys, "report", "-c", str(path), "--out", str(site))[0] == exits.OK
    assert 'id="sight"' in (site / f"series-{walk}.html").read_text(encoding="utf-8")
    assert 'id="sight"' not in (site / f"series-{drill}.html").read_text(encoding="utf-8")
