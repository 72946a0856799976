"""The daily loop: one watch cycle over what landed, against asv's ``run NEW`` + ``publish``.

    .venv/bin/python bench/watch.py [--checkouts 2000] [--metrics 50] [--new 10] [--runs 5]
                                    [--work DIR] [--quick] [--no-peers]

Set-up (not timed; kept in --work and reused while its shape is the same): perfwalk's
bytecode compiled (as pip does when it installs it); a git
repository of CHECKOUTS + NEW commits (``git fast-import``) whose every commit holds
the METRICS values of its benchmark in ``values.txt`` (two real steps, at a third and
at two thirds of the history); a "test" that prints them (``sh bench.sh``: one awk
call, no real work); a perfwalk config with one ``[[walk]]`` by commit that a real
``perfwalk run --walk`` walked over the first CHECKOUTS commits (the branch then
ends there); one ``watch --once`` cycle on that (it publishes the site and records
the history's changes as seen, as a daily loop has). Then the branch moves on by NEW
commits, and
each run, on a fresh copy of that store and site, times:

1. the perfwalk cycle, ``perfwalk watch --once`` (see ``CYCLE``): continue the walk
   over the NEW commits (build and measure them), detect changes on every metric,
   drill what is new, publish the site incrementally, notify; its whole wall time,
   and the same minus the time the store recorded for the new checkouts' builds and
   repetitions (what the cycle spent outside the builds and test runs themselves);
   then, in separate untimed runs, where that time goes (``PHASES``);
2. the peer: ``asv run NEW`` + ``asv publish`` on the same repository, with asv's
   results of the first CHECKOUTS commits in its results folder (one ``track_``
   benchmark per metric returning the same values); its whole wall time, and the
   same minus what asv recorded for the builds and the benchmarks.

Goal (issue 14): the perfwalk cycle without its builds and tests ≤ 3 s at 2 000
checkouts × 50 metrics and 10 new commits; exit 1 when missed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import perfwalk
from perfwalk.store import Store

ASV_VERSION = "0.6.6"
GOAL = 3.0
#: bump when the set-up changes, so that a kept one is made again
SETUP_VERSION = 2
PROJECT = "bench"
WALK = "main"
T0 = int(datetime(2020, 1, 1, tzinfo=UTC).timestamp())
BENCH_DIR = Path(__file__).resolve().parent
PERFWALK = str(Path(sys.executable).with_name("perfwalk"))

# the watch cycle: the commands of one cycle, run in turn in the work folder and timed as
# one step: one `watch --once` continues the walk, detects on every metric, drills what
# is new, publishes the site incrementally to [watch] site and notifies (exit 1: it
# found a new regression nobody triaged, still a cycle that worked)
CYCLE = ("{perfwalk} watch --once -c {config}",)

CONFIG = """\
[project]
name = "{project}"
repo = "repo"
branch = "{walk}"

[store]
url = "sqlite:///store.db"

[build]
steps = []

[run]
step = "commit"
repetitions = {repetitions}

[[test]]
name = "bench"
command = "sh bench.sh"
parser = "value"
timeout = 60

[[walk]]
name = "{walk}"
step = "commit"
repetitions = {repetitions}
branch = "{walk}"

[watch]
site = "site"
"""

#: the test: every line of values.txt as a VALUE line, with a 0.1 % jitter per run
BENCH_SH = """\
#!/bin/sh
awk -v seed=$$ 'BEGIN { srand(seed) }
  { printf "VALUE %.6f ms m%02d\\n", $1 * (1 + 0.002 * (rand() - 0.5)), NR - 1 }' values.txt
"""


@dataclass(frozen=True)
class Shape:
    checkouts: int
    metrics: int
    new: int
    repetitions: int

    def label(self) -> str:
        return f"{self.checkouts}x{self.metrics}+{self.new}x{self.repetitions}-v{SETUP_VERSION}"


def values_of(position: int, shape: Shape) -> list[float]:
    """The values at a commit: a level per metric that steps at 1/3 (-10 %) and at 2/3
    (+15 %) of the history, and a 1 % seeded noise."""
    rng = random.Random(position)
    level = 1.0
    if position >= shape.checkouts // 3:
        level *= 0.9
    if position >= 2 * shape.checkouts // 3:
        level *= 1.15
    return [round((10 + k) * level * (1 + rng.gauss(0, 0.01)), 6) for k in range(shape.metrics)]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def make_repo(path: Path, shape: Shape) -> list[str]:
    """The repository on ``refs/heads/all``; the ids of its commits, oldest first."""
    subprocess.run(["git", "init", "-q", "-b", WALK, str(path)], check=True)
    script = BENCH_SH.encode()
    lines = []
    for position in range(shape.checkouts + shape.new):
        values = "".join(f"{v:.6f}\n" for v in values_of(position, shape)).encode()
        message = f"change {position}\n".encode()
        lines.append(b"commit refs/heads/all\n")
        lines.append(f"committer Bench <bench@example.org> {T0 + position * 3600} +0000\n".encode())
        lines.append(f"data {len(message)}\n".encode() + message)
        if position == 0:
            lines.append(f"M 644 inline bench.sh\ndata {len(script)}\n".encode() + script + b"\n")
        lines.append(f"M 644 inline values.txt\ndata {len(values)}\n".encode() + values + b"\n")
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(lines), check=True
    )
    return git(path, "rev-list", "--reverse", "all").split()


def move_branch(repo: Path, commit: str) -> None:
    git(repo, "update-ref", f"refs/heads/{WALK}", commit)


def run(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, codes: tuple[int, ...] = (0,)
) -> str:
    """Run a command; what it printed."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in codes:
        raise SystemExit(
            f"{shlex.join(argv)} (in {cwd}) exited {done.returncode}:\n{done.stdout[-2000:]}"
            f"{done.stderr[-4000:]}"
        )
    return done.stdout


def copy_state(source: Path, target: Path, names: tuple[str, ...]) -> None:
    """Replace the files and folders ``names`` of ``target`` by those of ``source``."""
    for name in names:
        found, there = source / name, target / name
        if there.is_dir():
            shutil.rmtree(there)
        elif there.exists():
            there.unlink()
        if found.is_dir():
            shutil.copytree(found, there)
        elif found.exists():
            shutil.copy2(found, there)


# -- perfwalk -----------------------------------------------------------------------------

#: what a run starts from: the store (SQLite and its write-ahead files) and the site
STATE = ("store.db", "store.db-wal", "store.db-shm", "site")


def perfwalk_setup(work: Path, shape: Shape, commits: list[str]) -> None:
    """The walk over the first checkouts, and the site published once (kept in base/)."""
    base = work / "base"
    if base.exists():
        return
    (work / "perfwalk.toml").write_text(
        CONFIG.format(project=PROJECT, walk=WALK, repetitions=shape.repetitions)
    )
    move_branch(work / "repo", commits[shape.checkouts - 1])
    print(
        f"set-up: perfwalk walks {shape.checkouts:,} checkouts × {shape.repetitions} "
        f"repetitions (once; kept in {work})",
        flush=True,
    )
    started = time.perf_counter()
    run([PERFWALK, "run", "--walk", WALK, "-c", "perfwalk.toml"], work, codes=(0, 1))
    walked = time.perf_counter() - started
    # one cycle on what is there: the history's changes seen (and drilled) as a daily
    # loop would have, the site published to [watch] site
    run([PERFWALK, "watch", "--once", "-c", "perfwalk.toml"], work, codes=(0, 1))
    print(
        f"  walked in {walked:.0f} s ({1000 * walked / shape.checkouts:.0f} ms a checkout), "
        "one watch cycle run, site published",
        flush=True,
    )
    staging = work / "base.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    copy_state(work, staging, STATE)
    staging.rename(base)


@dataclass(frozen=True)
class Cycle:
    whole: float  # seconds, the cycle's wall time
    recorded: float  # seconds the store recorded for the new builds and repetitions
    steps: tuple[float, ...]  # seconds of each command of CYCLE
    checkouts: int  # new checkouts stored
    said: str = ""  # what the cycle said of the changes it found
    timed: float | None = None  # seconds the cycle took, as it said ("cycle took")


def perfwalk_cycle(work: Path, shape: Shape) -> Cycle:
    copy_state(work / "base", work, STATE)
    words = {"perfwalk": PERFWALK, "walk": WALK, "config": "perfwalk.toml", "site": "site"}
    commands = [shlex.split(line.format(**words)) for line in CYCLE]
    steps, said, timed = [], [], None
    started = time.perf_counter()
    for argv in commands:
        begun = time.perf_counter()
        out = run(argv, work, codes=(0, 1))  # 1: it worked and found a new regression
        steps.append(time.perf_counter() - begun)
        for line in out.splitlines():
            if line.startswith(("new ", "no new changes")):
                said.append(line)
            elif line.startswith("cycle took "):
                timed = float(line.split()[2])
    whole = time.perf_counter() - started
    recorded, checkouts = 0.0, 0
    with Store.open(f"sqlite:///{work / 'store.db'}") as store:
        series = store.find_walk(PROJECT, WALK)
        assert series is not None
        for checkout in store.checkouts(series.id):
            if checkout.idx < shape.checkouts:
                continue
            checkouts += 1
            recorded += checkout.build_seconds or 0.0
            for repetition in store.repetitions(checkout.id):
                recorded += (repetition.finished_at - repetition.started_at).total_seconds()
    return Cycle(whole, recorded, tuple(steps), checkouts, "; ".join(said), timed)


#: where a cycle's time goes: the same command in one process, in a separate run that
#: is not timed, with the watch's parts wrapped in timers (its own figures, not the
#: timed runs'); it prints them as JSON on its last line
PHASES = """\
import json, sys, time
began = time.perf_counter()
from perfwalk.cli.main import main
import perfwalk.composites.watch as watch
spent = {"start-up (imports)": time.perf_counter() - began}
def timed(name, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
    return wrapper
for name, part in (("walk", "run_series"), ("detection", "find_all"),
                   ("drills", "_drill_new"), ("publish", "publish_store")):
    setattr(watch, part, timed(name, getattr(watch, part)))
code = main(["watch", "--once", "-c", sys.argv[1]])
spent["whole"] = time.perf_counter() - began
print(json.dumps({"code": code, **spent}))
"""
#: the phases as printed: (label, key)
PHASE_ROWS = (
    ("start-up: imports", "start-up (imports)"),
    ("walk: plan, builds, tests, store", "walk"),
    ("detection on every metric (find_all)", "detection"),
    ("drills of new changes", "drills"),
    ("publish (incremental)", "publish"),
)


def perfwalk_phases(work: Path) -> dict[str, float]:
    """One cycle's phases, on a fresh copy of the base (see ``PHASES``)."""
    copy_state(work / "base", work, STATE)
    out = run([sys.executable, "-c", PHASES, "perfwalk.toml"], work)
    found: dict[str, float] = json.loads(out.splitlines()[-1])
    if found.pop("code") not in (0, 1):
        raise SystemExit(f"the phases' run of the cycle failed:\n{out[-2000:]}")
    found["other: config, lease, seen, notify, exit"] = found["whole"] - sum(
        found.get(key, 0.0) for _label, key in PHASE_ROWS
    )
    return found


def compile_perfwalk() -> None:
    """perfwalk's bytecode, as pip writes it when it installs perfwalk: an editable
    install run with PYTHONDONTWRITEBYTECODE=1 would compile its modules from source
    at each start (some 0.1 to 0.2 s of every command)."""
    package = Path(perfwalk.__file__).resolve().parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


# -- asv ----------------------------------------------------------------------------------

ASV_STATE = ("results", "html")
#: asv's fastest way to start a benchmark: forked from a process that imported the suite
#: (its default, "spawn", starts a new interpreter for each benchmark of each commit)
ASV_RUN = ("--machine", "bench", "--launch-method", "forkserver")


def asv_python(cache: Path) -> Path:
    venv = cache / "asv-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"set-up: installing asv {ASV_VERSION} into {venv}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", f"asv=={ASV_VERSION}", "virtualenv"],
            check=True,
        )
    return python


def asv_env(work: Path) -> dict[str, str]:
    """asv keeps its machine file in $HOME: a home of the benchmark's own."""
    home = work / "asv-home"
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home)}


def asv_benchmarks(metrics: int) -> str:
    lines = [
        '"""One track benchmark per metric: the value the installed commit holds."""',
        "import os",
        "import sys",
        "",
        "",
        "def _value(k):",
        '    with open(os.path.join(sys.prefix, "values.txt")) as f:',
        "        return float(f.read().split()[k])",
    ]
    for k in range(metrics):
        lines += ["", "", f"def track_m{k:02d}():", f"    return _value({k})"]
        lines += ["", "", f'track_m{k:02d}.unit = "ms"']
    return "\n".join(lines) + "\n"


def asv_setup(work: Path, python: Path, shape: Shape, commits: list[str]) -> Path:
    """An asv project on the repository: its environment made, one commit benchmarked
    for real (the last of the history), the others' results written in that format,
    published once (kept in asv-base/)."""
    project = work / "asv"
    base = work / "asv-base"
    if base.exists():
        return project
    print("set-up: asv environment, results of the history, first publish", flush=True)
    shutil.rmtree(project, ignore_errors=True)
    (project / "benchmarks").mkdir(parents=True)
    (project / "benchmarks" / "__init__.py").write_text("")
    (project / "benchmarks" / "benchmarks.py").write_text(asv_benchmarks(shape.metrics))
    conf = {
        "version": 1,
        "project": PROJECT,
        "project_url": "https://example.org/",
        "repo": str(work / "repo"),
        "branches": [WALK],
        "environment_type": "virtualenv",
        "pythons": [f"{sys.version_info.major}.{sys.version_info.minor}"],
        "benchmark_dir": "benchmarks",
        "env_dir": "env",
        "results_dir": "results",
        "html_dir": "html",
        # nothing to build, as perfwalk's [build] steps = []: "installing" a commit
        # copies its values into the environment, where the benchmarks read them
        "build_command": [],
        "install_command": [
            "python -c \"import shutil; shutil.copy('values.txt', '{env_dir}/values.txt')\""
        ],
        "uninstall_command": [],
        "build_cache_size": 0,
    }
    (project / "asv.conf.json").write_text(json.dumps(conf, indent=2))
    env = asv_env(work)
    asv = [str(python), "-m", "asv"]
    run([*asv, "machine", "--yes", "--machine", "bench"], project, env)
    move_branch(work / "repo", commits[shape.checkouts - 1])
    last = commits[shape.checkouts - 1]
    run([*asv, "run", *ASV_RUN, f"{last}^!"], project, env)
    (made,) = (project / "results" / "bench").glob(f"{last[:8]}-*.json")
    template = json.loads(made.read_text())
    columns = template["result_columns"]
    at_result, at_started = columns.index("result"), columns.index("started_at")
    for position, commit in enumerate(commits[: shape.checkouts - 1]):
        document = json.loads(json.dumps(template))
        date = (T0 + position * 3600) * 1000
        document["commit_hash"] = commit
        document["date"] = date
        values = values_of(position, shape)
        for name, row in document["results"].items():
            row[at_result] = [values[int(name.rsplit("_m", 1)[1])]]
            row[at_started] = date
        out = made.with_name(f"{commit[:8]}-{document['env_name']}.json")
        out.write_text(json.dumps(document, separators=(",", ":")))
    run([*asv, "publish"], project, env)
    staging = work / "asv-base.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    copy_state(project, staging, ASV_STATE)
    staging.rename(base)
    return project


def asv_cycle(work: Path, python: Path, project: Path, new: list[str]) -> Cycle:
    copy_state(work / "asv-base", project, ASV_STATE)
    env = asv_env(work)
    asv = [str(python), "-m", "asv"]
    steps = []
    started = time.perf_counter()
    for argv in ([*asv, "run", *ASV_RUN, "NEW"], [*asv, "publish"]):
        begun = time.perf_counter()
        run(argv, project, env)
        steps.append(time.perf_counter() - begun)
    whole = time.perf_counter() - started
    recorded, checkouts = 0.0, 0
    for commit in new:
        for path in (project / "results" / "bench").glob(f"{commit[:8]}-*.json"):
            document = json.loads(path.read_text())
            checkouts += 1
            at = document["result_columns"].index("duration")
            recorded += sum(float(v) for v in document.get("durations", {}).values())
            recorded += sum(float(row[at] or 0) for row in document["results"].values())
    return Cycle(whole, recorded, tuple(steps), checkouts)


# -- the run ------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def show(label: str, figures: list[float]) -> str:
    runs = " ".join(f"{f:.2f}" for f in figures)
    return f"{label:48s} {median(figures):9.2f}   {runs}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--checkouts", type=int, default=2000, help="the history walked")
    parser.add_argument("--metrics", type=int, default=50)
    parser.add_argument("--new", type=int, default=10, help="commits landed since")
    parser.add_argument("--repetitions", type=int, default=2, help="of the walk")
    parser.add_argument("--runs", type=int, help="timed cycles of each tool (default 5; 3 quick)")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".cache" / "watch")
    parser.add_argument(
        "--quick", action="store_true", help="200 checkouts × 10 metrics, 3 runs (for tests)"
    )
    parser.add_argument("--no-peers", action="store_true", help="skip asv")
    args = parser.parse_args(argv)
    if args.quick:
        args.checkouts, args.metrics = 200, 10
    if args.runs is None:
        args.runs = 3 if args.quick else 5
    shape = Shape(args.checkouts, args.metrics, args.new, args.repetitions)
    compile_perfwalk()
    work: Path = args.work / shape.label()
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "repo" / ".git").exists():
        shutil.rmtree(work / "repo", ignore_errors=True)
        make_repo(work / "repo", shape)
    commits = git(work / "repo", "rev-list", "--reverse", "all").split()
    perfwalk_setup(work, shape, commits)
    python = project = None
    if not args.no_peers:
        python = asv_python(args.work)
        project = asv_setup(work, python, shape, commits)
    move_branch(work / "repo", commits[-1])  # what landed

    ours: list[Cycle] = []
    theirs: list[Cycle] = []
    for _ in range(args.runs):  # interleaved, so that drift hits both alike
        ours.append(perfwalk_cycle(work, shape))
        if python is not None and project is not None:
            theirs.append(asv_cycle(work, python, project, commits[shape.checkouts :]))
    phases = [perfwalk_phases(work) for _ in range(min(args.runs, 3))]

    print()
    print(
        f"history: {shape.checkouts:,} checkouts × {shape.metrics} metrics stored "
        f"({shape.repetitions} repetition{'s' if shape.repetitions > 1 else ''} each), "
        f"{shape.new} new commits; "
        f"{args.runs} runs of each cycle, interleaved"
    )
    print(
        "perfwalk cycle: "
        + " ; ".join(CYCLE).format(
            perfwalk="perfwalk", walk=WALK, config="perfwalk.toml", site="site"
        )
    )
    if theirs:
        print(
            f"asv cycle: asv run {' '.join(ASV_RUN)} NEW ; asv publish "
            "(virtualenv environment made beforehand; a build copies values.txt into it)"
        )
    print()
    print(f"{'what':48s} {'median s':>9s}   runs (s)")
    whole = [c.whole for c in ours]
    excluded = [c.whole - c.recorded for c in ours]
    print(show("perfwalk cycle, whole", whole))
    print(show("  builds + repetitions the store recorded", [c.recorded for c in ours]))
    print(show("perfwalk cycle, excluding builds and tests", excluded))
    for i, line in enumerate(CYCLE):
        name = line.split(" -c ")[0].replace("{perfwalk} ", "").format(walk=WALK)
        print(show(f"  perfwalk {name}", [c.steps[i] for c in ours]))
    if all(c.timed is not None for c in ours):
        print(show("    its cycle, as it timed itself", [c.timed or 0.0 for c in ours]))
        print(show("    start-up and exit", [c.whole - (c.timed or 0.0) for c in ours]))
    print(
        f"  where it goes ({len(phases)} separate untimed run{'s' if len(phases) > 1 else ''}"
        ", in one process):"
    )
    for label, key in (*PHASE_ROWS, ("other: config, lease, seen, notify, exit", "")):
        print(show(f"    {label}", [p.get(key or label, 0.0) for p in phases]))
    checkouts = {c.checkouts for c in ours}
    said = {c.said for c in ours}
    print(f"  (what the cycle found, last run: {ours[-1].said or 'nothing said'})")
    if said != {"no new changes"}:
        print(f"warning: the new commits were to hold no change; the cycles said: {sorted(said)}")
    if theirs:
        asv_whole = [c.whole for c in theirs]
        asv_excluded = [c.whole - c.recorded for c in theirs]
        print(show("asv run NEW + publish, whole", asv_whole))
        print(show("  builds + benchmarks asv recorded", [c.recorded for c in theirs]))
        print(show("asv run NEW + publish, excluding them", asv_excluded))
        print(show("  asv run NEW", [c.steps[0] for c in theirs]))
        print(show("  asv publish", [c.steps[1] for c in theirs]))
        checkouts |= {c.checkouts for c in theirs}
        print()
        print(
            f"asv / perfwalk: whole x{median(asv_whole) / median(whole):.1f}, "
            f"excluding builds and tests x{median(asv_excluded) / median(excluded):.1f}"
        )
    if checkouts != {shape.new}:
        print(f"warning: new checkouts measured per run: {sorted(checkouts)}, not {shape.new}")
    figure = median(excluded)
    verdict = "PASS" if figure <= GOAL else "FAIL"
    print()
    print(
        f"goal: perfwalk cycle excluding builds and tests <= {GOAL:.0f} s -> {verdict} "
        f"({figure:.2f} s)"
    )
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
