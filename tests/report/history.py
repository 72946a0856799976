"""A fixed store for the site's tests: three series (a daily walk, a finer walk
inside one of its intervals, and the daily walk's variant ``fast`` measured beside
it), quirks, a broken build, a variant whose patch did not apply at one checkout,
failing and timed-out tests, an outlier, an unstable set, a large log, changes (one
of the variant's), an excursion and a drift to show, two conductor runs (one parsed,
one interrupted with a failed step and a long output), a try (a patch against a
commit, decided worse, a hostile patch and metric), and hostile text everywhere it
can be.

Everything is fixed (dates, values, order), so the pages are the same bytes on
every run: the golden pages compare them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from perfwalk.analysis.verdict import Measurement
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
from perfwalk.store import NewRepetition, NewResult, NewSeries, NewStep, QuirkInfo, Store
from perfwalk.store.conduct import NewConductRun
from perfwalk.store.tries import NewTry

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> \'q\' "dq" &amp;'
HOSTILE_LOG = (
    b"<script>window.pwned=3</script>\n\x1b[31mred\x1b[0m <b onmouseover='x'>\n"
    b"invalid utf-8: \xff\xfe end\n"
)
COMMIT_URL = "https://git.example.org/c/{commit}"
#: when the fixed site is published: what its live and host-use pages are as of
PUBLISHED_AT = T0 + timedelta(days=14)
LARGE_LINES = 1200
PHASES = ("startup", "run", "collect", "reset")


@dataclass(frozen=True)
class FixedStore:
    url: str
    daily: int  # series ids
    fine: int
    changes: tuple[ListedChange, ...]
    episodes: tuple[ListedEpisode, ...] = ()
    conduct: tuple[int, ...] = ()  # conductor run ids: parsed, interrupted
    tried: int = 0  # the try's series id
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
        conduct = add_conduct_runs(store)
        tried = add_try(store)
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
    return FixedStore(url, daily, fine, changes, episodes, conduct, tried, fast)


def _step(
    trial: int,
    phase: str,
    player: str,
    name: str,
    command: str,
    *,
    kind: str = "command",
    status: Status = Status.PASS,
    exit_code: int | None = 0,
    seconds: float = 1.25,
    message: str = "",
    stdout: bytes = b"",
    stderr: bytes = b"",
) -> NewStep:
    """A step of a conductor trial, at a fixed moment of its phase."""
    at = T0 + timedelta(days=10, minutes=trial * 5 + PHASES.index(phase))
    return NewStep(
        phase=phase,
        role=player,
        host=f"lab-{player}",
        kind=kind,
        name=name,
        command=command,
        status=status,
        started_at=at,
        finished_at=at + timedelta(seconds=seconds),
        exit_code=exit_code,
        message=message,
        stdout=Log.of(stdout),
        stderr=Log.of(stderr),
    )


#: the rates of the parsed conductor run's trials (Mbit/s)
RATES = (941.2, 940.7, 942.0)


def add_conduct_runs(store: Store) -> tuple[int, int]:
    """A finished conductor run of three trials over three players, parsed (a rate and
    a value of a hostile name per trial); then an interrupted one with one trial of
    two: a step that exits 3, one that timed out, hostile and very long outputs."""
    players = {
        "source": {"address": "10.0.0.2", "target": "lab-source", "file": "source.cfg"},
        "sink": {"address": "10.0.0.3", "target": "lab-sink", "file": "sink.cfg"},
        "dut": {"address": "10.0.0.4", "target": "local", "file": "dut.cfg"},
    }
    parsed = store.conduct.create(
        NewConductRun(
            name="forwarding.cfg",
            master="/lab/netperf/forwarding.cfg",
            config_text=f"[Test]\ntrials: 3\n# {HOSTILE}\n[Clients]\nsource: source.cfg\n",
            players=players,
            trials=3,
            started_at=T0 + timedelta(days=10),
        )
    )
    for trial, rate in enumerate(RATES, start=1):
        out = f"[SUM] 0.00-10.00 sec {rate} Mbits/sec receiver\nVALUE {rate} Mbit/s rate\n"
        steps = [
            _step(
                trial,
                "startup",
                "dut",
                "step1",
                "sysctl -n net.ipv4.ip_forward",
                stdout=b"1\n",
            ),
            _step(trial, "run", "sink", "spawn1", "iperf3 -s", kind="service", exit_code=None),
            _step(
                trial,
                "run",
                "source",
                "timeout20",
                "iperf3 -c 10.0.2.3 -t 10",
                seconds=10.5,
                stdout=out.encode() + (HOSTILE_LOG if trial == 2 else b""),
                stderr=b"iperf3: warning\n" if trial == 1 else b"",
            ),
            _step(
                trial,
                "collect",
                "dut",
                "step1",
                "netstat -s",
                stdout=b"Ip:\n  42 forwarded\n",
            ),
            _step(trial, "reset", "sink", "step1", "true"),
        ]
        store.conduct.add_trial(parsed, trial, steps)
    store.conduct.set_values(
        parsed,
        {
            trial: (Value("rate", rate, "Mbit/s"), Value(f"x {HOSTILE}", trial, f"u {HOSTILE}"))
            for trial, rate in enumerate(RATES, start=1)
        },
        parser="value",
    )
    store.conduct.finish(parsed, "finished", T0 + timedelta(days=10, minutes=20))
    broken = store.conduct.create(
        NewConductRun(
            name=f"{HOSTILE}.cfg",
            master=f"/lab/{HOSTILE}.cfg",
            config_text="[Test]\ntrials: 2\n",
            players={f"p {HOSTILE}": {"address": "10.0.0.9", "target": "local", "file": "p.cfg"}},
            trials=2,
            started_at=T0 + timedelta(days=11),
        )
    )
    player = f"p {HOSTILE}"
    long = b"".join(f"pps line {i}: 1488095\n".encode() for i in range(LARGE_LINES))
    store.conduct.add_trial(
        broken,
        1,
        [
            _step(
                1,
                "startup",
                player,
                f"step {HOSTILE}",
                f"echo {HOSTILE}",
                stdout=HOSTILE_LOG,
            ),
            _step(
                1,
                "run",
                player,
                "step1",
                "sh -c 'exit 3'",
                status=Status.NOEXIT,
                exit_code=3,
                stderr=HOSTILE.encode(),
            ),
            _step(
                1,
                "run",
                player,
                "timeout5",
                "pkt-gen -f tx",
                status=Status.NOTERM,
                exit_code=None,
                seconds=5.0,
                message="timed out after 5 s; its process group was killed",
                stdout=long,
            ),
            _step(1, "reset", player, "step1", "true"),
        ],
    )
    store.conduct.finish(broken, "interrupted", T0 + timedelta(days=11, minutes=3))
    return parsed, broken


#: the try's patch: hostile text in a diff, long enough to be folded
TRY_PATCH = (
    "--- a/src/tcp.c\n+++ b/src/tcp.c\n@@ -1,3 +1,3 @@\n"
    + "".join(f" context line {n}\n" for n in range(60))
    + f"-/* {HOSTILE} */\n+/* \x1b[31m{HOSTILE}\x1b[0m */\n"
)
#: a metric of the try whose test and value names are hostile text
TRY_HOSTILE_TEST = f"t {HOSTILE}"


def add_try(store: Store) -> int:
    """A try of a patch (and a variant) against commit 600: 4 + 4 repetitions in turns
    A B B A, iperf's sender 10 % lower on B (worse), a hostile test's value the same, a
    failed repetition of B without values; the hostile commit is A's."""
    base = _commit(600, 8, hostile=True)
    series = dataclasses.replace(
        _series(f"try {base.id[:12]} + <fast>.diff vs {base.id[:12]}", "try", None, ()),
        kind="try",
        from_spec=base.id,
        to_spec=base.id,
        repetitions=30,
        started_at=T0 + timedelta(days=8),
    )
    sid = store.create_series(series)
    store.tries.start(
        sid,
        NewTry(
            base_sha=base.id,
            head_sha=base.id,
            confidence=95.0,
            max_repetitions=30,
            patches=((f"<fast>{HOSTILE}.diff", TRY_PATCH), ("small.diff", "-a\n+b\n")),
            variant=f"notso {HOSTILE}",
        ),
    )
    spread = (0.0, 0.004, -0.003, 0.002)
    for idx, level in ((0, 1.0), (1, 0.9)):
        at = T0 + timedelta(days=8)
        checkout_id = store.add_checkout(
            sid, Checkout(index=idx, commit=base.id, date=base.date, since=(base,))
        )
        store.set_build(
            checkout_id, Status.PASS, 12.0, Log.of(f"built side {'AB'[idx]}\n".encode())
        )
        for rep in range(4):
            turn = 2 * rep + (idx if rep % 2 == 0 else 1 - idx)  # A B B A A B B A
            results = [
                _result("iperf", (("sender", 940e6 * level * (1 + spread[rep]), "bits/sec"),)),
                _result(TRY_HOSTILE_TEST, ((f"v {HOSTILE}", 2.0 + spread[rep], "s"),)),
            ]
            if idx == 1 and rep == 2:
                results = [_result("iperf", (), status=Status.FAIL, message=HOSTILE)]
            store.add_repetition(
                checkout_id,
                NewRepetition(
                    idx=rep,
                    started_at=at + timedelta(minutes=turn),
                    finished_at=at + timedelta(minutes=turn, seconds=30),
                    results=tuple(results),
                ),
            )
    verdicts = [
        {
            "test": "iperf",
            "name": "sender",
            "unit": "bits/sec",
            "direction": "higher",
            "verdict": "worse",
            "change": -0.1,
            "low": -0.104,
            "high": -0.096,
            "count_a": 4,
            "count_b": 3,
            "reason": "B is worse by 10.0 % [9.6 %, 10.4 %] at 95 % after 4 + 3 repetitions",
            "mann_whitney_p": 0.0286,
        },
        {
            "test": TRY_HOSTILE_TEST,
            "name": f"v {HOSTILE}",
            "unit": f"s {HOSTILE}",
            "direction": "lower",
            "verdict": "same",
            "change": 0.0,
            "low": -0.003,
            "high": 0.003,
            "count_a": 4,
            "count_b": 3,
            "reason": f"equivalent within ±1 % {HOSTILE}",
            "mann_whitney_p": None,
        },
    ]
    store.tries.finish(sid, verdicts, f"every metric was decided {HOSTILE}")
    store.set_series_state(sid, "finished", T0 + timedelta(days=8, hours=1))
    return sid


def fixed_changes(daily: int, fine: int) -> tuple[ListedChange, ListedChange]:
    """The regression at checkout 3 of the daily series, in two metrics: iperf.sender,
    suspect of the machine's load, then drilled (by ``fine``, standing in for a drill)
    to its hostile culprit, which confirms it, and triaged "expected"; make.real,
    drilled to a range, which confirms it, and untriaged."""
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
        state="confirmed",
        chain=(
            f"detected in walk {daily} at > 99.99 %",
            f"suspect: machine load: {HOSTILE}",
            f"confirmed by drill {fine} (CULPRIT {after[:8]}, 99.98 %)",
        ),
        headline=Measurement(-0.198, f"drill {fine}", confidence=0.9998),
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
        chain=(
            f"detected in walk {daily} at > 99.99 %, both sides quiet",
            f"confirmed by drill {fine} (RANGE {before[:8]}..{after[:8]})",
        ),
        headline=None,
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
