"""The synthetic history and store that bench/publish.py measures (built once, kept).

A git repository of N commits (one an hour) made with ``git fast-import``, and a
perfwalk store with one series that walked every commit: T tests × V values ×
R repetitions per checkout (by default 10 000 × 10 × 10 × 5 = 5 000 000 values),
each result with a two-line output, the values a seeded noise around a level that
steps twice.
"""

from __future__ import annotations

import random
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report.change_list import ListedChange
from perfwalk.store import NewRepetition, NewResult, NewSeries, QuirkInfo, Store

T0 = datetime(2020, 1, 1, tzinfo=UTC)
STEP = timedelta(hours=1)
#: the values of each test, like iperf3's JSON: two throughputs (one plot of 2 × 50 000
#: points at 10 000 checkouts × 5 repetitions: the heaviest plot), and eight more
VALUES = (
    ("sender", "bits/sec"),
    ("receiver", "bits/sec"),
    ("retransmits", "count"),
    ("cpu_local", "%"),
    ("cpu_remote", "%"),
    ("rtt_min", "ms"),
    ("rtt_mean", "ms"),
    ("rtt_max", "ms"),
    ("jitter", "ms"),
    ("lost", "packets"),
)


@dataclass(frozen=True)
class Shape:
    checkouts: int = 10_000
    tests: int = 10
    repetitions: int = 5

    @property
    def metrics(self) -> int:
        return self.tests * len(VALUES)

    @property
    def values(self) -> int:
        return self.checkouts * self.metrics * self.repetitions

    def label(self) -> str:
        return f"{self.checkouts}x{self.metrics}x{self.repetitions}"


def make_repo(path: Path, count: int) -> list[tuple[str, datetime]]:
    """A repository of ``count`` commits on ``main``; (sha, date) of each, oldest first."""
    if not (path / ".git").exists():
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
        lines = []
        for i in range(count):
            when = int((T0 + i * STEP).timestamp())
            content = f"{i}\n".encode()
            message = f"change {i}\n".encode()
            lines.append(b"commit refs/heads/main\n")
            lines.append(f"committer Bench <bench@example.org> {when} +0000\n".encode())
            lines.append(f"data {len(message)}\n".encode() + message)
            lines.append(
                f"M 644 inline value.txt\ndata {len(content)}\n".encode() + content + b"\n"
            )
        subprocess.run(
            ["git", "-C", str(path), "fast-import", "--quiet"], input=b"".join(lines), check=True
        )
    out = subprocess.run(
        ["git", "-C", str(path), "log", "--reverse", "--format=%H %ct", "main"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        (out[i], datetime.fromtimestamp(int(out[i + 1]), tz=UTC)) for i in range(0, len(out), 2)
    ]


def level(test: int, name: int, position: int, count: int) -> float:
    """The true value of a metric at a checkout: two steps, at 1/3 and 2/3."""
    base = (1e9 if name < 2 else 10.0 + name) * (1 + test / 10) * (1 + name / 20)
    if position >= count // 3:
        base *= 0.9
    if position >= 2 * count // 3:
        base *= 1.15
    return base


def add_checkout(
    store: Store,
    series_id: int,
    *,
    shape: Shape,
    position: int,
    commit: tuple[str, datetime],
    rng: random.Random,
    total: int,
) -> None:
    sha, date = commit
    since = (
        Commit(id=sha, date=date, author="Bench <bench@example.org>", subject=f"change {position}"),
    )
    checkout_id = store.add_checkout(
        series_id, Checkout(index=position, commit=sha, date=date, since=since)
    )
    store.set_build(checkout_id, Status.PASS, 1.0, Log.of(b"make: done\n"))
    for rep in range(shape.repetitions):
        results = []
        for t in range(shape.tests):
            values = tuple(
                (
                    Value(name, level(t, n, position, total) * (1 + rng.gauss(0, 0.01)), unit),
                    Direction.HIGHER if n < 2 else Direction.LOWER,
                )
                for n, (name, unit) in enumerate(VALUES)
            )
            out = f"test t{t:02d} repetition {rep}\n" + "".join(
                f"{v.value:.6g} {v.unit} {v.name}\n" for v, _ in values
            )
            results.append(
                NewResult(
                    test=f"t{t:02d}",
                    status=Status.PASS,
                    duration=10.0,
                    exit_code=0,
                    command=f"bench t{t:02d}",
                    stdout=Log.of(out.encode()),
                    values=values,
                )
            )
        store.add_repetition(
            checkout_id,
            NewRepetition(idx=rep, started_at=date, finished_at=date, results=tuple(results)),
        )


def make_store(
    url: str, shape: Shape, commits: list[tuple[str, datetime]], *, seed: int = 1
) -> int:
    """A store holding one series over the first ``shape.checkouts`` commits; its id."""
    with Store.open(url) as store:
        series_id = store.create_series(
            NewSeries(
                name=f"bench {shape.label()}",
                project="bench",
                repo="bench",
                from_spec=commits[0][0],
                to_spec=commits[shape.checkouts - 1][0],
                step="commit",
                repetitions=shape.repetitions,
                between="keep",
                host="local",
                config_hash="bench",
                config_text="# synthetic\n",
                commands={"tests": "bench t00 … bench t09"},
                fingerprint={"cores": 2, "os": "Linux"},
                started_at=T0,
                quirks=(
                    QuirkInfo("A", commits[shape.checkouts // 2][1], None, "toolchain rebuilt"),
                ),
            )
        )
        rng = random.Random(seed)
        for position in range(shape.checkouts):
            add_checkout(
                store,
                series_id,
                shape=shape,
                position=position,
                commit=commits[position],
                rng=rng,
                total=shape.checkouts,
            )
        store.set_series_state(series_id, "finished", T0 + shape.checkouts * STEP)
    return series_id


def two_steps(store: Store, total: int) -> list[ListedChange]:
    """The steps of :func:`level` (at 1/3 and 2/3 of ``total`` checkouts) in every
    metric of the store's first series, as the analysis lists them: one commit each,
    not drilled (two alert groups of 100 metrics)."""
    series = store.list_series()[-1]
    rows = store.checkouts(series.id)
    found = []
    for at, size in ((total // 3, -0.1), (2 * total // 3, 0.15)):
        before, after = rows[at - 1], rows[at]
        for t in range(Shape().tests):
            for n, (name, unit) in enumerate(VALUES):
                was = level(t, n, at - 1, total)
                found.append(
                    ListedChange(
                        series_id=series.id,
                        series_name=series.name,
                        test=f"t{t:02d}",
                        name=name,
                        unit=unit,
                        regression=(size < 0) == (unit == "bits/sec"),
                        before=was,
                        after=was * (1 + size),
                        size=size,
                        low=size - 0.005,
                        high=size + 0.005,
                        confidence=0.9999,
                        before_idx=before.idx,
                        after_idx=after.idx,
                        before_sha=before.sha,
                        after_sha=after.sha,
                        date=after.date,
                        commits=1,
                        range_shas=(after.sha,),
                        host=series.host,
                        author="Bench <bench@example.org>",
                        subject=f"change {at}",
                    )
                )
    return found
