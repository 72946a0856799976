"""What a checkout really ran on a host: the running kernel's version string and the
compiler's version, read in one command (a few milliseconds; one multiplexed round
trip over ssh) after the checkout was built, installed and its hosts rebooted.

The kernel is ``uname -srv`` on Linux and ``sysctl -n kern.version`` elsewhere (the
BSDs: the version string of the kernel that booted, with its build number, its lines
joined); the compiler is the first line of ``<cc> --version``, as the fingerprint
reads a tool's version (:data:`perfwalk.hosts.fingerprint.TOOL_VERSION_SH`).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfwalk.hosts.base import Host
from perfwalk.hosts.fingerprint import TOOL_VERSION_SH, UNKNOWN

#: Seconds allowed for the facts' command.
FACTS_TIMEOUT = 30.0

# The compiler's name comes as $1, never pasted into the script.
FACTS_SCRIPT = (
    TOOL_VERSION_SH
    + r"""
case $(uname -s 2>/dev/null) in
  Linux) k=$(uname -srv 2>/dev/null) ;;
  *) k=$(sysctl -n kern.version 2>/dev/null | sed 's/^[[:space:]]*//' | tr '\n' ' ')
     [ -n "$k" ] || k=$(uname -srv 2>/dev/null) ;;
esac
printf 'kernel=%s\n' "$k" | tr -d '\r'
printf 'compiler=%s\n' "$(pw_version "$1")" | tr -d '\r'
"""
)


@dataclass(frozen=True)
class BuildFacts:
    """The running kernel and the compiler of one host at one checkout."""

    kernel: str
    compiler: str


def facts_command(compiler: str = "cc") -> list[str]:
    """The argv that prints the facts of the host it runs on."""
    return ["sh", "-c", FACTS_SCRIPT, "perfwalk-facts", compiler]


def parse_facts(text: str) -> BuildFacts:
    """The facts printed by :data:`FACTS_SCRIPT` (``unknown`` for what is missing)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key not in found:
            found[key] = value.strip()
    return BuildFacts(
        kernel=found.get("kernel") or UNKNOWN, compiler=found.get("compiler") or UNKNOWN
    )


def read_facts(host: Host, compiler: str = "cc", *, timeout: float = FACTS_TIMEOUT) -> BuildFacts:
    """The facts of ``host``; never raises: what could not be read says why."""
    done = host.run(facts_command(compiler), timeout=timeout)
    if done.error is not None or done.timed_out or done.returncode != 0:
        why = done.error or ("timed out" if done.timed_out else f"exit {done.returncode}")
        return BuildFacts(kernel=f"{UNKNOWN} ({why})", compiler=f"{UNKNOWN} ({why})")
    return parse_facts(done.stdout.text())
