"""Make, inspect and remove a lab (Linux, root): ``ip netns``, veth pairs, an sshd
per namespace, and a root-namespace ``unreachable`` route for the lab prefix.

:func:`lab_up` is idempotent: what exists is kept, what is missing is made (a
namespace whose sshd died gets it back). :func:`lab_down` removes everything the
plan names: the processes of each namespace (by PID, as ``ip netns pids`` lists
them), the namespaces (their veths go with them), the route and the directory.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from perfwalk.errors import HostError, UsageError
from perfwalk.lab.plan import LabPlan

#: The programs a lab needs, and the Debian package of each.
TOOLS = {
    "ip": "iproute2",
    "unshare": "util-linux",
    "nsenter": "util-linux",
    "setsid": "util-linux",
    "socat": "socat",
    "sshd": "openssh-server",
    "ssh": "openssh-client",
    "ssh-keygen": "openssh-client",
}
#: Seconds allowed for an sshd to listen once started.
SSHD_READY_TIMEOUT = 10.0
_POLL = 0.02


@dataclass(frozen=True)
class NamespaceStatus:
    namespace: str
    exists: bool
    sshd_pid: int | None  # the running sshd, if any
    answers: bool | None  # ssh true works (None: not tried)


@dataclass(frozen=True)
class LabStatus:
    plan: LabPlan
    namespaces: tuple[NamespaceStatus, ...]
    route: bool
    directory: bool

    @property
    def up(self) -> bool:
        return (
            self.route
            and self.directory
            and all(ns.exists and ns.sshd_pid is not None for ns in self.namespaces)
        )

    @property
    def anything(self) -> bool:
        return self.route or self.directory or any(ns.exists for ns in self.namespaces)


def check_can_build() -> None:
    """Linux, root and the tools; a UsageError saying what to install otherwise."""
    if not sys.platform.startswith("linux"):
        raise UsageError("perfwalk lab needs Linux (network namespaces)")
    if os.geteuid() != 0:
        raise UsageError(
            "perfwalk lab needs root: it makes network namespaces, veth pairs and a route",
            hint="run it with sudo, or as root",
        )
    missing = {tool: pkg for tool, pkg in TOOLS.items() if _which(tool) is None}
    if missing:
        packages = " ".join(sorted(set(missing.values())))
        raise UsageError(
            f"perfwalk lab needs {', '.join(sorted(missing))}",
            hint=f"install them: apt-get install {packages}",
        )


def lab_up(plan: LabPlan) -> LabStatus:
    """Make the lab (or what is missing of it) and wait until every sshd answers."""
    check_can_build()
    _check_prefix_free(plan)
    _write_files(plan)
    existing = set(_namespaces())
    for namespace in plan.namespaces:
        if namespace not in existing:
            _run(["ip", "netns", "add", namespace])
        _run(["ip", "-n", namespace, "link", "set", "lo", "up"])
    for link in plan.links:
        if not _has_link(link.left, link.left_if):
            _run(
                [
                    "ip",
                    "link",
                    "add",
                    link.left_if,
                    "netns",
                    link.left,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    link.right_if,
                    "netns",
                    link.right,
                ]
            )
        for namespace, ifname, address in (
            (link.left, link.left_if, link.left_addr),
            (link.right, link.right_if, link.right_addr),
        ):
            _run(["ip", "-n", namespace, "addr", "replace", str(address), "dev", ifname])
            _run(["ip", "-n", namespace, "link", "set", ifname, "up"])
    to_dut, to_sink = plan.links
    _run(["ip", "-n", to_dut.left, "route", "replace", "default", "via", str(to_dut.right_addr.ip)])
    _run(
        ["ip", "-n", to_sink.right, "route", "replace", "default", "via", str(to_sink.left_addr.ip)]
    )
    _run(
        [
            "ip",
            "netns",
            "exec",
            plan.namespace("dut"),
            "sysctl",
            "-q",
            "-w",
            "net.ipv4.ip_forward=1",
        ]
    )
    _run(["ip", "route", "replace", "unreachable", str(plan.prefix)])
    for namespace in plan.namespaces:
        if _sshd_pid(plan, namespace) is None:
            _start_sshd(plan, namespace)
    _write_state(plan)
    return lab_status(plan, probe=True)


def lab_down(plan: LabPlan) -> LabStatus:
    """Remove everything of the lab; what is already gone is skipped."""
    check_can_build()
    existing = set(_namespaces())
    for namespace in plan.namespaces:
        if namespace in existing:
            _stop_processes(namespace)
            _run(["ip", "netns", "del", namespace])
    shared = any(n == plan.prefix for n in other_labs(plan).values())
    if _route_present(plan) and not shared and (_own_prefix(plan) or not plan.directory.exists()):
        _run(["ip", "route", "del", "unreachable", str(plan.prefix)])
    if plan.directory.exists():
        shutil.rmtree(plan.directory)
    return lab_status(plan, probe=False)


def lab_status(plan: LabPlan, *, probe: bool = True) -> LabStatus:
    """What exists of the lab; ``probe`` also tries ``ssh true`` on each namespace."""
    existing = set(_namespaces())
    spaces = []
    for namespace in plan.namespaces:
        pid = _sshd_pid(plan, namespace) if namespace in existing else None
        answers = _answers(plan, namespace) if probe and pid is not None else None
        spaces.append(NamespaceStatus(namespace, namespace in existing, pid, answers))
    return LabStatus(
        plan=plan,
        namespaces=tuple(spaces),
        route=_route_present(plan),
        directory=plan.directory.exists(),
    )


# -- pieces ----------------------------------------------------------------------------


def _write_files(plan: LabPlan) -> None:
    plan.directory.mkdir(parents=True, exist_ok=True)
    plan.directory.chmod(0o700)
    if not plan.client_key.exists():
        _keygen(plan.client_key, f"perfwalk-lab-{plan.name}")
    plan.authorized_keys.write_text(plan.client_key.with_suffix(".pub").read_text())
    plan.authorized_keys.chmod(0o600)
    known = []
    for namespace in plan.namespaces:
        home = plan.ns_dir(namespace)
        for sub in ("root", "tmp"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        (home / "root").chmod(0o700)
        (home / "tmp").chmod(0o1777)
        if not plan.host_key(namespace).exists():
            _keygen(plan.host_key(namespace), f"perfwalk-lab-{namespace}")
        (home / "sshd_config").write_text(plan.sshd_config_text(namespace))
        plan.start_script(namespace).write_text(plan.start_script_text(namespace))
        public = plan.host_key(namespace).with_suffix(".pub").read_text().split()
        known.append(f"{namespace} {public[0]} {public[1]}\n")
    plan.known_hosts.write_text("".join(known))
    plan.ssh_config.write_text(plan.ssh_config_text())
    plan.reboot_script.write_text(plan.reboot_script_text())
    plan.power_script.write_text(plan.power_script_text())
    plan.panic_script.write_text(plan.panic_script_text())
    plan.hosts_file.write_text(plan.hosts_toml())


def _write_state(plan: LabPlan) -> None:
    state = {
        "name": plan.name,
        "prefix": str(plan.prefix),
        "namespaces": list(plan.namespaces),
        "route": f"unreachable {plan.prefix}",
        "sshd": {ns: _sshd_pid(plan, ns) for ns in plan.namespaces},
    }
    plan.state_file.write_text(json.dumps(state, indent=2, allow_nan=False) + "\n")


def _keygen(path: Path, comment: str) -> None:
    _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)])


def _start_sshd(plan: LabPlan, namespace: str) -> None:
    _run(["sh", str(plan.start_script(namespace))])
    end = time.monotonic() + SSHD_READY_TIMEOUT
    while time.monotonic() < end:
        if _sshd_pid(plan, namespace) is not None and _listening(namespace, 22):
            return
        time.sleep(_POLL)
    log = plan.ns_dir(namespace) / "sshd.log"
    tail = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
    raise HostError(
        f"lab namespace {namespace}: sshd does not listen after {SSHD_READY_TIMEOUT:g} s"
        + (f": {' / '.join(tail)}" if tail else ""),
        hint=f"see {log}; `perfwalk lab down` then `perfwalk lab up` starts anew",
    )


def _sshd_pid(plan: LabPlan, namespace: str) -> int | None:
    """The PID of the namespace's sshd, if its pidfile names a live sshd in it."""
    try:
        pid = int(plan.sshd_pidfile(namespace).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pid if pid in _pids(namespace) else None


def _listening(namespace: str, port: int) -> bool:
    done = subprocess.run(
        ["ip", "netns", "exec", namespace, "ss", "-Hltn", f"sport = :{port}"],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return done.returncode == 0 and bool(done.stdout.strip())


def _answers(plan: LabPlan, namespace: str) -> bool:
    argv = ["ssh", "-F", str(plan.ssh_config), "-o", "ConnectTimeout=5", namespace, "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=15, check=False)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def _stop_processes(namespace: str) -> None:
    """Every process of the namespace, by PID: SIGTERM, SIGKILL after a second."""
    end = time.monotonic() + 5.0
    sig = signal.SIGTERM
    while pids := _pids(namespace):
        if time.monotonic() > end - 4.0:
            sig = signal.SIGKILL
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        if time.monotonic() > end:
            raise HostError(
                f"lab namespace {namespace}: processes {sorted(pids)} do not end",
                hint="look at them with ps; perfwalk lab down stops only what runs in the lab",
            )
        time.sleep(0.05)


def _pids(namespace: str) -> set[int]:
    done = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, timeout=10, check=False
    )
    return {int(word) for word in done.stdout.split() if word.isdigit()}


def _namespaces() -> list[str]:
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, timeout=10, check=False)
    return [line.split()[0] for line in done.stdout.decode().splitlines() if line.strip()]


def _has_link(namespace: str, ifname: str) -> bool:
    done = subprocess.run(
        ["ip", "-n", namespace, "link", "show", ifname],
        capture_output=True,
        timeout=10,
        check=False,
    )
    return done.returncode == 0


def _routes() -> list[dict[str, object]]:
    done = subprocess.run(
        ["ip", "-j", "route", "show"], capture_output=True, timeout=10, check=False
    )
    try:
        routes = json.loads(done.stdout or b"[]")
    except json.JSONDecodeError:
        return []
    return [route for route in routes if isinstance(route, dict)]


def _route_present(plan: LabPlan) -> bool:
    return any(
        route.get("type") == "unreachable" and route.get("dst") == str(plan.prefix)
        for route in _routes()
    )


def other_labs(plan: LabPlan) -> dict[str, ipaddress.IPv4Network]:
    """The prefixes of the other labs whose files are beside this one's, by directory."""
    found: dict[str, ipaddress.IPv4Network] = {}
    for state in plan.directory.parent.glob("lab-*/state.json"):
        if state.parent == plan.directory:
            continue
        try:
            found[state.parent.name] = ipaddress.IPv4Network(
                json.loads(state.read_text())["prefix"]
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def _own_prefix(plan: LabPlan) -> bool:
    """True when this lab's state file says it made the route of its prefix."""
    try:
        return bool(json.loads(plan.state_file.read_text()).get("prefix") == str(plan.prefix))
    except (OSError, ValueError, AttributeError):
        return False


def _check_prefix_free(plan: LabPlan) -> None:
    """Refuse a prefix that another lab has, or that overlaps a route of this machine."""
    for where, network in other_labs(plan).items():
        if network.overlaps(plan.prefix):
            raise UsageError(
                f"lab prefix {plan.prefix} overlaps {network}, the prefix of the lab in "
                f"{plan.directory.parent / where}",
                hint="choose another private prefix with --prefix",
            )
    for route in _routes():
        destination = str(route.get("dst", ""))
        if destination in ("", "default"):
            continue
        try:
            network = ipaddress.IPv4Network(destination, strict=False)
        except ValueError:
            continue
        ours = route.get("type") == "unreachable" and network == plan.prefix and _own_prefix(plan)
        if not ours and network.overlaps(plan.prefix):
            raise UsageError(
                f"lab prefix {plan.prefix} overlaps the route {destination} of this machine",
                hint="choose another private prefix with --prefix (another lab may use this one)",
            )


def _run(argv: list[str]) -> None:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        raise HostError(f"lab: {' '.join(argv)} did not finish in 60 s") from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
        raise HostError(
            f"lab: {' '.join(argv)} failed: {why}",
            hint="`perfwalk lab status` shows what exists; `perfwalk lab down` removes it",
        )


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin")
