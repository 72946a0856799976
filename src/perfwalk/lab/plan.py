"""What a lab is made of, computed from its name, prefix and directory (pure).

Three namespaces ``<name>-src``, ``<name>-dut`` and ``<name>-sink``; two /24 links
out of the lab prefix (src — dut on the first, dut — sink on the second) with the
dut as the router; the files of the lab directory: sshd configurations, the
scripts that start an sshd, "reboot" a namespace, switch its power and hang it
("panic"), its console log, the controller's ssh_config and known_hosts, and a
``[hosts]`` snippet for perfwalk.toml.
"""

from __future__ import annotations

import ipaddress
import json
import re
import shlex
import zlib
from dataclasses import dataclass
from pathlib import Path

from perfwalk.errors import UsageError

DEFAULT_NAME = "pwlab"
#: Where labs keep their files (tmpfs: a lab does not survive a reboot of the machine).
DEFAULT_ROOT = Path("/run/perfwalk")
#: Seconds a namespace stays "down" when it reboots.
DEFAULT_REBOOT_DELAY = 1.0

#: Lines of a namespace's console its ``console`` command shows.
CONSOLE_LINES = 20

#: The three hosts: their short name and the role they play.
HOSTS = (("src", "source"), ("dut", "dut"), ("sink", "sink"))


@dataclass(frozen=True)
class Link:
    """A veth pair: one end in each namespace, each with its address on a /24."""

    left: str  # namespace
    left_if: str
    left_addr: ipaddress.IPv4Interface
    right: str
    right_if: str
    right_addr: ipaddress.IPv4Interface


@dataclass(frozen=True)
class LabPlan:
    """Everything ``perfwalk lab up`` makes, and ``down`` removes."""

    name: str
    prefix: ipaddress.IPv4Network
    directory: Path
    reboot_delay: float = DEFAULT_REBOOT_DELAY

    def namespace(self, host: str) -> str:
        return f"{self.name}-{host}"

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(self.namespace(host) for host, _role in HOSTS)

    @property
    def links(self) -> tuple[Link, Link]:
        first, second = list(self.prefix.subnets(new_prefix=24))[1:3]
        return (
            Link(
                self.namespace("src"),
                "eth0",
                _at(first, 2),
                self.namespace("dut"),
                "eth0",
                _at(first, 1),
            ),
            Link(
                self.namespace("dut"),
                "eth1",
                _at(second, 1),
                self.namespace("sink"),
                "eth0",
                _at(second, 2),
            ),
        )

    def host_vars(self) -> dict[str, dict[str, str]]:
        """The ``vars`` of each host: addresses, interfaces, namespace."""
        to_dut, to_sink = self.links
        return {
            "src": {
                "addr": str(to_dut.left_addr.ip),
                "gw": str(to_dut.right_addr.ip),
                "ifname": to_dut.left_if,
                "ns": to_dut.left,
            },
            "dut": {
                "addr": str(to_dut.right_addr.ip),
                "addr_sink": str(to_sink.left_addr.ip),
                "ifname": to_dut.right_if,
                "ifname_sink": to_sink.left_if,
                "ns": to_dut.right,
            },
            "sink": {
                "addr": str(to_sink.right_addr.ip),
                "gw": str(to_sink.left_addr.ip),
                "ifname": to_sink.right_if,
                "ns": to_sink.right,
            },
        }

    # -- files ----------------------------------------------------------------------

    @property
    def state_file(self) -> Path:
        return self.directory / "state.json"

    @property
    def ssh_config(self) -> Path:
        return self.directory / "ssh_config"

    @property
    def known_hosts(self) -> Path:
        return self.directory / "known_hosts"

    @property
    def client_key(self) -> Path:
        return self.directory / "id_ed25519"

    @property
    def authorized_keys(self) -> Path:
        return self.directory / "authorized_keys"

    @property
    def hosts_file(self) -> Path:
        return self.directory / "hosts.toml"

    @property
    def reboot_script(self) -> Path:
        return self.directory / "reboot.sh"

    @property
    def power_script(self) -> Path:
        return self.directory / "power.sh"

    @property
    def panic_script(self) -> Path:
        return self.directory / "panic.sh"

    def console_log(self, namespace: str) -> Path:
        """The namespace's "serial console": its boots, power cuts and panics."""
        return self.ns_dir(namespace) / "console.log"

    def ns_dir(self, namespace: str) -> Path:
        return self.directory / namespace

    def host_key(self, namespace: str) -> Path:
        return self.ns_dir(namespace) / "ssh_host_ed25519_key"

    def sshd_pidfile(self, namespace: str) -> Path:
        return self.ns_dir(namespace) / "sshd.pid"

    def start_script(self, namespace: str) -> Path:
        return self.ns_dir(namespace) / "start-sshd.sh"

    def sshd_config_text(self, namespace: str) -> str:
        home = self.ns_dir(namespace)
        return "\n".join(
            [
                f"# sshd of the lab namespace {namespace} (written by perfwalk lab up)",
                "ListenAddress 127.0.0.1",
                "Port 22",
                f"HostKey {self.host_key(namespace)}",
                f"PidFile {self.sshd_pidfile(namespace)}",
                f"AuthorizedKeysFile {self.authorized_keys}",
                "PermitRootLogin prohibit-password",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "UseDNS no",
                "PrintMotd no",
                "PrintLastLog no",
                "MaxSessions 200",
                "MaxStartups 200",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                f"# home of root in this namespace: {home / 'root'}",
                "",
            ]
        )

    def start_script_text(self, namespace: str) -> str:
        """Start the namespace's sshd with its own hostname, /root and /tmp."""
        home = self.ns_dir(namespace)
        inner = (
            'hostname "$1" && mount --bind "$2/root" /root && mount --bind "$2/tmp" /tmp '
            '&& exec /usr/sbin/sshd -f "$2/sshd_config" -E "$2/sshd.log"'
        )
        console = shlex.quote(str(self.console_log(namespace)))
        return "\n".join(
            [
                "#!/bin/sh",
                f"# start the sshd of the lab namespace {namespace} (perfwalk lab)",
                f'echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) boot: {namespace} starts its sshd" '
                f">> {console}",
                "mkdir -p /run/sshd",
                f"rm -f {shlex.quote(str(self.sshd_pidfile(namespace)))}",
                f"exec ip netns exec {shlex.quote(namespace)} unshare --uts --mount "
                f"--propagation private sh -c {shlex.quote(inner)} start-sshd "
                f"{shlex.quote(namespace)} {shlex.quote(str(home))}",
                "",
            ]
        )

    def reboot_script_text(self) -> str:
        """``reboot.sh NS DELAY``: stop every other process of the namespace by its PID,
        wait DELAY seconds, start its sshd again.

        It first starts a copy of itself in a session of its own (``setsid``) and
        returns once that copy runs: the copy, alone out of reach of the ssh session
        it kills, is the one process of the namespace the "reboot" leaves.
        """
        return "\n".join(
            [
                "#!/bin/sh",
                "# reboot a lab namespace (perfwalk lab): every process of it but this one",
                "# is stopped by its PID, then its sshd comes back after a short delay",
                'ns=$1 delay=$2 dir=$(dirname "$0")',
                'mark="$dir/$ns/rebooting"',
                'if [ "$3" != detached ]; then',
                '  rm -f "$mark"',
                '  setsid -f sh "$0" "$ns" "$delay" detached </dev/null >/dev/null 2>&1',
                "  i=0",
                '  while [ ! -e "$mark" ] && [ "$i" -lt 500 ]; do i=$((i + 1)); sleep 0.01; done',
                "  exit 0",
                "fi",
                ': > "$mark"',
                'list="$dir/$ns/pids"',
                "i=0",
                "while :; do",
                '  ip netns pids "$ns" > "$list"',
                '  if [ "$i" -lt 20 ]; then sig=TERM; else sig=KILL; fi',
                "  left=",
                "  while read -r pid; do",
                '    [ "$pid" = "$$" ] && continue',
                '    state=$(sed "s/.*) //" "/proc/$pid/stat" 2>/dev/null | cut -d " " -f 1)',
                '    case $state in Z|X|"") continue;; esac',
                "    left=1",
                '    kill -s "$sig" "$pid" 2>/dev/null',
                '  done < "$list"',
                '  [ -n "$left" ] || break',
                "  i=$((i + 1))",
                '  if [ "$i" -gt 200 ]; then break; fi',
                "  sleep 0.05",
                "done",
                'rm -f "$list" "$mark"',
                'sleep "$delay"',
                'exec sh "$dir/$ns/start-sshd.sh"',
                "",
            ]
        )

    def power_script_text(self) -> str:
        """``power.sh NS cycle|off|on [DELAY]``: the namespace's power switch. ``off``
        kills every process of it at once (SIGKILL, by PID: a power cut, which a
        process stopped by ``panic.sh`` cannot ignore); ``cycle`` then waits DELAY
        seconds and starts its sshd again; ``on`` starts it unless it runs."""
        return "\n".join(
            [
                "#!/bin/sh",
                "# the power switch of a lab namespace (perfwalk lab): cycle, off or on",
                'ns=$1 action=$2 delay=${3:-1} dir=$(dirname "$0")',
                'console="$dir/$ns/console.log"',
                "case $action in",
                "  cycle|off|on) ;;",
                '  *) echo "usage: power.sh NAMESPACE cycle|off|on [DELAY]" >&2; exit 2;;',
                "esac",
                "running() {",
                '  for pid in $(ip netns pids "$ns"); do',
                '    state=$(sed "s/.*) //" "/proc/$pid/stat" 2>/dev/null | cut -d " " -f 1)',
                '    case $state in Z|X|"") ;; *) echo "$pid";; esac',
                "  done",
                "}",
                'if [ "$action" = on ]; then',
                '  [ -n "$(running)" ] && exit 0',
                '  exec sh "$dir/$ns/start-sshd.sh"',
                "fi",
                'echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) power $action" >> "$console"',
                "i=0",
                "while :; do",
                "  left=$(running)",
                '  [ -n "$left" ] || break',
                "  kill -s KILL $left 2>/dev/null",
                "  i=$((i + 1))",
                '  if [ "$i" -gt 200 ]; then',
                '    echo "processes of $ns do not end: $left" >&2; exit 1',
                "  fi",
                "  sleep 0.05",
                "done",
                '[ "$action" = off ] && exit 0',
                'sleep "$delay"',
                'exec sh "$dir/$ns/start-sshd.sh"',
                "",
            ]
        )

    def panic_script_text(self) -> str:
        """``panic.sh NS [WORDS]``: hang a namespace as a kernel panic would: a
        ``panic:`` line on its console, then every process of it stopped (SIGSTOP, by
        PID), the caller's shell with them and this script last. It answers nothing
        more until ``power.sh`` cuts its power."""
        return "\n".join(
            [
                "#!/bin/sh",
                "# hang a lab namespace as a kernel panic would (perfwalk lab)",
                'ns=$1 dir=$(dirname "$0")',
                "shift",
                'echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) panic: ${*:-panic.sh stopped $ns}" '
                '>> "$dir/$ns/console.log"',
                'for pid in $(ip netns pids "$ns"); do',
                '  [ "$pid" = "$$" ] || kill -s STOP "$pid" 2>/dev/null',
                "done",
                "kill -s STOP $$",
                "",
            ]
        )

    def power_command(self, namespace: str, action: str) -> str:
        """The command that powers a namespace host ``cycle``, ``off`` or ``on``."""
        delay = f" {self.reboot_delay:g}" if action == "cycle" else ""
        return f"sh {shlex.quote(str(self.power_script))} {shlex.quote(namespace)} {action}{delay}"

    def panic_command(self, namespace: str) -> str:
        """A command a test runs on a namespace host to hang it (``panic.sh``)."""
        return f"sh {shlex.quote(str(self.panic_script))} {shlex.quote(namespace)}"

    def console_command(self, namespace: str) -> str:
        """The ``console`` command of a namespace host: the tail of its console."""
        return f"tail -n {CONSOLE_LINES} {shlex.quote(str(self.console_log(namespace)))}"

    def reboot_command(self, namespace: str) -> str:
        """The command a namespace host runs to reboot."""
        return (
            f"sh {shlex.quote(str(self.reboot_script))} {shlex.quote(namespace)} "
            f"{self.reboot_delay:g}"
        )

    def ssh_config_text(self) -> str:
        blocks = [f"# ssh_config of the perfwalk lab {self.name!r} (perfwalk lab up)"]
        for namespace in self.namespaces:
            blocks.append(
                "\n".join(
                    [
                        f"Host {namespace}",
                        "  HostName 127.0.0.1",
                        "  Port 22",
                        "  User root",
                        f"  HostKeyAlias {namespace}",
                        f"  IdentityFile {self.client_key}",
                        "  IdentitiesOnly yes",
                        f"  UserKnownHostsFile {self.known_hosts}",
                        "  StrictHostKeyChecking yes",
                        "  BatchMode yes",
                        "  LogLevel ERROR",
                        f"  ProxyCommand ip netns exec {namespace} socat - TCP:%h:%p,nodelay",
                    ]
                )
            )
        return "\n\n".join(blocks) + "\n"

    def hosts_toml(self) -> str:
        """A ``[hosts]`` section for perfwalk.toml that uses this lab."""
        lines = [
            f"# The hosts of the perfwalk lab {self.name!r}: paste into perfwalk.toml.",
            f"# Written by `perfwalk lab up --name {self.name}`; prefix {self.prefix}.",
        ]
        variables = self.host_vars()
        for host, role in HOSTS:
            namespace = self.namespace(host)
            power = {
                f"power_{action}": json.dumps(
                    self.power_command(namespace, action), allow_nan=False
                )
                for action in ("cycle", "on", "off")
            }
            pairs = ", ".join(
                f"{k} = {json.dumps(v, allow_nan=False)}" for k, v in variables[host].items()
            )
            lines += [
                "",
                f"[hosts.{host}]",
                f"target = {json.dumps(namespace, allow_nan=False)}",
                f"roles = [{json.dumps(role, allow_nan=False)}]",
                f"ssh_config = {json.dumps(str(self.ssh_config), allow_nan=False)}",
                f"known_hosts = {json.dumps(str(self.known_hosts), allow_nan=False)}",
                f"reboot = {json.dumps(self.reboot_command(namespace), allow_nan=False)}",
                "reboot_timeout = 60",
                f"console = {json.dumps(self.console_command(namespace), allow_nan=False)}",
                *(f"{key} = {value}" for key, value in power.items()),
                "alive_timeout = 5",
                "connect_timeout = 5",
                '# at_end = "power_off"   # power it off when a run ends',
                f"vars = {{ {pairs} }}",
            ]
        return "\n".join(lines) + "\n"


def lab_plan(
    name: str = DEFAULT_NAME,
    prefix: str | None = None,
    directory: Path | None = None,
    reboot_delay: float = DEFAULT_REBOOT_DELAY,
    *,
    taken: tuple[ipaddress.IPv4Network, ...] = (),
) -> LabPlan:
    """The plan of lab ``name``; the prefix defaults to a private /16 chosen by the
    name, the next one when another lab (``taken``) has it."""
    if not re.fullmatch(r"[a-z][a-z0-9]{0,9}", name):
        raise UsageError(
            f"bad lab name {name!r}",
            hint="1 to 10 lower-case letters and digits, starting with a letter (e.g. pwlab)",
        )
    network = _network(prefix) if prefix is not None else _default_prefix(name, taken)
    where = (directory or DEFAULT_ROOT / f"lab-{name}").absolute()
    for hidden in (Path("/tmp"), Path("/root")):
        if where == hidden or hidden in where.parents:
            raise UsageError(
                f"lab directory {where} is under {hidden}, which each namespace replaces",
                hint="leave --dir out (/run/perfwalk/lab-NAME) or choose another place",
            )
    if reboot_delay < 0:
        raise UsageError(f"--reboot-delay must be >= 0, not {reboot_delay:g}")
    return LabPlan(name, network, where, reboot_delay)


def _network(text: str) -> ipaddress.IPv4Network:
    try:
        network = ipaddress.IPv4Network(text, strict=True)
    except ValueError as error:
        raise UsageError(
            f"bad lab prefix {text!r}: {error}",
            hint="give a private IPv4 network, e.g. 10.77.0.0/16",
        ) from None
    if not network.is_private or network.is_loopback or network.is_link_local:
        raise UsageError(
            f"lab prefix {network} is not a private network",
            hint="use 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16 space: lab traffic must "
            "never be routable",
        )
    if network.prefixlen > 22:
        raise UsageError(
            f"lab prefix {network} is too small", hint="give at least a /22 (two /24 links)"
        )
    return network


def _default_prefix(
    name: str, taken: tuple[ipaddress.IPv4Network, ...] = ()
) -> ipaddress.IPv4Network:
    """10.200.0.0/16 … 10.249.0.0/16, chosen by the name; the next free one if taken."""
    first = zlib.crc32(name.encode()) % 50
    for step in range(50):
        network = ipaddress.IPv4Network(f"10.{200 + (first + step) % 50}.0.0/16")
        if not any(network.overlaps(other) for other in taken):
            return network
    raise UsageError(
        "every default lab prefix (10.200-249.0.0/16) is taken", hint="give one with --prefix"
    )


def _at(network: ipaddress.IPv4Network, host: int) -> ipaddress.IPv4Interface:
    return ipaddress.IPv4Interface(f"{network.network_address + host}/{network.prefixlen}")
