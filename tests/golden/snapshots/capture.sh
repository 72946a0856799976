#!/usr/bin/env bash
# Record raw outputs of the real counter commands as inputs of the snapshot parser
# golden tests (perfwalk.parsers.snapshots).
#
# Run by hand, never by the tests:
#     bash tests/golden/snapshots/capture.sh
# then rewrite the expected parses and read what changed:
#     .venv/bin/pytest tests/parsers --regen-golden
#     git diff --stat tests/golden/snapshots
#
# Each case is written to tests/golden/snapshots/<parser>/<case>.out. A command
# that is not installed (netstat: net-tools, vmstat: procps, nstat: iproute2) is
# skipped with a word; its old case stays.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)

# out <parser> <case> <command...>: run the command, keep its standard output.
out() {
    local parser=$1 case=$2
    shift 2
    if ! command -v "$1" >/dev/null; then
        echo "skipped $parser/$case: $1 is not installed"
        return
    fi
    mkdir -p "$here/$parser"
    "$@" >"$here/$parser/$case.out"
    echo "captured $parser/$case.out"
}

out counters nstat-az nstat -az
out counters proc-net-snmp cat /proc/net/snmp
out counters proc-net-netstat cat /proc/net/netstat
out counters proc-net-snmp6 cat /proc/net/snmp6
out counters vmstat-s vmstat -s
out counters netstat-s netstat -s
out counters proc-vmstat cat /proc/vmstat
out proc-interrupts proc-interrupts cat /proc/interrupts
