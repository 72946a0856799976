"""A fixed store for the site's tests: three series (a daily walk, a finer walk
inside one of its intervals, and the daily walk's variant ``fast`` measured beside
it), quirks, a broken build, a variant whose patch did not apply at one checkout,
failing and timed-out tests, an outlier, an unstable set, a large log, changes (one
of the variant's), an excursion and a drift to show, and hostile text everywhere it
can be.

Everything is fixed (dates, values, order), so the pages are the same bytes on
every run: the golden pages compare them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.config.model import (
    AnalysisConfig,
    BuildConfig,
    Config,
    ProjectConfig,
    RunConfig,
    StoreConfig,
)
from perfwalk.model import Checkout, Commit, Direction, Log, Status, Value
from perfwalk.report.change_list import Culprit, DrillMark, ListedChange, ListedEpisode, TriageMark
from perfwalk.store import NewRepetition, NewResult, NewSeries, QuirkInfo, Store

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> \'q\' "dq" &amp;'
HOSTILE_LOG = (
    b"<script>window.pwned=3</script>\n\x1b[31mred\x1b[0m <b onmouseover='x'>\n"
    b"invalid utf-8: \xff\xfe end\n"
)
COMMIT_URL = "https://git.example.org/c/{commit}"
LARGE_LINES = 1200


@dataclass(frozen=True)
class FixedStore:
    url: str
    daily: int  # series ids
    fine: int
    changes: tuple[ListedChange, ...]
    episodes: tuple[ListedEpisode, ...] = ()
    fast: int | None = None  # the daily walk's variant "fast"


def config_for(url: str, folder: Path) -> Config:
    """A configuration with a commit-link template and the default analysis."""
    return Config(
        path=folder / "perfwalk.toml",
        text="",
        hash="golden",
        project=ProjectConfig(name="netstack", repo=folder, commit_url=COMMIT_URL),
        store=StoreConfig(url=url, worktrees=folder / "worktrees"),
        build=BuildConfig(),
        run=RunConfig(),
        analysis=AnalysisConfig(),
        tests=(),
    )


def _commit(n: int, day: int, hostile: bool = False) -> Commit:
    return Commit(
        id=f"{n:040x}",
        date=T0 + timedelta(days=day, minutes=n),
        author=f"Dev {n} <dev{n}@example.org>" if not hostile else f"{HOSTILE} <x@example.org>",
        subject=f"change {n}" if not hostile else f"Fix {HOSTILE}",
        body=f"body of change {n}\n" if not hostile else f"{HOSTILE}\n\x1b[1mbold\x1b[0m\n",
        files=(f"src/file{n}.c",) if not hostile else ("src/<evil> & 'name'.c",),
    )


def _result(
    test: str,
    values: tuple[tuple[str, float, str], ...],
    *,
    status: Status = Status.PASS,
    out: bytes = b"",
    err: bytes = b"",
    message: str = "",
) -> NewResult:
    return NewResult(
        test=test,
        status=status,
        message=message,
        duration=1.5,
        exit_code=0 if status is Status.PASS else 1,
        command=f"run {test}",
        stdout=Log.of(out),
        stderr=Log.of(err),
        values=tuple(
            (Value(name, value, unit), Direction.HIGHER if unit == "bits/sec" else Direction.LOWER)
            for name, value, unit in values
        ),
    )


def _repetition(checkout: int, rep: int, level: float) -> NewRepetition:
    spread = (0.0, 0.004, -0.003, 0.002, -0.001)[rep]
    if checkout == 2 and rep == 4:
        spread = 0.2  # an outlier
    if checkout == 4:
        spread *= 20  # an unstable set
    sender = 940e6 * level * (1 + spread)
    results = [
        _result(
            "iperf",
            (
                ("sender", sender, "bits/sec"),
                ("receiver", sender * 0.99, "bits/sec"),
                ("retransmits", 3.0 + rep, "count"),
            ),
            out=f"[SUM] {sender:.0f} bits/sec sender\n".encode()
            + (HOSTILE_LOG if checkout == 3 and rep == 0 else b""),
        ),
        _result(
            "make",
            (("real", 85.0 / level + rep * 0.1, "sec"), ("user", 160.0 + rep, "sec")),
            out=b"real 85.0\nuser 160.0\n",
        ),
    ]
    if checkout == 3:
        results.append(
            _result(
                f"fs {HOSTILE}", (), status=Status.FAIL, message=HOSTILE, err=b"no value found\n"
            )
        )
    if checkout == 5 and rep == 1:
        big = b"".join(f"line {i} of a long output\n".encode() for i in range(LARGE_LINES))
        results.append(
            _result("ping", (), status=Status.NOTERM, out=big, message="timed out after 600 s")
        )
    return NewRepetition(
        idx=rep,
        started_at=T0 + timedelta(days=checkout, minutes=rep),
        finished_at=T0 + timedelta(days=checkout, minutes=rep, seconds=30),
        results=tuple(results),
        between_status=None if rep == 0 else Status.PASS,
        between_log=None if rep == 0 else Log.of(b"rebooted\n"),
    )


def _series(
    name: str,
    step: str,
    parent: int | None,
    quirks: tuple[QuirkInfo, ...],
    *,
    variant: str | None = None,
) -> NewSeries:
    return NewSeries(
        name=name,
        project="netstack",
        repo="/src/netstack",
        from_spec="2024-03-01",
        to_spec="2024-03-07",
        step=step,
        repetitions=5,
        between="reboot",
        host="dut",
        config_hash="c0ffee0123456789",
        config_text=f"[project]\nname = 'netstack'\n# {HOSTILE}\n",
        commands={"build": ["make", "-j4"], "tests": {"iperf": "iperf3 -c sink"}},
        fingerprint={"os": "Linux", "cores": 8, "cpu": HOSTILE},
        started_at=T0,
        parent_id=parent,
        quirks=quirks,
        kind="variant" if variant is not None else "walk",
        variant=variant,
    )


def _daily_checkout(idx: int) -> Checkout:
    since = tuple(_commit(idx * 10 + k, idx, hostile=idx == 3 and k == 1) for k in range(2))
    return Checkout(
        index=idx,
        commit=since[-1].id,
        date=T0 + timedelta(days=idx),
        since=since,
        quirks=("A",) if idx >= 2 else (),
    )


def add_daily_checkout(store: Store, series_id: int, idx: int) -> None:
    """Checkout ``idx`` of the daily series, with its build and repetitions."""
    level = 1.0 if idx < 3 else 0.8  # a regression at checkout 3
    checkout_id = store.add_checkout(series_id, _daily_checkout(idx))
    if idx == 1:
        store.set_build(checkout_id, Status.NOEXIST, 3.0, Log.of(b"error: " + HOSTILE.encode()))
        return
    if idx == 2:
        store.add_quirk_run(checkout_id, "A", Status.PASS, Log.of(b"patch applied\n"))
    store.set_build(checkout_id, Status.PASS, 42.0, Log.of(b"make: done\n"))
    for rep in range(5):
        store.add_repetition(checkout_id, _repetition(idx, rep, level))


#: the checkout where the variant's patch does not apply (the plain checkout builds)
FAST_UNPATCHED = 4


def add_fast_checkout(store: Store, series_id: int, idx: int) -> None:
    """Checkout ``idx`` of the daily walk's variant ``fast``: the walk's checkout,
    measured 10 % faster, its build failed where the walk's did and its patch not
    applied at :data:`FAST_UNPATCHED`."""
    level = (1.0 if idx < 3 else 0.8) * 1.1
    checkout_id = store.add_checkout(series_id, _daily_checkout(idx))
    if idx == 1:
        store.set_build(checkout_id, Status.NOEXIST, 3.0, Log.of(b"error: " + HOSTILE.encode()))
        return
    if idx == FAST_UNPATCHED:
        log = b"error: patch failed: src/fast-path.c:12\nerror: fast-path.diff does not apply\n"
        store.set_build(checkout_id, Status.NOEXIST, 0.1, Log.of(log))
        return
    store.set_build(checkout_id, Status.PASS, 44.0, Log.of(b"make: done\n"))
    for rep in range(3):
        results = (
            _result(
                "iperf",
                (
                    ("sender", 940e6 * level * (1 + rep / 1000), "bits/sec"),
                    ("receiver", 930e6 * level * (1 + rep / 1000), "bits/sec"),
                    ("retransmits", 2.0 + rep, "count"),
                ),
            ),
            _result("make", (("real", 80.0 / level + rep * 0.1, "sec"),)),
        )
        store.add_repetition(
            checkout_id,
            NewRepetition(
                idx=rep,
                started_at=T0 + timedelta(days=idx, minutes=rep, seconds=40),
                finished_at=T0 + timedelta(days=idx, minutes=rep, seconds=70),
                results=results,
                between_status=None if rep == 0 else Status.PASS,
                between_log=None if rep == 0 else Log.of(b"rebooted\n"),
            ),
        )


def make_fixed_store(path: Path, *, daily_checkouts: int = 6, variant: bool = True) -> FixedStore:
    url = f"sqlite:///{path}"
    with Store.open(url) as store:
        daily = store.create_series(
            _series(
                f"daily {HOSTILE}",
                "1day",
                None,
                (QuirkInfo("A", T0 + timedelta(days=1, hours=12), "f00d", f"toolchain {HOSTILE}"),),
            )
        )
        for idx in range(daily_checkouts):
            add_daily_checkout(store, daily, idx)
        store.set_series_state(daily, "finished", T0 + timedelta(days=7))
        fine = store.create_series(_series("fine around the regression", "6hour", daily, ()))
        for idx in range(3):
            day = 2 + (idx + 1) * 0.25
            commit = _commit(500 + idx, 2)
            checkout_id = store.add_checkout(
                fine,
                Checkout(
                    index=idx, commit=commit.id, date=T0 + timedelta(days=day), since=(commit,)
                ),
            )
            store.set_build(checkout_id, Status.PASS, 40.0, Log.of(b"make: done\n"))
            for rep in range(2):
                store.add_repetition(checkout_id, _repetition(idx, rep, 1.0 if idx < 1 else 0.8))
        store.set_series_state(fine, "finished", T0 + timedelta(days=3))
        fast = None
        if variant:
            fast = store.create_series(
                _series(f"daily {HOSTILE} (fast)", "1day", daily, (), variant="fast")
            )
            for idx in range(daily_checkouts):
                add_fast_checkout(store, fast, idx)
            store.set_series_state(fast, "finished", T0 + timedelta(days=7))
    changes: tuple[ListedChange, ...] = fixed_changes(daily, fine)
    if fast is not None:
        changes = (*changes, fast_change(fast))
    name = f"daily {HOSTILE}"
    episodes = (
        ListedEpisode(daily, name, "make", "user", "excursion", 3, 4, 0.031, True, 162.0, 167.0),
        ListedEpisode(daily, name, "iperf", "retransmits", "drift", 0, 5, 0.05, True, 5.0, 5.25),
        # one whose test name is hostile text: listed, escaped
        ListedEpisode(daily, name, f"fs {HOSTILE}", "x", "excursion", 3, 3, -0.5, False, 2.0, 1.0),
    )
    return FixedStore(url, daily, fine, changes, episodes, fast)


def fixed_changes(daily: int, fine: int) -> tuple[ListedChange, ListedChange]:
    """The regression at checkout 3 of the daily series, in two metrics: iperf.sender,
    drilled (by ``fine``, standing in for a drill) to its hostile culprit and triaged
    "expected"; make.real, drilled to a range and untriaged."""
    before, lo, after = f"{21:040x}", f"{30:040x}", f"{31:040x}"  # 31: the hostile commit
    sender = ListedChange(
        series_id=daily,
        series_name=f"daily {HOSTILE}",
        test="iperf",
        name="sender",
        unit="bits/sec",
        regression=True,
        before=940e6,
        after=752e6,
        size=-0.2,
        low=-0.21,
        high=-0.19,
        confidence=0.99999,
        before_idx=2,
        after_idx=3,
        before_sha=before,
        after_sha=after,
        date=T0 + timedelta(days=3),
        commits=2,
        culprit=Culprit(after, f"Fix {HOSTILE}", f"{HOSTILE} <x@example.org>", fine),
        drill=DrillMark(fine, "culprit", lo, after),
        triage=TriageMark(
            "expected", f"the new toolchain {HOSTILE}", "ann", T0 + timedelta(days=4), "BUG-1"
        ),
    )
    real = dataclasses.replace(
        sender,
        test="make",
        name="real",
        unit="sec",
        before=85.0,
        after=106.25,
        size=0.25,
        low=0.24,
        high=0.26,
        culprit=None,
        drill=DrillMark(fine, "range", before, after, "the commits between did not build"),
        triage=None,
    )
    return sender, real


def fast_change(fast: int) -> ListedChange:
    """The regression at checkout 3 of the variant ``fast``: iperf.sender, undrilled."""
    return ListedChange(
        series_id=fast,
        series_name=f"daily {HOSTILE} (fast)",
        test="iperf",
        name="sender",
        unit="bits/sec",
        regression=True,
        before=1034e6,
        after=827.2e6,
        size=-0.2,
        low=-0.205,
        high=-0.195,
        confidence=0.9999,
        before_idx=2,
        after_idx=3,
        before_sha=f"{21:040x}",
        after_sha=f"{31:040x}",
        date=T0 + timedelta(days=3),
        commits=2,
        variant="fast",
    )
