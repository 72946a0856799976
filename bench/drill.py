"""Drilling a change down to its commit: perfwalk's drill against `git bisect run` and asv's `find`.

Run: ``.venv/bin/python bench/drill.py [--trials 200] [--jobs 2] [--seed S]``

Simulated histories of 1 000 commits with one step down of 1, 2 or 3 σ of the
per-run noise, for three noise shapes seen on real runs: Gaussian; Gaussian with
spikes (2 % of the runs ×1.3); bimodal (30 % of the runs 8 % of the level higher,
1.5 % noise within each mode, the whole scaled so that its standard deviation is
σ). A weekly-like walk measured every 40th commit 5 times; the change is first seen
between the two checkouts around the culprit, and each method starts from there:

- **perfwalk drill**: :func:`perfwalk.drill.schedule.next_action` in a loop, with
  the walk's 5 + 5 values stored; every repetition it asks for is drawn from the
  history.
- **git bisect run**: a real ``git bisect`` over a real throwaway repository of
  1 000 commits, whose ``bisect run`` script measures once per commit and calls a
  commit bad below a fixed threshold halfway between the walk's means at the two
  checkouts, as people do.
- **asv find**: asv's own ``asv.commands.find.Find.run`` (asv installed from PyPI
  into a throwaway venv), with its repository, environment and benchmark runner
  replaced by the simulation: one measurement per commit, as ``asv find`` takes.

All three see the same histories (culprit, walk values) in the same run. An answer
is *exact* (the culprit), *wrong* (a single other commit, or a range without the
culprit: a confident wrong answer), a *range* holding the culprit, or *undecided*
(perfwalk: budget spent, no convincing change, not a single step; asv: "too many
commits failed"). Builds are the commits each method built (perfwalk counts the
ends when it adds repetitions there); repetitions are the runs beyond the walk's.

Goals (perfwalk): ≥ 95 % exact at 2σ with ≤ 15 builds on average, ≥ 99 % exact at
3σ, ≤ 1 % confident wrong answers at every size. Exits 1 when one is missed.
A benchmark, not a test: nothing here is timed by pytest.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Queue
from typing import Any, ClassVar

try:
    from perfwalk.drill import DrillState, Measure, Verdict, next_action
except ModuleNotFoundError:  # run from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from perfwalk.drill import DrillState, Measure, Verdict, next_action

LEVEL = 1000.0
SIGMA = 15.0  # per-run noise: 1.5 % of the level
COMMITS = 1000
WALK_STEP = 40
WALK_REPETITIONS = 5
SHAPES = ("gaussian", "spikes", "bimodal")
SIZES = (1, 2, 3)
SPIKE_SHARE, SPIKE_FACTOR = 0.02, 1.3
BIMODAL_SHARE, BIMODAL_GAP, BIMODAL_WIDTH = 0.3, 0.08, 0.015  # of the level
BIMODAL_SD = math.hypot(BIMODAL_WIDTH, BIMODAL_GAP * math.sqrt(BIMODAL_SHARE * (1 - BIMODAL_SHARE)))
ASV_VERSION = "0.6.6"
METHODS = ("perfwalk drill", "git bisect run", "asv find")
GRADES = ("exact", "wrong", "range", "undecided")
DEFAULT_SEED = "bench-drill-1"  # tests use their own seeds


@dataclass(frozen=True)
class History:
    """One simulated history: the metric falls by ``step`` σ at ``culprit``."""

    shape: str
    step: int
    culprit: int
    before: int  # the walk's checkout before the change
    after: int  # the walk's checkout after it
    unbuildable: frozenset[int]
    stored_before: tuple[float, ...]  # the walk's repetitions at `before`
    stored_after: tuple[float, ...]
    key: str  # seed/shape/step/trial

    def level(self, position: int) -> float:
        return LEVEL - self.step * SIGMA if position >= self.culprit else LEVEL

    def run(self, position: int, rng: random.Random) -> float:
        """One measurement at ``position``."""
        return measure(self.shape, self.level(position), rng)

    def rng(self, method: str) -> random.Random:
        """The random stream of one method's runs on this history."""
        return random.Random(f"{self.key}/{method}")


def measure(shape: str, level: float, rng: random.Random) -> float:
    if shape == "bimodal":
        high = BIMODAL_GAP if rng.random() < BIMODAL_SHARE else 0.0
        relative = rng.gauss(0, BIMODAL_WIDTH) + high - BIMODAL_SHARE * BIMODAL_GAP
        return level + SIGMA * relative / BIMODAL_SD
    value = level + SIGMA * rng.gauss(0, 1)
    if shape == "spikes" and rng.random() < SPIKE_SHARE:
        value *= SPIKE_FACTOR
    return value


def checkouts() -> list[int]:
    """The walk: every WALK_STEP-th commit, both ends included."""
    return sorted({*range(0, COMMITS, WALK_STEP), COMMITS - 1})


Job = tuple[str, str, int, int, float]  # seed, shape, step, trial, unbuildable share


def make_history(job: Job) -> History:
    seed, shape, step, trial, unbuildable = job
    key = f"{seed}/{shape}/{step}/{trial}"
    rng = random.Random(key)
    culprit = rng.randint(1, COMMITS - 1)
    walk = checkouts()
    before = max(p for p in walk if p < culprit)
    after = min(p for p in walk if p >= culprit)
    broken = frozenset(p for p in range(before + 1, after) if rng.random() < unbuildable)
    history = History(shape, step, culprit, before, after, broken, (), (), key)
    return dataclasses.replace(
        history,
        stored_before=tuple(history.run(before, rng) for _ in range(WALK_REPETITIONS)),
        stored_after=tuple(history.run(after, rng) for _ in range(WALK_REPETITIONS)),
    )


@dataclass(frozen=True)
class Outcome:
    """An answer: the change is in (lo, hi]; ``kind`` culprit, range or undecided."""

    kind: str
    lo: int
    hi: int
    builds: int
    repetitions: int

    def grade(self, culprit: int) -> str:
        if self.kind == "culprit":
            return "exact" if self.hi == culprit else "wrong"
        if self.kind == "range":
            return "range" if self.lo < culprit <= self.hi else "wrong"
        return "undecided"


# --- perfwalk -------------------------------------------------------------------------


def perfwalk_trial(job: Job) -> Outcome:
    """The drill on one history, run as the executor will run it."""
    history = make_history(job)
    rng = history.rng("perfwalk")
    first = history.before
    line = tuple(str(p) for p in range(first, history.after + 1))
    stored = {0: history.stored_before, len(line) - 1: history.stored_after}
    measured: dict[int, tuple[float, ...]] = {}
    failed: set[int] = set()
    order: list[int] = []
    while True:
        action = next_action(
            DrillState(
                line=line,
                stored=stored,
                measured=measured,
                unbuildable=frozenset(failed),
                order=tuple(order),
            )
        )
        if not isinstance(action, Measure):
            break
        position = first + action.position
        if position in history.unbuildable:
            failed.add(action.position)
            continue
        new = tuple(history.run(position, rng) for _ in range(action.repetitions))
        measured[action.position] = measured.get(action.position, ()) + new
        order += [action.position] * len(new)
    kind = {Verdict.CULPRIT: "culprit", Verdict.RANGE: "range"}.get(action.verdict, "undecided")
    return Outcome(kind, first + action.lo, first + action.hi, action.builds, action.repetitions)


def run_perfwalk(jobs: Sequence[Job], workers: int) -> list[Outcome]:
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(perfwalk_trial, jobs, chunksize=8))


# --- git bisect run -------------------------------------------------------------------

BISECT_SCRIPT = """#!/bin/sh
# one measurement of this checkout: bad (exit 1) below the threshold, skip (125) if broken
p=$(cat position)
echo "$p" >> "$BENCH_LOG"
v=$(awk -v p="$p" '$1 == p { print $2 }' "$BENCH_VALUES")
[ "$v" = broken ] && exit 125
awk -v v="$v" -v t="$BENCH_THRESHOLD" 'BEGIN { exit (v < t) ? 1 : 0 }'
"""

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
}


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=GIT_ENV
    )


def make_repository(path: Path) -> list[str]:
    """A real repository of COMMITS commits; commit p writes ``position`` = p."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    stream = []
    for p in range(COMMITS):
        message = f"commit {p}\n"
        content = f"{p}\n"
        stream.append(
            f"commit refs/heads/main\nmark :{p + 1}\n"
            f"committer Bench <bench@example.org> {1_700_000_000 + 3600 * p} +0000\n"
            f"data {len(message)}\n{message}"
            + (f"from :{p}\n" if p else "")
            + f"M 100644 inline position\ndata {len(content)}\n{content}\n"
        )
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"],
        input="".join(stream),
        check=True,
        text=True,
        env=GIT_ENV,
    )
    git(path, "reset", "-q", "--hard", "main")
    return git(path, "rev-list", "--reverse", "main").stdout.split()


class GitBisect:
    """``git bisect run`` with a fixed threshold, in one clone per worker."""

    def __init__(self, workdir: Path, workers: int) -> None:
        origin = workdir / "origin"
        self.hashes = make_repository(origin)
        self.position = {h: p for p, h in enumerate(self.hashes)}
        self.script = workdir / "measure.sh"
        self.script.write_text(BISECT_SCRIPT)
        self.script.chmod(0o755)
        self.clones: Queue[Path] = Queue()
        for k in range(workers):
            clone = workdir / f"clone{k}"
            subprocess.run(
                ["git", "clone", "-q", "--local", str(origin), str(clone)],
                check=True,
                env=GIT_ENV,
            )
            self.clones.put(clone)

    def trial(self, history: History) -> Outcome:
        """One bisection: one run per commit it tries, bad below the walk's midpoint."""
        rng = history.rng("git")
        threshold = (
            statistics.fmean(history.stored_before) + statistics.fmean(history.stored_after)
        ) / 2
        lines = []
        for p in range(history.before + 1, history.after):
            value = "broken" if p in history.unbuildable else repr(history.run(p, rng))
            lines.append(f"{p} {value}\n")
        clone = self.clones.get()
        try:
            values, log = clone.with_suffix(".values"), clone.with_suffix(".log")
            values.write_text("".join(lines))
            log.write_text("")
            git(clone, "bisect", "start", self.hashes[history.after], self.hashes[history.before])
            env = {
                **GIT_ENV,
                "BENCH_LOG": str(log),
                "BENCH_VALUES": str(values),
                "BENCH_THRESHOLD": repr(threshold),
            }
            done = subprocess.run(
                ["git", "-C", str(clone), "bisect", "run", str(self.script)],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            git(clone, "bisect", "reset")
            builds = len(log.read_text().split())
        finally:
            self.clones.put(clone)
        return self.read_answer(done.stdout, history, builds)

    def read_answer(self, output: str, history: History, builds: int) -> Outcome:
        found = re.search(r"^([0-9a-f]{40}) is the first bad commit", output, re.MULTILINE)
        if found:
            hi = self.position[found.group(1)]
            return Outcome("culprit", hi - 1, hi, builds, builds)
        if "could be any of" in output:  # only skipped commits left
            positions = [
                self.position[h] for h in re.findall(r"^([0-9a-f]{40})$", output, re.MULTILINE)
            ]
            return Outcome("range", min(positions) - 1, max(positions), builds, builds)
        return Outcome("undecided", history.before, history.after, builds, builds)


# --- asv find --------------------------------------------------------------------------


def asv_python(venv: Path) -> Path:
    """The python of a venv holding asv, made (from PyPI) when missing."""
    python = venv / "bin" / "python"
    probe = [str(python), "-c", "import asv, sys; sys.stdout.write(asv.__version__)"]
    if python.exists():
        found = subprocess.run(probe, capture_output=True, text=True, check=False)
        if found.stdout == ASV_VERSION:
            return python
    print(f"installing asv {ASV_VERSION} from PyPI into {venv} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", f"asv=={ASV_VERSION}"], check=True
    )
    return python


def run_asv(python: Path, histories: Sequence[History], hashes: Sequence[str]) -> list[Outcome]:
    """asv's own find, in its venv, on every history: one run per commit it asks for."""
    trials = []
    for history in histories:
        rng = history.rng("asv")
        positions = range(history.before, history.after + 1)
        trials.append(
            {
                "hashes": [hashes[p] for p in positions],
                "values": [
                    None if p in history.unbuildable else history.run(p, rng) for p in positions
                ],
            }
        )
    done = subprocess.run(
        [str(python), __file__, "--asv-driver"],
        input=json.dumps(trials),
        capture_output=True,
        text=True,
        check=True,
    )
    outcomes = []
    for history, answer in zip(histories, json.loads(done.stdout), strict=True):
        builds = answer["measured"]
        if answer["found"] is None:
            outcomes.append(Outcome("undecided", history.before, history.after, builds, builds))
        else:
            hi = history.before + answer["found"]
            outcomes.append(Outcome("culprit", hi - 1, hi, builds, builds))
    return outcomes


class AsvTrial:
    """The trial asv's Find.run works on, inside asv's venv (see :func:`asv_driver`)."""

    hashes: ClassVar[list[str]] = []
    values: ClassVar[dict[str, float | None]] = {}
    measured: ClassVar[set[str]] = set()


class AsvLog:
    """asv's console log: keeps the messages (the last names the commit found)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def info(self, message: str, *_args: Any, **_kwargs: Any) -> None:
        self.messages.append(message)

    warning = error = debug = info

    @contextlib.contextmanager
    def indent(self) -> Iterator[None]:
        yield


class AsvMachine:
    @classmethod
    def load(cls, **_kwargs: Any) -> AsvMachine:
        return cls()

    def save(self, _results_dir: str) -> None:
        pass


class AsvEnvironment:
    python, name = "3", "simulated"
    requirements: ClassVar[dict[str, str]] = {}
    env_vars: ClassVar[dict[str, str]] = {}

    def install_project(self, _conf: Any, _repo: Any, _commit: str) -> None:
        pass  # the build: nothing to do for a simulated commit


class AsvSetup:
    @staticmethod
    def run(**_kwargs: Any) -> list[AsvEnvironment]:
        return [AsvEnvironment()]


class AsvBenchmarks(dict[str, dict[str, Any]]):
    @classmethod
    def discover(cls, *_args: Any, **_kwargs: Any) -> AsvBenchmarks:
        return cls({"track_metric": {"type": "track", "params": [], "timeout": 60}})


class AsvRepo:
    def pull(self) -> None:
        pass

    def get_hashes_from_range(self, _spec: str) -> list[str]:
        return AsvTrial.hashes[::-1]  # newest first, as git log gives them

    def get_decorated_hash(self, commit: str, _length: int = 8) -> str:
        return commit

    def get_date(self, _commit: str) -> int:
        return 0


class AsvResults:
    def __init__(self, _params: Any, _requirements: Any, commit: str, *_rest: Any) -> None:
        self.commit = commit


class AsvRun:
    """One benchmark run at a commit: its one value, None when the commit does not build."""

    def __init__(self, commit: str) -> None:
        self.value = AsvTrial.values[commit]
        self.errcode = {"track_metric": 0 if self.value is not None else 1}

    def get_result_value(self, _name: str, _params: Any) -> list[float | None]:
        return [self.value]


def asv_run_benchmarks(_benchmarks: Any, _env: Any, results: AsvResults, **_kwargs: Any) -> AsvRun:
    AsvTrial.measured.add(results.commit)
    return AsvRun(results.commit)


def asv_driver() -> int:
    """Inside asv's venv: run asv's own Find.run on each trial (JSON in, JSON out)."""
    from asv import util  # type: ignore[import-not-found]
    from asv.commands import find  # type: ignore[import-not-found]

    find.Machine, find.Setup, find.Benchmarks = AsvMachine, AsvSetup, AsvBenchmarks
    find.Results, find.run_benchmarks = AsvResults, asv_run_benchmarks
    find.get_repo = lambda _conf: AsvRepo()
    conf = argparse.Namespace(results_dir=os.devnull, project="simulated")
    answers = []
    for trial in json.load(sys.stdin):
        AsvTrial.hashes = trial["hashes"]
        AsvTrial.values = dict(zip(trial["hashes"], trial["values"], strict=True))
        AsvTrial.measured = set()
        find.log = log = AsvLog()
        found = None
        with contextlib.suppress(util.UserError):  # "Too many commits failed"
            find.Find.run(
                conf,
                f"{AsvTrial.hashes[0]}^..{AsvTrial.hashes[-1]}",
                "track_metric",
                invert=True,  # search for a decrease
                skip_save=True,
            )
            found = AsvTrial.hashes.index(log.messages[-1].rsplit(" ", 1)[-1])
        answers.append({"found": found, "measured": len(AsvTrial.measured)})
    json.dump(answers, sys.stdout)
    return 0


# --- report ---------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


@dataclass
class Row:
    shape: str
    step: int
    method: str
    grades: dict[str, int]
    builds: list[int]
    repetitions: list[int]

    def share(self, grade: str) -> float:
        return self.grades.get(grade, 0) / max(sum(self.grades.values()), 1)


def print_table(rows: Sequence[Row]) -> None:
    print(
        f"{'noise':<9} {'step':>4}  {'method':<15} {'exact':>6} {'wrong':>6} {'range':>6}"
        f" {'undec.':>6}   {'builds':>6} {'p95':>4}   {'reps':>6} {'p95':>4}"
    )
    previous = None
    for row in rows:
        if previous is not None and (row.shape, row.step) != previous:
            print()
        previous = (row.shape, row.step)
        print(
            f"{row.shape:<9} {row.step:>3}σ  {row.method:<15}"
            + "".join(f" {row.share(g):>6.1%}" for g in GRADES)
            + f"   {statistics.fmean(row.builds):>6.1f} {percentile(row.builds, 0.95):>4}"
            f"   {statistics.fmean(row.repetitions):>6.1f} {percentile(row.repetitions, 0.95):>4}"
        )


def check_goals(rows: Sequence[Row], *, exact: bool) -> bool:
    """PASS/FAIL per goal; the exact-rate goals only where every culprit builds."""
    ours = [r for r in rows if r.method == METHODS[0]]
    goals: list[tuple[str, Callable[[Row], bool], Callable[[Row], str], int | None]] = [
        (
            "≥ 95 % exact at 2σ",
            lambda r: r.share("exact") >= 0.95,
            lambda r: f"{r.share('exact'):.1%}",
            2,
        ),
        (
            "≤ 15 builds on average at 2σ",
            lambda r: statistics.fmean(r.builds) <= 15,
            lambda r: f"{statistics.fmean(r.builds):.1f}",
            2,
        ),
        (
            "≥ 99 % exact at 3σ",
            lambda r: r.share("exact") >= 0.99,
            lambda r: f"{r.share('exact'):.1%}",
            3,
        ),
        (
            "≤ 1 % confident wrong, every size",
            lambda r: r.share("wrong") <= 0.01,
            lambda r: f"{r.share('wrong'):.1%}",
            None,
        ),
    ]
    passed = True
    print()
    for name, holds, figure, step in goals:
        if not exact and "exact" in name:
            print(f"goal {name}: not judged (unbuildable culprits cannot be named exactly)")
            continue
        relevant = [r for r in ours if step is None or r.step == step]
        if not relevant:
            continue
        ok = all(holds(r) for r in relevant)
        passed &= ok
        figures = ", ".join(f"{r.shape} {r.step}σ {figure(r)}" for r in relevant)
        print(f"goal {name}: {'PASS' if ok else 'FAIL'} ({figures})")
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trials", type=int, default=200, help="trials per noise shape and step (200)"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    parser.add_argument("--seed", default=DEFAULT_SEED, help="seed of the simulated histories")
    parser.add_argument("--shapes", default=",".join(SHAPES), help="noise shapes (all)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="steps in σ (1,2,3)")
    parser.add_argument(
        "--unbuildable", type=float, default=0.0, help="share of commits that do not build (0)"
    )
    parser.add_argument(
        "--asv-venv",
        type=Path,
        default=Path(tempfile.gettempdir()) / "perfwalk-bench-asv",
        help="venv for asv (made when missing)",
    )
    parser.add_argument("--no-peers", action="store_true", help="measure perfwalk only")
    parser.add_argument("--asv-driver", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.asv_driver:
        return asv_driver()

    cells = [
        (shape, int(size)) for shape in args.shapes.split(",") for size in args.sizes.split(",")
    ]
    jobs = [
        (args.seed, shape, size, trial, args.unbuildable)
        for shape, size in cells
        for trial in range(args.trials)
    ]
    histories = [make_history(job) for job in jobs]
    print(
        f"drill: {len(cells)} cells × {args.trials} trials; {COMMITS}-commit histories,"
        f" one step down; walk every {WALK_STEP}th commit × {WALK_REPETITIONS} repetitions;"
        f" noise σ = {SIGMA / LEVEL:.1%} of the level; unbuildable {args.unbuildable:.0%};"
        f" seed {args.seed!r}\n",
        flush=True,
    )
    outcomes, timing = measure_all(jobs, histories, args)
    rows = [
        tabulate(shape, size, method, histories, results)
        for shape, size in cells
        for method, results in outcomes.items()
    ]
    print_table(rows)
    print(f"\ntime: {', '.join(timing)}")
    return 0 if check_goals(rows, exact=args.unbuildable == 0) else 1


def measure_all(
    jobs: Sequence[Job], histories: Sequence[History], args: argparse.Namespace
) -> tuple[dict[str, list[Outcome]], list[str]]:
    """Every method on every history: the outcomes by method, and what each took."""
    outcomes: dict[str, list[Outcome]] = {}
    timing = []
    started = time.perf_counter()
    outcomes[METHODS[0]] = run_perfwalk(jobs, args.jobs)
    timing.append(f"perfwalk drill {time.perf_counter() - started:.0f} s")
    if args.no_peers:
        return outcomes, timing
    with tempfile.TemporaryDirectory(prefix="perfwalk-bench-drill-") as tmp:
        started = time.perf_counter()
        bisect = GitBisect(Path(tmp), args.jobs)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            outcomes[METHODS[1]] = list(pool.map(bisect.trial, histories))
        timing.append(f"git bisect run {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        python = asv_python(args.asv_venv)
        outcomes[METHODS[2]] = run_asv(python, histories, bisect.hashes)
        timing.append(f"asv find {time.perf_counter() - started:.0f} s")
    return outcomes, timing


def tabulate(
    shape: str, step: int, method: str, histories: Sequence[History], results: Sequence[Outcome]
) -> Row:
    """One row of the table: one method on the histories of one noise shape and step."""
    mine = [
        (history, outcome)
        for history, outcome in zip(histories, results, strict=True)
        if (history.shape, history.step) == (shape, step)
    ]
    grades: dict[str, int] = {}
    for history, outcome in mine:
        grade = outcome.grade(history.culprit)
        grades[grade] = grades.get(grade, 0) + 1
    return Row(
        shape,
        step,
        method,
        grades,
        [outcome.builds for _, outcome in mine],
        [outcome.repetitions for _, outcome in mine],
    )


if __name__ == "__main__":
    sys.exit(main())
