"""Host fingerprint: what a series' numbers were measured on.

Gathered with a single ``sh -c`` script through :meth:`Host.run`, so it costs one
round-trip and works the same on the local machine and over ssh. The script prints
``KEY=VALUE`` lines; :func:`parse_fingerprint` (pure) turns them into a dict.

Keys: ``hostname``, ``os``, ``kernel``, ``cpu``, ``cores``, ``memory`` and, for each
tool asked for, ``tool.<name>`` with the first non-blank line of ``<name> --version``,
``not found``, or, when ``--version`` fails or prints nothing, the tool's path and
``version unknown`` with the reason. A value that could not be found is ``unknown``.

The hardware, where the host lets it be read (a key is left out where it cannot):
``smt`` (simultaneous multithreading: on, off, forceoff, notsupported; OpenBSD's
``hw.smt``), ``microcode`` (the CPU's microcode revision), ``bios`` (vendor,
version, date), ``system`` (vendor and product), ``nic.<interface>`` for each
network interface backed by a device (its driver, PCI vendor:device, and ethtool's
driver version, firmware and bus where ``ethtool`` is installed),
``kernel_cmdline`` and ``boot_log`` (the kernel's first :data:`BOOT_LINES` lines,
where ``dmesg`` may be read).
Only the tools named are run (a walk names ``[run] tools``): a program that does
not know ``--version`` would do its real work instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from perfwalk.errors import HostError
from perfwalk.hosts.base import Host

#: The keys every fingerprint has, in this order, before the ``tool.*`` keys.
FINGERPRINT_KEYS = ("hostname", "os", "kernel", "cpu", "cores", "memory")
#: The hardware's keys, each present only where the host lets it be read.
HARDWARE_KEYS = ("smt", "microcode", "bios", "system", "kernel_cmdline", "boot_log")
#: Each network interface's key: ``nic.eth0``.
NIC_PREFIX = "nic."
#: The key of the kernel's first lines.
BOOT_LOG = "boot_log"
#: How many of the kernel's first lines ``boot_log`` keeps.
BOOT_LINES = 12
UNKNOWN = "unknown"
NOT_FOUND = "not found"
TOOL_PREFIX = "tool."

#: A sh function that prints the version of the program ``$1``: the first non-blank
#: line ``$1 --version`` prints on its standard output (on its standard error only
#: when the output is empty and the exit status 0: python2, java), ``not found``, or
#: the program's path and ``version unknown`` with the reason. Standard error is not
#: mixed in: a warning there ("perl: warning: Setting locale failed." when ssh passed
#: a locale the host lacks) would be recorded as the version; a failing ``--version``
#: (``sh: 0: Illegal option --``) is never taken for one.
TOOL_VERSION_SH = r"""
pw_version() {
  if p=$(command -v "$1" 2>/dev/null) && [ -n "$p" ]; then
    v=$("$1" --version </dev/null 2>/dev/null)
    rc=$?
    v=$(printf '%s\n' "$v" | sed -n '/[^[:space:]]/{p;q;}')
    if [ "$rc" -eq 0 ] && [ -z "$v" ]; then
      v=$("$1" --version </dev/null 2>&1 >/dev/null | sed -n '/[^[:space:]]/{p;q;}')
    fi
    if [ "$rc" -ne 0 ]; then
      printf '%s (version unknown: --version failed with exit %s)' "$p" "$rc"
    elif [ -n "$v" ]; then
      printf '%s' "$v"
    else
      printf '%s (version unknown: --version printed nothing)' "$p"
    fi
  else
    printf 'not found'
  fi
}
"""

# Tool names come as "$@" (never pasted into the script), so any name is safe to
# pass; only '=' and newlines are refused because they would break the KEY=VALUE lines.
FINGERPRINT_SCRIPT = (
    TOOL_VERSION_SH
    + r"""
kv() { printf '%s=%s\n' "$1" "$2"; }
kv hostname "$(uname -n 2>/dev/null)"
os=$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | head -n 1)
[ -n "$os" ] || os=$(uname -sr 2>/dev/null)
kv os "$os"
kv kernel "$(uname -srvm 2>/dev/null)"
cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=$(sysctl -n hw.model 2>/dev/null)
[ -n "$cpu" ] || cpu=$(uname -p 2>/dev/null)
kv cpu "$cpu"
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || getconf NPROCESSORS_ONLN 2>/dev/null)
[ -n "$cores" ] || cores=$(sysctl -n hw.ncpu 2>/dev/null)
kv cores "$cores"
mem=$(sed -n 's/^MemTotal:[[:space:]]*//p' /proc/meminfo 2>/dev/null)
[ -n "$mem" ] || mem=$(sysctl -n hw.physmem 2>/dev/null)
kv memory "$mem"
smt=$(cat /sys/devices/system/cpu/smt/control 2>/dev/null)
[ -n "$smt" ] || smt=$(sysctl -n hw.smt 2>/dev/null)
kv smt "$smt"
mc=$(sed -n 's/^microcode[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null)
kv microcode "$(printf '%s\n' "$mc" | head -n 1)"
d=/sys/class/dmi/id
kv bios "$(cat $d/bios_vendor $d/bios_version $d/bios_date 2>/dev/null | tr '\n' ' ')"
kv system "$(cat $d/sys_vendor $d/product_name 2>/dev/null | tr '\n' ' ')"
for n in /sys/class/net/*; do
  [ -e "$n/device" ] || continue
  i=${n##*/}
  case $i in *=*) continue ;; esac
  drv=$(readlink "$n/device/driver" 2>/dev/null)
  nic="driver ${drv##*/}"
  ids=$(cat "$n/device/vendor" "$n/device/device" 2>/dev/null | tr '\n' ' ')
  [ -z "$ids" ] || nic="$nic; pci $ids"
  if command -v ethtool >/dev/null 2>&1; then
    e=$(ethtool -i "$i" 2>/dev/null \
      | sed -n 's/^\(version\|firmware-version\|bus-info\): *\(..*\)$/\1 \2/p' | tr '\n' ';')
    [ -z "$e" ] || nic="$nic; $e"
  fi
  kv "nic.$i" "$nic"
done
kv kernel_cmdline "$(cat /proc/cmdline 2>/dev/null)"
kv boot_log "$(dmesg 2>/dev/null | head -n "$PW_BOOT_LINES" | sed 's/\\/\\\\/g' \
  | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }')"
for t in "$@"; do
  kv "tool.$t" "$(pw_version "$t")"
done
"""
)

_QUOTED = re.compile(r"""^(["'])(.*)\1$""")


def fingerprint_command(tools: Sequence[str] = ()) -> list[str]:
    """The argv that prints the fingerprint of the host it runs on."""
    for tool in tools:
        if not tool or "=" in tool or "\n" in tool or "\r" in tool:
            raise HostError(
                f"fingerprint: bad tool name {tool!r}",
                hint="name a program, as found on PATH or by its path",
            )
    script = f"PW_BOOT_LINES={BOOT_LINES}\n{FINGERPRINT_SCRIPT}"
    return ["sh", "-c", script, "perfwalk-fingerprint", *tools]


def parse_fingerprint(text: str, tools: Sequence[str] = ()) -> dict[str, str]:
    """The fingerprint printed by :data:`FINGERPRINT_SCRIPT` as a dict.

    Every key of :data:`FINGERPRINT_KEYS` and one ``tool.<name>`` key per tool is
    present; values not found are :data:`UNKNOWN`. ``os`` loses its quotes,
    ``memory`` is given in kB. The hardware's keys (:data:`HARDWARE_KEYS`,
    ``nic.*``) are present where the host printed them, ``boot_log`` on its lines.
    """
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key and key not in found:
            found[key] = value.strip()
    result = {key: found.get(key) or UNKNOWN for key in FINGERPRINT_KEYS}
    quoted = _QUOTED.match(result["os"])
    if quoted:
        result["os"] = quoted.group(2) or UNKNOWN
    result["memory"] = _memory(result["memory"])
    for key, value in found.items():
        if value and (key in HARDWARE_KEYS or key.startswith(NIC_PREFIX)):
            result[key] = _lines(value) if key == BOOT_LOG else value
    for tool in tools:
        key = TOOL_PREFIX + tool
        result[key] = found.get(key) or UNKNOWN
    return result


def fingerprint(host: Host, tools: Sequence[str] = (), *, timeout: float = 30.0) -> dict[str, str]:
    """Fingerprint ``host`` in one command; HostError when it cannot run at all."""
    done = host.run(fingerprint_command(tools), timeout=timeout)
    if done.error is not None or (done.returncode is None and not done.timed_out):
        raise HostError(
            f"host {host.name}: cannot take its fingerprint: {done.error or 'no exit status'}",
            hint="check that the host is reachable and has a POSIX sh",
        )
    return parse_fingerprint(done.stdout.text(), tools)


def _lines(value: str) -> str:
    """The boot log's lines as the script wrote them on one: ``\\n`` between two,
    a backslash doubled."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def _memory(value: str) -> str:
    """``MemTotal`` ("16318412 kB") as is; a bare byte count (BSD) in kB."""
    if value.isdigit():
        return f"{int(value) // 1024} kB"
    return value
