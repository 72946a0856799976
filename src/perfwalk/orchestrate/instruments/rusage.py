"""The ``rusage`` instrument: what the test's command and the processes it waited for
used, as the kernel counts it (``wait4``), with no dependency.

The command runs under a small Python wrapper (this machine's Python on the local
host, ``python3`` on an ssh host): it forks, runs ``sh -c <command>`` in the child
(same process group, same output, SIGPIPE back to its default), waits for it with
``wait4``, writes the child's resource usage to a file, and ends as the child ended
(its exit status, or the same signal). The usage is the child's and that of every
descendant it waited for, none of the wrapper's own: user and system CPU time, the
largest resident set of any one of those processes (at least what the child had when
it was forked from the wrapper: a few MiB), context switches and page faults.
Reading the file back is one more command on the host after the run, outside what
the test measures.
"""

from __future__ import annotations

import sys

from perfwalk.config.instruments import INSTRUMENT_METRICS, RUSAGE
from perfwalk.model import Value
from perfwalk.orchestrate.hosts.topology import Member
from perfwalk.orchestrate.instruments.instruments import read_back
from perfwalk.orchestrate.steps.recorder import step_status, why
from perfwalk.parsers.values import finite

#: seconds allowed to check for python3 on a host and to read a measurement back
PROBE_TIMEOUT = 60.0

#: what the wrapper writes, by the name of the metric it becomes
_FIELDS = {metric.name.removeprefix(f"{RUSAGE}."): metric for metric in INSTRUMENT_METRICS[RUSAGE]}

#: ``python -c WRAPPER <file> <argv…>``: run argv, write its usage to <file>, end as it did
WRAPPER = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
pid = os.fork()
if pid == 0:
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    except OSError as error:
        sys.stderr.write("cannot run %s: %s\\n" % (sys.argv[2], error))
    os._exit(127)
_, status, u = os.wait4(pid, 0)
kib = 1024 if sys.platform == "darwin" else 1
with open(sys.argv[1], "w") as out:
    out.write("user_cpu %r\\nsystem_cpu %r\\nmax_rss %d\\nvoluntary_switches %d\\n"
              "involuntary_switches %d\\nminor_faults %d\\nmajor_faults %d\\n"
              % (u.ru_utime, u.ru_stime, u.ru_maxrss // kib, u.ru_nvcsw, u.ru_nivcsw,
                 u.ru_minflt, u.ru_majflt))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(128 + os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"""


def python_of(member: Member) -> str:
    """The Python that runs the wrapper on ``member``'s host."""
    return sys.executable if member.local else "python3"


def parse_usage(text: str) -> tuple[Value, ...]:
    """The metrics in the wrapper's file (``name number`` lines); all or nothing."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        name, _, number = line.partition(" ")
        value = finite(number.strip()) if name in _FIELDS else None
        if value is not None and value >= 0:
            found[name] = value
    if set(found) != set(_FIELDS):
        return ()
    return tuple(Value(_FIELDS[n].name, found[n], _FIELDS[n].unit) for n in _FIELDS)


class Rusage:
    """The rusage instrument (:class:`perfwalk.orchestrate.instruments.instruments.Instrument`)."""

    kind = RUSAGE

    def unavailable(self, member: Member) -> str | None:
        if member.local:
            return None
        argv = (python_of(member), "-I", "-S", "-c", "import os; os.wait4")
        done = member.host.run(argv, timeout=PROBE_TIMEOUT, output_limit=1 << 16)
        if done.returncode == 0:
            return None
        return (
            f"python3 (with os.wait4) does not run there: {why(done, step_status(done))}; "
            "install python3 on that host"
        )

    def wrapper(self, member: Member, path: str) -> tuple[str, ...]:
        return (python_of(member), "-I", "-S", "-c", WRAPPER, path)

    def read(self, member: Member, path: str) -> tuple[tuple[Value, ...], str]:
        text, problem = read_back(member, path, 1 << 16)
        if text is None:
            return (), problem
        values = parse_usage(text)
        if not values:
            return (), f"the measurement on host {member.name} is incomplete: {text!r:.200}"
        return values, ""
