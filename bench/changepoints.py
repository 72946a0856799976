"""Change detection on a seeded synthetic suite: perfwalk against its peers.

Run: ``.venv/bin/python bench/changepoints.py [--peers-dir DIR] [--no-peers] [--timeout S]
[--real-only]``

Six scenarios of 30 series × 500 points each (2 % Gaussian noise around the level):

* ``noise``: nothing else;
* ``spikes``: 2 % of the points ×1.3;
* ``bimodal``: 30 % of the points +8 %;
* ``5 steps``, ``5 steps+spikes``, ``20 steps``: that many level changes of ±3 to
  15 % (uniform size, random sign), levels at least 12 points long; ``+spikes`` adds
  the spikes above.

Then ten scenarios shaped like real benchmark histories (issue 13), 30 series × 500
points each, 2 % noise unless said otherwise:

* ``random walk``: the level's logarithm walks by steps of 0.05 to 0.15 % (a few %
  over hundreds of points);
* ``slope``: a straight slope of ±2 to 8 % over 200 to 500 points, flat around it;
* ``AR(1)``: autocorrelated noise, φ from 0.3 to 0.7, 2 % marginal spread;
* ``variance``: stretches of 30 to 150 points of 0.5, 1, 2 or 4 % noise;
* ``loaded``: one stretch of 20 to 100 points with 3 to 8 times the noise;
* ``dips 3-5``, ``dips 6-10``: 4 excursions per series of that many points, ±5 to 15 %,
  that come back to the level;
* ``AR(1)+steps``: 3 steps of ±5 to 15 % on levels of at least 60 points, in the
  AR(1) noise above;
* ``loaded+steps``: 3 steps of ±3 to 15 %, the first 12 to 40 points from a loaded
  stretch;
* ``walk+steps``: 3 steps of ±3 to 15 % on the random walk above.

A detection within ±3 points of a true change is a hit (each change is hit at most
once); every other detection is a false alarm (for perfwalk: its steps and its
steps at the edge; its excursions and drifts are not steps and are counted apart).
For each tool the benchmark prints the recall on the step scenarios and the false
alarms per 10 000 points on every scenario, for two seed sets: the benchmark's own
(``bench:…``) and a held-out set (``heldout:…``), neither looked at while tuning
(the detector's knobs were chosen on ``calib:…``; the tests use ``test:…``). Then
the steps any tool reported within ±3 points of a dip of at most 5 points, and what
else perfwalk reported (drifts, excursions and how many of them lie on a true dip).
Then the time to analyse one 100 000-point series (200 steps, spikes): wall-clock
and CPU seconds of the call alone (no start-up, no reading), the median of 7 runs
for perfwalk, one run for each peer. The goal is judged on CPU time, which other
processes on a shared machine do not inflate.

The peers, measured in the same run on the same series, each in its own virtual
environment (their pins conflict: apache-otava pins numpy 2.2), installed from PyPI
by this script under ``--peers-dir`` (default: ``perfwalk-bench-peers`` in the
system's temporary directory) and reused while their pins do not change:

* ``asv``: ``asv.step_detect.detect_steps`` (its default, automatic penalty);
* ``otava``: ``otava.analysis.compute_change_points`` at p = 0.001 (window 50);
* ``ruptures Binseg`` and ``ruptures PELT``: model ``l2``, minimum size 2, penalty
  ``2 σ² ln n`` (BIC) with σ the median absolute deviation of neighbour differences
  over √2.

Then the real corpus (``bench/corpus``, its README: walks of real projects' histories
made with perfwalk, their changes checked by an A/B of the two commits; SAP HANA's
performance series as its engineers judged them; and the Turing Change Point
Dataset's freely licensed series with their annotators' marks), every tool in the
same run: per source, for the performance series together (the walks and SAP HANA:
the goals judge this row) and for all, the changes per 1 000 points that neither a
person nor a re-measure confirms, the recall of the changes a person flags (within
±5 points, TCPD's margin) and the share of hits within ±2 of the person's point;
``--real-only`` measures this section alone. TCPD is shown beside them, not judged:
its series are not measurements of a program, and its annotators mark bends of
trends and random walks, which the synthetic suite requires to carry no change.

Goals: recall ≥ 95 % on every step scenario, ≤ 1 false alarm per 10 000 points on
every scenario without steps but ``dips 6-10`` (an excursion is a short interruption
of a longer level: a dip of 6 to 10 points next to a level less than twice as long is
two changes), no step at a dip of at most 5 points, ≤ 0.1 s for 100 000 points; on the
real performance series ≤ 2 unconfirmed changes per 1 000 points, recall ≥ 90 %, every
hit within ±2. Exits 1 when perfwalk misses one.
A benchmark, not a test: nothing here is timed by pytest.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERIES = 30
POINTS = 500
MIN_LEVEL = 12
TOLERANCE = 3
SHORT_DIP = 5  # a dip of at most this many points is never a step
NOISE = 0.02
STEP_SIZES = (0.03, 0.15)
SCENARIOS: dict[str, tuple[int, bool, bool]] = {  # steps, spikes, bimodal
    "noise": (0, False, False),
    "spikes": (0, True, False),
    "bimodal": (0, False, True),
    "5 steps": (5, False, False),
    "5 steps+spikes": (5, True, False),
    "20 steps": (20, False, False),
}
SEED_SETS = ("bench", "heldout")
BIG_POINTS = 100_000
BIG_STEPS = 200

#: Scenarios without steps whose false alarms are shown but are no goal: a dip of 6 to
#: 10 points is an excursion between levels at least twice as long, else two changes
#: (a change that lasts as long as the levels around it matters).
NO_GOAL = frozenset({"dips 6-10"})

GOAL_RECALL = 0.95
GOAL_ALARMS = 1.0  # per 10 000 points
GOAL_SECONDS = 0.1

#: name → (pip requirements, worker function name)
PEERS: dict[str, tuple[tuple[str, ...], str]] = {
    "asv": (("asv==0.6.6",), "asv"),
    "otava": (("apache-otava==0.8.0",), "otava"),
    "ruptures Binseg": (("ruptures==1.1.10",), "binseg"),
    "ruptures PELT": (("ruptures==1.1.10",), "pelt"),
}

Series = list[float]
#: A series, its true steps and its excursions (first point, end).
Case = tuple[Series, list[int], list[tuple[int, int]]]
Detector = Callable[[Series], list[int]]


# -- the suite --------------------------------------------------------------------------


def change_positions(
    rng: random.Random, points: int, steps: int, min_level: int = MIN_LEVEL
) -> list[int]:
    """``steps`` change points, every level at least ``min_level`` points long: the spare
    points are split at random among the levels."""
    spare = points - (steps + 1) * min_level
    cuts = sorted(rng.randint(0, spare) for _ in range(steps))
    return [cut + (i + 1) * min_level for i, cut in enumerate(cuts)]


def make_series(
    seed: str, points: int, steps: int, spikes: bool, bimodal: bool
) -> tuple[Series, list[int]]:
    rng = random.Random(seed)
    changes = change_positions(rng, points, steps) if steps else []
    levels: list[float] = []
    level = 100.0
    for a, b in zip([0, *changes], [*changes, points], strict=True):
        levels += [level] * (b - a)
        level *= 1 + rng.choice((-1, 1)) * rng.uniform(*STEP_SIZES)
    values = []
    for base in levels:
        v = base * (1 + NOISE * rng.gauss(0, 1))
        if bimodal and rng.random() < 0.30:
            v *= 1.08
        if spikes and rng.random() < 0.02:
            v *= 1.3
        values.append(v)
    return values, changes


# -- series shaped like real benchmark histories ------------------------------------------
#
# Each maker takes its seeded generator and returns (values, true steps, excursions as
# (first, end) point ranges). Noise is 2 % of the level per point unless said otherwise.

WALK_STEP = (0.0005, 0.0015)  # random walk: standard deviation of one step, of the level
SLOPE = (0.02, 0.08)  # a slope: its total change …
SLOPE_POINTS = (200, POINTS)  # … over this many points
PHI = (0.3, 0.7)  # AR(1): the correlation of neighbouring points
QUIET_NOISY = (0.005, 0.01, 0.02, 0.04)  # noise of each stretch of "variance"
STRETCH = (30, 150)
LOADED = (20, 100)  # a loaded stretch: its length …
LOAD = (3.0, 8.0)  # … and how many times the noise it has
DIPS = 4  # excursions per series, away from each other and from the ends
DIP_SIZES = (0.05, 0.15)
REAL_STEPS = 3  # steps of the combined scenarios
AR_MIN_LEVEL = 60  # levels of "AR(1)+steps" are at least this long
AR_STEP_SIZES = (0.05, 0.15)


def _walk(rng: random.Random, points: int) -> list[float]:
    """A random walk of the level's logarithm, starting at 0."""
    q, w, out = rng.uniform(*WALK_STEP), 0.0, []
    for _ in range(points):
        out.append(w)
        w += q * rng.gauss(0, 1)
    return out


def _ar1(rng: random.Random, points: int, sd: float = NOISE) -> list[float]:
    """AR(1) noise of marginal standard deviation ``sd``, φ drawn from PHI."""
    phi = rng.uniform(*PHI)
    u, out = sd * rng.gauss(0, 1), []
    for _ in range(points):
        out.append(u)
        u = phi * u + math.sqrt(1 - phi * phi) * sd * rng.gauss(0, 1)
    return out


def _levels(rng: random.Random, changes: list[int], sizes: tuple[float, float]) -> list[float]:
    levels: list[float] = []
    level = 100.0
    for a, b in itertools.pairwise([0, *changes, POINTS]):
        levels += [level] * (b - a)
        level *= 1 + rng.choice((-1, 1)) * rng.uniform(*sizes)
    return levels


def _loaded_stretch(rng: random.Random) -> tuple[int, int, float]:
    length = rng.randint(*LOADED)
    start = rng.randint(MIN_LEVEL, POINTS - MIN_LEVEL - length)
    return start, start + length, rng.uniform(*LOAD)


def _noisy(rng: random.Random, levels: list[float], sds: Sequence[float]) -> Series:
    return [v * (1 + sd * rng.gauss(0, 1)) for v, sd in zip(levels, sds, strict=True)]


def random_walk(rng: random.Random) -> Case:
    walk = _walk(rng, POINTS)
    return _noisy(rng, [100 * math.exp(w) for w in walk], [NOISE] * POINTS), [], []


def slope(rng: random.Random) -> Case:
    total = rng.choice((-1, 1)) * rng.uniform(*SLOPE)
    length = rng.randint(*SLOPE_POINTS)
    start = rng.randint(0, POINTS - length)
    levels = [100 * (1 + total * min(1.0, max(0.0, (t - start) / length))) for t in range(POINTS)]
    return _noisy(rng, levels, [NOISE] * POINTS), [], []


def ar1(rng: random.Random) -> Case:
    return [100 * (1 + u) for u in _ar1(rng, POINTS)], [], []


def variance(rng: random.Random) -> Case:
    sds: list[float] = []
    while len(sds) < POINTS:
        sds += [rng.choice(QUIET_NOISY)] * rng.randint(*STRETCH)
    return _noisy(rng, [100.0] * POINTS, sds[:POINTS]), [], []


def loaded(rng: random.Random) -> Case:
    start, end, load = _loaded_stretch(rng)
    sds = [NOISE * (load if start <= t < end else 1) for t in range(POINTS)]
    return _noisy(rng, [100.0] * POINTS, sds), [], []


def excursions(lengths: tuple[int, int]) -> Callable[[random.Random], Case]:
    """DIPS short levels (down or up) that come back, each ``lengths`` points long."""

    def make(rng: random.Random) -> Case:
        gap = (POINTS - 2 * MIN_LEVEL) // DIPS
        levels, dips = [100.0] * POINTS, []
        for k in range(DIPS):
            length = rng.randint(*lengths)
            start = MIN_LEVEL + k * gap + rng.randint(0, gap - length - MIN_LEVEL)
            size = 1 + rng.choice((-1, 1)) * rng.uniform(*DIP_SIZES)
            levels[start : start + length] = [100.0 * size] * length
            dips.append((start, start + length))
        return _noisy(rng, levels, [NOISE] * POINTS), [], dips

    return make


def ar1_steps(rng: random.Random) -> Case:
    changes = change_positions(rng, POINTS, REAL_STEPS, AR_MIN_LEVEL)
    levels = _levels(rng, changes, AR_STEP_SIZES)
    return [v * (1 + u) for v, u in zip(levels, _ar1(rng, POINTS), strict=True)], changes, []


def loaded_steps(rng: random.Random) -> Case:
    """Steps beside a loaded stretch, the first of them 12 to 40 points after its end
    (before its start when it ends too late); none within 12 points of it."""
    start, end, load = _loaded_stretch(rng)
    while True:
        changes = change_positions(rng, POINTS, REAL_STEPS)
        near = end + rng.randint(MIN_LEVEL, 40)
        if near > POINTS - MIN_LEVEL:
            near = start - rng.randint(MIN_LEVEL, 40)
        changes = sorted({near, *changes[1:]})
        apart = all(b - a >= MIN_LEVEL for a, b in itertools.pairwise([0, *changes, POINTS]))
        clear = all(c <= start - MIN_LEVEL or c >= end + MIN_LEVEL for c in changes)
        if len(changes) == REAL_STEPS and apart and clear:
            break
    sds = [NOISE * (load if start <= t < end else 1) for t in range(POINTS)]
    return _noisy(rng, _levels(rng, changes, STEP_SIZES), sds), changes, []


def walk_steps(rng: random.Random) -> Case:
    changes = change_positions(rng, POINTS, REAL_STEPS)
    levels = _levels(rng, changes, STEP_SIZES)
    walk = _walk(rng, POINTS)
    return (
        _noisy(rng, [v * math.exp(w) for v, w in zip(levels, walk, strict=True)], [NOISE] * POINTS),
        changes,
        [],
    )


#: name → (true steps per series, maker); run after the six scenarios above.
REAL_SCENARIOS: dict[str, tuple[int, Callable[[random.Random], Case]]] = {
    "random walk": (0, random_walk),
    "slope": (0, slope),
    "AR(1)": (0, ar1),
    "variance": (0, variance),
    "loaded": (0, loaded),
    "dips 3-5": (0, excursions((3, 5))),
    "dips 6-10": (0, excursions((6, 10))),
    "AR(1)+steps": (REAL_STEPS, ar1_steps),
    "loaded+steps": (REAL_STEPS, loaded_steps),
    "walk+steps": (REAL_STEPS, walk_steps),
}


def suite(seed_set: str) -> dict[str, list[Case]]:
    cases: dict[str, list[Case]] = {
        name: [
            (*make_series(f"{seed_set}:{name}:{i}", POINTS, steps, spikes, bimodal), [])
            for i in range(SERIES)
        ]
        for name, (steps, spikes, bimodal) in SCENARIOS.items()
    }
    for name, (_, make) in REAL_SCENARIOS.items():
        cases[name] = [make(random.Random(f"{seed_set}:{name}:{i}")) for i in range(SERIES)]
    return cases


def big_series() -> Series:
    return make_series("bench:100k", BIG_POINTS, BIG_STEPS, True, False)[0]


def score(found: Sequence[int], truth: Sequence[int]) -> tuple[int, int]:
    """(hits, false alarms): each true change is hit by the nearest detection within
    TOLERANCE that no other change took."""
    left = sorted(truth)
    hits = 0
    for f in sorted(found):
        near = [t for t in left if abs(t - f) <= TOLERANCE]
        if near:
            left.remove(min(near, key=lambda t: abs(t - f)))
            hits += 1
    return hits, len(found) - hits


# -- the detectors ----------------------------------------------------------------------


def perfwalk_detection() -> Callable[[list[list[float]]], Any]:
    """perfwalk's detector, as ``perfwalk detect`` calls it: one set per point."""
    try:
        from perfwalk.analysis.changepoints import find_change_points
    except ModuleNotFoundError:  # run from a checkout without an installed package
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
        from perfwalk.analysis.changepoints import find_change_points
    return find_change_points


def reported_steps(detection: Any) -> list[int]:
    """Every step perfwalk reports, those at the ends of the series included."""
    return sorted(c.index for c in (*detection.changes, *detection.edges))


def perfwalk_sets_detector() -> Callable[[list[list[float]]], list[int]]:
    detect = perfwalk_detection()
    return lambda sets: reported_steps(detect(sets))


def perfwalk_detector() -> Detector:
    detect_sets = perfwalk_sets_detector()
    return lambda series: detect_sets([[v] for v in series])


def _robust_sigma(values: Series) -> float:
    diffs = [b - a for a, b in itertools.pairwise(values)]
    mid = statistics.median(diffs)
    return 1.4826 * statistics.median(abs(d - mid) for d in diffs) / 2**0.5


def worker(kind: str) -> None:
    """In a peer's environment: read {"series": [...]} on stdin, write the change
    points and the seconds each series took on stdout."""
    data = json.load(sys.stdin)
    detect: Detector
    if kind == "asv":
        from asv.step_detect import detect_steps

        def detect(y: Series) -> list[int]:
            return [int(step[0]) for step in detect_steps(y)[1:]]

    elif kind == "otava":
        from otava.analysis import compute_change_points

        def detect(y: Series) -> list[int]:
            return [
                int(c.index) for c in compute_change_points(y, window_len=50, max_pvalue=0.001)[0]
            ]

    else:
        import numpy as np
        import ruptures as rpt

        algorithm = rpt.Binseg if kind == "binseg" else rpt.Pelt

        def detect(y: Series) -> list[int]:
            sigma = _robust_sigma(y)
            penalty = 2 * sigma * sigma * math.log(len(y))
            fitted = algorithm(model="l2", min_size=2, jump=1).fit(np.array(y))
            return [int(b) for b in fitted.predict(pen=penalty)[:-1]]

    found, seconds = [], []
    for series in data["series"]:
        wall, cpu = time.perf_counter(), time.process_time()
        found.append(detect(series))
        seconds.append((time.perf_counter() - wall, time.process_time() - cpu))
    json.dump({"found": found, "seconds": seconds}, sys.stdout)


# -- the real corpus ----------------------------------------------------------------------
#
# bench/corpus/: walks of real projects' histories made with perfwalk (their changes
# checked by an A/B of the two commits or a drill) and the Turing Change Point
# Dataset's series with their annotators' marks (bench/corpus/README.md).

CORPUS = Path(__file__).resolve().parent / "corpus"
REAL_MARGIN = 5  # a hit: within this many points of a change a person flags (TCPD's margin)
CLOSE = 2  # … and its point within this many of the person's
GOAL_UNCONFIRMED = 2.0  # changes neither a person nor a re-measure confirms, per 1 000 points
GOAL_REAL_RECALL = 0.90
GOAL_CLOSE = 1.0  # the share of hits within ±CLOSE


@dataclass(frozen=True)
class RealSeries:
    """One real series: its sets of values per point (one value a point but for the
    walks, whose points are checkouts with their repetitions), the changes a person
    flags (the recall counts them) and the other points a person or a re-measure
    confirms (a detection there is not counted against a tool, nor for it)."""

    source: str
    name: str
    sets: list[list[float]]
    flagged: list[int]
    confirmed: list[int]
    policy: Any  # perfwalk's MetricPolicy of the series, as the walk analyses it
    summary: Callable[[Sequence[float]], float]
    judged: bool = True  # a performance series: the goals count it

    def points(self) -> tuple[list[int], Series]:
        """The positions of the non-empty sets and their summaries: what the peers get."""
        kept = [i for i, values in enumerate(self.sets) if values]
        return kept, [self.summary(self.sets[i]) for i in kept]


def _majority(marks: dict[str, list[int]]) -> list[int]:
    """The points a majority of the annotators marked: a mark is backed by the
    annotators with a mark within REAL_MARGIN of it; the best-backed marks are taken
    first, none within REAL_MARGIN of one taken, each at the median of its backers'
    nearest marks."""
    annotators = list(marks.values())
    backed = []
    for mark in sorted({m for ms in annotators for m in ms}):
        nearest = [min(ms, key=lambda m: abs(m - mark)) for ms in annotators if ms]
        near = [m for m in nearest if abs(m - mark) <= REAL_MARGIN]
        if len(near) * 2 > len(annotators):
            backed.append((-len(near), mark, round(statistics.median(near))))
    taken: list[int] = []
    for _, _, at in sorted(backed):
        if all(abs(at - t) > REAL_MARGIN for t in taken):
            taken.append(at)
    return sorted(taken)


def _apart(marks: Sequence[int], away_from: Sequence[int]) -> list[int]:
    """One mark per place: ``marks`` none within REAL_MARGIN of another or of ``away_from``."""
    out: list[int] = []
    for m in sorted(set(marks)):
        if all(abs(m - o) > REAL_MARGIN for o in (*out, *away_from)):
            out.append(m)
    return out


def walk_policy(analysis: dict[str, Any], direction: Any, instrument: str) -> Any:
    """The MetricPolicy a corpus walk's metric is analysed with: the walk's analysis
    settings (its manifest's ``analysis``); a count an instrument takes too
    (``instrument``) as perfwalk analyses the instrument's metric (its smallest change
    and shortest level its own)."""
    from perfwalk.config.instruments import exact_count
    from perfwalk.policy import EXACT_COUNT_MIN_CHANGE, EXACT_COUNT_MIN_SIZE, MetricPolicy

    exact = exact_count(instrument)
    return MetricPolicy(
        summary=analysis["summary"],
        direction=direction,
        threshold=analysis["threshold"],
        min_size=EXACT_COUNT_MIN_SIZE if exact else analysis["min_size"],
        min_change=EXACT_COUNT_MIN_CHANGE if exact else analysis["min_change"],
        configured=True,
    )


def real_corpus(directory: Path = CORPUS) -> list[RealSeries]:
    """Every metric of every walk (its manifest's truth and analysis settings), every
    series of SAP HANA's set (a regression its engineers found flagged at its first
    build; every other detection unconfirmed), then every TCPD series (its
    annotators' majority flagged, every other mark confirming; shown, not judged)."""
    from perfwalk.model import Direction
    from perfwalk.orchestrate.findings.metric_search import summary_of

    out = []
    for manifest_path in sorted(directory.glob("walks/*.manifest.json")):
        manifest = json.loads(manifest_path.read_text())
        data = json.loads(manifest_path.with_name(manifest["data"]).read_text())
        analysis = manifest["analysis"]
        for name, metric in data["metrics"].items():
            truth = manifest["series"].get(name, {})
            direction = Direction(metric["direction"])
            policy = walk_policy(analysis, direction, truth.get("instrument", ""))
            real = [c for c in truth.get("changes", []) if c["verdict"] == "real"]
            out.append(
                RealSeries(
                    f"walk {manifest['walk'].get('label', manifest['project'])}",
                    name,
                    metric["values"],
                    [c["index"] for c in real if c.get("flagged", True)],
                    [c["index"] for c in real if not c.get("flagged", True)],
                    policy,
                    summary_of(policy.detection_summary, direction),
                )
            )
    sap = json.loads((directory / "sap.json").read_text())
    for series in sap["series"]:
        first = series["first_build_with_it"]
        out.append(
            RealSeries(
                "SAP HANA",
                f"{series['name']} ({series['judgement']})",
                [build["values"] for build in series["builds"]],
                [] if first is None else [first],
                [],
                None,
                statistics.median,
            )
        )
    tcpd = json.loads((directory / "tcpd.json").read_text())
    for dataset in tcpd["datasets"]:
        marks = dataset["annotations"]
        flagged = _majority(marks)
        out.append(
            RealSeries(
                "TCPD",
                dataset["name"],
                [[v] if v is not None else [] for v in dataset["values"]],
                flagged,
                _apart([m for ms in marks.values() for m in ms], flagged),
                None,
                statistics.median,
                judged=False,
            )
        )
    return out


#: the row of the table the goals judge: the series of performance measurements
JUDGED = "performance total"
NOT_JUDGED = (
    "TCPD is shown, not judged: its series are prices, populations, emissions, not "
    "measurements of a program, and its annotators mark where a trend bends in a drifting "
    "series or a random walk, which the synthetic suite requires to carry no change"
)

#: (series, points, flagged, hits, hits within ±CLOSE, unconfirmed detections)
RealResult = tuple[int, int, int, int, int, int]


def _pair(found: Sequence[int], marks: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """Detections paired with marks within REAL_MARGIN, the nearest pairs first, each
    used once: (the offsets of the pairs, the marks left, the detections left)."""
    pairs = sorted(
        (abs(f - t), i, j)
        for i, f in enumerate(found)
        for j, t in enumerate(marks)
        if abs(f - t) <= REAL_MARGIN
    )
    took_f: set[int] = set()
    took_t: set[int] = set()
    offsets = []
    for _, i, j in pairs:
        if i not in took_f and j not in took_t:
            took_f.add(i)
            took_t.add(j)
            offsets.append(found[i] - marks[j])
    return (
        offsets,
        [t for j, t in enumerate(marks) if j not in took_t],
        [f for i, f in enumerate(found) if i not in took_f],
    )


def real_score(found: Sequence[int], series: RealSeries) -> tuple[list[int], list[int], list[int]]:
    """(the offsets of the hits, the flagged changes missed, the detections neither a
    person nor a re-measure confirms). The flagged changes take the detections
    nearest to them first; the other confirmed points take one each of those left."""
    offsets, missed, rest = _pair(sorted(found), sorted(series.flagged))
    _, _, unconfirmed = _pair(rest, sorted(series.confirmed))
    return offsets, missed, unconfirmed


def real_result(found: list[list[int]], corpus: list[RealSeries]) -> RealResult:
    count = points = flagged = hits = close = unconfirmed = 0
    for detected, series in zip(found, corpus, strict=True):
        offsets, _, extra = real_score(detected, series)
        count, points = count + 1, points + sum(1 for values in series.sets if values)
        flagged, hits = flagged + len(series.flagged), hits + len(offsets)
        close += sum(1 for o in offsets if abs(o) <= CLOSE)
        unconfirmed += len(extra)
    return count, points, flagged, hits, close, unconfirmed


def real_cell(result: RealResult | None) -> str:
    if result is None:
        return "(timeout)"
    _, points, flagged, hits, close, unconfirmed = result
    recall = f"{hits / flagged:5.0%}" if flagged else "    -"
    near = f"{close / hits:5.0%}" if hits else "    -"
    return f"{unconfirmed / points * 1000:5.1f} {recall} {near}"


def perfwalk_real(
    series: RealSeries, detect: Callable[..., Any], min_change: float | None = None
) -> Any:
    """perfwalk's detection on a real series: a walk's as the walk analyses its
    metric (its thresholds, its summary of a checkout's repetitions), TCPD's as
    ``perfwalk detect`` does; ``min_change``: with this one instead (``perfwalk detect
    --min-change``, ``[analysis] min_change``)."""
    from perfwalk.analysis.thresholds import Thresholds

    thresholds = Thresholds(min_change=min_change)
    if series.policy is None:
        return detect(series.sets, tuning=thresholds.tuning())
    return detect(series.sets, tuning=thresholds.tuning(series.policy), reduce=series.summary)


# -- the peers' environments --------------------------------------------------------------


def peers_dir(given: Path | None) -> Path:
    return given or Path(tempfile.gettempdir()) / "perfwalk-bench-peers"


def peer_python(root: Path, name: str, requirements: tuple[str, ...]) -> Path:
    """A virtual environment of its own with ``requirements`` from PyPI (made once)."""
    env = root / requirements[0].split("==")[0]
    python = env / "bin" / "python"
    stamp = env / "perfwalk-bench.txt"
    wanted = "\n".join(requirements) + "\n"
    if not (python.exists() and stamp.exists() and stamp.read_text() == wanted):
        print(f"installing {name} ({', '.join(requirements)}) in {env} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                *requirements,
            ],
            check=True,
        )
        stamp.write_text(wanted)
    return python


def run_peer(
    python: Path, kind: str, series: list[Series], timeout: float
) -> tuple[list[list[int]], list[float]] | None:
    """The peer's change points and seconds per series; None when it ran out of time."""
    try:
        done = subprocess.run(
            [str(python), __file__, "--worker", kind],
            input=json.dumps({"series": series}),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    out = json.loads(done.stdout)
    return out["found"], out["seconds"]


# -- the report -----------------------------------------------------------------------------


#: (hits, true steps, false alarms, points, steps at dips of at most 5 points)
Result = tuple[int, int, int, int, int]


def measure(found: list[list[int]], cases: list[Case]) -> Result:
    """The figures of one tool on one scenario."""
    hits = alarms = changes = points = at_dips = 0
    for detected, (series, truth, dips) in zip(found, cases, strict=True):
        h, a = score(detected, truth)
        hits, alarms = hits + h, alarms + a
        changes, points = changes + len(truth), points + len(series)
        at_dips += sum(
            1
            for f in detected
            for start, end in dips
            if end - start <= SHORT_DIP and start - TOLERANCE <= f <= end + TOLERANCE
        )
    return hits, changes, alarms, points, at_dips


def cell(result: Result | None) -> str:
    if result is None:
        return "(timeout)"
    hits, changes, alarms, points, _ = result
    recall = f"{hits / changes:6.1%}" if changes else "     -"
    return f"{recall} {alarms / points * 10_000:5.1f}"


def kinds(detections: list[Any], cases: list[Case]) -> tuple[int, int, int, int]:
    """(drifts, excursions, excursions over a true dip, true dips) perfwalk reported."""
    drifts = found = right = dips = 0
    for detection, (_, _, truth) in zip(detections, cases, strict=True):
        drifts += len(detection.drifts)
        found += len(detection.excursions)
        dips += len(truth)
        right += sum(
            1
            for e in detection.excursions
            if any(e.start < end and start < e.end for start, end in truth)
        )
    return drifts, found, right, dips


def _few(points: Sequence[int], most: int = 10) -> str:
    """Points as a short list: the first few and how many in all."""
    if not points:
        return "-"
    shown = ", ".join(map(str, sorted(points)[:most]))
    return shown if len(points) <= most else f"{shown} … ({len(points)} in all)"


def report_real(
    corpus: list[RealSeries], found: dict[str, list[list[int]] | None], detections: list[Any]
) -> dict[str, RealResult]:
    """Prints the real corpus's table, per source and in total, each series's figures
    and what perfwalk missed or reported unconfirmed; returns each tool's total (a
    tool that ran out of time has none)."""
    sources = list(dict.fromkeys(series.source for series in corpus))
    rows = {source: [i for i, s in enumerate(corpus) if s.source == source] for source in sources}
    rows[JUDGED] = [i for i, s in enumerate(corpus) if s.judged]
    rows["all series"] = list(range(len(corpus)))
    names = list(found)
    print(
        f"\nreal series (bench/corpus): a hit is within ±{REAL_MARGIN} points of a change a "
        "person flags; each cell: changes per 1 000 points that neither a person nor a "
        f"re-measure confirms, recall, share of the hits within ±{CLOSE}"
    )
    header = f"{'source':24}{'series':>7}{'points':>7}{'flagged':>8}  "
    print(header + "  ".join(f"{n:>17}" for n in names))
    totals: dict[str, RealResult] = {}
    for source, chosen in rows.items():
        cells, first = [], None
        for n in names:
            detected = found[n]
            result = (
                real_result([detected[i] for i in chosen], [corpus[i] for i in chosen])
                if detected is not None
                else None
            )
            first = first or result
            cells.append(f"{real_cell(result):>17}")
            if source == JUDGED and result is not None:
                totals[n] = result
        assert first is not None
        count, points, flagged = first[:3]
        print(f"{source:24}{count:7d}{points:7d}{flagged:8d}  " + "  ".join(cells))
    print(f"  ({NOT_JUDGED})")

    print(
        "\nper series, each tool: hits of the flagged changes / detections nobody confirms"
        f"\n{'series':52}{'points':>7}{'flagged':>8}  " + "".join(f"{n:>17}" for n in names)
    )
    for i, series in enumerate(corpus):
        row = []
        for n in names:
            detected = found[n]
            if detected is None:
                row.append(f"{'(timeout)':>17}")
                continue
            offsets, _, unconfirmed = real_score(detected[i], series)
            row.append(f"{len(offsets):>11} / {len(unconfirmed):<3}")
        points = sum(1 for values in series.sets if values)
        label = f"{series.source} {series.name}"
        print(f"{label:52}{points:7d}{len(series.flagged):8d}  " + "".join(row))

    print("\nwhere perfwalk missed or was not confirmed (point: a change's first point)")
    perfwalk_found = found["perfwalk"]
    assert perfwalk_found is not None
    for series, detected, detection in zip(corpus, perfwalk_found, detections, strict=True):
        offsets, missed, unconfirmed = real_score(detected, series)
        far = [o for o in offsets if abs(o) > CLOSE]
        if not (missed or unconfirmed or far):
            continue
        said = []
        if missed:
            said.append(f"missed {', '.join(map(str, missed))}")
        if far:
            said.append(f"hits off by {', '.join(f'{o:+d}' for o in far)}")
        if unconfirmed:
            said.append(f"unconfirmed {_few(unconfirmed)}")
        seen = [c.index for c in (*detection.changes, *detection.edges)]
        said.append(f"flagged {_few(series.flagged)}, reported {_few(seen)}")
        episodes = [
            f"{e.kind} {e.start}-{e.end - 1}" for e in (*detection.drifts, *detection.excursions)
        ]
        if episodes:
            said.append("also " + ", ".join(episodes))
        print(f"  {series.source} {series.name}: " + "; ".join(said))
    return totals


def real_section(tools: dict[str, Any], detect: Callable[..., Any], timeout: float) -> list[str]:
    """Measures every tool on the real corpus, prints its table; perfwalk's missed goals."""
    corpus = real_corpus()
    found: dict[str, list[list[int]] | None] = {}
    detections = [perfwalk_real(series, detect) for series in corpus]
    found["perfwalk"] = [reported_steps(d) for d in detections]
    found[EVERY_STEP] = [reported_steps(perfwalk_real(series, detect, 0.0)) for series in corpus]
    kept = [series.points() for series in corpus]
    for name, how in list(tools.items())[1:]:  # the peers
        ran = run_peer(how[0], how[1], [points for _, points in kept], timeout)
        found[name] = (
            [[at[i] for i in f] for (at, _), f in zip(kept, ran[0], strict=True)] if ran else None
        )
    _, points, flagged, hits, close, unconfirmed = report_real(corpus, found, detections)[
        "perfwalk"
    ]
    failures = []
    if unconfirmed / points * 1000 > GOAL_UNCONFIRMED:
        failures.append(
            f"{unconfirmed / points * 1000:.1f} unconfirmed changes per 1 000 real points"
        )
    if hits < GOAL_REAL_RECALL * flagged:
        failures.append(f"recall {hits / flagged:.0%} on the real performance series")
    if hits and close < GOAL_CLOSE * hits:
        failures.append(f"{hits - close} of {hits} real hits beyond ±{CLOSE}")
    return failures


#: perfwalk with min_change 0: every step its detector is sure of, however small (the
#: real corpus only; its goals are judged on perfwalk as configured)
EVERY_STEP = "perfwalk mc=0"

REAL_GOALS = (
    f"on the real performance series <= {GOAL_UNCONFIRMED:g} unconfirmed changes per "
    "1 000 points, "
    f"recall >= {GOAL_REAL_RECALL:.0%}, every hit within ±{CLOSE}"
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers-dir", type=Path, help="where the peers' environments go")
    parser.add_argument("--no-peers", action="store_true", help="measure perfwalk only")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds a peer may take per run (default 120)"
    )
    parser.add_argument(
        "--real-only", action="store_true", help="measure the real corpus only (bench/corpus)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker)
        return 0

    detect = perfwalk_detection()
    tools: dict[str, Any] = {"perfwalk": None}
    if not args.no_peers:
        root = peers_dir(args.peers_dir)
        root.mkdir(parents=True, exist_ok=True)
        for name, (requirements, kind) in PEERS.items():
            tools[name] = (peer_python(root, name, requirements), kind)
    if args.real_only:
        failures = real_section(tools, detect, args.timeout)
        print(
            f"\ngoals: {REAL_GOALS} -> "
            + ("PASS" if not failures else "FAIL: " + "; ".join(failures))
        )
        return 1 if failures else 0

    steps_of = {name: steps for name, (steps, _, _) in SCENARIOS.items()}
    steps_of.update({name: steps for name, (steps, _) in REAL_SCENARIOS.items()})
    results: dict[tuple[str, str, str], Result | None] = {}
    other_kinds: dict[tuple[str, str], tuple[int, int, int, int]] = {}
    for seed_set in SEED_SETS:
        cases = suite(seed_set)
        for tool, how in tools.items():
            for scenario, scenario_cases in cases.items():
                series = [s for s, _, _ in scenario_cases]
                if tool == "perfwalk":
                    detections = [detect([[v] for v in s]) for s in series]
                    other_kinds[(seed_set, scenario)] = kinds(detections, scenario_cases)
                    found: list[list[int]] | None = [reported_steps(d) for d in detections]
                else:
                    ran = run_peer(how[0], how[1], series, args.timeout)
                    found = ran[0] if ran else None
                results[(seed_set, tool, scenario)] = (
                    measure(found, scenario_cases) if found is not None else None
                )

    print(
        f"\n{SERIES} series x {POINTS} points per scenario; a hit is within ±{TOLERANCE} points;"
        " each cell: recall, false alarms per 10 000 points"
    )
    names = list(tools)
    for seed_set in SEED_SETS:
        print(f"\nseeds {seed_set}:*")
        print(f"{'scenario':16}{'changes':>8}  " + "  ".join(f"{n:>16}" for n in names))
        for scenario, steps in steps_of.items():
            row = [f"{cell(results[(seed_set, n, scenario)]):>16}" for n in names]
            print(f"{scenario:16}{steps * SERIES:8d}  " + "  ".join(row))

    dip_scenarios = [name for name in steps_of if name.startswith("dips")]
    print(
        f"\nshort excursions (dips of 3 to 10 points, {DIPS} per series): steps reported within "
        f"±{TOLERANCE} points of a dip of at most {SHORT_DIP} points, per tool"
    )
    for seed_set in SEED_SETS:
        row = []
        for n in names:
            counted = [results[(seed_set, n, scenario)] for scenario in dip_scenarios]
            row.append(
                f"{n} {sum(r[4] for r in counted if r is not None)}"
                if all(r is not None for r in counted)
                else f"{n} (timeout)"
            )
        print(f"  seeds {seed_set}:*  " + ", ".join(row))
    print("\nwhat else perfwalk reported: drifts, and excursions (over a true dip / true dips)")
    for seed_set in SEED_SETS:
        print(f"  seeds {seed_set}:*")
        for scenario in steps_of:
            drifts, found, right, dips = other_kinds[(seed_set, scenario)]
            if drifts or found or dips:
                over = f" ({right}/{dips})" if dips else ""
                print(f"    {scenario:16} {drifts:3d} drifts  {found:3d} excursions{over}")

    print(
        f"\ntime to analyse one {BIG_POINTS}-point series ({BIG_STEPS} steps, spikes), "
        "wall and CPU seconds (median of 7 runs for perfwalk, 1 run for the peers):"
    )
    big = big_series()
    sets = [[v] for v in big]
    detect_sets = perfwalk_sets_detector()
    detect_sets(sets)  # warm-up
    walls, cpus = [], []
    for _ in range(7):
        wall, cpu = time.perf_counter(), time.process_time()
        detect_sets(sets)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    timings: dict[str, tuple[float, float] | None] = {
        "perfwalk": (statistics.median(walls), statistics.median(cpus))
    }
    for name in names[1:]:
        python, kind = tools[name]
        ran = run_peer(python, kind, [big], args.timeout)
        timings[name] = (ran[1][0][0], ran[1][0][1]) if ran else None
    base = timings["perfwalk"]
    assert base is not None
    for name, measured in timings.items():
        if measured is None:
            print(f"  {name:16} > {args.timeout:.0f} s (stopped)")
            continue
        ratio = f"  x{measured[1] / base[1]:.0f} perfwalk's CPU" if name != "perfwalk" else ""
        print(f"  {name:16} {measured[0]:9.3f} s wall {measured[1]:9.3f} s CPU{ratio}")

    real_failures = real_section(tools, detect, args.timeout)

    failures = []
    for seed_set in SEED_SETS:
        for scenario, steps in steps_of.items():
            result = results[(seed_set, "perfwalk", scenario)]
            assert result is not None
            hits, changes, alarms, points, at_dips = result
            if steps and hits / changes < GOAL_RECALL:
                failures.append(f"recall {hits / changes:.1%} on {scenario} ({seed_set})")
            if not steps and scenario not in NO_GOAL and alarms / points * 10_000 > GOAL_ALARMS:
                failures.append(f"{alarms} false alarms on {scenario} ({seed_set})")
            if at_dips:
                failures.append(f"{at_dips} steps at short dips on {scenario} ({seed_set})")
    if base[1] > GOAL_SECONDS:
        failures.append(f"{base[1]:.3f} s CPU for {BIG_POINTS} points")
    failures += real_failures
    print(
        f"\ngoals: recall >= {GOAL_RECALL:.0%} on every step scenario, <= {GOAL_ALARMS:g} false "
        f"alarm per 10 000 points on every scenario without steps (but {', '.join(NO_GOAL)}), "
        "no step at a dip of at most "
        f"{SHORT_DIP} points, <= {GOAL_SECONDS} s for {BIG_POINTS} points; {REAL_GOALS} -> "
        + ("PASS" if not failures else "FAIL: " + "; ".join(failures))
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
