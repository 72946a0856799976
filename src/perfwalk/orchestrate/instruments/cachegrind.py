"""The ``cachegrind`` instrument: the test's command under valgrind's cache simulator,
counting what its whole process tree executed, which no load beside it can move.

The command runs under ``valgrind --tool=cachegrind --trace-children=yes
--cache-sim=yes`` with fixed simulated caches (the same on every host: the counts
compare across machines), one output file per process and valgrind's own messages
in files of their own (the test's output stays its own). Reading back is one command
on the host after the run: the ``events:`` and ``summary:`` lines of each process's
file (:mod:`perfwalk.parsers.cachegrind` sums them), then every file removed.
Instructions executed (``Ir``) and an estimate of cycles from the simulated misses
are stored; an output cut short stores nothing (never a partial sum).
"""

from __future__ import annotations

from perfwalk.config.instruments import CACHEGRIND
from perfwalk.model import Value
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.steps.recorder import step_status, why
from perfwalk.parsers.cachegrind import TreeCounts, parse_tree

#: seconds allowed to check for valgrind on a host and to read a measurement back
PROBE_TIMEOUT = 120.0

#: the most read back of a run's outputs (about 200 bytes a process)
OUTPUT_LIMIT = 16 << 20

#: the simulated caches (size in bytes, associativity, line size): a common x86-64
#: core's, fixed so that a count does not depend on the host's own caches
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64")

#: the options of every run of cachegrind, probe included
OPTIONS = ("--tool=cachegrind", "--trace-children=yes", "--cache-sim=yes", *CACHES)

#: what is read back from ``$0.out.*`` (each file after a ``==> <name> <==`` line),
#: valgrind's own complaints when no process wrote one; then every file removed
READ = """\
found=
for f in "$0".out.*; do
    [ -f "$f" ] || continue
    found=1
    printf '==> %s <==\\n' "$f"
    grep -e '^events:' -e '^summary:' -- "$f"
done
if [ -z "$found" ]; then
    for f in "$0".log.*; do
        [ -f "$f" ] && grep -v -e '^--[0-9]*--' -e '^==[0-9]*== *$' -- "$f" | tail -n 3 >&2
    done
fi
rm -f -- "$0".out.* "$0".log.*
"""


def values_of(counts: TreeCounts) -> tuple[Value, ...]:
    """The instrument's values for a process tree's counts."""
    return (
        Value(f"{CACHEGRIND}.instructions", float(counts.instructions), "instructions"),
        Value(f"{CACHEGRIND}.cycles", float(counts.cycles), "cycles"),
    )


class Cachegrind:
    """The cachegrind instrument
    (:class:`perfwalk.orchestrate.instruments.instruments.Instrument`)."""

    kind = CACHEGRIND

    def unavailable(self, member: Member) -> str | None:
        argv = ("valgrind", "-q", *OPTIONS, "--cachegrind-out-file=/dev/null", "true")
        done = member.host.run(argv, timeout=PROBE_TIMEOUT, output_limit=1 << 16)
        if done.returncode == 0:
            return None
        return (
            f"valgrind's cachegrind does not run there: {why(done, step_status(done))}; "
            "install valgrind on that host (Debian: apt-get install valgrind)"
        )

    def wrapper(self, member: Member, path: str) -> tuple[str, ...]:  # noqa: ARG002
        return (
            "valgrind",
            *OPTIONS,
            f"--cachegrind-out-file={path}.out.%p",
            f"--log-file={path}.log.%p",
        )

    def read(self, member: Member, path: str) -> tuple[tuple[Value, ...], str]:
        done = member.host.run(
            ("sh", "-c", READ, path), timeout=PROBE_TIMEOUT, output_limit=OUTPUT_LIMIT
        )
        if done.returncode != 0:
            return (
                (),
                f"no measurement read back on host {member.name}: {why(done, step_status(done))}",
            )
        if done.stdout.truncated:  # a sum over some of the processes would be wrong
            return (), (
                f"the outputs on host {member.name} are larger than {OUTPUT_LIMIT} bytes "
                "(too many processes): nothing stored"
            )
        counts = parse_tree(done.stdout.text())
        if counts.incomplete:
            return (), (
                f"the output of {counts.incomplete} of {counts.incomplete + counts.processes} "
                f"processes on host {member.name} is incomplete (cut short): nothing stored"
            )
        if not counts.processes:
            said = done.stderr.text().strip()
            return (), f"no process wrote an output on host {member.name}" + (
                f": {said[-300:]!r}" if said else ""
            )
        return values_of(counts), ""
