"""``perfwalk conduct MASTER.cfg``: play a Conductor configuration over ssh, unchanged.

Each player's address is the ssh destination of its host, unless ``--map
ADDRESS=TARGET`` says otherwise (``local`` for this machine; a loopback address
means this machine too). Every player is connected before the first trial: an
unreachable one stops the run with its name, address and ssh's reason. The run
holds a lease on the players' hosts, and stores every step of every trial and
phase (stdout, stderr, exit status, start and end) as soon as the trial ends.

With a parser (``--parser iperf3``), the output of every run-phase command of a
trial is given to it when the run ends, and the values it finds are stored with
the run, per trial (``compare conduct:ID`` reads them); ``--parse ID`` does the
same for a run already stored. A value's name is the parser's, or
``PLAYER.STEP.NAME`` when more than one run-phase step of the run gives values.
``--list`` lists the runs of a store.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from perfwalk.config.conduct import MasterConfig, read_master
from perfwalk.config.host_model import HostConfig
from perfwalk.errors import HostError, ParseError, UsageError
from perfwalk.hosts.base import DEFAULT_OUTPUT_LIMIT, Reconnecting
from perfwalk.model import Status, Value
from perfwalk.orchestrate.hosts.topology import Member, Topology
from perfwalk.orchestrate.phases.trial import TrialOutcome, play_trial
from perfwalk.orchestrate.session.ending import Ending
from perfwalk.orchestrate.session.leases import lease_name
from perfwalk.orchestrate.session.run_hosts import open_host
from perfwalk.orchestrate.session.session import Leasing, Session, open_session
from perfwalk.parsers import Parser, get_parser
from perfwalk.store import Store
from perfwalk.store.conduct import ConductSummary, NewConductRun

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class ConductOptions:
    """What the command line gives besides the master file."""

    mapping: Mapping[str, str]  # player address (or name) -> ssh destination or "local"
    ssh_config: Path | None = None
    known_hosts: Path | None = None
    trials: int | None = None
    store_url: str | None = None
    connect_timeout: float = 10.0
    lease_wait: float = 0.0
    parser: RunParser | None = None  # see make_parser


@dataclass(frozen=True)
class PlayerHost:
    name: str
    address: str
    target: str


@dataclass(frozen=True)
class ConductResult:
    conduct_id: int
    store: str
    players: tuple[PlayerHost, ...]
    trials: tuple[TrialOutcome, ...]
    parsed: Parsed | None = None

    @property
    def worst(self) -> Status:
        return Status.worst([s for t in self.trials for s in t.worst.values()])


@dataclass(frozen=True)
class Parsed:
    """What a parser found in a conductor run: the values of each trial (trials
    without a value left out) and, for each trial without one, why."""

    conduct_id: int
    values: dict[int, tuple[Value, ...]]
    missing: dict[int, str]

    @property
    def count(self) -> int:
        return sum(len(found) for found in self.values.values())


@dataclass(frozen=True)
class RunParser:
    """A parser for the values of a conductor run, and how it was given (its name and
    options, as a command line would give them), stored with the values it finds."""

    shown: str
    parse: Parser


def make_parser(name: str, items: list[str]) -> RunParser:
    """The parser ``name`` with its ``--parser-option KEY=VALUE`` items."""
    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(
                f"--parser-option {item!r}: expected KEY=VALUE",
                hint="e.g. --parser regex --parser-option pattern='([0-9.]+) Mbit/s' "
                "--parser-option name=rate",
            )
        options[key.strip()] = value
    return RunParser(shlex.join([name, *items]), get_parser(name, options or None))


def parse_run(store: Store, conduct_id: int, parser: RunParser) -> Parsed:
    """Parse the run-phase command outputs of every trial of a stored conductor run
    and store the values found with it (in place of those stored before)."""
    run = store.conduct.run(conduct_id)
    found: dict[int, list[tuple[str, str, tuple[Value, ...]]]] = {}
    missing: dict[int, str] = {}
    for step in store.conduct.steps(run.id):
        if step.phase != "run" or step.kind != "command" or step.trial is None:
            continue
        text = store.log(step.stdout_log_id).data.decode("utf-8", errors="replace")
        try:
            values = parser.parse(text)
        except ParseError as error:
            missing.setdefault(step.trial, f"{step.role} {step.name}: {error.message}")
            found.setdefault(step.trial, [])
            continue
        found.setdefault(step.trial, []).append((step.role, step.name, values))
    producers = {(role, name) for steps in found.values() for role, name, _ in steps}
    qualify = len(producers) > 1
    per_trial: dict[int, tuple[Value, ...]] = {}
    for trial, steps in sorted(found.items()):
        values = tuple(
            Value(f"{role}.{name}.{v.name}", v.value, v.unit) if qualify else v
            for role, name, got in steps
            for v in got
        )
        if values:
            per_trial[trial] = values
            missing.pop(trial, None)
        else:
            missing.setdefault(trial, "no run-phase command output")
    store.conduct.set_values(run.id, per_trial, parser=parser.shown)
    return Parsed(run.id, per_trial, dict(sorted(missing.items())))


def parse_stored(store_url: str, conduct_id: int, parser: RunParser) -> Parsed:
    """``conduct --parse ID``: parse a run already stored in ``store_url``."""
    with Store.open(store_url) as store:
        return parse_run(store, conduct_id, parser)


def stored_runs(store_url: str) -> tuple[str, list[ConductSummary]]:
    """``conduct --list``: the store's URL as shown (no password) and its conductor
    runs, newest first; only read (the store may be a colleague's)."""
    with Store.open(store_url, read_only=True) as store:
        return store.url, store.conduct.summaries()


def parse_mapping(items: list[str]) -> dict[str, str]:
    """``ADDRESS=TARGET`` items of ``--map`` as a dict."""
    mapping: dict[str, str] = {}
    for item in items:
        address, sep, target = item.partition("=")
        if not sep or not address.strip() or not target.strip():
            raise UsageError(
                f"--map {item!r}: expected ADDRESS=TARGET",
                hint="e.g. --map 192.168.5.81=root@lab-source or --map 10.0.0.1=local",
            )
        mapping[address.strip()] = target.strip()
    return mapping


def check(master_path: Path) -> MasterConfig:
    """Read the master file and its player files, connecting nothing: a mistake is a
    ConfigError naming the file, section and key; unknown [Test] keys are warnings."""
    return read_master(master_path)


def conduct(
    master_path: Path,
    options: ConductOptions,
    on_trial: Callable[[TrialOutcome], None] = lambda _trial: None,
    on_warning: Callable[[str], None] = lambda _warning: None,
) -> ConductResult:
    """Play every trial of the configuration and store it; see the module's doc."""
    master = read_master(master_path)
    for warning in master.warnings:
        on_warning(warning)
    players = _player_hosts(master, options.mapping)
    url = options.store_url or f"sqlite:///{master.path.resolve().parent / 'perfwalk.db'}"
    trials = options.trials or master.trials
    if trials < 1:
        raise UsageError(f"--trials must be at least 1, not {trials}")
    hosts = [lease_name(_host_config(p.target, options)) for p in players]
    with (
        open_session(
            url,
            lambda control: _topology(master, players, options, control),
            purpose=f"perfwalk conduct {master.path}",
            leasing=Leasing(hosts, wait=options.lease_wait, expiry=300),
        ) as session,
        session.holding(connect=lambda topology: _connect(topology, players)),
    ):
        return _play(
            session,
            master,
            players=players,
            trials=trials,
            on_trial=on_trial,
            parser=options.parser,
        )


def _play(
    session: Session,
    master: MasterConfig,
    *,
    players: tuple[PlayerHost, ...],
    trials: int,
    on_trial: Callable[[TrialOutcome], None],
    parser: RunParser | None,
) -> ConductResult:
    records = session.store.conduct
    conduct_id = records.create(
        NewConductRun(
            name=master.path.name,
            master=str(master.path.resolve()),
            config_text=master.text,
            players={
                p.name: {"address": p.address, "target": p.target, "file": str(f.file)}
                for p, f in zip(players, master.players, strict=True)
            },
            trials=trials,
            started_at=datetime.now(UTC),
        )
    )
    done: list[TrialOutcome] = []

    def record(ending: Ending) -> None:
        records.finish(conduct_id, ending.stored, datetime.now(UTC))

    with session.ending(record):
        for trial in range(1, trials + 1):
            session.check()
            outcome = play_trial(
                master.players, session.topology, trial, output_limit=DEFAULT_OUTPUT_LIMIT
            )
            records.add_trial(conduct_id, trial, outcome.steps)
            done.append(outcome)
            on_trial(outcome)
        parsed = None if parser is None else parse_run(session.store, conduct_id, parser)
    return ConductResult(conduct_id, session.store.url, players, tuple(done), parsed)


def _player_hosts(master: MasterConfig, mapping: Mapping[str, str]) -> tuple[PlayerHost, ...]:
    known = {p.address for p in master.players} | {p.name for p in master.players}
    unused = sorted(set(mapping) - known)
    if unused:
        raise UsageError(
            f"--map {unused[0]}: no player has this address or name",
            hint="players: " + ", ".join(f"{p.name} ({p.address})" for p in master.players),
        )
    result = []
    for player in master.players:
        target = mapping.get(player.name) or mapping.get(player.address)
        if target is None:
            target = "local" if player.address in LOOPBACK else player.address
        result.append(PlayerHost(player.name, player.address, target))
    return tuple(result)


def _host_config(target: str, options: ConductOptions) -> HostConfig:
    return HostConfig(
        target=target,
        ssh_config=options.ssh_config,
        known_hosts=options.known_hosts,
        connect_timeout=options.connect_timeout,
    )


def _topology(
    master: MasterConfig,
    players: tuple[PlayerHost, ...],
    options: ConductOptions,
    control: Path,
) -> Topology:
    members = {}
    for player in players:
        config = _host_config(player.target, options)
        members[player.name] = Member(
            name=player.name,
            host=open_host(player.name, config, control),
            local=config.local,
            roles=(player.name,),
        )
    return Topology(members, master.players[0].name)


def _connect(topology: Topology, players: tuple[PlayerHost, ...]) -> None:
    """Connect every player now; an unreachable one is an error naming it."""
    for player in players:
        host = topology.member(player.name).host
        if not isinstance(host, Reconnecting):
            continue
        try:
            host.connect()
        except HostError as error:
            raise HostError(
                f"player {player.name} (address {player.address}, ssh {player.target!r}) is "
                f"unreachable: {error.message}",
                hint=f"{error.hint}; or reach it another way: --map {player.address}=TARGET",
            ) from error
