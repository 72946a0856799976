"""Background services on a host: started in a process group of their own, waited
for by a readiness check, stopped by their process id.

Everything happens through :meth:`Host.run` with small POSIX sh scripts (every
value passed as an argument, never pasted into the script), so it works the same
on this machine and over ssh:

- :data:`START` starts the service detached (``setsid``, else ``perl``) with its
  output in a log file of the host's work directory, and prints its PID, which
  is also its process group id;
- :data:`READY` polls, on the host itself, until the port accepts (``ss``, else
  ``nc``) and/or the text is in the log, and fails at once if the service exits;
- :data:`STOP` sends SIGTERM to the service's process group, waits up to the
  grace time for it to go, then sends SIGKILL. Never by name: ``pkill`` would hit
  other hosts that share a kernel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfwalk.hosts.base import Completed, Host

START = r"""d=$1 n=$2 c=$3
cd "$d" || exit 125
log=$d/service-$n.log pidf=$d/service-$n.pid
rm -f "$pidf"
: > "$log"
if command -v setsid >/dev/null 2>&1; then
  setsid sh -c 'echo $$ > "$1"; exec sh -c "$2"' pw-service "$pidf" "$c" </dev/null >"$log" 2>&1 &
elif command -v perl >/dev/null 2>&1; then
  perl -e 'setpgrp(0, 0); exec @ARGV' sh -c 'echo $$ > "$1"; exec sh -c "$2"' pw-service \
    "$pidf" "$c" </dev/null >"$log" 2>&1 &
else
  echo "cannot start a service in a process group of its own: install setsid or perl" >&2
  exit 125
fi
i=0
while [ ! -s "$pidf" ]; do
  i=$((i + 1))
  if [ "$i" -gt 500 ]; then echo "the service did not start" >&2; exit 125; fi
  sleep 0.01 2>/dev/null || sleep 1
done
cat "$pidf"
"""

#: ``alive PID``: the process runs (a zombie nobody reaped yet does not count);
#: ``alive_group PGID``: a process of the group runs.
ALIVE = r"""alive() {
  st=$(ps -o stat= -p "$1" 2>/dev/null) || { kill -0 "$1" 2>/dev/null; return; }
  case $st in Z*|"") return 1;; esac
}
alive_group() {
  if ps -A -o pgid= -o stat= >/dev/null 2>&1; then
    ps -A -o pgid= -o stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'
  else
    kill -0 -"$1" 2>/dev/null
  fi
}
"""

READY = (
    ALIVE
    + r"""pid=$1 port=$2 text=$3 log=$4
listening() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
  elif command -v nc >/dev/null 2>&1; then
    nc -z 127.0.0.1 "$1" >/dev/null 2>&1
  else
    netstat -an 2>/dev/null | grep -E "[.:]$1 .*LISTEN" >/dev/null
  fi
}
while :; do
  if ! alive "$pid"; then
    echo "the service exited before it was ready (it must stay in the foreground:" \
      "no -D or --daemon); its last output:" >&2
    tail -n 20 "$log" >&2
    exit 3
  fi
  ok=1
  if [ "$port" -gt 0 ] && ! listening "$port"; then ok=0; fi
  if [ -n "$text" ] && ! grep -F -q -e "$text" "$log"; then ok=0; fi
  if [ "$ok" = 1 ]; then exit 0; fi
  sleep 0.02 2>/dev/null || sleep 1
done
"""
)

STOP = (
    ALIVE
    + r"""pid=$1 ticks=$2
if ! kill -TERM -"$pid" 2>/dev/null; then echo "had exited"; exit 0; fi
i=0
while alive_group "$pid"; do
  i=$((i + 1))
  if [ "$i" -gt "$ticks" ]; then kill -KILL -"$pid" 2>/dev/null; echo "killed (SIGKILL)"; exit 0; fi
  sleep 0.05 2>/dev/null || sleep 1
done
echo "stopped (SIGTERM)"
"""
)


@dataclass(frozen=True)
class Started:
    """A service that runs: where, its process group, its log file on the host."""

    host: Host
    pid: int
    log: str


def start(
    host: Host,
    workdir: str,
    name: str,
    command: str,
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> Completed:
    """Start ``command`` as service ``name`` (with ``env`` added to its environment,
    like the test's commands); its stdout is the PID on success."""
    return host.run(
        ["sh", "-c", START, "pw-start", workdir, name, command], timeout=timeout, env=env
    )


def started_pid(done: Completed) -> int | None:
    """The PID that :func:`start` printed, if it succeeded."""
    text = done.stdout.text().strip()
    if done.returncode != 0 or not text.isdigit():
        return None
    return int(text)


def log_path(workdir: str, name: str) -> str:
    return f"{workdir}/service-{name}.log"


def wait_ready(service: Started, *, port: int, text: str, timeout: float) -> Completed:
    """Poll on the host until the service is ready; a timeout or an early exit fails."""
    return service.host.run(
        ["sh", "-c", READY, "pw-ready", str(service.pid), str(port), text, service.log],
        timeout=timeout,
    )


def stop(service: Started, *, grace: float, timeout: float) -> Completed:
    """Stop the service's process group by its id: SIGTERM, SIGKILL after ``grace``."""
    ticks = max(1, round(grace * 20))
    return service.host.run(
        ["sh", "-c", STOP, "pw-stop", str(service.pid), str(ticks)], timeout=timeout
    )
